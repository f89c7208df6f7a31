"""Nickname hygiene, in one place: what a club nickname may be, for the game-log import, linking and every
command that names a member.

A nickname is the game server's, normalised to Unicode NFC. Refused, with the character (U+XXXX) and its
position (1-based, in the normalised text) named: control and format characters (categories Cc, Cf — newlines,
U+001F, RTL overrides, zero-width marks), line and paragraph separators (Zl, Zp), spaces (Zs: a command could not
name the member), surrogates, private-use and unassigned code points (Cs, Co, Cn), and the characters that would
turn a nickname into markup or a mention in a chat text (`` ` < > @ ``). Also refused: an empty nickname, one
longer than `MAX_LENGTH` characters, and one mixing Latin, Cyrillic or Greek letters (a look-alike of another
member's nickname). So a stored nickname can never break a listing's line or forge another's text.

Pure: no I/O.
"""

from __future__ import annotations

import unicodedata

MAX_LENGTH = 32
REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format character (invisible)",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space",
}
MARKUP = "`<>@"
SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


class NickRefused(ValueError):
    """A nickname that may not be used; the message says what is wrong and where."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code  # empty, too_long, character, mixed_scripts (for the messages' catalogue)


def codepoint(char: str) -> str:
    return f"U+{ord(char):04X}"


def check_nick(text: object) -> str:
    """The nickname in NFC, or `NickRefused` saying why it cannot be one."""
    if not isinstance(text, str):
        raise NickRefused(f"a nickname must be text, not {type(text).__name__}", "empty")
    nick = unicodedata.normalize("NFC", text)
    if not nick:
        raise NickRefused("the nickname is empty", "empty")
    for position, char in enumerate(nick, start=1):
        category = unicodedata.category(char)
        what = REFUSED_CATEGORIES.get(category)
        if what is None and char in MARKUP:
            what = "a markup character"
        if what is not None:
            name = unicodedata.name(char, "")
            label = f"{codepoint(char)} {name}".strip()
            raise NickRefused(f"the nickname has {what}, {label}, at position {position}", "character")
    if len(nick) > MAX_LENGTH:
        raise NickRefused(f"the nickname is {len(nick)} characters long; at most {MAX_LENGTH}", "too_long")
    scripts = {script_of(c) for c in nick} - {None}
    if len(scripts) > 1:
        raise NickRefused(
            f"the nickname mixes {' and '.join(sorted(str(s).title() for s in scripts))} letters", "mixed_scripts"
        )
    return nick


def script_of(char: str) -> str | None:
    if not char.isalpha():
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return word if word in SCRIPTS else None


def is_clean(text: str) -> bool:
    try:
        return check_nick(text) == text
    except NickRefused:
        return False


def shown(text: str) -> str:
    """A nickname as a listing may show it: a clean one as it is; anything else (a database written before these
    rules) with every refused character written as ``<U+XXXX>``, so it cannot break or forge a line."""
    if is_clean(text):
        return text
    out = []
    for char in text[: MAX_LENGTH * 2]:
        if unicodedata.category(char) in REFUSED_CATEGORIES or char in MARKUP:
            out.append(f"<{codepoint(char)}>")
        else:
            out.append(char)
    return "".join(out)


def plain(text: str, limit: int = 64) -> str:
    """Free text shown on one line (a platform's display name): every character `check_nick` refuses except the
    plain space becomes U+FFFD, so it can neither break the line nor ping or format anything."""
    out = []
    for char in unicodedata.normalize("NFC", text)[:limit]:
        refused = unicodedata.category(char) in REFUSED_CATEGORIES and char != " "
        out.append("\ufffd" if refused or char in MARKUP else char)
    return "".join(out)
