"""Benchmark of the Arbitar's double-dummy solver: native against the pure-Python reference, full deals side by side
with the plain baseline solver, and the Arbitar's trick-1 workload.

Prints
- native and reference positions per second on the same random positions (5 cards each, every strain, every
  leader, some mid-trick) and their ratio (target: native >= 50x the reference);
- full 10-card deals per strain (trump, sans, betl): every lead of the player on lead valued, from an empty table
  (cleared outside the timed part), by the native solver and, side by side on the same deals in one run (deal
  by deal, in alternating order: the project first on even deals, the baseline first on odd ones, so that
  neither always meets the caches the other left), by the plain baseline solver built from
  ``../shared/bench/baseline-solver/`` (`--baseline DIR`; the column is skipped, with a message, when the folder
  or a C compiler is missing): the native search's nodes per deal (deterministic: the same code gives the same
  count on any machine), mean and median milliseconds per deal for both, the ratio baseline / native, and the
  value mismatches (every lead the baseline values is compared; must be 0). Targets: <= 0.5 ms mean for trump
  and sans, <= 2 ms for betl, and >= 2x faster than the baseline on every strain
  (``--clock cpu`` times each call by this thread's CPU time instead of the wall clock: on a loaded machine the
  wall time of a long call is inflated more than a short one's, which skews the ratio);
- the Arbitar's trick-1 workload: one decision between two cards of a defender on lead at trick 1, over all
  184,756 layouts of the 20 cards he cannot see, from cold tables, with 1 and 2 threads (``--decisions``).

With ``--journal`` the run's figures are appended to ``docs/solver-journal.md`` as a dated entry (``--note``
adds a line saying what the run measured); measured figures live there, never in the solver's comments.

Run: ``.venv/bin/python bench/solver.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from targets import SOLVER_VS_BASELINE, SOLVER_VS_REFERENCE, report

from rules.arbitar import dds_reference as ref
from rules.arbitar import solver
from rules.arbitar._dds import Solver

TOTAL = 184_756  # C(20, 10): a defender on lead at trick 1 sees none of the other 20 cards
ROOT = Path(__file__).resolve().parents[1]
BASELINE_DIR = ROOT.parent / "shared" / "bench" / "baseline-solver"
JOURNAL = ROOT / "docs" / "solver-journal.md"
STRAINS: tuple[tuple[str, int, bool], ...] = (("trump", 0, False), ("sans", -1, False), ("betl", -1, True))
Position = tuple[tuple[int, int, int], int | None, bool, int, int, tuple[int, ...], int]


def random_positions(count: int, size: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    strains: list[tuple[int | None, bool]] = [
        (None, False),
        (0, False),
        (1, False),
        (2, False),
        (3, False),
        (None, True),
    ]
    out: list[Position] = []
    for k in range(count):
        trump, betl = strains[k % len(strains)]
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[i * size : (i + 1) * size]) for i in range(3)]
        leader = rng.randrange(3)
        trick: list[int] = []
        for j in range(rng.randrange(3)):
            seat = (leader + j) % 3
            card = rng.choice(ref.legal_cards(hands[seat], trick[0] // 8 if trick else None, trump))
            hands[seat] &= ~(1 << card)
            trick.append(card)
        out.append(
            (
                (hands[0], hands[1], hands[2]),
                trump,
                betl,
                rng.randrange(3),
                (leader + len(trick)) % 3,
                tuple(trick),
                leader,
            )
        )
    return out


def bench_ratio(count: int) -> tuple[float, float]:
    positions = random_positions(count, 5, 1)
    start = time.perf_counter()
    expected = [ref.solve(h, t, b, d, m, tr, ld) for h, t, b, d, m, tr, ld in positions]
    ref_rate = count / (time.perf_counter() - start)
    native = Solver(12)
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        for h, t, b, d, m, tr, ld in positions:
            native.clear()  # from scratch, like the reference
            native.solve(h, -1 if t is None else t, b, d, m, tr, ld)
    native_rate = rounds * count / (time.perf_counter() - start)
    got = [solver.solve(h, t, b, d, m, tr, ld) for h, t, b, d, m, tr, ld in positions]
    assert got == expected, "native and reference disagree"
    return native_rate, ref_rate


class Baseline:
    """The plain baseline solver (shared/bench/baseline-solver), built into a temporary shared library."""

    def __init__(self, folder: Path) -> None:
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            raise OSError("no C compiler (cc) on PATH")
        self._dir = tempfile.TemporaryDirectory(prefix="baseline-solver-")
        library = Path(self._dir.name) / "libbaseline.so"
        subprocess.run(
            [compiler, "-O3", "-std=gnu99", "-shared", "-fPIC", "-o", str(library), "harness.c"],
            cwd=folder,
            check=True,
            capture_output=True,
        )
        lib = ctypes.CDLL(str(library))
        lib.h_setup.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.h_clear.argtypes = []
        lib.h_all.argtypes = [
            ctypes.c_uint32,
            ctypes.c_uint32,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_int),
            ctypes.POINTER(ctypes.c_int),
        ]
        lib.h_all.restype = ctypes.c_int
        self._lib = lib
        self._cards = (ctypes.c_int * 12)()
        self._values = (ctypes.c_int * 12)()

    def setup(self, trump: int, betl: bool, declarer: int) -> None:
        self._lib.h_setup(trump, int(betl), declarer, 20)

    def clear(self) -> None:
        self._lib.h_clear()

    def all_leads(self, hands: tuple[int, int, int], leader: int) -> dict[int, int]:
        n = self._lib.h_all(hands[0], hands[1], hands[2], leader, self._cards, self._values)
        return {self._cards[i]: self._values[i] for i in range(n)}


def deals(count: int, seed: int) -> list[tuple[tuple[int, int, int], int]]:
    """Random full deals (ten cards each; the talon aside) and the seat on lead."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = tuple(sum(1 << c for c in deck[i * 10 : (i + 1) * 10]) for i in range(3))
        out.append(((hands[0], hands[1], hands[2]), rng.randrange(3)))
    return out


