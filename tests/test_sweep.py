"""The safety sweep and the timers' retries: a due deadline is acted on within seconds whatever happened to its
timer, a wake-up that fails on a locked database is retried with backoff, and a call whose deadline passes while
another process holds the write lock still expires within seconds once the lock is released — nobody sees a
traceback meanwhile. The clock is a `ManualClock`; the only real waiting is a bounded poll."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from bot.scheduler import SchedulerTimers
from bot.sweep import Sweeper
from club import NOW, Club
from fakes.chat import RecordingChat
from storage.database import open_database
from storage.deadlines import earliest_deadline, query_plan
from storage.errors import DatabaseBusy


async def poll(condition_async: object, seconds: float = 10.0) -> bool:
    """Wait (really, but bounded) until the async predicate holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        if await condition_async():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.02)
    return False


async def test_the_earliest_deadline_is_one_indexed_query(club: Club) -> None:
    assert await earliest_deadline(club.db) is None
    ana = await club.member("ana")
    await club.game(500)
    assert (await club.desk.calls.call(ana, 500)).ok
    assert await earliest_deadline(club.db) == NOW + club.desk.lookups.call_time
    if club.db.dialect != "sqlite":
        pytest.skip("SQLite's query plan: PostgreSQL plans a tiny table by its statistics (a sequential scan)")
    plan = " | ".join(await query_plan(club.db))
    assert "SCAN calls" not in plan, plan
    assert "SCAN councilor_calls" not in plan, plan
    assert "SCAN plavac" not in plan, plan
    assert "calls_pending_deadline" in plan, plan
    assert "councilor_calls_pending_deadline" in plan, plan


async def test_a_sweep_expires_a_call_whose_timer_was_lost_and_is_cheap_before(club: Club) -> None:
    ana = await club.member("ana")
    await club.game(500)
    assert (await club.desk.calls.call(ana, 500)).ok
    club.timers.armed.clear()  # the timer is lost: nobody will call run_due at the deadline
    sweeper = Sweeper(club.desk, full_every=1000)
    club.clock.advance(timedelta(minutes=4))
    assert not await sweeper.sweep()  # nothing due yet: one query, no run_due
    assert [c.state for c in await club.db.calls.for_game(500)] == ["pending"]
    club.clock.advance(timedelta(minutes=2))
    assert await sweeper.sweep()
    assert [c.state for c in await club.db.calls.for_game(500)] == ["expired"]
    assert any("Nijedan sudija nije odgovorio" in m.text for m in club.chat.sent)


class FlakyDesk:
    """run_due fails with a busy database the first `failures` times."""

    def __init__(self, club: Club, failures: int) -> None:
        self.db = club.db
        self.club = club
        self.left = failures
        self.done = asyncio.Event()

    def now(self) -> datetime:
        return self.club.clock.now()

    async def run_due(self) -> None:
        if self.left:
            self.left -= 1
            raise DatabaseBusy("database is locked")
        await self.club.desk.run_due()
        self.done.set()


async def test_a_failed_sweep_is_tried_again_at_the_next_one(club: Club) -> None:
    ana = await club.member("ana")
    await club.game(500)
    assert (await club.desk.calls.call(ana, 500)).ok
    club.clock.advance(timedelta(minutes=6))
    desk = FlakyDesk(club, failures=3)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the injected sleep: no real waiting
        slept.append(seconds)
        await asyncio.sleep(0)

    sweeper = Sweeper(desk, interval=3.0, sleep=sleep)  # type: ignore[arg-type]
    sweeper.start()
    try:
        await asyncio.wait_for(desk.done.wait(), timeout=10)
    finally:
        await sweeper.stop()
    assert sweeper.failures == 3
    assert sweeper.runs == 1
    assert slept[:4] == [3.0] * 4
    assert [c.state for c in await club.db.calls.for_game(500)] == ["expired"]


async def test_a_timer_whose_wake_up_fails_is_retried_with_backoff_never_lost() -> None:
    timers = SchedulerTimers(retry_base=0.01, retry_max=0.04)
    attempts: list[int] = []
    woken = asyncio.Event()

    async def wake() -> None:
        attempts.append(1)
        if len(attempts) <= 3:
            raise sqlite3.OperationalError("database is locked")
        woken.set()

    timers.bind(wake)
    timers.start()
    try:
        timers.arm(datetime.now(UTC) - timedelta(seconds=1))
        await asyncio.wait_for(woken.wait(), timeout=10)
    finally:
        timers.shutdown()
    assert len(attempts) == 4
    assert timers.failures == 3
    assert [timers.retry_delay(n) for n in (1, 2, 3, 4, 10)] == [0.01, 0.02, 0.04, 0.04, 0.04]


HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
"""


async def test_a_deadline_passing_while_another_process_holds_the_write_lock_is_met_once_it_is_released(
    tmp_path: Path,
) -> None:
    db = await open_database(tmp_path / "club.db", busy_timeout_ms=100)
    chat = RecordingChat()
    clock = ManualClock(NOW)
    desk = Desk(db, Chats([chat]), LoggingGameServer(), clock, Config(), ManualTimers())
    club = Club(db, desk, chat, clock, ManualTimers(), LoggingGameServer(), Config())
    await desk.start()
    ana = await club.member("ana")
    marko = await club.member("marko")
    await club.game(500)
    await club.game(501, ("marko", "ana", "petar"))
    assert (await desk.calls.call(ana, 500)).ok
    holder = subprocess.Popen(  # noqa: ASYNC220 (the child runs beside the test)
        [sys.executable, "-c", HOLDER, str(tmp_path / "club.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    sweeper = Sweeper(desk, interval=0.02)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        clock.advance(timedelta(minutes=6))  # the deadline passes while the lock is held
        sweeper.start()
        assert await poll(lambda: _at_least(sweeper, 2))  # sweeps fail on the lock and go on
        assert [c.state for c in await db.calls.for_game(500)] == ["pending"]
        assert sweeper.failures >= 2
        try:  # a member acting meanwhile is refused with a reason, never a traceback (the adapters word it)
            await desk.calls.call(marko, 501)
            raise AssertionError("the call should have met the lock")
        except DatabaseBusy:
            pass
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)

        async def expired() -> bool:
            return [c.state for c in await db.calls.for_game(500)] == ["expired"]

        async def told() -> bool:  # the caller's word goes through the chat outbox, after the expiry's commit
            return any("Nijedan sudija nije odgovorio" in m.text for m in chat.sent)

        assert await poll(expired, seconds=10)
        assert await poll(told, seconds=10)
        assert (await desk.calls.call(marko, 501)).ok
    finally:
        await sweeper.stop()
        if holder.poll() is None:
            holder.kill()
        await db.close()


async def _at_least(sweeper: Sweeper, failures: int) -> bool:
    return sweeper.failures >= failures


async def test_the_running_bot_sweeps_beside_its_timers_and_stops_sweeping_when_closed(tmp_path: Path) -> None:
    from bot.app import build_app  # noqa: PLC0415 (imported where the test needs it)

    app = await build_app(Config(), clock=ManualClock(NOW), database=str(tmp_path / "club.db"))
    sweeper = app.sweeper
    assert sweeper is not None
    assert sweeper._task is not None
    assert not sweeper._task.done()
    task = sweeper._task
    await app.close()
    assert task.done()
    assert app.sweeper is not None
    assert app.sweeper._task is None
    manual = await build_app(
        Config(), clock=ManualClock(NOW), timers=ManualTimers(), database=str(tmp_path / "club.db")
    )
    try:
        assert manual.sweeper is None  # tests drive the clock and run_due themselves
    finally:
        await manual.close()


async def test_a_wake_sweeps_at_once_instead_of_at_the_end_of_the_pause(club: Club) -> None:
    paused: list[int] = []
    second = asyncio.Event()

    async def never(_seconds: float) -> None:  # a pause that only a wake ends
        paused.append(1)
        if len(paused) == 2:
            second.set()
        await asyncio.Future()

    sweeper = Sweeper(club.desk, full_every=1, sleep=never)
    sweeper.start()
    try:
        await asyncio.sleep(0)
        assert sweeper.sweeps == 0
        sweeper.wake()
        await asyncio.wait_for(second.wait(), 5)  # swept once, and paused again
        assert sweeper.sweeps == 1
        assert sweeper.runs == 1
    finally:
        await sweeper.stop()


async def test_a_deadline_falling_before_the_next_sweep_is_swept_when_it_falls(club: Club) -> None:
    """Another process wrote it (its timer is there, not here): the pause after a sweep lasts only until the
    earliest deadline, also after a run that acted on an earlier one."""
    ana, bora = await club.member("ana"), await club.member("bora")
    await club.game(500)
    await club.game(501, ("bora", "marko", "petar"))
    assert (await club.desk.calls.call(ana, 500)).ok
    club.clock.advance(timedelta(seconds=30))
    assert (await club.desk.calls.call(bora, 501)).ok  # its deadline falls 30 s after ana's
    club.clock.advance(timedelta(minutes=club.desk.config.call_minutes) - timedelta(seconds=31))
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the injected pause: the club's clock moves by it
        slept.append(seconds)
        club.clock.advance(timedelta(seconds=seconds))
        await asyncio.sleep(0)

    sweeper = Sweeper(club.desk, interval=60.0, full_every=1000, sleep=sleep)
    assert not await sweeper.sweep()  # ana's a second away
    for _ in range(2):
        await sweeper.pause()
        assert await sweeper.sweep()
    assert slept == [1.0, 30.0]  # until ana's deadline; then, from the run that expired her call, until bora's
    assert [c.state for c in await club.db.calls.for_game(500)] == ["expired"]
    assert [c.state for c in await club.db.calls.for_game(501)] == ["expired"]
