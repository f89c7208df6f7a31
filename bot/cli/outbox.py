"""`sudija outbox [--failed | --pending] [--db FILE] [--limit N]`: the commands to the game server, newest first —
what is waiting (with its tries and the last error), what was sent, and what the game server refused (a 4xx
answer, kept for an officer to see). With `--chat`, the chat outbox (`bot.chat_outbox`): the chat effects of the
desk's decisions, waiting, delivered, or failed for good with the error. The words are in ``--lang`` (default the
club's ``[club] language``); states, kinds, payloads and times (UTC) are shown as stored."""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import datetime
from typing import Any

from bot.cli._common import (
    add_db_option,
    add_lang_option,
    club_config,
    database_path,
    existing_database,
    operator_words,
)
from bot.messages import Catalogue
from rules.gamelog import format_time
from storage.chat_outbox import Effect
from storage.outbox import Command
from storage.states import OutboxState


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "outbox",
        help="list the commands to the game server (waiting, sent, refused)",
        description="List the outbox of commands to the game server, newest first.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true", help="only the commands the game server refused")
    which.add_argument("--pending", action="store_true", help="only the commands still waiting to be sent")
    parser.add_argument("--chat", action="store_true", help="the chat effects (call notices, trial spaces, …)")
    add_db_option(parser)
    parser.add_argument("--limit", type=int, default=100, metavar="N", help="at most N commands (default 100)")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    db_path = database_path(args)
    words = operator_words(args)
    state = "failed" if args.failed else "pending" if args.pending else None
    if args.chat:
        effects, told = asyncio.run(_chat_listing(db_path, words, state, max(1, args.limit), config.club_id))
        print(
            words.t(
                "cli.outbox.chat_summary",
                pending=told.get("pending", 0),
                delivered=told.get("sent", 0),
                failed=told.get("failed", 0),
            )
        )
        for effect in effects:
            print(chat_line(effect, words))
        return 0
    commands, counts = asyncio.run(_listing(db_path, words, state, max(1, args.limit), config.club_id))
    print(
        words.t(
            "cli.outbox.summary",
            pending=counts.get("pending", 0),
            sent=counts.get("sent", 0),
            failed=counts.get("failed", 0),
        )
    )
    for command in commands:
        print(line(command, words))
    return 0


def line(command: Command, words: Catalogue) -> str:
    """One command: its id, time (UTC, as stored), state, kind and payload (the JSON as sent), tries, error."""
    data = json.dumps({k: v for k, v in command.payload.items() if k != "paper"}, ensure_ascii=False)
    text = f"#{command.id} {format_time(command.created_at)} {command.state:7} {command.kind} {data} " + words.t(
        "cli.outbox.tries", tries=command.attempts, extra=""
    )
    return text + _tail(
        command.state is OutboxState.PENDING and bool(command.attempts), command.next_at, command.last_error, words
    )


def _tail(waiting: bool, next_at: datetime | None, error: str | None, words: Catalogue) -> str:
    """What a row still waiting shows of its next try, and any row of its last error."""
    text = words.t("cli.outbox.next_try", at=format_time(next_at)) if waiting and next_at is not None else ""
    return text + (f" — {error}" if error else "")


async def _listing(
    db_path: str, words: Catalogue, state: str | None, limit: int, club: str
) -> tuple[list[Command], dict[str, int]]:
    from storage.outbox import OutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, words, club) as db:
        store = OutboxStore(db)
        return await store.listing(OutboxState(state) if state else None, limit), await store.counts()


def chat_line(effect: Effect, words: Catalogue) -> str:
    """One chat effect: as `line`, with each platform's delivery state."""
    parts = ", ".join(f"{platform} {state}" for platform, state in sorted(effect.deliveries.items()))
    data = json.dumps({k: v for k, v in effect.payload.items() if k != "buttons"}, ensure_ascii=False)
    text = (
        f"#{effect.id} {format_time(effect.created_at)} {effect.state:7} {effect.queue} {effect.kind} {data[:200]} "
        + words.t("cli.outbox.tries", tries=effect.attempts, extra="; " + parts if parts else "")
    )
    return text + _tail(effect.state is OutboxState.PENDING, effect.next_at, effect.last_error, words)


async def _chat_listing(
    db_path: str, words: Catalogue, state: str | None, limit: int, club: str
) -> tuple[list[Effect], dict[str, int]]:
    from storage.chat_outbox import ChatOutboxStore  # noqa: PLC0415 (only what the sub-command runs)

    async with existing_database(db_path, words, club) as db:
        store = ChatOutboxStore(db)
        return await store.listing(OutboxState(state) if state else None, limit), await store.counts()
