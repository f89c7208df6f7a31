"""Worker processes shared by the import and the Arbitar's pool: each dies with its parent (`die_with_parent`)
and a pool's workers are started at once (`warm_up`)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import signal
import threading
import time


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


def warm_up(executor: concurrent.futures.ProcessPoolExecutor, workers: int) -> list[int]:
    """Start every worker now (for a forking pool: while this process has no other thread, so each is a clean
    fork); the pids that answered."""
    return [future.result() for future in [executor.submit(os.getpid) for _ in range(workers)]]
