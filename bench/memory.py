"""Benchmark of memory: the resident size of the idle bot as a club runs it — `sudija run` with its adapters —
over a database of 100,000 stored games and a Discord guild of 10,000 members (budget: `targets.IDLE_MEMORY_MIB`).

A pool of generated games (played until the paper ends them) is re-numbered into N games; their rows (canonical
log compressed, digest, columns) are prepared in worker processes and stored through `GameStore.store` in big
batches. Then ``sudija run --config FILE`` is started over that database with Discord and Telegram configured:
the fake servers of tests/fakes run in this process on loopback (no network), the Discord one with a guild of
``--members`` members (every one in the bot's member cache: the members intent, as the bot asks for it) and the
Telegram one with the club's and the referees' groups. The only difference from a club's own start is where
discord.py connects (its REST base and gateway address point at the fake; Telegram's is `base_url`). Once the bot
has its guild, the members delivered to it are counted and its VmRSS is read from /proc/PID/status when it has
settled. ``--console`` measures the console club (``python -m bot console``) instead, the earlier figure. The
database's size on disk is printed too.

    .venv/bin/python bench/memory.py [--games 100000] [--members 10000] [--pool 40] [--db FILE (kept, reused)]
                                     [--console]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import hashlib
import importlib.util
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from targets import IDLE_MEMORY_MIB, report

from rules.gamelog import Game, GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database
from storage.games import GameRow

ROOT = Path(__file__).resolve().parent.parent
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


_SUDIJA_RUN = """
import sys

import discord.gateway
import discord.http
import yarl

discord.http.Route.BASE = sys.argv[1]  # the fake Discord on loopback: the bot's only difference from a club's
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
from bot.cli import main

sys.exit(main(["run", "--config", sys.argv[3]]))
"""


class Fakes:
    """The fake Discord (a guild of `members` members, the referees' role and channels) and the fake Telegram (the
    club's and the referees' groups), served on loopback by a thread of this process, with the members delivered
    to the bot counted: GUILD_CREATE carries those with a role (the guild is large), the rest come in chunks of at
    most 1,000 (as Discord sends them), each member counted once."""

    def __init__(self, members: int) -> None:
        self.members = members
        self.ids: set[str] = set()  # the members sent to the bot (GUILD_CREATE and the chunks overlap)
        self.delivered = 0  # how many: len(ids)
        self.chunks: list[int] = []  # the members of each GUILD_MEMBERS_CHUNK, in order
        self.setup: dict[str, Any] = {}
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="fakes", daemon=True)
        self._failed: BaseException | None = None

    def __enter__(self) -> Fakes:
        self._thread.start()
        self._ready.wait(300)
        if self._failed is not None:
            raise RuntimeError("the fake servers did not start") from self._failed
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as exc:  # noqa: BLE001 (told to the waiting thread)
            self._failed = exc
            self._ready.set()

    async def _serve(self) -> None:
        sys.path.insert(0, str(ROOT / "tests"))
        from fakes.discord_server import FakeDiscord, Perm  # noqa: PLC0415 (a bench loads what it measures)
        from fakes.telegram_server import FakeTelegram  # noqa: PLC0415

        self._stop = asyncio.Event()
        async with FakeDiscord() as discord, FakeTelegram() as telegram:
            referee = discord.add_role("Sudija")
            # As a club sets the bot up (`sudija check`): Manage Roles, its role above the ones it writes.
            discord.bot_role.permissions |= Perm.MANAGE_ROLES
            discord.bot_role.position = max(r.position for r in discord.roles.values()) + 1
            owner = discord.add_member("vesna")
            for i in range(self.members - len(discord.members)):  # the guild's members, the bot's own counted
                discord.add_member(f"clan{i:05d}", roles=[referee.id] if i < 50 else [], status="offline")
            referees = discord.add_text_channel("sudije", private_to=[referee.id])
            trials = discord.add_text_channel("sudjenja")
            send = discord._send_dispatch

            async def counted(session: Any, event: str, data: Any) -> bool:
                if event in ("GUILD_CREATE", "GUILD_MEMBERS_CHUNK") and isinstance(data, dict):
                    self.ids.update(m["user"]["id"] for m in data.get("members") or ())
                    self.delivered = len(self.ids)
                    if event == "GUILD_MEMBERS_CHUNK":
                        self.chunks.append(len(data["members"]))
                return await send(session, event, data)

            discord._send_dispatch = counted  # type: ignore[method-assign]
            self.setup = {
                "api": discord.api_base,
                "gateway": discord.gateway_url,
                "discord_token": discord.token,
                "guild": discord.guild_id,
                "referees": referees.id,
                "trials": trials.id,
                "role": referee.id,
                "owner": owner.id,
                "telegram_url": telegram.base_url,
                "telegram_token": telegram.token,
                "club_group": telegram.group("Klub").id,
                "referees_group": telegram.group("Sudije").id,
            }
            self._ready.set()
            await self._stop.wait()


def club_config(path: Path, db_path: str, setup: dict[str, Any]) -> None:
    """The club's configuration file: both platforms, the owner, the fake Telegram's address."""
    path.write_text(
        f"""[club]
