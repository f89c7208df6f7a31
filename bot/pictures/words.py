"""The words the pictures print, from the catalogues (``picture.<word>`` in every language, Serbian Cyrillic
transliterated): `words(lang)["paper"]` is the word as written, and its `.format(game=…)` the catalogue's text with
its values and plural form (``u toku: 2 bule``, ``5 bula``). A language the catalogues do not have is refused."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache

from bot.i18n.catalogues import languages, lookup
from bot.messages import Catalogue

PREFIX = "picture."


class Word(str):
    """One picture word: the text as the catalogue writes it; `format` fills it through the catalogue."""

    __slots__ = ("catalogue", "key")

    def __new__(cls, text: str, catalogue: Catalogue, key: str) -> Word:
        word = super().__new__(cls, text)
        word.catalogue = catalogue
        word.key = key
        return word

    catalogue: Catalogue
    key: str

    def format(self, *args: object, **kwargs: object) -> str:
        return self.catalogue.t(self.key, **kwargs)


class Words(Mapping[str, Word]):
    """A language's picture words, by the name the drawing code uses (``paper``, ``hand``, ``ev_bar`` …)."""

    def __init__(self, language: str) -> None:
        self.catalogue = Catalogue(language)

    def __getitem__(self, name: str) -> Word:
        key = PREFIX + name
        found = lookup(self.catalogue.language, key)
        if found is None:
            raise KeyError(key)
        text = found[0]
        return Word(text if isinstance(text, str) else text[0], self.catalogue, key)

    def __iter__(self) -> Iterator[str]:
        return (k.removeprefix(PREFIX) for k in languages()["sr"].texts if k.startswith(PREFIX))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@cache
def words(lang: str) -> Words:
    return Words(lang)
