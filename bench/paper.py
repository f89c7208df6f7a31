"""Benchmark of the paper: recomputations per second of a 200-hand game's paper (target: at least 2,000/s).

A recomputation is `compute_paper(game, changes)`: the running sheet over all 200 hands (refe, values, game
end, results) with a handful of changes applied, as the desk does after every change. The per-hand scoring
(replaying the tricks) depends only on the immutable log and is cached per game, so the figure that matters is
the warm one; the cold figure (a freshly loaded game, every hand replayed) is printed too. Also printed:
`check_change` (two recomputations and the checks) per second.

Run: ``.venv/bin/python bench/paper.py`` (``--quick`` for a shorter run).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime

from rules.generator import generate_game
from rules.paper import ChangeKind, PaperChange, compute_paper
from rules.paper_changes import check_change

TARGET = 2000


def rate(action: Callable[[], object], seconds: float, rounds: int) -> tuple[float, float]:
    """(median, best) calls per second over `rounds` rounds of about `seconds` each."""
    results = []
    for _ in range(rounds):
        count = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds:
            for _ in range(10):
                action()
            count += 10
            elapsed = time.perf_counter() - start
        results.append(count / elapsed)
    return statistics.median(results), max(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter rounds")
    parser.add_argument("--seed", type=int, default=1847258)
    args = parser.parse_args()
    seconds, rounds = (0.3, 3) if args.quick else (1.0, 5)
    # A big game size so that all 200 hands count (the game does not end early).
    game = generate_game(random.Random(args.seed), 1847258, hands=200, bule=5000, refe_limit=20)
    paper = compute_paper(game)
    assert paper.scored_hands == 200, paper.scored_hands
    when = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    changes: list[PaperChange] = []
    for n in (20, 60, 100, 140, 180):
        candidate = PaperChange(ChangeKind.PROMENA_BULA, n, "sudija", when, "bench", 1, (4, -2, 0))
        check_change(game, changes, candidate)
        changes.append(candidate)
    falls = [
        (h.n, seat, h.score.declarer)
        for h in paper.hands
        if h.score is not None
        for seat in h.score.fallen
        if seat != h.score.declarer
    ]
    if falls:
        n, fallen, declarer = falls[len(falls) // 2]
        assert declarer is not None
        odlazak = PaperChange(ChangeKind.ODLAZAK_U_BULU, n, "sudija", when, "bench", 2, player=3 - declarer - fallen)
        check_change(game, changes, odlazak)
        changes.append(odlazak)

    warm, warm_best = rate(lambda: compute_paper(game, changes), seconds, rounds)
    cold, cold_best = rate(lambda: compute_paper(dataclasses.replace(game), changes), seconds, rounds)
    extra = PaperChange(ChangeKind.PROMENA_BULA, 199, "sudija", when, "bench", 3, (2, 2, 2))
    checks, checks_best = rate(lambda: check_change(game, changes, extra), seconds, rounds)

    print(f"game: 200 hands, {len(changes)} changes, {paper.refe_rounds} refe rounds")
    verdict = "OK" if warm >= TARGET else "BELOW TARGET"
    print(
        f"paper recomputations per second (warm, hand scoring cached): {warm:,.0f} median, {warm_best:,.0f} best "
        f"(target >= {TARGET:,}: {verdict})"
    )
    print(f"paper computations per second (cold, every hand replayed):    {cold:,.0f} median, {cold_best:,.0f} best")
    print(f"check_change per second (two recomputations and the checks): {checks:,.0f} median, {checks_best:,.0f} best")


if __name__ == "__main__":
    main()
