"""Every writing command honours one writer per SQLite database (decisions.md, "one bot per database"; bot/inbox.py,
bot/cli/_handoff.py): beside a running bot (a real `sudija run` or `sudija console` process holding the lock),
`sudija import` and `sudija outbox --retry/--skip` hand their work to it and the bot does it exactly once — also when
the bot is killed (-9) between the hand-off and its pick-up, or in the middle of the work; with no bot, the command
takes the lock itself and a second writer is refused, naming the first; bad input is answered and nothing is lost.
The bot also imports the game logs landing in its watched folder (`[import] watch`). On PostgreSQL nothing changes.
No test waits for a timer: the bots' looks are triggered (a worker's `poll`), or bounded waits for a real process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import bot.inbox as inbox_module
from bot.app import build_app
from bot.cli import main
from bot.cli._handoff import login
from bot.config import Config, ImportConfig
from bot.dblock import DatabaseInUse, DatabaseLock, Holder
from bot.inbox import FolderWatch, Inbox, InboxWorker, ItemState, Kind, Request, import_logs, resolve_row
from bot.ports import ManualTimers
from club import NOW
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

ROOT = Path(__file__).resolve().parent.parent
BOUND = 120.0  # at most this long for a real process to do what it was asked (never a measure of time)
STAMP = "2026-11-30T12:00:00.000000Z"
HOLDER = """
import sys
from bot.dblock import DatabaseLock
lock = DatabaseLock(sys.argv[1], sys.argv[2])
lock.acquire()
print("locked", flush=True)
sys.stdin.readline()
lock.release()
"""


def write_logs(folder: Path, numbers: list[int]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in numbers:
        game = generate_game(random.Random(number), number, hands=3, status=GameStatus.FINISHED)
        path = folder / f"game{number}.jsonl"
        path.write_text(json.dumps(game_to_doc(game)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def games_in(db: Path) -> list[int]:
    """The games of this test the database holds (numbered from 9000: the demo club has its own), read beside
    whoever writes it."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT number FROM games WHERE number BETWEEN 9000 AND 9999 ORDER BY number")
        return [int(row[0]) for row in rows]


def outbox_row(db: Path, row: int) -> tuple[str, int, str | None, str | None]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        found = conn.execute("SELECT state, attempts, resolved_by, reason FROM outbox WHERE id = ?", (row,)).fetchone()
    return found[0], found[1], found[2], found[3]


async def with_outbox(db: Path) -> None:
    """A club database whose outbox holds a row of each state the acts care about: 1 failed, 2 dead, 3 sent."""
    opened = await open_database(db)
    try:
        async with opened.transaction() as conn:
            await conn.executemany(
                "INSERT INTO outbox (id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (1, "game:1", "resume_table", '{"game":1}', "k1", STAMP, "failed", 1, STAMP, "404 no table"),
                    (2, "game:2", "resume_table", '{"game":2}', "k2", STAMP, "dead", 3, STAMP, "503"),
                    (3, "game:3", "pause_table", '{"game":3}', "k3", STAMP, "sent", 1, STAMP, None),
                ],
            )
    finally:
        await opened.close()


