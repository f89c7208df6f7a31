"""The safety sweep beside the precise timers: every few seconds one indexed query asks for the earliest open
deadline (`storage.deadlines`); when it has passed by the desk's clock, `Desk.run_due` acts on everything due.

So a due deadline is acted on within seconds whatever happened to its timer (lost, failed on a locked database,
never armed after a crash). Every `full_every`-th whole pause (not one a wake cut short) is followed by a full
`run_due` anyway, for what the query does not cover (a league month's close, a referee offline past his grace).
A sweep that fails (the database locked by another process) is logged in one line and simply tried again at the
next one. The sleep is injectable for tests.
`wake` cuts the pause short: on PostgreSQL another process's deadline arrives so (`bot.app.App.woken`), and the
sweep after it waits only until that deadline falls, so a process that did not write it acts on it on time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

from bot.tasks import cancelled
from storage.database import Database, is_busy
from storage.deadlines import earliest_deadline

log = logging.getLogger(__name__)

SWEEP_SECONDS = 3.0
FULL_EVERY = 20  # one full run_due per minute at the default interval


class _Desk(Protocol):
    db: Database

    def now(self) -> datetime: ...

    async def run_due(self) -> None: ...


class Sweeper:
    def __init__(
        self,
        desk: _Desk,
        interval: float = SWEEP_SECONDS,
        full_every: int = FULL_EVERY,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.desk = desk
        self.interval = interval
        self.full_every = max(1, full_every)
        self.sleep = sleep
        self.sweeps = 0  # sweeps done (each one query, at least)
        self.runs = 0  # sweeps that ran run_due to the end
        self.failures = 0
        self._task: asyncio.Task[None] | None = None
        self._woken = asyncio.Event()
        self._full_round = 0  # the round whose full run is done
        self.rounds = 0  # sweeps at the end of a whole pause (not woken): every `full_every`-th runs run_due
        self._soon: float | None = None  # seconds until the earliest deadline, when it falls before the next sweep

    def wake(self) -> None:
        """Sweep now rather than at the end of the interval (another process wrote a deadline: PostgreSQL)."""
        self._woken.set()

    async def pause(self) -> None:
        """The interval between sweeps, cut short by `wake` — or by the earliest deadline, when the last sweep
        saw it fall sooner (a deadline another process wrote, woken here, is acted on when it falls)."""
        soon, self._soon = self._soon, None
        resting = asyncio.ensure_future(self.sleep(self.interval if soon is None else min(self.interval, soon)))
        woken = asyncio.ensure_future(self._woken.wait())
        try:
            await asyncio.wait({resting, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            resting.cancel()
            woken.cancel()
        if not self._woken.is_set():
            self.rounds += 1
        self._woken.clear()

    async def sweep(self) -> bool:
        """One sweep: True when `run_due` ran (something was due, or it was the periodic full run)."""
        self.sweeps += 1
        due = await earliest_deadline(self.desk.db)
        now = self.desk.now()
        # The periodic full run counts whole pauses, so wakes (a busy PostgreSQL club: every commit of another
        # process) do not make it run more often than once a minute.
        full = self.full_every == 1 or (self.rounds % self.full_every == 0 and self._full_round != self.rounds)
        if not (due is not None and due <= now) and not full:
            if due is not None:
                self._soon = (due - now).total_seconds()
            return False
        await self.desk.run_due()
        self.runs += 1
        if self.rounds % self.full_every == 0:
            self._full_round = self.rounds
        after = await earliest_deadline(self.desk.db)  # the next may fall before the next sweep
        left = (after - self.desk.now()).total_seconds() if after is not None else 0.0
        if left > 0:  # one still past after run_due (it could not act yet) waits for the interval, not a spin
            self._soon = left
        return True

    async def run(self) -> None:
        """Sweep forever (until cancelled); a failed sweep never stops the next one."""
        while True:
            await self.pause()
            try:
                await self.sweep()
            except Exception as exc:
                self.failures += 1
                if is_busy(exc):
                    log.warning("the safety sweep found the database busy (%s); the next sweep tries again", exc)
                else:
                    log.exception("the safety sweep failed; the next sweep tries again")

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="safety-sweep")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)
