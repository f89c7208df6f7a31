"""Analysers the Arbitar's pool runs in its workers in tests (tests/test_arbitar_pool.py): module-level, so a
worker process can unpickle them."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from rules.arbitar import _dds, solver
from rules.arbitar.procedure import arbitrate
from rules.arbitar.solver import TablePlan
from rules.arbitar.verdict import ArbitarVerdict
from rules.gamelog import Game


def recording_pid(path: str, game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    """The Arbitar's verdict, having written the pid of the process that computed it to `path`."""
    Path(path).write_text(str(os.getpid()), encoding="utf-8")
    return arbitrate(game, hand, fallen)


def dying(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    """A worker killed in the middle of an analysis (as the kernel's OOM killer or an operator would)."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("not reached: the process is gone")


def judged_with_tables(game: Game, hand: int, fallen: int) -> tuple[ArbitarVerdict, TablePlan, tuple[int, int]]:
    """The Arbitar's verdict, the table plan of the process that computed it, and its tables' memory after
    (bytes held, the native limit)."""
    verdict = arbitrate(game, hand, fallen)
    return verdict, solver.current_plan(), _dds.table_memory()
