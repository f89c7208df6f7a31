"""Benchmark of the Arbitar's procedure over a fixed, seeded set of disputed hands of every defence shape.

Shapes (`rules.paper_hand.DefenceShape`, and who played whose cards):
- ``both-trump``, ``both-sans``: both defenders followed (trump hands from `generate_game`; sans hands built with
  `make_hand` on deals where one player holds a strong sans hand);
- ``alone``: one follower alone (he played the other's cards too); ``zovem``: the caller and the called player;
- ``kontra-both``: kontra with both defenders playing their own cards; ``kontra-passer``: kontra with a partner
  who passed (the kontra giver played both hands); ``zovem-kontra``: zovem, then kontra by the caller (the called
  player plays his own cards);
- ``betl-kontra``: betl with kontra (the only betl where a defender can fall: the kontra giver, when the
  declarer passes);
- ``slowest``: the 20 hands with the most work among a seeded search over 5,000 further random disputed hands of
  every shape (the work estimated without judging: the layouts seen for every card that lost a trick in the real
  layout, as the procedure enumerates them).

Every hand is judged once, for the first defender who fell (seat order), with empty tables at the start.

Prints p50, p95 and max seconds per hand per shape and overall (targets on this 2-core machine: p95 <= 0.5 s,
max <= 3 s), the layouts counted (the layouts enumerated for the judged cards, the consistency searches, the
layouts compared), the verdict mix (decision and step), per shape and overall, and a sha256 of the verdicts'
JSON per shape and over all hands (a change of the solver must leave them as they are; a change of the procedure
shows which shapes it touched).

Run: ``.venv/bin/python bench/arbitar.py`` (``--quick`` for a short run: fewer hands, a search over 500).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator

from rules.arbitar import solver
from rules.arbitar.layouts import played_hand, view
from rules.arbitar.procedure import arbitrate_with_stats, better_alternatives, real_values
from rules.cards import cards_of
from rules.gamelog import Decision, Game, Hand, Strain
from rules.generator import (
    best_discards,
    betl_estimate,
    generate_game,
    make_game,
    make_hand,
    sans_estimate,
    trump_estimate,
)
from rules.paper_hand import DefenceShape, HandCase, hand_facts

Disputed = tuple[Game, int, int, str]  # game, hand number, fallen seat, shape name
# (zovem-kontra last: each shape's hands come from a seed counted by its place here, so the others keep theirs)
SHAPES = ("both-trump", "both-sans", "alone", "zovem", "kontra-both", "kontra-passer", "betl-kontra", "zovem-kontra")
COUNTS = {
    "both-trump": 90,
    "both-sans": 50,
    "alone": 30,
    "zovem": 30,
    "kontra-both": 40,
    "kontra-passer": 30,
    "zovem-kontra": 30,
    "betl-kontra": 40,
}


def _fallen(hand: Hand) -> int | None:
    facts = hand_facts(hand)
    if facts.case is not HandCase.PLAYED:
        return None
    fallen = [seat for seat in facts.plain.fallen if seat != hand.declarer]
    return fallen[0] if fallen else None


def shape_of(hand: Hand) -> str | None:
    """The bench's shape name of a played hand."""
    score = hand_facts(hand).plain
    shape = score.shape
    if shape is DefenceShape.BOTH:
        return "both-sans" if hand.contract is not None and hand.contract.strain is Strain.SANS else "both-trump"
    if shape is DefenceShape.ALONE:
        return "alone"
    if shape is DefenceShape.ZOVEM:
        return "zovem"
    if shape is DefenceShape.KONTRA:
        if Decision.CALLS in hand.defense.values():
            return "zovem-kontra"
        passed = any(hand.defense.get(s, Decision.PASSES) is Decision.PASSES for s in range(3) if s != hand.declarer)
        return "kontra-passer" if passed else "kontra-both"
    if shape is DefenceShape.BETL:
        return "betl-kontra" if hand.kontra else None
    return None


