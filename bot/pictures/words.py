"""The words the pictures print, from the catalogues (``picture.<word>`` in every language, Serbian Cyrillic
transliterated; `bot.i18n.words`): `words(lang)["paper"]` is the word as written, and its `.format(game=…)` the
catalogue's text with its values and plural form (``u toku: 2 bule``, ``5 bula``)."""

from __future__ import annotations

from bot.i18n.words import Words, catalogue_words


def words(lang: str) -> Words:
    return catalogue_words(lang, "picture.")
