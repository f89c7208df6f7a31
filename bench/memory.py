"""Benchmark of memory: the resident size of the idle bot over a database of 100,000 stored games (budget 150 MB).

A pool of generated games (played until the paper ends them) is re-numbered into N games; their rows (canonical
log compressed, digest, columns) are prepared in worker processes and stored through `GameStore.store` in big
batches. Then the idle bot is started in a subprocess over that database — ``python -m bot console --db FILE``
with a standard input that stays open and silent, or, where that command does not exist, a process that does
what an idle bot does (`bot.app.build_app`, ``desk.start()``, wait) — and its VmRSS is read from
/proc/PID/status once it has settled. The database's size on disk is printed too.

    .venv/bin/python bench/memory.py [--games 100000] [--pool 40] [--db FILE (kept, and reused when full)]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import hashlib
import importlib.util
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rules.gamelog import Game, GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database
from storage.games import GameRow

BUDGET_MB = 150
BATCH = 5_000
_MARK = 987654321987

Template = tuple[str, str, Game]


def make_pool(size: int, seed: int) -> list[Template]:
    """Generated games as (canonical text before the number, after it, the game)."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)
    pool = []
    for index in range(size):
        status = rng.choices(list(GameStatus), weights=(1, 8, 1))[0]
        game = generate_game(
            rng,
            _MARK,
            hands=None,
            bule=rng.choice((40, 60, 60, 80)),
            status=status,
            start=start + timedelta(days=index * 7, hours=rng.randint(0, 5)),
        )
        text = json.dumps(game_to_doc(game), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
        before, after = text.split(f'"game":{_MARK}', 1)
        pool.append((before + '"game":', after, game))
    return pool


_POOL: list[Template] = []


def _rows(numbers: range) -> list[GameRow]:
    rows = []
    for number in numbers:
        before, after, game = _POOL[number % len(_POOL)]
        raw = f"{before}{number}{after}".encode()
        rows.append(
            GameRow.with_log(replace(game, number=number), hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 5), None)
        )
    return rows


async def count(db_path: str) -> tuple[int, int]:
    db = await open_database(db_path)
    try:
        return await db.games.count()
    finally:
        await db.close()


def build(db_path: str, games: int, pool_size: int, seed: int) -> tuple[int, int]:
    """Store games numbered 1…`games` unless the database already holds them; (games, hands) stored."""
    have, hands = asyncio.run(count(db_path))
    if have >= games:
        print(f"database {db_path}: already {have:,} games, {hands:,} hands")
        return have, hands
    started = time.perf_counter()
    _POOL[:] = make_pool(pool_size, seed)
    print(
        f"pool: {len(_POOL)} games, {sum(len(t[2].hands) for t in _POOL):,} hands "
        f"({time.perf_counter() - started:.1f} s)"
    )
    # The workers are forked before the database is opened, and inherit the pool.
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(os.cpu_count() or 2, mp_context=context) as executor:
        executor.submit(os.getpid).result()
        asyncio.run(_store(db_path, executor, have, games))
    return asyncio.run(count(db_path))


async def _store(db_path: str, executor: concurrent.futures.Executor, have: int, games: int) -> None:
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    now = datetime.now(UTC)
    batches = [range(start, min(start + BATCH, games + 1)) for start in range(have + 1, games + 1, BATCH)]
    pending = [loop.run_in_executor(executor, _rows, batch) for batch in batches[:4]]
    db = await open_database(db_path)
    try:
        for index, batch in enumerate(batches):
            rows = await pending[index]
            if index + 4 < len(batches):
                pending.append(loop.run_in_executor(executor, _rows, batches[index + 4]))
            await db.games.store(rows, now)
            print(f"\rstored {batch.stop - 1:,} games ({time.perf_counter() - started:.0f} s)", end="", flush=True)
        print()
    finally:
        await db.close()


_IDLE_BOT = """
import asyncio, sys
from bot.app import build_app
from bot.config import load

async def main():
    app = await build_app(load(None), database=sys.argv[1])
    await app.desk.start()
    print("started", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


def measure_idle_bot(db_path: str) -> tuple[int, int, str]:
    """Start the idle bot over `db_path`; (settled VmRSS KiB, VmHWM KiB, how it was started)."""
    if importlib.util.find_spec("bot.cli.console") is not None:
        command = [sys.executable, "-m", "bot", "console", "--db", db_path]
        how = "python -m bot console --db FILE (standard input open and silent)"
    else:
        command = [sys.executable, "-c", _IDLE_BOT, db_path]
        how = "build_app + desk.start() (no console command)"
    with tempfile.TemporaryDirectory() as cwd:  # no config.toml: the defaults
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()  # the banner: the app is built and starting
            if not first:
                raise RuntimeError(
                    "the bot ended at start: "
                    + (process.stderr.read() if process.stderr else b"").decode(errors="replace")[-2000:]
                )
            samples: list[int] = []
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                time.sleep(0.5)
                samples.append(rss_kib(process.pid))
                if len(samples) >= 6 and max(samples[-6:]) - min(samples[-6:]) <= 64:
                    break
            return samples[-1], rss_kib(process.pid, "VmHWM"), how
        finally:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--pool", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, help="database file to build (kept; reused when it holds enough)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sudija-memory-") as tmp:
        db_path = args.db or str(Path(tmp) / "club.db")
        games, hands = build(db_path, args.games, args.pool, args.seed)
        size = sum(p.stat().st_size for p in Path(db_path).parent.glob(Path(db_path).name + "*"))
        print(
            f"database: {games:,} games, {hands:,} hands, {size / 2**20:,.0f} MiB on disk "
            f"({size / max(hands, 1):.0f} bytes per hand)"
        )
        rss, peak, how = measure_idle_bot(db_path)
    print(
        f"idle bot ({how}): VmRSS {rss / 1024:.1f} MiB after start-up settled (peak {peak / 1024:.1f} MiB); "
        f"budget {BUDGET_MB} MB: {'within' if rss * 1024 <= BUDGET_MB * 10**6 else 'OVER'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
