"""`sudija gameserver-check URL [--game N] [--nick NICK] [--close]`: the conformance check of a game server
(`bot.gameserver.check`): signatures, idempotency and each command; exit status 1 when any check fails. The
shared secret is read from the environment variable named in `[gameserver]` (or `--secret-env`)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from bot.cli._common import club_config, game_number


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gameserver-check",
        help="check that a game server speaks the link protocol v1",
        description="Exercise a game server's /healthz and /v1/commands (see "
        "docs/game-server.md) and report what fails.",
    )
    parser.add_argument("url", help="the game server's base URL, e.g. http://10.0.0.5:8700")
    parser.add_argument("--game", type=game_number, default=1, help="a test table's game number (default 1)")
    parser.add_argument("--nick", default="sudija-check", help="a test member's nickname")
    parser.add_argument("--close", action="store_true", help="also send close_game (it closes the test table)")
    parser.add_argument(
        "--secret-env",
        default=None,
        metavar="NAME",
        help="the environment variable holding the shared secret (default: from the configuration)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.gameserver.check import conformance  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.ports import SystemClock  # noqa: PLC0415 (a sub-command loads only what it runs)

    name = args.secret_env or club_config(args).gameserver.secret_env
    secret = os.environ.get(name)
    if not secret:
        print(f"The shared secret is read from the environment variable {name}, which is empty.", file=sys.stderr)
        return 2
    if not args.url.startswith(("http://", "https://")):
        print(f"The URL must start with http:// or https://, not {args.url!r}.", file=sys.stderr)
        return 2
    checks = asyncio.run(
        conformance(args.url, secret.encode(), SystemClock().now, game=args.game, nick=args.nick, close=args.close)
    )
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = sum(1 for c in checks if not c.ok)
    print(f"{len(checks) - failed} of {len(checks)} checks passed." if failed else f"All {len(checks)} checks passed.")
    return 1 if failed else 0
