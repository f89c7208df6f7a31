"""The one writer of `rules.phrases`: a `Phrase` in the words of a catalogue's `t` (``Catalogue(lang).t``, or a
part's `self.t`, which writes in the current reader's language), its values written in the same language.

A value that is a `Phrase` is written by its own entry, a tuple of phrases and texts as a list joined by commas,
`Sentences` one after another joined by semicolons; a number stays a number, so the entry chooses its plural form
by it, and a text is shown as it is. Every text decided before its reader was known — a game log's problem
(`bot.i18n.problems`), a setup finding (`bot.setup.findings`), a check of `sudija gameserver-check`, a problem of
`sudija zapisnik --verify` — is written here.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.phrases import Phrase, Sentences, Value

Translate = Callable[..., str]


def phrase_text(phrase: Phrase, t: Translate) -> str:
    """The phrase in the words of `t`."""
    return t(phrase.key, **values_in(phrase.values, t))


def values_in(values: tuple[tuple[str, Value], ...], t: Translate) -> dict[str, object]:
    """A phrase's values for its catalogue text, each written in the words of `t` (`value_in`)."""
    return {name: value_in(value, t) for name, value in values}


def value_in(value: Value, t: Translate) -> object:
    """One value as its catalogue text takes it: a phrase written, a list joined, a number or a text as it is."""
    if isinstance(value, Phrase):
        return phrase_text(value, t)
    if isinstance(value, Sentences):
        return "; ".join(phrase_text(part, t) for part in value.parts)
    if isinstance(value, tuple):
        return ", ".join(str(value_in(part, t)) for part in value)
    return value
