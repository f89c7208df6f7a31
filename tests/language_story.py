"""What a reader must never meet in a conversation with the bot, checked on what the console club printed
(tests/test_language_story.py): a Latin word in Serbian Cyrillic or Russian text, a catalogue key or an internal
identifier, a number whose noun is in another plural form, a button row whose labels are not all the language's, a
phrase that gives a member a gender (`language_check.gendered` on the line with each nickname as ``{nick}``: texts
put together by code, such as the paper's "sanja sam prati", escape the catalogue's own check).

Each check takes the printed text with what members typed taken out first (`without_typed`: their messages, their
reasons, the commands with their typed words), since a member writes in his own script and a command stays as it
is typed. The noun forms a count must agree with are read from the catalogues' own plural entries (`count_nouns`):
for every plural entry, the word after its count in each form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from language_check import gendered

from bot.i18n.catalogues import count_of, languages

#: Latin words a Cyrillic or Russian text may hold besides nicknames and what is typed: the bot's name, the
#: console's own words (help, Ctrl-D) and file names.
ALLOWED_LATIN = frozenset({"Sudija", "help", "Ctrl", "tmp", "db"})
_LATIN_WORD = re.compile(r"[A-Za-zČĆĐŠŽčćđšž]{2,}")
#: The console's frame of a place: ``[table 1847320]``, ``[dm ana]``, ``[trial 1]`` (the platform's, not the bot's).
_FRAME = re.compile(r"^\[(?:table \d+|dm \w+|trial \d+)\]")
#: A command with what follows it up to the end of its clause (`` — ``, ``; ``, ``. ``, a parenthesis or the end of
#: the line): its Latin words are what is typed (``/presuda kazna НИК [plavac D]``), its other words are not.
_COMMAND = re.compile(r"(?<![\w<])/\w+.*?(?= — |; |\. |\(|$)")
_CAPITALS = re.compile(r"\b[A-ZČĆĐŠŽ][A-ZČĆĐŠŽ_]+\b")
_TYPED_WORD = re.compile(r"[A-Za-zČĆĐŠŽčćđšž_]+")
_CODE = re.compile(r"`[^`]*`|(?<![\w&])#[a-z]\w*|(?<![\w])!\w+|<tmp>/\S+|--\w[\w-]*")
_RAW = re.compile(r"\b[a-z]+_[a-z_]+\b|\bTrue\b|\bFalse\b|\bNone\b")
_BUTTONS = re.compile(r"  (\[[^\[\]]+\](?: \[[^\[\]]+\])*)$")


def typed_parts(script: str) -> list[str]:
    """What members type in a console script: each message or command, and the reason after `` -- ``."""
    typed: list[str] = []
    for line in script.splitlines():
        match = re.match(r"@\w+ (?!!)(.*)$", line.strip())
        if match:
            typed.append(match.group(1).strip())
            if " -- " in match.group(1):
                typed.append(match.group(1).split(" -- ", 1)[1].strip())
    return sorted({t for t in typed if t}, key=len, reverse=True)


def bot_lines(output: str) -> Iterator[str]:
    """The lines the bot wrote: the console's echo of the script (``> …``) and its comments are the operator's."""
    for line in output.splitlines():
        if line.startswith(("> ", "#")):
            continue
        yield line


def without_typed(line: str, typed: Iterable[str]) -> str:
    """The line without its place's frame and without what members typed (which stays in their script)."""
    rest = _CODE.sub(" ", _FRAME.sub(" ", line))
    rest = _COMMAND.sub(lambda command: _TYPED_WORD.sub(" ", command.group()), rest)
    for text in typed:
        rest = rest.replace(text, " ")
    return rest


def latin_words(language: str, line: str, typed: Iterable[str], nicknames: Iterable[str]) -> list[str]:
    """The Latin words of a Serbian Cyrillic or Russian line that are neither typed, nor a nickname, nor allowed."""
    if language not in ("sr-Cyrl", "ru"):
        return []
    allowed = ALLOWED_LATIN | {n.casefold() for n in nicknames}
    rest = without_typed(line, typed)
    if language == "sr-Cyrl":  # an argument's name in capitals (DANA) is kept as the command line writes it
        rest = _CAPITALS.sub(" ", rest)
    return [w for w in _LATIN_WORD.findall(rest) if w not in allowed and w.casefold() not in allowed]


