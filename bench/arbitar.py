"""Benchmark of the Arbitar's procedure over generated disputed hands (both defenders followed, one fell).

Hands: trump hands from `rules.generator.generate_game` (the heuristic auction and play), and sans hands
built with `make_hand` on deals where one player holds a strong sans hand (he is made the declarer, both
defenders follow, the heuristic plays with a little noise); only hands where a defender fell are kept. Each
hand is judged once, for the first defender who fell (seat order).

Prints
- p50, p95 and max seconds per hand (target on this 2-core machine: p95 < 0.5 s, max < 3 s), by strain too;
- layouts examined: the layouts enumerated for the judged cards, the yes/no consistency searches and the
  layouts where the two cards were compared;
- the verdicts (decision and step);
- the native/pure-Python solver speed ratio on the same positions: late-play positions of these hands (the
  endings the reference solver can handle), solved by both, compared value by value.

Run: ``.venv/bin/python bench/arbitar.py`` (``--hands 200 --sans 50`` by default; ``--quick`` for 40 hands).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator

from rules.arbitar import dds_reference as ref
from rules.arbitar import solver
from rules.arbitar._dds import Solver
from rules.arbitar.layouts import played_hand
from rules.arbitar.procedure import arbitrate_with_stats
from rules.cards import cards_of
from rules.gamelog import Game, Hand
from rules.generator import best_discards, generate_game, make_game, make_hand, sans_estimate
from rules.paper_hand import DefenceShape, HandCase, hand_facts

Disputed = tuple[Game, int, int, str]  # game, hand number, fallen seat, strain name


def _fallen(hand: Hand) -> int | None:
    facts = hand_facts(hand)
    score = facts.plain
    if facts.case is not HandCase.PLAYED or score.shape is not DefenceShape.BOTH:
        return None
    fallen = [seat for seat in score.fallen if seat != hand.declarer]
    return fallen[0] if fallen else None


def trump_hands(count: int) -> Iterator[Disputed]:
    """Disputed trump hands from generated games, in a fixed order."""
    found = 0
    seed = 0
    while found < count:
        game = generate_game(random.Random(seed), seed + 1, hands=30)
        seed += 1
        for hand in game.hands:
            fallen = _fallen(hand)
            if fallen is None or hand.contract is None or hand.contract.strain.trump is None:
                continue
            yield game, hand.n, fallen, "trump"
            found += 1
            if found == count:
                return


def sans_hands(count: int) -> Iterator[Disputed]:
    """Disputed sans hands: a strong sans hand declares, both defenders follow, heuristic play with noise."""
    found = 0
    rng = random.Random(7)
    while found < count:
        deck = list(range(32))
        rng.shuffle(deck)
        masks = [sum(1 << c for c in deck[k * 10:(k + 1) * 10]) for k in range(3)]
        talon = (1 << deck[30]) | (1 << deck[31])
        declarer = max(range(3), key=lambda s: sans_estimate(masks[s] | talon))
        if sans_estimate(masks[declarer] | talon) < 6.5:
            continue
        discards = best_discards(masks[declarer] | talon, 7)
        deal = [" ".join(str(c) for c in cards_of(m)) for m in (*masks, talon)]
        text = " ".join(str(c) for c in cards_of(discards))
        hand = make_hand(deal, dealer=(declarer + 2) % 3, bids="7 dalje dalje", contract="sans", discards=text,
                         defense="follows follows", rng=random.Random(rng.randrange(1 << 30)), noise=0.04,
                         stop=False)
        fallen = _fallen(hand)
        if fallen is None:
            continue
        yield make_game([hand], number=1000 + found), 1, fallen, "sans"
        found += 1


def ratio_positions(disputed: list[Disputed], per_hand: int = 2, cards_left: int = 5
                    ) -> list[tuple[tuple[int, int, int], int | None, bool, int, int, tuple[int, ...], int | None]]:
    """Positions from the hands' own play with ``cards_left`` cards in the mover's hand (reference-sized)."""
    out = []
    for game, n, _, _ in disputed:
        hand = next(h for h in game.hands if h.n == n)
        played = played_hand(hand)
        moments = [m for m in played.moments if m.hands[m.seat].bit_count() == cards_left]
        for moment in moments[:per_hand]:
            out.append((moment.hands, played.trump, played.betl, played.declarer, moment.seat, moment.before,
                        moment.leader if moment.before else None))
    return out


def solver_ratio(disputed: list[Disputed]) -> tuple[float, float, int]:
    positions = ratio_positions(disputed)
    start = time.perf_counter()
    expected = [ref.solve(*p) for p in positions]
    ref_rate = len(positions) / (time.perf_counter() - start)
    native = Solver(12)
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        for hands, trump, betl, declarer, to_move, trick, leader in positions:
            native.clear()  # from scratch, like the reference
            native.solve(hands, -1 if trump is None else trump, betl, declarer, to_move, trick,
                         -1 if leader is None else leader)
    native_rate = rounds * len(positions) / (time.perf_counter() - start)
    got = [solver.solve(*p) for p in positions]
    mismatches = sum(1 for a, b in zip(got, expected, strict=True) if a != b)
    return native_rate, ref_rate, mismatches


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="trump hands")
    parser.add_argument("--sans", type=int, default=50, help="sans hands")
    parser.add_argument("--quick", action="store_true", help="30 trump and 10 sans hands")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slow", type=float, default=1.0, help="list hands slower than this many seconds")
    args = parser.parse_args()
    trump_count, sans_count = (30, 10) if args.quick else (args.hands, args.sans)
    disputed = list(trump_hands(trump_count)) + list(sans_hands(sans_count))
    times: dict[str, list[float]] = {"trump": [], "sans": []}
    verdicts: Counter[str] = Counter()
    layouts = consistency = compared = decisions = most = 0
    solver.clear_tables()
    for game, n, fallen, strain in disputed:
        start = time.perf_counter()
        verdict, stats = arbitrate_with_stats(game, n, fallen, threads=args.threads)
        elapsed = time.perf_counter() - start
        times[strain].append(elapsed)
        verdicts[f"{verdict.decision} (step {verdict.step})"] += 1
        layouts += stats.layouts
        most = max(most, stats.layouts)
        consistency += stats.consistency
        compared += stats.compared
        decisions += stats.decisions
        if elapsed > args.slow:
            print(f"  slow: game {game.number} hand {n} ({strain}) {elapsed:.2f} s, {stats}")
    every = times["trump"] + times["sans"]
    print(f"{len(every)} disputed hands ({len(times['trump'])} trump, {len(times['sans'])} sans), "
          f"{args.threads} threads:")
    for name, values in (("all", every), ("trump", times["trump"]), ("sans", times["sans"])):
        if values:
            print(f"  {name:5}  p50 {percentile(values, 0.5):.3f} s  p95 {percentile(values, 0.95):.3f} s  "
                  f"max {max(values):.3f} s  mean {statistics.fmean(values):.3f} s")
    met = percentile(every, 0.95) < 0.5 and max(every) < 3
    print(f"  target: p95 < 0.5 s, max < 3 s -> {'met' if met else 'NOT met'}")
    print(f"layouts examined: {decisions} cards judged over layouts, {layouts} layouts enumerated, "
          f"{consistency} consistency searches, {compared} layouts compared; per hand: mean "
          f"{layouts / len(every):.0f}, max {most} layouts")
    print("verdicts: " + ", ".join(f"{k}: {v}" for k, v in sorted(verdicts.items())))
    native_rate, ref_rate, mismatches = solver_ratio(disputed)
    print(f"solver on the same positions (5-card endings of these hands): native {native_rate:.0f}/s, "
          f"reference {ref_rate:.1f}/s, ratio {native_rate / ref_rate:.0f}x, {mismatches} mismatches")


if __name__ == "__main__":
    main()
