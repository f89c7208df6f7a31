"""`sudija import PATH... [--db FILE] [--jobs N]`: import game-log files and directories into the database.

Directories are searched recursively for ``*.json``, ``*.jsonl``, ``*.json.gz`` and ``*.jsonl.gz``. Every problem
and refusal goes to standard error, each naming the file and its place; the summary (games, hands, unchanged,
refused, files with errors, games whose recorded score differs from the paper) goes to standard output, in ``--lang``
(default the club's ``[club] language``). On a
terminal a progress bar is drawn on standard error. Exit status: 0 when everything was imported or already there,
1 when any file had errors or any game was refused, 2 for a usage error (a path that does not exist, a bad
configuration). The work itself is `bot.importer`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any, TextIO

from bot.cli._common import add_db_option, add_lang_option, club_config, operator_words
from bot.importer import Importer, NoSuchPath


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import game-log files (JSON, JSON Lines, gzip)",
        description="Import game logs: files, or directories searched for *.json, *.jsonl, *.json.gz and "
        "*.jsonl.gz. A file with any invalid game imports nothing; every problem is listed.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a log file or a directory of log files")
    add_db_option(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: one per CPU for big imports; 0 or 1: none)",
    )
    add_lang_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    words = operator_words(args)
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    importer = Importer(
        args.db or config.database,
        club=config.club_id,
        lang=words.language,
        jobs=args.jobs,
        scripts=config.scripts,
        progress=bar.update if bar is not None else None,
    )
    try:
        report = asyncio.run(importer.run(args.paths))
    except NoSuchPath as exc:
        print(f"sudija import: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    for line in report.messages():
        print(line, file=sys.stderr)
    for line in report.summary(words.t):
        print(line)
    return report.exit_status


class ProgressBar:
    """``[######-----]  58%  123,456 hands  21,000 hands/s`` on one terminal line, redrawn at most 10 times a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
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
        self.stream.write(
            f"\r[{'#' * filled}{'-' * (self.WIDTH - filled)}] {share:4.0%}  {hands:,} hands  {rate:,.0f} hands/s "
        )
        self.stream.flush()
        self.visible = True

    def close(self) -> None:
        if self.visible:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.visible = False
