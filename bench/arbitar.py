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
- ``search``: 2,000 further seeded random disputed hands of every shape (``--search``), each judged and timed;
- ``slowest``: the 20 hands of the search that took longest, by the time measured there (``--rank``: the CPU
  time by default, which the machine's load does not inflate; or the wall time), judged again.

The built shapes deal the first hand (who leads trick 1) at random around the declarer, so that every shape has
hands where a defender's opening lead is judged: his view holds all 184,756 layouts of the 20 cards he cannot
see, the largest the procedure meets. Every hand is judged once (the slowest twice), for the first defender who
fell (seat order), with empty tables at the start of the run.

The solver's tables are sized as the bot sizes them in one of its Arbitar workers (``--workers`` sharing
``--memory-mb``, the bot's defaults: `bot.arbitar_pool`).

Prints p50, p95 and max seconds per hand per shape, for the search, the slowest and all hands (the shapes and
the search; targets on a quiet 2-core machine: p95 <= 0.3 s, max <= 2 s, the slowest included), in wall time
and in CPU time (both threads; on a quiet machine the wall time of a hand lies between its CPU time halved and
its CPU time, so on a loaded one the CPU figures are the ones to compare), per shape the
hands where a defender led trick 1 and the largest view judged, the layouts counted (the layouts enumerated for
the judged cards, the consistency searches, the layouts compared), the peak memory of the process and the
solver's tables, the verdict mix (decision and step), and a sha256 of the verdicts' JSON per shape and over all
hands (a change of the solver must leave them as they are; a change of the procedure shows which shapes it
touched).

Run: ``.venv/bin/python bench/arbitar.py`` (``--quick`` for a short run: a fifth of the hands, a search of 200).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from targets import ARBITAR_MAX, ARBITAR_P95, ARBITAR_TABLES_MB, report

from bot.arbitar_pool import (
    DEFAULT_MEMORY_MB,
    WORKER_OWN_MB,
    check_budget,
    default_workers,
    size_tables,
    table_budget,
)
from rules.arbitar import _dds, solver
from rules.arbitar.layouts import played_hand
from rules.arbitar.procedure import Stats, arbitrate_with_stats
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
SLOWEST = 20
OPENING_VIEW = 184_756  # C(20, 10): a defender on lead at trick 1 sees none of the other 20 cards
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
        # igra (no talon: the defenders see none of the declarer's cards) now and then
        igra = rng.random() < 0.25
        bought = 0 if igra else talon
        kontra: tuple[int, ...]
        if shape == "both-sans":
            declarer = max(range(3), key=lambda s: sans_estimate(masks[s] | bought))
            if sans_estimate(masks[declarer] | bought) < 6.5:
                continue
            contract, level, bid, defense, kontra = "sans", 7, "7", "follows follows", ()
        elif shape == "betl-kontra":
            declarer = max(range(3), key=lambda s: betl_estimate(masks[s] | bought))
            if betl_estimate(masks[declarer] | bought) < 6.5:
                continue
            giver = (declarer + 1 + rng.randrange(2)) % 3
            contract, level, bid, defense, kontra = "betl", 6, "6", "follows follows", (giver,)
        else:
            best = max(
                ((s, t) for s in range(3) for t in range(4)),
                key=lambda st: trump_estimate(masks[st[0]] | bought, st[1]),
            )
            declarer, trump = best
            if trump_estimate(masks[declarer] | bought, trump) < 6.0:
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
        discards = None if igra else _text(best_discards(masks[declarer] | talon, level))
        if igra:
            contract, bid = f"igra {contract}", "igra"
        deal = [_text(m) for m in (*masks, talon)]
        # the first hand (who speaks first and leads trick 1): the declarer, or either defender
        place = rng.randrange(3)
        try:
            hand = make_hand(
                deal,
                dealer=(declarer + 2 - place) % 3,
                bids=" ".join(["dalje"] * place + [bid] + ["dalje"] * (2 - place)),
                contract=contract,
                discards=discards,
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


def search(count: int, seed: int) -> list[Disputed]:
    """``count`` random disputed hands of every shape (drawn in the proportions of `COUNTS`), in a fixed order."""
    rng = random.Random(seed)
    streams: dict[str, Iterator[Disputed]] = {shape: source(shape, seed + k) for k, shape in enumerate(SHAPES)}
    weights = [COUNTS[s] for s in SHAPES]
    return [next(streams[rng.choices(SHAPES, weights)[0]]) for _ in range(count)]


@dataclass(frozen=True)
class Judged:
    """One hand judged: its time, its verdict's JSON, what the procedure examined."""

    disputed: Disputed
    seconds: float
    cpu: float
    verdict: bytes
    decision: str
    stats: Stats
    defender_led: bool


def judge(disputed: Disputed, threads: int) -> Judged:
    game, n, fallen, _ = disputed
    begin, cpu = time.perf_counter(), time.process_time()
    verdict, stats = arbitrate_with_stats(game, n, fallen, threads=threads)
    seconds, cpu = time.perf_counter() - begin, time.process_time() - cpu
    text = json.dumps(verdict.to_json(game.players), sort_keys=True, ensure_ascii=False).encode()
    played = played_hand(next(h for h in game.hands if h.n == n))
    decision = f"{verdict.decision} (step {verdict.step})"
    return Judged(disputed, seconds, cpu, text, decision, stats, played.leader != played.declarer)


def pick_slowest(judged: list[Judged], rank: str, count: int = SLOWEST) -> list[Judged]:
    """The `count` hands of the search that took longest as measured when they were judged (their CPU time, or
    their wall time), slowest first: what the procedure did, not an estimate of its work."""
    found = [j for j in judged if j.disputed[3] == "search"]
    return sorted(found, key=lambda j: -(j.cpu if rank == "cpu" else j.seconds))[:count]


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
    parser.add_argument("--quick", action="store_true", help="a fifth of the hands, a search of 200")
    parser.add_argument("--search", type=int, default=None, help="random disputed hands searched (default 2000)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slow", type=float, default=1.0, help="list hands slower than this many seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rank", choices=("cpu", "wall"), default="cpu", help="how the slowest are picked")
    parser.add_argument("--workers", type=int, default=default_workers(), help="the bot's Arbitar workers")
    parser.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB, help="their memory budget in all")
    args = parser.parse_args()
    short = check_budget(args.workers, args.memory_mb)
    if short is not None:
        parser.error(f"--memory-mb: {short}")
    size_tables(table_budget(args.workers, args.memory_mb))
    plan = solver.current_plan()
    scale = 5 if args.quick else 1
    searched = args.search if args.search is not None else (200 if args.quick else 2000)
    start = time.perf_counter()
    disputed: list[Disputed] = []
    for k, shape in enumerate(SHAPES):
        disputed += take(source(shape, 1000 * args.seed + k), -(-COUNTS[shape] // scale))
    disputed += [(game, n, fallen, "search") for game, n, fallen, _ in search(searched, 1000 * args.seed + 100)]
    print(
        f"{len(disputed)} disputed hands built ({searched} of them the search) in "
        f"{time.perf_counter() - start:.0f} s; judging with {args.threads} threads; the tables of one of "
        f"{args.workers} workers sharing {args.memory_mb} MB: {plan.layout_tables} layout tables of "
        f"2**{plan.layout_bits} entries and the solve tables, {plan.table_bytes / 2**20:.0f} MB at most"
    )
    solver.clear_tables()
    judged: list[Judged] = []
    for item in disputed:
        judged.append(judge(item, args.threads))
        if judged[-1].seconds > args.slow:
            game, n, _, shape = item
            print(f"  slow: game {game.number} hand {n} ({shape}) {judged[-1].seconds:.2f} s, {judged[-1].stats}")
    slowest = pick_slowest(judged, args.rank)
    again = [judge(j.disputed, args.threads) for j in slowest]
    groups: dict[str, list[Judged]] = {}
    for j in judged:
        groups.setdefault(j.disputed[3], []).append(j)
    groups["slowest"] = again
    every = [j.seconds for j in judged]
    for clock in ("wall", "cpu"):
        print(f"seconds per disputed hand, {clock} time, {args.threads} threads:")
        for name, group in groups.items():
            print(row(name, [j.seconds if clock == "wall" else j.cpu for j in group]))
        print(row("all", [j.seconds if clock == "wall" else j.cpu for j in judged]))
    print(
        f"  the slowest of the search by {args.rank} time, as measured there (wall/cpu s): "
        + ", ".join(f"{j.seconds:.2f}/{j.cpu:.2f}" for j in slowest)
    )
    p95, top = percentile(every, 0.95), max(every + [j.seconds for j in again])
    met = ARBITAR_P95.met(p95) and ARBITAR_MAX.met(top)
    print(
        f"  target (wall): p95 {ARBITAR_P95.text()}, max {ARBITAR_MAX.text()} -> p95 {p95:.3f} s, max {top:.3f} s: "
        f"{'met' if met else 'NOT met'} (machine load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    print("opening leads (a defender led trick 1) and the largest view judged, per shape:")
    for name, group in groups.items():
        led = sum(j.defender_led for j in group)
        largest = max(j.stats.largest for j in group)
        opening = sum(j.stats.largest == OPENING_VIEW for j in group)
        print(
            f"  {name:13} defender led {led:4d} of {len(group):4d}; largest view {largest:7,d} layouts; "
            f"a {OPENING_VIEW:,}-layout view judged in {opening}"
        )
    counted: Counter[str] = Counter()
    for j in judged:
        counted.update(
            {
                "cards judged": j.stats.decisions,
                "layouts": j.stats.layouts,
                "consistency searches": j.stats.consistency,
                "layouts compared": j.stats.compared,
            }
        )
        counted["most layouts in a hand"] = max(counted["most layouts in a hand"], j.stats.layouts)
    print(
        "layouts counted: "
        + ", ".join(f"{k} {v}" for k, v in counted.items())
        + f"; per hand: mean {counted['layouts'] / len(every):.0f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    held, limit = _dds.table_memory()
    print(
        f"memory: the solver's tables {held / 2**20:.0f} MB at the end (their limit {limit / 2**20:.0f} MB); "
        f"the peak of this process {peak:.0f} MiB (with every hand of the bench held, unlike a worker)"
    )
    cpus = [j.cpu for j in judged]
    size = f"{len(judged)} hands, {args.threads} threads"
    report(f"Arbitar p95 per disputed hand, wall, {size}", p95, ARBITAR_P95, peer=f"CPU {percentile(cpus, 0.95):.3f} s")
    slowest_cpu = max(cpus + [j.cpu for j in again])
    report(
        f"Arbitar max per disputed hand, wall, {size} (the slowest again)",
        top,
        ARBITAR_MAX,
        peer=f"CPU {slowest_cpu:.3f} s",
    )
    report(
        f"Arbitar tables per bot, {args.workers} workers sharing {args.memory_mb} MB",
        args.workers * held / 2**20,
        ARBITAR_TABLES_MB,
        peer=f"each worker's limit {limit / 2**20:.0f} MB besides its own {WORKER_OWN_MB} MB",
    )
    total: Counter[str] = Counter()
    for name, group in groups.items():
        mix = Counter(j.decision for j in group)
        if name != "slowest":
            total.update(mix)
        print(f"  verdicts {name:13} " + ", ".join(f"{k}: {v}" for k, v in sorted(mix.items())))
    print("verdicts, all: " + ", ".join(f"{k}: {v}" for k, v in sorted(total.items())))
    same = all(a.verdict == j.verdict for a, j in zip(again, slowest, strict=True))
    print(f"the slowest judged again give the same verdicts: {'yes' if same else 'NO'}")
    every_hash = hashlib.sha256()
    hashes = []
    for name, group in groups.items():
        digest = hashlib.sha256()
        for j in group:
            digest.update(j.verdict)
            if name != "slowest":
                every_hash.update(j.verdict)
        hashes.append(f"{name} {digest.hexdigest()[:16]}")
    print("verdict sha256: " + ", ".join(hashes) + f"; all {every_hash.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
