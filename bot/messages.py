"""Every text the bot says, read from the gettext catalogues in `bot/i18n/locale/` (one `.po` per language).

`Catalogue(lang).t(key, **params)` formats a message: a plural entry takes the form its count asks for in the
language's CLDR plural rule (1 bula, 2 bule, 5 bula); times are shown on the club's clock in the language's date
format (``25.11.2026. 22:10``, Europe/Belgrade by default) and durations in words (``6 dana 3 sata 12 minuta``).
A message decided where no reader is known yet (a record's verification problem, a setup finding, a conformance
check, a game log's problem) is a `rules.phrases.Phrase`, written later in the reader's language by
`bot.i18n.phrases.phrase_text(phrase, catalogue.t)`.
`MESSAGES` is the catalogue as a mapping key → texts in `LANGUAGES` order (a plural entry's first form), for what
lists names and descriptions (the registry, Discord's localizations).

A new text is an entry in the `.po` files (``python -m bot.i18n.import_dict FILE`` brings entries written as a
Python dict ``"key": ("srpski", "English")`` in; see `bot/i18n/import_dict.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta

from babel.numbers import format_decimal

from bot.i18n import LANGUAGES, LOCALES
from bot.i18n.catalogues import count_of, languages, lookup
from bot.i18n.clock import DEFAULT_TIMEZONE, duration_parts, local_text

__all__ = ["LANGUAGES", "MESSAGES", "Catalogue"]


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


def _number(key: str, value: object) -> int:
    """The count that chooses a plural form: an int, or a signed number as text (``+4`` bule)."""
    if isinstance(value, int):
        return abs(value)
    try:
        return abs(int(str(value)))
    except ValueError:
        raise TypeError(f"message {key!r} needs its count as a number, not {value!r}") from None


class Catalogue:
    """One language's texts, with times shown on the club's clock (`zone`, an IANA name)."""

    def __init__(self, language: str = "sr", zone: str = DEFAULT_TIMEZONE) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
        self.index = LANGUAGES.index(language)
        self.language = language
        self.zone = zone

    def param(self, value: object) -> str:
        """A parameter as text: a moment on the club's clock, a duration in words, a fraction with the language's
        decimal sign (1,5 rezona; 1.5 rezons), anything else as it is."""
        if isinstance(value, float):
            return format_decimal(value, format="0.##", locale=LOCALES[self.language])
        if isinstance(value, datetime):
            return local_text(value, self.language, self.zone, LOCALES[self.language])
        if isinstance(value, timedelta):
            return " ".join(self.t(key, n=amount) for key, amount in duration_parts(value))
        return str(value)

    def t(self, key: str, /, **params: object) -> str:
        found = lookup(self.language, key)
        if found is None:
            raise KeyError(f"no message {key!r} in the catalogue")
        text, language = found
        if not isinstance(text, str):
            count = count_of(key)
            text = text[language.plural(_number(key, params.get(count) if count else None))]
        return text.format(**{k: self.param(v) for k, v in params.items()})
