"""The Arbitar's analyses in worker processes owned by the bot (`[arbitar] workers`, docs/deploy.md).

One `concurrent.futures.ProcessPoolExecutor` per desk, started on the first analysis (its workers spawned, not
forked, because the bot already runs threads; each dies with the bot, `bot.workers.die_with_parent`) and shut
down with the app. What is sent is the procedure itself (a module-level function, `rules.arbitar.procedure
.arbitrate`) with the game, the hand's number and the seat: the worker imports the procedure once and keeps its
tables. With ``workers = 0`` an analysis runs in a thread of the bot instead (the native solver releases the
GIL), as the tests' desks keep it.

The memory is bounded per bot, not per worker (`[arbitar] memory_mb`, `table_budget`): the workers share the
budget equally; each keeps `WORKER_OWN_MB` of its share for itself (the interpreter and the procedure's arrays
at the largest view) and sizes its solver tables to the rest (`rules.arbitar.solver.plan_tables`), for the
searches of its one analysis at a time (`rules.arbitar.procedure.THREADS`); the native module refuses any table
past that. With no workers the bot's process sizes its tables the same way, for `solver.MAX_THREADS` searches.

A worker that dies (killed, out of memory) breaks the pool: the analyses it held end in `ArbitarUnavailable`
(the member is told the Arbitar is unavailable now, to try again), and the next analysis starts a new pool. A death
is found by looking at the pool's processes as well as by the executor (`bot.workers.watched`), so no analysis
waits for a worker that is gone, and a pool whose workers do not all start is given up (`warm_up`'s bound).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TypeVar

from bot.workers import background_worker, give_up, warm_up, watched

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_MEMORY_MB = 256  # `[arbitar] memory_mb` when unset: the Arbitar's workers together
WORKER_OWN_MB = 64  # a worker's own memory besides its tables: the interpreter and the procedure's largest arrays


def default_workers() -> int:
    """`[arbitar] workers` when unset: two analyses at once at most, never more than the machine's cores."""
    return min(2, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class TableBudget:
    """What one process running analyses (a worker, or the bot with no workers) may give its solver tables, and
    for how many searches at once."""

    table_bytes: int
    threads: int


def table_budget(workers: int, memory_mb: int) -> TableBudget | None:
    """The tables' share of each process under the bot's Arbitar budget (see the module's docstring); None while
    the Arbitar is not installed."""
    try:
        from rules.arbitar import procedure, solver  # noqa: PLC0415 (the Arbitar may not be installed)
    except ImportError:
        return None
    share = memory_mb if workers == 0 else memory_mb // workers
    return TableBudget((share - WORKER_OWN_MB) << 20, solver.MAX_THREADS if workers == 0 else procedure.THREADS)


def check_budget(workers: int, memory_mb: int) -> str | None:
    """Why ``memory_mb`` cannot hold the tables of ``workers`` workers (None when it can, or without the Arbitar)."""
    budget = table_budget(workers, memory_mb)
    if budget is None:
        return None
    from rules.arbitar import solver  # noqa: PLC0415 (installed: table_budget imported it)

    try:
        solver.plan_tables(max(0, budget.table_bytes), budget.threads)
    except ValueError:
        least = solver.TablePlan(0, solver.MIN_LAYOUTS_TT_BITS, budget.threads).table_bytes
        each = WORKER_OWN_MB + -(-least >> 20)
        tables = f"{least / 2**20:.1f} MB of solver tables"
        if workers == 0:
            return (
                f"{memory_mb} MB is too little for the analyses in the bot's process: they need at least {each} MB "
                f"({WORKER_OWN_MB} MB for an analysis's arrays and {tables}); raise it"
            )
        return (
            f"{memory_mb} MB is too little for {workers} workers: each needs at least {each} MB ({WORKER_OWN_MB} MB "
            f"for itself and {tables}), {each * workers} MB in all; raise it or lower arbitar.workers"
        )
    return None


def size_tables(budget: TableBudget | None) -> None:
    """Size this process's solver tables to ``budget`` (a worker at its start; the bot with no workers)."""
    if budget is None:
        return
    from rules.arbitar import solver  # noqa: PLC0415 (installed: there is a budget)

    plan = solver.plan_tables(budget.table_bytes, budget.threads)
    if plan != solver.current_plan():
        solver.configure(plan)


def start_worker(parent: int, budget: TableBudget | None) -> None:
    """A worker's start: it dies with the bot and yields the processor to it (`background_worker`), and its
    tables take its share of the budget."""
    background_worker(parent)
    size_tables(budget)


class ArbitarUnavailable(Exception):
    """The worker process running an analysis died before answering; the next analysis gets a new pool."""


class ArbitarPool:
    """Where the desk runs the Arbitar: `run` sends a picklable function and its arguments to a worker."""

    def __init__(self, workers: int, memory_mb: int = DEFAULT_MEMORY_MB, club: str = "-") -> None:
        self.workers = max(0, workers)
        self.budget = table_budget(self.workers, memory_mb)
        self.club = club  # the metrics' label (bot/metrics.py)
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._starting: asyncio.Lock | None = None
        if self.workers == 0:
            size_tables(self.budget)

    async def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._executor is None:
                executor = concurrent.futures.ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,
                    initargs=(os.getpid(), self.budget),
                )
                try:
                    pids = await asyncio.to_thread(warm_up, executor, self.workers)
                except BrokenProcessPool as broken:
                    log.error("the Arbitar's pool did not start (%s); the next analysis tries again", broken)
                    give_up(executor)
                    raise ArbitarUnavailable from None
                log.info("the Arbitar's pool started: workers %s", ", ".join(map(str, pids)))
                self._executor = executor
            return self._executor

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """`function(*args)` in a worker (in a thread with no workers); `ArbitarUnavailable` when it died. Each
        analysis and its time go to the metrics, with its outcome (ok, unavailable, error)."""
        from bot import metrics  # noqa: PLC0415 (bot.config imports this module before the metrics exist)

        started = time.perf_counter()
        outcome = "error"
        try:
            result = await self._run(function, *args)
            outcome = "ok"
            return result
        except ArbitarUnavailable:
            outcome = "unavailable"
            raise
        finally:
            metrics.analysis_done(self.club, outcome, time.perf_counter() - started)

    async def _run(self, function: Callable[..., T], *args: object) -> T:
        if self.workers == 0:
            return await asyncio.to_thread(function, *args)
        executor = await self._pool()
        try:
            return await watched(executor, asyncio.get_running_loop().run_in_executor(executor, function, *args))
        except BrokenProcessPool:
            log.error("a worker of the Arbitar's pool died; the next analysis starts a new pool")
            if self._executor is executor:
                self._executor = None
                give_up(executor)
            raise ArbitarUnavailable from None

    def shutdown(self) -> None:
        """Stop the workers (with the app): an analysis still running is abandoned."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
