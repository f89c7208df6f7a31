"""Shared fixtures: a fresh club (database, desk on a manual clock, recording chat) per test, on each backend.

The modules in `BOTH_BACKENDS` run every test twice, on SQLite and on PostgreSQL (a throwaway server of the
installed binaries, tests/pg_server.py, with a fresh database per test copied from a migrated template);
``SUDIJA_PG_ALL=1`` runs every module so. Without PostgreSQL installed their PostgreSQL half is skipped, and
the run says so at its start and its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from pg_server import TEMPLATE, PgServer, find_binaries

import club as club_module
from club import Club, make_club
from storage.database import open_database

# The storage, desk and use-case tests: every one runs on both backends.
BOTH_BACKENDS = {
    "test_appeals",
    "test_chat_outbox",
    "test_corrections",
    "test_crash_hearing_vote",
    "test_desk_calls",
    "test_desk_edges",
    "test_desk_trials",
    "test_game_store",
    "test_gameserver_e2e",
    "test_gameserver_hostile",
    "test_gameserver_protocol",
    "test_governance",
    "test_identity",
    "test_links",
    "test_member_language",
    "test_outbox_appeals_votes",
    "test_outbox_lease",
    "test_outbox_penalties_links",
    "test_outbox_corrections_table",
    "test_outbox_game_server",
    "test_paper_changes",
    "test_penalties",
    "test_penalties_rules",
    "test_permissions",
    "test_statistika",
    "test_start_judges",
    "test_sweep",
    "test_votes",
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in BOTH_BACKENDS or os.environ.get("SUDIJA_PG_ALL") == "1":
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


async def _admin(server: PgServer, *statements: str) -> None:
    conn = await asyncpg.connect(server.admin_url("postgres"))
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def _template(server: PgServer) -> None:
    await _admin(server, *server.role_statements(), f"CREATE DATABASE {TEMPLATE} OWNER {server.role}")
    db = await open_database(server.url(TEMPLATE))
    await db.close()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    if BINARIES is None:
        pytest.skip(NO_POSTGRES)
    server = PgServer(BINARIES)
    server.start()
    try:
        asyncio.run(_template(server))
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def fresh_postgres(server: PgServer) -> Iterator[str]:
    """The address of a new database on the server, migrated (a copy of the template); dropped afterwards."""
    database = server.new_name()
    asyncio.run(_admin(server, f"CREATE DATABASE {database} TEMPLATE {TEMPLATE} OWNER {server.role}"))
    try:
        yield server.url(database)
    finally:
        asyncio.run(_admin(server, f"DROP DATABASE {database} WITH (FORCE)"))


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh PostgreSQL database for a test of PostgreSQL itself (skipped when it is not installed)."""
    with fresh_postgres(pg_server) as url:
        yield url


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Which backend the test's databases are on; on PostgreSQL, `club.database_for` names its fresh database."""
    name: str = getattr(request, "param", "sqlite")
    if name != "postgresql":
        yield name
        return
    with fresh_postgres(request.getfixturevalue("pg_server")) as url:
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
