"""Serbian Cyrillic from Serbian Latin, letter by letter (and back), keeping what a member types in Latin.

Placeholders (``{game}``), commands (``/sudija``) and command lines of the program (``sudija zapisnik --verify``),
channels (``#sudije``), files (``docs/deploy.md``), settings (``[club] database``), console actions (``!clock``),
what a member types written in backticks (`` `da` ``), acronyms (``JSON``) and cards (``AS``), names of settings
(``owner_accounts``), words with a digit (``Ed25519``) or with letters Serbian Latin does not have (q, w, x, y),
names of platforms and a command's own names (its ``name.*`` texts, the typed part of a ``usage.*`` line) stay as
they are written: whatever a member must type stays typeable. A choice's name (``choice.*``) is transliterated: the
reader of typed arguments takes it in either script.
"""

from __future__ import annotations

import re

_PAIRS = {"lj": "љ", "nj": "њ", "dž": "џ", "Lj": "Љ", "LJ": "Љ", "Nj": "Њ", "NJ": "Њ", "Dž": "Џ", "DŽ": "Џ"}
_SINGLE = dict(zip("abcčćdđefghijklmnoprsštuvzž", "абцчћдђефгхијклмнопрсштувзж", strict=True))
_SINGLE.update({k.upper(): v.upper() for k, v in list(_SINGLE.items())})
_BACK = {v: k for k, v in _SINGLE.items()} | {"љ": "lj", "њ": "nj", "џ": "dž", "Љ": "Lj", "Њ": "Nj", "Џ": "Dž"}

#: Names that are never transliterated.
KEPT_WORDS = (
    "Discord",
    "Telegram",
    "Sudija bot",
    "Unicode",
    "SQLite",
    "PostgreSQL",
    "Pillow",
    "help",
    "Ctrl-D",
    "Ctrl-C",
)
#: The sub-commands of the `sudija` program (bot/cli; tests/test_cli_language.py holds the two equal): "sudija
#: zapisnik" is a command line to type, not "the referee's record".
PROGRAM_COMMANDS = (
    "arbitar",
    "backup",
    "check",
    "clan",
    "console",
    "games",
    "gameserver",
    "gameserver-check",
    "import",
    "migrate",
    "outbox",
    "papir",
    "presude",
    "rezon",
    "ruka",
    "run",
    "statistika",
    "zapisnik",
)
#: Words in capitals that stay Latin; any other word in capitals is an argument's name shown to a reader (NADIMAK,
#: DATOTEKA, GGGG-MM-DD), not typed as written, and is transliterated like the text around it.
ACRONYMS = (
    "AI",
    "CSV",
    "DNS",
    "GET",
    "HTML",
    "HTTPS?",
    "ID",
    "IMP",
    "JSON",
    "KB",
    "MB",
    "PNG",
    "SHA",
    "SVG",
    "URL",
    "UTC",
    "UTF",
    "CET",
    "CEST",
    "OK",
    "PIN",
    "API",
    "TLS",
    "OAuth2",
)
#: The endings of the file names the texts mention (config.toml, docs/deploy.md, sudija-demo.db).
FILE_TYPES = ("toml", "md", "db", "json", "sql", "txt", "png", "svg", "service", "py")
_KEPT = re.compile(
    r"\{[^{}]*\}"  # a placeholder
    r"|\b(?:[\w-]+/)*[\w-]+\.(?:" + "|".join(FILE_TYPES) + r")\b"  # a file's name or path (docs/deploy.md)
    r"|\[[a-z][a-z_]*\](?: [a-z][a-z_]*(?= ?[=),.`]|$))?"  # a settings section, its setting: [club] database
    r"|%\(\w+\)[srd]|%[srd]"  # argparse's placeholder (%(prog)s, %s)
    r"|https?://\S+"  # an address
    r"|\bsudija (?:" + "|".join(re.escape(c) for c in sorted(PROGRAM_COMMANDS, key=len, reverse=True)) + r")\b"
    r"|(?<![\w])/\w+"  # a command
    r"|--\w[\w-]*"  # an option
    r"|(?<![\w&])#[a-z]\w*"  # a channel (#sudije)
    r"|(?<![\w])!\w+"  # a console action (!press)
    r"|`[^`]*`"  # code
    r"|\b(?:" + "|".join(re.escape(w) for w in KEPT_WORDS) + r")(?:\w*)\b"  # also inflected: Discordu
    r"|\b\w+_\w+\b"  # a setting's name (owner_accounts) or a typed word with an underscore (teze_krsenje)
    r"|\b\w*\d\w*\b"  # a word with a digit (Ed25519, SHA-256's 256)
    r"|\b(?:" + "|".join(ACRONYMS) + r")\b"  # an acronym: AI, UTC, JSON
    r"|\b[AKQJT][SHDCAKQJT]\b"  # cards as typed: AS, QH, AQ
    r"|\b\w*[qwxyQWXY]\w*\b"  # a foreign word
)
_PLACEHOLDER = re.compile(r"[\[(<]*[A-ZČĆĐŠŽ][A-ZČĆĐŠŽ_]+(?:[|/-][A-ZČĆĐŠŽ_]+)*[\])>.,…]*")
#: Keys whose whole text is what members type (command and argument names).
KEPT_KEYS = ("name.",)


