"""What the catalogue tests and the four-language story check a text for: a number outside a plural form, a
sentence that makes a member a man or a woman.

A placeholder carries a count unless its name is one of `NOT_COUNTS` (identifiers such as ``{game}`` and
``{hand}``, words, moments, durations): a count outside its entry's plural form may stand where nothing agrees
with it — at the end, before punctuation, after a label ("poruka: 5") or before a word of `AGREES_WITH_NOTHING`
("od", "do", "po" …) — never before a noun ("5 poruka", "21 dana", "3 d."), whose form only a plural entry can
choose. A new placeholder name that is no count goes into `NOT_COUNTS`; a count before a noun becomes a plural
entry (see "The catalogues" in docs/architecture.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from bot.i18n.catalogues import count_of, languages
from bot.i18n.cyrillic import kept_parts, to_cyrillic, to_latin

PLACEHOLDER = re.compile(r"\{(\w+)[^{}]*\}")


def _words(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


#: Placeholders that never carry a count: numbers that name something (a game, a hand, a trial, an appeal, a
#: place in a nickname), names and words, moments and durations (written in words with their own plural forms).
NOT_COUNTS = _words(
    "account action after amounts appeal appellant at author bad ballot before better by caller card char choices",
    "command consumed contract councilor culprit db deadline dealer declarer delay demo description display effect",
    "elapsed end ended_at error evidence extra factor fallen field filed first function game hand hearing holder",
    "hours how id items kind kinds label language last league line lines link lock meets member message met month",
    "name names next nick now opened options other others owner p50 p95 page path penalty period plain platform",
    "platforms player players position problem proposer reason reasons referee request requests review role roles",
    "row scripts seal share start state step steps suit table target text to trial trick unit until usage value",
    "verdict vote waiting weeks what when where who whom why words strain",
    "status seq missing intents server title discord telegram key",
    "size size_limit call cards won bidder holder byte column item turn expected previous recorded seat",
)

_LATIN_FUNCTION = "od do na po sa i a u za da je su nije iz samo"
#: Words after which a number agrees with nothing: prepositions, conjunctions, verbs, participles of the
#: languages (the Cyrillic ones are the Latin transliterated) and the English invariant club word "bule".
AGREES_WITH_NOTHING = _words(
    _LATIN_FUNCTION,
    to_cyrillic(_LATIN_FUNCTION),
    "of to per at and or from with in is are have has had may must so only needed waiting sent refused failed",
    "delivered unchanged earlier bule",
    "из до на по с и а в за чтобы о не лишь",
)
#: Units written short after a number, which no plural form can follow: "3 d.", "5 min", "2 дн.".
ABBREVIATIONS = _words("d dn min h s sek č ч дн д мин с сек")
_WORD_AFTER = re.compile(r" ?([^\W\d_][\w.]*)")


def forms(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return (text,) if isinstance(text, str) else text


def counts_before_a_word(key: str, text: str, count: str | None) -> Iterator[tuple[str, str]]:
    """(placeholder, the word after it) for each count of `text` that stands before a word it would have to agree
    with; the entry's own count (`count`) only when that word is an abbreviation ("3 d.")."""
    for match in PLACEHOLDER.finditer(text):
        name = match.group(1)
        if name in NOT_COUNTS:
            continue
        after = _WORD_AFTER.match(text, match.end())
        if after is None:
            continue
        word = after.group(1)
        if name == count:
            if word.rstrip(".").lower() in ABBREVIATIONS:
                yield name, word
            continue
        if word.rstrip(".").lower() not in AGREES_WITH_NOTHING:
            yield name, word


def numbers_outside_plural_forms() -> list[str]:
    """Every count of every catalogue that stands before a word outside a plural form: `key [language] {count} word`."""
    wrong = []
    for code, language in languages().items():
        for key, text in language.texts.items():
            count = count_of(key) if isinstance(text, tuple) else None
            for form in forms(text):
                wrong += [f"{key} [{code}] {{{name}}} {word}" for name, word in counts_before_a_word(key, form, count)]
    return wrong


