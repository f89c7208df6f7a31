"""`sudija check`: connect to every platform configured (a token set) and report what is wrong with the club's
setup there — channels and groups, their kind, the bot's permissions and rights, roles, intents, the owner's
accounts — and what to change where. A platform that cannot be reached (no network, DNS, a proxy, the platform
down) is a finding too ("Discord unreachable: …"), never a traceback. Exit status 0 when nothing is fatal, 1 when a
finding is fatal or nothing is configured to check (no token set), 2 for a configuration error (the owner, the
game-server secret: what `sudija run` refuses before it opens anything). `sudija run` runs the same checks at start
and refuses to start on a fatal finding.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable
from typing import Any

from bot.cli._common import club_config, operator_words
from bot.config import Config, check_start
from bot.setup import Finding, Report
from bot.setup.findings import NAMES
from rules.phrases import Phrase


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("check")
    parser.set_defaults(func=run)


def unreachable(platform: str, exc: BaseException) -> Finding:
    """The finding of a platform that could not be reached: what the network said, and where to look."""
    said = str(exc) or type(exc).__name__
    problem = Phrase.of("check.unreachable", platform=NAMES[platform], said=said)
    return Finding(platform, Phrase.of("check.where.connection"), problem, Phrase.of("check.network_fix"))


def network_errors(platform: str) -> tuple[type[BaseException], ...]:
    """What a platform's library raises when it cannot reach its servers (a refused request is the platform's
    check's to explain: a wrong token, a missing chat)."""
    import aiohttp  # noqa: PLC0415 (loaded when the check runs)

    common: tuple[type[BaseException], ...] = (OSError, TimeoutError, aiohttp.ClientError)
    if platform == "discord":
        import discord  # noqa: PLC0415 (loaded when the check runs)

        return (*common, discord.GatewayNotFound, discord.ConnectionClosed, discord.DiscordServerError)
    from telegram.error import NetworkError  # noqa: PLC0415 (loaded when the check runs)

    return (*common, NetworkError)


async def guarded(platform: str, checking: Awaitable[list[Finding]]) -> list[Finding]:
    """A platform's findings, or the one finding that it could not be reached."""
    try:
        return await checking
    except network_errors(platform) as exc:
        if platform == "telegram":
            from telegram.error import BadRequest  # noqa: PLC0415 (loaded when the check runs)

            if isinstance(exc, BadRequest):  # python-telegram-bot files Telegram's refusals under NetworkError
                raise
        return [unreachable(platform, exc)]


async def check_all(config: Config) -> Report:
    report = Report()
    if config.discord.token is not None:
        from bot.discord.check import check_discord  # noqa: PLC0415 (a sub-command loads only what it runs)

        report.add("discord", await guarded("discord", check_discord(config)))
    if config.telegram.token is not None:
        from bot.telegram.check import check_telegram  # noqa: PLC0415 (a sub-command loads only what it runs)

        report.add("telegram", await guarded("telegram", check_telegram(config)))
    return report


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    check_start(config, config.platforms)  # the owner and the game-server secret: ConfigError, exit 2
    words = operator_words(args)
    report = asyncio.run(check_all(config))
    print(report.text(words), file=sys.stdout)
    if not report.checked:
        tokens = {"discord": config.discord.token_env, "telegram": config.telegram.token_env}
        print(words.t("check.no_token", **tokens), file=sys.stderr)
        return 1
    return 1 if report.fatal else 0
