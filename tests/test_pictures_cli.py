"""The pictures from the command line: `sudija papir GAME --png FILE`, `sudija ruka GAME N --png FILE` and
`sudija arbitar LOG ... --png FILE` write the PNG and print its path; a file that cannot be written, an unknown
hand: a message and exit status 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_arbitar import RUINED_BOTH
from test_arbitar_cli import write
from test_paper_cli import db_file  # noqa: F401  (the fixture)

from bot.cli import main
from bot.pictures.draw import MAX_PNG_BYTES

PNG = b"\x89PNG\r\n\x1a\n"


def test_papir_png(db_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    out = tmp_path / "papir.png"
    assert main(["papir", "1847258", "--db", db_file, "--png", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("PNG: " + str(out))
    assert "Papir partije 1847258" in printed
    data = out.read_bytes()
    assert data.startswith(PNG)
    assert len(data) < MAX_PNG_BYTES
    assert main(["papir", "1847258", "--db", db_file, "--png", str(tmp_path / "again.png")]) == 0
    assert (tmp_path / "again.png").read_bytes() == data


def test_papir_png_with_json_keeps_stdout_pure(
    db_file: str,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "p.png"
    assert main(["papir", "1847258", "--db", db_file, "--json", "--png", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.lstrip().startswith("{")
    assert f"PNG: {out}" in captured.err


def test_papir_png_unwritable(db_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    target = tmp_path / "no" / "such" / "dir.png"
    assert main(["papir", "1847258", "--db", db_file, "--png", str(target), "--lang", "en"]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert not target.exists()


def test_ruka_png(db_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    out = tmp_path / "ruka.png"
    assert main(["ruka", "1847258", "2", "--db", db_file, "--png", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"PNG: {out}" in printed
    assert "Ruka 2" in printed
    assert "Ruka 1," not in printed
    assert out.read_bytes().startswith(PNG)
    assert main(["ruka", "1847258", "99", "--db", db_file, "--png", str(out), "--lang", "en"]) == 1
    assert "has no hand 99" in capsys.readouterr().err


def test_arbitar_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "arbitar.png"
    log = write(tmp_path, RUINED_BOTH)
    assert main(["arbitar", str(log), "--hand", "1", "--fallen", "marko", "--png", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"PNG: {out}" in printed
    assert "pad se prebacuje" in printed
    assert out.read_bytes().startswith(PNG)
