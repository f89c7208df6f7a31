"""`sudija outbox [--failed | --pending | --dead | --skipped] [--chat] [--db FILE] [--limit N]`: the commands to
the game server, newest first — what is waiting (with its tries, the last error, and what it waits behind), what
was sent, what the game server refused for good (``failed``), what was given up after the configured tries
(``dead``) and what was skipped. With `--chat`, the chat outbox (`bot.chat_outbox`): the chat effects of the
desk's decisions, with each platform's part.

`--retry ID` sends a failed or dead row again (at once, its tries counted afresh); `--skip ID --reason "…"` gives
a waiting, failed or dead row up for good. Both are recorded on the row with who (`--by`, default the operator's
login) and when. One writer per SQLite database (bot/cli/_handoff.py): with no bot running the command holds the
database's lock while it writes (the bot sends a retried row when it starts); while a bot holds it, the act is
handed to the bot's inbox (bot/inbox.py), checked first against the row as it is, and the bot does it within
seconds and sends at once — `--wait` waits for its outcome, `--status [ID]` shows the acts handed. On PostgreSQL
the command writes beside the bots, which take a retried row up at once. The words are in ``--lang`` (default the
club's ``[club] language``); states, kinds, payloads and times (UTC) are shown as stored."""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from typing import Any

from bot.cli import _handoff
from bot.cli._common import (
    add_db_option,
    add_lang_option,
    club_config,
    database_path,
    existing_database,
    operator_words,
    whole_number,
)
from bot.config import Config
from bot.dblock import DatabaseInUse, Holder
from bot.inbox import OUTBOX, Inbox, Item, Kind, Outcome, Request, outbox_table, refusal, resolve_row
from bot.messages import Catalogue
from rules.gamelog import format_time
from storage.chat_outbox import Effect
from storage.outbox import SUPERSEDED_BY, Command
from storage.outbox_engine import Resolution
from storage.states import OutboxState


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("outbox")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true")
    which.add_argument("--pending", action="store_true")
    which.add_argument("--dead", action="store_true")
    which.add_argument("--skipped", action="store_true")
    act = parser.add_mutually_exclusive_group()
    act.add_argument("--retry", type=whole_number, metavar="ID")
    act.add_argument("--skip", type=whole_number, metavar="ID")
    parser.add_argument("--reason", default=None, metavar="TEXT")
    parser.add_argument("--by", default=None, metavar="NAME")
    parser.add_argument("--chat", action="store_true")
    _handoff.add_options(parser, timeout=60.0)
    add_db_option(parser)
    parser.add_argument("--limit", type=whole_number, default=100, metavar="N")
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
        return act(args, config, db_path, words)
    if args.status is not None:
        return _handoff.status(db_path, OUTBOX, args.status or None, words, render, "sudija outbox")
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


def act(args: argparse.Namespace, config: Config, db_path: str, words: Catalogue) -> int:
    """`--retry` or `--skip`: done here (holding the database's lock on SQLite), or handed to the bot holding it."""
    request = Request(
        Kind.RETRY if args.retry is not None else Kind.SKIP,
        (args.by or "").strip() or _handoff.login(),
        datetime.now(UTC),
        words.language,
        row=args.retry if args.retry is not None else args.skip,
        chat=bool(args.chat),
        reason=(args.reason or "").strip() or None,
    )
    try:
        turn = _handoff.take_turn(db_path, "sudija outbox")
    except DatabaseInUse as held:
        return _handoff.refused(held, words)
    if turn.bot is not None:
        return hand(args, config, db_path, words, request, turn.bot)
    try:
        outcome, before = asyncio.run(_resolve(db_path, words, config.club_id, request))
    finally:
        turn.release()
    print(outcome_text(outcome, before, request, words, "later" if turn.lock is not None else "shared"))
    return 0 if outcome in (Outcome.RETRIED, Outcome.SKIPPED) else 1


async def _resolve(db_path: str, words: Catalogue, club: str, request: Request) -> tuple[Outcome, OutboxState | None]:
    async with existing_database(db_path, words, club) as db:
        return await resolve_row(db, request)


async def _refusal(
    db_path: str, words: Catalogue, club: str, request: Request
) -> tuple[Outcome | None, OutboxState | None]:
    """What the act would come to on the row as it is now (read beside the bot): a refusal, or None."""
    assert request.row is not None
    async with existing_database(db_path, words, club) as db:
        row = await outbox_table(db, request.chat).get(request.row)
    state: OutboxState | None = row.state if row is not None else None
    return refusal(request, state), state


def hand(
    args: argparse.Namespace, config: Config, db_path: str, words: Catalogue, request: Request, bot: Holder
) -> int:
    """A bot holds the database: the act, unless the row as it is refuses it, goes to the bot's inbox; with
    `--wait`, its outcome is shown when the bot has done it."""
    refused, state = asyncio.run(_refusal(db_path, words, config.club_id, request))
    if refused is not None:
        print(outcome_text(refused, state, request, words, "bot"))
        return 1
    inbox = Inbox(db_path)
    handed = _handoff.hand(inbox, request, words)
    if handed is None:
        return 1
    item = handed.item
    assert item is not None
    key = "cli.handoff.retry_handed" if request.kind is Kind.RETRY else "cli.handoff.skip_handed"
    print(words.t(key, holder=_handoff.holder_text(bot, words), id=request.row, item=item.id))
    if not args.wait:
        return 0
    done = _handoff.waited(inbox, item, args.timeout, what="sudija outbox", club=config.club_id, words=words)
    if done is None:
        return _handoff.EXIT_WAITING
    for text in render(done, words):
        print(text)
    return 0 if (done.result or {}).get("ok") else 1


def outcome_text(outcome: Outcome, before: OutboxState | None, request: Request, words: Catalogue, where: str) -> str:
    """What an act came to. A row sent again is sent by the bot: at once (`where` ``bot``: the bot did it), when
    the bot starts (``later``: no bot runs on this SQLite file), or by whichever bot takes it up (``shared``)."""
    row = request.row
    if outcome is Outcome.NO_ROW:
        return words.t("cli.outbox.no_row", id=row)
    if outcome is Outcome.NOT_RETRIED:
        return words.t("cli.outbox.not_retried", id=row, state=before.value if before is not None else "?")
    if outcome is Outcome.NOT_SKIPPED:
        return words.t("cli.outbox.not_skipped", id=row, state=before.value if before is not None else "?")
    if outcome is Outcome.SKIPPED:
        return words.t("cli.outbox.skipped", id=row, by=request.by, reason=request.reason or "")
    key = {"bot": "cli.outbox.retried_now", "later": "cli.outbox.retried_later"}.get(where, "cli.outbox.retried")
    return words.t(key, id=row)


def render(item: Item, words: Catalogue) -> list[str]:
    """An act handed to the bot, for `--status`: its outcome once done."""
    result = item.result
    if result is None:
        return []
    lines = _handoff.result_notes(item, words)
    if "outcome" in result:
        before = OutboxState(result["state"]) if result.get("state") else None
        lines.insert(0, outcome_text(Outcome(result["outcome"]), before, item.request, words, "bot"))
    return lines


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
