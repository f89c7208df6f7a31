"""`sudija backup FILE [--db DB]`: a consistent copy of the club's database, safe to take while the bot runs.

The work is `storage.backup` (SQLite's online backup API, checked and renamed into place). An existing FILE is
never overwritten. Exit status: 0 when the copy is made, 1 when it cannot be (the message says why).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.cli._common import add_db_option, club_config, os_error
from bot.i18n.phrases import size_text
from bot.messages import Catalogue
from rules.phrases import Size
from storage.backup import BackupError, backup


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("backup")
    parser.add_argument("file", metavar="FILE")
    add_db_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    messages = Catalogue(config.language, config.timezone)
    db = args.db or config.database
    try:
        result = backup(db, args.file)
    except FileExistsError:
        print(messages.t("backup.exists", target=args.file), file=sys.stderr)
        return 1
    except BackupError as exc:
        print(messages.t("backup.failed", why=messages.t(exc.key, **exc.values)), file=sys.stderr)
        return 1
    except OSError as exc:
        print(messages.t("backup.failed", why=os_error(exc, messages)), file=sys.stderr)
        return 1
    print(messages.t("backup.done", db=db, target=result.target, size=size_text(Size(result.size), messages.t)))
    return 0
