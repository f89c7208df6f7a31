"""`sudija console [--db FILE] [--demo]`: the console club on this terminal, or a script read from standard input.

With ``--demo`` the database defaults to ``sudija-demo.db`` and, when it is empty, the demo club is created in
it; without, the console runs over the configured database (or ``--db``). See docs/console.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from bot.cli._common import DEMO_DATABASE, club_config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("console")
    parser.add_argument("--db", default=None, metavar="FILE")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--read-only", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.console.runner import run_console  # noqa: PLC0415 (a sub-command loads only what it runs)

    config = club_config(args)
    db_path = args.db or (DEMO_DATABASE if args.demo else config.database)
    return asyncio.run(
        run_console(config, db_path, args.demo, sys.stdin, sys.stdout, sys.stderr, read_only=args.read_only)
    )
