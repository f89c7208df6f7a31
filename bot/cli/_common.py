"""What the sub-commands share: the club's configuration (read once per run; a bad file is answered by
`bot.cli.main` with its message and exit status 2), the `--db` option, and opening a database that must exist."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.config import Config, load
from bot.i18n import LANGUAGES
from bot.messages import Catalogue
from storage.database import Database, open_database
from storage.postgres import is_postgres
from storage.tenancy import DEFAULT_CLUB


def club_config(args: argparse.Namespace) -> Config:
    """The configuration named by `--config` (default config.toml, or the defaults when it is absent)."""
    cached: Config | None = getattr(args, "_club_config", None)
    if cached is None:
        cached = load(getattr(args, "config", None))
        args._club_config = cached
    return cached


def add_lang_option(parser: Any) -> None:
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=None,
        help="the language of the text (default: the club's, [club] language)",
    )


def operator_words(args: argparse.Namespace) -> Catalogue:
    """The catalogue an operator reads a command's text in: ``--lang``, else the club's configured language (its
    clock for times). JSON output does not depend on it."""
    config = club_config(args)
    return Catalogue(getattr(args, "lang", None) or config.language, config.timezone)


def add_db_option(parser: Any) -> None:
    parser.add_argument("--db", default=None, metavar="FILE", help="database file (default: from the configuration)")


def add_viewer_option(parser: Any) -> None:
    parser.add_argument(
        "--as",
        dest="viewer",
        default=None,
        metavar="NICK",
        help="show it as this member sees it: referees' and councilors' names only for the roles "
        "in referee_names_visible_to (default: the operator's view, with names)",
    )


def sees_names(config: Config, nick: str | None, roles: frozenset[str] | None) -> bool:
    """The operator (no `--as`) sees names; a member only when one of his roles (the owner's too) is visible."""
    if nick is None:
        return True
    held = set(roles or ())
    if config.owner is not None and nick.casefold() == config.owner.casefold():
        held.add("owner")
    return bool(held & set(config.referee_names_visible_to))


def game_number(text: str) -> int:
    """An argparse type: a game number as SQLite can hold it (a positive whole number)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a game number: {text!r}") from None
    if not 1 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"a game number is a positive whole number, not {text}")
    return value


def days(text: str) -> int:
    """An argparse type: a number of days from 1 to 36,500."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not 1 <= value <= 36_500:
        raise argparse.ArgumentTypeError(f"days must be from 1 to 36500, not {text}")
    return value


def database_missing(db_path: str) -> bool:
    """Whether `db_path` names an SQLite file that is not there (a PostgreSQL address is the server's to answer)."""
    return db_path != ":memory:" and not is_postgres(db_path) and not Path(db_path).exists()


async def open_existing(db_path: str, missing: str, club: str = DEFAULT_CLUB) -> Database | None:
    """The database at `db_path`, or None (with `missing` said on standard error) when there is no such file: a
    read command never creates an empty database. A ``postgresql://`` address is the server's database, read as
    the club `club` (`[club] id`: storage/tenancy.py)."""
    if database_missing(db_path):
        print(missing, file=sys.stderr)
        return None
    return await open_database(db_path, club=club)
