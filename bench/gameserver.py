"""Benchmark of the game-server link's events endpoint: 50 live tables post their games (game started, the three
players sitting down, then every hand finished, optionally every move) to the bot over loopback HTTP, each table
waiting for each acknowledgement before its next event, as the protocol's per-game order requires. Prints the
events acknowledged per second and the p50/p99 acknowledgement latency (target: ≥ 1,000 events/s, p99 ≤ 20 ms
on 2 cores). The tables run in a separate process, so the bot's event loop has a core of its own; every event is
signed, validated (a hand as a file import validates it), committed to SQLite and then acknowledged.

    .venv/bin/python bench/gameserver.py [--tables 50] [--hands 30] [--moves] [--rate 1000]

Without --rate every table posts as fast as it is acknowledged (the throughput); with --rate the tables together
offer that many events per second, each at its own jittered pace (the latency at that load).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import Config
from bot.desk import Desk
from bot.gameserver.feed import LiveFeed
from bot.gameserver.inbound import events_app, serve_events
from bot.gameserver.protocol import encode, signed_headers
from bot.gameserver.reference import hand_moves
from bot.ports import Chats, LoggingGameServer, ManualTimers, SystemClock
from rules.gamelog import Game, format_time, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

SECRET = b"bench-secret"
NAMES = ("ana", "marko", "petar", "jelena", "nikola", "milica", "dragan", "sanja", "vesna", "bojan", "zoran", "ivana")


def table_events(game: Game, moves: bool) -> list[dict[str, object]]:
    """The events a table posts for its game, in order."""
    docs: list[dict[str, object]] = []

    def add(kind: str, data: dict[str, object]) -> None:
        seq = len(docs) + 1
        docs.append(
            {"v": 1, "id": f"b-{game.number}-{seq}", "type": kind, "game": game.number, "seq": seq, "data": data}
        )

    add(
        "game_started",
        {
            "rated": game.rated,
            "ai": game.ai,
            "bule": game.bule,
            "refe_limit": game.refe_limit,
            "players": list(game.players),
            "started_at": format_time(game.started_at),
        },
    )
    for nick in game.players:
        add("player_sat", {"nick": nick})
    hands = game_to_doc(game)["hands"]
    for i, hand in enumerate(game.hands):
        if moves:
            for n, move in enumerate(hand_moves(hand), start=1):
                add("move_played", {"hand": i + 1, "move": n, "player": game.players[move.seat], "what": move.what})
        add("hand_finished", {"hand": hands[i]})
    return docs


def load(url: str, tables: int, hands: int, moves: bool, rate: float, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """The child process: build the tables' events, then post them, 50 tables side by side."""
    import aiohttp  # noqa: PLC0415 (a bench loads what it measures)

    rng = random.Random(2026)
    start = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
    all_events = []
    for t in range(tables):
        players = tuple(rng.sample(NAMES, 3))
        game = generate_game(
            random.Random(t), 3_000_000 + t, hands=hands, players=players, start=start + timedelta(seconds=t)
        )
        all_events.append([encode(doc) for doc in table_events(game, moves)])
    clock = SystemClock()

    async def run() -> tuple[list[float], float, int]:
        latencies: list[float] = []
        failures = 0
        connector = aiohttp.TCPConnector(limit=tables)
        async with aiohttp.ClientSession(connector=connector) as session:
            # Each table paces itself so that all end together and the tables offer `rate` events/s in all.
            duration = sum(len(bodies) for bodies in all_events) / rate if rate else 0.0

            async def table(index: int, bodies: list[bytes]) -> None:
                nonlocal failures
                pace = random.Random(index)
                gap = duration / len(bodies)
                start = time.perf_counter() + pace.uniform(0, gap)
                for k, body in enumerate(bodies):
                    if gap:  # on a fixed schedule (jittered), so a slow answer does not lower the offered load
                        await asyncio.sleep(
                            max(0.0, start + (k + pace.uniform(-0.25, 0.25)) * gap - time.perf_counter())
                        )
                    began = time.perf_counter()
                    async with session.post(url, data=body, headers=signed_headers(SECRET, body, clock.now())) as r:
                        await r.read()
                        if r.status != 200:
                            failures += 1
                    latencies.append(time.perf_counter() - began)

            began = time.perf_counter()
            await asyncio.gather(*(table(i, bodies) for i, bodies in enumerate(all_events)))
            return latencies, time.perf_counter() - began, failures

    out.put(asyncio.run(run()))


async def serve(directory: Path, port_queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    db = await open_database(directory / "bench.db")
    clock = SystemClock()
    desk = Desk(db, Chats([]), LoggingGameServer(), clock, Config(), ManualTimers())
    runner = await serve_events(events_app(LiveFeed(desk), SECRET, clock.now), "127.0.0.1", 0)
    sockets = runner.addresses
    port_queue.put(int(sockets[0][1]))
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        await db.close()


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process so far (Linux /proc), 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=30, help="hands per table's game (default 30)")
    parser.add_argument("--moves", action="store_true", help="also post every move (move_played)")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        metavar="EVENTS_PER_S",
        help="offer this many events per second in all (default 0: as fast as acknowledged)",
    )
    parser.add_argument("--dir", default=None, help="where the bench's database goes (default: the temp directory)")
    args = parser.parse_args()
    context = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        ports: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
        bot = context.Process(target=lambda: asyncio.run(serve(Path(directory), ports)), daemon=True)
        bot.start()
        port = ports.get(timeout=60)
        results: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
        tables = context.Process(
            target=load,
            args=(f"http://127.0.0.1:{port}/v1/events", args.tables, args.hands, args.moves, args.rate, results),
        )
        cpu_before = _cpu_seconds(bot.pid)
        tables.start()
        latencies, seconds, failures = results.get(timeout=1800)
        tables.join()
        cpu = _cpu_seconds(bot.pid) - cpu_before
        bot.terminate()
        bot.join()
    latencies.sort()
    count = len(latencies)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(count - 1, int(count * 0.99))] * 1000
    rate = count / seconds
    offered = f"offered {args.rate:,.0f}/s" if args.rate else "as fast as acknowledged"
    print(
        f"gameserver: {args.tables} tables, {count} events ({'with' if args.moves else 'without'} moves, "
        f"{offered}) in "
        f"{seconds:.2f} s: {rate:,.0f} events/s acknowledged; ack latency p50 {p50:.2f} ms, p99 {p99:.2f} ms; "
        f"{failures} refused"
    )
    if cpu > 0:
        print(
            f"the bot's process used {cpu:.2f} s of CPU: {cpu / count * 1000:.2f} ms per event, i.e. "
            f"{count / cpu:,.0f} events per CPU-second (load average now {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} cores)"
        )
    if args.rate:  # the latency at an offered load: met when the bot kept up with ≥ 1,000 events/s
        ok = failures == 0 and args.rate >= 1000 and rate >= 0.98 * args.rate and p99 <= 20
        print(f"target (p99 ≤ 20 ms with ≥ 1,000 events/s acknowledged): {'met' if ok else 'NOT met'}")
    else:
        ok = failures == 0 and rate >= 1000
        print(
            f"throughput target (≥ 1,000 events/s acknowledged): {'met' if ok else 'NOT met'}"
            + ("" if p99 <= 20 else f"; p99 {p99:.0f} ms with every table posting flat out (see --rate)")
        )
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