@dataclass(frozen=True)
class StrainRun:
    """One strain's full-deal figures: times in seconds per deal, the native search's nodes in all."""

    name: str
    deals: int
    nodes: int
    ours: list[float]
    theirs: list[float]  # empty without the baseline
    mismatches: int

    def line(self) -> str:
        out = (
            f"  {self.name:6} {self.nodes / self.deals:10,.0f} "
            f"{1e3 * statistics.fmean(self.ours):12.3f} {1e3 * statistics.median(self.ours):8.3f}"
        )
        if self.theirs:
            out += (
                f" {1e3 * statistics.fmean(self.theirs):14.3f} {1e3 * statistics.median(self.theirs):8.3f}"
                f" {self.mean_ratio:10.2f}x {self.median_ratio:6.2f}x {self.mismatches:11d}"
            )
        return out

    @property
    def mean_ratio(self) -> float:
        return statistics.fmean(self.theirs) / statistics.fmean(self.ours)

    @property
    def median_ratio(self) -> float:
        return statistics.median(self.theirs) / statistics.median(self.ours)


def bench_full_deals(count: int, baseline: Baseline | None, clock: Callable[[], float]) -> list[StrainRun]:
    """Every lead of every deal valued by both solvers, in alternating order, each from an empty table (a new
    native Solver per strain: its table's replacement order follows the nodes it searched before, so the node
    counts of a strain do not depend on the strains run before it)."""
    print(
        f"full 10-card deals, every lead valued, empty table per deal, {count} deals per strain, project and "
        f"baseline in alternating order (machine load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):"
    )
    head = f"  {'strain':6} {'nodes/deal':>10} {'native mean':>12} {'median':>8}"
    if baseline is not None:
        head += f" {'baseline mean':>14} {'median':>8} {'ratio mean':>11} {'median':>7} {'mismatches':>11}"
    print(head + f"   (ms per deal, {'CPU' if clock is time.thread_time else 'wall'} time)")
    runs: list[StrainRun] = []
    for name, trump, betl in STRAINS:
        native = Solver(solver.SOLVE_TT_BITS)
        ours: list[float] = []
        theirs: list[float] = []
        mismatches = 0
        nodes = 0
        if baseline is not None:
            baseline.setup(trump, betl, 0)
        for k, (hands, leader) in enumerate(deals(count, 2)):
            other: dict[int, int] | None = None
            if baseline is not None and k % 2:
                other = _time_baseline(baseline, hands, leader, theirs, clock)
            native.clear()
            before = native.stats()["nodes"]
            start = clock()
            values = dict(native.solve(hands, trump, betl, 0, leader))
            ours.append(clock() - start)
            nodes += native.stats()["nodes"] - before
            if baseline is not None and other is None:
                other = _time_baseline(baseline, hands, leader, theirs, clock)
            if other is not None:
                mismatches += sum(1 for card, value in other.items() if values.get(card) != value)
        run = StrainRun(name, count, nodes, ours, theirs, mismatches)
        runs.append(run)
        print(run.line())
    return runs