@dataclass
class Bot:
    """A real bot process over the club's database: `sudija run` with no token (its console club) or `sudija
    console`, reading its console lines from a pipe."""

    process: subprocess.Popen[str]
    journal: Path

    def ready(self) -> None:
        """Once its console echoes a line, the bot has started: it holds the lock and has looked at its inbox."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write("# ready\n")
        self.process.stdin.flush()
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            if selector.select(timeout=1.0):
                line = self.process.stdout.readline()
                if line.strip() == "# ready":
                    return
                assert line, f"the bot stopped: {self.journal.read_text(encoding='utf-8')}"
        raise AssertionError(f"the bot did not start: {self.journal.read_text(encoding='utf-8')}")

    def stop(self) -> int:
        assert self.process.stdin is not None
        if self.process.poll() is None:
            self.process.stdin.close()
        return self.process.wait(timeout=BOUND)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=BOUND)


def config_file(folder: Path, **imports: object) -> Path:
    path = folder / "config.toml"
    lines = ["[import]", *(f"{key} = {json.dumps(value)}" for key, value in imports.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def start_bot(folder: Path, db: Path, command: str = "run", **imports: object) -> Bot:
    config = config_file(folder, **{"poll_seconds": 0.05, **imports})
    journal = folder / f"bot-{time.monotonic_ns()}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    extra = ["--demo"] if command == "console" else []
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", command, "--db", str(db), "--config", str(config), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=journal.open("w", encoding="utf-8"),
        text=True,
        cwd=ROOT,
        env=env,
    )
    started = Bot(process, journal)
    try:
        started.ready()
    except BaseException:
        process.kill()
        process.wait()
        raise
    return started


@pytest.fixture
def bots() -> Iterator[list[Bot]]:
    """Every bot a test starts is stopped after it, whatever happened."""
    started: list[Bot] = []
    yield started
    for one in started:
        if one.process.poll() is None:
            one.process.kill()
            one.process.wait()


def item_of(out: str) -> str:
    """The hand-off's id a command printed ("… handed to it as ID …")."""
    return out.split(" handed to it as ")[1].split()[0]


def until_finished(db: Path, item_id: str) -> Any:
    """The item once a bot has performed it (a bounded wait for a real process)."""
    inbox = Inbox(str(db))
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        item = inbox.get(item_id)
        if item is not None and item.finished:
            return item
        time.sleep(0.05)
    raise AssertionError(f"{item_id} was not performed")


# ----------------------------------------------------------------------------------------- beside a running bot


