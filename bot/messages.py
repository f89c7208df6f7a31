"""Every text the bot says, read from the gettext catalogues in `bot/i18n/locale/` (one `.po` per language).

`Catalogue(lang).t(key, **params)` formats a message: a plural entry takes the form its count asks for in the
language's CLDR plural rule (1 bula, 2 bule, 5 bula); times are shown as ``2026-11-25 21:10 UTC`` and durations as
``6 d 3 h 12 min``. `MESSAGES` is the catalogue as a mapping key → texts in `LANGUAGES` order (a plural entry's
first form), for what lists names and descriptions (the registry, Discord's localizations).

A new text is an entry in the `.po` files (``python -m bot.i18n.import_dict FILE`` brings entries written as a
Python dict ``"key": ("srpski", "English")`` in; see `bot/i18n/import_dict.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta

from bot.i18n import LANGUAGES
from bot.i18n.catalogues import count_of, languages, lookup

__all__ = ["LANGUAGES", "MESSAGES", "Catalogue", "format_param"]


class _Texts(Mapping[str, tuple[str, ...]]):
    """The catalogues as key → (sr, en, sr-Cyrl, ru) texts, each language's own or its declared fallback."""

    def __getitem__(self, key: str) -> tuple[str, ...]:
        texts: list[str] = []
        for language in LANGUAGES:
            found = lookup(language, key)
            if found is None:
                raise KeyError(key)
            text = found[0]
            texts.append(text if isinstance(text, str) else text[0])
        return tuple(texts)

    def __iter__(self) -> Iterator[str]:
        return iter(languages()["sr"].texts)

    def __len__(self) -> int:
        return len(languages()["sr"].texts)

    def __contains__(self, key: object) -> bool:
        return key in languages()["sr"].texts


MESSAGES: Mapping[str, tuple[str, ...]] = _Texts()


def format_param(value: object) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, timedelta):
        total = int(value.total_seconds() // 60)
        days, rest = divmod(total, 24 * 60)
        hours, minutes = divmod(rest, 60)
        parts = [f"{days} d"] if days else []
        if hours:
            parts.append(f"{hours} h")
        if minutes or not parts:
            parts.append(f"{minutes} min")
        return " ".join(parts)
    return str(value)


class Catalogue:
    def __init__(self, language: str = "sr") -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
        self.index = LANGUAGES.index(language)
        self.language = language

    def t(self, key: str, **params: object) -> str:
        found = lookup(self.language, key)
        if found is None:
            raise KeyError(f"no message {key!r} in the catalogue")
        text, language = found
        if not isinstance(text, str):
            count = count_of(key)
            number = params.get(count) if count else None
            if not isinstance(number, int):
                raise TypeError(f"message {key!r} needs the number {count!r}")
            text = text[language.plural(abs(number))]
        return text.format(**{k: format_param(v) for k, v in params.items()})
