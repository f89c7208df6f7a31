"""One bot per database: whatever runs the club's desk on an SQLite database — `sudija run` with or without tokens
(its console fallback), `sudija console`, an admin's act through `sudija clan` — holds an exclusive lock on
``<database>.lock`` for as long as it runs (decisions.md, "one bot per database").

Two processes on one database would each act on every deadline and deliver every pending effect (a console's desk
would show a Telegram member's call notice on the console and mark it sent), so a second process cannot take the
lock: it is told which process holds it (pid, host, what it is, since when) and exits, having written nothing. The
lock is the operating system's (``flock``), so a process that dies — even by kill -9 — leaves no stale lock; the
file's text only says who held it last. On PostgreSQL there is no file: several processes may serve the database
at once, and the one receiving the club's events holds the server's gateway lock (`storage.pg_gateway`), which
dies with the process just as well.

The writing commands (`sudija import`, `sudija outbox --retry/--skip`) take the same lock while no bot runs; while a
bot holds it (`Holder.takes_handoffs`: `sudija run`, `sudija console`) they hand their work to it through the
database's inbox (bot/inbox.py) instead of writing.
"""

from __future__ import annotations

import datetime as dtm
import fcntl
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bot.config import ConfigError
from bot.messages import Catalogue
from storage.database import refuse_unopenable
from storage.postgres import is_postgres


def shared(database: str) -> bool:
    """Whether the database is a server's (PostgreSQL), which several bot processes serve at once: no file lock."""
    return is_postgres(database)


def lock_path(database: str) -> Path:
    """The lock file of an SQLite database (PostgreSQL's is on the server: `storage.pg_gateway`)."""
    return Path(f"{database}.lock")


#: The commands whose process runs the club's desk until stopped and performs what the writing commands hand it
#: (bot/inbox.py): a writing command beside one of them hands its work over rather than being refused.
BOTS = ("sudija run", "sudija console")

_LINE = re.compile(r"pid (?P<pid>\d+) on (?P<host>\S+), (?P<what>.+?), since (?P<since>.+)")


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a database's lock, as its lock file says (the line `DatabaseLock.acquire` writes)."""

    pid: int
    host: str
    what: str
    since: str

    @property
    def takes_handoffs(self) -> bool:
        """Whether it is a bot, which performs the work handed to it (bot/inbox.py)."""
        return self.what in BOTS

    def text(self, words: Catalogue) -> str:
        """The holder in `words`' language (its lock-file line is English: ``pid 123 on host, …``)."""
        return words.t("cli.holder", pid=self.pid, host=self.host, what=self.what, since=self.since)

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        """The holder a lock file's line names; None for a line not written by `DatabaseLock` (or none yet)."""
        found = _LINE.fullmatch(text.strip())
        if found is None:
            return None
        return cls(int(found["pid"]), found["host"], found["what"], found["since"])


class DatabaseInUse(ConfigError):
    """Another process holds the database's lock: `holder` says which (pid, host, what, since when), `who` the same
    read (None when the lock file says nothing readable)."""

    def __init__(self, message: str, holder: str, path: Path) -> None:
        super().__init__(message)
        self.holder = holder
        self.path = path
        self.who = Holder.parse(holder)

    def holder_text(self, words: Catalogue) -> str:
        """Which process holds the lock, in `words`' language (the lock file's line is written in English)."""
        return words.t("cli.holder.unknown") if self.who is None else self.who.text(words)


class DatabaseLock:
    def __init__(self, database: str, what: str = "sudija run") -> None:
        self.database = database
        self.what = what  # the command holding it, for the process that is refused
        self.path = lock_path(database)
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock, or raise `DatabaseInUse` (a `ConfigError`) naming the process that holds it."""
        if is_postgres(self.database):
            return  # `sudija run` takes the server's lock once connected (bot.cli.run)
        refuse_unopenable(self.database)  # no lock file beside a folder or a file that is no database
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DatabaseInUse(
                f"the database is in use by another Sudija ({holder}); one bot per database: "
                f"stop that process first (lock file {self.path})",
                holder,
                self.path,
            ) from None
        handle.seek(0)
        handle.truncate()
        since = dtm.datetime.now(dtm.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}, {self.what}, since {since}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None

    def __enter__(self) -> DatabaseLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
