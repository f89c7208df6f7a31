"""Benchmark of the Arbitar's double-dummy solver: native against the pure-Python reference, full deals side by side
with the plain baseline solver, and the Arbitar's trick-1 workload.

Prints
- native and reference positions per second on the same random positions (5 cards each, every strain, every
  leader, some mid-trick) and their ratio (target: native >= 50x the reference);
- full 10-card deals per strain (trump, sans, betl): every lead of the player on lead valued, from an empty table
  (cleared outside the timed part), by the native solver and, side by side on the same deals in one run (deal
  by deal, in turn), by the plain baseline solver built from ``../shared/bench/baseline-solver/`` (`--baseline
  DIR`; the column is skipped, with a message, when the folder or a C compiler is missing): mean and median
  milliseconds per deal for both, the ratio baseline / native, and the value mismatches (every lead the
  baseline values is compared; must be 0). Targets: <= 0.5 ms mean for trump and sans, <= 2 ms for betl, and
  >= 2x faster than the baseline on every strain;
- the Arbitar's trick-1 workload: one decision between two cards of a defender on lead at trick 1, over all
  184,756 layouts of the 20 cards he cannot see, from cold tables, with 1 and 2 threads (``--decisions``).

Run: ``.venv/bin/python bench/solver.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from array import array
from pathlib import Path

from rules.arbitar import dds_reference as ref
from rules.arbitar import solver
from rules.arbitar._dds import Solver

TOTAL = 184_756  # C(20, 10): a defender on lead at trick 1 sees none of the other 20 cards
BASELINE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "baseline-solver"
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


def bench_full_deals(count: int, baseline: Baseline | None) -> None:
    """Every lead of every deal valued by both solvers, in turn, each from an empty table."""
    native = Solver(solver.SOLVE_TT_BITS)
    print(
        f"full 10-card deals, every lead valued, empty table per deal, {count} deals per strain "
        f"(machine load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):"
    )
    head = f"  {'strain':6} {'native mean':>12} {'median':>8}"
    if baseline is not None:
        head += f" {'baseline mean':>14} {'median':>8} {'ratio mean':>11} {'median':>7} {'mismatches':>11}"
    print(head + "   (ms per deal)")
    for name, trump, betl in STRAINS:
        ours: list[float] = []
        theirs: list[float] = []
        mismatches = 0
        if baseline is not None:
            baseline.setup(trump, betl, 0)
        for hands, leader in deals(count, 2):
            native.clear()
            start = time.perf_counter()
            values = dict(native.solve(hands, trump, betl, 0, leader))
            ours.append(time.perf_counter() - start)
            if baseline is None:
                continue
            baseline.clear()
            start = time.perf_counter()
            other = baseline.all_leads(hands, leader)
            theirs.append(time.perf_counter() - start)
            mismatches += sum(1 for card, value in other.items() if values.get(card) != value)
        line = f"  {name:6} {1e3 * statistics.fmean(ours):12.3f} {1e3 * statistics.median(ours):8.3f}"
        if baseline is not None:
            line += (
                f" {1e3 * statistics.fmean(theirs):14.3f} {1e3 * statistics.median(theirs):8.3f}"
                f" {statistics.fmean(theirs) / statistics.fmean(ours):10.2f}x"
                f" {statistics.median(theirs) / statistics.median(ours):6.2f}x {mismatches:11d}"
            )
        print(line)


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
    args = parser.parse_args()
    count = 60 if args.quick else 300
    native_rate, ref_rate = bench_ratio(count)
    print(f"positions (5 cards each, all strains, {count} positions, same for both):")
    print(f"  native     {native_rate:12.0f} positions/s")
    print(f"  reference  {ref_rate:12.1f} positions/s")
    print(f"  ratio      {native_rate / ref_rate:12.0f}x  (target >= 50x)")
    baseline: Baseline | None = None
    if not (args.baseline / "harness.c").is_file():
        print(f"baseline solver: {args.baseline} is missing, so its column is skipped")
    else:
        try:
            baseline = Baseline(args.baseline)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"baseline solver: cannot build it ({exc}), so its column is skipped")
    bench_full_deals(args.deals if args.deals is not None else (100 if args.quick else 400), baseline)
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
