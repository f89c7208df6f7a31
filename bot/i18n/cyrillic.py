"""Serbian Cyrillic from Serbian Latin, letter by letter (and back), keeping what a member types in Latin.

Placeholders (``{game}``), commands (``/sudija``), channels (``#sudije``), console actions (``!clock``), words in
capitals (argument names such as ``RUKA``), words with letters Serbian Latin does not have (q, w, x, y), names of
platforms and a command's own words (its ``name.*`` and ``choice.*`` texts, the typed part of a ``usage.*`` line)
stay as they are written.
"""

from __future__ import annotations

import re

_PAIRS = {"lj": "љ", "nj": "њ", "dž": "џ", "Lj": "Љ", "LJ": "Љ", "Nj": "Њ", "NJ": "Њ", "Dž": "Џ", "DŽ": "Џ"}
_SINGLE = dict(zip("abcčćdđefghijklmnoprsštuvzž", "абцчћдђефгхијклмнопрсштувзж", strict=True))
_SINGLE.update({k.upper(): v.upper() for k, v in list(_SINGLE.items())})
_BACK = {v: k for k, v in _SINGLE.items()} | {"љ": "lj", "њ": "nj", "џ": "dž", "Љ": "Lj", "Њ": "Nj", "Џ": "Dž"}

#: Names that are never transliterated.
KEPT_WORDS = ("Discord", "Telegram", "Arbitar", "Sudija bot", "Unicode", "SQLite", "Pillow", "help", "Ctrl-D", "Ctrl-C")
_KEPT = re.compile(
    r"\{[^{}]*\}"  # a placeholder
    r"|https?://\S+"  # an address
    r"|(?<![\w])/\w+"  # a command
    r"|--\w[\w-]*"  # an option
    r"|(?<![\w&])#[a-z]\w*"  # a channel (#sudije)
    r"|(?<![\w])!\w+"  # a console action (!press)
    r"|`[^`]*`"  # code
    r"|\b(?:" + "|".join(re.escape(w) for w in KEPT_WORDS) + r")\b"
    r"|\b[A-ZČĆĐŠŽ][A-ZČĆĐŠŽ0-9_]+\b"  # capitals: argument names, AI, UTC
    r"|\b\w*[qwxyQWXY]\w*\b"  # a foreign word
)
#: Keys whose whole text is what members type (command, argument and choice names).
KEPT_KEYS = ("name.", "choice.")


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


def to_cyrillic(text: str, key: str = "") -> str:
    """The Cyrillic of one Latin text of the catalogue entry `key`."""
    if key.startswith(KEPT_KEYS):
        return text
    if key.startswith("usage.") and " — " in text:
        typed, rest = text.split(" — ", 1)
        return typed + " — " + _spans(rest)
    return _spans(text)


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
