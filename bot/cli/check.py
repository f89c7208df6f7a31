"""`sudija check`: connect to every platform configured (a token set) and report what is wrong with the club's
setup there — channels and groups, their kind, the bot's permissions and rights, roles, intents, the owner's
accounts — and what to change where. Exit status 0 when nothing is fatal, 1 otherwise. `sudija run` runs the
same checks at start and refuses to start on a fatal finding.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from bot.cli._common import club_config
from bot.config import Config, check_owner
from bot.setup import Report


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check the club's setup on Discord and Telegram (channels, roles, permissions)",
        description="Connect to each configured platform and report every setting the bot cannot work with: "
        "what is wrong and what to change where. Changes nothing.",
    )
    parser.set_defaults(func=run)


async def check_all(config: Config) -> Report:
    report = Report()
    if config.discord.token is not None:
        from bot.discord.check import check_discord  # noqa: PLC0415 (a sub-command loads only what it runs)

        report.add("discord", await check_discord(config))
    if config.telegram.token is not None:
        from bot.telegram.check import check_telegram  # noqa: PLC0415 (a sub-command loads only what it runs)

        report.add("telegram", await check_telegram(config))
    return report


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    platforms = [
        name
        for name, settings in (("discord", config.discord), ("telegram", config.telegram))
        if settings.token is not None
    ]
    if platforms:
        check_owner(config, platforms)
    report = asyncio.run(check_all(config))
    print(report.text(), file=sys.stdout)
    return 1 if report.fatal else 0
