"""The storage's own errors: what a caller of the stores (the desk, the adapters through `bot.app`, the command line)
may catch, whichever backend holds the club. A driver's error (sqlite3's, aiosqlite's, asyncpg's) does not leave
`storage` for these: each backend translates its own where a statement or a transaction ends
(`storage.database.Database.transaction`, `storage.postgres.PgConnection`), and the stores catch only these."""

from __future__ import annotations


class StorageError(Exception):
    """Something the club's database could not do; the subclass says what, and that nothing was written."""


class DatabaseBusy(StorageError):
    """Another process held the write lock for longer than the busy timeout (on PostgreSQL also a serialization
    failure or a deadlock); nothing was written, and the same act may be tried again in a moment."""


class DatabaseReadOnly(DatabaseBusy):
    """The database was opened read-only (a console with ``--read-only``): nothing can be written, nothing was."""


class Conflict(StorageError):
    """A write broke a rule the schema keeps (a unique key, a foreign key, a check): another writer got there first,
    or the row it names is gone. The transaction was rolled back whole; the store says what it means for its act."""


class DatabaseUnavailable(StorageError):
    """The database could not be opened: the server could not be reached or refused the connection, or the SQLite
    path is no database file this process can open. The message says which and why (for the logs); `key` and
    `values`, when set, say it in the catalogue's words (``db.unavailable.<why>``) for whoever reads it."""

    def __init__(self, message: str, key: str | None = None, **values: object) -> None:
        super().__init__(message)
        self.key = key
        self.values = values
