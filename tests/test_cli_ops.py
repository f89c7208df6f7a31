"""The command line as an operator meets it: ``--config`` after the sub-command (a service's command line), ``sudija
--version``, and what a read command says when the database it looked for is not there (the file's full path, and
the demo club's file when it is in this folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from storage.database import migrations

EXAMPLES = Path(__file__).parent.parent / "examples"


def english_club(tmp_path: Path) -> str:
    config = tmp_path / "config.toml"
    config.write_text('[club]\nlanguage = "en"\n', encoding="utf-8")
    return str(config)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--config", "/etc/sudija/config.toml"], "/etc/sudija/config.toml"),
        (["--config", "/etc/sudija/config.toml", "run"], "/etc/sudija/config.toml"),
        (["backup", "copy.db", "--config", "c.toml"], "c.toml"),
        (["--config", "before.toml", "games", "--config", "after.toml"], "after.toml"),  # the last one given
        (["games"], None),
    ],
)
def test_config_is_taken_before_and_after_the_sub_command(argv: list[str], expected: str | None) -> None:
    assert build_parser().parse_args(argv).config == expected


def test_every_sub_command_takes_config_after_its_name() -> None:
    parser = build_parser()
    commands = [name for name in parser._subparsers._group_actions[0].choices]  # type: ignore[union-attr]
    assert {"run", "backup", "check", "import", "papir", "migrate"} <= set(commands)
    for name in commands:
        needs = {"papir": ["1"], "presude": ["1"], "ruka": ["1", "1", "--png", "x.png"], "backup": ["x.db"]}
        needs |= {"import": ["x"], "arbitar": ["x", "--hand", "1", "--fallen", "a"], "gameserver": ["--demo"]}
        needs |= {"rezon": ["--trump", "S", "--cards", "x"], "gameserver-check": ["http://x"]}
        assert parser.parse_args([name, *needs.get(name, []), "--config", "c.toml"]).config == "c.toml", name


def test_config_after_the_sub_command_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = english_club(tmp_path)
    missing = str(tmp_path / "none.db")
    assert main(["games", "--db", missing, "--config", config]) == 1
    assert capsys.readouterr().err.startswith(f"The database {missing} does not exist;")  # the club's English
    assert main(["games", "--config", str(tmp_path / "absent.toml")]) == 2
    assert "absent.toml does not exist" in capsys.readouterr().err


def test_version_names_the_release_the_schema_and_python(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    line = capsys.readouterr().out.strip()
    newest = max(number for number, _, _ in migrations())
    assert re.fullmatch(rf"sudija \S+ \(schema {newest:04d}, Python 3\.\d+\.\d+\)", line), line


def test_a_missing_database_names_the_file_looked_for_and_the_demo_clubs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make run` made sudija-demo.db in this folder; `sudija papir 1847320` looks for the configured sudija.db."""
    monkeypatch.chdir(tmp_path)
    assert main(["papir", "1847320"]) == 1
    said = capsys.readouterr().err
    assert said.startswith("Baza sudija.db ne postoji; nema datoteke " + str(tmp_path / "sudija.db"))
    assert "sudija-demo.db" not in said  # no demo club here: no hint
    (tmp_path / "sudija-demo.db").write_bytes(b"")
    for argv in (["papir", "1847320"], ["presude", "1847320"], ["games"], ["statistika"], ["clan", "ana"]):
        assert main(argv) == 1, argv
        said = capsys.readouterr().err
        assert str(tmp_path / "sudija.db") in said, argv
        assert "Demo klub (`make run`) je u sudija-demo.db: dodajte --db sudija-demo.db." in said, argv
    assert not (tmp_path / "sudija.db").exists()  # a read command never creates an empty database
    assert main(["papir", "1", "--db", "sudija-demo.db"]) == 1  # the demo club itself: no hint to itself
    assert "Demo klub" not in capsys.readouterr().err
