"""A new SQLite database in a test gets the migrated schema copied in, not every migration run again.

`open_database` on a file with nothing in it applies every migration each time, and a test process opens a new
database for most of its tests. `install()` (tests/conftest.py) wraps `storage.database._migrate`: the
first new database of the process is migrated by the bot's own code and copied, page for page (SQLite's online
backup), into a database in memory, the template; each later new database gets the template's pages, then the
bot's `_migrate` runs on it as always and finds every migration applied. The pages are what the migrations
wrote, so a test sees the database a first start makes.

Only a database with nothing in it, opened while the release's own migrations are in force, is filled so. A
file that holds anything (an older release's schema, rows a test wrote first) and a test that replaces
`storage.database.migrations` (a broken or a shorter list) go through the migrations as the bot runs them.
"""

from __future__ import annotations

import sqlite3
import threading

import aiosqlite

from storage import database

_migrate = database._migrate
_migrations = database.migrations
_template: sqlite3.Connection | None = None
_lock = threading.Lock()  # the template is read from the databases' threads: one copy at a time


def _empty(raw: sqlite3.Connection) -> bool:
    row = raw.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return row is not None and row[0] == 0


def _fill(raw: sqlite3.Connection) -> bool:
    """On the connection's thread: copy the template into the database if it is new; whether it was new."""
    if not _empty(raw):
        return False
    with _lock:
        if _template is not None:
            _template.backup(raw)
    return True


def _keep(raw: sqlite3.Connection) -> None:
    """On the connection's thread: the migrated database becomes the template (once per process)."""
    global _template
    with _lock:
        if _template is None:
            template = sqlite3.connect(":memory:", check_same_thread=False)
            raw.backup(template)
            _template = template


async def _migrate_from_template(connection: aiosqlite.Connection) -> None:
    if database.migrations is not _migrations:  # a test's own migrations: nothing to copy
        await _migrate(connection)
        return
    raw = connection._conn
    new = await connection._execute(_fill, raw)
    await _migrate(connection)
    if new and _template is None:
        await connection._execute(_keep, raw)


def install() -> None:
    database._migrate = _migrate_from_template
