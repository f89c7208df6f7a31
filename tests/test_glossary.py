"""docs/glossary-ru.md is the source of the catalogues' preferans terms (bot.i18n.glossary): the two agree, the tool
writes a changed term into every catalogue (Serbian Cyrillic regenerated), and a malformed table is refused with
the line and what is wrong."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bot.i18n import catalogues
from bot.i18n.catalogues import languages
from bot.i18n.cyrillic import kept_parts
from bot.i18n.glossary import GLOSSARY, GlossaryError, disagreements, read_terms, write
from bot.i18n.glossary import main as glossary
from bot.messages import Catalogue

HEADER = "## The catalogue's terms\n\n| key | Serbian | Russian | English | note |\n|---|---|---|---|---|\n"


def test_the_glossary_and_the_catalogues_agree() -> None:
    """Editing a term in one of them without the other fails here; `python -m bot.i18n.glossary` mends it."""
    terms = read_terms(GLOSSARY.read_text(encoding="utf-8"))
    assert disagreements(terms) == []


def test_every_preferans_term_of_the_catalogues_is_in_the_glossary() -> None:
    """A new suit, bid, paper mark or legend key is a glossary row, not a text written only in a `.po`."""
    listed = {term.key for term in read_terms(GLOSSARY.read_text(encoding="utf-8"))}
    prefixes = ("term.", "picture.short_", "picture.legend_")
    catalogue_terms = {key for key in languages()["sr"].texts if key.startswith(prefixes)}
    assert catalogue_terms - listed == set()


def test_the_russian_terms_are_the_russian_players_words() -> None:
    terms = {term.key: term for term in read_terms(GLOSSARY.read_text(encoding="utf-8"))}
    assert terms["term.betl"].ru == "мизер"
    assert terms["term.bid.dalje"].ru == "пас"
    assert terms["term.bid.mogu"].ru == "здесь"
    assert terms["paper.bule"].ru == "гора"
    assert terms["paper.left"].ru == "левые висты"
    assert terms["hands.talon"].ru == "прикуп"
    assert terms["picture.follows"].ru == "вист"
    # the sheet's short marks do not read as one another
    assert terms["picture.short_sans"].ru != terms["picture.short_no_kontra"].ru.replace("/", ".")
    assert Catalogue("ru").t("paper.title", game=7) == "Пуля партии 7" == Catalogue("ru").t("picture.paper", game=7)


def test_the_tool_writes_the_glossary_into_every_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "locale"
    shutil.copytree(catalogues.ROOT, root)
    monkeypatch.setattr(catalogues, "ROOT", root)
    page = tmp_path / "glossary.md"
    page.write_text(
        "# Glossary\n\nText.\n\n"
        + HEADER
        + "| `term.betl` | betl | мизер \\| ноль | misère | a pipe in a cell |\n"
        + "| `term.new_word` | nova reč | новое слово | new word | added |\n"
        + "\n## What members type\n\n| a | b |\n|---|---|\n| not | a term |\n",
        encoding="utf-8",
    )
    catalogues.languages.cache_clear()
    try:
        assert glossary(["--glossary", str(page), "--check"]) == 1
        out = capsys.readouterr().out
        assert "term.betl [ru]: glossary 'мизер | ноль', catalogue 'мизер'" in out
        assert "term.new_word [sr]: glossary 'nova reč', catalogue None" in out
        assert glossary(["--glossary", str(page)]) == 0
        assert "2 terms read: 1 added, 1 replaced" in capsys.readouterr().out
        catalogues.languages.cache_clear()
        assert Catalogue("ru").t("term.betl") == "мизер | ноль"
        assert Catalogue("en").t("term.betl") == "misère"
        assert Catalogue("sr-Cyrl").t("term.new_word") == "нова реч"
        assert Catalogue("ru").t("term.new_word") == "новое слово"
        assert '#. added\nmsgid "term.new_word"' in (root / "sr_Latn" / "LC_MESSAGES" / "sudija.po").read_text("utf-8")
        assert glossary(["--glossary", str(page), "--check"]) == 0
        assert "2 terms, 0 disagreements" in capsys.readouterr().out
        assert glossary(["--glossary", str(page)]) == 0  # nothing to change: the catalogues are not rewritten
        assert "0 added, 0 replaced" in capsys.readouterr().out
    finally:
        catalogues.languages.cache_clear()


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ("| `term.pik` | pik | пики | spades |\n", "line 7: 4 cells, the table has 5"),
        ("| term.pik | pik | пики | spades | |\n", "line 7: the key is written in backticks, e.g. `term.pik`"),
        ("| `term.pik` | pik |  | spades | |\n", "line 7: term.pik needs its Serbian, Russian and English texts"),
        ("| `term.pik` | pik | пики | spades | |\n| `term.pik` | pik | пик | spades | |\n", "line 8: term.pik is "),
        ("", "has no table of terms"),
    ],
)
def test_a_malformed_table_is_refused_with_its_line(table: str, why: str) -> None:
    with pytest.raises(GlossaryError) as error:
        read_terms("# G\n\n" + HEADER + table)
    assert why in str(error.value)


def test_a_page_without_the_section_or_with_other_columns_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "g.md"
    page.write_text("# Glossary\n\n| a | b |\n", encoding="utf-8")
    assert glossary(["--glossary", str(page)]) == 2
    assert 'no section "## The catalogue\'s terms"' in capsys.readouterr().err
    page.write_text("## The catalogue's terms\n\n| key | Serbian | English |\n", encoding="utf-8")
    assert glossary(["--glossary", str(page), "--check"]) == 2
    assert "line 3: the table's columns are key | Serbian | Russian | English | note" in capsys.readouterr().err
    assert glossary(["--glossary", str(tmp_path / "absent.md")]) == 2
    assert "absent.md: No such file or directory" in capsys.readouterr().err
    with pytest.raises(GlossaryError, match=r"plural entries are not terms: paper\.tricks"):
        write(read_terms(HEADER + "| `paper.tricks` | štih | взятка | trick | |\n"))


#: The glossary's words English has its own name for: the suits and the bids (the club's own words, igra,
#: ispravka, zovem, bule, refe, stay in English texts as the club says them).
ENGLISH_NAMED = ("term.pik", "term.karo", "term.herc", "term.tref", "term.bid.dalje", "term.bid.mogu")


def test_english_texts_name_the_suits_and_bids_in_english() -> None:
    """An English text says "spades" and "pass" as the glossary's English does, not "pik" and "dalje"."""
    terms = {t.key: t for t in read_terms(GLOSSARY.read_text(encoding="utf-8"))}
    serbian = {terms[key].sr: terms[key].en for key in ENGLISH_NAMED}
    wrong = []
    for key, text in languages()["en"].texts.items():
        for form in (text,) if isinstance(text, str) else text:
            rest = form
            for part in kept_parts(form, key):
                rest = rest.replace(part, " ", 1)
            found = [w for w in re.findall(r"\w+", rest) if w.casefold() in serbian]
            wrong += [f"{key}: {w!r} (glossary: {serbian[w.casefold()]!r})" for w in found]
    assert wrong == []


def test_russian_keeps_plavac_and_a_suspension_apart() -> None:
    """A plavac (only unrated games) is «отстранение»; a suspension from the club's tournaments is another
    penalty, «дисквалификация»: a member's card that shows both never names them alike."""
    plavac = Catalogue("ru").t("term.plavac")
    every = languages()["ru"].texts
    suspension = {key: text for key, text in every.items() if "suspension" in key}
    assert len(suspension) >= 8
    for key, text in suspension.items():
        for form in (text,) if isinstance(text, str) else text:
            assert plavac not in form.lower(), key
            assert "дисквалификац" in form.lower(), key
