"""A refused game log in the reader's language (issue 37): `sudija import` of a log with several different problems
speaks sr, sr-Cyrl, en and ru — the places (line, game, hand, bid, trick), what is wrong, the preferans words and
the counts from the catalogue, no English word in Serbian or Russian, no Latin beyond cards, typed values and
nicknames in Cyrillic, no raw key; an import's result file keeps its problems as values, so `sudija import
--status` writes them in the language of whoever asks; and every problem the rules can produce has its text in all
four catalogues with the values the rules give it."""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from language_story import gendered_phrases
from test_cli_language import foreign_text
from test_import_cli import _illegal_follow

from bot.cli import main
from bot.i18n.catalogues import languages
from bot.i18n.problems import problem_from_json, problem_json, problem_text
from bot.importer import Importer
from bot.inbox import report_json, result_report
from bot.messages import Catalogue
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from rules.problems import Key, Word

PLAYERS = ("ana", "marko", "petar")
RULES = Path(__file__).resolve().parent.parent / "rules"
PLACEHOLDER = re.compile(r"\{(\w+)[^{}]*\}")


def game_doc(seed: int, number: int) -> dict[str, Any]:
    game = generate_game(random.Random(seed), number, hands=6, status=GameStatus.FINISHED, players=PLAYERS)
    doc: dict[str, Any] = json.loads(json.dumps(game_to_doc(game)))
    return doc


def corrupted_log(folder: Path) -> Path:
    """A JSON Lines log whose every line is refused, each for something else."""
    size = game_doc(1, 6001)
    size["bule"] = 61
    twice = game_doc(2, 6002)
    deal = twice["hands"][0]["deal"]
    deal["marko"][0] = deal["ana"][0]
    turn = game_doc(3, 6003)
    bids = turn["hands"][1]["bids"]
    bids[0]["player"], bids[1]["player"] = bids[1]["player"], bids[0]["player"]
    zone = game_doc(4, 6004)
    zone["started_at"] = zone["started_at"].rstrip("Z")
    short = game_doc(5, 6005)
    played = next(hand for hand in short["hands"] if hand.get("tricks"))
    played["tricks"][0] = played["tricks"][0][:2]
    found = _illegal_follow(game_doc(6, 6006), 0)
    assert found is not None
    hidden = game_doc(7, 6007)
    hidden["players"][0] = "an\u200ba"  # a zero-width space in a nickname
    lines = [json.dumps(doc) for doc in (size, twice, turn, zone, short, found[0])] + ['{"game": 1,, }']
    lines.append(json.dumps(hidden))
    path = folder / "night.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: What the checks take out of a line before they look at its words: the file's path, the players, a value as the
