"""A consistent copy of the club's database while the bot runs: SQLite's online backup API.

The copy is taken in one step under a read transaction, so it is one committed state (in WAL mode the bot's
writers go on meanwhile; a transaction still open elsewhere is not in the copy). It is written to a temporary
file beside the target, checked (`integrity_check`, `foreign_key_check`), synced and only then renamed into
place, so a crash or a failed check never leaves a half-written backup under the target's name. Restoring is
putting the copy in the database's place while the bot is stopped; the copy is a complete database.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path


class BackupError(Exception):
    """The backup could not be made; the message says why (nothing was left under the target's name), and `key`
    with `values` say it in the catalogue's words (``backup.why.<what>``) for the operator's language."""

    def __init__(self, message: str, key: str, **values: object) -> None:
        super().__init__(message)
        self.key = key
        self.values = values


#: SQLite's primary result codes a backup meets, by what they mean to the operator: the source is no database (or a
#: damaged one), the copy cannot be written where it was asked for, another process holds the database too long.
NOT_A_DATABASE, CANNOT_WRITE, BUSY = frozenset({11, 26}), frozenset({3, 8, 13, 14}), frozenset({5, 6})


def _why(exc: sqlite3.Error, source: Path, target: Path) -> BackupError:
    code = exc.sqlite_errorcode & 0xFF
    if code in NOT_A_DATABASE:
        return BackupError(str(exc), "backup.why.not_a_database", db=str(source))
    if code in CANNOT_WRITE:
        return BackupError(str(exc), "backup.why.cannot_write", target=str(target))
    if code in BUSY:
        return BackupError(str(exc), "backup.why.busy", db=str(source))
    return BackupError(str(exc), "backup.why.sqlite", why=str(exc))


@dataclass(frozen=True, slots=True)
class BackupResult:
    target: Path
    size: int
    pages: int


def backup(source: str | Path, target: str | Path, busy_timeout_ms: int = 5000) -> BackupResult:
    """Copy the database `source` to the new file `target` (which must not exist)."""
    if str(source).startswith(("postgresql://", "postgres://")):
        raise BackupError(
            "a PostgreSQL database is backed up with pg_dump (docs/deploy.md), not sudija backup", "backup.why.postgres"
        )
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise BackupError(f"{source} does not exist", "backup.why.missing", db=str(source))
    if target.exists():
        raise FileExistsError(str(target))
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        src = sqlite3.connect(source, timeout=busy_timeout_ms / 1000)  # only read from
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)  # all pages in one step: one consistent state
                dst.execute("PRAGMA journal_mode = DELETE")  # a single self-contained file
                problems = [str(r[0]) for r in dst.execute("PRAGMA integrity_check")]
                if problems != ["ok"]:
                    found = "; ".join(problems[:5])
                    why = f"the copy fails the integrity check: {found}"
                    raise BackupError(why, "backup.why.integrity", found=found)
                if dst.execute("PRAGMA foreign_key_check").fetchone() is not None:
                    raise BackupError("the copy fails the foreign-key check", "backup.why.foreign_keys")
                pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
            finally:
                dst.close()
        finally:
            src.close()
        with partial.open("rb+") as handle:
            os.fsync(handle.fileno())
        if target.exists():
            raise FileExistsError(str(target))
        os.replace(partial, target)
        with contextlib.suppress(OSError):  # the rename itself survives a power loss once the folder is synced
            folder = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except sqlite3.Error as exc:
        raise _why(exc, source, target) from None
    finally:
        with contextlib.suppress(OSError):
            partial.unlink()
    return BackupResult(target, target.stat().st_size, pages)