def _letters(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair in _PAIRS:
            out.append(_PAIRS[pair])
            i += 2
            continue
        out.append(_SINGLE.get(text[i], text[i]))
        i += 1
    return "".join(out)


def _spans(text: str) -> str:
    out: list[str] = []
    last = 0
    for match in _KEPT.finditer(text):
        out.append(_letters(text[last : match.start()]))
        out.append(match.group())
        last = match.end()
    out.append(_letters(text[last:]))
    return "".join(out)


def _usage_tokens(line: str) -> list[tuple[str, bool]]:
    """A usage line's words, each with whether it is typed: from a command (``/presuda``) on, every word is typed
    until ``--`` (the reason's description follows) or a parenthesis (a remark); ``|`` starts the next form."""
    tokens: list[tuple[str, bool]] = []
    typed = False
    for token in re.split(r"(\s+)", line):
        if token.startswith("/") or token == "|":
            typed = True
        elif token.startswith("(") or token in ("--", "[--"):
            typed = False
        placeholder = _PLACEHOLDER.fullmatch(token) is not None  # NADIMAK, [RUKA], DANA|POENA: shown, not typed
        tokens.append((token, (typed and not placeholder) or token.isspace()))
    return tokens


def _usage(text: str) -> tuple[str, list[str]]:
    """A usage line in Cyrillic, and its typed parts: a command line's words are typed up to ``--`` (the reason's
    description) or a remark in parentheses, its description after `` — `` is prose; a usage message that is no
    command line is prose with what is typed in it."""
    if not text.startswith("/"):  # a usage message, not a command line
        return _spans(text), [m.group() for m in _KEPT.finditer(text)]
    line, dash, description = text.partition(" — ")
    tokens = _usage_tokens(line)
    shown = "".join(token if typed else _spans(token) for token, typed in tokens)
    kept = [token for token, typed in tokens if typed and not token.isspace()]
    kept += [m.group() for token, typed in tokens if not typed for m in _KEPT.finditer(token)]
    if dash:
        shown += dash + _spans(description)
        kept += [m.group() for m in _KEPT.finditer(description)]
    return shown, kept


def to_cyrillic(text: str, key: str = "") -> str:
    """The Cyrillic of one Latin text of the catalogue entry `key`."""
    if key.startswith(KEPT_KEYS):
        return text
    if key.startswith("usage."):
        return _usage(text)[0]
    return _spans(text)


def kept_parts(text: str, key: str = "") -> list[str]:
    """The parts of one Latin text of the entry `key` that `to_cyrillic` keeps as written (what is typed, names)."""
    if key.startswith(KEPT_KEYS):
        return [text]
    if key.startswith("usage."):
        return _usage(text)[1]
    return [match.group() for match in _KEPT.finditer(text)]


def to_latin(text: str) -> str:
    """Serbian Latin of a Cyrillic text (Latin letters pass unchanged): the exact inverse of `to_cyrillic`."""
    out: list[str] = []
    for i, char in enumerate(text):
        latin = _BACK.get(char, char)
        if char in "ЉЊЏ":
            after = text[i + 1] if i + 1 < len(text) else ""
            before = text[i - 1] if i else ""
            if after.isupper() or (before.isupper() and not after.islower()):
                latin = latin.upper()
        out.append(latin)
    return "".join(out)
