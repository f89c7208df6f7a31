"""Benchmark of the whole import: decode + parse + validate + store of N generated hands, in hands per second.

A pool of games is generated (`rules.generator.generate_game`, played until the paper ends them, as a club night
would) and re-numbered until the files hold about N hands; the files (JSON Lines, optionally gzipped) are
imported through the real import path (`bot.importer.Importer`, what ``sudija import`` runs) into a fresh
database. The target on the 2-core build machine is 20,000 hands/s (a million hands in under a minute).

    .venv/bin/python bench/import.py --hands 200000 [--files 10] [--jobs N] [--gzip] [--pool 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from targets import IMPORT_RATE
from targets import report as figure

from bot.importer import Importer
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

TARGET = IMPORT_RATE.bound
_MARK = 987654321987  # a game number no generated game has: where each copy's number goes


def pool_lines(size: int, seed: int) -> list[tuple[str, str, int]]:
    """`size` generated games as (text before the number, text after it, hand count) of their JSON line."""
    rng = random.Random(seed)
    out = []
    for _ in range(size):
        status = rng.choices(list(GameStatus), weights=(1, 8, 1))[0]
        game = generate_game(rng, _MARK, hands=None, bule=rng.choice((40, 60, 60, 80)), status=status)
        text = json.dumps(game_to_doc(game), separators=(",", ":"), ensure_ascii=False)
        before, after = text.split(str(_MARK), 1)
        out.append((before, after, len(game.hands)))
    return out


def write_files(folder: Path, pool: list[tuple[str, str, int]], hands: int, files: int, gz: bool) -> tuple[int, int]:
    """Files of re-numbered copies of the pool holding about `hands` hands; (games, hands) written."""
    per_file = hands / files
    written_games = written_hands = 0
    number = 1_000_000
    for index in range(files):
        lines = []
        file_hands = 0
        while file_hands < per_file and written_hands < hands:
            before, after, count = pool[number % len(pool)]
            lines.append(f"{before}{number}{after}\n")
            number += 1
            file_hands += count
            written_hands += count
            written_games += 1
        data = "".join(lines).encode("utf-8")
        name = f"night-{index:03d}.jsonl"
        if gz:
            (folder / (name + ".gz")).write_bytes(gzip.compress(data, 6))
        else:
            (folder / name).write_bytes(data)
    return written_games, written_hands


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


async def count(db_path: str) -> tuple[int, int]:
    db = await open_database(db_path)
    try:
        return await db.games.count()
    finally:
        await db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--pool", type=int, default=60, help="distinct generated games to re-number")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per CPU)")
    parser.add_argument("--gzip", action="store_true", help="write .jsonl.gz files")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    started = time.perf_counter()
    pool = pool_lines(args.pool, args.seed)
    print(
        f"pool: {len(pool)} games, {sum(p[2] for p in pool)} hands, generated in {time.perf_counter() - started:.1f} s"
    )
    with tempfile.TemporaryDirectory(prefix="sudija-bench-") as tmp:
        folder = Path(tmp) / "logs"
        folder.mkdir()
        games, hands = write_files(folder, pool, args.hands, args.files, args.gzip)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(
            f"files: {args.files} {'.jsonl.gz' if args.gzip else '.jsonl'}, {games:,} games, {hands:,} hands, "
            f"{size / 2**20:.1f} MiB"
        )
        db_path = str(Path(tmp) / "bench.db")
        importer = Importer(db_path, jobs=args.jobs)
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        report = asyncio.run(importer.run([folder]))
        seconds = time.perf_counter() - started
        main_cpu = _cpu(resource.getrusage(resource.RUSAGE_SELF)) - _cpu(self_before)
        workers_cpu = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - _cpu(children_before)
        stored = asyncio.run(count(db_path))
        db_size = sum(p.stat().st_size for p in Path(tmp).glob("bench.db*"))
    if report.exit_status != 0 or stored != (games, hands):
        print("the import did not store everything:", *report.messages()[:10], *report.summary(), sep="\n")
        return 1
    rate = hands / seconds
    print(
        f"import: {seconds:.2f} s; {rate:,.0f} hands/s, {games / seconds:,.0f} games/s; "
        f"{rate / TARGET:.2f}× the {TARGET:,} hands/s target; database {db_size / 2**20:.1f} MiB"
    )
    print(
        f"cpu: main process {main_cpu:.2f} s ({main_cpu / hands * 1e6:.0f} µs/hand), workers {workers_cpu:.2f} s "
        f"({workers_cpu / hands * 1e6:.0f} µs/hand)"
    )
    figure(f"import, {hands:,} hands in {args.files} files", rate, IMPORT_RATE, peer=f"{games / seconds:,.0f} games/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
