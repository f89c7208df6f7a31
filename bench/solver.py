"""Benchmark of the Arbitar's double-dummy solvers: native against the pure-Python reference, full deals, layouts.

Prints
- native and reference positions per second on the same random positions (5 cards each, every strain, every
  leader, some mid-trick) and their ratio (target: native >= 50x the reference);
- full 10-card deals solved per second (every card of the player on lead), trump and sans;
- the Arbitar's trick-1 workload: one decision between two cards of a defender on lead at trick 1, over all
  184,756 layouts of the 20 cards he cannot see (`solver.enumerate_layouts` order), from cold tables, with 1
  and 2 threads: wall and cpu seconds (the machine is shared: the load is printed too).

Run: ``.venv/bin/python bench/solver.py`` (``--quick --deals 1`` for a short run).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from array import array

from rules.arbitar import dds_reference as ref
from rules.arbitar import solver
from rules.arbitar._dds import Solver

TOTAL = 184_756  # C(20, 10): a defender on lead at trick 1 sees none of the other 20 cards
Position = tuple[tuple[int, int, int], int | None, bool, int, int, tuple[int, ...], int]


def random_positions(count: int, size: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    strains: list[tuple[int | None, bool]] = [(None, False), (0, False), (1, False), (2, False), (3, False),
                                              (None, True)]
    out: list[Position] = []
    for k in range(count):
        trump, betl = strains[k % len(strains)]
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[i * size:(i + 1) * size]) for i in range(3)]
        leader = rng.randrange(3)
        trick: list[int] = []
        for j in range(rng.randrange(3)):
            seat = (leader + j) % 3
            card = rng.choice(ref.legal_cards(hands[seat], trick[0] // 8 if trick else None, trump))
            hands[seat] &= ~(1 << card)
            trick.append(card)
        out.append(((hands[0], hands[1], hands[2]), trump, betl, rng.randrange(3), (leader + len(trick)) % 3,
                    tuple(trick), leader))
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


def bench_deals(seconds: float, trump: int | None) -> float:
    rng = random.Random(2)
    native = Solver(18)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deck = list(range(32))
        rng.shuffle(deck)
        hands = tuple(sum(1 << c for c in deck[i * 10:(i + 1) * 10]) for i in range(3))
        native.solve((hands[0], hands[1], hands[2]), -1 if trump is None else trump, False, 0, rng.randrange(3))
        done += 1
    return done / (time.perf_counter() - start)


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
    return packed[:3 * count], (own[0], own[-1])


def bench_decision(seed: int, trump: int | None, threads: int) -> tuple[float, float]:
    """One trick-1 decision over all 184,756 layouts from a cold start: (wall seconds, cpu seconds)."""
    packed, cards = trick_one_layouts(seed, TOTAL)
    solver.clear_tables()
    start, cpu = time.perf_counter(), time.process_time()
    solver.solve_layouts(packed, trump, False, 0, 1, (), None, cards, threads=threads)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and layouts")
    parser.add_argument("--deals", type=int, default=3, help="deals for the full 184,756-layout decision (0: skip)")
    args = parser.parse_args()
    count = 60 if args.quick else 300
    native_rate, ref_rate = bench_ratio(count)
    print(f"positions (5 cards each, all strains, {count} positions, same for both):")
    print(f"  native     {native_rate:12.0f} positions/s")
    print(f"  reference  {ref_rate:12.1f} positions/s")
    print(f"  ratio      {native_rate / ref_rate:12.0f}x  (target >= 50x)")
    seconds = 1.0 if args.quick else 4.0
    for name, trump in (("trump", 0), ("sans", None)):
        print(f"full 10-card deals, {name}: {bench_deals(seconds, trump):.0f} deals/s (every card of the leader)")
    print(f"one trick-1 decision (two cards, all {TOTAL} layouts, cold tables), machine load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    for threads in (1, 2):
        walls, cpus = [], []
        for seed in range(args.deals):
            for name, trump in (("trump", 0), ("sans", None)):
                wall, cpu = bench_decision(100 + seed, trump, threads)
                walls.append(wall)
                cpus.append(cpu)
                print(f"  deal {seed} {name:5s} {threads} thread(s): {wall:5.2f} s wall, {cpu:5.2f} s cpu "
                      f"({cpu / TOTAL * 1e6:.1f} us/layout)")
        print(f"  {threads} thread(s): mean {statistics.fmean(walls):.2f} s wall (max {max(walls):.2f}), "
              f"mean {statistics.fmean(cpus):.2f} s cpu")


if __name__ == "__main__":
    main()
