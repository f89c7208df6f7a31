"""`sudija migrate --check` lists the pending migrations without changing anything; `sudija migrate` backs the
database up and applies them; a migration that fails is rolled back whole and the backup is named; a database
migrated by a newer release, or one a running bot holds, is refused. The texts are read in English (``--lang en``);
tests/test_cli_language.py reads them in the other languages."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest

import storage.database
import storage.schema
from bot.cli import main
from bot.dblock import DatabaseLock
from bot.messages import Catalogue
from storage.database import migrations, split_statements

ALL = migrations()
NEWEST, NEWEST_NAME, _ = ALL[-1]


def older_database(path: Path) -> None:
    """A database made by the release before the newest migration: every migration but the last applied as
    `storage.database` applies them, one transaction each (opening it with this release would migrate it)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for version, name, sql in migrations()[:-1]:
            connection.execute("BEGIN IMMEDIATE")
            for statement in split_statements(sql):
                connection.execute(statement)
            connection.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, "2026-01-01T00:00:00.000Z")
            )
            connection.execute("COMMIT")
    finally:
        connection.close()


def applied(path: Path) -> set[int]:
    with sqlite3.connect(path) as connection:
        return {row[0] for row in connection.execute("SELECT version FROM schema_migrations")}


def test_check_lists_the_pending_migrations_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "club.db"
    assert main(["migrate", "--lang", "en", "--check", "--db", str(db)]) == 1
    assert f"{db} does not exist: the first start creates it with all {len(ALL)} migrations." in capsys.readouterr().out
    assert not db.exists()
    older_database(db)
    before = db.read_bytes()
    assert main(["migrate", "--lang", "en", "--check", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert f"1 pending: {NEWEST:04d}_{NEWEST_NAME}." in out
    assert db.read_bytes() == before
    assert NEWEST not in applied(db)


def test_migrate_backs_up_then_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "club.db"
    older_database(db)
    backups = tmp_path / "backups"
    assert main(["migrate", "--lang", "en", "--db", str(db), "--backup-dir", str(backups)]) == 0
    out = capsys.readouterr().out
    [copy] = list(backups.iterdir())
    assert copy.name.startswith(f"club-before-{NEWEST:04d}-")
    assert copy.suffix == ".db"
    assert f"backup before migrating: {copy}" in out
    assert NEWEST not in applied(copy)  # the copy is the database as it was
    assert NEWEST in applied(db)
    assert main(["migrate", "--lang", "en", "--check", "--db", str(db)]) == 0
    assert f"schema {NEWEST:04d}, up to date" in capsys.readouterr().out
    assert main(["migrate", "--lang", "en", "--db", str(db)]) == 0  # nothing pending: no second backup
    assert "nothing to do" in capsys.readouterr().out
    assert len(list(backups.iterdir())) == 1


def test_a_failing_migration_is_rolled_back_and_the_backup_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "club.db"
    older_database(db)
    broken = (9999, "broken", "CREATE TABLE half_done (a INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")

    def with_broken(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
        return [*migrations(dialect), broken]

    monkeypatch.setattr(storage.database, "migrations", with_broken)
    monkeypatch.setattr(storage.schema, "migrations", with_broken)
    assert main(["migrate", "--lang", "en", "--db", str(db)]) == 1
    captured = capsys.readouterr()
    assert "migration 9999_broken failed and was rolled back: no such table: no_such_table" in captured.err
    [copy] = list(tmp_path.glob("club-before-*.db"))  # beside the database by default
    assert f"the backup taken before migrating: {copy}" in captured.err
    assert applied(db) == {number for number, _, _ in ALL}  # every migration before the broken one
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None


def test_a_database_of_a_newer_release_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    assert main(["migrate", "--lang", "en", "--db", str(db)]) == 0  # a new file: every migration, no backup
    assert not list(tmp_path.glob("club-before-*"))
    capsys.readouterr()
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES (9998, 'from_the_future', '2099-01-01')")
    for argv in (["migrate", "--check", "--db", str(db)], ["migrate", "--db", str(db)]):
        argv += ["--lang", "en"]
        assert main(argv) == 2
        assert "holds 1 migration this release does not carry (9998)" in capsys.readouterr().err


def test_migrate_refuses_while_the_bot_holds_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "club.db"
    older_database(db)
    with DatabaseLock(str(db)):
        assert main(["migrate", "--lang", "en", "--db", str(db)]) == 2
    assert "in use by another Sudija" in capsys.readouterr().err
    assert NEWEST not in applied(db)


def test_run_backs_up_before_migrating_and_refuses_a_newer_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`sudija run` takes the same backup by itself when it finds migrations pending (`prepare_schema`)."""
    import logging  # noqa: PLC0415 (imported where the test needs it)
    from dataclasses import replace  # noqa: PLC0415 (imported where the test needs it)

    from bot.cli.run import prepare_schema  # noqa: PLC0415 (imported where the test needs it)
    from bot.config import Config, ConfigError  # noqa: PLC0415 (imported where the test needs it)

    db = tmp_path / "club.db"
    older_database(db)
    config = replace(Config(), database=str(db))
    log = logging.getLogger("test.run")
    with caplog.at_level(logging.INFO, logger="test.run"):
        asyncio.run(prepare_schema(config, log))
    [copy] = list(tmp_path.glob("club-before-*.db"))
    assert f"the database was backed up first to {copy}" in caplog.text
    asyncio.run(prepare_schema(config, log))  # still pending (prepare_schema only backs up): a second copy
    assert len(list(tmp_path.glob("club-before-*.db"))) == 2
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES (9998, 'from_the_future', '2099-01-01')")
    refused = Catalogue(config.language).t("cli.migrate.too_new", where=str(db), count=1, newer="9998")
    with pytest.raises(ConfigError, match=re.escape(refused)):
        asyncio.run(prepare_schema(config, log))
