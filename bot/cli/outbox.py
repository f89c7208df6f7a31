"""`sudija outbox [--failed | --pending | --dead | --skipped] [--chat] [--db FILE] [--limit N]`: the commands to
the game server, newest first — what is waiting (with its tries, the last error, and what it waits behind), what
was sent, what the game server refused for good (``failed``), what was given up after the configured tries
(``dead``) and what was skipped. With `--chat`, the chat outbox (`bot.chat_outbox`): the chat effects of the
desk's decisions, with each platform's part.

`--retry ID` sends a failed or dead row again (at once, its tries counted afresh); `--skip ID --reason "…"` gives
a waiting, failed or dead row up for good. Both are recorded on the row with who (`--by`, default the operator's
login) and when; a running bot takes a retried row up within a minute (at once on PostgreSQL). The words are in
``--lang`` (default the club's ``[club] language``); states, kinds, payloads and times (UTC) are shown as
stored."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
from datetime import UTC, datetime
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
from storage.outbox import SUPERSEDED_BY, Command
from storage.outbox_engine import OutboxTable, Resolution
from storage.states import OutboxState


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "outbox",
        help="list the commands to the game server and the chat effects; send one again or skip it",
        description="List the outbox of commands to the game server (or, with --chat, of chat effects), newest "
        "first; --retry ID sends a failed or dead row again, --skip ID --reason TEXT gives one up.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true", help="only the rows refused for good")
    which.add_argument("--pending", action="store_true", help="only the rows still waiting to be sent")
    which.add_argument("--dead", action="store_true", help="only the rows given up after the configured tries")
    which.add_argument("--skipped", action="store_true", help="only the rows an operator skipped")
    act = parser.add_mutually_exclusive_group()
    act.add_argument("--retry", type=int, metavar="ID", help="send the failed or dead row ID again")
    act.add_argument("--skip", type=int, metavar="ID", help="give the row ID up for good (with --reason)")
    parser.add_argument("--reason", default=None, metavar="TEXT", help="why (recorded with the row)")
    parser.add_argument("--by", default=None, metavar="NAME", help="who does it (default: your login name)")
    parser.add_argument("--chat", action="store_true", help="the chat effects (call notices, trial spaces, …)")
    add_db_option(parser)
    parser.add_argument("--limit", type=int, default=100, metavar="N", help="at most N rows (default 100)")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    db_path = database_path(args)
    words = operator_words(args)
    if args.retry is not None or args.skip is not None:
        if args.skip is not None and not (args.reason or "").strip():
            print(words.t("cli.outbox.reason_needed"))
            return 2
        said, ok = asyncio.run(_resolve(args, db_path, words, config.club_id))
        print(said)
        return 0 if ok else 1
    state = next((s for s in OutboxState if getattr(args, s.value, False)), None)
    limit = max(1, args.limit)
    if args.chat:
        effects, told = asyncio.run(_chat_listing(db_path, words, state, limit, config.club_id))
        print(
            words.t(
                "cli.outbox.chat_summary",
                pending=told.get("pending", 0),
                delivered=told.get("sent", 0),
                failed=told.get("failed", 0),
            )
        )
        _given_up(told, words)
        for effect in effects:
            print(chat_line(effect, words))
        return 0
    commands, counts, held = asyncio.run(_listing(db_path, words, state, limit, config.club_id))
    print(
        words.t(
            "cli.outbox.summary",
            pending=counts.get("pending", 0),
            sent=counts.get("sent", 0),
            failed=counts.get("failed", 0),
        )
    )
    _given_up(counts, words)
    for command in commands:
        print(line(command, words, held.get(command.id)))
    return 0


def _given_up(counts: dict[str, int], words: Catalogue) -> None:
    if counts.get("dead") or counts.get("skipped"):
        print(words.t("cli.outbox.dead_summary", dead=counts.get("dead", 0), skipped=counts.get("skipped", 0)))


async def _resolve(args: argparse.Namespace, db_path: str, words: Catalogue, club: str) -> tuple[str, bool]:
    """`--retry` or `--skip`: what to say, and whether it was done."""
    from storage.chat_outbox import ChatOutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)
    from storage.outbox import OutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)

    by = (args.by or "").strip() or _login()
    reason = (args.reason or "").strip() or None
    now = datetime.now(UTC)
    async with existing_database(db_path, words, club) as db:
        table: OutboxTable[Any] = ChatOutboxStore(db) if args.chat else OutboxStore(db)
        if args.retry is not None:
            row = args.retry
            before = await table.retry(row, by, now, reason)
            done, refused = before in (OutboxState.FAILED, OutboxState.DEAD), "cli.outbox.not_retried"
            said = words.t("cli.outbox.retried", id=row)
        else:
            row = args.skip
            assert reason is not None
            before = await table.skip(row, by, reason, now)
            done = before in (OutboxState.PENDING, OutboxState.FAILED, OutboxState.DEAD)
            refused, said = "cli.outbox.not_skipped", words.t("cli.outbox.skipped", id=row, by=by, reason=reason)
    if before is None:
        return words.t("cli.outbox.no_row", id=row), False
    if not done:
        return words.t(refused, id=row, state=before.value), False
    return said, True


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name in this environment (a container without a passwd entry)
        return "?"


def line(command: Command, words: Catalogue, behind: int | None = None) -> str:
    """One command: its id, time (UTC, as stored), state, kind and payload (the JSON as sent), tries, error."""
    data = json.dumps({k: v for k, v in command.payload.items() if k != "paper"}, ensure_ascii=False)
    text = f"#{command.id} {format_time(command.created_at)} {command.state:7} {command.kind} {data} " + words.t(
        "cli.outbox.tries", tries=command.attempts, extra=""
    )
    waiting = command.state is OutboxState.PENDING and bool(command.attempts)
    held = words.t("cli.outbox.held", row=behind) if behind is not None else ""
    resolved = _resolution(command.state, command.resolution, words)
    return text + held + resolved + _tail(waiting, command.next_at, command.last_error, words)


def _resolution(state: OutboxState, resolved: Resolution | None, words: Catalogue) -> str:
    """Who last sent a row again or skipped it, when and why (or the row that made it moot)."""
    if resolved is None:
        return ""
    at = format_time(resolved.at)
    if state is not OutboxState.SKIPPED:
        why = f": {resolved.reason}" if resolved.reason else ""
        return words.t("cli.outbox.retried_by", by=resolved.by, at=at, reason=why)
    if resolved.by == SUPERSEDED_BY:
        return words.t("cli.outbox.superseded", row=(resolved.reason or "").lstrip("#"))
    return words.t("cli.outbox.skipped_by", by=resolved.by, at=at, reason=resolved.reason or "")


def _tail(waiting: bool, next_at: datetime | None, error: str | None, words: Catalogue) -> str:
    """What a row still waiting shows of its next try, and any row of its last error."""
    text = words.t("cli.outbox.next_try", at=format_time(next_at)) if waiting and next_at is not None else ""
    return text + (f" — {error}" if error else "")


async def _listing(
    db_path: str, words: Catalogue, state: OutboxState | None, limit: int, club: str
) -> tuple[list[Command], dict[str, int], dict[int, int]]:
    from storage.outbox import OutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, words, club) as db:
        store = OutboxStore(db)
        return await store.listing(state, limit), await store.counts(), await store.held_rows()


def chat_line(effect: Effect, words: Catalogue) -> str:
    """One chat effect: as `line`, with each platform's delivery state."""
    parts = ", ".join(f"{platform} {state}" for platform, state in sorted(effect.deliveries.items()))
    data = json.dumps({k: v for k, v in effect.payload.items() if k != "buttons"}, ensure_ascii=False)
    text = (
        f"#{effect.id} {format_time(effect.created_at)} {effect.state:7} {effect.queue} {effect.kind} {data[:200]} "
        + words.t("cli.outbox.tries", tries=effect.attempts, extra="; " + parts if parts else "")
    )
    waiting = effect.state is OutboxState.PENDING
    resolved = _resolution(effect.state, effect.resolution, words)
    return text + resolved + _tail(waiting, effect.next_at, effect.last_error, words)


async def _chat_listing(
    db_path: str, words: Catalogue, state: OutboxState | None, limit: int, club: str
) -> tuple[list[Effect], dict[str, int]]:
    from storage.chat_outbox import ChatOutboxStore  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, words, club) as db:
        store = ChatOutboxStore(db)
        return await store.listing(state, limit), await store.counts()
