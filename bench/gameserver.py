"""Benchmark of the game-server link's events endpoint beside the bot's other work: 50 live tables post their games
(game started, the three players sitting down, then every hand finished, optionally every move) to the bot over
loopback HTTP, each table waiting for each acknowledgement before its next event, as the protocol's per-game order
requires. Prints the events acknowledged per second and the p50/p99 acknowledgement latency, first with the bot
doing nothing else ("alone"), then while an import (`sudija import`'s `Importer`, in a process of its own with its
worker processes, importing files of new games into the same database without a pause) and the Arbitar (the bot's
own pool, one analysis after another of disputed hands of every shape) run beside it ("beside"); on SQLite and,
with ``--database URL`` or ``--postgres``, on PostgreSQL, side by side. Target: ≥ 2,000 events/s with p99 ≤ 50 ms
on 2 cores, beside the import and the Arbitar, on both backends.

The tables run in a separate process; every event is signed, validated (a hand as a file import validates it),
committed and then acknowledged. The bot's CPU time per event is printed too (on a loaded machine the figure to
compare), with what the import and the Arbitar got done meanwhile. ``--played N`` stores each table's game with N
hands before its table posts the rest (a long evening: each new hand is checked against a game of N hands and
more, as the live feed meets a game imported before the link or the 150th hand of a night).

    .venv/bin/python bench/gameserver.py [--tables 50] [--hands 30] [--played 0] [--moves] [--rate 2000]
                                         [--database postgresql://… | --postgres] [--alone-only | --beside-only]

Without --rate every table posts as fast as it is acknowledged (the throughput); with --rate the tables together
offer that many events per second, each at its own jittered pace (the latency at that load).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

from pg import throwaway_postgres
from targets import FEED_P99, FEED_RATE, report

from bot.config import Config
from bot.desk import Desk
from bot.gameserver.feed import LiveFeed
from bot.gameserver.inbound import events_app, serve_events
from bot.gameserver.korekcija import korekcija_of
from bot.gameserver.protocol import encode, signed_headers
from bot.gameserver.reference import hand_moves
from bot.ports import Chats, LoggingGameServer, ManualTimers, SystemClock
from rules.gamelog import Game, GameStatus, format_time, game_to_doc
from rules.generator import generate_game
from storage.database import open_database
from storage.games import GameRow
from storage.postgres import drop_schema, scratch_schema

SECRET = b"bench-secret"
NAMES = ("ana", "marko", "petar", "jelena", "nikola", "milica", "dragan", "sanja", "vesna", "bojan", "zoran", "ivana")
TARGET_RATE = FEED_RATE.bound
TARGET_P99_MS = FEED_P99.bound
Queue = multiprocessing.Queue  # type: ignore[type-arg]


def table_events(game: Game, moves: bool, played: int = 0) -> list[dict[str, object]]:
    """The events a table posts for its game, in order; the first `played` hands are stored already (the feed
    begins on a game in progress, as on a game imported before the link)."""
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
        if i < played:
            continue
        if moves:
            for n, move in enumerate(hand_moves(hand), start=1):
                add("move_played", {"hand": i + 1, "move": n, "player": game.players[move.seat], "what": move.what})
        add("hand_finished", {"hand": hands[i]})
    return docs


def table_games(tables: int, hands: int, played: int, now: datetime) -> list[Game]:
    """Each table's game: `played` hands stored before the run and `hands` the table plays, all ended before
    `now` (a hand lasts at most 5 minutes)."""
    rng = random.Random(2026)
    start = now - timedelta(hours=1, minutes=5 * (played + hands))
    games = []
    for t in range(tables):
        players = tuple(rng.sample(NAMES, 3))
        games.append(
            generate_game(
                random.Random(t),
                3_000_000 + t,
                hands=played + hands,
                players=players,
                start=start + timedelta(seconds=t),
            )
        )
    return games


async def store_played(database: str, games: list[Game], played: int) -> None:
    """Store each table's game with its first `played` hands, in progress (as `sudija import` stores a log)."""
    db = await open_database(database)
    try:
        rows = [
            GameRow.of(replace(game, hands=game.hands[:played], status=GameStatus.IN_PROGRESS, ended_at=None))
            for game in games
        ]
        await db.games.store(rows, datetime.now(UTC))
    finally:
        await db.close()


def load(url: str, games: list[Game], moves: bool, played: int, rate: float, out: Queue) -> None:
    """The child process: build the tables' events, then post them, the tables side by side."""
    import aiohttp  # noqa: PLC0415 (a bench loads what it measures)

    tables = len(games)
    all_events = [[encode(doc) for doc in table_events(game, moves, played)] for game in games]
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


