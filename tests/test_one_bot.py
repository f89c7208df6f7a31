"""One bot per database, whatever starts it (issue 33, decisions.md "one bot per database"): on SQLite the
console, `sudija run` with or without tokens and an admin's act through `sudija clan` take the same lock; a second
one is refused naming the holder's pid and writes nothing. On PostgreSQL a console is refused unless --read-only,
and a read-only console reads, acts on no deadline, delivers nothing and writes nothing."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import App
from bot.cli import main
from bot.config import Config
from bot.console.runner import run_console
from bot.dblock import DatabaseInUse, DatabaseLock
from bot.ports import ManualClock
from club import NOW
from storage.database import open_database

HOLDER = """
import sys
from bot.dblock import DatabaseLock
lock = DatabaseLock(sys.argv[1], "sudija run")
lock.acquire()
print("locked", flush=True)
sys.stdin.readline()
lock.release()
"""


def files_of(db: Path) -> str:
    """The database's files, byte for byte: the file and its write-ahead log (an empty log is none; the shared
    memory is an index of the log, rebuilt by whoever opens the file)."""
    digests = []
    for path in sorted(db.parent.glob(db.name + "*")):
        if path.suffix != ".lock" and not path.name.endswith("-shm") and path.stat().st_size > 0:
            digests.append(f"{path.name}:{hashlib.sha256(path.read_bytes()).hexdigest()}")
    return "\n".join(digests)


async def console(db: str, script: str, **options: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(),
        db,
        not options.get("read_only"),  # the demo club where it writes; only looking otherwise
        io.StringIO(script),
        out,
        err,
        ManualClock(NOW),
        **options,  # type: ignore[arg-type]
    )
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A demo club's database that another process (a `sudija run`) holds."""
    db = tmp_path / "club.db"
    status, _, _ = asyncio.run(console(str(db), "@marko /sudija\n"))  # a club with a call pending
    assert status == 0
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield db, holder
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)


def test_a_console_on_a_held_database_is_refused_naming_the_pid_and_changes_nothing(
    held: tuple[Path, subprocess.Popen[str]],
) -> None:
    db, holder = held
    before = files_of(db)
    status, out, err = asyncio.run(console(str(db), "!clock +6m\n@ana /sudija\n!who\n"))
    assert status == 1
    assert f"proces {holder.pid}, računar " in err  # the lock file's English line, said in the console's Serbian
    assert " since " not in err
    assert "sudija run" in err
    assert "Ništa nije promenjeno" in err
    assert out == ""  # the desk never ran: no pending notice shown, no deadline acted on
    assert files_of(db) == before
    # `sudija run` without a token (its console fallback) and an admin's act are refused alike
    status, _, err = asyncio.run(console(str(db), "!who\n", what="sudija run"))
    assert status == 1
    assert f"proces {holder.pid}, " in err
    assert main(["clan", "marko", "postavi", "sudija", "--db", str(db)]) == 1
    assert files_of(db) == before
    # only looking is allowed beside it
    status, out, _ = asyncio.run(console(str(db), "!who\n@ana /sudija\n", read_only=True))
    assert status == 0
    assert "samo za čitanje" in out
    assert "ništa nije upisano" in out
    assert files_of(db) == before


async def test_the_console_holds_the_lock_while_it_runs(tmp_path: Path) -> None:
    db = tmp_path / "club.db"
    refused: list[DatabaseInUse] = []

    async def second_bot(app: App) -> None:
        try:
            DatabaseLock(str(db)).acquire()
        except DatabaseInUse as held:
            refused.append(held)

    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(), str(db), True, io.StringIO("!who\n"), out, err, ManualClock(NOW), ready=second_bot
    )
    assert status == 0, err.getvalue()
    [held] = refused
    assert f"pid {os.getpid()} on " in held.holder
    assert "sudija console" in held.holder
    DatabaseLock(str(db)).acquire()  # released when the console ended


async def test_a_console_on_postgresql_is_read_only_or_refused(pg_url: str) -> None:
    db = await open_database(pg_url)
    await db.members.ensure("ana", NOW)
    await db.close()
    status, out, err = await console(pg_url, "!who\n")
    assert status == 2
    assert "--read-only" in err
    assert out == ""
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(), pg_url, False, io.StringIO("!who\n!clock +1m\n"), out, err, ManualClock(NOW), read_only=True
    )
    assert status == 0, err.getvalue()
    assert "samo za čitanje" in out.getvalue()
    assert "ništa nije upisano" in out.getvalue()  # the clock moved is a write: refused
    db = await open_database(pg_url)
    try:
        assert [m.nick for m in await db.members.all()] == ["ana"]
        assert await db.signing_key.get() is None  # the read-only console did not start the desk
    finally:
        await db.close()