database = "{db_path}"
owner = "vesna"
owner_accounts = ["discord:{setup["owner"]}"]

[discord]
token_env = "BENCH_DISCORD_TOKEN"
guild_id = {setup["guild"]}
referees_channel_id = {setup["referees"]}
trials_channel_id = {setup["trials"]}

[discord.roles]
referee = {setup["role"]}

[telegram]
token_env = "BENCH_TELEGRAM_TOKEN"
club_group_id = {setup["club_group"]}
referees_group_id = {setup["referees_group"]}
base_url = "{setup["telegram_url"]}"
""",
        encoding="utf-8",
    )


def measure_run(db_path: str, members: int) -> tuple[int, int, str]:
    """Start `sudija run` with both adapters over `db_path` and a guild of `members`; (settled VmRSS KiB, VmHWM
    KiB, how it was started)."""
    with Fakes(members) as fakes, tempfile.TemporaryDirectory() as cwd:
        setup = fakes.setup
        config = Path(cwd) / "config.toml"
        club_config(config, db_path, setup)
        env = os.environ | {
            "BENCH_DISCORD_TOKEN": setup["discord_token"],
            "BENCH_TELEGRAM_TOKEN": setup["telegram_token"],
            "NO_PROXY": "127.0.0.1",
            "PYTHONPATH": str(ROOT),
        }
        log = Path(cwd) / "bot.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-c", _SUDIJA_RUN, setup["api"], setup["gateway"], str(config)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=env,
            )
            try:
                deadline = time.monotonic() + 300
                while fakes.delivered < members and process.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.5)
                if fakes.delivered < members:
                    tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                    raise RuntimeError(f"the bot did not get its guild's {members:,} members:\n{tail}")
                samples: list[int] = []
                deadline = time.monotonic() + 60
                with contextlib.suppress(RuntimeError):  # the process ended meanwhile: said below
                    while time.monotonic() < deadline:
                        time.sleep(0.5)
                        samples.append(rss_kib(process.pid))
                        if len(samples) >= 10 and max(samples[-10:]) - min(samples[-10:]) <= 64:
                            break
                if process.poll() is not None or not samples:
                    tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                    raise RuntimeError(f"sudija run stopped:\n{tail}")
                how = (
                    f"sudija run: Discord (a guild of {members:,} members, {fakes.delivered:,} delivered to its "
                    f"cache, {len(fakes.chunks)} chunks of at most {max(fakes.chunks, default=0):,}) and Telegram, "
                    "on loopback fakes"
                )
                return samples[-1], rss_kib(process.pid, "VmHWM"), how
            finally:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--pool", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, help="database file to build (kept; reused when it holds enough)")
    parser.add_argument("--members", type=int, default=10_000, help="members of the Discord guild")
    parser.add_argument("--console", action="store_true", help="measure the console club instead of sudija run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sudija-memory-") as tmp:
        db_path = args.db or str(Path(tmp) / "club.db")
        games, hands = build(db_path, args.games, args.pool, args.seed)
        size = sum(p.stat().st_size for p in Path(db_path).parent.glob(Path(db_path).name + "*"))
        print(
            f"database: {games:,} games, {hands:,} hands, {size / 2**20:,.0f} MiB on disk "
            f"({size / max(hands, 1):.0f} bytes per hand)"
        )
        rss, peak, how = measure_idle_bot(db_path) if args.console else measure_run(db_path, args.members)
    print(
        f"idle bot ({how}): VmRSS {rss / 1024:.1f} MiB after start-up settled (peak {peak / 1024:.1f} MiB); "
        f"budget {IDLE_MEMORY_MIB.text()}: {'within' if IDLE_MEMORY_MIB.met(rss / 1024) else 'OVER'}"
    )
    where = "the console club" if args.console else f"sudija run, {games:,} games, {args.members:,} members"
    report(f"idle memory (VmRSS), {where}", rss / 1024, IDLE_MEMORY_MIB, peer=f"peak {peak / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
