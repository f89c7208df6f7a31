"""`sudija gameserver-check URL [--listen HOST:PORT] [--events-url URL] [--secret-env NAME]`: the conformance check
of a game server (`bot.gameserver.check`), protocol v1.1, against the test table the game server keeps for it
(never a real one): signatures, JSON answers, every command, idempotency asked of the table's state, and the test
table's events, which it takes as the bot would at `--listen` (the game server posts them to `--events-url`).
Exit status 1 when any check fails, 2 on a usage error. The keys are the bot's (`[gameserver]`: `secret_env`,
`key_id`, `events_secret_env`, `previous_secret_env`), `--secret-env` naming another variable for the secret."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from typing import Any

from bot.cli._common import club_config, number, operator_words
from bot.cli._language import current
from bot.i18n.phrases import phrase_text


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise argparse.ArgumentTypeError(current().t("cli.type.address", value=repr(value)))
    return host, int(port)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("gameserver-check")
    parser.add_argument("url", metavar="URL")
    parser.add_argument("--listen", type=_address, default=("127.0.0.1", 0), metavar="HOST:PORT")
    parser.add_argument("--events-url", default=None, metavar="URL")
    parser.add_argument("--timeout", type=number, default=10.0, metavar="SECONDS")
    parser.add_argument("--secret-env", default=None, metavar="NAME")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.config import ConfigError  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.gameserver.check import conformance  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.gameserver.link import link_keys  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.ports import SystemClock  # noqa: PLC0415 (a sub-command loads only what it runs)

    link = club_config(args).gameserver
    words = operator_words(args)
    if args.secret_env:
        link = replace(link, secret_env=args.secret_env)
    if not args.url.startswith(("http://", "https://")):
        print(words.t("cli.gscheck.url", url=repr(args.url)), file=sys.stderr)
        return 2
    try:
        keys = link_keys(link)
    except ConfigError as problem:
        print(words.t("cli.gscheck.keys", problem=problem), file=sys.stderr)
        return 2
    if not 0 < args.timeout <= 120:
        print(words.t("cli.gscheck.timeout"), file=sys.stderr)
        return 2
    checks = asyncio.run(
        conformance(
            args.url,
            keys,
            SystemClock().now,
            listen=args.listen,
            events_url=args.events_url,
            answer_seconds=args.timeout,
            events_seconds=args.timeout,
            window=link.timestamp_window_seconds,
        )
    )
    for check in checks:
        mark = words.t("cli.gscheck.ok" if check.ok else "cli.gscheck.fail")
        print(f"{mark} {phrase_text(check.name, words.t)}: {phrase_text(check.detail, words.t)}")
    failed = sum(1 for c in checks if not c.ok)
    if failed:
        print(words.t("cli.gscheck.some_failed", passed=len(checks) - failed, total=len(checks)))
    else:
        print(words.t("cli.gscheck.all_passed", total=len(checks)))
    return 1 if failed else 0
