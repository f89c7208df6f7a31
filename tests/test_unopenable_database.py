"""A database path that cannot be opened — a folder, a file that is no SQLite database — is answered in the command
line's language with what to do, on every command that opens the club's database, never with SQLite's traceback;
and nothing is written there."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.messages import Catalogue
from storage.database import open_database
from storage.errors import DatabaseUnavailable

SR = Catalogue("sr")


@pytest.fixture
def not_a_database(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("ovo nije baza\n" * 200, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["games"],
        ["papir", "1"],
        ["presude", "1"],
        ["clan", "ana"],
        ["statistika"],
        ["migrate"],
        ["console"],
        ["console", "--read-only"],
    ],
)
def test_a_folder_or_a_file_that_is_no_database_is_answered_not_traced(
    argv: list[str],
    tmp_path: Path,
    not_a_database: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "klub"
    folder.mkdir()
    before = not_a_database.read_bytes()
    assert main([*argv, "--lang", "sr", "--db", str(not_a_database)]) == 2
    err = capsys.readouterr().err
    assert err == SR.t("db.unavailable.not_a_database", db=str(not_a_database)) + "\n"
    assert not_a_database.read_bytes() == before
    assert not Path(f"{not_a_database}.lock").exists()  # refused before any lock file is made beside it
    if argv == ["console", "--read-only"]:
        return  # a read-only console never opens a folder: it is not a file to read (`cli.no_db`)
    assert main([*argv, "--lang", "sr", "--db", str(folder)]) == 2
    assert capsys.readouterr().err == SR.t("db.unavailable.cannot_open", db=str(folder)) + "\n"
    assert list(folder.iterdir()) == []
    assert not Path(f"{folder}.lock").exists()


async def test_the_storage_says_which_path_it_could_not_open(tmp_path: Path, not_a_database: Path) -> None:
    with pytest.raises(DatabaseUnavailable) as raised:
        await open_database(tmp_path)
    assert (raised.value.key, raised.value.values) == ("db.unavailable.cannot_open", {"db": str(tmp_path)})
    with pytest.raises(DatabaseUnavailable) as raised:
        await open_database(not_a_database)
    assert (raised.value.key, raised.value.values) == ("db.unavailable.not_a_database", {"db": str(not_a_database)})
    with pytest.raises(DatabaseUnavailable) as raised:
        await open_database(not_a_database, read_only=True)
    assert raised.value.key == "db.unavailable.not_a_database"