async def serve(database: str, port_queue: Queue, beside: bool, analyses: Synchronized[int]) -> None:
    db = await open_database(database)
    clock = SystemClock()
    desk = Desk(db, Chats([]), LoggingGameServer(), clock, Config(), ManualTimers())
    feed = LiveFeed(desk)
    korekcija_of(desk).attach(feed)  # as the link wires it: the moves lapse the korekcija requests still open
    runner = await serve_events(events_app(feed, SECRET, clock.now), "127.0.0.1", 0)
    arbitar = asyncio.get_running_loop().create_task(analyse(desk, analyses)) if beside else None
    port_queue.put(int(runner.addresses[0][1]))
    try:
        await asyncio.Event().wait()
    finally:
        if arbitar is not None:
            arbitar.cancel()
        await runner.cleanup()
        await db.close()


async def analyse(desk: Desk, done: Synchronized[int]) -> None:
    """The Arbitar beside the feed: the bot's pool judging disputed hands of every shape, one after another."""
    from arbitar import search  # noqa: PLC0415 (bench/arbitar.py: only when the Arbitar runs beside)

    from rules.arbitar.procedure import arbitrate  # noqa: PLC0415

    hands = search(40, 7)
    try:
        while True:
            for game, n, fallen, _ in hands:
                await desk.deps.arbitar().run(arbitrate, game, n, fallen)
                with done.get_lock():
                    done.value += 1
    except Exception:  # the run goes on without the Arbitar beside it, and says why
        traceback.print_exc()
        raise
    finally:
        desk.deps.arbitar().shutdown()


def import_beside(database: str, started: Synchronized[int], hands_done: Synchronized[int], stop: Any) -> None:
    """The import beside the feed: files of new games (20 files of about 2,000 hands each a round, as a night's
    logs), imported by `sudija import`'s `Importer` with its worker processes, round after round until told to
    stop."""
    from bot.importer import Importer  # noqa: PLC0415 (the import's process only)

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    module = __import__("import")  # bench/import.py: the import bench's games
    pool = module.pool_lines(40, 11)
    number = 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        round_ = 0
        while not stop.is_set():
            folder = Path(tmp) / f"round-{round_}"
            folder.mkdir()
            for index in range(20):
                lines, hands = [], 0
                while hands < 2000:
                    before, after, count = pool[number % len(pool)]
                    lines.append(f"{before}{number}{after}\n")
                    number += 1
                    hands += count
                (folder / f"night-{index:03d}.jsonl").write_text("".join(lines), encoding="utf-8")
            before = hands_done.value

            def progress(done: int, total: int, hands: int, before: int = before) -> None:
                hands_done.value = before + hands
                started.value = 1

            asyncio.run(Importer(database, progress=progress).run([folder]))
            round_ += 1


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process so far (Linux /proc), 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


@dataclass(frozen=True, slots=True)
class Run:
    events: int
    rate: float
    p50_ms: float
    p99_ms: float
    failures: int
    cpu_ms: float  # the bot's CPU per event
    imported_hands: int
    analyses: int
    seconds: float


def run_once(database: str, args: argparse.Namespace, beside: bool) -> Run:
    games = table_games(args.tables, args.hands, args.played, datetime.now(UTC))
    if args.played:
        asyncio.run(store_played(database, games, args.played))
    context = multiprocessing.get_context("fork")
    ports: Queue = context.Queue()
    analyses: Synchronized[int] = context.Value("i", 0)  # type: ignore[assignment]
    # (not a daemon: the bot's Arbitar pool has worker processes of its own)
    bot = context.Process(target=lambda: asyncio.run(serve(database, ports, beside, analyses)))
    bot.start()
    port = ports.get(timeout=120)
    importer = None
    imported: Synchronized[int] = context.Value("i", 0)  # type: ignore[assignment]
    stop = context.Event()
    if beside:
        started: Synchronized[int] = context.Value("i", 0)  # type: ignore[assignment]
        importer = context.Process(target=import_beside, args=(database, started, imported, stop))
        importer.start()
        while not started.value and importer.is_alive():  # its first file stored: the import is in full swing
            time.sleep(0.2)
    results: Queue = context.Queue()
    tables = context.Process(
        target=load,
        args=(f"http://127.0.0.1:{port}/v1/events", games, args.moves, args.played, args.rate, results),
    )
    cpu_before = _cpu_seconds(bot.pid)
    done_before, imported_before = analyses.value, imported.value
    tables.start()
    latencies, seconds, failures = results.get(timeout=1800)
    tables.join()
    cpu = _cpu_seconds(bot.pid) - cpu_before
    done, hands = analyses.value - done_before, imported.value - imported_before
    stop.set()
    if importer is not None:
        importer.join(600)
    bot.terminate()
    bot.join()
    latencies.sort()
    count = len(latencies)
    return Run(
        count,
        count / seconds,
        statistics.median(latencies) * 1000,
        latencies[min(count - 1, int(count * 0.99))] * 1000,
        failures,
        cpu / count * 1000,
        hands,
        done,
        seconds,
    )


