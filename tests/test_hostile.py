"""The hostile-input corpus (`tests/data/hostile/`, plus big files made at test time): every file is refused with
its own message naming the file and the place (line, game, hand, field), the rest of the batch is imported, and
the database ends exactly as if only the good files had been given (compared byte for byte)."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from log_words import refused_with

from bot.cli import main
from bot.importer import Importer
from rules.gamelog import GameStatus, LogError, game_to_doc, read_game
from rules.generator import generate_game
from rules.limits import MAX_DEPTH, too_deep
from storage.database import open_database

CORPUS = Path(__file__).resolve().parent / "data" / "hostile"
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)

#: file name -> what its refusal must say (each message also starts with the file's path)
EXPECTED = {
    "game_number_2_70.json": "game 1180591620717411303424: the field 'game' is 1180591620717411303424, beyond 2^53",
    "game_number_beyond_2_53.jsonl": "line 2: game 9007199254740993: the field 'game' is 9007199254740993, beyond 2^53",
    "hand_number_2_64.jsonl": "line 1: game 7003, hand 2: hands must be numbered 1, 2, 3 … in order; this one says "
    "n = 18446744073709551616",
    "nested_40_in_a_hand.jsonl": f"line 1: game 7004, hand 1: the field 'note' is nested more than {MAX_DEPTH} levels",
    "time_beyond_9999.jsonl": "line 1: game 7005: 'ended_at': time '9999-12-31T23:59:59-01:00' is out of range",
    "card_5000_chars.jsonl": "line 1: game 7006, hand 1: the deal of",
    "game_number_negative.jsonl": "line 1: game -5: the game number must be positive",
    "score_10_30.jsonl": "line 1: game 7008, hand 1: nikola's score 'bule' must be from -1000000 to 1000000, not "
    "100000000000… (31 digits)",
    "game_number_float.jsonl": "line 1: game ?: the field 'game' must be a whole number, not inf",
    "not_json.jsonl": "line 1, column 25: not valid JSON",
    # made at test time (too big to keep in the repository)
    "nested_200000.json": f"the file: the JSON is nested more than {MAX_DEPTH} levels deep",
    "nested_200000_in_a_line.jsonl": f"line 2: the JSON is nested more than {MAX_DEPTH} levels deep",
    "number_5000_digits.jsonl": "line 1: a number in it has more than 4300 digits",
    "nick_1000_chars.jsonl": "line 1: game 7020: player 1 ",
    "bomb.jsonl.gz": "the gzip data unpacks to more than",
}


def good_doc(number: int) -> dict[str, Any]:
    game = generate_game(random.Random(number), number, hands=3, status=GameStatus.FINISHED)
    doc: dict[str, Any] = json.loads(json.dumps(game_to_doc(game)))
    return doc


def make_big_files(folder: Path) -> None:
    (folder / "nested_200000.json").write_bytes(b"[" * 200_000 + b"]" * 200_000)
    line = json.dumps(good_doc(7030)).encode()
    (folder / "nested_200000_in_a_line.jsonl").write_bytes(
        line + b"\n" + b'{"game": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n"
    )
    text = json.dumps(good_doc(7021)).replace('"game": 7021', '"game": ' + "7" * 5000)
    (folder / "number_5000_digits.jsonl").write_text(text + "\n", encoding="utf-8")
    doc = good_doc(7020)
    old = doc["players"][0]
    (folder / "nick_1000_chars.jsonl").write_text(
        json.dumps(doc).replace(json.dumps(old), json.dumps("n" * 1000)) + "\n", encoding="utf-8"
    )
    (folder / "bomb.jsonl.gz").write_bytes(gzip.compress(b" " * (3 << 20), 9))


async def import_into(db_file: Path, paths: list[Path], limits: Any = None) -> Any:
    from rules.logfile import Limits  # noqa: PLC0415 (imported where the test needs it)

    importer = Importer(str(db_file), jobs=0, now=lambda: NOW, limits=limits or Limits(text_bytes=2 << 20))
    return await importer.run(paths)


async def test_every_hostile_file_is_refused_by_name_and_the_rest_of_the_batch_is_imported(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    shutil.copytree(CORPUS, batch)
    make_big_files(batch)
    good = batch / "good.jsonl"
    good.write_text("".join(json.dumps(good_doc(n)) + "\n" for n in (8001, 8002)), encoding="utf-8")
    (batch / "zz_good.json").write_text(json.dumps(good_doc(8003)), encoding="utf-8")
    empty = tmp_path / "empty.db"
    await (await open_database(empty)).close()
    with_hostile, only_good = tmp_path / "a.db", tmp_path / "b.db"
    shutil.copy(empty, with_hostile)
    shutil.copy(empty, only_good)

    report = await import_into(with_hostile, [batch])
    messages = report.messages()
    for name, wanted in EXPECTED.items():
        mine = [m for m in messages if m.startswith(f"{batch / name}: ")]
        assert any(wanted in m for m in mine), (name, mine)
        assert any(m.endswith(")") and "nothing imported from this file (" in m for m in mine), (name, mine)
    assert all(len(m) < 600 for m in messages), max(messages, key=len)[:200]
    assert report.imported == 3
    assert report.files_with_errors == len(EXPECTED)

    await import_into(only_good, [good, batch / "zz_good.json"])
    assert with_hostile.read_bytes() == only_good.read_bytes()


def test_the_command_line_refuses_the_corpus_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "batch"
    shutil.copytree(CORPUS, batch)
    make_big_files(batch)
    (batch / "good.jsonl").write_text(json.dumps(good_doc(8004)) + "\n", encoding="utf-8")
    status = main(["import", str(batch), "--db", str(tmp_path / "club.db"), "--jobs", "1", "--lang", "en"])
    captured = capsys.readouterr()
    assert status == 1
    assert "Traceback" not in captured.err
    assert "Imported 1 game" in captured.out
    assert f"{len(EXPECTED)} files with errors" in captured.out


@pytest.mark.parametrize(
    "name", ["nested_200000.json", "number_5000_digits.jsonl", "game_number_2_70.json", "nested_40_in_a_hand.jsonl"]
)
def test_sudija_arbitar_refuses_a_hostile_log_with_a_message(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make_big_files(tmp_path)
    path = tmp_path / name if (tmp_path / name).exists() else CORPUS / name
    status = main(["arbitar", str(path), "--hand", "1", "--fallen", "x", "--lang", "en"])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("sudija arbitar: ")
    assert "Traceback" not in err
    assert "nested more than" in err or "digits" in err or "beyond 2^53" in err


def test_depth_is_measured_without_recursion_and_a_deep_unread_field_is_refused_by_the_fast_reader_too() -> None:
    value: Any = "x"
    for _ in range(100_000):
        value = [value]
    assert too_deep(value) is not None
    assert len(too_deep(value) or []) == MAX_DEPTH
    doc = good_doc(7040)
    doc["extra"] = value
    with refused_with(r"game 7040: the field 'extra' is nested more than", LogError):
        read_game(doc)
    doc["extra"] = [[["shallow"]]]
    game, canonical = read_game(doc)
    assert game.number == 7040
    assert canonical is None
