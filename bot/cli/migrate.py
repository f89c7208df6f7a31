"""`sudija migrate [--check] [--db DB] [--backup-dir DIR] [--no-backup]`: bring the club's database to this release's
schema, after a backup; ``--check`` only says what is pending.

``--check`` reads the schema without changing anything (`storage.schema`): exit 0 when it is up to date, 1 when
migrations are pending (listed), 2 when the database holds a migration this release does not carry (a newer release
migrated it: install that one). Without it, an SQLite database is first copied beside itself (or into
``--backup-dir``) as ``NAME-before-NNNN-STAMP.db`` with `storage.backup` — the copy checked before it counts — and
then migrated, each migration in its own transaction; one that fails is rolled back whole (`MigrationFailed`), the
database stays as it was before it and the backup is named. The bot must be stopped (its lock is taken: a running
`sudija run` is named). A PostgreSQL database is backed up with pg_dump (docs/deploy.md): the command refuses until
``--no-backup`` says that was done. `sudija run` takes the same backup by itself when it finds migrations pending
(`backup_before_migrating`). What it says is written in ``--lang`` or the club's language (``cli.migrate.*``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.cli._common import add_db_option, club_config, database_path, operator_words
from bot.messages import Catalogue
from storage.database import MigrationFailed, open_database
from storage.postgres import is_postgres, shown
from storage.schema import SchemaState, schema_state


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("migrate")
    add_db_option(parser)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--backup-dir", default=None, metavar="DIR")
    parser.add_argument("--no-backup", action="store_true")
    parser.set_defaults(func=run)


def names(pending: list[tuple[int, str]]) -> str:
    return ", ".join(f"{number:04d}_{name}" for number, name in pending)


def too_new(state: SchemaState, where: str, words: Catalogue) -> str:
    """What is said of a database a newer release migrated: the migrations this release does not carry."""
    newer = ", ".join(f"{number:04d}" for number in state.unknown)
    return words.t("cli.migrate.too_new", where=where, count=len(state.unknown), newer=newer)


def backup_before_migrating(db_path: str, state: SchemaState, directory: str | None = None) -> Path | None:
    """The copy of the SQLite database `db_path` taken before its pending migrations are applied (None when
    nothing is pending, the file does not exist yet, or it is PostgreSQL's)."""
    from storage.backup import backup  # noqa: PLC0415 (only a migration needs it)

    if is_postgres(db_path) or not state.exists or not state.pending or db_path == ":memory:":
        return None
    source = Path(db_path)
    first = state.pending[0][0]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(directory) if directory is not None else source.parent
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{source.stem}-before-{first:04d}-{stamp}"
    for again in range(100):  # two starts within one second: a second copy beside the first, never over it
        try:
            return backup(source, folder / f"{name}{f'-{again}' if again else ''}{source.suffix or '.db'}").target
        except FileExistsError:
            continue
    raise FileExistsError(str(folder / name))


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    words = operator_words(args)
    db_path = database_path(args)
    where = shown(db_path)
    state = asyncio.run(schema_state(db_path, config.club_id))
    if state.unknown:
        print(too_new(state, where, words), file=sys.stderr)
        return 2
    newest = f"{state.known[-1][0] if state.known else 0:04d}"
    current = f"{state.current:04d}"
    if args.check:
        if not state.exists:
            print(words.t("cli.migrate.absent", where=where, count=len(state.known)))
            return 1
        if not state.pending:
            print(words.t("cli.migrate.current", where=where, current=current, newest=newest))
            return 0
        pending = names(state.pending)
        print(words.t("cli.migrate.pending", where=where, current=current, count=len(state.pending), names=pending))
        return 1
    if not state.pending:
        print(words.t("cli.migrate.nothing", where=where, current=current))
        return 0
    if is_postgres(db_path) and not args.no_backup:
        print(words.t("cli.migrate.postgres", where=where), file=sys.stderr)
        return 2
    from bot.dblock import DatabaseLock  # noqa: PLC0415 (a sub-command loads only what it runs)

    with DatabaseLock(db_path, "sudija migrate"):  # the bot stopped: a running one is named and nothing is done
        copy = None if args.no_backup else backup_before_migrating(db_path, state, args.backup_dir)
        if copy is not None:
            print(words.t("cli.migrate.backup", copy=copy))
        try:
            asyncio.run(_apply(db_path, config.club_id))
        except MigrationFailed as exc:
            print(failed(exc, words), file=sys.stderr)
            if copy is not None:
                print(words.t("cli.migrate.backup_kept", copy=copy), file=sys.stderr)
            return 1
    applied = names(state.pending)
    print(words.t("cli.migrate.applied", where=where, count=len(state.pending), names=applied, newest=newest))
    return 0


def failed(exc: MigrationFailed, words: Catalogue) -> str:
    """What is said of a migration that failed and was rolled back, with the database's own error."""
    return words.t("cli.migrate.failed", migration=f"{exc.version:04d}_{exc.name}", cause=exc.cause)


async def _apply(db_path: str, club: str) -> None:
    db = await open_database(db_path, club=club)  # applies what is missing, one transaction per migration
    await db.close()
