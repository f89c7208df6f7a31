"""Shared fixtures: a fresh club (database, desk on a manual clock, recording chat) per test, on each backend.

The modules in `BOTH_BACKENDS` run every test twice, on SQLite and on PostgreSQL (a throwaway server of the
installed binaries, tests/pg_server.py); ``SUDIJA_PG_ALL=1`` runs every module so. Without PostgreSQL installed
their PostgreSQL half is skipped, and the run says so at its start and its end.

The PostgreSQL half runs every test on one database per session (per xdist worker: each has its own server),
copied once from the migrated template and emptied before each test (`ReusedDatabase.fresh`): the test's
leftover connections are ended, every table the template holds no rows in is emptied and every sequence starts
again, far less work than a new copy of the template (docs/testing.md has the figures). Anything else a test changed
(a table the template filled, the schema) makes the next test get a new copy. `pg_url`, for the tests of
PostgreSQL itself, still gives each test a new copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest
import sqlite_template
from pg_server import TEMPLATE, PgServer, find_binaries

import club as club_module
from club import Club, make_club

T = TypeVar("T")

sqlite_template.install()  # a new SQLite database gets the migrated schema copied in (tests/sqlite_template.py)

# The storage, desk and use-case tests: every one runs on both backends. A module whose tests make databases of
# their own (SQLite files they open, not `club` or `database_for`) is not listed: its PostgreSQL run would repeat
# the SQLite one (test_links, test_paper_changes and test_permissions are such).
BOTH_BACKENDS = {
    "test_appeals",
    "test_chat_outbox",
    "test_corrections",
    "test_crash_hearing_vote",
    "test_dead_letters",
    "test_exact_to_the_letter_2",
    "test_feed_batch",
    "test_desk_calls",
    "test_desk_edges",
    "test_desk_trials",
    "test_game_store",
    "test_gameserver_authenticity",
    "test_gameserver_e2e",
    "test_gameserver_faults",
    "test_gameserver_hand",
    "test_gameserver_hostile",
    "test_gameserver_korekcija",
    "test_gameserver_resync",
    "test_gameserver_protocol",
    "test_governance",
    "test_identity",
    "test_member_language",
    "test_outbox_appeals_votes",
    "test_outbox_lease",
    "test_outbox_penalties_links",
    "test_outbox_corrections_table",
    "test_outbox_game_server",
    "test_kept_paper",
    "test_penalties",
    "test_penalties_rules",
    "test_statistika",
    "test_start_judges",
    "test_sweep",
    "test_votes",
    "test_web",
    "test_web_signin",
    "test_zapisnik",
}
BINARIES = find_binaries()
NO_POSTGRES = (
    "PostgreSQL is not installed (no initdb/pg_ctl/postgres on PATH, in SUDIJA_PG_BIN or /usr/lib/postgresql/*/bin):"
    " the PostgreSQL run of the storage, desk and use-case tests is SKIPPED — install the `postgresql` package"
)


def pytest_report_header() -> str:
    if BINARIES is None:
        return NO_POSTGRES
    return f"PostgreSQL: {BINARIES} (the storage, desk and use-case tests run on SQLite and on PostgreSQL)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if BINARIES is None:
        terminalreporter.write_line(NO_POSTGRES, yellow=True, bold=True)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    """Collecting imports every test module and the libraries: millions of objects made and none of them garbage,
    so the collector's passes over them find nothing. It rests while collecting, and what collecting built (the
    modules, the tests) is then frozen out of its reach (`gc.freeze`, as the Telegram adapter does with the bot's
    start-up heap): a full pass during the tests walks only what the tests made."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()
        gc.collect()
        gc.freeze()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in BOTH_BACKENDS or os.environ.get("SUDIJA_PG_ALL") == "1":
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    if BINARIES is None:
        pytest.skip(NO_POSTGRES)
    server = PgServer(BINARIES)
    server.start()
    try:
        asyncio.run(server.make_template())
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def fresh_postgres(server: PgServer) -> Iterator[str]:
    """The address of a new database on the server, migrated (a copy of the template); dropped afterwards."""
    database = server.new_name()
    asyncio.run(server.admin(f"CREATE DATABASE {database} TEMPLATE {TEMPLATE} OWNER {server.role}"))
    try:
        yield server.url(database)
    finally:
        asyncio.run(server.admin(f"DROP DATABASE {database} WITH (FORCE)"))


