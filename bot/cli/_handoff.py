"""The one-writer rule for the writing commands (`sudija import`, `sudija outbox --retry/--skip`; decisions.md, "one
bot per database"): on SQLite a command takes the database's lock (bot/dblock.py) and writes while no bot runs; a
bot holding it is handed the work through the database's inbox (bot/inbox.py), which it performs with the same
code; another command holding it refuses this one, naming it. On PostgreSQL (several bots serve one database) and
in memory the command writes in its own transactions, as before.

`wait_for` waits, with a bound, for the bot to perform what was handed; a bot that stopped meanwhile leaves the
lock free, and the waiting command then performs its item itself, holding the lock.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.cli._common import number
from bot.dblock import DatabaseInUse, DatabaseLock, Holder, shared
from bot.inbox import Handed, Inbox, InboxError, InboxWorker, Item, ItemState, Kind, Request
from bot.messages import Catalogue
from rules.gamelog import format_time
from rules.nicknames import DEFAULT_SCRIPTS
from storage.database import open_database

POLL_SECONDS = 0.2  # how often a waiting command looks whether its item is done
EXIT_WAITING = 3  # handed and not done yet (`--status ID` of a waiting item, `--wait` past its bound)


@dataclass(frozen=True, slots=True)
class Turn:
    """How a writing command may write: holding the `lock` (release it when done), or through the `bot` holding it
    (hand the work over); neither on PostgreSQL or in memory (write in one's own transactions)."""

    lock: DatabaseLock | None = None
    bot: Holder | None = None

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def take_turn(db_path: str, what: str) -> Turn:
    """This command's turn to write `db_path`; `DatabaseInUse` when a process that is not a bot holds it (another
    writing command, `sudija migrate`, an admin's act)."""
    if shared(db_path) or db_path == ":memory:":
        return Turn()
    lock = DatabaseLock(db_path, what)
    try:
        lock.acquire()
    except DatabaseInUse as held:
        if held.who is not None and held.who.takes_handoffs:
            return Turn(bot=held.who)
        raise
    return Turn(lock=lock)


def add_options(parser: Any, *, timeout: float) -> None:
    """The options of a command that may hand its work to the bot: `--wait`, its `--timeout` (`timeout` seconds by
    default) and `--status [ID]` (their helps are the command's ``cli.opt.COMMAND.wait`` … entries)."""
    parser.add_argument("--wait", action="store_true")
    parser.add_argument("--timeout", type=number, default=timeout, metavar="SECONDS")
    parser.add_argument("--status", nargs="?", const="", default=None, metavar="ID")


def hand(inbox: Inbox, request: Request, words: Catalogue, files: Sequence[Path] = ()) -> Handed | None:
    """`request` (and `files`) placed in the bot's inbox; None, said on standard error, when the inbox cannot be
    written (exit status 1)."""
    try:
        return inbox.hand(request, files)
    except InboxError as exc:
        print(words.t("cli.handoff.cannot_hand", problem=str(exc)), file=sys.stderr)
        return None


def waited(
    inbox: Inbox,
    item: Item,
    timeout: float,
    *,
    what: str,
    club: str,
    scripts: Sequence[str] = DEFAULT_SCRIPTS,
    words: Catalogue,
) -> Item | None:
    """`wait_for` the item, saying so when it is still waiting past `timeout` (None then: exit `EXIT_WAITING`)."""
    done = wait_for(inbox, item, timeout, what=what, club=club, scripts=scripts, words=words)
    if done is None:
        print(words.t("cli.handoff.still_waiting", item=item.id, command=what))
    return done


def refused(held: DatabaseInUse, words: Catalogue) -> int:
    """What a writing command says when another command holds the database (exit status 1)."""
    print(words.t("cli.handoff.in_use", holder=held.holder_text(words), lock=str(held.path)), file=sys.stderr)
    return 1


def holder_text(bot: Holder, words: Catalogue) -> str:
    return bot.text(words)


def login() -> str:
    """Who runs the command: the login name (``?`` where the system has none)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name in this environment (a container without a passwd entry)
        return "?"


def wait_for(
    inbox: Inbox,
    item: Item,
    timeout: float,
    *,
    what: str,
    club: str,
    scripts: Sequence[str] = DEFAULT_SCRIPTS,
    words: Catalogue,
) -> Item | None:
    """The item once performed, waiting at most `timeout` seconds (None past that: it is still waiting). When the
    bot stops before performing it, this command takes the lock and performs it itself, as the bot would have."""
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        found = inbox.get(item.id)
        if found is not None and found.finished:
            return found
        lock = DatabaseLock(inbox.database, what)
        try:
            lock.acquire()
        except DatabaseInUse:
            pass
        else:
            try:
                done = asyncio.run(_perform_here(inbox, item.id, club, scripts))
            finally:
                lock.release()
            if done is not None:
                print(words.t("cli.handoff.took_over", item=item.id), file=sys.stderr)
                return done
        if time.monotonic() >= deadline:
            return None
        time.sleep(POLL_SECONDS)


async def _perform_here(inbox: Inbox, item_id: str, club: str, scripts: Sequence[str]) -> Item | None:
    """Perform the item `item_id` in this process (which holds the lock), as the bot's worker does."""
    db = await open_database(inbox.database, club=club)
    try:
        worker = InboxWorker(db, _now, inbox=inbox, watch=None, scripts=scripts)
        await worker.perform(item_id)
    finally:
        await db.close()
    found = inbox.get(item_id)
    return found if found is not None and found.finished else None


def _now() -> datetime:
    return datetime.now(UTC)


def status(
    db_path: str,
    kinds: Sequence[Kind],
    item_id: str | None,
    words: Catalogue,
    render: Callable[[Item, Catalogue], list[str]],
    command: str,
) -> int:
    """`--status [ID]`: what was handed to the bot (newest first, one line each), or the item `item_id` in full
    (`render`); exit status 0 done, 1 failed or unknown, 3 still waiting."""
    if shared(db_path) or db_path == ":memory:":
        print(words.t("cli.handoff.none"))
        return 0
    inbox = Inbox(db_path)
    if item_id:
        item = inbox.get(item_id)
        if item is None or item.request.kind not in kinds:
            print(words.t("cli.handoff.no_item", item=item_id, inbox=str(inbox.root)), file=sys.stderr)
            return 1
        print(line(item, words))
        for text in render(item, words):
            print(text)
        if not item.finished:
            _no_bot(db_path, words, command)
            return EXIT_WAITING
        return 0 if item.state is ItemState.DONE else 1
    items = inbox.items(kinds)
    if not items:
        print(words.t("cli.handoff.none"))
        return 0
    for item in items:
        print(line(item, words))
        for text in render(item, words)[:1]:
            print("    " + text)
    if any(not item.finished for item in items):
        _no_bot(db_path, words, command)
    return 0


def _no_bot(db_path: str, words: Catalogue, command: str) -> None:
    """Below what still waits: whether a bot is there to do it."""
    lock = DatabaseLock(db_path, command)
    try:
        lock.acquire()
    except DatabaseInUse:
        return
    lock.release()
    print(words.t("cli.handoff.no_bot"))


def line(item: Item, words: Catalogue) -> str:
    """One item: its id, where it is, what it asks, who handed it and when (UTC)."""
    request = item.request
    files = words.t("cli.import.files", n=len(request.files))
    what = {
        Kind.IMPORT: lambda: words.t("cli.handoff.what.import", files=files),
        Kind.WATCH: lambda: words.t("cli.handoff.what.watch", files=files),
        Kind.RETRY: lambda: words.t("cli.handoff.what.retry", id=request.row),
        Kind.SKIP: lambda: words.t("cli.handoff.what.skip", id=request.row, reason=request.reason or ""),
    }[request.kind]()
    state = words.t(f"cli.handoff.state.{item.state.value}")
    return words.t("cli.handoff.line", item=item.id, state=state, what=what, by=request.by, at=format_time(request.at))


def result_notes(item: Item, words: Catalogue) -> list[str]:
    """What any item's result adds to its own report: an error, or that the work was interrupted and done again."""
    result = item.result or {}
    notes = []
    if result.get("error"):
        notes.append(words.t("cli.handoff.error", error=result["error"]))
    if result.get("resumed"):
        notes.append(words.t("cli.handoff.resumed"))
    return notes
