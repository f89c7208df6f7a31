"""Durable timers: APScheduler's AsyncIOScheduler wakes the desk at each deadline the database holds.

The database is the truth: a job only says "look now"; `Desk.run_due` reads what is due and is idempotent, so a
lost job, a duplicate or a restart costs nothing. On start the desk acts at once on what fell due while the bot
was down and re-arms every open deadline (`Desk.start`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)


class SchedulerTimers:
    def __init__(self, scheduler: AsyncIOScheduler | None = None) -> None:
        self.scheduler = scheduler or AsyncIOScheduler(timezone="UTC")
        self._wake: Callable[[], Awaitable[None]] | None = None

    def bind(self, wake: Callable[[], Awaitable[None]]) -> None:
        """What to run at a deadline (the desk's `run_due`)."""
        self._wake = wake

    def start(self) -> None:
        if not self.scheduler.running:
            self.scheduler.start()

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def arm(self, at: datetime) -> None:
        if self._wake is None:
            raise RuntimeError("SchedulerTimers.bind must be called before arming a deadline")
        # One job per instant; a deadline already past runs as soon as the scheduler runs.
        self.scheduler.add_job(self._run, "date", run_date=at, id=f"due-{at.timestamp():.6f}",
                               replace_existing=True, misfire_grace_time=None, coalesce=True)

    async def _run(self) -> None:
        assert self._wake is not None
        try:
            await self._wake()
        except Exception:
            log.exception("a timer's wake-up failed; the next deadline or restart retries it")
