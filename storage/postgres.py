"""PostgreSQL as the club's database, through asyncpg: `database = "postgresql://…"` in the configuration.

`PostgresDatabase` is `storage.database.Database` with the same stores over `PgConnection`, which implements
`storage.sql.Connection` — each statement written once in SQLite's dialect and translated by
`storage.pg_dialect` — so the stores do not know which backend holds the club.

Transactions keep SQLite's ``BEGIN IMMEDIATE`` semantics: one writer at a time over the whole database, every
process included. A transaction takes a transaction-level advisory lock (`WRITE_LOCK`) first, so a read
followed by a write inside it sees no other writer in between, exactly as on SQLite; the Sudi claim is still
the one conditional ``UPDATE … WHERE state = 'pending'`` on both. A writer waits up to the lock timeout for
another, then `DatabaseBusy`, which the adapters answer with "try again in a moment"; PostgreSQL's
serialization failures and deadlocks are `DatabaseBusy` too, and its constraint violations `Conflict`, as on
SQLite (`storage.errors`: no asyncpg error leaves a statement). A commit `durable=False` is
``synchronous_commit = off`` for that transaction. One connection per process serves the stores, as on
SQLite: statements on it are taken one at a time, and a read outside a transaction sees the process's own open
transaction; a `run_transaction` body (many small statements in one transaction: the game-server feed's batch,
an import's file) runs in a thread with a connection of its own (`_Writer`), under the same write lock.

Several processes serving one database at once: a transaction that wrote a deadline or an effect to carry out
(a call, a councilor call, a plavac mark, a vote, an appeal, an outbox command, a chat effect) sends ``NOTIFY
sudija_wake`` as it commits, and `PostgresDatabase.listen` calls back in every other process (its safety sweep
and outbox workers wake at once rather than at their next round). Whichever process acts on a due row, the
conditional ``UPDATE … WHERE state = 'pending'`` lets exactly one act; an outbox row is leased first, the lease
naming its holder's connection (`lease_holder`), so a process releases only the leases of processes that are gone
(`live_holders`). One process receives the club's platform events: `storage.pg_gateway`.

Many clubs on one database (storage/tenancy.py): the connection carries its club (``sudija.club``), which every
table's forced row-level security reads, and the advisory locks above are two-key locks whose second key is the
club's (`PostgresDatabase.club_key`), so one club's writers and bot never wait for another's; its wake-ups are
``NOTIFY sudija_wake_<club>``, heard by its own processes only.

The migrations are the ``NNNN_name.pg.sql`` files beside SQLite's (storage/migrations/README.md).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from storage.database import Database, MigrationFailed, migrations, now_text, registered, split_statements
from storage.errors import Conflict, DatabaseBusy, DatabaseReadOnly, DatabaseUnavailable
from storage.pg_dialect import CLUB, Catalog, Statement
from storage.tenancy import DEFAULT_CLUB, SETTING, lock_key

T = TypeVar("T")

WRITE_LOCK = 0x53554449  # "SUDI": the advisory lock every writing transaction holds
STATEMENTS = 1024  # prepared statements kept per connection: the stores' few hundred texts, each prepared once
WAKE_CHANNEL = "sudija_wake"
_WAKES = re.compile(
    r"^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE)\s+(?:calls|councilor_calls|plavac|votes|appeals|outbox)\b"
    r"|^\s*INSERT\s+INTO\s+chat_outbox\b|^\s*UPDATE\s+chat_outbox\s+SET\s+state\s*=\s*'pending'",
    re.I,
)
GATEWAY_LOCK = 0x53554447  # "SUDG": held by the one process receiving the club's platform events (storage.pg_gateway)
_HOLDER = "SELECT pid::text || '@' || extract(epoch FROM backend_start)::text FROM pg_stat_activity"
MIGRATION_LOCK = 0x53554448  # held while one process migrates, so two starting at once do not both migrate
# Serialization failures, deadlocks and a lock waited for past lock_timeout: nothing was written, try again.
_BUSY = (
    asyncpg.exceptions.SerializationError,
    asyncpg.exceptions.DeadlockDetectedError,
    asyncpg.exceptions.LockNotAvailableError,
)


def is_postgres(target: str) -> bool:
    """Whether a configured `database` names a PostgreSQL server rather than an SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def shown(target: str) -> str:
    """The address as it may be printed: its password, if it carries one, replaced by ***."""
    parts = urlsplit(target)
    if parts.password is None:
        return target
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _value(value: Any) -> Any:
    """PostgreSQL's sums are numerics: whole ones read back as int and others as float, as SQLite gives them."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _tuple(record: Any) -> tuple[Any, ...]:
    return tuple(_value(v) for v in record)


def _count(status: str) -> int:
    """The rows a command changed, from its status (``UPDATE 3``, ``INSERT 0 1``); -1 when it says none."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() and status.split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE") else -1


