"""The paper's words, the pictures' words and the paper's refusals live in the catalogues (``paper.*``,
``picture.*``, ``change.*``): every language has its own text of each (Russian too, none falling back), the Cyrillic
is the Latin transliterated, and `rules/` keeps no words of its own — it takes the edge's `t` or returns keys."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_paper import ANA, BOJAN, C, build_game, build_hand, not_followed
from test_pictures import twenty_hands

from bot.i18n import LANGUAGES
from bot.i18n.catalogues import languages, own_text
from bot.i18n.cyrillic import to_cyrillic
from bot.messages import Catalogue
from bot.pictures.paper import MARGIN, render_paper
from bot.pictures.words import words
from rules.gamelog import GameStatus
from rules.paper import ChangeKind, PaperChange, compute_paper
from rules.paper_changes import ChangeRefused, check_change
from rules.paper_render import discrepancy_lines, paper_text, tricks_text

ROOT = Path(__file__).resolve().parent.parent
PREFIXES = ("paper.", "picture.", "change.", "arbitar.", "record.", "stats.", "jezik.", "language.")
KEYS = sorted(k for k in languages()["sr"].texts if k.startswith(PREFIXES) and k != "paper.refused")


def test_the_words_are_many_and_each_has_its_own_text_in_every_language() -> None:
    assert len([k for k in KEYS if k.startswith("paper.")]) >= 55
    assert len([k for k in KEYS if k.startswith("picture.")]) >= 65
    assert len([k for k in KEYS if k.startswith("change.")]) >= 25
    assert len([k for k in KEYS if k.startswith(("arbitar.", "record.", "stats."))]) >= 45
    for language in LANGUAGES:
        missing = [k for k in KEYS if own_text(language, k) is None]
        assert missing == [], language


def test_russian_words_are_russian_and_cyrillic_is_the_latin_transliterated() -> None:
    every = languages()
    for key in KEYS:
        latin, cyrillic = every["sr"].texts[key], every["sr-Cyrl"].texts[key]
        latin_forms = (latin,) if isinstance(latin, str) else latin
        cyrillic_forms = (cyrillic,) if isinstance(cyrillic, str) else cyrillic
        assert cyrillic_forms == tuple(to_cyrillic(f, key) for f in latin_forms), key
        if not key.startswith(("picture.short_", "picture.contract", "record.called_by", "record.taken_by")):
            assert cyrillic_forms != latin_forms, key  # Serbian words, in Cyrillic letters
    assert own_text("ru", "paper.title") == "Пуля партии {game}"
    assert own_text("ru", "picture.talon") == "прикуп"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_paper_is_written_whole_in_every_language(language: str) -> None:
    game = twenty_hands()
    words_of = Catalogue(language)
    text = paper_text(game, compute_paper(game), words_of.t)
    assert text.startswith(words_of.t("paper.title", game=game.number))
    assert words_of.t("paper.player") in text
    canvas = render_paper(game, compute_paper(game), language)
    assert all(p.fits for p in canvas.placed)
    assert words(language)["paper"].format(game=7) == words_of.t("picture.paper", game=7)


def test_counts_take_their_plural_forms() -> None:
    sr, ru, en = Catalogue("sr").t, Catalogue("ru").t, Catalogue("en").t
    assert [tricks_text(n, sr) for n in (1, 3, 6, 21)] == ["1 štih", "3 štiha", "6 štihova", "21 štih"]
    assert [tricks_text(n, ru) for n in (1, 3, 6)] == ["1 взятка", "3 взятки", "6 взяток"]
    assert [tricks_text(n, en) for n in (1, 6)] == ["1 trick", "6 tricks"]
    assert words("sr")["running"].format(left=2) == "u toku: 2 bule"
    assert words("sr")["running"].format(left=5) == "u toku: 5 bula"


def test_a_refusal_is_a_key_and_values_written_by_the_edge() -> None:
    hands = [not_followed(1, BOJAN, C("karo")), not_followed(2, BOJAN, C("karo"))]
    game = build_game(hands, size=10, refe_limit=0, status=GameStatus.INTERRUPTED)
    change = PaperChange(ChangeKind.PROMENA_BULA, 9, "sudija", game.started_at, "", 3, (2, 0, 0))
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], change)
    assert (refused.value.key, refused.value.params) == ("no_hand", {"hand": 9, "game": game.number, "count": 2})
    texts = {lang: Catalogue(lang).t(refused.value.message_key, **refused.value.params) for lang in LANGUAGES}
    assert texts["sr"] == f"Ruka 9 ne postoji: partija {game.number} ima 2 ruke."
    assert texts["en"] == f"There is no hand 9: game {game.number} has 2 hands."
    assert texts["ru"] == f"Руки 9 нет: в партии {game.number} 2 руки."
    assert texts["sr-Cyrl"] == f"Рука 9 не постоји: партија {game.number} има 2 руке."
    assert discrepancy_lines([], Catalogue("ru").t) == []


def test_rules_keep_no_word_tables_and_build_no_serbian_refusals() -> None:
    """The paper's modules take the edge's words; a dict of texts per language in them fails here."""
    for name in ("paper_render.py", "paper_changes.py"):
        tree = ast.parse((ROOT / "rules" / name).read_text(encoding="utf-8"))
        tables = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Dict)
            and any(isinstance(k, ast.Constant) and k.value in ("sr", "en") for k in node.keys)
        ]
        assert tables == [], name


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_picture_says_a_hand_is_being_played_not_that_it_does_not_count(language: str) -> None:
    """A hand still being played is in progress on the sheet, as the text paper says, not the "—" whose legend
    reads "the hand does not count"."""
    hands = [build_hand(1, ANA, C("herc"), tricks=(7, 2, 1)), build_hand(2, completed=False)]
    game = build_game(hands, refe_limit=3, status=GameStatus.INTERRUPTED)
    canvas = render_paper(game, compute_paper(game), language)
    shown = [p.text for p in canvas.placed]
    number = next(i for i, p in enumerate(canvas.placed) if p.text == "2" and p.cell[0] == MARGIN)
    assert canvas.placed[number + 1].text == words(language)["unfinished"]  # the hand's game cell
    assert words(language)["legend_unscored"] not in shown
    assert all(p.fits for p in canvas.placed)
    assert [t for t in shown if t.endswith("…")] == []
