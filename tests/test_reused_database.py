"""The PostgreSQL half's database, emptied between tests (tests/conftest.py, `ReusedDatabase`): the next test finds
it as a new copy of the migrated template would be — no rows, sequences from their start, no connection of the
last test left — and what emptying cannot put back (the schema, the migrations' record) makes it a new copy.

The tests are synchronous: `ReusedDatabase.fresh` runs its own event loop, as the `backend` fixture calls it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import asyncpg
import pytest
from conftest import ReusedDatabase
from pg_server import PgServer

from storage.database import open_database

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DROP_A_POLICY = (
    "DO $$ DECLARE p record; BEGIN SELECT polname, polrelid::regclass AS rel INTO p FROM pg_policy LIMIT 1;"
    " EXECUTE format('DROP POLICY %I ON %s', p.polname, p.rel); END $$"
)


def _name(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[-1]


async def _as_superuser(server: PgServer, url: str, statement: str) -> object:
    conn = await asyncpg.connect(server.admin_url(_name(url)))
    try:
        return await conn.fetchval(statement)
    finally:
        await conn.close()


async def _nicks(url: str, *new: str) -> list[tuple[int, str]]:
    """Link the `new` nicknames, then every member's id and nickname."""
    db = await open_database(url)
    try:
        for nick in new:
            await db.members.link("test", nick, nick, NOW)
        rows = await db.connection.execute_fetchall("SELECT id, nick FROM members ORDER BY id")
        return [(int(r[0]), str(r[1])) for r in rows]
    finally:
        await db.close()


@pytest.fixture
def reused(pg_server: PgServer) -> Iterator[ReusedDatabase]:
    made = ReusedDatabase(pg_server)
    yield made
    made.close()


def test_the_next_test_finds_no_rows_the_sequences_restarted_and_no_connection_left(
    reused: ReusedDatabase, pg_server: PgServer
) -> None:
    first = reused.fresh()
    assert asyncio.run(_nicks(first, "ana", "marko")) == [(1, "ana"), (2, "marko")]

    async def forget_a_connection() -> int:  # inside an open transaction holding the members table
        left = await asyncpg.connect(first)
        await left.execute("BEGIN; LOCK TABLE members IN ACCESS EXCLUSIVE MODE")
        return int(left.get_server_pid())

    pid = asyncio.run(forget_a_connection())  # its event loop closes with the connection still open
    second = reused.fresh()
    assert second == first  # the same database, emptied: no copy made
    assert (
        asyncio.run(_as_superuser(pg_server, second, f"SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}")) == 0
    )
    assert asyncio.run(_nicks(second, "petar")) == [(1, "petar")]  # no row of the last test, ids from 1 again


@pytest.mark.parametrize(
    "change",
    [
        "ALTER TABLE members ADD COLUMN extra TEXT",
        "CREATE TABLE leftover (id INTEGER)",
        "UPDATE schema_migrations SET name = name || '!' WHERE version = 1",
        DROP_A_POLICY,
    ],
    ids=["a column", "a table", "the migrations' record", "a policy"],
)
def test_what_emptying_cannot_put_back_makes_a_new_copy(
    reused: ReusedDatabase, pg_server: PgServer, change: str
) -> None:
    first = reused.fresh()
    asyncio.run(_nicks(first, "ana"))
    asyncio.run(_as_superuser(pg_server, first, change))
    second = reused.fresh()
    assert second != first
    assert asyncio.run(_nicks(second)) == []
    third = reused.fresh()  # and the new copy is emptied as the first was
    assert third == second