#: Placeholders that name a member (a nickname).
MEMBER = r"\{(?:nick|caller|who|whom|councilor|player|fallen|other|culprit|referee|appellant|proposer|owner|member)\}"
_SR_ACTIVE = re.compile(rf"{MEMBER} (?:je |nije |se |je već |ga je )?\w+(?:ao|eo|io|uo|la|lo)\b")
_SR_ACTIVE_BEFORE = re.compile(rf"\b\w+(?:ao|eo|io|uo|la|lo) (?:je )?{MEMBER}")
_SR_PASSIVE = re.compile(
    rf"{MEMBER} (?:je |nije |je već |više nije |je sad |je ponovo |će biti |bi bio )\w+(?:en|an|jen|ven|nut|et)\b"
)
_RU_PAST = re.compile(
    rf"{MEMBER} (?:уже |был |не |сам )?(?:\w+(?:ал|ял|ил|ел|ёл|ла|ло|ен|ён|ан|ян)|\w*(?:нят|зят|быт|бит|крыт))\b"
)
#: "alone" after a member: Serbian "sam"/"sama", Russian "сам"/"один" (also after the verb, "ana вистует один").
_SR_ALONE = re.compile(rf"{MEMBER} (?:\w+ )?(?:sam|sama)\b")
_RU_ALONE = re.compile(rf"{MEMBER} (?:\w+ )?(?:сам|сама|один|одна)\b")
#: The nouns (and prepositions) after which a member's name leaves the agreement to the noun: "član jelena je
#: razrešen", "Kod za ana je poslat", "Игрок ana снят".
_SR_NOUNS = (
    "član člana članu igrač igrača igraču sudija sudije sudiji većnik većnika većniku nadimak podnosilac vlasnik nalog"
    " za od sa kod na o"
)
AGREEING_NOUNS = _words(
    _SR_NOUNS,
    to_cyrillic(_SR_NOUNS),
    "игрок игрока игроку участник участника участнику судья судьи член члена ник заявитель владелец для у с от о",
)
NOT_PARTICIPLES = frozenset(
    {"kao", "pravila", "sela", "cela", "dela", "stola", "bula", "bela", "Napustio", "član", "dan", "van", "pan"}
    | {"стал", "сигнал", "канал", "план", "сеть", "ответ"}
)


def gendered(code: str, text: str) -> list[str]:
    """The phrases of `text` that give a member a gender — a member as the subject of a past or passive
    participle ("milica nije igrao", "jelena je razrešen", "ana отозвал") or "alone" after him ("ceca sam prati",
    "ana вистует один") — in Serbian (Latin, or Cyrillic read
    as Latin) and Russian. A passive participle agrees with the noun a member is named after ("član jelena je
    razrešen")."""
    if code == "sr-Cyrl":
        text, code = to_latin(text), "sr"
    if code == "sr":
        found = [m for p in (_SR_ACTIVE, _SR_PASSIVE) for m in p.finditer(text) if not _after_a_noun(text, m.start())]
        found += list(_SR_ACTIVE_BEFORE.finditer(text))
        found += [m for m in _SR_ALONE.finditer(text) if not _after_a_noun(text, m.start())]
    elif code == "ru":
        found = [m for m in _RU_PAST.finditer(text) if not _after_a_noun(text, m.start())]
        found += [m for m in _RU_ALONE.finditer(text) if not _after_a_noun(text, m.start())]
    else:
        return []
    return [m.group() for m in found if not set(re.findall(r"\w+", m.group())) & NOT_PARTICIPLES]


def _after_a_noun(text: str, start: int) -> bool:
    before = re.search(r"(\w+) $", text[:start])
    return before is not None and before.group(1).lower() in AGREEING_NOUNS


_LATIN_WORD = re.compile(r"[A-Za-zČĆĐŠŽčćđšž]{2,}")
#: Latin words a Russian or Serbian Cyrillic text may hold besides what is typed: the bot's name.
NAMES = frozenset({"Sudija"})


def latin_words(code: str, key: str, text: str, nicknames: Iterable[str] = ()) -> list[str]:
    """The Latin words of a Serbian Cyrillic or Russian text that are not what a member types, a name or one of
    `nicknames`: what `bot.i18n.cyrillic` keeps (commands with their typed words in backticks, placeholders,
    argument names in capitals, settings' names, platforms) is taken out first."""
    if code not in ("sr-Cyrl", "ru"):
        return []
    rest = text
    for part in kept_parts(text, key):
        rest = rest.replace(part, " ", 1)
    allowed = NAMES | set(nicknames)
    return [word for word in _LATIN_WORD.findall(rest) if word not in allowed]
