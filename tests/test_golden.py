"""The golden data of the reference solver (tests/golden.py, tests/data/solver_reference.jsonl): recorded from the
reference as it is now, and still its answers — a seeded sample of them, of every kind of position the file holds,
is searched again by the live reference on every run."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import golden

SAMPLE = 60  # recorded answers searched again live per run: positions of up to 12 cards (a few ms each) ...
LARGER = 4  # ... and a few of the larger ones (13 to 15 cards)


def test_the_data_was_recorded_from_the_reference_as_it_is() -> None:
    recorded_from, answers = golden.read()
    assert recorded_from == golden.fingerprint(), (
        "rules/arbitar/dds_reference.py changed since tests/data/solver_reference.jsonl was recorded:"
        f" run `{golden.REGENERATE}` and commit the file"
    )
    assert len(answers) > 4000
    assert {key[0] for key in answers} == {"solve", "tricks"}


def test_a_sample_of_the_recorded_answers_is_the_live_references() -> None:
    answers = golden.answers()
    rng = random.Random(20261130)
    small = [key for key in answers if golden.cards_in(key) <= 12]
    larger = [key for key in answers if 12 < golden.cards_in(key) <= 15]
    sample = rng.sample(small, SAMPLE) + rng.sample(larger, LARGER)
    assert {key[0] for key in sample} == {"solve", "tricks"}  # both kinds of answer
    assert {key[3] for key in sample} == {True, False}  # betl and the others
    assert any(key[6] for key in sample)  # positions in the middle of a trick
    for key in sample:
        assert golden.live(key) == answers[key], key


def test_the_fingerprint_ignores_docstrings_but_not_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Path(golden.ref.__file__).read_text(encoding="utf-8")
    copy = tmp_path / "dds_reference.py"
    monkeypatch.setattr(golden.ref, "__file__", str(copy))
    reworded = source.replace('"""The reference double-dummy solver', '"""A reworded docstring:')
    assert reworded != source
    copy.write_text(reworded, encoding="utf-8")
    assert golden.fingerprint() == golden.read()[0]
    changed = source.replace("return max(outcomes) if", "return min(outcomes) if")
    assert changed != source
    copy.write_text(changed, encoding="utf-8")
    assert golden.fingerprint() != golden.read()[0]


def test_a_position_it_does_not_hold_names_the_command_that_records_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(golden.RECORD, raising=False)
    with pytest.raises(golden.MissingAnswer, match=r"record it with `python tests/data/regenerate\.py`"):
        golden.solve((0b111, 0b111000, 0b111000000), None, False, 0, 0)


def test_an_answer_handed_out_is_a_copy() -> None:
    key = next(key for key in golden.answers() if key[0] == "solve")
    _, hands, trump, betl, declarer, to_move, trick, leader, cap = key
    first = golden.solve(hands, trump, betl, declarer, to_move, trick, leader, cap)
    first.clear()
    assert golden.solve(hands, trump, betl, declarer, to_move, trick, leader, cap) == golden.answers()[key] != {}


def test_written_and_read_back_the_answers_are_the_same(tmp_path: Path) -> None:
    answers = dict(list(golden.answers().items())[:50])
    path = tmp_path / "answers.jsonl"
    golden.write(answers, path)
    assert golden.read(path) == (golden.fingerprint(), answers)
