"""The one writer of `rules.phrases`: a `Phrase` in the words of a catalogue's `t` (``Catalogue(lang).t``, or a
part's `self.t`, which writes in the current reader's language), its values written in the same language.

A value that is a `Phrase` is written by its own entry, a tuple of phrases and texts as a list joined by commas,
`Sentences` one after another joined by semicolons, a `Size` in the language's units (``size.*``: its bytes in
their plural form, or KB and MB with the language's decimal sign); a number stays a number, so the entry chooses
its plural form by it, and a text is shown as it is. Every text decided before its reader was known — a game
log's problem (`bot.i18n.problems`), a setup finding (`bot.setup.findings`), a check of `sudija gameserver-check`,
a problem of `sudija zapisnik --verify`, a size a command names — is written here.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.phrases import Phrase, Sentences, Size, Value

Translate = Callable[..., str]

KB = 1 << 10
MB = 1 << 20


def phrase_text(phrase: Phrase, t: Translate) -> str:
    """The phrase in the words of `t`."""
    return t(phrase.key, **values_in(phrase.values, t))


def values_in(values: tuple[tuple[str, Value], ...], t: Translate) -> dict[str, object]:
    """A phrase's values for its catalogue text, each written in the words of `t` (`value_in`)."""
    return {name: value_in(value, t) for name, value in values}


def value_in(value: Value, t: Translate) -> object:
    """One value as its catalogue text takes it: a phrase written, a size in the reader's units, sentences and a
    list joined, a number or a text as it is."""
    if isinstance(value, Phrase):
        return phrase_text(value, t)
    if isinstance(value, Size):
        return size_text(value, t)
    if isinstance(value, Sentences):
        return "; ".join(phrase_text(part, t) for part in value.parts)
    if isinstance(value, tuple):
        return ", ".join(str(value_in(part, t)) for part in value)
    return value


def size_text(size: Size, t: Translate) -> str:
    """A size in the reader's units: whole bytes under 1 KB (their plural form: ``1 bajt``, ``2 bajta``,
    ``5 bajtova``), else kilobytes or megabytes of 1024 to one decimal, the entry's `t` writing the decimal sign of
    its language (``1,5 KB``; ``1.5 KB``) and dropping a zero one (``128 MB``). A size that rounds up to 1024 KB is
    written as 1 MB."""
    if size.bytes < KB:
        return t("size.bytes", n=size.bytes)
    kilobytes = round(size.bytes / KB, 1)
    if kilobytes < KB:
        return t("size.kb", size=kilobytes)
    return t("size.mb", size=round(size.bytes / MB, 1))
