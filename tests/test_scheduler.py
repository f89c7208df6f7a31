"""APScheduler wakes the desk: a deadline already past fires at once; a future one waits at its time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.app import build_app
from bot.config import Config
from bot.ports import ManualClock
from bot.scheduler import SchedulerTimers
from club import NOW


async def test_a_past_deadline_fires_at_once_and_a_future_one_is_armed_for_its_time() -> None:
    woken = asyncio.Event()
    timers = SchedulerTimers()

    async def wake() -> None:
        woken.set()

    timers.bind(wake)
    timers.start()
    try:
        future = datetime.now(UTC) + timedelta(hours=1)
        timers.arm(future)
        timers.arm(datetime.now(UTC) - timedelta(seconds=30))
        await asyncio.wait_for(woken.wait(), timeout=10)
        runs = [job.next_run_time for job in timers.scheduler.get_jobs()]
        assert runs == [future]
    finally:
        timers.shutdown()


async def test_the_app_expires_a_call_that_fell_due_while_the_bot_was_down(tmp_path: Path) -> None:
    from dataclasses import replace  # noqa: PLC0415 (imported where the test needs it)

    from rules.generator import generate_game  # noqa: PLC0415 (imported where the test needs it)
    from storage.games import PreparedGame  # noqa: PLC0415 (imported where the test needs it)

    db_path = str(tmp_path / "club.db")
    clock = ManualClock(NOW)
    app = await build_app(Config(), clock=clock, database=db_path)
    ana = await app.db.members.link("test", "ana", "ana", NOW)
    import random  # noqa: PLC0415 (imported where the test needs it)

    game = generate_game(
        random.Random(5), 500, hands=3, players=("ana", "marko", "petar"), start=NOW - timedelta(hours=3)
    )
    await app.db.games.store([PreparedGame.of(replace(game, ended_at=NOW - timedelta(hours=1)))], NOW)
    assert (await app.desk.calls.call(ana, 500)).ok
    await app.close()  # the bot goes down with the call pending
    later = ManualClock(NOW + timedelta(minutes=10))
    restarted = await build_app(Config(), clock=later, database=db_path)
    try:
        await restarted.desk.start()
        calls = await restarted.db.calls.for_game(500)
        assert [c.state for c in calls] == ["expired"]
    finally:
        await restarted.close()
