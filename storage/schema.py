"""What a database's schema holds against the migrations this release carries, read without changing anything.

`open_database` applies what is missing; `sudija migrate --check` asks first (`schema_state`): the migrations
applied, those pending, and any applied that this release does not know (the database was migrated by a newer
release: opening it with this one is refused by `sudija migrate`). An SQLite file is read through a read-only
connection (a file that is not there is an empty schema, and is not created); a PostgreSQL database through a
connection of its own (the bookkeeping table is global, storage/tenancy.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from storage.database import UNOPENABLE, DatabaseUnavailable, migrations, unopenable
from storage.postgres import is_postgres, shown
from storage.tenancy import DEFAULT_CLUB, SETTING


@dataclass(frozen=True, slots=True)
class SchemaState:
    exists: bool  # False: an SQLite file that is not there (the first start creates it with every migration)
    applied: frozenset[int]
    known: tuple[tuple[int, str], ...]  # this release's migrations, (number, name), in order

    @property
    def pending(self) -> list[tuple[int, str]]:
        return [(number, name) for number, name in self.known if number not in self.applied]

    @property
    def unknown(self) -> list[int]:
        """Applied migrations this release does not carry: a newer release migrated the database."""
        known = {number for number, _ in self.known}
        return sorted(number for number in self.applied if number not in known)

    @property
    def current(self) -> int:
        """The newest migration applied (0: none)."""
        return max(self.applied, default=0)


async def schema_state(target: str, club: str = DEFAULT_CLUB) -> SchemaState:
    """The schema of the database `target` (an SQLite file or a ``postgresql://`` address) against this release's
    migrations; `DatabaseUnavailable` when the server cannot be reached or the file is no database."""
    if is_postgres(target):
        applied = await _postgres_applied(target, club)
        dialect = "postgresql"
        exists = True
    else:
        dialect = "sqlite"
        file = Path(target).absolute()  # noqa: ASYNC240 (one stat before one connection)
        exists = target == ":memory:" or file.is_file()
        try:
            applied = await _sqlite_applied(file.as_uri()) if exists and target != ":memory:" else frozenset()
        except sqlite3.Error as exc:
            if exc.sqlite_errorcode & 0xFF not in UNOPENABLE:
                raise
            raise unopenable(target, exc) from None
    known = tuple((number, name) for number, name, _ in migrations(dialect))
    return SchemaState(exists, applied, known)


async def _sqlite_applied(uri: str) -> frozenset[int]:
    async with aiosqlite.connect(uri + "?mode=ro", uri=True) as connection:
        async with connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ) as cursor:
            row = await cursor.fetchone()
        if row is None or not row[0]:
            return frozenset()
        async with connection.execute("SELECT version FROM schema_migrations") as cursor:
            return frozenset(int(r[0]) for r in await cursor.fetchall())


async def _postgres_applied(target: str, club: str) -> frozenset[int]:
    import asyncpg  # noqa: PLC0415 (only a PostgreSQL database needs the driver)

    try:
        raw = await asyncpg.connect(target, server_settings={SETTING: club, "application_name": f"sudija {club}"})
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseUnavailable(f"cannot open the PostgreSQL database {shown(target)}: {exc}") from None
    try:
        if await raw.fetchval("SELECT to_regclass('schema_migrations')") is None:
            return frozenset()
        return frozenset(int(r[0]) for r in await raw.fetch("SELECT version FROM schema_migrations"))
    finally:
        await raw.close()
