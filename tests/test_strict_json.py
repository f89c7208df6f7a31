"""Strict JSON (issue 33, rules.strict_json): a key given twice is refused with the key and its path, and so is NUL
or a line or paragraph separator inside a string — in a game log at import and in a body the game server posts;
JSON without them reads exactly as `json.loads` reads it."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.gameserver.protocol import ProtocolError, decode
from bot.importer import Importer
from rules.gamelog import game_to_doc
from rules.generator import generate_game
from rules.strict_json import StrictJsonError, strict_loads

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1, "a": 2}', "$: the key 'a' is given twice"),
        ('{"deal": {"marko": ["7S"], "ana": [], "marko": ["8S"]}}', "$.deal: the key 'marko' is given twice"),
        ('{"hands": [{"n": 1}, {"n": 2, "n": 3}]}', "$.hands[1]: the key 'n' is given twice"),
        ('{"started_at": "2026-11-20T20:00:00Z\\u0000"}', "$.started_at: the text holds NUL (U+0000) at position 21"),
        ('{"cards": ["7S", "8\\u2028S"]}', "$.cards[1]: the text holds a line separator (U+2028) at position 2"),
        ('{"cards": ["7S\u2029"]}', "$.cards[0]: the text holds a paragraph separator (U+2029) at position 3"),
        ('{"k\\u2028": 1}', "$ (a key): the text holds a line separator (U+2028) at position 2"),
    ],
)
def test_duplicates_and_hidden_separators_are_refused_naming_the_path(text: str, message: str) -> None:
    with pytest.raises(StrictJsonError) as refused:
        strict_loads(text)
    assert str(refused.value) == message


def test_an_escaped_backslash_before_u_is_no_escape() -> None:
    assert strict_loads('{"x": "\\\\u0000"}') == {"x": "\\u0000"}
    assert strict_loads(b'{"x": "\\\\\\\\u2028"}') == {"x": "\\\\u2028"}


ALLOWED = st.characters(exclude_characters="\x00\u2028\u2029")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(ALLOWED),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(ALLOWED, max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_strict_json_reads_what_json_reads(value: object) -> None:
    text = json.dumps(value)
    assert strict_loads(text) == json.loads(text)
    assert strict_loads(json.dumps(value, ensure_ascii=False)) == value


def _log(tmp_path: Path, text: str) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    path = logs / "game.json"
    path.write_text(text, encoding="utf-8")
    return logs


def _game_text() -> str:
    game = generate_game(random.Random(7), 700, hands=2, players=("ana", "marko", "petar"))
    return json.dumps(game_to_doc(game), ensure_ascii=False)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda t: t.replace('"deal": {"ana": ', '"deal": {"marko": ["7S"], "ana": ', 1), "the key 'marko'"),
        (lambda t: t.replace('"rated": true', '"rated": true, "rated": false', 1), "the key 'rated' is given twice"),
        (lambda t: t.replace('"started_at": "2026-11-20T20:00:00Z"', '"started_at": "2026\\u0000-11-20"'), "NUL"),
        (lambda t: t.replace('"9S"', '"9\\u2028S"', 1), "a line separator (U+2028)"),
    ],
    ids=["a player twice in the deal", "a key twice", "NUL in started_at", "U+2028 in a card"],
)
async def test_the_import_refuses_a_log_that_is_not_strict_json(tmp_path: Path, change: object, named: str) -> None:
    text = _game_text()
    changed = change(text)  # type: ignore[operator]
    assert changed != text
    logs = _log(tmp_path, changed)
    report = await Importer(str(tmp_path / "club.db"), jobs=1, now=lambda: NOW).run([logs])
    assert report.imported == 0
    messages = "\n".join(report.messages())
    assert named in messages, messages
    assert "$" in messages
    with sqlite3.connect(tmp_path / "club.db") as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_a_game_server_body_with_a_key_twice_is_refused_naming_it() -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(b'{"id": "e1", "type": "game_started", "data": {"players": ["a", "b", "c"], "players": []}}')
    assert refused.value.status == 400
    assert refused.value.field == "$.data.players"
    assert "the key 'players' is given twice" in str(refused.value)
    with pytest.raises(ProtocolError, match="U\\+0000"):
        decode(b'{"id": "e\\u0000", "type": "game_started"}')
