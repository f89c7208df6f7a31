"""The storage raises its own errors (`storage.errors`), never a driver's: a broken constraint is `Conflict` and a
write lock held past the bound `DatabaseBusy`, on SQLite and on PostgreSQL alike, so the desk and the adapters
catch one thing whichever backend holds the club."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import asyncpg
import pytest

from club import NOW, Club, database_for
from storage.calls import AlreadyPending
from storage.database import open_database
from storage.errors import Conflict, DatabaseBusy, StorageError

pytestmark = pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


def test_the_storage_errors_are_no_driver_errors(backend: str) -> None:
    for error in (Conflict, DatabaseBusy):
        assert issubclass(error, StorageError)
        assert not issubclass(error, (sqlite3.Error, asyncpg.PostgresError))


async def test_a_broken_constraint_is_a_conflict_and_nothing_of_the_transaction_is_written(club: Club) -> None:
    async def twice() -> None:
        async with club.db.transaction() as conn:
            await conn.execute("INSERT INTO members (nick, created_at) VALUES ('ana', 'x')")
            await conn.execute("INSERT INTO members (nick, created_at) VALUES ('ANA', 'y')")  # COLLATE NOCASE

    with pytest.raises(Conflict) as raised:
        await twice()
    assert not isinstance(raised.value, (sqlite3.Error, asyncpg.PostgresError))
    assert await club.db.members.by_nick("ana") is None

    def in_one_hop(conn: object) -> None:  # a `run_transaction` body (the game-server feed's way)
        conn.execute("INSERT INTO members (nick, created_at) VALUES ('petar', 'x')")  # type: ignore[attr-defined]
        conn.execute("INSERT INTO members (nick, created_at) VALUES ('Petar', 'y')")  # type: ignore[attr-defined]

    with pytest.raises(Conflict):
        await club.db.run_transaction(in_one_hop)
    assert await club.db.members.by_nick("petar") is None


async def test_a_store_that_loses_a_race_to_a_constraint_says_so_in_its_own_terms(club: Club) -> None:
    """The unique index of pending calls decides between two callers of one game: the second store call meets the
    `Conflict` and says what it means (`AlreadyPending`), and only the first call is recorded."""
    await club.game(700)
    ana, petar = await club.member("ana"), await club.member("petar")
    await club.db.calls.create(700, ana.id, False, NOW, NOW + timedelta(minutes=5))
    with pytest.raises(AlreadyPending):
        await club.db.calls.create(700, petar.id, False, NOW, NOW + timedelta(minutes=5))
    assert [c.caller for c in await club.db.calls.for_game(700)] == [ana.id]


async def test_a_write_lock_held_past_the_bound_is_busy_on_sqlite(tmp_path: Path, backend: str) -> None:
    if backend != "sqlite":
        pytest.skip("PostgreSQL's own: tests/test_postgres.py holds the club's advisory lock from another process")
    path = database_for(tmp_path)
    db = await open_database(path, busy_timeout_ms=50)
    other = sqlite3.connect(str(path), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process mid-write
        with pytest.raises(DatabaseBusy) as raised:
            await db.members.link("test", "1", "duh", NOW)
        assert not isinstance(raised.value, sqlite3.Error)
        with pytest.raises(DatabaseBusy):
            await db.run_transaction(lambda conn: conn.execute("SELECT 1"))
        other.execute("ROLLBACK")
        assert (await db.members.link("test", "1", "duh", NOW)).nick == "duh"
    finally:
        other.close()
        await db.close()
