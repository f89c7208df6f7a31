"""Benchmark of the paper as members get it: `/papir` of a 200-hand game with its changes, on the request path
(target: at least 2,000 per second on a quiet 2-core machine).

A request is `Desk.paper(number, viewer)`, as the registry runs `/papir` and as a web page asks: nothing is shared
with the request before it but what the bot keeps (`bot.papers`): the game's paper version read from the database,
then its paper, text and picture as kept for that version. The peer is the same request with nothing kept (a
keeper of no games: the game loaded, the paper computed, its text written and its picture drawn each time, as
before the papers were kept), run alternately with it in the same process. Also printed: the first request after a
change (the game's paper computed and drawn once for the new version), on SQLite and, with ``--database URL`` or
``--postgres``, on PostgreSQL side by side; and the paper's own figures: recomputations of a game already scored
(what a draft's check adds to the kept paper), a cold computation, and `check_change`.

The CPU time per request is this process's (the database thread included; PostgreSQL's server is another
process): on a loaded machine the CPU figures are the ones to compare.

    .venv/bin/python bench/paper.py [--quick] [--database postgresql://… | --postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from nullchat import NullChat
from pg import throwaway_postgres
from targets import PAPER_RATE, report

from bot.config import Config
from bot.desk import Desk
from bot.papers import PaperKeeper
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from rules.gamelog import Game
from rules.generator import generate_game
from rules.paper import ChangeKind, PaperChange, compute_paper
from rules.paper_changes import check_change
from storage.changes import NewPaperChange
from storage.database import open_database
from storage.games import PreparedGame
from storage.postgres import drop_schema, scratch_schema

TARGET = PAPER_RATE.bound
NUMBER = 1847258
WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


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


def the_game(seed: int) -> tuple[Game, list[PaperChange]]:
    """A 200-hand game (big enough that every hand counts) and the changes a few trials wrote on it."""
    game = generate_game(random.Random(seed), NUMBER, hands=200, bule=5000, refe_limit=20)
    paper = compute_paper(game)
    assert paper.scored_hands == 200, paper.scored_hands
    changes: list[PaperChange] = []
    for n in (20, 60, 100, 140, 180):
        candidate = PaperChange(ChangeKind.PROMENA_BULA, n, "sudija", WHEN, "bench", 1, (4, -2, 0))
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
        odlazak = PaperChange(ChangeKind.ODLAZAK_U_BULU, n, "sudija", WHEN, "bench", 2, player=3 - declarer - fallen)
        check_change(game, changes, odlazak)
        changes.append(odlazak)
    return game, changes


@dataclasses.dataclass
class Figures:
    kept_rate: float  # requests per second (median of rounds)
    kept_cpu_ms: float  # CPU per request
    unkept_rate: float
    unkept_cpu_ms: float
    first_ms: float  # the first request after a change (median)

    @property
    def ratio(self) -> float:
        return self.kept_rate / self.unkept_rate


async def _timed(request: Callable[[], Awaitable[object]], seconds: float, least: int) -> tuple[float, float]:
    """(requests per second, CPU ms per request) of `request` run one after another for `seconds`."""
    count = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while count < least or time.perf_counter() - start < seconds:
        await request()
        count += 1
    wall = time.perf_counter() - start
    return count / wall, (time.process_time() - cpu) / count * 1000


async def request_path(database: str | Path, game: Game, changes: list[PaperChange], quick: bool) -> Figures:
    db = await open_database(database)
    try:
        await db.games.store([PreparedGame.of(game)], WHEN)
        for change in changes:
            data = change.data()
            await db.paper_changes.add(NewPaperChange(NUMBER, change.hand, change.kind, data, None, WHEN, change.why))
        desk = Desk(db, Chats([NullChat()]), LoggingGameServer(), ManualClock(WHEN), Config(), ManualTimers())
        viewer = await db.members.link("bench", "clan", "clan", WHEN)
        kept_keeper, unkept_keeper = PaperKeeper(db), PaperKeeper(db, limit=0)

        async def papir() -> None:
            reply = await desk.paper(NUMBER, viewer)
            assert reply.ok, reply.text
            assert reply.pictures, "the paper's picture"

        rounds = 3 if quick else 5
        kept: list[tuple[float, float]] = []
        unkept: list[tuple[float, float]] = []
        for _ in range(rounds):  # alternately, so a machine's load falls on both alike
            desk.deps.papers = kept_keeper
            kept.append(await _timed(papir, 0.3 if quick else 1.0, 20))
            desk.deps.papers = unkept_keeper
            unkept.append(await _timed(papir, 0.3 if quick else 1.0, 3))
        desk.deps.papers = kept_keeper
        first: list[float] = []
        for _ in range(5 if quick else 15):  # a change, then the first /papir of the new version
            change = NewPaperChange(NUMBER, 199, ChangeKind.PROMENA_BULA, {"bule": [2, 0, 0]}, None, WHEN, "x")
            written = await db.paper_changes.add(change)
            start = time.perf_counter()
            await papir()
            first.append((time.perf_counter() - start) * 1000)
            await db.paper_changes.cancel(written, None, WHEN)
            await papir()
        return Figures(
            statistics.median(r for r, _ in kept),
            statistics.median(c for _, c in kept),
            statistics.median(r for r, _ in unkept),
            statistics.median(c for _, c in unkept),
            statistics.median(first),
        )
    finally:
        await db.close()


async def on_postgres(url: str, game: Game, changes: list[PaperChange], quick: bool) -> Figures:
    schema = f"sudija_bench_paper_{os.getpid()}"
    try:
        return await request_path(await scratch_schema(url, schema), game, changes, quick)
    finally:
        await drop_schema(url, schema)


def paper_figures(game: Game, changes: list[PaperChange], quick: bool) -> None:
    seconds, rounds = (0.3, 3) if quick else (1.0, 5)
    warm, warm_best = rate(lambda: compute_paper(game, changes), seconds, rounds)
    cold, cold_best = rate(lambda: compute_paper(dataclasses.replace(game), changes), seconds / 2, rounds)
    extra = PaperChange(ChangeKind.PROMENA_BULA, 199, "sudija", WHEN, "bench", 3, (2, 2, 2))
    checks, checks_best = rate(lambda: check_change(game, changes, extra), seconds, rounds)
    print(f"the paper itself ({len(changes)} changes; median and best of {rounds} rounds):")
    print(f"  recomputed over a game already scored (the kept game): {warm:9,.0f}/s  best {warm_best:,.0f}/s")
    print(f"  computed cold (every hand replayed):                   {cold:9,.0f}/s  best {cold_best:,.0f}/s")
    print(f"  check_change (a draft's check, two recomputations):    {checks:9,.0f}/s  best {checks_best:,.0f}/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter rounds")
    parser.add_argument("--seed", type=int, default=1847258)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", metavar="URL", help="also on this PostgreSQL database (a throwaway schema)")
    where.add_argument("--postgres", action="store_true", help="also on a throwaway PostgreSQL server")
    args = parser.parse_args()
    game, changes = the_game(args.seed)
    figures: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as tmp:
        figures["SQLite"] = asyncio.run(request_path(Path(tmp) / "bench.db", game, changes, args.quick))
    if args.database:
        figures["PostgreSQL"] = asyncio.run(on_postgres(args.database, game, changes, args.quick))
    elif args.postgres:
        with throwaway_postgres() as url:
            if url is None:
                print("PostgreSQL is not installed: SQLite only", file=sys.stderr)
            else:
                figures["PostgreSQL"] = asyncio.run(on_postgres(url, game, changes, args.quick))
    print(
        f"/papir of a 200-hand game with {len(changes)} changes, one request after another (target >= {TARGET:,.0f}/s):"
    )
    print("                 kept: /s    CPU ms   computed each time: /s    CPU ms   ratio   first after a change")
    met = True
    for name, f in figures.items():
        met &= f.kept_rate >= TARGET
        print(
            f"  {name:11} {f.kept_rate:10,.0f} {f.kept_cpu_ms:9.3f}   {f.unkept_rate:20,.1f} {f.unkept_cpu_ms:9.2f}"
            f"  {f.ratio:6.0f}x   {f.first_ms:8.1f} ms"
        )
    print(
        f"target (>= {TARGET:,.0f} /papir per second on each backend): {'met' if met else 'NOT met'}"
        f" (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    for name, f in figures.items():
        others = "; ".join(f"{other} {g.kept_rate:,.0f}/s" for other, g in figures.items() if other != name)
        peer = f"computed each time {f.unkept_rate:,.1f}/s ({f.ratio:,.0f}x)" + (f"; {others}" if others else "")
        report(f"/papir, 200-hand game, request path, {name}", f.kept_rate, PAPER_RATE, peer=peer)
    paper_figures(game, changes, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
