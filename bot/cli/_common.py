"""What the sub-commands share: the club's configuration (read once per run; a bad file is answered by
`bot.cli.main` with its message and exit status 2), the `--db` option, and opening a database that must exist
(`existing_database`: the one open-and-show skeleton of every command that reads the club's database)."""

from __future__ import annotations

import argparse
import contextlib
import errno
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.cli._language import current
from bot.config import Config, load
from bot.i18n import LANGUAGES
from bot.messages import MESSAGES, Catalogue
from rules.members import Member
from rules.members import sees_names as names_visible
from storage.database import Database, open_database
from storage.postgres import is_postgres
from storage.tenancy import DEFAULT_CLUB


def club_config(args: argparse.Namespace) -> Config:
    """The configuration named by `--config` (default config.toml, or the defaults when it is absent); ``--lang``
    is the language of this run (what a command writes, a console club's words)."""
    cached: Config | None = getattr(args, "_club_config", None)
    if cached is None:
        cached = load(getattr(args, "config", None))
        lang = getattr(args, "lang", None)
        if lang is not None:
            cached = replace(cached, language=lang)
        args._club_config = cached
    return cached


def add_lang_option(parser: Any) -> None:
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help=current().t("cli.option.lang"))


def operator_words(args: argparse.Namespace) -> Catalogue:
    """The catalogue an operator reads a command's text in: ``--lang``, else the club's configured language (its
    clock for times). JSON output does not depend on it."""
    config = club_config(args)
    return Catalogue(getattr(args, "lang", None) or config.language, config.timezone)


def add_db_option(parser: Any) -> None:
    parser.add_argument("--db", default=None, metavar="FILE")


def add_viewer_option(parser: Any) -> None:
    parser.add_argument("--as", dest="viewer", default=None, metavar="NICK")


def sees_names(config: Config, member: Member | None) -> bool:
    """The operator (no `--as`: None) sees names; a member only when one of his offices (his functions, the
    owner's) is in `referee_names_visible_to` — the rule `/presude` and `/zapisnik` follow (`bot.records.access`)."""
    return member is None or names_visible(config.offices(member), set(config.referee_names_visible_to))


def os_error(exc: OSError, words: Catalogue) -> str:
    """Why the system refused a file, in `words`' language for the common refusals (``oserror.*``), else as the
    system says it."""
    name = errno.errorcode.get(exc.errno or 0, "").lower()
    key = f"oserror.{name}"
    return words.t(key) if name and key in MESSAGES else str(exc.strerror or exc)


def game_number(text: str) -> int:
    """An argparse type: a game number as SQLite can hold it (a positive whole number)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(current().t("cli.type.game", value=repr(text))) from None
    if not 1 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(current().t("cli.type.game_range", value=text))
    return value


def whole_number(text: str) -> int:
    """An argparse type: a whole number (argparse's own refusal would name Python's type, "(int)")."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(current().t("cli.type.whole", value=repr(text))) from None


def number(text: str) -> float:
    """An argparse type: a number, whole or not (argparse's own refusal would name Python's type, "(float)")."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(current().t("cli.type.number", value=repr(text)))
    return value


def days(text: str) -> int:
    """An argparse type: a number of days from 1 to 36,500."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(current().t("cli.type.days", value=repr(text))) from None
    if not 1 <= value <= 36_500:
        raise argparse.ArgumentTypeError(current().t("cli.type.days_range", value=text))
    return value


DEMO_DATABASE = "sudija-demo.db"  # the console's demo club (`make run`, `sudija console --demo`), in the working folder


class NoDatabase(Exception):
    """A command that reads the club's database was pointed at a file that is not there (`bot.cli.main` says the
    message on standard error, exit status 1): a read command never creates an empty database."""


def database_path(args: argparse.Namespace) -> str:
    """The database a command works on: ``--db``, else the configuration's ``[club] database``."""
    given: str | None = getattr(args, "db", None)
    return given or club_config(args).database


def database_missing(db_path: str) -> bool:
    """Whether `db_path` names an SQLite file that is not there (a PostgreSQL address is the server's to answer)."""
    return db_path != ":memory:" and not is_postgres(db_path) and not Path(db_path).exists()


def missing_text(db_path: str, words: Catalogue) -> str:
    """What a command says when the database `db_path` is not there: the file it looked for (its full path, so a
    command run from another folder shows where it looked) and, when the demo club's file is in this folder, that
    the demo club lives there."""
    text = words.t("cli.no_db", db=db_path, path=Path(db_path).absolute())
    demo = Path(DEMO_DATABASE)
    if demo.is_file() and demo.absolute() != Path(db_path).absolute():
        text += " " + words.t("cli.no_db.demo", demo=DEMO_DATABASE)
    return text


@contextlib.asynccontextmanager
async def existing_database(db_path: str, words: Catalogue, club: str = DEFAULT_CLUB) -> AsyncIterator[Database]:
    """The database at `db_path`, open for the block and closed after it; `NoDatabase` (its message in `words`'
    language) when there is no such file. A ``postgresql://`` address is the server's database, read as the club
    `club` (`[club] id`: storage/tenancy.py)."""
    if database_missing(db_path):
        raise NoDatabase(missing_text(db_path, words))
    db = await open_database(db_path, club=club)
    try:
        yield db
    finally:
        await db.close()
