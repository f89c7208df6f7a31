"""The walkthrough and the penalty story through the console club in each of the four languages, with what members
read after them (the hand view, the paper, a member's card, the statistics, the help): nowhere a Latin word in
Serbian Cyrillic or Russian, a raw key, a count outside its plural form, a button row mixing languages or a
member given a gender (tests/language_story.py says how each is found). The checks themselves are tested on
lines that break them."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from language_story import count_nouns, problems
from test_i18n_walkthrough import in_language

from bot.config import Config
from bot.console.runner import run_console
from bot.demo import MEMBERS
from bot.i18n import LANGUAGES
from bot.ports import ManualClock

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
START = datetime(2026, 11, 30, 19, 0, tzinfo=UTC)

#: After the walkthrough's verdict: the hand view, the paper, a card, the statistics and the help.
AFTER_WALKTHROUGH = """
@marko /papir 1847320
@ivana /clan
@milica /statistika
@marko /pomoc
"""
#: In the walkthrough's trial, before the verdict: the referee looks at the hands.
HANDS = "@ana !press Prikaz ruke\n"
#: After the penalty story: the punished member's card, the paper of the game, the statistics.
AFTER_PENALTY = """
@nikola /clan
@milica /papir 1847301
@milica /statistika
"""


def story(name: str) -> str:
    text = (SCENARIOS / name).read_text("utf-8")
    if name == "walkthrough.txt":
        text = text.replace("!clock +3m\n", "!clock +3m\n" + HANDS, 1) + AFTER_WALKTHROUGH
    else:
        text += AFTER_PENALTY
    return text


async def told(script: str, language: str, tmp_path: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(language=language), str(tmp_path / "club.db"), True, io.StringIO(script), out, err, ManualClock(START)
    )
    assert (status, err.getvalue()) == (0, "")
    return out.getvalue().replace(str(tmp_path), "<tmp>")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", ["walkthrough.txt", "out_of_game_plavac.txt"])
async def test_the_stories_read_in_one_language_and_script(name: str, language: str, tmp_path: Path) -> None:
    script = in_language(story(name), language)
    text = await told(script, language, tmp_path)
    assert "  [" in text  # buttons were shown, and checked
    assert problems(language, text, script, MEMBERS) == []


def test_the_checks_find_what_they_look_for() -> None:
    bad = "\n".join(
        [
            "[dm ana] Проект решения: igra karo  [Показать руки] [Završi suđenje]",
            "[dm ana] стање: in_progress (call.ok)",
            "[dm ana] Осталось 2 poruka",
        ]
    )
    found = problems("ru", bad, "", MEMBERS)
    assert any("'igra'" in p for p in found)
    assert any("'karo'" in p for p in found)
    assert any(p.startswith("button not in the language 'Završi suđenje'") for p in found)
    assert any(p.startswith("raw key 'in_progress'") for p in found)
    assert any(p.startswith("raw key 'call.ok'") for p in found)
    assert problems("sr", "Plavac može trajati najviše 21 dana.", "", MEMBERS) == [
        "count outside its plural form '21 dana': Plavac može trajati najviše 21 dana."
    ]
    assert problems("sr", "Još 2 poruka; 5 dana, 1 dan, 22 dana", "", MEMBERS) == [
        "count outside its plural form '2 poruka': Još 2 poruka; 5 dana, 1 dan, 22 dana"
    ]
    assert problems("en", "1 pages  [Show hands] [Završi suđenje]", "", MEMBERS) == [
        "count outside its plural form '1 pages': 1 pages  [Show hands] [Završi suđenje]",
        "button not in the language 'Završi suđenje': 1 pages  [Show hands] [Završi suđenje]",
    ]
    # a text put together by code does not give a member a gender either
    assert problems("sr", "  2  marko: igra karo, sanja sam prati — prolaz", "", MEMBERS) == [
        "a member given a gender '{nick} sam': " + "  2  marko: igra karo, sanja sam prati — prolaz"
    ]
    assert problems("ru", "marko: бубны, sanja вистует один — сыграно", "", MEMBERS) == [
        "a member given a gender '{nick} вистует один': marko: бубны, sanja вистует один — сыграно"
    ]
    assert problems("sr", "  2  marko: igra karo, sanja prati samostalno — prolaz", "", MEMBERS) == []
    # what a member typed is his, in his script: his reason and his command stay as typed
    script = "@ana /presuda bule ruka 5 ivana +2 -- gledanje u tuđe karte\n"
    assert problems("ru", "[trial 1] Обоснование: gledanje u tuđe karte", script, MEMBERS) == []
    assert problems("sr-Cyrl", "Пример: /presuda bule ruka 5 ivana +2", "", MEMBERS) == []
    assert {"dan", "dana"} <= {form for family in count_nouns("sr") for form in family.forms}
