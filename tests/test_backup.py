"""`sudija backup FILE`: a consistent copy taken while another connection writes (an open transaction is not
in it), checked, never overwriting a file; restoring the copy gives back the club as it was."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.messages import Catalogue
from club import make_club
from storage.database import open_database


async def test_a_backup_taken_during_a_write_is_consistent_and_restores_the_club(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    club = await make_club(tmp_path)
    ana = await club.member("ana")
    await club.game(500)
    assert (await club.desk.calls.call(ana, 500)).ok
    db_path = tmp_path / "club.db"
    writer = sqlite3.connect(db_path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another process mid-write: its rows must not be in the copy
        writer.execute("INSERT INTO members (nick, created_at) VALUES ('duh', 'x')")
        status = main(["backup", str(tmp_path / "copy.db"), "--db", str(db_path)])
        writer.execute("COMMIT")
    finally:
        writer.close()
    out = capsys.readouterr().out
    assert status == 0
    assert "copy.db" in out
    assert re.search(r"\(\d+(,\d)? (KB|MB)\)\.$", out.strip()), out  # the club's units and decimal sign
    await club.advance(timedelta(minutes=6))  # the club goes on after the backup: the call expires
    await club.db.close()

    restored = tmp_path / "restored.db"
    restored.write_bytes((tmp_path / "copy.db").read_bytes())  # restore: the copy in a database's place
    db = await open_database(restored)
    try:
        assert [c.state for c in await db.calls.for_game(500)] == ["pending"]  # as at the backup
        assert await db.members.by_nick("duh") is None
        assert await db.members.by_nick("ana") is not None
        async with db.connection.execute("PRAGMA integrity_check") as cursor:
            assert [r[0] for r in await cursor.fetchall()] == ["ok"]
    finally:
        await db.close()


def test_an_existing_file_is_never_overwritten_and_a_missing_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "copy.db"
    target.write_text("keep me")
    db_path = tmp_path / "club.db"
    sqlite3.connect(db_path).close()
    assert main(["backup", str(target), "--db", str(db_path)]) == 1
    assert "već postoji" in capsys.readouterr().err
    assert target.read_text() == "keep me"
    assert main(["backup", str(tmp_path / "new.db"), "--db", str(tmp_path / "none.db")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Rezervna kopija nije napravljena")
    assert "Traceback" not in err
    assert not (tmp_path / "new.db").exists()
    assert not (tmp_path / "none.db").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_why_a_backup_was_not_made_is_said_in_the_language_and_nothing_is_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that is not there, a file that is no database: the operator is told which, in the club's words,
    never SQLite's own English ("unable to open database file", "file is not a database")."""
    words = Catalogue("sr")
    db_path = tmp_path / "club.db"
    sqlite3.connect(db_path).close()
    target = tmp_path / "no" / "such" / "copy.db"
    assert main(["backup", str(target), "--db", str(db_path)]) == 1
    said = words.t("backup.failed", why=words.t("backup.why.cannot_write", target=str(target)))
    assert capsys.readouterr().err == said + "\n"
    notes = tmp_path / "notes.txt"
    notes.write_text("nije baza\n" * 100, encoding="utf-8")
    copy = tmp_path / "copy.db"
    assert main(["backup", str(copy), "--db", str(notes)]) == 1
    said = words.t("backup.failed", why=words.t("backup.why.not_a_database", db=str(notes)))
    assert capsys.readouterr().err == said + "\n"
    assert not copy.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.db", "notes.txt"]
