"""A game log's problems (`rules.problems`) in a reader's words: the place (``red 3, partija 5, ruka 2``), then
what is wrong, each from the catalogue (``log.at.*``, ``log.*``) in the reader's language and script (the values
written by `bot.i18n.phrases`, as every phrase is).

`problem_text(problem, t)` writes one; `ENGLISH` is the canonical English rendering the game-server protocol
answers a game server with (a text for a machine and its operator's log, docs/game-server.md). An import's result
file keeps its problems as values (`problem_json` / `problem_from_json`), so `sudija import --status` writes them
in the language of whoever reads them; a result written before problems were values holds plain text, shown as is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.i18n.phrases import Translate, values_in
from bot.messages import Catalogue
from rules.phrases import Phrase, Sentences, Size, Value
from rules.problems import Key, Place, Problem

ENGLISH = Catalogue("en", "UTC")
_LONG_NUMBER = 24  # digits of a game number shown whole; a longer one is cut


def problem_text(problem: Problem | str, t: Translate) -> str:
    """The problem in the words of the catalogue `t`: its place, a colon, what is wrong."""
    if isinstance(problem, str):
        return problem  # a result file written before problems were values
    where = place_text(problem.place, t)
    what = t(problem.key, **values_in(problem.values, t))
    return f"{where}: {what}" if where else what


def problems_text(problems: Iterable[Problem | str], t: Translate, separator: str = "; ") -> str:
    return separator.join(problem_text(problem, t) for problem in problems)


def english(problems: Iterable[Problem | str], separator: str = "; ") -> str:
    """The canonical English rendering (the game-server protocol's `error`)."""
    return problems_text(problems, ENGLISH.t, separator)


def place_text(place: Place, t: Translate) -> str:
    """``line 3, column 5: game 12, hand 2, trick 4`` in the reader's words; empty for no place."""
    in_file = []
    if place.line is not None:
        in_file.append(t("log.at.line", line=place.line))
    if place.column is not None:
        in_file.append(t("log.at.column", column=place.column))
    if place.item is not None:
        in_file.append(t("log.at.item", item=place.item))
    if place.whole_file:
        in_file.append(t("log.at.file"))
    in_game = []
    if place.game is not None:
        number = str(place.game)
        in_game.append(t("log.at.game", game=number if len(number) <= _LONG_NUMBER else number[:12] + "…"))
    elif place.game_unknown:
        in_game.append(t("log.at.game_unknown"))
    if place.hand is not None:
        in_game.append(t("log.at.hand", hand=place.hand))
    if place.bid is not None:
        in_game.append(t("log.at.bid", bid=place.bid))
    if place.trick is not None:
        in_game.append(t("log.at.trick", trick=place.trick))
    return ": ".join(part for part in (", ".join(in_file), ", ".join(in_game)) if part)


# --------------------------------------------------------------------------------------------- as JSON


def problem_json(problem: Problem) -> dict[str, Any]:
    """A problem as a JSON value (an import's result file): its key, its values, its place."""
    place = {name: getattr(problem.place, name) for name in Place.__dataclass_fields__}
    return {
        "key": problem.key.value,
        "values": {name: _value_json(value) for name, value in problem.values},
        "place": {name: value for name, value in place.items() if value not in (None, False)},
    }


def _value_json(value: Value) -> Any:
    if isinstance(value, Phrase):
        return {"phrase": value.key, "values": {name: _value_json(v) for name, v in value.values}}
    if isinstance(value, Sentences):
        return {"sentences": [_value_json(part) for part in value.parts]}
    if isinstance(value, Size):
        return {"bytes": value.bytes}
    if isinstance(value, tuple):
        return [_value_json(part) for part in value]
    return value


def problem_from_json(data: object) -> Problem | str:
    """The problem `problem_json` wrote; a plain text (an older result file) stays a text."""
    if not isinstance(data, dict):
        return str(data)
    try:
        key = Key(data["key"])
        values = tuple((str(name), _value_from_json(value)) for name, value in data.get("values", {}).items())
        place = Place(**data.get("place", {}))
    except (KeyError, TypeError, ValueError):
        return str(data)
    return Problem(key, values, place)


def _value_from_json(data: Any) -> Value:
    if isinstance(data, dict) and "bytes" in data:
        return Size(int(data["bytes"]))
    if isinstance(data, dict) and "sentences" in data:
        return Sentences(tuple(_phrase_from_json(part) for part in data["sentences"]))
    if isinstance(data, dict):
        return _phrase_from_json(data)
    if isinstance(data, list):
        parts: list[Phrase | str] = []
        for part in data:
            value = _value_from_json(part)
            parts.append(value if isinstance(value, Phrase) else str(value))
        return tuple(parts)
    return data if isinstance(data, int) else str(data)


def _phrase_from_json(data: Any) -> Phrase:
    if isinstance(data, dict):
        values = tuple((str(name), _value_from_json(v)) for name, v in data.get("values", {}).items())
        return Phrase(str(data["phrase"]), values)
    raise TypeError(f"not a phrase: {data!r}")