class PgCursor:
    """A statement's rows (all fetched), the rows it changed and the id of the row it inserted."""

    __slots__ = ("_at", "_rows", "lastrowid", "rowcount")

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self._at = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def next_row(self) -> tuple[Any, ...] | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def rest(self) -> list[tuple[Any, ...]]:
        rows, self._at = self._rows[self._at :], len(self._rows)
        return rows

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self.next_row()

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rest()

    async def close(self) -> None:
        return None


class _Pending:
    """A statement sent: awaited or entered (``async with``) for its cursor, like aiosqlite's."""

    __slots__ = ("_coro",)

    def __init__(self, coro: Coroutine[Any, Any, PgCursor]) -> None:
        self._coro = coro

    def __await__(self) -> Generator[Any, None, PgCursor]:
        return self._coro.__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._coro

    async def __aexit__(self, *exc: object) -> None:
        return None


def _translate_error(exc: Exception) -> Exception:
    if isinstance(exc, asyncpg.exceptions.IntegrityConstraintViolationError):
        return Conflict(str(exc))
    if isinstance(exc, _BUSY):
        return DatabaseBusy(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, asyncpg.exceptions.ReadOnlySQLTransactionError):
        return DatabaseReadOnly(f"the database is open read-only: {exc}")
    return exc


class PgConnection:
    """`storage.sql.Connection` over one asyncpg connection."""

    def __init__(self, raw: asyncpg.Connection, catalog: Catalog) -> None:
        self.raw = raw
        self.catalog = catalog
        self._lock = asyncio.Lock()  # asyncpg runs one statement at a time on a connection
        self.wrote_due = False  # the open transaction wrote a deadline or an effect: notify at its commit
        self._wakes: dict[str, bool] = {}
        self.sent: list[str] | None = None  # while counted (`PostgresDatabase.statements_sent`): each round trip

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> _Pending:
        return _Pending(self.run(sql, tuple(parameters or ())))

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] | None = None) -> list[tuple[Any, ...]]:
        return (await self.run(sql, tuple(parameters or ()))).rest()

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> PgCursor:
        statement = self.catalog.translate(sql)
        if statement.rowid:  # the RETURNING is for one row's lastrowid: executemany has none
            statement = Statement(statement.text.rsplit(" RETURNING ", 1)[0], False, False)
        args = [tuple(p) for p in parameters]
        self.wrote_due = self.wrote_due or (bool(args) and bool(_WAKES.match(sql)))
        if self.sent is not None:  # asyncpg pipelines the rows: one round trip
            self.sent.append(statement.text)
        async with self._lock:
            try:
                await self.raw.executemany(statement.text, args)
            except asyncpg.PostgresError as exc:
                raise _translate_error(exc) from exc
        return PgCursor([], len(args), None)

    async def script(self, sql: str) -> None:
        """Statements of PostgreSQL's own, no parameters, in one round trip (a simple query)."""
        if self.sent is not None:
            self.sent.append(sql)
        async with self._lock:
            try:
                await self.raw.execute(sql)
            except asyncpg.PostgresError as exc:
                raise _translate_error(exc) from exc

    async def run(self, sql: str, args: tuple[Any, ...]) -> PgCursor:
        statement = self.catalog.translate(sql)
        wakes = self._wakes.get(sql)
        if wakes is None:
            wakes = self._wakes[sql] = bool(_WAKES.match(sql))
        if self.sent is not None:
            self.sent.append(statement.text)
        async with self._lock:
            try:
                if statement.rows:
                    records = await self.raw.fetch(statement.text, *args)
                else:
                    status = await self.raw.execute(statement.text, *args)
            except asyncpg.PostgresError as exc:
                raise _translate_error(exc) from exc
        if not statement.rows:
            changed = _count(status)
            self.wrote_due = self.wrote_due or (wakes and changed > 0)  # a claim that lost wrote nothing to wake for
            return PgCursor([], changed, None)
        self.wrote_due = self.wrote_due or (wakes and bool(records))
        rows = [_tuple(r) for r in records]
        if statement.rowid:
            return PgCursor([], len(rows), int(rows[0][0]) if rows else None)
        returning = statement.text.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE")
        return PgCursor(rows, len(rows) if returning else -1, None)