@pytest.mark.parametrize("command", ["run", "console"])
def test_an_import_beside_a_running_bot_is_handed_to_it_and_done_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: list[Bot], command: str
) -> None:
    db = tmp_path / "club.db"
    bots.append(bot := start_bot(tmp_path, db, command))
    logs = tmp_path / "logs"
    write_logs(logs, [9001, 9002, 9003])
    assert main(["import", str(logs), "--db", str(db), "--wait", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    pid = bot.process.pid
    assert f"The bot is running (pid {pid}, host {socket.gethostname()}, sudija {command}, since " in out
    assert "(3 files); it imports them within seconds" in out
    assert "Imported 3 games (9 hands) from 3 files; 0 unchanged, 0 refused, 0 files with errors." in out
    assert games_in(db) == [9001, 9002, 9003]
    item = item_of(out)
    done = Inbox(str(db)).get(item)
    assert done is not None
    assert done.state is ItemState.DONE
    assert not (done.path / "files").exists()  # the copies go once the games are stored

    # The same files again: handed, and found already there.
    assert main(["import", str(logs), "--db", str(db), "--wait", "--lang", "en"]) == 0
    assert "Imported 0 games (0 hands) from 3 files; 3 unchanged" in capsys.readouterr().out
    assert main(["import", "--status", "--db", str(db), "--lang", "en"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[1:3] for line in listed if not line.startswith(" ")] == [["done", "import:"]] * 2
    assert f"import: 3 files ({login()}, " in listed[0]  # who handed it
    assert main(["import", "--status", item, "--db", str(db), "--lang", "en"]) == 0
    assert "Imported 3 games (9 hands) from 3 files" in capsys.readouterr().out
    assert bot.stop() == 0
    assert games_in(db) == [9001, 9002, 9003]


def test_a_hand_off_survives_a_kill_9_of_the_bot_before_it_is_picked_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: list[Bot]
) -> None:
    db = tmp_path / "club.db"
    bots.append(first := start_bot(tmp_path, db, poll_seconds=3600))  # it looks once, at its start
    logs = tmp_path / "logs"
    write_logs(logs, [9101, 9102])
    assert main(["import", str(logs), "--db", str(db), "--lang", "en", "--wait", "--timeout", "0"]) == 3
    out = capsys.readouterr().out
    item = item_of(out)
    assert f"The bot has not yet finished {item}, and --wait stops waiting here (--timeout)" in out
    inbox = Inbox(str(db))
    assert inbox.waiting() == [item]
    first.kill()
    assert inbox.waiting() == [item]  # the hand-off outlives the bot
    assert games_in(db) == []

    # `--status` says that it waits, and that no bot is there to do it now.
    assert main(["import", "--status", item, "--db", str(db), "--lang", "en"]) == 3
    shown = capsys.readouterr().out
    assert f"{item}  waiting  import: 2 files" in shown
    assert "No bot is running now: what waits is done when it starts." in shown

    bots.append(second := start_bot(tmp_path, db, poll_seconds=3600))
    done = until_finished(db, item)
    assert done.state is ItemState.DONE
    assert done.result["resumed"] is False
    assert [(f["imported"], f["unchanged"]) for f in done.result["files"]] == [(1, 0), (1, 0)]  # once each
    assert [f["path"] for f in done.result["files"]] == [str(logs / "game9101.jsonl"), str(logs / "game9102.jsonl")]
    assert games_in(db) == [9101, 9102]
    assert inbox.waiting() == []
    assert second.stop() == 0
    assert [i.id for i in inbox.items()] == [item]  # performed by the second bot, and by nothing else


def test_an_outbox_act_beside_a_running_bot_is_handed_and_a_bad_one_answered_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: list[Bot]
) -> None:
    db = tmp_path / "club.db"
    asyncio.run(with_outbox(db))
    bots.append(bot := start_bot(tmp_path, db))
    cli = ["--db", str(db), "--lang", "en", "--by", "vesna", "--wait"]
    assert main(["outbox", "--retry", "1", *cli]) == 0
    out = capsys.readouterr().out
    assert "so sending #1 again is handed to it as" in out
    assert out.endswith("#1 waits to be sent again; the bot sends it at once.\n")
    assert outbox_row(db, 1) == ("pending", 0, "vesna", None)
    assert main(["outbox", "--skip", "2", "--reason", "set by hand on the game server", *cli]) == 0
    assert capsys.readouterr().out.endswith("#2 is skipped (vesna: set by hand on the game server).\n")
    assert outbox_row(db, 2) == ("skipped", 3, "vesna", "set by hand on the game server")

    # An unknown row, a row the act does not apply to: answered at once, nothing handed, nothing changed.
    inbox = Inbox(str(db))
    handed = [i.id for i in inbox.items()]
    assert main(["outbox", "--retry", "99", *cli]) == 1
    assert capsys.readouterr().out == "The outbox has no #99.\n"
    assert main(["outbox", "--retry", "3", *cli]) == 1
    assert capsys.readouterr().out == "#3 is sent: only a failed or dead row is sent again.\n"
    assert main(["outbox", "--skip", "3", "--reason", "x", *cli]) == 1
    assert "#3 is sent: only a waiting (pending), failed or dead row is skipped." in capsys.readouterr().out
    assert [i.id for i in inbox.items()] == handed
    assert outbox_row(db, 3) == ("sent", 1, None, None)

    assert main(["outbox", "--status", "--db", str(db), "--lang", "en"]) == 0
    listed = capsys.readouterr().out
    assert "done  skip #2: set by hand on the game server (vesna, " in listed
    assert "done  send #1 again (vesna, " in listed
    assert "    #1 waits to be sent again; the bot sends it at once." in listed
    assert bot.stop() == 0


def test_bad_files_beside_a_running_bot_are_named_and_nothing_is_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: list[Bot]
) -> None:
    db = tmp_path / "club.db"
    bots.append(bot := start_bot(tmp_path, db))
    logs = tmp_path / "logs"
    [good] = write_logs(logs, [9201])
    unreadable = logs / "socket.json"  # a file nobody can read, whoever runs the command (root too)
    listener = socket.socket(socket.AF_UNIX)
    with contextlib.chdir(logs):  # a socket's path is at most 107 bytes: bound by its name, from its folder
        listener.bind(unreadable.name)
    try:
        assert main(["import", str(unreadable), str(good), "--db", str(db), "--wait", "--lang", "en"]) == 1
        captured = capsys.readouterr()
        assert f"{unreadable}: the file cannot be read (No such device or address); it was not handed" in captured.err
        assert "(1 file); it imports them within seconds" in captured.out
        assert "Imported 1 game (3 hands) from 1 file" in captured.out
        assert games_in(db) == [9201]
        waiting = Inbox(str(db)).items()
        assert main(["import", str(unreadable), "--db", str(db), "--lang", "en"]) == 1
        captured = capsys.readouterr()
        assert "Not one file could be read: nothing was handed to the bot." in captured.err
        assert Inbox(str(db)).items() == waiting
    finally:
        listener.close()

    # A file with an invalid game: the bot imports nothing of it and says why, naming the file as it was given.
    broken = logs / "broken.jsonl"
    broken.write_text('{"number": 9202, "players": ["a"]}\n', encoding="utf-8")
    assert main(["import", str(broken), "--db", str(db), "--wait", "--lang", "en"]) == 1
    captured = capsys.readouterr()
    assert f"{broken}: nothing imported from this file" in captured.err
    assert "from 1 file; 0 unchanged, 0 refused, 1 file with errors." in captured.out
    failed = Inbox(str(db)).get(item_of(captured.out))
    assert failed is not None
    assert failed.state is ItemState.FAILED
    assert [p.read_bytes() for p in (failed.path / "files").iterdir()] == [broken.read_bytes()]  # kept to look at
    assert main(["import", "--status", failed.id, "--db", str(db), "--lang", "en"]) == 1
    assert f"{broken}: nothing imported from this file" in capsys.readouterr().out
    assert main(["import", "--status", "20000101-000000.000-beef", "--db", str(db), "--lang", "en"]) == 1
    assert "There is no hand-off 20000101-000000.000-beef" in capsys.readouterr().err
    assert main(["import", str(logs / "absent.json"), "--db", str(db), "--lang", "en"]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert bot.stop() == 0
    assert games_in(db) == [9201]


# ----------------------------------------------------------------------------------------------- with no bot


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another writing command (`sudija import`) holding the club's database."""
    db = tmp_path / "club.db"
    asyncio.run(with_outbox(db))
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), "sudija import"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "locked"
        yield process
    finally:
        assert process.stdin is not None
        process.stdin.write("\n")
        process.stdin.flush()
        process.wait(timeout=BOUND)


