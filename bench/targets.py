"""The benches' targets, each written once here (with the issue that set it), and the one way a bench reports a
figure against one.

`report` prints a line a person reads (the figure, its value, its target and whether it is met, its peer) and,
when `bench/run_all.py` runs the bench, appends the same as a JSON record to the file named by the environment's
``SUDIJA_BENCH_FIGURES``: run_all gathers them into its closing table, each under the command that measured it.
A peer is what the figure is read beside (the other backend, the baseline solver, the request computed each time,
the feed alone): text the bench writes, with its own unit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

#: The environment variable naming the file run_all gathers the figures from (one JSON record per line).
FIGURES_FILE = "SUDIJA_BENCH_FIGURES"


@dataclass(frozen=True)
class Target:
    """A bound a figure must keep: at most (``at_most``) or at least, strictly or not."""

    bound: float
    unit: str
    at_most: bool
    strict: bool = False
    issue: str = ""  # where it was set

    def met(self, value: float) -> bool:
        if self.at_most:
            return value < self.bound if self.strict else value <= self.bound
        return value > self.bound if self.strict else value >= self.bound

    def text(self) -> str:
        sign = ("<" if self.strict else "≤") if self.at_most else (">" if self.strict else "≥")
        return f"{sign} {number(self.bound)} {self.unit}".replace(" x", "x")


DESK_P99 = Target(20, "ms", at_most=True, issue="issue 4: /sudija and Sudi, p99, 1,000 calls, 50 referees each")
PRESS_P99 = Target(250, "ms", at_most=True, issue="issue 17: a press on Telegram or Discord to its answer, p99")
PAPER_RATE = Target(2000, "/s", at_most=False, issue="issue 38: /papir of a 200-hand game on the request path")
FEED_RATE = Target(2000, "events/s", at_most=False, issue="issue 38: the live feed, alone and beside other work")
FEED_P99 = Target(50, "ms", at_most=True, issue="issue 38: the live feed's p99, alone and beside other work")
ARBITAR_P95 = Target(0.3, "s", at_most=True, issue="issue 38: the Arbitar per disputed hand, p95, every shape")
ARBITAR_MAX = Target(2.0, "s", at_most=True, issue="issue 38: the Arbitar per disputed hand, max, the slowest")
ARBITAR_TABLES_MB = Target(256, "MB", at_most=True, issue="issue 38: the Arbitar's tables per bot, all workers")
IDLE_MEMORY_MIB = Target(150, "MiB", at_most=True, strict=True, issue="sudija run idle: 100,000 games, 10,000 members")
WEB_P95 = Target(50, "ms", at_most=True, issue="the web pages' server time, p95, every page")
SOLVER_VS_BASELINE = Target(2.0, "x", at_most=False, issue="the solver against the plain baseline, every strain")
SOLVER_VS_REFERENCE = Target(50.0, "x", at_most=False, issue="the native solver against the pure reference")
IMPORT_RATE = Target(20_000, "hands/s", at_most=False, issue="issue 2: the import of game-log files")
RENDER_RATE = Target(50, "/s", at_most=False, issue="the pictures, with a worker per core")
CROSS_BOUND = Target(5.0, "s", at_most=True, issue="a deadline acted on, the gateway taken over, after a kill")


def number(value: float) -> str:
    """A figure as the tables print it: thousands grouped, a few significant digits."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10 or value == int(value):
        return f"{value:.1f}".removesuffix(".0")
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def report(figure: str, value: float, target: Target | None, unit: str = "", peer: str = "") -> bool:
    """Print a figure beside its target and its peer, and record it for run_all; whether the target is met (True
    when there is none)."""
    unit = unit or (target.unit if target is not None else "")
    met = target is None or target.met(value)
    shown = f"{number(value)} {unit}".replace(" x", "x")
    line = f"figure: {figure}: {shown}"
    if target is not None:
        line += f" (target {target.text()}: {'met' if met else 'NOT met'})"
    if peer:
        line += f"; peer: {peer}"
    print(line, flush=True)
    path = os.environ.get(FIGURES_FILE)
    if path:
        record = {
            "figure": figure,
            "value": value,
            "shown": shown,
            "target": target.text() if target is not None else "",
            "met": met if target is not None else None,
            "peer": peer,
            "load": os.getloadavg()[0],
        }
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return met
