"""One type for a text decided before its reader is known (`rules.phrases.Phrase`) and one writer of it
(`bot.i18n.phrases`): a setup finding, a game-server check and a game log's problem carry the same phrases, and a
phrase a game log's problem names (a suit) reads the same inside a setup finding, in every language."""

from __future__ import annotations

import pytest

from bot.i18n.phrases import phrase_text
from bot.i18n.problems import problem_from_json, problem_json, problem_text
from bot.messages import Catalogue
from bot.setup.findings import Finding
from rules.phrases import Phrase, Sentences
from rules.problems import Key, Place, Problem, Word

SPADES_AND_HEARTS = Phrase.of(Word.TWO, first=Phrase("term.pik"), second=Phrase("term.herc"))

#: Per language: a finding naming the suits, a check's two faults, a problem listing the kinds a field may be.
READS = {
    "sr": (
        "Discord je nedostupan: pik i herc.",
        "ID 'a' je ponovo poslat sa drugim telom; partija 5: `seq` 3 je stigao posle 1",
        "red 2: polje `deal` mora biti lista, objekat, x, a ne 1",
    ),
    "sr-Cyrl": (
        "Discord је недоступан: пик и херц.",
        "ID 'a' је поново послат са другим телом; партија 5: `seq` 3 је стигао после 1",
        "ред 2: поље `deal` мора бити листа, објекат, x, а не 1",
    ),
    "en": (
        "Discord unreachable: spades and hearts.",
        "the id 'a' was sent again with another body; game 5: seq 3 came after 1",
        "line 2: the field 'deal' must be a list, an object, x, not 1",
    ),
    "ru": (
        "Discord недоступен: пики и черви.",
        "ID 'a' отправлен повторно с другим телом; партия 5: `seq` 3 пришёл после 1",
        "строка 2: поле `deal` должно быть: список, объект, x, а не 1",
    ),
}


@pytest.mark.parametrize("language", list(READS))
def test_a_finding_names_a_problems_phrase_in_the_readers_words(language: str) -> None:
    finding = Finding(
        "discord",
        Phrase("check.where.connection"),
        Phrase.of("check.unreachable", platform="Discord", said=SPADES_AND_HEARTS),
        Phrase("check.network_fix"),
    )
    assert READS[language][0] in finding.line(Catalogue(language))


@pytest.mark.parametrize("language", list(READS))
def test_sentences_follow_one_another_and_a_list_is_joined_by_commas(language: str) -> None:
    words = Catalogue(language)
    faults = Sentences(
        (
            Phrase.of("gscheck.fault.resent", id="'a'"),
            Phrase.of("gscheck.fault.seq_after", game=5, seq="3", last=1),
        )
    )
    assert phrase_text(Phrase.of("gscheck.faults", faults=faults), words.t) == READS[language][1]
    kinds = (Phrase(Word.LIST), Phrase(Word.OBJECT), "x")
    problem = Problem.of(Key.FIELD_TYPE, Place(line=2), field="deal", kind=kinds, value="1")
    assert problem_text(problem, words.t) == READS[language][2]


def test_a_problem_keeps_every_kind_of_value_through_its_result_file() -> None:
    problem = Problem.of(
        Key.FIELD_TYPE,
        Place(line=2, game=7),
        field="deal",
        kind=(Phrase(Word.LIST), "x"),
        value=Sentences((SPADES_AND_HEARTS, Phrase("term.karo"))),
        count=3,
    )
    assert problem_from_json(problem_json(problem)) == problem
    assert str(problem) == (
        "line 2, game 7: log.field.type(field='deal', kind=(log.word.list, 'x'), "
        "value=log.word.two(first=term.pik, second=term.herc); term.karo, count=3)"
    )