#: log wrote it ('61', "x"), the rendered JSON repr and a card.
_TAKEN_OUT = re.compile(r"\b(?:ana|marko|petar)\b|'[^'\n]*'|\"[^\"\n]*\"|[2-9TJQKA]{1,2}[♠♥♦♣]|10[♠♥♦♣]")


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "en", "ru"])
def test_a_refused_log_is_told_in_the_readers_language(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = corrupted_log(tmp_path)
    assert main(["import", str(log), "--db", str(tmp_path / "club.db"), "--lang", language]) == 1
    captured = capsys.readouterr()
    words = Catalogue(language)
    lines = captured.err.splitlines()
    assert all(line.startswith(f"{log}: ") for line in lines), lines
    said = [line.removeprefix(f"{log}: ") for line in lines]
    assert len(said) == 9  # eight problems, then "nothing imported (8 problems)"
    assert said[-1] == words.t("log.report.nothing", path=log, count=8).removeprefix(f"{log}: ")
    at = {n: words.t("log.at.line", line=n) for n in range(1, 9)}
    assert said[0] == f"{at[1]}: {words.t('log.at.game', game=6001)}: {words.t('log.game.bule', value=61)}"
    assert said[1].startswith(f"{at[2]}: {words.t('log.at.game', game=6002)}, {words.t('log.at.hand', hand=1)}: ")
    assert words.t("log.at.bid", bid=1) in said[2]
    assert words.t("term.bid.dalje") in said[2] or words.t("term.pik") in said[2] or "(" in said[2]
    assert said[3].startswith(f"{at[4]}: {words.t('log.at.game', game=6004)}: ")
    assert words.t("log.play.trick_size", count=2) in said[4]  # the count's plural form: "2 karte", "2 карты"
    assert words.t("log.at.trick", trick=1) in said[5]
    assert said[6].startswith(f"{at[7]}, {words.t('log.at.column', column=12)}: ")
    assert said[7].endswith(words.t("nick.why.character", char="U+200B", position=3))  # the code point, not its name
    assert "Imported" not in captured.out if language != "en" else "Imported 0 games" in captured.out
    assert foreign_text(language, captured.out) == []  # the summary too
    for line in said:
        rest = _TAKEN_OUT.sub(" ", line)
        assert foreign_text(language, rest) == [], line
        assert not re.search(r"\blog\.\w+", line), line  # no raw key
        assert gendered_phrases(language, line, (), PLAYERS) == [], line


async def test_a_result_file_keeps_the_problems_for_any_reader(tmp_path: Path) -> None:
    """The inbox's result (what `sudija import --wait/--status` reads) holds values, not a language's text."""
    log = corrupted_log(tmp_path)
    report = await Importer(str(tmp_path / "club.db")).run([log])
    kept = result_report(json.loads(json.dumps(report_json(report))))
    for language in ("sr", "sr-Cyrl", "en", "ru"):
        t = Catalogue(language).t
        assert kept.messages(t) == report.messages(t)
    assert kept.messages(Catalogue("ru").t) != kept.messages(Catalogue("en").t)
    assert problem_from_json("an older result's text") == "an older result's text"
    for problem in report.files[0].problems:
        assert not isinstance(problem, str)
        assert problem_from_json(problem_json(problem)) == problem
        assert problem_text(problem, Catalogue("en").t) == problem_text(
            problem_from_json(problem_json(problem)), Catalogue("en").t
        )


def test_every_problem_has_its_words_in_all_four_catalogues() -> None:
    keys = [key.value for key in Key] + [word.value for word in Word]
    every = languages()
    missing = [f"{key} [{code}]" for code, language in every.items() for key in keys if key not in language.texts]
    assert missing == []


#: The calls that make a problem or a phrase, the key among their arguments.
_MAKERS = ("of", "fail", "add", "_refused", "Phrase")
#: A time the log reader cannot read: `TimeRefused` names the key, `rules.gamelog._time` gives it these values.
_TIME_VALUES = {"field", "value"}
#: Where problems are made: the rules, the importer's own (a game twice, a nickname outside the scripts), the store's.
SOURCES = [*RULES.glob("*.py"), RULES.parent / "bot" / "importer.py", RULES.parent / "storage" / "games.py"]


def _keys_in(node: ast.expr, named: dict[str, list[str]]) -> list[str]:
    """The keys an argument may be: `Key.X`, `Word.Y`, either branch of `… if … else …`, a name assigned one."""
    if isinstance(node, ast.IfExp):
        return _keys_in(node.body, named) + _keys_in(node.orelse, named)
    if isinstance(node, ast.Name):
        return named.get(node.id, [])
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        enum = {"Key": Key, "Word": Word}.get(node.value.id)
        if enum is not None:
            return [getattr(enum, node.attr).value]
    return []


def made_problems() -> dict[str, set[frozenset[str]]]:
    """Every key a call makes a problem or phrase of, with the names of the values each such call gives."""
    made: dict[str, set[frozenset[str]]] = {}
    for path in SOURCES:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            named: dict[str, list[str]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    named[node.targets[0].id] = _keys_in(node.value, {})
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name not in (*_MAKERS, "TimeRefused"):
                    continue
                given = _TIME_VALUES if name == "TimeRefused" else {k.arg for k in node.keywords if k.arg}
                for argument in node.args:
                    for key in _keys_in(argument, named):
                        made.setdefault(key, set()).add(frozenset(given))
    return made


def test_the_rules_give_every_value_their_texts_name() -> None:
    """Each problem the rules make (`Problem.of(Key.X, …)`, `Phrase.of(Word.Y, …)`, a reader's `fail`) is given
    every value its catalogue texts name, in every language, and no other: a text can never fail to be written."""
    every = languages()
    made = made_problems()
    words_without_values = {w.value for w in Word} - set(made)  # looked up in tables: a suit, a kind, a status
    assert set(made) | words_without_values == {key.value for key in (*Key, *Word)}
    wrong = []
    for key, given in made.items():
        for code, language in every.items():
            text = language.texts[key]
            named = {
                m.group(1) for form in ((text,) if isinstance(text, str) else text) for m in PLACEHOLDER.finditer(form)
            }
            wrong += [
                f"{key} [{code}]: names {sorted(named)}, given {sorted(names)}" for names in given if not named <= names
            ]
    for key in words_without_values:
        for code, language in every.items():
            text = language.texts[key]
            if any(PLACEHOLDER.search(form) for form in ((text,) if isinstance(text, str) else text)):
                wrong.append(f"{key} [{code}]: names a value none gives")
    assert wrong == []


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
def test_sudija_arbitar_tells_an_illegal_log_in_the_language(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Arbitar's command line refuses a log it cannot judge from in the reader's words, its place included."""
    log = corrupted_log(tmp_path)
    lines = log.read_text(encoding="utf-8").splitlines()
    one = tmp_path / "one.json"
    one.write_text(lines[4], encoding="utf-8")  # the trick of two cards
    assert main(["arbitar", str(one), "--hand", "1", "--fallen", "ana", "--lang", language]) == 1
    err = capsys.readouterr().err
    words = Catalogue(language)
    assert words.t("log.play.trick_size", count=2) in err
    assert words.t("log.at.game", game=6005) in err
    assert foreign_text(language, _TAKEN_OUT.sub(" ", err.replace(str(one), " "))) == []