def _time_baseline(
    baseline: Baseline, hands: tuple[int, int, int], leader: int, times: list[float], clock: Callable[[], float]
) -> dict[int, int]:
    baseline.clear()
    start = clock()
    values = baseline.all_leads(hands, leader)
    times.append(clock() - start)
    return values


def _revision() -> str:
    """The project's commit (with "+ changes" when the tree differs from it), or "" outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f"{head} + changes" if dirty else head


def journal_entry(
    command: str, runs: list[StrainRun], rates: tuple[float, float], load: float, note: str, today: datetime.date
) -> str:
    """A dated entry for docs/solver-journal.md with the run's figures."""
    revision = _revision()
    native_rate, ref_rate = rates
    lines = [
        f"## {today.isoformat()} — `bench/solver.py`" + (f" at {revision}" if revision else ""),
        "",
        f"`{command}`, machine load {load:.1f} on {os.cpu_count()} cores at the start.",
    ]
    if note:
        lines += ["", note]
    lines += [
        "",
        f"Positions: native {native_rate:,.0f}/s, reference {ref_rate:,.1f}/s, {native_rate / ref_rate:,.0f}x.",
        "",
    ]
    with_baseline = all(run.theirs for run in runs)
    head = "| strain | deals | nodes per deal | native mean ms | median ms |"
    rule = "|---|---:|---:|---:|---:|"
    if with_baseline:
        head += " baseline mean ms | median ms | ratio mean | ratio median | mismatches |"
        rule += "---:|---:|---:|---:|---:|"
    lines += [head, rule]
    for run in runs:
        row = (
            f"| {run.name} | {run.deals} | {run.nodes / run.deals:,.0f} | {1e3 * statistics.fmean(run.ours):.3f} | "
            f"{1e3 * statistics.median(run.ours):.3f} |"
        )
        if with_baseline:
            row += (
                f" {1e3 * statistics.fmean(run.theirs):.3f} | {1e3 * statistics.median(run.theirs):.3f} | "
                f"{run.mean_ratio:.2f}x | {run.median_ratio:.2f}x | {run.mismatches} |"
            )
        lines.append(row)
    return "\n".join(lines) + "\n"


def _without_note(argv: list[str]) -> list[str]:
    """The command's arguments without ``--note`` and its text (the entry shows the note on its own)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--note":
            skip = True
        elif not arg.startswith("--note="):
            out.append(arg)
    return out


def append_journal(path: Path, entry: str) -> None:
    """Append an entry to the journal, one blank line after what is there."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# The solver's journal\n"
    path.write_text(text.rstrip("\n") + "\n\n" + entry, encoding="utf-8")


def trick_one_layouts(seed: int, count: int) -> tuple[array[int], tuple[int, int]]:
    """Defender seat 1 leads to trick 1 with ten known cards; the declarer (0) and partner (2) hold the rest.

    The first ``count`` layouts of `solver.enumerate_layouts`, and two cards of the defender (lowest, highest).
    """
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    mover = sum(1 << c for c in deck[:10])
    unseen = sum(1 << c for c in deck[10:30])
    own = [c for c in range(32) if mover >> c & 1]
    packed = solver.enumerate_layouts(unseen, 10, (0, mover, 0), 0, 2)
    return packed[: 3 * count], (own[0], own[-1])