def on_database(name: str, args: argparse.Namespace, url: str | None) -> dict[str, Run]:
    """The runs asked for on one backend, each on a database of its own."""
    out: dict[str, Run] = {}
    for beside in (False, True):
        if (beside and args.alone_only) or (not beside and args.beside_only):
            continue
        label = f"{name} {'beside' if beside else 'alone'}"
        with contextlib.ExitStack() as stack:
            if url is None:
                tmp = stack.enter_context(tempfile.TemporaryDirectory(dir=args.dir))
                database = str(Path(tmp) / "bench.db")
            else:
                schema = f"sudija_bench_gs_{os.getpid()}_{int(beside)}"
                database = asyncio.run(scratch_schema(url, schema))
                stack.callback(lambda schema=schema: asyncio.run(drop_schema(url, schema)))
            out[label] = run = run_once(database, args, beside)
        extra = f"; meanwhile {run.imported_hands:,} hands imported, {run.analyses} analyses" if beside else ""
        print(
            f"{label}: {run.events} events in {run.seconds:.2f} s: {run.rate:,.0f}/s, p50 {run.p50_ms:.1f} ms,"
            f" p99 {run.p99_ms:.1f} ms, the bot's CPU {run.cpu_ms:.3f} ms per event, {run.failures} refused{extra}",
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=30, help="hands per table's game (default 30)")
    parser.add_argument("--moves", action="store_true", help="also post every move (move_played)")
    parser.add_argument(
        "--played",
        type=int,
        default=0,
        help="hands each game has stored before its table posts (a long evening: each hand checked against them)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        metavar="EVENTS_PER_S",
        help="offer this many events per second in all (default 0: as fast as acknowledged)",
    )
    parser.add_argument("--dir", default=None, help="where the SQLite databases go (default: the temp directory)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", metavar="URL", help="also on this PostgreSQL database (throwaway schemas)")
    where.add_argument("--postgres", action="store_true", help="also on a throwaway PostgreSQL server")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--alone-only", action="store_true", help="only with nothing beside the feed")
    only.add_argument("--beside-only", action="store_true", help="only beside the import and the Arbitar")
    args = parser.parse_args()
    runs = on_database("SQLite", args, None)
    if args.database:
        runs |= on_database("PostgreSQL", args, args.database)
    elif args.postgres:
        with throwaway_postgres() as url:
            if url is None:
                print("PostgreSQL is not installed: SQLite only", file=sys.stderr)
            else:
                runs |= on_database("PostgreSQL", args, url)
    offered = f"offered {args.rate:,.0f}/s" if args.rate else "as fast as acknowledged"
    print(
        f"\n{args.tables} tables, {'with' if args.moves else 'without'} moves, {offered}"
        + (f", each game {args.played} hands in" if args.played else "")
        + f" (target beside the import and the Arbitar: ≥ {TARGET_RATE:,}/s, p99 ≤ {TARGET_P99_MS} ms)"
    )
    print("                       events/s   p50 ms   p99 ms   bot CPU ms/event   target")
    met = True
    for label, run in runs.items():
        kept_up = run.rate >= TARGET_RATE and (not args.rate or run.rate >= 0.98 * args.rate)
        ok = run.failures == 0 and kept_up and run.p99_ms <= TARGET_P99_MS
        met &= ok or "alone" in label
        print(
            f"  {label:19} {run.rate:10,.0f} {run.p50_ms:8.1f} {run.p99_ms:8.1f} {run.cpu_ms:18.3f}   "
            f"{'met' if ok else 'NOT met'}"
        )
    shape = f"{args.tables} tables{', moves' if args.moves else ''}" + (
        f", {args.played} hands in" if args.played else ""
    )
    for label, run in runs.items():
        backend, where = label.split(" ", 1)
        near = [o for o in runs if o != label and (o.startswith(backend) or o.endswith(where))]  # one differs
        peer = "; ".join(f"{o} {runs[o].rate:,.0f}/s, p99 {runs[o].p99_ms:.1f} ms" for o in near)
        report(f"live feed {where}, {backend}, {shape}, events/s", run.rate, FEED_RATE, peer=peer)
        report(f"live feed {where}, {backend}, {shape}, p99", run.p99_ms, FEED_P99)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    failures = sum(run.failures for run in runs.values())
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
