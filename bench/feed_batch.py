"""Benchmark of the live feed's batch transaction alone (`LiveFeedStore.take_many`, no HTTP, no checking): each
batch holds one move of each table, as the feed takes them when every table has posted its next move, and the
games grow by a move a batch. Prints the wall time per batch (median and p90: the transaction from BEGIN to
COMMIT, each statement a round trip on PostgreSQL, the commit synced), the statements a batch sends and this
process's CPU per event, on SQLite and, with ``--database URL`` or ``--postgres``, on PostgreSQL. What the feed's
own cost per batch is, apart from the HTTP and the checks that `bench/gameserver.py` measures with it.

    .venv/bin/python bench/feed_batch.py [--tables 30] [--batches 300] [--database postgresql://… | --postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from pg import throwaway_postgres
from targets import report

from storage.database import open_database
from storage.gameserver import LiveFeedStore, Taking
from storage.postgres import drop_schema, scratch_schema

NOW = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def batch(tables: int, n: int) -> list[Taking]:
    """The `n`th batch: move `n` of hand 1 at each table (its game's sequence number `n`)."""
    out: list[Taking] = []
    for game in range(1, tables + 1):
        event_id = f"fb-{game}-{n}"
        body = f'{{"v":1,"id":"{event_id}","type":"move_played","game":{game},"seq":{n},"data":{{"hand":1}}}}'
        out.append((event_id, "move_played", game, n, body, LiveFeedStore.move(game, 1, n, "ana", "bid 2", NOW)))
    return out


async def run(target: str, tables: int, batches: int) -> tuple[float, float, int, float]:
    """Median and p90 ms per batch, statements per batch, this process's CPU µs per event."""
    db = await open_database(target)
    try:
        store = LiveFeedStore(db)
        async with db.statements_sent() as sent:
            await store.take_many(batch(tables, 1), NOW)
        statements = len(sent)
        times = []
        cpu = time.process_time()
        for n in range(2, batches + 2):
            began = time.perf_counter()
            await store.take_many(batch(tables, n), NOW)
            times.append(time.perf_counter() - began)
        cpu = time.process_time() - cpu
    finally:
        await db.close()
    times.sort()
    return (
        statistics.median(times) * 1000,
        times[int(len(times) * 0.9)] * 1000,
        statements,
        cpu / (batches * tables) * 1e6,
    )


def shown(name: str, args: argparse.Namespace, figures: tuple[float, float, int, float]) -> None:
    median, p90, statements, cpu = figures
    shape = f"{args.tables} tables, {args.batches} batches"
    print(
        f"{name}: median {median:.2f} ms, p90 {p90:.2f} ms per batch; {statements} statements a batch;"
        f" this process's CPU {cpu:.1f} µs per event",
        flush=True,
    )
    report(f"feed batch, {name}, {shape}, median", median, None, unit="ms", peer=f"p90 {p90:.2f} ms")
    report(f"feed batch, {name}, {shape}, statements", statements, None, unit="statements")


async def on_postgres(url: str, args: argparse.Namespace) -> tuple[float, float, int, float]:
    schema = f"sudija_bench_fb_{os.getpid()}"
    target = await scratch_schema(url, schema)
    try:
        return await run(target, args.tables, args.batches)
    finally:
        await drop_schema(url, schema)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30, help="events a batch (one move of each table)")
    parser.add_argument("--batches", type=int, default=300)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", metavar="URL", help="also on this PostgreSQL database (a throwaway schema)")
    where.add_argument("--postgres", action="store_true", help="also on a throwaway PostgreSQL server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shown("SQLite", args, asyncio.run(run(str(Path(tmp) / "bench.db"), args.tables, args.batches)))
    if args.database:
        shown("PostgreSQL", args, asyncio.run(on_postgres(args.database, args)))
    elif args.postgres:
        with throwaway_postgres() as url:
            if url is None:
                print("PostgreSQL is not installed: SQLite only", file=sys.stderr)
            else:
                shown("PostgreSQL", args, asyncio.run(on_postgres(url, args)))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
