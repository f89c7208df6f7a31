"""Benchmark of the referee's second opinion: the desk keeps answering while the Arbitar analyses a heavy fall.

Finds the slowest of the first disputed falls of generated games (one `arbitrate` each), opens a trial on that
game, asks `Desk.advice` for it, and while the analysis runs (off the event loop, `asyncio.to_thread`) other
members call referees (`Desk.call`) one after another. Prints the analysis time, how many calls were answered
meanwhile with their p50/p99 latency, and the event loop's worst lag (a 10 ms ticker); then, for contrast, the
loop's worst lag when the same analysis runs on the loop itself.

    .venv/bin/python bench/advice.py [--falls 60] [--callers 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nullchat import NullChat

from bot.config import Config
from bot.desk import Desk
from bot.desk.advice import defender_falls
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from rules.arbitar.procedure import arbitrate
from rules.gamelog import Game
from rules.generator import generate_game
from storage.database import open_database
from storage.games import PreparedGame


def slowest_fall(falls: int) -> tuple[float, Game, int, int]:
    """The slowest to judge of the first `falls` defenders' falls in generated games."""
    found: list[tuple[float, Game, int, int]] = []
    seed = 0
    while len(found) < falls:
        seed += 1
        game = generate_game(random.Random(seed), seed, hands=12)
        for hand in game.hands:
            for seat in defender_falls(hand):
                t0 = time.perf_counter()
                arbitrate(game, hand.n, seat)
                found.append((time.perf_counter() - t0, game, hand.n, seat))
    return max(found[:falls], key=lambda f: f[0])


async def worst_lag(work: asyncio.Future[object] | asyncio.Task[object]) -> float:
    """The event loop's worst delay of a 10 ms sleep while `work` runs."""
    lag = 0.0
    while not work.done():
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        lag = max(lag, time.perf_counter() - t0 - 0.01)
    await work
    return lag


async def main(falls: int, callers: int) -> int:
    now = datetime.now(UTC).replace(microsecond=0)
    seconds, game, hand, seat = slowest_fall(falls)
    print(f"slowest of {falls} falls: game {game.number} hand {hand} seat {seat}, {seconds:.3f} s alone")
    with tempfile.TemporaryDirectory() as tmp:
        db = await open_database(Path(tmp) / "bench.db")
        desk = Desk(db, Chats([NullChat()]), LoggingGameServer(), ManualClock(now), Config(), ManualTimers())
        games = [replace(game, ended_at=now - timedelta(hours=1))]
        template = generate_game(random.Random(1), 1, hands=4, players=("a", "b", "c"), start=now - timedelta(hours=3))
        games += [
            replace(
                template,
                number=10_000 + i,
                players=(f"igrac{i}", f"drugi{i}", f"treci{i}"),
                ended_at=now - timedelta(hours=1),
            )
            for i in range(callers)
        ]
        await db.games.store([PreparedGame.of(g) for g in games], now)
        for nick in game.players:
            await db.members.link("bench", nick, nick, now)
        referee = await db.members.link("bench", "sudija", "sudija", now)
        await db.members.set_role(referee.id, "referee", True, None, now)
        await db.members.set_presence(referee.id, True, now)
        members = [await db.members.link("bench", f"igrac{i}", f"igrac{i}", now) for i in range(callers)]
        caller = await db.members.by_nick(game.players[0])
        assert caller is not None
        assert (await desk.calls.call(caller, game.number)).ok
        pending = await db.calls.pending_for_game(game.number)
        fresh = await db.members.get(referee.id)
        assert pending is not None
        assert fresh is not None
        assert (await desk.trials.take(fresh, pending.id)).ok

        t0 = time.perf_counter()
        advice = asyncio.ensure_future(desk.advisor.advice(fresh, hand))
        lag = asyncio.ensure_future(worst_lag(advice))
        latencies: list[float] = []
        for i, member in enumerate(members):
            if advice.done():
                break
            t1 = time.perf_counter()
            reply = await desk.calls.call(member, 10_000 + i)
            latencies.append((time.perf_counter() - t1) * 1000)
            assert reply.ok, reply.text
        reply = await advice
        took = time.perf_counter() - t0
        assert reply.ok, reply.text
        print(
            f"advice through the desk: {took:.3f} s; meanwhile {len(latencies)} /sudija answered"
            + (
                f", p50 {statistics.median(latencies):.1f} ms, p99 "
                f"{sorted(latencies)[min(len(latencies) - 1, int(0.99 * len(latencies)))]:.1f} ms"
                if latencies
                else " (the analysis ended first: raise --callers or --falls)"
            )
        )
        print(f"worst event-loop lag off the loop: {(await lag) * 1000:.1f} ms")
        await db.close()

    async def on_the_loop() -> None:
        arbitrate(game, hand, seat)

    blocking = asyncio.ensure_future(on_the_loop())
    print(f"worst event-loop lag with the analysis on the loop: {(await worst_lag(blocking)) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--falls", type=int, default=60)
    parser.add_argument("--callers", type=int, default=3000)
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.falls, options.callers)))
