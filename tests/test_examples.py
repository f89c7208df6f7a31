"""The shipped example logs: each is a legal game, matches the JSON Schema, and together they cover the cases
docs/game-log.md promises (finished, interrupted, in progress, unrated, AI; kontra, zovem, betl, sans, igra,
refe, nobody follows, a declarer's fall, a defender's fall)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rules.gamelog import Contract, Decision, Game, GameStatus, Strain, game_to_doc, parse_game
from rules.paper import compute_paper
from rules.play import replay, stop_point
from rules.validation import check_game

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((ROOT / "docs" / "game-log.schema.json").read_text(encoding="utf-8"))


def _documents(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    value = json.loads(text)
    return value if isinstance(value, list) else [value]


FILES = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".json", ".jsonl"))
DOCS = [(path.name, doc) for path in FILES for doc in _documents(path)]


def test_there_are_example_files_of_each_form() -> None:
    suffixes = {p.suffix for p in FILES}
    assert suffixes == {".json", ".jsonl"}
    arrays = [p for p in FILES if p.suffix == ".json" and p.read_text(encoding="utf-8").lstrip().startswith("[")]
    assert arrays, "at least one example is a JSON array of games"


@pytest.mark.parametrize(("name", "doc"), DOCS, ids=[f"{n}:{d.get('game')}" for n, d in DOCS])
def test_example_is_a_legal_game_and_round_trips(name: str, doc: dict[str, Any]) -> None:
    game = check_game(doc)
    assert parse_game(json.loads(json.dumps(game_to_doc(game)))) == game
    assert schema_problems(doc, SCHEMA) == []
    paper = compute_paper(game)
    if game.status is GameStatus.FINISHED:
        assert paper.end_hand == len(game.hands)  # it ends exactly where the paper ends it
    else:
        assert not paper.ended


# --- coverage ------------------------------------------------------------------------------------------------


def _features(game: Game) -> set[str]:
    seen = {game.status.value}
    if not game.rated:
        seen.add("unrated")
    if game.ai:
        seen.add("ai")
    if game.abandoned_by:
        seen.add("abandoned_by")
    if game.hands and not game.hands[-1].completed:
        seen.add("last hand unfinished")
    for hand in game.hands:
        if not hand.completed:
            continue
        if hand.declarer is None or hand.contract is None:
            seen.add("refe")
            continue
        contract = hand.contract
        seen.add(contract.strain.serbian)
        decisions = list(hand.defense.values())
        if contract.igra:
            seen.add("igra")
        if hand.kontra:
            seen.add("kontra")
        if len(hand.kontra) >= 2:
            seen.add("rekontra")
        if Decision.CALLS in decisions:
            seen.add("zovem")
        if all(d is Decision.PASSES for d in decisions):
            seen.add("nobody follows")
            continue
        if contract == Contract(Strain.PIK) and hand.kontra:
            seen.add("bid pik with kontra")
        if not hand.tricks:
            continue
        result = replay(hand)
        upto = stop_point(hand, result)
        mine = result.won(hand.declarer, upto)
        if (mine > 0) if contract.strain is Strain.BETL else (mine < 6):
            seen.add("declarer falls")
            continue
        if contract.strain is Strain.BETL:
            continue
        together = sum(result.won(s, upto) for s in range(3) if s != hand.declarer)
        playing = [s for s, d in hand.defense.items() if d is not Decision.PASSES]
        if hand.kontra:
            fell = together < 5
        elif Decision.CALLS in decisions:
            fell = together < 4
        elif len(playing) == 1:
            fell = result.won(playing[0], upto) < 2
        else:
            fell = together < 4 and any(result.won(s, upto) < 2 for s in playing)
        if fell:
            seen.add("defender falls")
    return seen


def test_examples_cover_the_promised_cases() -> None:
    seen: set[str] = set()
    for _, doc in DOCS:
        seen |= _features(parse_game(doc))
    promised = {
        GameStatus.FINISHED.value,
        GameStatus.INTERRUPTED.value,
        GameStatus.IN_PROGRESS.value,
        "unrated",
        "ai",
        "abandoned_by",
        "last hand unfinished",
        "refe",
        "kontra",
        "rekontra",
        "zovem",
        "betl",
        "sans",
        "igra",
        "nobody follows",
        "bid pik with kontra",
        "declarer falls",
        "defender falls",
    }
    assert promised <= seen, promised - seen


# --- a tiny JSON Schema checker (the subset game-log.schema.json uses) ----------------------------------------

_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def schema_problems(
    value: Any, schema: dict[str, Any], path: str = "$", root: dict[str, Any] | None = None
) -> list[str]:
    """Problems of `value` against `schema`: type, required, properties, additionalProperties, items, enum,
    const, minimum, maximum, multipleOf, minLength, pattern, min/maxItems, maxProperties, anyOf, local $ref."""
    root = root if root is not None else schema
    out: list[str] = []
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        out += schema_problems(value, target, path, root)
    kind = schema.get("type")
    if kind is not None:
        if kind == "integer":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "number":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, _TYPES[kind])
        if not ok:
            return [*out, f"{path}: expected {kind}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if "anyOf" in schema and all(schema_problems(value, s, path, root) for s in schema["anyOf"]):
        out.append(f"{path}: matches none of the alternatives")
    if isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: above {schema['maximum']}")
        if "multipleOf" in schema and value % schema["multipleOf"]:
            out.append(f"{path}: not a multiple of {schema['multipleOf']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            out.append(f"{path}: {len(value)} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += schema_problems(item, schema["items"], f"{path}[{i}]", root)
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing {key!r}")
        if len(value) > schema.get("maxProperties", len(value)):
            out.append(f"{path}: too many properties")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += schema_problems(item, props[key], f"{path}.{key}", root)
            elif extra is False:
                out.append(f"{path}: unexpected {key!r}")
            elif isinstance(extra, dict):
                out += schema_problems(item, extra, f"{path}.{key}", root)
    return out


def test_the_schema_checker_catches_structural_mistakes() -> None:
    doc = json.loads(json.dumps(DOCS[0][1]))
    assert schema_problems(doc, SCHEMA) == []
    broken = json.loads(json.dumps(doc))
    del broken["players"]
    broken["bule"] = 61
    broken["hands"][0]["deal"][doc["players"][0]] = ["AS", "ZZ"]
    broken["hands"][0]["bids"].append({"player": "ana", "call": "8"})
    broken["status"] = "over"
    problems = schema_problems(broken, SCHEMA)
    assert any("missing 'players'" in p for p in problems)
    assert any(p.startswith("$.bule: not a multiple") for p in problems)
    assert any("'ZZ' does not match" in p for p in problems)
    assert any(".deal." in p and "2 items" in p for p in problems)
    assert any(".call: '8' not in" in p for p in problems)
    assert any(p.startswith("$.status:") for p in problems)
