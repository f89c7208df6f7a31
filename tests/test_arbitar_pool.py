"""The Arbitar's analyses in the bot's worker processes (bot/arbitar_pool.py, `[arbitar] workers`), through the
desk: the referee's advice is computed in another process (at a lower priority than the bot's) and reads
exactly as in a thread; a worker killed in the middle of an analysis is answered "unavailable, try again",
and the next request gets a new pool — also when the executor itself never notices the death, and when its
workers die as they start: never a wait for ever."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import multiprocessing
import multiprocessing.connection
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import process
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from arbitar_probe import dying, recording_pid
from test_advice import GAME, store_fall_game
from test_corrections import PLAYERS, fall_game, join, say, stays
from test_desk_trials import members, open_trial
from test_import_locks import ROOT, children_of, kill_9_and_watch_workers, reap

from bot.arbitar_pool import ArbitarPool, ArbitarUnavailable
from bot.config import ArbitarConfig, ConfigError, from_dict
from bot.workers import BACKGROUND_NICENESS, give_up, warm_up
from club import Club, make_club


@pytest.fixture
async def pooled(tmp_path: Path) -> AsyncIterator[Club]:
    """A club whose desk runs the Arbitar in one worker process."""
    (tmp_path / "pooled").mkdir()
    club = await make_club(tmp_path / "pooled", arbitar=ArbitarConfig(workers=1))
    await members(club)
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    yield club
    club.desk.deps.arbitar().shutdown()
    await club.db.close()


async def test_the_advice_is_computed_in_another_process_and_reads_as_in_a_thread(
    pooled: Club, club: Club, tmp_path: Path
) -> None:
    await members(club)
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    in_thread = await club.desk.advisor.advice(await club.get("sudija1"), 1)
    assert in_thread.ok
    assert "Arbitar:" in in_thread.text

    pid_file = tmp_path / "worker.pid"
    pooled.desk.advisor.advice_analyser = functools.partial(recording_pid, str(pid_file))  # type: ignore[attr-defined]
    in_worker = await pooled.desk.advisor.advice(await pooled.get("sudija1"), 1)
    assert in_worker.text == in_thread.text
    worker = int(pid_file.read_text(encoding="utf-8"))
    assert worker != os.getpid()
    own = os.getpriority(os.PRIO_PROCESS, 0)  # the worker yields the processor to the bot
    assert os.getpriority(os.PRIO_PROCESS, worker) == min(19, own + BACKGROUND_NICENESS)
    if sys.platform == "linux":  # and is of the idle class: a wake-up of the bot never waits behind an analysis
        assert os.sched_getscheduler(worker) == os.SCHED_IDLE


async def test_a_killed_worker_is_answered_clearly_and_the_next_request_works(pooled: Club, tmp_path: Path) -> None:
    referee = await pooled.get("sudija1")
    pooled.desk.advisor.advice_analyser = dying  # type: ignore[attr-defined]
    killed = await pooled.desk.advisor.advice(referee, 1)
    assert not killed.ok
    assert killed.text == "Arbitar trenutno nije dostupan; pokušajte kasnije."

    pid_file = tmp_path / "worker.pid"
    pooled.desk.advisor.advice_analyser = functools.partial(recording_pid, str(pid_file))  # type: ignore[attr-defined]
    again = await pooled.desk.advisor.advice(referee, 1)
    assert again.ok, again.text
    assert "Arbitar:" in again.text
    assert int(pid_file.read_text(encoding="utf-8")) != os.getpid()


def test_the_workers_setting() -> None:
    assert from_dict({"arbitar": {"workers": 0}}).arbitar.workers == 0
    assert 1 <= from_dict({}).arbitar.workers <= 2
    for bad in (-1, "2", 1.5, True):
        with pytest.raises(ConfigError, match=r"arbitar\.workers must be a whole number from 0 to 64"):
            from_dict({"arbitar": {"workers": bad}})


async def test_a_killed_worker_leaves_the_players_correction_to_try_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "players").mkdir()
    club = await make_club(tmp_path / "players", arbitar=ArbitarConfig(workers=1))
    try:
        monkeypatch.setattr("bot.desk.corrections._procedure", lambda: dying)
        fall = await fall_game(club)
        commands = await join(club, *PLAYERS)
        assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
        killed = await say(commands, club, fall.other, "/prihvatam")
        assert not killed.ok
        [request] = await club.desk.corrections_store.for_game(fall.game.number)
        assert killed.text == f"Arbitar trenutno nije dostupan; pokušajte ponovo: /prihvatam {request.id}."
        assert request.pending  # nothing decided, nothing written
        assert await club.db.paper_changes.for_game(fall.game.number) == []

        monkeypatch.setattr("bot.desk.corrections._procedure", lambda: stays)
        decided = await say(commands, club, fall.other, f"/prihvatam {request.id}")  # the consent carried out
        assert decided.ok, decided.text
        assert "ostaje" in decided.text
    finally:
        club.desk.deps.arbitar().shutdown()
        await club.db.close()


POOL_HOLDER = """
import asyncio, os
from bot.arbitar_pool import ArbitarPool

async def main() -> None:
    pool = ArbitarPool(2)
    print(await pool.run(os.getpid), flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_kill_9_of_the_bot_leaves_no_worker_of_the_arbitar_running(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", POOL_HOLDER], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        worker = int(process.stdout.readline())  # the pool is started, warmed up: both workers exist
        workers = children_of(process.pid)
        assert worker in workers
        assert len(workers) >= 2, workers
        kill_9_and_watch_workers(process, workers)
    finally:
        reap(process)


def blind(self: Any) -> tuple[Any, bool, None]:
    """CPython's executor manager thread as it waits between a `submit` that woke it and the spawn of the worker
    that submit needs: on its queues only, blind to the death of that worker (bot/workers.py)."""
    result_reader = self.result_queue._reader
    ready = multiprocessing.connection.wait([result_reader, self.thread_wakeup._reader])
    item = result_reader.recv() if result_reader in ready else None
    self.thread_wakeup.clear()
    return item, False, None


BOUND = 120.0  # a fail-safe: past it the pool waited for a dead worker (never a measure of time)


async def test_a_worker_dying_unseen_by_the_executor_is_answered_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process._ExecutorManagerThread, "wait_result_broken_or_wakeup", blind)
    pool = ArbitarPool(1)
    try:
        with pytest.raises(ArbitarUnavailable):
            await asyncio.wait_for(pool.run(dying, None, 1, 0), BOUND)
        assert await asyncio.wait_for(pool.run(os.getpid), BOUND) != os.getpid()  # the next gets a new pool
    finally:
        pool.shutdown()


def test_workers_dying_as_they_start_are_given_up_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process._ExecutorManagerThread, "wait_result_broken_or_wakeup", blind)
    executor = concurrent.futures.ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=os._exit, initargs=(3,)
    )
    outcome: list[BaseException | list[int]] = []

    def start() -> None:
        try:
            outcome.append(warm_up(executor, 1))
        except BaseException as exc:  # noqa: BLE001 (what warm_up raised is the outcome)
            outcome.append(exc)

    starting = threading.Thread(target=start, daemon=True)  # a wait for ever would not hold the test's process
    starting.start()
    starting.join(BOUND)
    try:
        [answer] = outcome
        assert isinstance(answer, BrokenProcessPool)
        assert "died as it started" in str(answer)
    finally:
        give_up(executor)