def bench_decision(seed: int, trump: int | None, threads: int) -> tuple[float, float]:
    """One trick-1 decision over all 184,756 layouts from a cold start: (wall seconds, cpu seconds)."""
    packed, cards = trick_one_layouts(seed, TOTAL)
    solver.clear_tables()
    start, cpu = time.perf_counter(), time.process_time()
    solver.solve_layouts(packed, trump, False, 0, 1, (), None, cards, threads=threads)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and deals, no trick-1 decision")
    parser.add_argument("--deals", type=int, default=None, help="full deals per strain (default 400, quick 100)")
    parser.add_argument(
        "--decisions", type=int, default=None, help="deals for the full 184,756-layout decision (default 1, quick 0)"
    )
    parser.add_argument("--baseline", type=Path, default=BASELINE_DIR, help="the baseline solver's folder")
    parser.add_argument(
        "--journal",
        nargs="?",
        type=Path,
        const=JOURNAL,
        default=None,
        help="append the run's figures as a dated entry to the journal (default docs/solver-journal.md)",
    )
    parser.add_argument("--note", default="", help="a line for the journal entry: what this run measured")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time the full deals by the wall clock, or by the CPU time of this thread (a loaded machine)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    count = 60 if args.quick else 300
    native_rate, ref_rate = bench_ratio(count)
    print(f"positions (5 cards each, all strains, {count} positions, same for both):")
    print(f"  native     {native_rate:12.0f} positions/s")
    print(f"  reference  {ref_rate:12.1f} positions/s")
    print(f"  ratio      {native_rate / ref_rate:12.0f}x  (target {SOLVER_VS_REFERENCE.text()})")
    baseline: Baseline | None = None
    if not (args.baseline / "harness.c").is_file():
        print(f"baseline solver: {args.baseline} is missing, so its column is skipped")
    else:
        try:
            baseline = Baseline(args.baseline)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"baseline solver: cannot build it ({exc}), so its column is skipped")
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    runs = bench_full_deals(args.deals if args.deals is not None else (100 if args.quick else 400), baseline, clock)
    report(
        f"solver native / pure reference, {count} positions",
        native_rate / ref_rate,
        SOLVER_VS_REFERENCE,
        peer=f"native {native_rate:,.0f}/s, reference {ref_rate:,.1f}/s",
    )
    for run in runs if baseline is not None else ():
        report(
            f"solver {run.name}: baseline / native, median per deal, {run.deals} deals, alternating order",
            run.median_ratio,
            SOLVER_VS_BASELINE,
            peer=f"native {1e3 * statistics.median(run.ours):.3f} ms, baseline "
            f"{1e3 * statistics.median(run.theirs):.3f} ms, mean ratio {run.mean_ratio:.2f}x, "
            f"{run.mismatches} mismatches",
        )
    if args.journal is not None:
        command = shlex.join(["bench/solver.py", *_without_note(sys.argv[1:])])
        entry = journal_entry(command, runs, (native_rate, ref_rate), load, args.note, datetime.date.today())
        append_journal(args.journal, entry)
        print(f"journal: an entry appended to {args.journal}")
    decisions = args.decisions if args.decisions is not None else (0 if args.quick else 1)
    if decisions:
        print(
            f"one trick-1 decision (two cards, all {TOTAL} layouts, cold tables), machine load "
            f"{os.getloadavg()[0]:.1f}:"
        )
    for threads in (1, 2) if decisions else ():
        walls, cpus = [], []
        for seed in range(decisions):
            for name, trump in (("trump", 0), ("sans", None)):
                wall, cpu = bench_decision(100 + seed, trump, threads)
                walls.append(wall)
                cpus.append(cpu)
                print(
                    f"  deal {seed} {name:5s} {threads} thread(s): {wall:5.2f} s wall, {cpu:5.2f} s cpu "
                    f"({cpu / TOTAL * 1e6:.1f} us/layout)"
                )


if __name__ == "__main__":
    main()
