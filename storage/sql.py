"""The one connection interface the stores write to, whichever backend holds the club (SQLite or PostgreSQL).

It is the part of aiosqlite's connection the stores use, so SQLite's connection is it as it stands and
`storage.postgres.PgConnection` implements it over asyncpg: `execute(sql, params)` — awaited for a cursor, or
``async with`` — with `fetchone`/`fetchall`/`rowcount`/`lastrowid`, `execute_fetchall` and `executemany`, the
statements written once in SQLite's dialect with ``?`` placeholders. `SyncConnection` is what a
`Database.run_transaction` body gets: sqlite3's connection, or the PostgreSQL writer's, in its own thread.
Rows are tuples (indexed by position) on both. `rows_in` asks one statement for many keys at once, `insert_rows`
writes many rows in one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol


class Cursor(Protocol):
    """What a statement leaves: its rows, how many rows it changed, the id of the row it inserted."""

    @property
    def rowcount(self) -> int: ...

    @property
    def lastrowid(self) -> int | None: ...

    async def fetchone(self) -> Any: ...

    async def fetchall(self) -> Iterable[Any]: ...


class Pending(Awaitable[Cursor], AbstractAsyncContextManager[Cursor], Protocol):
    """A statement sent: awaited, or entered with ``async with``, for its cursor."""


class Connection(Protocol):
    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> Pending: ...

    def execute_fetchall(self, sql: str, parameters: Iterable[Any] | None = None) -> Awaitable[Iterable[Any]]: ...

    def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> Awaitable[Cursor]: ...


class SyncCursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    @property
    def lastrowid(self) -> int | None: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class SyncConnection(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> SyncCursor: ...

    def executemany(self, sql: str, parameters: Any, /) -> SyncCursor: ...


IN_CHUNK = 500  # keys per statement: far below SQLite's and PostgreSQL's limits on parameters


def rows_in(conn: SyncConnection, sql: str, keys: Iterable[Any]) -> list[Any]:
    """The rows of `sql` for every one of `keys` (each asked once), `IN_CHUNK` keys a statement: ``{marks}`` in
    `sql` stands for the placeholders of the keys, as in ``SELECT id, body FROM gs_events WHERE id IN ({marks})``.
    A batch's look-up in one round trip instead of one per key (on PostgreSQL each statement is one)."""
    unique = sorted(set(keys))
    rows: list[Any] = []
    for start in range(0, len(unique), IN_CHUNK):
        part = unique[start : start + IN_CHUNK]
        rows += conn.execute(sql.format(marks=",".join("?" * len(part))), part).fetchall()
    return rows


PARAMETERS = 999  # placeholders per statement: SQLite's smallest limit (SQLITE_MAX_VARIABLE_NUMBER before 3.32)


async def insert_rows(conn: Connection, sql: str, rows: Sequence[Sequence[Any]], row: str = "") -> None:
    """`sql`, an ``INSERT … VALUES {rows}``, for every one of `rows` in one statement (as many as `PARAMETERS`
    allows: more take a statement each further batch): ``{rows}`` stands for `row` — one row's values, as
    ``(?, ?, 'started', ?)``; placeholders only when omitted — once per row. One round trip on PostgreSQL and one
    statement on SQLite, where `executemany` runs the statement once per row (on the server too, on PostgreSQL).
    No two of `rows` may meet the same key under ``ON CONFLICT … DO UPDATE`` (PostgreSQL refuses a statement
    that changes a row twice); ``INSERT OR IGNORE`` keeps the first."""
    if not rows:
        return
    width = len(rows[0])
    row = row or "(" + ", ".join("?" * width) + ")"
    per = max(1, PARAMETERS // max(1, width))
    for start in range(0, len(rows), per):
        part = rows[start : start + per]
        await conn.execute(sql.format(rows=", ".join([row] * len(part))), [v for r in part for v in r])
