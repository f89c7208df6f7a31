"""`sudija import PATH... [--db FILE] [--jobs N] [--wait]`: import game-log files and directories into the database;
`sudija import --status [ID]`: what was handed to the running bot, and what became of it.

Directories are searched recursively for ``*.json``, ``*.jsonl``, ``*.json.gz`` and ``*.jsonl.gz``. Every problem
and refusal goes to standard error, each naming the file and its place; the summary (games, hands, unchanged,
refused, files with errors, games whose recorded score differs from the paper) goes to standard output, in ``--lang``
(default the club's ``[club] language``). On a
terminal a progress bar is drawn on standard error. Exit status: 0 when everything was imported or already there,
1 when any file had errors or any game was refused, 2 for a usage error (a path that does not exist, a bad
configuration). The work itself is `bot.importer`.

One writer per SQLite database (bot/cli/_handoff.py): the import holds the database's lock while it writes; while a
bot holds it, the files are copied into the bot's inbox (bot/inbox.py) and the bot imports them within seconds —
`--wait` waits for its report (at most `--timeout` seconds; exit status 3 past that), `--status ID` shows it later.
Another command holding the database refuses the import, naming it. On PostgreSQL the import writes beside the bots.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from bot.cli import _handoff
from bot.cli._common import add_db_option, add_lang_option, club_config, operator_words, whole_number
from bot.config import Config
from bot.dblock import DatabaseInUse, Holder
from bot.importer import Importer, ImportReport, NoSuchPath, find_files
from bot.inbox import IMPORTS, Inbox, Item, Kind, Request, result_report
from bot.messages import Catalogue


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("import")
    parser.add_argument("paths", nargs="*", metavar="PATH")
    add_db_option(parser)
    parser.add_argument("--jobs", type=whole_number, default=None, metavar="N")
    _handoff.add_options(parser, timeout=300.0)
    add_lang_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    words = operator_words(args)
    db_path = args.db or config.database
    if args.status is not None:
        return _handoff.status(db_path, IMPORTS, args.status or None, words, render, "sudija import")
    if not args.paths:
        print(words.t("cli.import.usage"), file=sys.stderr)
        return 2
    try:
        turn = _handoff.take_turn(db_path, "sudija import")
    except DatabaseInUse as held:
        return _handoff.refused(held, words)
    if turn.bot is not None:
        return hand(args, config, words, db_path, turn.bot)
    try:
        return import_here(args, config, words, db_path)
    finally:
        turn.release()


def import_here(args: argparse.Namespace, config: Config, words: Catalogue, db_path: str) -> int:
    """The import in this process (which holds the database's lock on SQLite)."""
    bar = ProgressBar(sys.stderr, words) if sys.stderr.isatty() else None
    importer = Importer(
        db_path,
        club=config.club_id,
        lang=words.language,
        jobs=args.jobs,
        scripts=config.scripts,
        progress=bar.update if bar is not None else None,
    )
    try:
        report = asyncio.run(importer.run(args.paths))
    except NoSuchPath as exc:
        print(f"sudija import: {words.t('cli.import.no_such_path', path=exc.path)}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    tell(report, words)
    return report.exit_status


def tell(report: ImportReport, words: Catalogue) -> None:
    """An import's report: every problem on standard error, the summary on standard output."""
    for line in report.messages(words.t):
        print(line, file=sys.stderr)
    for line in report.summary(words.t):
        print(line)


def hand(args: argparse.Namespace, config: Config, words: Catalogue, db_path: str, bot: Holder) -> int:
    """A bot holds the database: copy the files into its inbox (a file that cannot be read is named and left out),
    and with `--wait` show its report when it has imported them."""
    try:
        files = find_files(args.paths)
    except NoSuchPath as exc:
        print(f"sudija import: {words.t('cli.import.no_such_path', path=exc.path)}", file=sys.stderr)
        return 2
    if not files:
        tell(ImportReport(), words)
        return 0
    inbox = Inbox(db_path)
    request = Request(Kind.IMPORT, _handoff.login(), datetime.now(UTC), words.language)
    handed = _handoff.hand(inbox, request, words, files)
    if handed is None:
        return 1
    for path, error in handed.unreadable:
        print(words.t("cli.handoff.unreadable", path=path, error=error), file=sys.stderr)
    missed = 1 if handed.unreadable else 0
    if handed.item is None:
        print(words.t("cli.handoff.nothing_handed"), file=sys.stderr)
        return 1
    item = handed.item
    count = words.t("cli.import.files", n=len(item.request.files))
    print(words.t("cli.handoff.import_handed", holder=_handoff.holder_text(bot, words), files=count, item=item.id))
    if not args.wait:
        return missed
    done = _handoff.waited(
        inbox, item, args.timeout, what="sudija import", club=config.club_id, scripts=config.scripts, words=words
    )
    if done is None:
        return _handoff.EXIT_WAITING
    report = result_report(done.result or {})
    tell(report, words)
    for note in _handoff.result_notes(done, words):
        print(note, file=sys.stderr)
    return max(missed, 0 if (done.result or {}).get("ok") else 1)


def render(item: Item, words: Catalogue) -> list[str]:
    """An import item's report for `--status`: its summary first, then every problem (each naming its file)."""
    if item.result is None:
        return [Path(name).name for name, _ in item.request.files]
    report = result_report(item.result)
    lines = report.summary(words.t) if report.files else []
    return lines + _handoff.result_notes(item, words) + report.messages(words.t)


class ProgressBar:
    """``[######-----]  58%  123,456 hands  21,000 hands/s`` on one terminal line, redrawn at most 10 times a second;
    with the operator's `words`, the hands and the rate in their language (``58%  123456 ruku  21000 u sekundi``)."""

    WIDTH = 30

    def __init__(self, stream: TextIO, words: Catalogue | None = None) -> None:
        self.stream = stream
        self.words = words
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.visible = False

    def update(self, done: int, total: int, hands: int) -> None:
        now = time.monotonic()
        if now - self.drawn_at < 0.1 and done < total:
            return
        self.drawn_at = now
        share = done / total if total else 1.0
        filled = round(share * self.WIDTH)
        rate = hands / max(now - self.started, 1e-9)
        if self.words is None:
            told = f"{hands:,} hands  {rate:,.0f} hands/s"
        else:
            t = self.words.t
            told = t("cli.import.progress", hands=t("cli.import.hands", n=hands), rate=round(rate))
        self.stream.write(f"\r[{'#' * filled}{'-' * (self.WIDTH - filled)}] {share:4.0%}  {told} ")
        self.stream.flush()
        self.visible = True

    def close(self) -> None:
        if self.visible:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.visible = False
