"""A part of the catalogues as a mapping of words, for code that fills its texts itself (the pictures, the trial's
record, the desk's figures): `catalogue_words("sr", "picture.")["paper"]` is the catalogue's ``picture.paper`` as
written, and its `.format(game=…)` the catalogue's text with its values and plural form. There is no fallback to
another language but the catalogues' own (Russian → English, per key); an unknown key raises `KeyError`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache

from bot.i18n.catalogues import languages, lookup
from bot.messages import Catalogue


class Word(str):
    """One word: the text as the catalogue writes it; `format` fills it through the catalogue (plural forms)."""

    __slots__ = ("catalogue", "key")

    catalogue: Catalogue
    key: str

    def __new__(cls, text: str, catalogue: Catalogue, key: str) -> Word:
        word = super().__new__(cls, text)
        word.catalogue = catalogue
        word.key = key
        return word

    def format(self, *args: object, **kwargs: object) -> str:
        return self.catalogue.t(self.key, **kwargs)


class Words(Mapping[str, Word]):
    """The catalogue entries under `prefix` in one language, by the name after the prefix."""

    def __init__(self, language: str, prefix: str) -> None:
        self.catalogue = Catalogue(language)
        self.prefix = prefix

    def __getitem__(self, name: str) -> Word:
        key = self.prefix + name
        found = lookup(self.catalogue.language, key)
        if found is None:
            raise KeyError(key)
        text = found[0]
        return Word(text if isinstance(text, str) else text[0], self.catalogue, key)

    def __iter__(self) -> Iterator[str]:
        return (k.removeprefix(self.prefix) for k in languages()["sr"].texts if k.startswith(self.prefix))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@cache
def catalogue_words(language: str, prefix: str) -> Words:
    return Words(language, prefix)
