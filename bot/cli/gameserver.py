"""`sudija gameserver --demo [--db FILE] [--interval SECONDS] [--steps N]`: the reference game server
(`bot.gameserver.reference`) beside the console club, linked over loopback with a secret made for the session,
so one terminal shows the whole loop: a live table posts its players sitting down and every move, the console's
members call a referee from the table, the table is paused and resumed, and the server prints what it was told.

The table plays a generated game of three demo members, one move every `--interval` seconds (`--steps N` first
plays N steps at once, before the console reads its first line).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import socket
import sys
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.cli._common import club_config, number, whole_number
from bot.tasks import cancelled

DEMO_PLAYERS = ("bojan", "zoran", "milica")
DEMO_GAME = 1900001


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("gameserver")
    parser.add_argument("--demo", action="store_true", required=True)
    parser.add_argument("--db", default=None, metavar="FILE")
    parser.add_argument("--interval", type=number, default=5.0, metavar="SECONDS")
    parser.add_argument("--steps", type=whole_number, default=0, metavar="N")
    parser.set_defaults(func=run)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(args: argparse.Namespace) -> int:
    from bot.cli._common import DEMO_DATABASE  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.config import GameServerConfig  # noqa: PLC0415 (a sub-command loads only what it runs)

    base = club_config(args)
    secret = secrets.token_hex(16)
    env = "SUDIJA_DEMO_GAMESERVER_SECRET"
    os.environ[env] = secret
    server_port, bot_port = _free_port(), _free_port()
    config = replace(
        base,
        gameserver=GameServerConfig(
            url=f"http://127.0.0.1:{server_port}", host="127.0.0.1", port=bot_port, secret_env=env
        ),
    )
    return asyncio.run(
        _run(
            config,
            args.db or DEMO_DATABASE,
            secret.encode(),
            server_port,
            bot_port,
            max(0.05, args.interval),
            max(0, args.steps),
        )
    )


async def _run(
    config: Any, db_path: str, secret: bytes, server_port: int, bot_port: int, interval: float, steps: int
) -> int:
    from aiohttp import web  # noqa: PLC0415 (a sub-command loads only what it runs)

    from bot.app import App  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.console.runner import run_console  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.gameserver.reference import ReferenceGameServer  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.ports import SystemClock  # noqa: PLC0415 (a sub-command loads only what it runs)
    from rules.generator import generate_game  # noqa: PLC0415 (a sub-command loads only what it runs)

    clock = SystemClock()

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    server = ReferenceGameServer(f"http://127.0.0.1:{bot_port}", secret, clock.now, name="demo", say=say)
    runner = web.AppRunner(server.app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", server_port).start()
    playing: list[asyncio.Task[None]] = []

    async def ready(app: App) -> None:
        number = DEMO_GAME
        while await app.db.games.get(number) is not None and number in server.tables:
            number += 1
        if await app.db.games.get(number) is not None:
            number = DEMO_GAME + random.randrange(1, 10_000)
        game = generate_game(
            random.Random(number), number, hands=8, players=DEMO_PLAYERS, start=clock.now() - timedelta(minutes=30)
        )
        table = server.add_table(game)
        say(f"[server] table {number}: {', '.join(DEMO_PLAYERS)}")
        for _ in range(steps):
            await table.step()

        async def play() -> None:
            while True:
                await asyncio.sleep(interval)
                if not await table.step() and table.finished:
                    return

        playing.append(asyncio.get_running_loop().create_task(play()))

    try:
        return await run_console(config, db_path, True, sys.stdin, sys.stdout, sys.stderr, ready=ready)
    finally:
        for task in playing:
            await cancelled(task)
        await server.close()
        await runner.cleanup()