def generated(seed: int) -> Iterator[Disputed]:
    """Disputed hands of generated games (mostly both following, alone and zovem), in a fixed order."""
    while True:
        game = generate_game(random.Random(seed), seed + 1, hands=30)
        seed += 1
        for hand in game.hands:
            fallen = _fallen(hand)
            shape = shape_of(hand) if fallen is not None else None
            if fallen is not None and shape is not None:
                yield game, hand.n, fallen, shape


def _deal(rng: random.Random) -> tuple[list[int], int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << c for c in deck[k * 10 : (k + 1) * 10]) for k in range(3)], (1 << deck[30]) | (1 << deck[31])


def _text(mask: int) -> str:
    return " ".join(str(c) for c in cards_of(mask))


def built(shape: str, seed: int) -> Iterator[Disputed]:
    """Disputed hands of one of the built shapes (sans, kontra, zovem with kontra, betl with kontra), played by the
    heuristic."""
    rng = random.Random(seed)
    number = 1
    while True:
        masks, talon = _deal(rng)
        play_rng = random.Random(rng.randrange(1 << 30))
        kontra: tuple[int, ...]
        if shape == "both-sans":
            declarer = max(range(3), key=lambda s: sans_estimate(masks[s] | talon))
            if sans_estimate(masks[declarer] | talon) < 6.5:
                continue
            contract, level, bid, defense, kontra = "sans", 7, "7", "follows follows", ()
        elif shape == "betl-kontra":
            declarer = max(range(3), key=lambda s: betl_estimate(masks[s] | talon))
            if betl_estimate(masks[declarer] | talon) < 6.5:
                continue
            giver = (declarer + 1 + rng.randrange(2)) % 3
            contract, level, bid, defense, kontra = "betl", 6, "6", "follows follows", (giver,)
        else:
            best = max(
                ((s, t) for s in range(3) for t in range(4)), key=lambda st: trump_estimate(masks[st[0]] | talon, st[1])
            )
            declarer, trump = best
            if trump_estimate(masks[declarer] | talon, trump) < 6.0:
                continue
            contract = ("pik", "herc", "karo", "tref")[trump]
            level = 2 + trump
            bid = str(level)
            giver = (declarer + 1 + rng.randrange(2)) % 3
            first = giver == (declarer + 1) % 3
            if shape == "kontra-both":
                defense = "follows follows"
            elif shape == "zovem-kontra":
                defense = "calls passes" if first else "passes calls"
            else:
                defense = "follows passes" if first else "passes follows"
            kontra = (giver,)
        discards = best_discards(masks[declarer] | talon, level)
        deal = [_text(m) for m in (*masks, talon)]
        try:
            hand = make_hand(
                deal,
                dealer=(declarer + 2) % 3,
                bids=f"{bid} dalje dalje",
                contract=contract,
                discards=_text(discards),
                defense=defense,
                kontra=kontra,
                rng=play_rng,
                noise=0.05,
                stop=rng.random() < 0.5,
                n=1,
            )
        except ValueError:
            continue
        fallen = _fallen(hand)
        if fallen is None or shape_of(hand) != shape:
            continue
        yield make_game([hand], number=10_000 + number), 1, fallen, shape
        number += 1


def source(shape: str, seed: int) -> Iterator[Disputed]:
    if shape in ("both-trump", "alone", "zovem"):
        return (d for d in generated(seed) if d[3] == shape)
    return built(shape, seed)


def take(iterator: Iterator[Disputed], count: int) -> list[Disputed]:
    out = []
    for item in iterator:
        out.append(item)
        if len(out) == count:
            break
    return out


def work(disputed: Disputed) -> int:
    """The layouts the procedure would enumerate for the cards that lost a trick in the real layout."""
    game, n, _, _ = disputed
    hand = next(h for h in game.hands if h.n == n)
    score = hand_facts(hand).plain
    if score.shape is DefenceShape.ALONE or shape_of(hand) == "kontra-passer":
        return 0
    played = played_hand(hand)
    total = 0
    for moment in played.moments:
        if moment.seat == played.declarer:
            continue
        if better_alternatives(played, moment, real_values(played, moment)):
            total += view(moment, played.declarer, played.kept).size
    return total


