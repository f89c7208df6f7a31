"""`sudija zapisnik TRIAL --html [--out FILE] [--officials | --as NICK]` and `sudija zapisnik --verify FILE`: a
trial's record.

The export is one self-contained HTML file (`bot.records.zapisnik`): the game, the call, who took it and when,
the whole transcript, the verdict and its effect on the paper, the pictures inlined, and the SHA-256 chain over
the messages with its last link printed at the end of the file and on the terminal. By default it is the
members' view (referees and councilors by function, decisions.md); ``--officials`` names them. ``--as NICK``
exports it as that member gets it from `/zapisnik` (`bot.records.access`): refused (exit status 1) when he may
not read it, named only when his offices are in ``referee_names_visible_to``. Without ``--out`` the HTML goes to
standard output (and the seal to standard error).

The record is signed with the club's Ed25519 key (`bot.records.signing`, generated at the first start);
``--public-key`` prints its public part. ``--verify FILE [--key KEY]`` re-renders the page from the data the file
carries and compares the two, recomputes the chain and the file's digest, and checks the signature with the club's
public key (``--key``, else the one in the club's database): exit 0 and the seal when the club signed exactly this
file, exit 1 with what is wrong otherwise — and, with the club's database at hand, what the file says otherwise
than the club's own record of the trial. Unknown trial, missing database, unreadable file: a message and exit
status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.cli._common import (
    add_db_option,
    add_lang_option,
    club_config,
    database_missing,
    database_path,
    existing_database,
    operator_words,
    os_error,
)
from bot.cli._language import current
from bot.config import Config
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue
from storage.database import open_database
from storage.tenancy import DEFAULT_CLUB

MAX_RECORD_BYTES = 256 * 1024 * 1024


def trial_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(current().t("cli.type.trial", value=repr(text))) from None
    if not 1 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(current().t("cli.type.trial_range", value=text))
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("zapisnik")
    parser.add_argument("trial", type=trial_number, nargs="?", metavar="TRIAL")
    parser.add_argument("--html", action="store_true")
    parser.add_argument("--out", default=None, metavar="FILE")
    parser.add_argument("--officials", action="store_true")
    parser.add_argument("--as", dest="viewer", default=None, metavar="NICK")
    parser.add_argument("--verify", default=None, metavar="FILE")
    parser.add_argument("--key", default=None, metavar="KEY")
    parser.add_argument("--public-key", action="store_true")
    add_lang_option(parser)
    add_db_option(parser)
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"sudija zapisnik: {message}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    if args.public_key:
        if args.trial is not None or args.html or args.verify is not None:
            return _fail(operator_words(args).t("cli.zapisnik.public_key_alone"))
        return asyncio.run(public_key(database_path(args), config.club_id))
    if args.verify is not None:
        if args.trial is not None or args.html:
            return _fail(operator_words(args).t("cli.zapisnik.verify_alone"))
        return asyncio.run(verify(args.verify, args.key, database_path(args), config.club_id, config.language))
    if args.trial is None or not args.html:
        return _fail(operator_words(args).t("cli.zapisnik.what"))
    if args.officials and args.viewer is not None:
        return _fail(operator_words(args).t("cli.zapisnik.officials_or_as"))
    config = club_config(args)
    return asyncio.run(
        export(
            args.trial,
            database_path(args),
            out=args.out,
            officials=args.officials,
            lang=args.lang or config.language,
            club=config.club_id,
            viewer=args.viewer,
            config=config,
        )
    )


async def export(
    trial: int,
    db_path: str,
    *,
    out: str | None,
    officials: bool,
    lang: str,
    club: str = DEFAULT_CLUB,
    viewer: str | None = None,
    config: Config | None = None,
) -> int:
    from bot.records.access import game_players, trial_access  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.records.load import load_record  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.records.signing import club_key  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.records.zapisnik import render_html  # noqa: PLC0415 (a sub-command loads only what it runs)

    words = Catalogue(lang)
    async with existing_database(db_path, words, club) as db:
        found = await db.trials.get(trial)
        if found is not None and viewer is not None:
            member = await db.members.by_nick(viewer)
            if member is None:
                return _fail(words.t("cli.unknown_member", nick=viewer))
            access = await trial_access(db, config or Config(), member, found, await game_players(db, found.game))
            if not access.transcript:
                return _fail(words.t("zapisnik.not_yours", trial=trial))
            if found.is_open:
                return _fail(words.t("zapisnik.open", trial=trial))
            officials = access.names
        zone = (config or Config()).timezone
        record = await load_record(db, trial, officials=officials, lang=lang, zone=zone) if found is not None else None
        key = await club_key(db, datetime.now(UTC))
    if record is None:
        return _fail(words.t("cli.zapisnik.no_trial", trial=trial, db=db_path))
    sealed = render_html(record, key)
    if out is None:
        sys.stdout.write(sealed.document)
        print(f"SHA-256: {sealed.seal}", file=sys.stderr)
        return 0
    try:
        Path(out).write_text(sealed.document, encoding="utf-8")  # noqa: ASYNC240 (a one-shot command: nothing else waits)
    except OSError as exc:
        return _fail(words.t("cli.zapisnik.cannot_write", out=out, why=os_error(exc, words)))
    print(words.t("cli.zapisnik.written", out=out, messages=record.messages, seal=sealed.seal))
    return 0


async def public_key(db_path: str, club: str) -> int:
    """The club's public key (generated with the club's key at its first start, or now)."""
    from bot.records.signing import club_key  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, Catalogue("en"), club) as db:
        key = await club_key(db, datetime.now(UTC))
    print(key.public_text)
    return 0


async def verify(path: str, given_key: str | None, db_path: str, club: str, lang: str = "sr") -> int:
    """Check a record file with the club's public key (`given_key`, else the club's database's); when it fails and
    the club's database is at hand, name what the file says otherwise than the club's own record."""
    from bot.records.load import load_record  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.records.signing import published_key  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.records.zapisnik import differences, verify_html  # noqa: PLC0415 (a sub-command loads only what it runs)

    words = Catalogue(lang)
    try:
        with open(path, "rb") as stream:  # noqa: ASYNC230 (a one-shot command: nothing else waits)
            raw = stream.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        return _fail(words.t("cli.zapisnik.cannot_read", path=path, why=os_error(exc, words)))
    if len(raw) > MAX_RECORD_BYTES:
        return _fail(words.t("cli.zapisnik.too_large", path=path))
    db = None
    if not database_missing(db_path):
        db = await open_database(db_path, club=club)
    try:
        key = given_key
        if key is None and db is not None:
            key = await published_key(db)
        result = verify_html(raw, key)
        if result.ok and key is not None:
            print(words.t("cli.zapisnik.intact", path=path, messages=result.messages, seal=result.seal))
            return 0
        if key is None and result.ok:
            return _fail(words.t("cli.zapisnik.no_key", path=path))
        print(words.t("cli.zapisnik.changed", path=path), file=sys.stderr)
        for problem in result.problems:
            print(f"  {phrase_text(problem, words.t)}", file=sys.stderr)
        if db is not None and result.data is not None:
            data = result.data
            club_record = await load_record(
                db, int(data["trial"]), officials=bool(data["officials"]), lang=str(data["lang"]), pictures=False
            )
            if club_record is not None:
                for difference in differences(data, club_record.data()):
                    print(f"  {phrase_text(difference, words.t)}", file=sys.stderr)
        return 1
    finally:
        if db is not None:
            await db.close()
