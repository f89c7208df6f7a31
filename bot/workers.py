"""Worker processes shared by the import and the Arbitar's pool: each dies with its parent (`die_with_parent`),
runs at a lower scheduling priority than the bot (`background_worker`), a pool's workers are started at
once (`warm_up`), and a wait for a worker never outlives it (`watched`).

Lower means the kernel's idle class where it has one (``SCHED_IDLE``, Linux), not only a higher niceness: a nice
worker still keeps a core for the rest of its slice when a process of the bot's wakes on it, and the live feed on
PostgreSQL wakes three processes several times per batch (the bot, the server's backend, the game server's
request), so each of those wake-ups would wait behind an analysis or an import's parsing. A task of the idle class
gives way at once to any other that wakes, and still uses every cycle nothing else wants.

A dead worker is found by looking at the pool's processes (`dead_worker`), not only by the executor: CPython's
`ProcessPoolExecutor` notices a death among the processes its manager thread waits on, a list it makes before
`submit` spawns the worker a new task needs (`submit` wakes the manager first). A worker that dies after taking a
task, while missing from that list, leaves the task's future pending for ever: every wait here looks at the pool
itself every `WATCH_SECONDS` and answers `BrokenProcessPool` as soon as one of its processes has ended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import os
import signal
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")

WATCH_SECONDS = 0.5  # how often a wait on a pool looks whether one of its workers has died
WARM_UP_SECONDS = 120.0  # at most this long for a pool's workers to start (the interpreter and the modules)


def die_with_parent(parent: int) -> None:
    """Run first in each worker: when the process that started it dies (even by `kill -9`) the worker dies too.

    Linux delivers SIGKILL to the worker when its parent goes (``PR_SET_PDEATHSIG``); elsewhere a watchdog thread
    notices that the parent changed. A parent that died before this ran is noticed at once.
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


BACKGROUND_NICENESS = 10  # added to a worker's niceness where the idle class is missing (or refused)


def background_worker(parent: int) -> None:
    """Run first in each worker of the import and of the Arbitar's pool: it dies with its parent
    (`die_with_parent`) and yields the processor to the bot's own process — the idle scheduling class where the
    system has it (`idle_class`), and `BACKGROUND_NICENESS` added to its niceness in any case — so the event loop
    (the live feed's acknowledgements, the desk's answers) and the database server serving it take a core from an
    analysis or an import's parsing the moment they wake, and those use every cycle left. The process that writes
    to the database keeps its priority (a writer holding the write lock is never the one kept waiting)."""
    die_with_parent(parent)
    with contextlib.suppress(OSError):
        os.nice(BACKGROUND_NICENESS)
    idle_class()


def idle_class() -> bool:
    """Put this process in the kernel's idle scheduling class (``SCHED_IDLE``): it runs only when no other
    process of its group wants the core, and gives way at once when one wakes. False where the system has no
    such class or refuses it (the niceness then is all the worker yields)."""
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is None or not hasattr(os, "sched_setscheduler"):
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True


def dead_worker(executor: concurrent.futures.ProcessPoolExecutor) -> int | None:
    """The pid of a worker of `executor` that has ended (killed, out of memory), or None while all live."""
    processes = getattr(executor, "_processes", None) or {}
    for pid, process in list(processes.items()):
        if process.exitcode is not None:
            return int(pid)
    return None


def give_up(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a broken pool: what waits is cancelled and every worker still alive is terminated (the executor itself
    terminates them only once it has noticed the death)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.exitcode is None:
            with contextlib.suppress(OSError, ValueError):
                process.terminate()


def warm_up(
    executor: concurrent.futures.ProcessPoolExecutor, workers: int, bound: float = WARM_UP_SECONDS
) -> list[int]:
    """Start every worker now (for a forking pool: while this process has no other thread, so each is a clean
    fork); the pids that answered. `BrokenProcessPool` when a worker died before answering, or when they have not
    all answered within `bound` seconds — never a wait for ever."""
    futures = [executor.submit(os.getpid) for _ in range(workers)]
    deadline = time.monotonic() + bound
    while True:
        _, pending = concurrent.futures.wait(futures, timeout=WATCH_SECONDS)
        if not pending:
            return [future.result() for future in futures]
        dead = dead_worker(executor)
        if dead is not None:
            raise BrokenProcessPool(f"the worker process {dead} died as it started")
        if time.monotonic() >= deadline:
            raise BrokenProcessPool(f"the worker processes did not start within {bound:g} s")


async def watched(executor: concurrent.futures.ProcessPoolExecutor, future: asyncio.Future[T]) -> T:
    """The result of `future`, a task running in `executor`; `BrokenProcessPool` as soon as one of the pool's
    workers is found dead while it waits (the executor breaks on any death: it would fail this task too, once it
    noticed)."""
    while True:
        done, _ = await asyncio.wait({future}, timeout=WATCH_SECONDS)
        if done:
            return future.result()
        dead = dead_worker(executor)
        if dead is not None:
            future.cancel()
            raise BrokenProcessPool(f"the worker process {dead} died")
