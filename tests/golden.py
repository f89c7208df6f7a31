"""The reference solver's answers as golden data: `solve` and `solve_tricks` answer as `rules.arbitar.dds_reference`
does, read from tests/data/solver_reference.jsonl instead of searched again on every run.

The pure-Python reference is a full minimax without pruning, thousands of times slower than the native solver; the
tests that compare the two on hundreds of seeded random positions would spend most of the suite's time in it. Its
answers do not change unless the reference does, so they are recorded once (`python tests/data/regenerate.py`,
which replays those tests with the live reference and rewrites the file) and looked up here. The file's first line
holds a fingerprint of the reference's code (its syntax tree without docstrings): tests/test_golden.py fails with the
command to run when the reference changed since, and checks a seeded sample of the recorded answers against the live
reference on every run, so the reference itself stays tested.

A position the file does not hold is an error naming the command, never a silent live search: a new test of this
kind shows up as a change to the data, once.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from rules.arbitar import dds_reference as ref

DATA = Path(__file__).parent / "data" / "solver_reference.jsonl"
RECORD = "SUDIJA_GOLDEN_RECORD"  # set (to 1) by tests/data/regenerate.py: answer live and remember every answer
REGENERATE = "python tests/data/regenerate.py"

Key = tuple[str, tuple[int, int, int], int | None, bool, int, int, tuple[int, ...], int | None, int | None]
recorded: dict[Key, Any] = {}  # what a recording run answered, written out by tests/data/regenerate.py


class MissingAnswer(LookupError):
    """A position the golden data does not hold: the message says how to record it."""


def fingerprint() -> str:
    """A hash of the reference's code, blind to its docstrings and comments: it changes when what it computes may."""
    source = Path(ref.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def key_of(
    kind: str,
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
    cap: int | None = None,
) -> Key:
    return (kind, (hands[0], hands[1], hands[2]), trump, bool(betl), declarer, to_move, tuple(trick), trick_leader, cap)


def encode(key: Key, answer: Any) -> str:
    kind, hands, trump, betl, declarer, to_move, trick, leader, cap = key
    value = sorted(answer.items()) if isinstance(answer, dict) else answer
    return json.dumps([kind, list(hands), trump, betl, declarer, to_move, list(trick), leader, cap, value])


def decode(line: str) -> tuple[Key, Any]:
    kind, hands, trump, betl, declarer, to_move, trick, leader, cap, value = json.loads(line)
    key = key_of(kind, tuple(hands), trump, betl, declarer, to_move, tuple(trick), leader, cap)
    return key, ({int(card): tricks for card, tricks in value} if kind == "solve" else value)


def read(path: Path = DATA) -> tuple[str, dict[Key, Any]]:
    """The fingerprint the file was recorded with and its answers."""
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    header = json.loads(next(lines))
    return str(header["reference"]), dict(decode(line) for line in lines)


def write(answers: dict[Key, Any], path: Path = DATA) -> None:
    """The answers, one JSON array a line (in a stable order, so a regeneration's diff shows what changed)."""
    header = json.dumps({"reference": fingerprint(), "regenerate": REGENERATE})
    body = sorted(encode(key, answer) for key, answer in answers.items())
    path.write_text("\n".join([header, *body]) + "\n", encoding="utf-8")


@cache
def answers() -> dict[Key, Any]:
    return read()[1]


def recording() -> bool:
    return os.environ.get(RECORD) == "1"


def _answer(key: Key) -> Any:
    if recording():
        kind, hands, trump, betl, declarer, to_move, trick, leader, cap = key
        if kind == "solve":
            answer: Any = ref.solve(hands, trump, betl, declarer, to_move, trick, leader, cap)
        else:
            answer = ref.solve_tricks(hands, trump, betl, declarer, to_move, trick, leader)
        recorded[key] = answer
        return answer
    found = answers().get(key)
    if found is None:
        raise MissingAnswer(f"{DATA.name} holds no reference answer for {key}: record it with `{REGENERATE}`")
    return dict(found) if isinstance(found, dict) else found


def solve(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
    cap: int | None = None,
) -> dict[int, int]:
    """`dds_reference.solve`'s answer: every legal card of `to_move` and the declarer's tricks after it."""
    answer: dict[int, int] = _answer(key_of("solve", hands, trump, betl, declarer, to_move, trick, trick_leader, cap))
    return answer


def solve_tricks(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
) -> int:
    """`dds_reference.solve_tricks`'s answer: the value of the position under optimal play."""
    answer: int = _answer(key_of("tricks", hands, trump, betl, declarer, to_move, trick, trick_leader))
    return answer


def live(key: Key) -> Any:
    """The live reference's answer for a recorded key."""
    kind, hands, trump, betl, declarer, to_move, trick, leader, cap = key
    if kind == "solve":
        return ref.solve(hands, trump, betl, declarer, to_move, trick, leader, cap)
    return ref.solve_tricks(hands, trump, betl, declarer, to_move, trick, leader)


def cards_in(key: Key) -> int:
    """How many cards the position's hands hold: what the live reference's cost grows with."""
    return sum(hand.bit_count() for hand in key[1])