def test_a_second_writer_is_refused_naming_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], holder: subprocess.Popen[str]
) -> None:
    db = tmp_path / "club.db"
    [log] = write_logs(tmp_path / "logs", [9301])
    assert main(["import", str(log), "--db", str(db), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert f"The club's database is held by pid {holder.pid}, host {socket.gethostname()}, sudija import, since " in err
    assert "that one is not the bot, which would be handed this. Nothing was changed;" in err
    assert main(["outbox", "--retry", "1", "--db", str(db), "--lang", "en"]) == 1
    assert f"pid {holder.pid}, host " in capsys.readouterr().err
    assert games_in(db) == []
    assert outbox_row(db, 1) == ("failed", 1, None, None)
    assert not Inbox(str(db)).root.exists()  # nothing handed to a command that would never perform it


def test_with_no_bot_the_command_holds_the_lock_while_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "club.db"
    asyncio.run(with_outbox(db))
    [log] = write_logs(tmp_path / "logs", [9401])
    seen: list[Holder | None] = []

    def second_writer() -> None:
        try:
            DatabaseLock(str(db), "sudija import").acquire()
        except DatabaseInUse as held:
            seen.append(held.who)

    from bot.cli import importer  # noqa: PLC0415 (its Importer is watched)

    real_run = importer.Importer.run

    async def watched(self: importer.Importer, paths: Any) -> Any:
        second_writer()
        return await real_run(self, paths)

    monkeypatch.setattr(importer.Importer, "run", watched)
    assert main(["import", str(log), "--db", str(db), "--lang", "en"]) == 0
    assert "Imported 1 game (3 hands) from 1 file" in capsys.readouterr().out
    [who] = seen
    assert who is not None
    assert (who.pid, who.what, who.takes_handoffs) == (os.getpid(), "sudija import", False)
    assert games_in(db) == [9401]

    assert main(["outbox", "--retry", "2", "--db", str(db), "--lang", "en", "--by", "vesna"]) == 0
    assert (
        capsys.readouterr().out == "#2 waits to be sent again; no bot is running now: it is sent when the bot starts.\n"
    )
    assert outbox_row(db, 2) == ("pending", 0, "vesna", None)
    assert main(["outbox", "--retry", "99", "--db", str(db), "--lang", "en"]) == 1
    assert capsys.readouterr().out == "The outbox has no #99.\n"
    DatabaseLock(str(db)).acquire()  # each released it when done
    assert not Inbox(str(db)).root.exists()


def test_the_lock_file_names_its_holder() -> None:
    line = "pid 4242 on box, sudija run, since 2026-11-30 12:00:00 UTC"
    assert Holder.parse(line) == Holder(4242, "box", "sudija run", "2026-11-30 12:00:00 UTC")
    assert Holder.parse(line).takes_handoffs  # type: ignore[union-attr]
    assert Holder.parse("pid 1 on box, sudija console, since x").takes_handoffs  # type: ignore[union-attr]
    assert not Holder.parse("pid 1 on box, sudija migrate, since x").takes_handoffs  # type: ignore[union-attr]
    assert Holder.parse("another process") is None
    assert Holder.parse("") is None


# ------------------------------------------------------------------------ the bot's worker, its looks triggered


async def test_work_interrupted_midway_is_done_again_once(tmp_path: Path) -> None:
    """The bot killed after it stored part of an import, or after an outbox act committed, but before it filed the
    result: the next holder does the rest, and nothing twice."""
    db_path = tmp_path / "club.db"
    await with_outbox(db_path)
    files = write_logs(tmp_path / "logs", [9501, 9502])
    inbox = Inbox(str(db_path))
    handed = inbox.hand(Request(Kind.IMPORT, "vesna", NOW), files).item
    act = inbox.hand(Request(Kind.RETRY, "vesna", NOW, row=1, reason="mended")).item
    assert handed is not None
    assert act is not None
    db = await open_database(db_path)
    try:
        # What the killed bot did: the first file stored, and the row sent again.
        inbox.mark_started(handed)
        await import_logs(db, [handed.path / handed.request.files[0][1]], NOW, "en")
        inbox.mark_started(act)
        assert (await resolve_row(db, act.request))[0].value == "retried"
        woken: list[bool] = []
        worker = InboxWorker(db, lambda: NOW, inbox=inbox, watch=None, woken=lambda: woken.append(True))
        assert await worker.poll() == 2
    finally:
        await db.close()
    imported = inbox.get(handed.id)
    assert imported is not None
    assert imported.result is not None
    assert imported.state is ItemState.DONE
    assert imported.result["resumed"] is True
    assert [(f["imported"], f["unchanged"]) for f in imported.result["files"]] == [(0, 1), (1, 0)]
    assert games_in(db_path) == [9501, 9502]
    retried = inbox.get(act.id)
    assert retried is not None
    assert retried.result is not None
    assert (retried.state, retried.result["outcome"], retried.result["resumed"]) == (ItemState.DONE, "retried", True)
    assert outbox_row(db_path, 1) == ("pending", 0, "vesna", "mended")
    assert woken == [True]  # the outboxes' workers look at once


async def test_a_filed_result_is_moved_on_and_a_bad_item_filed_as_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_path / "club.db"
    await with_outbox(db_path)
    inbox = Inbox(str(db_path))
    act = inbox.hand(Request(Kind.SKIP, "vesna", NOW, row=2, reason="by hand")).item
    assert act is not None
    (act.path / "result.json").write_text('{"ok": true, "outcome": "skipped", "state": "dead"}', encoding="utf-8")
    garbled = inbox.folder(ItemState.WAITING) / "20261130-120000.000-0bad"
    garbled.mkdir()
    (garbled / "request.json").write_text('{"kind": "format the disk"}', encoding="utf-8")

    async def never(*_: object, **__: object) -> Any:
        raise AssertionError("performed again")

    monkeypatch.setattr(inbox_module, "perform", never)
    db = await open_database(db_path)
    try:
        assert await InboxWorker(db, lambda: NOW, inbox=inbox, watch=None).poll() == 2
    finally:
        await db.close()
    moved = inbox.get(act.id)
    assert moved is not None
    assert moved.state is ItemState.DONE
    assert outbox_row(db_path, 2) == ("dead", 3, None, None)
    assert inbox.waiting() == []
    failed = inbox.folder(ItemState.FAILED) / garbled.name
    result = json.loads((failed / "result.json").read_text(encoding="utf-8"))
    assert result["ok"] is False
    assert "the request cannot be read" in result["error"]


def test_a_finished_import_reaches_done_without_its_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command waiting for its import reads done/: the item must never be seen there with its copies (a reader
    once found them between the move and their removal)."""
    inbox = Inbox(str(tmp_path / "club.db"))
    item = inbox.hand(Request(Kind.IMPORT, "vesna", NOW), write_logs(tmp_path / "logs", [9602])).item
    assert item is not None
    seen: list[bool] = []
    rename = os.rename

    def watched(source: Any, target: Any) -> None:
        if Path(target).parent == inbox.folder(ItemState.DONE):
            seen.append((Path(source) / "files").exists())
        rename(source, target)

    monkeypatch.setattr(inbox_module.os, "rename", watched)
    done = inbox.finish(item, True, {"ok": True, "files": []})
    assert seen == [False]
    assert done.state is ItemState.DONE


async def test_an_import_stopped_between_removing_its_copies_and_its_move_is_moved_on_not_redone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import's copies go before it moves to done/ (so done/ is never seen holding them); a process stopped in
    between leaves a waiting item with its result filed and no copies: the next look files it, not redoing it."""
    db_path = tmp_path / "club.db"
    await with_outbox(db_path)
    inbox = Inbox(str(db_path))
    files = write_logs(tmp_path / "logs", [9601])
    item = inbox.hand(Request(Kind.IMPORT, "vesna", NOW), files).item
    assert item is not None
    result = {"ok": True, "files": [{"path": str(files[0]), "imported": 1, "unchanged": 0}]}
    (item.path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    for copy in (item.path / "files").iterdir():  # what `finish` does first; then the process stops
        copy.unlink()
    (item.path / "files").rmdir()

    async def never(*_: object, **__: object) -> Any:
        raise AssertionError("performed again")

    monkeypatch.setattr(inbox_module, "import_logs", never)
    db = await open_database(db_path)
    try:
        assert await InboxWorker(db, lambda: NOW, inbox=inbox, watch=None).poll() == 1
    finally:
        await db.close()
    done = inbox.get(item.id)
    assert done is not None
    assert done.state is ItemState.DONE
    assert done.result == result
    assert not (done.path / "files").exists()


async def test_a_row_that_moved_on_before_the_bot_acted_is_answered_in_the_result(tmp_path: Path) -> None:
    db_path = tmp_path / "club.db"
    await with_outbox(db_path)
    inbox = Inbox(str(db_path))
    act = inbox.hand(Request(Kind.RETRY, "vesna", NOW, row=3)).item  # sent meanwhile: nothing to send again
    unknown = inbox.hand(Request(Kind.SKIP, "vesna", NOW, row=77, reason="x")).item
    assert act is not None
    assert unknown is not None
    db = await open_database(db_path)
    try:
        assert await InboxWorker(db, lambda: NOW, inbox=inbox, watch=None).poll() == 2
    finally:
        await db.close()
    for item, outcome in ((act, "not_retried"), (unknown, "no_row")):
        done = inbox.get(item.id)
        assert done is not None
        assert done.result is not None
        assert (done.state, done.result["outcome"]) == (ItemState.FAILED, outcome)
    assert outbox_row(db_path, 3) == ("sent", 1, None, None)


async def test_the_watched_folder_imports_each_log_once_it_has_settled(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db_path = tmp_path / "club.db"
    folder = tmp_path / "logs"
    inbox = Inbox(str(db_path))
    db = await open_database(db_path)
    try:
        worker = InboxWorker(db, lambda: NOW, inbox=inbox, watch=FolderWatch(folder), lang="en")
        assert await worker.poll() == 0  # no folder yet: said once in the journal
        assert "the watched folder" in caplog.text
        [first] = write_logs(folder, [9601])
        (folder / ".game9999.jsonl.tmp").write_text("half", encoding="utf-8")  # being copied in: never read
        assert await worker.poll() == 0  # seen once: it may still be being written
        assert games_in(db_path) == []
        assert await worker.poll() == 1
        assert games_in(db_path) == [9601]
        assert await worker.poll() == 0  # imported: not read again while it stays the same

        # A bad file is said once and left until it changes; a new one comes in beside it.
        bad = folder / "bad.json"
        bad.write_text("{", encoding="utf-8")
        write_logs(folder / "later", [9602])
        assert await worker.poll() == 0
        assert await worker.poll() == 2
        assert games_in(db_path) == [9601, 9602]
        assert f"watched folder: {bad}: " in caplog.text
        assert await worker.poll() == 0
        bad.write_text(first.read_text(encoding="utf-8").replace("9601", "9603"), encoding="utf-8")
        os.utime(bad, ns=(1, 1))  # changed (its time too: a copy that kept the original's)
        assert await worker.poll() == 0
        assert await worker.poll() == 1
    finally:
        await db.close()
    assert games_in(db_path) == [9601, 9602, 9603]
    recorded = inbox.items([Kind.WATCH])  # newest first: what the operator's `sudija import --status` lists
    assert [item.state for item in recorded] == [ItemState.DONE, ItemState.FAILED, ItemState.DONE]
    assert [name for name, _ in recorded[1].request.files] == [str(bad), str(folder / "later" / "game9602.jsonl")]


def test_a_running_bot_imports_what_lands_in_its_watched_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: list[Bot]
) -> None:
    db = tmp_path / "club.db"
    folder = tmp_path / "incoming"
    folder.mkdir()
    bots.append(bot := start_bot(tmp_path, db, watch=str(folder)))
    write_logs(folder, [9701, 9702])
    deadline = time.monotonic() + BOUND
    while games_in(db) != [9701, 9702] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert games_in(db) == [9701, 9702]
    assert bot.stop() == 0
    assert main(["import", "--status", "--db", str(db), "--lang", "en"]) == 0
    assert "done  watched folder: " in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------ PostgreSQL


async def test_on_postgresql_the_commands_write_beside_the_bots_and_the_gateway_holder_watches(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where an inbox beside "the database" would land
    [log] = write_logs(tmp_path / "logs", [9801])
    assert await asyncio.to_thread(main, ["import", str(log), "--db", pg_url, "--lang", "en"]) == 0
    assert "Imported 1 game (3 hands) from 1 file" in capsys.readouterr().out
    assert not await asyncio.to_thread(lambda: list(tmp_path.glob("*.inbox")))
    folder = tmp_path / "incoming"
    write_logs(folder, [9802])
    app = await build_app(Config(database=pg_url, imports=ImportConfig(watch=str(folder))), timers=ManualTimers())
    try:
        app.start_inbox()
        assert app.inbox is not None
        assert app.inbox.inbox is None  # no hand-offs on PostgreSQL: only the watched folder
        await app.inbox.stop()
        assert await app.inbox.poll() == 0
        assert await app.inbox.poll() == 1
        assert await app.db.games.get(9802) is not None
        assert await app.db.games.get(9801) is not None
    finally:
        await app.close()
    assert not await asyncio.to_thread(lambda: list(tmp_path.glob("*.inbox")))


async def test_performed_items_are_kept_a_month_and_waiting_ones_until_done(tmp_path: Path) -> None:
    db_path = tmp_path / "club.db"
    await with_outbox(db_path)
    inbox = Inbox(str(db_path))
    recent = inbox.record(Request(Kind.WATCH, "watch", NOW), {"ok": True, "files": []})
    for state in (ItemState.DONE, ItemState.FAILED, ItemState.WAITING):
        old = inbox.folder(state) / "20200101-000000.000-0001"
        old.mkdir(parents=True)
        (old / "request.json").write_text(json.dumps(Request(Kind.RETRY, "vesna", NOW, row=1).to_json()), "utf-8")
    db = await open_database(db_path)
    try:
        worker = InboxWorker(db, lambda: NOW, inbox=inbox, watch=None, interval=3600)
        worker.start()  # removes what was performed long ago at once; its looks are its task's
        await worker.stop()  # cancelled before the task first ran: it never looked
    finally:
        await db.close()
    assert [item.id for item in inbox.items() if item.state is not ItemState.WAITING] == [recent.id]
    assert inbox.waiting() == ["20200101-000000.000-0001"]  # never removed unperformed
