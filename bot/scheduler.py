"""Durable timers: APScheduler's AsyncIOScheduler wakes the desk at each deadline the database holds.

The database is the truth: a job only says "look now"; `Desk.run_due` reads what is due and is idempotent, so a
lost job, a duplicate or a restart costs nothing. On start the desk acts at once on what fell due while the bot
was down and re-arms every open deadline (`Desk.start`). A wake-up that fails (the database locked by another
process for longer than the busy timeout) is retried with backoff — `retry_base` seconds, doubling up to
`retry_max` — until it succeeds, so no deadline is lost; the safety sweep (`bot.sweep`) watches beside it.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)


class SchedulerTimers:
    def __init__(
        self, scheduler: AsyncIOScheduler | None = None, retry_base: float = 1.0, retry_max: float = 60.0
    ) -> None:
        self.scheduler = scheduler or AsyncIOScheduler(timezone="UTC")
        self._wake: Callable[[], Awaitable[None]] | None = None
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.failures = 0  # wake-ups that failed and were scheduled again
        self._retries = itertools.count(1)

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
        self.scheduler.add_job(
            self._run,
            "date",
            run_date=at,
            id=f"due-{at.timestamp():.6f}",
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
        )

    def retry_delay(self, attempt: int) -> float:
        """Seconds before retry number `attempt` (1, 2, …): the base, doubled each time, at most `retry_max`."""
        return float(min(self.retry_max, self.retry_base * 2 ** min(attempt - 1, 30)))

    async def _run(self, attempt: int = 0) -> None:
        assert self._wake is not None
        try:
            await self._wake()
        except Exception as exc:  # noqa: BLE001 (a failed wake-up is logged and retried)
            self.failures += 1
            delay = self.retry_delay(attempt + 1)
            log.warning("a timer's wake-up failed (%s: %s); retrying in %.1f s", type(exc).__name__, exc, delay)
            if self.scheduler.running:
                self.scheduler.add_job(
                    self._run,
                    "date",
                    run_date=datetime.now(UTC) + timedelta(seconds=delay),
                    args=(attempt + 1,),
                    id=f"retry-{next(self._retries)}",
                    misfire_grace_time=None,
                    coalesce=True,
                )
