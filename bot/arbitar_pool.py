"""The Arbitar's analyses in worker processes owned by the bot (`[arbitar] workers`, docs/deploy.md).

One `concurrent.futures.ProcessPoolExecutor` per desk, started on the first analysis (its workers spawned, not
forked, because the bot already runs threads; each dies with the bot, `bot.workers.die_with_parent`) and shut
down with the app. What is sent is the procedure itself (a module-level function, `rules.arbitar.procedure
.arbitrate`) with the game, the hand's number and the seat: the worker imports the procedure once and keeps its
tables, bounded per worker. With ``workers = 0`` an analysis runs in a thread of the bot instead (the native
solver releases the GIL), as the tests' desks keep it.

A worker that dies (killed, out of memory) breaks the pool: the analyses it held end in `ArbitarUnavailable`
(the member is told the Arbitar is unavailable now, to try again), and the next analysis starts a new pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot.workers import die_with_parent, warm_up

log = logging.getLogger(__name__)

T = TypeVar("T")


def default_workers() -> int:
    """`[arbitar] workers` when unset: two analyses at once at most, never more than the machine's cores."""
    return min(2, os.cpu_count() or 1)


class ArbitarUnavailable(Exception):
    """The worker process running an analysis died before answering; the next analysis gets a new pool."""


class ArbitarPool:
    """Where the desk runs the Arbitar: `run` sends a picklable function and its arguments to a worker."""

    def __init__(self, workers: int) -> None:
        self.workers = max(0, workers)
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._starting: asyncio.Lock | None = None

    async def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._executor is None:
                executor = concurrent.futures.ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,
                    initargs=(os.getpid(),),
                )
                try:
                    pids = await asyncio.to_thread(warm_up, executor, self.workers)
                except BrokenProcessPool:
                    executor.shutdown(wait=False, cancel_futures=True)
                    raise ArbitarUnavailable from None
                log.info("the Arbitar's pool started: workers %s", ", ".join(map(str, pids)))
                self._executor = executor
            return self._executor

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """`function(*args)` in a worker (in a thread with no workers); `ArbitarUnavailable` when it died."""
        if self.workers == 0:
            return await asyncio.to_thread(function, *args)
        executor = await self._pool()
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, function, *args)
        except BrokenProcessPool:
            log.error("a worker of the Arbitar's pool died; the next analysis starts a new pool")
            if self._executor is executor:
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise ArbitarUnavailable from None

    def shutdown(self) -> None:
        """Stop the workers (with the app): an analysis still running is abandoned."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
