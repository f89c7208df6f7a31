"""The database handle: opening SQLite through aiosqlite (WAL, foreign keys) and applying migrations.

SQLite is the default; a `database` that is a ``postgresql://`` address opens `storage.postgres` instead, the
same stores over the same interface (`storage.sql.Connection`).

Durability: every transaction runs with ``synchronous = FULL`` (its commit is on disk before a member is told
anything: it survives a power loss, not only a killed process), except the bookkeeping no member is told of
(which copies of a message were posted, who was pinged), written with ``durable=False`` under NORMAL: in WAL
mode the next FULL commit syncs those frames too. `bench/desk.py` measures the cost. A write
waits up to ``busy_timeout`` for another process (an import, the CLI) holding the write lock, then raises
`DatabaseBusy`, which the adapters answer with "try again in a moment". A write that breaks a rule of the schema
(a unique key another writer took first) is `Conflict`; both are `storage.errors`, raised for sqlite3's own errors
where the transaction ends, so no driver's error reaches the desk.

Migrations are the numbered ``migrations/NNNN_name.sql`` files (PostgreSQL's ``NNNN_name.pg.sql`` beside
each), applied once each in order at start and recorded in ``schema_migrations``; a new migration is a new file,
never an edit of an old one. The repositories (`storage.games`, `storage.calls`, …) hang off `Database`;
everything that touches SQL lives in this package.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import aiosqlite

from storage.errors import Conflict, DatabaseBusy, DatabaseReadOnly, DatabaseUnavailable
from storage.sql import Connection
from storage.tenancy import DEFAULT_CLUB

__all__ = [
    "Conflict",
    "Database",
    "DatabaseBusy",
    "DatabaseReadOnly",
    "DatabaseUnavailable",
    "MigrationFailed",
    "is_busy",
    "open_database",
]

T = TypeVar("T")
Opened = TypeVar("Opened", bound="Database")  # either backend's database, as it was opened

MIGRATIONS_PACKAGE = "storage.migrations"
REBUILDS = "-- sudija: rebuilds a table"  # the first line of an SQLite migration that makes a table anew
BUSY_TIMEOUT_MS = 5000  # how long a write waits for another process's write lock


class MigrationFailed(Exception):
    """A migration could not be applied. Its transaction was rolled back: the database holds every migration before
    it and nothing of it, and the release that ran before still opens it."""

    def __init__(self, version: int, name: str, cause: BaseException) -> None:
        super().__init__(
            f"migration {version:04d}_{name} failed and was rolled back: {cause}. The database is as it was before"
            f" it (with every earlier migration): start the previous release again, or restore the backup taken"
            f" before migrating, and report the error (docs/deploy.md, Upgrading)"
        )
        self.version = version
        self.name = name
        self.cause = cause


def is_busy(exc: BaseException) -> bool:
    """Whether an error says the database is locked or busy: `DatabaseBusy`, or SQLite's own error saying another
    connection holds it (as it comes from the driver, before the translation)."""
    if isinstance(exc, DatabaseBusy):
        return True
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "database is locked" in text or "database is busy" in text


def raise_translated(exc: sqlite3.Error) -> NoReturn:
    """Raise SQLite's error as the storage's own: a broken constraint is `Conflict`, a lock held too long
    `DatabaseBusy`; any other (a bug, a damaged file) stays what it is."""
    if isinstance(exc, sqlite3.IntegrityError):
        raise Conflict(str(exc)) from exc
    if is_busy(exc):
        raise DatabaseBusy(str(exc)) from exc
    raise exc


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """(version, name, sql) of every migration file of the dialect (``sqlite``: ``NNNN_name.sql``,
    ``postgresql``: ``NNNN_name.pg.sql``), in order."""
    found = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        name = entry.name
        if name[:4].isdigit() and name.endswith(".sql") and name.endswith(".pg.sql") == (dialect == "postgresql"):
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def now_text(moment: datetime) -> str:
    """Times are stored as ISO 8601 UTC text with a Z, which sorts chronologically."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stored_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def dead_leases(alive: list[str] | None) -> tuple[str, tuple[str, ...]]:
    """The condition (and its parameters) of a lease whose holder is gone: any lease when `alive` is None."""
    if alive is None:
        return "leased_until IS NOT NULL", ()
    marks = ", ".join("?" * len(alive))
    return f"leased_until IS NOT NULL AND (leased_by IS NULL OR leased_by NOT IN ({marks}))", tuple(alive)