@cache
def _keys() -> frozenset[str]:
    return frozenset(key for language in languages().values() for key in language.texts)


def raw_keys(line: str, typed: Iterable[str]) -> list[str]:
    """Catalogue keys, internal identifiers (``in_progress``) and Python's ``True``/``False``/``None`` in a line."""
    rest = without_typed(line, typed)
    found = [m.group() for m in _RAW.finditer(rest)]
    found += [w for w in re.findall(r"\b[a-z_]+(?:\.[a-z_]+)+\b", rest) if w in _keys()]
    return found


@dataclass(frozen=True)
class Family:
    """A noun's forms after a count in one plural entry, in the order of the language's plural rule."""

    key: str
    forms: tuple[str, ...]


@cache
def count_nouns(language: str) -> tuple[Family, ...]:
    """Every noun that stands right after a count in some plural entry of `language`, with its forms."""
    families: set[Family] = set()
    lang = languages()[language]
    for key, text in lang.texts.items():
        count = count_of(key)
        if count is None or isinstance(text, str):
            continue
        pattern = re.compile(r"\{" + re.escape(count) + r"\}[ \u00a0]([^\W\d_]+)")
        per_form = [pattern.findall(form) for form in text]
        if not per_form or any(len(words) != len(per_form[0]) for words in per_form):
            continue
        for position in range(len(per_form[0])):
            forms = tuple(words[position] for words in per_form)
            if len(set(forms)) > 1:
                families.add(Family(key, forms))
    return tuple(sorted(families, key=lambda f: f.key))


def disagreeing_counts(language: str, line: str, typed: Iterable[str]) -> list[str]:
    """``N noun`` where the noun is a form the catalogues write after a count but never after N (``2 poruka``,
    ``21 dana``, ``1 pages``)."""
    lang = languages()[language]
    families = count_nouns(language)
    wrong: list[str] = []
    for match in re.finditer(r"(?<![\d.,:/])(\d+)[ \u00a0]([^\W\d_]+)", without_typed(line, typed)):
        number, word = int(match.group(1)), match.group(2)
        holding = [f for f in families if word in f.forms]
        if holding and not any(f.forms[lang.plural(number)] == word for f in holding):
            wrong.append(match.group())
    return wrong


@cache
def _labels(language: str) -> tuple[re.Pattern[str], ...]:
    """Each button label of `language` as a pattern (a label with a hand number matches any number)."""
    texts = languages()[language].texts
    patterns = []
    for key, text in texts.items():
        if key.startswith("button.") and isinstance(text, str):
            pattern = re.escape(text)
            pattern = re.sub(r"\\\{\w+\\\}|\{\w+\}", r"\\d+", pattern)
            patterns.append(re.compile(pattern + r"\Z"))
    return tuple(patterns)


def foreign_buttons(language: str, line: str) -> list[str]:
    """The labels of a line's button row that are not labels of `language` (a row mixing languages)."""
    match = _BUTTONS.search(line)
    if match is None:
        return []
    labels = re.findall(r"\[([^\[\]]+)\]", match.group(1))
    return [label for label in labels if not any(p.match(label) for p in _labels(language))]


def gendered_phrases(language: str, line: str, typed: Iterable[str], nicknames: Iterable[str]) -> list[str]:
    """The phrases of a line that give a member a gender, each nickname read as a member's placeholder."""
    rest = without_typed(line, typed)
    for nick in nicknames:
        rest = re.sub(rf"(?<![\w{{]){re.escape(nick)}(?!\w)", "{nick}", rest)
    return gendered(language, rest)


def problems(language: str, output: str, script: str, nicknames: Iterable[str]) -> list[str]:
    """Every problem of the printed `output` of `script` in `language`, one line each."""
    typed = typed_parts(script)
    names = list(nicknames)
    found: list[str] = []
    for line in bot_lines(output):
        for word in latin_words(language, line, typed, names):
            found.append(f"Latin word {word!r}: {line}")
        for key in raw_keys(line, typed):
            found.append(f"raw key {key!r}: {line}")
        for count in disagreeing_counts(language, line, typed):
            found.append(f"count outside its plural form {count!r}: {line}")
        for label in foreign_buttons(language, line):
            found.append(f"button not in the language {label!r}: {line}")
        for phrase in gendered_phrases(language, line, typed, names):
            found.append(f"a member given a gender {phrase!r}: {line}")
    return found
