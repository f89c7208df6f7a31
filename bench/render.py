"""Benchmark of the pictures: PNGs per second for a 20-hand game's paper and for one played hand, on one core and
on every core (one worker process each), target at least 50 a second each on two cores.

Each image is rendered from scratch: the canvas, every text and card, and the PNG encoding (`bot.pictures`);
only the font files and the measured text boxes are cached, as in the running bot. Printed: the rate on one core
(median of rounds), the rate with N workers, and the PNG sizes.

Run: ``.venv/bin/python bench/render.py`` (``--quick`` for a shorter run, ``--workers N``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from targets import RENDER_RATE, report

from bot.pictures.hand import hand_png
from bot.pictures.paper import paper_png
from rules.generator import generate_game
from rules.paper import compute_paper

TARGET = RENDER_RATE.bound


def _paper() -> bytes:
    game = GAME
    return paper_png(game, compute_paper(game))


def _hand() -> bytes:
    return hand_png(GAME, 1)


GAME = generate_game(random.Random(3), 1847258, hands=20)
KINDS: dict[str, Callable[[], bytes]] = {"paper": _paper, "hand": _hand}


def rate(action: Callable[[], bytes], seconds: float, rounds: int) -> float:
    results = []
    for _ in range(rounds):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            action()
            count += 1
        results.append(count / (time.perf_counter() - start))
    return statistics.median(results)


def _worker(kind: str, seconds: float) -> int:
    action = KINDS[kind]
    action()  # warm: fonts loaded, text boxes measured
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        action()
        count += 1
    return count


def parallel(kind: str, workers: int, seconds: float) -> float:
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_worker, [kind] * workers, [0.05] * workers))  # start and warm every worker
        start = time.perf_counter()
        counts = list(pool.map(_worker, [kind] * workers, [seconds] * workers))
        return sum(counts) / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a shorter run")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    args = parser.parse_args()
    seconds, rounds = (0.5, 3) if args.quick else (2.0, 5)
    failed = False
    for kind, action in KINDS.items():
        data = action()
        single = rate(action, seconds, rounds)
        many = parallel(kind, args.workers, seconds * 2)
        ok = many >= TARGET
        failed |= not ok
        print(
            f"{kind}: {single:6.1f}/s on one core, {many:6.1f}/s with {args.workers} workers "
            f"(target {TARGET}/s: {'ok' if ok else 'MISSED'}); PNG {len(data) / 1024:.1f} KB"
        )
        report(f"picture {kind}, {args.workers} workers", many, RENDER_RATE, peer=f"one core {single:.1f}/s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
