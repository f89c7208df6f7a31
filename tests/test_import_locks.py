"""The import and the write lock: without a worker pool each file is parsed and validated before its short
transaction (never while the lock is held), and the worker processes of a pool die with the import's process and
run at a lower priority than it (the bot's live feed beside an import keeps its processor), the bot's own import
(the inbox, the watched folder) included."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from import_probe import WHERE, recording_process

import bot.importer as importer
import bot.inbox as inbox
from bot.importer import find_files, import_files
from bot.workers import BACKGROUND_NICENESS
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def write_files(folder: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        game = generate_game(random.Random(i), 9000 + i, hands=3, status=GameStatus.FINISHED)
        path = folder / f"night{i}.jsonl"
        path.write_text(json.dumps(game_to_doc(game)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


async def test_without_a_pool_no_file_is_parsed_while_the_write_lock_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = write_files(tmp_path, 12)
    db = await open_database(tmp_path / "club.db")
    seen: list[bool] = []
    real = importer.prepare_piece

    def watched(piece: Any, lang: str = "sr") -> Any:
        seen.append(db.connection.in_transaction or db._write_lock.locked())
        return real(piece, lang)

    monkeypatch.setattr(importer, "prepare_piece", watched)
    try:
        report = await import_files(db, find_files([tmp_path]), NOW)
    finally:
        await db.close()
    assert report.imported == 12
    assert len(files) == 12
    assert seen == [False] * 12


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def kill_9_and_watch_workers(process: subprocess.Popen[str] | subprocess.Popen[bytes], workers: set[int]) -> None:
    """SIGKILL the process, then wait (up to 30 s) for every one of its workers to be gone; fails if one lives."""
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)


def reap(process: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """After the test, whatever it asserted: nothing of the process or its children left running."""
    if process.poll() is None:
        process.kill()
    for pid in children_of(process.pid):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_kill_9_of_sudija_import_leaves_no_worker_running(tmp_path: Path) -> None:
    fifo = tmp_path / "night.jsonl"
    os.mkfifo(fifo)  # reading it blocks: the import waits there with its workers started
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "import", str(fifo), "--jobs", "2", "--db", str(tmp_path / "club.db")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = children_of(process.pid)
            time.sleep(0.05)
        assert len(workers) >= 2, workers
        own = os.getpriority(os.PRIO_PROCESS, process.pid)
        assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in workers} == {min(19, own + BACKGROUND_NICENESS)}
        # the idle class: a wake-up of the bot or of its database server never waits behind a worker
        assert {os.sched_getscheduler(pid) for pid in workers} == {os.SCHED_IDLE}
        assert os.sched_getscheduler(process.pid) == os.SCHED_OTHER  # the writer keeps its class
        kill_9_and_watch_workers(process, workers)
    finally:
        reap(process)


def dies_at_once(parent: int) -> None:
    """A worker of the import's pool that dies as it starts (killed, out of memory)."""
    del parent
    os._exit(3)


async def test_an_import_whose_workers_die_as_they_start_goes_on_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    write_files(tmp_path, 4)
    monkeypatch.setattr(importer, "background_worker", dies_at_once)  # each forked worker runs it first
    report = await importer.Importer(str(tmp_path / "club.db"), jobs=2, now=lambda: NOW).run([tmp_path])
    assert (report.imported, report.exit_status) == (4, 0)
    assert "the import's worker processes did not start" in caplog.text


@pytest.mark.skipif(sys.platform != "linux", reason="the idle scheduling class is Linux's")
async def test_the_bots_own_import_parses_in_a_worker_of_the_idle_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inbox's and the watched folder's import runs in the bot's process: its parsing goes to a worker process
    of the idle class, not to a thread that would share the bot's interpreter with the live feed."""
    write_files(tmp_path, 3)
    pids = tmp_path / "pids"
    monkeypatch.setenv(WHERE, str(pids))
    monkeypatch.setattr(importer, "prepare_piece", recording_process)
    monkeypatch.setattr(inbox, "BESIDE_BYTES", 0)  # the test's logs are small
    db = await open_database(tmp_path / "club.db")
    try:
        report = await inbox.import_logs(db, find_files([tmp_path]), NOW, "en")
    finally:
        await db.close()
    assert (report.imported, report.exit_status) == (3, 0)
    seen = {tuple(map(int, line.split())) for line in pids.read_text(encoding="utf-8").splitlines()}
    assert len(seen) == 1
    ((pid, policy),) = seen
    assert pid != os.getpid()
    assert policy == os.SCHED_IDLE
