"""One type for a text decided before its reader is known (`rules.phrases.Phrase`) and one writer of it
(`bot.i18n.phrases`): a setup finding, a game-server check and a game log's problem carry the same phrases, and a
phrase a game log's problem names (a suit) reads the same inside a setup finding, in every language. A size is a
value too (`Size`), written in the reader's units, plural forms and decimal sign."""

from __future__ import annotations

import pytest

from bot.i18n.phrases import phrase_text, size_text
from bot.i18n.problems import problem_from_json, problem_json, problem_text
from bot.messages import Catalogue
from bot.setup.findings import Finding
from rules.phrases import Phrase, Sentences, Size
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


#: Per language: 1 byte, 3 bytes, 5 bytes, 1.5 KB, 128 MB (units of 1024), as the reader writes them.
SIZES = {
    "sr": ("1 bajt", "3 bajta", "5 bajtova", "1,5 KB", "128 MB"),
    "sr-Cyrl": ("1 бајт", "3 бајта", "5 бајтова", "1,5 KB", "128 MB"),
    "en": ("1 byte", "3 bytes", "5 bytes", "1.5 KB", "128 MB"),
    "ru": ("1 байт", "3 байта", "5 байтов", "1,5 КБ", "128 МБ"),
}


@pytest.mark.parametrize("language", list(SIZES))
def test_a_size_reads_in_the_readers_units_number_and_decimal_sign(language: str) -> None:
    t = Catalogue(language).t
    sizes = (Size(1), Size(3), Size(5), Size(1536), Size(128 << 20))
    assert tuple(size_text(size, t) for size in sizes) == SIZES[language]
    assert size_text(Size((1 << 20) - 1), t) == t("size.mb", size=1.0)  # 1023.999 KB is not "1024 KB"
    problem = Problem.of(Key.LINE_TOO_LONG, Place(line=2), size=Size(1536), size_limit=Size(5))
    assert SIZES[language][3] in problem_text(problem, t)
    assert SIZES[language][2] in problem_text(problem, t)


def test_a_result_file_keeps_a_size_as_bytes_and_an_older_ones_text_as_written() -> None:
    problem = Problem.of(Key.FILE_TOO_BIG, size=Size(3 << 20), size_limit=Size(2 << 20))
    assert problem_json(problem)["values"] == {"size": {"bytes": 3 << 20}, "size_limit": {"bytes": 2 << 20}}
    assert problem_from_json(problem_json(problem)) == problem
    older = {"key": Key.FILE_TOO_BIG.value, "values": {"size": "3.0 MiB", "size_limit": "2.0 MiB"}}
    assert problem_text(problem_from_json(older), Catalogue("ru").t).startswith("размер файла 3.0 MiB;")
    assert problem_text(problem, Catalogue("ru").t).startswith("размер файла 3 МБ;")
