"""`sudija outbox [--failed | --pending] [--db FILE] [--limit N]`: the commands to the game server, newest first —
what is waiting (with its tries and the last error), what was sent, and what the game server refused (a 4xx
answer, kept for an officer to see). With `--chat`, the chat outbox (`bot.chat_outbox`): the chat effects of the
desk's decisions, waiting, delivered, or failed for good with the error."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from bot.cli._common import add_db_option, club_config, database_missing
from rules.gamelog import format_time
from storage.chat_outbox import Effect
from storage.outbox import Command


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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    db_path = args.db or config.database
    if database_missing(db_path):
        print(f"The database {db_path} does not exist.", file=sys.stderr)
        return 1
    state = "failed" if args.failed else "pending" if args.pending else None
    if args.chat:
        effects, told = asyncio.run(_chat_listing(db_path, state, max(1, args.limit)))
        print(
            f"Chat outbox: {told.get('pending', 0)} waiting, {told.get('sent', 0)} delivered, "
            f"{told.get('failed', 0)} failed."
        )
        for effect in effects:
            print(chat_line(effect))
        return 0
    commands, counts = asyncio.run(_listing(db_path, state, max(1, args.limit)))
    print(
        f"Outbox: {counts.get('pending', 0)} waiting, {counts.get('sent', 0)} sent, "
        f"{counts.get('failed', 0)} refused by the game server."
    )
    for command in commands:
        print(line(command))
    return 0


def line(command: Command) -> str:
    data = json.dumps({k: v for k, v in command.payload.items() if k != "paper"}, ensure_ascii=False)
    text = (
        f"#{command.id} {format_time(command.created_at)} {command.state:7} {command.kind} {data} "
        f"({command.attempts} tries)"
    )
    if command.state == "pending" and command.attempts:
        text += f", next try {format_time(command.next_at)}"
    if command.last_error:
        text += f" — {command.last_error}"
    return text


async def _listing(db_path: str, state: str | None, limit: int) -> tuple[list[Command], dict[str, int]]:
    from storage.database import open_database  # noqa: PLC0415 (a sub-command loads only what it runs)
    from storage.outbox import OutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)

    db = await open_database(db_path)
    try:
        store = OutboxStore(db)
        return await store.listing(state, limit), await store.counts()
    finally:
        await db.close()


def chat_line(effect: Effect) -> str:
    parts = ", ".join(f"{platform} {state}" for platform, state in sorted(effect.deliveries.items()))
    data = json.dumps({k: v for k, v in effect.payload.items() if k != "buttons"}, ensure_ascii=False)
    text = (
        f"#{effect.id} {format_time(effect.created_at)} {effect.state:7} {effect.queue} {effect.kind} {data[:200]} "
        f"({effect.attempts} tries{'; ' + parts if parts else ''})"
    )
    if effect.state == "pending" and effect.next_at is not None:
        text += f", next try {format_time(effect.next_at)}"
    if effect.last_error:
        text += f" — {effect.last_error}"
    return text


async def _chat_listing(db_path: str, state: str | None, limit: int) -> tuple[list[Effect], dict[str, int]]:
    from storage.chat_outbox import ChatOutboxStore, EffectState  # noqa: PLC0415 (only what the sub-command runs)
    from storage.database import open_database  # noqa: PLC0415 (a sub-command loads only what it runs)

    db = await open_database(db_path)
    try:
        store = ChatOutboxStore(db)
        return await store.listing(EffectState(state) if state else None, limit), await store.counts()
    finally:
        await db.close()