def slowest(count: int, searched: int, seed: int) -> list[Disputed]:
    """The ``count`` hands with the most work among ``searched`` random disputed hands of every shape."""
    rng = random.Random(seed)
    streams: dict[str, Iterator[Disputed]] = {shape: source(shape, seed + k) for k, shape in enumerate(SHAPES)}
    weights = [COUNTS[s] for s in SHAPES]
    scored: list[tuple[int, int, Disputed]] = []
    for k in range(searched):
        shape = rng.choices(SHAPES, weights)[0]
        disputed = next(streams[shape])
        scored.append((work(disputed), -k, disputed))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [(game, n, fallen, "slowest") for _, _, (game, n, fallen, _) in scored[:count]]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def row(name: str, values: list[float]) -> str:
    return (
        f"  {name:13} {len(values):4d}  p50 {percentile(values, 0.5):6.3f} s  p95 {percentile(values, 0.95):6.3f} s"
        f"  max {max(values):6.3f} s  mean {statistics.fmean(values):6.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the hands, a search over 500")
    parser.add_argument("--search", type=int, default=None, help="random disputed hands searched (default 5000)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slow", type=float, default=1.0, help="list hands slower than this many seconds")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    scale = 5 if args.quick else 1
    searched = args.search if args.search is not None else (500 if args.quick else 5000)
    start = time.perf_counter()
    disputed: list[Disputed] = []
    for k, shape in enumerate(SHAPES):
        disputed += take(source(shape, 1000 * args.seed + k), -(-COUNTS[shape] // scale))
    disputed += slowest(20, searched, 1000 * args.seed + 100)
    print(
        f"{len(disputed)} disputed hands built and the slowest searched among {searched} in "
        f"{time.perf_counter() - start:.0f} s; judging with {args.threads} threads"
    )
    times: dict[str, list[float]] = {}
    hashes: dict[str, hashlib._Hash] = {}
    every_hash = hashlib.sha256()
    verdicts: dict[str, Counter[str]] = {}
    counted: Counter[str] = Counter()
    solver.clear_tables()
    for game, n, fallen, shape in disputed:
        begin = time.perf_counter()
        verdict, stats = arbitrate_with_stats(game, n, fallen, threads=args.threads)
        elapsed = time.perf_counter() - begin
        times.setdefault(shape, []).append(elapsed)
        text = json.dumps(verdict.to_json(game.players), sort_keys=True, ensure_ascii=False).encode()
        hashes.setdefault(shape, hashlib.sha256()).update(text)
        every_hash.update(text)
        verdicts.setdefault(shape, Counter())[f"{verdict.decision} (step {verdict.step})"] += 1
        counted.update(
            {
                "cards judged": stats.decisions,
                "layouts": stats.layouts,
                "consistency searches": stats.consistency,
                "layouts compared": stats.compared,
            }
        )
        counted["most layouts in a hand"] = max(counted["most layouts in a hand"], stats.layouts)
        if elapsed > args.slow:
            print(f"  slow: game {game.number} hand {n} ({shape}) {elapsed:.2f} s, {stats}")
    every = [t for values in times.values() for t in values]
    print(f"seconds per disputed hand, {args.threads} threads:")
    for shape in (*SHAPES, "slowest"):
        if shape in times:
            print(row(shape, times[shape]))
    print(row("all", every))
    met = percentile(every, 0.95) <= 0.5 and max(every) <= 3
    print(f"  target: p95 <= 0.5 s, max <= 3 s -> {'met' if met else 'NOT met'}")
    print(
        "layouts counted: "
        + ", ".join(f"{k} {v}" for k, v in counted.items())
        + f"; per hand: mean {counted['layouts'] / len(every):.0f}"
    )
    total: Counter[str] = Counter()
    for shape in (*SHAPES, "slowest"):
        if shape in verdicts:
            total.update(verdicts[shape])
            print(f"  verdicts {shape:13} " + ", ".join(f"{k}: {v}" for k, v in sorted(verdicts[shape].items())))
    print("verdicts, all: " + ", ".join(f"{k}: {v}" for k, v in sorted(total.items())))
    print(
        "verdict sha256: "
        + ", ".join(f"{shape} {hashes[shape].hexdigest()[:16]}" for shape in (*SHAPES, "slowest") if shape in hashes)
        + f"; all {every_hash.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
