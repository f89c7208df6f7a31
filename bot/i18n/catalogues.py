"""The catalogues as the bot reads them: every `.po` under `locale/` parsed once with Babel's `read_po`.

The `.po` files are read directly (not compiled `.mo`): they are the source the tests check, the package ships
them as data, and reading ~900 entries per language takes a few milliseconds — a compile step at install would
only add a second copy that can go stale. A plural entry carries the name of its count in a translator comment
(``#. count: minutes``); its form is chosen by the gettext Plural-Forms rule Babel writes from CLDR.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.i18n import FALLBACK, LANGUAGES, LOCALES

ROOT = Path(__file__).parent / "locale"
DOMAIN = "sudija"
COUNT_COMMENT = "count: "

Text = str | tuple[str, ...]


def po_path(language: str) -> Path:
    return ROOT / LOCALES[language] / "LC_MESSAGES" / f"{DOMAIN}.po"


@dataclass
class Language:
    """One language's texts: a key's text, or its plural forms in the order of the language's rule."""

    code: str
    texts: dict[str, Text]
    plural: Callable[[int], int]
    forms: int
    counts: dict[str, str] = field(default_factory=dict)  # key -> the parameter that carries the count


def read_catalog(language: str) -> Catalog:
    with po_path(language).open("rb") as handle:
        return read_po(handle, locale=LOCALES[language], domain=DOMAIN)


def _language(language: str) -> Language:
    catalog = read_catalog(language)
    texts: dict[str, Text] = {}
    counts: dict[str, str] = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        for comment in message.auto_comments:
            if comment.startswith(COUNT_COMMENT):
                counts[key] = comment[len(COUNT_COMMENT) :].strip()
        string = message.string
        if isinstance(string, str):
            if string:
                texts[key] = string
        elif string and all(string):
            texts[key] = tuple(string)
    return Language(language, texts, gettext.c2py(catalog.plural_expr), catalog.num_plurals, counts)


@cache
def languages() -> dict[str, Language]:
    """Every language, read once."""
    return {code: _language(code) for code in LANGUAGES}


def lookup(language: str, key: str) -> tuple[Text, Language] | None:
    """A key's text in `language`, or in its declared fallback; None when neither has it."""
    every = languages()
    for code in (language, FALLBACK.get(language)):
        if code is not None and key in every[code].texts:
            return every[code].texts[key], every[code]
    return None


def count_of(key: str) -> str | None:
    """The parameter whose number chooses the key's plural form (the Serbian catalogue declares it)."""
    return languages()["sr"].counts.get(key)


def untranslated(language: str) -> list[str]:
    """The keys of the Serbian catalogue that `language` has no text of its own for."""
    every = languages()
    return sorted(k for k in every["sr"].texts if k not in every[language].texts)


def own_text(language: str, key: str) -> str | None:
    """The key's text written in `language` itself (a plural entry's first form); None where it falls back."""
    text = languages()[language].texts.get(key)
    return text if text is None or isinstance(text, str) else text[0]