class _SyncCursor:
    __slots__ = ("_cursor",)

    def __init__(self, cursor: PgCursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    def fetchone(self) -> Any:
        return self._cursor.next_row()

    def fetchall(self) -> list[Any]:
        return self._cursor.rest()


class _Writer:
    """`run_transaction`'s bodies run in a thread of their own, with an event loop and a connection of their own
    (made at the first transaction): each statement of a body is run to its end on that loop, where the body runs,
    so a transaction of many small statements (the game-server feed's batch, an import's file) hops between
    threads once, as on SQLite, not twice per statement. Its transactions take the same write lock as the
    process's connection (`WRITE_LOCK`, a lock of the server's), and the process takes them one at a time."""

    def __init__(self, connect: Callable[[], Coroutine[Any, Any, asyncpg.Connection]], catalog: Catalog) -> None:
        self._connect = connect
        self._catalog = catalog
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="sudija-writer")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pg: PgConnection | None = None
        self._closed = False
        self.sent: list[str] | None = None  # what its connection sends is counted there too (`statements_sent`)

    def _connection(self) -> tuple[PgConnection, asyncio.AbstractEventLoop]:
        if self._pg is None or self._loop is None:
            self._loop = self._loop or asyncio.new_event_loop()
            self._pg = PgConnection(self._loop.run_until_complete(self._connect()), self._catalog)
        return self._pg, self._loop

    async def transaction(self, body: Callable[[Any], T], begin: str, wake: str) -> T:
        """`body` between `begin` (BEGIN and the write lock) and COMMIT on the writer's connection (rolled back
        when it raises); `wake` goes before the COMMIT when the body wrote a deadline or an effect to carry out."""

        def run() -> T:
            pg, loop = self._connection()
            pg.wrote_due = False
            pg.sent = self.sent
            try:
                loop.run_until_complete(pg.script(begin))
                result = body(_ThreadConnection(pg, loop))
            except BaseException:
                with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                    loop.run_until_complete(pg.script("ROLLBACK"))
                raise
            loop.run_until_complete(pg.script((wake if pg.wrote_due else "") + "COMMIT"))
            return result

        return await asyncio.wrap_future(self._thread.submit(run))

    async def close(self) -> None:
        """Close the writer's connection and end its thread (again: nothing more)."""
        if self._closed:
            return
        self._closed = True

        def run() -> None:
            if self._loop is None:
                return
            if self._pg is not None:
                self._loop.run_until_complete(self._pg.raw.close())
            self._loop.close()

        try:
            await asyncio.wrap_future(self._thread.submit(run))
        finally:
            self._thread.shutdown(wait=False)


class _ThreadConnection:
    """`storage.sql.SyncConnection` for a body in the writer's thread: each statement run to its end on the
    writer's loop."""

    def __init__(self, connection: PgConnection, loop: asyncio.AbstractEventLoop) -> None:
        self._connection = connection
        self._loop = loop

    def execute(self, sql: str, parameters: Any = (), /) -> _SyncCursor:
        return _SyncCursor(self._loop.run_until_complete(self._connection.run(sql, tuple(parameters))))

    def executemany(self, sql: str, parameters: Any, /) -> _SyncCursor:
        return _SyncCursor(self._loop.run_until_complete(self._connection.executemany(sql, parameters)))