class ReusedDatabase:
    """The session's database for the PostgreSQL half of the tests: a copy of the template, emptied per test.

    The emptying runs on one superuser connection kept open between tests, on an event loop of its own: a new
    backend for each emptying would build its caches of every table again, more work than the emptying itself
    (docs/testing.md). The tests' connections are ended before each emptying; this one stays (idle, outside any
    transaction)."""

    def __init__(self, server: PgServer) -> None:
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self.conn: asyncpg.Connection | None = None  # the superuser's, to `name`, while it is open
        self.name = ""
        self.emptied: list[str] = []  # the tables the template holds no rows in
        self.kept: dict[str, str] = {}  # the others (the migrations' record), with a digest of their rows
        self.sequences: dict[str, int] = {}  # each sequence and its first value
        self.schema = ""  # a digest of the relations, their columns and their policies
        self.used = False

    async def _copy(self) -> None:
        await self._disconnect()
        if self.name:
            await self.server.admin(f"DROP DATABASE {self.name} WITH (FORCE)")
        self.name = self.server.new_name()
        await self.server.admin(f"CREATE DATABASE {self.name} TEMPLATE {TEMPLATE} OWNER {self.server.role}")
        conn = await self._connection()
        tables = [r[0] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        counts = {t: int(await conn.fetchval(f'SELECT count(*) FROM "{t}"')) for t in tables}
        self.kept = {t: await self._digest(conn, t) for t, n in counts.items() if n}
        self.emptied = sorted(t for t, n in counts.items() if n == 0)
        rows = await conn.fetch("SELECT sequencename, start_value FROM pg_sequences WHERE schemaname = 'public'")
        self.sequences = {str(r[0]): int(r[1]) for r in rows}
        self.schema = await self._schema(conn)
        self.used = False

    async def _connection(self) -> asyncpg.Connection:
        if self.conn is None or self.conn.is_closed():
            self.conn = await asyncpg.connect(self.server.admin_url(self.name))
        return self.conn

    async def _disconnect(self) -> None:
        if self.conn is not None:
            await self.conn.close()
            self.conn = None

    @staticmethod
    async def _digest(conn: asyncpg.Connection, table: str) -> str:
        """The table's rows, all of them, as one hash: any row added, removed or changed shows."""
        return str(
            await conn.fetchval(
                f"SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM \"{table}\" t"
            )
        )

    @staticmethod
    async def _schema(conn: asyncpg.Connection) -> str:
        """The schema's shape as one hash: a relation, a column or a policy added, dropped or changed shows."""
        return str(
            await conn.fetchval(
                "SELECT md5(coalesce(string_agg(line, ',' ORDER BY line), '')) FROM ("
                " SELECT c.relname::text || ':' || c.relkind::text || ':' || coalesce(a.attname::text, '') || ':'"
                " || coalesce(a.atttypid::text, '') AS line"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                " WHERE n.nspname = 'public'"
                " UNION ALL SELECT 'policy:' || polname::text || ':' || polrelid::regclass::text FROM pg_policy) lines"
            )
        )

    async def _empty(self) -> bool:
        """Empty the database for the next test; False when a test changed what emptying cannot put back."""
        conn = await self._connection()
        await conn.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        if await self._schema(conn) != self.schema:
            return False
        for table, digest in self.kept.items():
            if await self._digest(conn, table) != digest:
                return False
        statements = [f'DELETE FROM "{t}";' for t in self.emptied]
        statements += [f"SELECT setval('\"{name}\"', {start}, false);" for name, start in self.sequences.items()]
        # The rows go whatever their foreign keys say (every table is emptied): no trigger or check runs. A lock
        # still held (a connection that outlived its termination) fails the test rather than hanging it.
        try:
            await conn.execute(
                "BEGIN; SET LOCAL session_replication_role = replica; SET LOCAL lock_timeout = '30s'; "
                + " ".join(statements)
                + " COMMIT;"
            )
        except BaseException:
            await self._disconnect()  # its transaction ended with it
            raise
        return True

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        return self.loop.run_until_complete(work)

    def fresh(self) -> str:
        """The database's address, as a newly migrated copy of the template would be."""
        if not self.name or (self.used and not self._run(self._empty())):
            self._run(self._copy())
        self.used = True
        return self.server.url(self.name)

    def close(self) -> None:
        """Close the kept connection and its event loop (the database stays until the server stops)."""
        if self.loop is not None:
            self.loop.run_until_complete(self._disconnect())
            self.loop.close()
            self.loop = None


@pytest.fixture(scope="session")
def reused_database(pg_server: PgServer) -> Iterator[ReusedDatabase]:
    reused = ReusedDatabase(pg_server)
    yield reused
    reused.close()


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh PostgreSQL database for a test of PostgreSQL itself (skipped when it is not installed)."""
    with fresh_postgres(pg_server) as url:
        yield url


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Which backend the test's databases are on; on PostgreSQL, `club.database_for` names its emptied database."""
    name: str = getattr(request, "param", "sqlite")
    if name != "postgresql":
        yield name
        return
    url = request.getfixturevalue("reused_database").fresh()
    club_module.POSTGRES.append(url)
    try:
        yield name
    finally:
        club_module.POSTGRES.remove(url)


@pytest.fixture
async def club(tmp_path: Path, backend: str) -> AsyncIterator[Club]:
    made = await make_club(tmp_path)
    yield made
    await made.db.close()