class Database:
    """One connection to the club's database and the repositories over it (SQLite here; PostgreSQL:
    `storage.postgres.PostgresDatabase`)."""

    dialect = "sqlite"

    def __init__(self, connection: Connection, path: str) -> None:
        self.connection = connection
        self.path = path
        self._write_lock = asyncio.Lock()
        self._synchronous = "FULL"  # what open_database set
        self.durable_commits = True  # False: every commit NORMAL (only a benchmark's baseline does this)
        self.lease_holder = "local"  # who an outbox lease this process takes names (PostgreSQL: its connection)
        self.read_only = False  # opened read-only: every transaction is refused (`DatabaseReadOnly`)
        from storage.calls import CallStore  # noqa: PLC0415 (the stores import this module)
        from storage.changes import PaperChangeStore  # noqa: PLC0415 (the stores import this module)
        from storage.events import EventStore  # noqa: PLC0415 (the stores import this module)
        from storage.games import GameStore  # noqa: PLC0415 (the stores import this module)
        from storage.members import MemberStore  # noqa: PLC0415 (the stores import this module)
        from storage.trials import TrialStore  # noqa: PLC0415 (the stores import this module)

        self.games = GameStore(self)
        self.members = MemberStore(self)
        self.calls = CallStore(self)
        self.trials = TrialStore(self)
        self.paper_changes = PaperChangeStore(self)
        self.events = EventStore(self)
        from storage.league import LeagueStore  # noqa: PLC0415 (the stores import this module)
        from storage.penalties import PenaltyStore  # noqa: PLC0415 (the stores import this module)

        self.penalties = PenaltyStore(self)
        self.league = LeagueStore(self)
        from storage.links import LinkStore  # noqa: PLC0415 (the stores import this module)

        self.links = LinkStore(self)
        from storage.councils import AppealStore, VoteStore  # noqa: PLC0415 (the stores import this module)

        self.votes = VoteStore(self)
        self.appeals = AppealStore(self)
        from storage.nicknames import NicknameStore  # noqa: PLC0415 (the stores import this module)

        self.nicknames = NicknameStore(self)
        from storage.club_key import ClubKeyStore  # noqa: PLC0415 (the stores import this module)

        self.signing_key = ClubKeyStore(self)
        from storage.archive import ArchiveStore  # noqa: PLC0415 (the stores import this module)
        from storage.web import WebStore  # noqa: PLC0415 (the stores import this module)

        self.archive = ArchiveStore(self)
        self.web = WebStore(self)

    def writable(self) -> None:
        """`DatabaseReadOnly` when the database was opened read-only."""
        if self.read_only:
            raise DatabaseReadOnly("the database is open read-only: nothing was written")

    @property
    def sqlite(self) -> aiosqlite.Connection:
        """The aiosqlite connection itself, for what only SQLite has (PRAGMA, the raw sqlite3 connection)."""
        if not isinstance(self.connection, aiosqlite.Connection):
            raise TypeError(f"the club's database is {self.dialect}, not SQLite")
        return self.connection

    async def live_holders(self) -> list[str] | None:
        """The lease holders still alive (`lease_holder` of each process connected): None on SQLite, where the one
        process serving the file finds only a dead process's leases."""
        return None

    async def close(self) -> None:
        await self.sqlite.close()

    @contextlib.asynccontextmanager
    async def statements_sent(self) -> AsyncIterator[list[str]]:
        """Every statement this process sends the database while inside, in order (its text): what a use case
        asks of the database, counted by a test or a bench. On SQLite each statement SQLite runs (``BEGIN
        IMMEDIATE`` and ``COMMIT`` too; an ``executemany`` once per row), through its trace callback; on PostgreSQL
        each round trip to the server (`storage.postgres.PgConnection`)."""
        sent: list[str] = []
        await self.sqlite.set_trace_callback(sent.append)
        try:
            yield sent
        finally:
            await self.sqlite.set_trace_callback(None)  # type: ignore[arg-type]  # None removes it (sqlite3's API)

    @contextlib.asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception: a write either happens whole or not at all.

        One connection serves the whole process, so transactions are taken one at a time (an asyncio lock);
        SQLite's own locking keeps other processes (the CLI) out meanwhile. `durable` (the default): the commit
        is synced to disk (FULL) before this returns; False only for bookkeeping no member is told of.
        """
        connection = self.sqlite
        self.writable()
        async with self._write_lock:
            wanted = "FULL" if durable and self.durable_commits else "NORMAL"
            if wanted != self._synchronous:
                await connection.execute(f"PRAGMA synchronous = {wanted}")
                self._synchronous = wanted
            try:
                await connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise_translated(exc)
            try:
                yield connection
            except sqlite3.Error as exc:
                await connection.rollback()
                raise_translated(exc)
            except BaseException:
                await connection.rollback()
                raise
            else:
                try:
                    await connection.commit()
                except sqlite3.Error as exc:
                    raise_translated(exc)

    async def run_transaction(self, body: Callable[[Any], T]) -> T:
        """Run `body` on the database's own thread, with its sqlite3 connection, inside one BEGIN IMMEDIATE …
        COMMIT (rolled back when it raises), holding the write lock like `transaction`: a transaction of many
        small statements in a single hop to that thread (the game-server feed takes each event so). `body` gets
        a `storage.sql.SyncConnection` (on SQLite the sqlite3 connection itself)."""
        connection = self.sqlite
        self.writable()
        async with self._write_lock:

            def run() -> T:
                raw: sqlite3.Connection = connection._conn
                try:
                    raw.execute("BEGIN IMMEDIATE")
                    try:
                        result = body(raw)
                    except BaseException:
                        raw.execute("ROLLBACK")
                        raise
                    raw.execute("COMMIT")
                except sqlite3.Error as exc:
                    raise_translated(exc)
                return result

            done: T = await connection._execute(run)  # type: ignore[no-untyped-call]
            return done


async def open_database(
    path: str | Path, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS, club: str = DEFAULT_CLUB, read_only: bool = False
) -> Database:
    """Open (creating if needed) the database at `path` — or the PostgreSQL server a ``postgresql://`` address
    names, as the club `club` (storage/tenancy.py; an SQLite file is one club's) — and bring its schema up to
    date. `read_only`: open it as it is, for reading only (its schema not touched; every transaction refused
    with `DatabaseReadOnly`)."""
    text = str(path)
    from storage.postgres import is_postgres, open_postgres  # noqa: PLC0415 (storage.postgres imports this module)

    if is_postgres(text):
        return await open_postgres(text, busy_timeout_ms=busy_timeout_ms, club=club, read_only=read_only)
    if read_only:
        return await _open_read_only(text, busy_timeout_ms)
    if text != ":memory:":
        await asyncio.to_thread(_probe, text)
    connection = await aiosqlite.connect(text, isolation_level=None)
    try:
        await connection.execute("PRAGMA foreign_keys = ON")
        await connection.execute("PRAGMA journal_mode = WAL")
        await connection.execute("PRAGMA synchronous = FULL")
        await connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        await _migrate(connection)
    except BaseException as exc:
        await connection.close()
        if isinstance(exc, sqlite3.Error):
            if exc.sqlite_errorcode & 0xFF in UNOPENABLE:
                raise unopenable(text, exc) from None
            raise_translated(exc)
        raise
    return await registered(Database(connection, text))


#: SQLite's primary result codes that mean the path is no database this process can open and write: SQLITE_PERM,
#: SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_NOTADB.
UNOPENABLE = frozenset({3, 8, 11, 14, 26})


def unopenable(text: str, exc: sqlite3.Error | OSError) -> DatabaseUnavailable:
    """`DatabaseUnavailable` for the SQLite path `text` that `exc` refused: a file that is no SQLite database (or a
    damaged one), or a path that cannot be opened for writing (a folder, no permission, a read-only place)."""
    corrupt = isinstance(exc, sqlite3.Error) and exc.sqlite_errorcode & 0xFF in (11, 26)
    why = "not_a_database" if corrupt else "cannot_open"
    return DatabaseUnavailable(f"cannot open the SQLite database {text}: {exc}", f"db.unavailable.{why}", db=text)


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def refuse_unopenable(text: str) -> None:
    """`DatabaseUnavailable` for an SQLite path that is certainly no database, judged without opening or creating
    anything (a lock file beside it included): a folder, or a file that is neither empty nor headed as SQLite's."""
    path = Path(text)
    if path.is_dir():
        raise DatabaseUnavailable(f"{text} is a folder", "db.unavailable.cannot_open", db=text)
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError:
        return  # not there (created on opening) or not readable: opening says which
    if head and head != SQLITE_HEADER:
        raise DatabaseUnavailable(f"{text} is no SQLite database", "db.unavailable.not_a_database", db=text)


def _probe(text: str) -> None:
    """Open and close the file at `text` (creating it and its folders when missing): a path that cannot be opened
    is refused here, before aiosqlite starts its thread (whose failed start would outlive the event loop)."""
    try:
        Path(text).parent.mkdir(parents=True, exist_ok=True)
        sqlite3.connect(text).close()
    except (OSError, sqlite3.Error) as exc:
        raise unopenable(text, exc) from None


def _read_only_uri(text: str) -> str:
    """The SQLite URI that opens the file for reading only (`DatabaseUnavailable` when there is no such file)."""
    path = Path(text)
    if not path.is_file():
        raise DatabaseUnavailable(f"there is no database {text} to read", "cli.no_db", db=text, path=path.absolute())
    return f"{path.absolute().as_uri()}?mode=ro"


async def _open_read_only(text: str, busy_timeout_ms: int) -> Database:
    connection = await aiosqlite.connect(_read_only_uri(text), isolation_level=None, uri=True)
    try:
        await connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        await connection.execute("SELECT count(*) FROM sqlite_master")  # a file that is no database fails here
    except sqlite3.Error as exc:
        await connection.close()
        if exc.sqlite_errorcode & 0xFF in UNOPENABLE:
            raise unopenable(text, exc) from None
        raise_translated(exc)
    db = Database(connection, text)
    db.read_only = True
    return db


async def registered(db: Opened) -> Opened:
    """`db`, with the club's nicknames stored before migration 0025 registered with their identity keys (once per
    club); closed when that fails, so a failed opening leaves no connection behind (both backends open so)."""
    from storage.nicknames import register_existing  # noqa: PLC0415 (storage.nicknames imports this module)

    try:
        await register_existing(db, datetime.now(UTC))
    except BaseException:
        await db.close()
        raise
    return db


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
        rebuilds = sql.startswith(REBUILDS)
        if rebuilds:  # SQLite's way to change a table: foreign keys off around the transaction, checked in it
            await connection.execute("PRAGMA foreign_keys = OFF")
        await connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in split_statements(sql):
                await connection.execute(statement)
            if rebuilds:
                async with connection.execute("PRAGMA foreign_key_check") as cursor:
                    broken = await cursor.fetchall()
                if broken:
                    raise sqlite3.IntegrityError(f"the rebuilt tables break foreign keys: {list(broken)[:5]}")
            await connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, now_text(datetime.now(UTC))),
            )
        except sqlite3.DatabaseError as exc:
            await connection.rollback()
            if is_busy(exc):
                raise
            raise MigrationFailed(version, name, exc) from exc
        except BaseException:
            await connection.rollback()
            raise
        else:
            await connection.commit()
        finally:
            if rebuilds:  # after the transaction ended: inside one the pragma does nothing
                await connection.execute("PRAGMA foreign_keys = ON")


def split_statements(sql: str) -> list[str]:
    """Split a migration into statements: `--` comments dropped (also at a line's end), then split on `;`
    (our migrations keep no `--` or `;` inside strings and no triggers)."""
    lines = [line.split("--", 1)[0] for line in sql.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


_statements = split_statements  # the name tests/test_links.py imports
