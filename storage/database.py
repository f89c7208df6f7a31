"""The database handle: opening SQLite through aiosqlite (WAL, foreign keys) and applying migrations.

Migrations are the numbered ``migrations/NNNN_name.sql`` files, applied once each in order at start and
recorded in ``schema_migrations``; a new migration is a new file, never an edit of an old one. The repositories
(`storage.games`, `storage.desk`, …) hang off `Database`; everything that touches SQL lives in this package.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import aiosqlite

MIGRATIONS_PACKAGE = "storage.migrations"


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every migration file, in order."""
    found = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def now_text(moment: datetime) -> str:
    """Times are stored as ISO 8601 UTC text with a Z, which sorts chronologically."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stored_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Database:
    """One connection to the club's database and the repositories over it."""

    def __init__(self, connection: aiosqlite.Connection, path: str) -> None:
        self.connection = connection
        self.path = path
        self._write_lock = asyncio.Lock()
        from storage.calls import CallStore
        from storage.changes import PaperChangeStore
        from storage.events import EventStore
        from storage.games import GameStore
        from storage.members import MemberStore
        from storage.trials import TrialStore

        self.games = GameStore(self)
        self.members = MemberStore(self)
        self.calls = CallStore(self)
        self.trials = TrialStore(self)
        self.paper_changes = PaperChangeStore(self)
        self.events = EventStore(self)
        from storage.league import LeagueStore
        from storage.penalties import PenaltyStore

        self.penalties = PenaltyStore(self)
        self.league = LeagueStore(self)
        from storage.links import LinkStore

        self.links = LinkStore(self)
        from storage.councils import AppealStore, VoteStore

        self.votes = VoteStore(self)
        self.appeals = AppealStore(self)

    async def close(self) -> None:
        await self.connection.close()

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception: a write either happens whole or not at all.

        One connection serves the whole process, so transactions are taken one at a time (an asyncio lock);
        SQLite's own locking keeps other processes (the CLI) out meanwhile.
        """
        async with self._write_lock:
            await self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                await self.connection.rollback()
                raise
            else:
                await self.connection.commit()


async def open_database(path: str | Path) -> Database:
    """Open (creating if needed) the database at `path` and bring its schema up to date."""
    text = str(path)
    if text != ":memory:":
        Path(text).parent.mkdir(parents=True, exist_ok=True)
    connection = await aiosqlite.connect(text, isolation_level=None)
    try:
        await connection.execute("PRAGMA foreign_keys = ON")
        await connection.execute("PRAGMA journal_mode = WAL")
        await connection.execute("PRAGMA synchronous = NORMAL")
        await connection.execute("PRAGMA busy_timeout = 5000")
        await _migrate(connection)
    except BaseException:
        await connection.close()
        raise
    return Database(connection, text)


async def _migrate(connection: aiosqlite.Connection) -> None:
    await connection.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    async with connection.execute("SELECT version FROM schema_migrations") as cursor:
        applied = {row[0] for row in await cursor.fetchall()}
    for version, name, sql in migrations():
        if version in applied:
            continue
        await connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                await connection.execute(statement)
            await connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, now_text(datetime.now(UTC))),
            )
        except BaseException:
            await connection.rollback()
            raise
        await connection.commit()


def _statements(sql: str) -> list[str]:
    """Split a migration into statements: `--` comments dropped (also at a line's end), then split on `;`
    (our migrations keep no `--` or `;` inside strings and no triggers)."""
    lines = [line.split("--", 1)[0] for line in sql.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]