class PostgresDatabase(Database):
    """The club's database on a PostgreSQL server."""

    dialect = "postgresql"

    def __init__(self, connection: PgConnection, target: str, club: str, writer: _Writer) -> None:
        super().__init__(connection, target)
        self.pg = connection
        self.club = club  # the club this handle serves: its connection's `sudija.club` (storage/tenancy.py)
        self.club_key = lock_key(club)  # the club's half of its advisory locks (the gateway, the write lock)
        self.wake_channel = f"{WAKE_CHANNEL}_{club}"  # the club's wake-ups: another club's commits wake none of it
        self._listener: asyncpg.Connection | None = None
        self.writer = writer  # `run_transaction`'s own thread and connection

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
        await self.writer.close()
        await self.pg.raw.close()

    @contextlib.asynccontextmanager
    async def statements_sent(self) -> AsyncIterator[list[str]]:
        """Every round trip to the server while inside, in order (see `Database.statements_sent`): a statement, an
        ``executemany`` (asyncpg pipelines its rows), ``BEGIN`` with the write lock, ``COMMIT``; the writer's
        connection's (`run_transaction`) too."""
        sent: list[str] = []
        self.pg.sent = self.writer.sent = sent
        try:
            yield sent
        finally:
            self.pg.sent = self.writer.sent = None

    async def live_holders(self) -> list[str] | None:
        """Every connection's `lease_holder` on the server: a lease whose holder is not among them is a dead
        process's (its connection closed when it stopped or was killed)."""
        return [str(row[0]) for row in await self.pg.execute_fetchall(_HOLDER + " WHERE pid IS NOT NULL")]

    async def listen(self, woken: Callable[[], None]) -> None:
        """Call `woken` whenever another process commits a deadline or an effect (on a connection of its own,
        kept until `close`)."""
        own = self.pg.raw.get_server_pid()

        def heard(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            if payload != str(own):
                woken()

        if self._listener is None:
            self._listener = await asyncpg.connect(self.path)
        await self._listener.add_listener(self.wake_channel, heard)

    @contextlib.asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[PgConnection]:
        """BEGIN, the write lock, … COMMIT — rolled back on any exception (see the module's docstring)."""
        self.writable()
        async with self._write_lock:
            await self._begin(durable)
            try:
                yield self.pg
            except BaseException:
                await self._end("ROLLBACK")
                raise
            else:
                await self._end("COMMIT")

    async def run_transaction(self, body: Callable[[Any], T]) -> T:
        """`body` with a `storage.sql.SyncConnection`, inside one transaction as above: in the writer's thread, on
        the writer's connection (`_Writer`), so its statements cost no hop between threads."""
        self.writable()
        async with self._write_lock:
            wake = f"SELECT pg_notify('{self.wake_channel}', '{self.pg.raw.get_server_pid()}'); "
            return await self.writer.transaction(body, self._lock_sql(True), wake)

    def _lock_sql(self, durable: bool) -> str:
        relaxed = "" if durable and self.durable_commits else "SET LOCAL synchronous_commit = off; "
        return f"BEGIN; {relaxed}SELECT pg_advisory_xact_lock({WRITE_LOCK}, {self.club_key})"

    async def _begin(self, durable: bool) -> None:
        """BEGIN and the write lock in one round trip (a simple query of several statements)."""
        self.pg.wrote_due = False
        try:
            await self.pg.script(self._lock_sql(durable))
        except BaseException:
            await self._end("ROLLBACK")
            raise

    async def _end(self, how: str) -> None:
        wrote_due, self.pg.wrote_due = self.pg.wrote_due, False
        if wrote_due and how == "COMMIT":  # delivered to the listeners when (and only if) the commit succeeds
            how = f"SELECT pg_notify('{self.wake_channel}', '{self.pg.raw.get_server_pid()}'); COMMIT"
        await self.pg.script(how)


async def open_postgres(
    target: str, *, busy_timeout_ms: int, club: str = DEFAULT_CLUB, read_only: bool = False
) -> PostgresDatabase:
    """Connect to the server `target` names as the club `club` (its connection's `sudija.club`, which the rows'
    policies read: storage/tenancy.py) and bring its schema up to date (`DatabaseUnavailable` when it cannot be
    reached or refuses the connection)."""
    connect = functools.partial(
        asyncpg.connect,
        target,
        server_settings={
            "lock_timeout": str(int(busy_timeout_ms)),
            "application_name": f"sudija {club}",
            SETTING: club,
            **({"default_transaction_read_only": "on"} if read_only else {}),
        },
        statement_cache_size=STATEMENTS,
    )
    try:
        raw = await connect()
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseUnavailable(f"cannot open the PostgreSQL database {shown(target)}: {exc}") from None
    try:
        if not read_only:
            await _migrate(raw)
        catalog = await read_catalog(raw)
        await _bound_to_its_club(raw, club, target)
        holder = await raw.fetchval(_HOLDER + " WHERE pid = pg_backend_pid()")
    except BaseException:
        await raw.close()
        raise
    db = PostgresDatabase(PgConnection(raw, catalog), target, club, _Writer(connect, catalog))
    db.lease_holder = str(holder)
    if read_only:
        db.read_only = True
        return db
    return await registered(db)


async def _bound_to_its_club(raw: asyncpg.Connection, club: str, target: str) -> None:
    """A role the row policies do not bind (a superuser, or one with BYPASSRLS) would see and change every club's
    rows: `DatabaseUnavailable` when the database holds another club's, a warning when it holds only this club's
    (storage/tenancy.py; docs/deploy.md, "Many clubs on one database")."""
    if not await raw.fetchval("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user"):
        return
    other = await raw.fetchval(  # each an index's range (the keys begin with the club), however many rows
        " UNION ALL ".join(
            f"(SELECT club FROM {table} WHERE club {side} $1 ORDER BY club LIMIT 1)"
            for table in ("members", "games")
            for side in ("<", ">")
        )
        + " LIMIT 1",
        club,
    )
    if other is not None:
        raise DatabaseUnavailable(
            f"the PostgreSQL role of {shown(target)} is a superuser or has BYPASSRLS, so row-level security does not"
            f" bind it, and the database holds the rows of other clubs (such as {other!r}) besides {club!r}'s:"
            " connect as an ordinary role (docs/deploy.md, Many clubs on one database)"
        )
    logging.getLogger(__name__).warning(
        "the PostgreSQL role of %s is not bound by row-level security (a superuser or BYPASSRLS): it would see other"
        " clubs' rows; connect as an ordinary role before a second club shares this database (docs/deploy.md)",
        shown(target),
    )


async def scratch_schema(target: str, name: str) -> str:
    """A new empty schema `name` on the server (dropped first if it exists) and the address that opens the club's
    database in it (``search_path``): a benchmark's throwaway club beside whatever else the database holds."""
    if not name.isidentifier():
        raise ValueError(f"not a schema name: {name!r}")
    raw = await asyncpg.connect(target)
    try:
        await raw.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        await raw.execute(f"CREATE SCHEMA {name}")
    finally:
        await raw.close()
    return target + ("&" if "?" in target else "?") + f"search_path={name}"


async def drop_schema(target: str, name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"not a schema name: {name!r}")
    raw = await asyncpg.connect(target)
    try:
        await raw.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
    finally:
        await raw.close()


async def read_catalog(raw: asyncpg.Connection) -> Catalog:
    rows = await raw.fetch(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        " JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, pos) ON true"
        " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
        " WHERE i.indisprimary AND n.nspname = current_schema() ORDER BY c.relname, k.pos"
    )
    keys: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        keys.setdefault(table, []).append((column, kind))
    rowids = {}
    for table, cols in keys.items():
        own = [c for c in cols if c[0] != CLUB]  # (club, id): within its club the row's id is its rowid
        if len(own) == 1 and own[0][1] in ("bigint", "integer"):
            rowids[table] = own[0][0]
    return Catalog({t: tuple(c for c, _ in cols) for t, cols in keys.items()}, rowids)


async def _migrate(raw: asyncpg.Connection) -> None:
    await raw.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await raw.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL)"
        )
        applied = {row[0] for row in await raw.fetch("SELECT version FROM schema_migrations")}
        for version, name, sql in migrations("postgresql"):
            if version in applied:
                continue
            try:
                async with raw.transaction():
                    for statement in split_statements(sql):
                        await raw.execute(statement)
                    await raw.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                        version,
                        name,
                        now_text(datetime.now(UTC)),
                    )
            except asyncpg.PostgresError as exc:
                raise MigrationFailed(version, name, exc) from exc
    finally:
        await raw.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
