"""`sudija arbitar LOG --hand N --fallen NICK [--json]`: the verdict from a game-log file in every form the
importer reads, the stable JSON keys, the text form, and exit status 1 with a message for what cannot be judged."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from test_arbitar import FALLEN_ERRED, RUINED_BOTH, STEP2_NOT_OBVIOUS, build

from bot.cli import main
from rules.gamelog import game_to_doc

KEYS = ["decision", "to", "step", "reason", "evidence"]


def write(tmp_path: Path, spec: dict[str, object], name: str = "game.json") -> Path:
    path = tmp_path / name
    text = json.dumps(game_to_doc(build(spec)))
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["arbitar", *args, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_transfer_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, str(write(tmp_path, RUINED_BOTH)), "--hand", "1", "--fallen", "marko")
    assert list(out) == KEYS
    assert (out["decision"], out["to"], out["step"]) == ("transfer", "petar", 1)
    evidence = out["evidence"]
    assert isinstance(evidence, dict)
    assert (evidence["trick"], evidence["card"], evidence["better_card"]) == (8, "Q♠", "Q♦")


def test_stays_json_and_gzip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, str(write(tmp_path, FALLEN_ERRED, "game.json.gz")), "--hand", "1", "--fallen", "MARKO")
    assert (out["decision"], out["to"], out["step"]) == ("stays", None, 1)


def test_same_bytes_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, FALLEN_ERRED))
    assert main(["arbitar", path, "--hand", "1", "--fallen", "marko", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["arbitar", path, "--hand", "1", "--fallen", "marko", "--json"]) == 0
    assert capsys.readouterr().out == first


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arbitar", str(write(tmp_path, STEP2_NOT_OBVIOUS)), "--hand", "1", "--fallen", "marko"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Arbitar, partija 1, ruka 1: pad ostaje igraču marko (korak 2)."
    assert lines[1] == "Razlog: nije očigledna greška"
    assert "  Rezoni igrača petar: 2, asova: 1 — praćenje nije očigledno loše." in lines  # rezons_other: 2.0


def test_file_with_several_games_needs_a_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = game_to_doc(build(RUINED_BOTH))
    second = dict(game_to_doc(build(FALLEN_ERRED)), game=2)
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    assert main(["arbitar", str(path), "--hand", "1", "--fallen", "marko"]) == 1
    assert "--game" in capsys.readouterr().err
    out = run_json(capsys, str(path), "--hand", "1", "--fallen", "marko", "--game", "2")
    assert out["decision"] == "stays"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "1", "--fallen", "nobody"], "nobody is not a player of game 1"),
        (["--hand", "1", "--fallen", "petar"], "petar did not fall in hand 1"),
        (["--hand", "1", "--fallen", "ana"], "not a defender"),
        (["--hand", "7", "--fallen", "marko"], "has no hand 7"),
    ],
)
def test_nothing_to_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["arbitar", str(write(tmp_path, RUINED_BOTH)), *args, "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sudija arbitar: ")
    assert message in err


def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arbitar", str(tmp_path / "missing.json"), "--hand", "1", "--fallen", "marko", "--lang", "en"]) == 1
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["arbitar", str(bad), "--hand", "1", "--fallen", "marko", "--lang", "en"]) == 1
    assert "no readable game" in capsys.readouterr().err
    illegal = game_to_doc(build(RUINED_BOTH))
    illegal["hands"][0]["tricks"][0] = ["AS", "AS", "8S"]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(illegal))
    assert main(["arbitar", str(path), "--hand", "1", "--fallen", "marko"]) == 1
    assert capsys.readouterr().err.startswith("sudija arbitar: ")
