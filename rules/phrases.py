"""A text decided where no reader is known yet, as a value: a `Phrase` is a catalogue key and its typed values,
written later in the reader's language and script by the edge (`bot.i18n.phrases`). No words live here.

One type serves every such text: a game log's problems (`rules.problems`: what is wrong, and the words it names —
a suit, a contract, a kind of JSON value), a setup finding of `sudija check`, a check of `sudija
gameserver-check`, a problem of `sudija zapisnik --verify`. A value is a number (a plural form is chosen by it), a
text shown as it is (a nickname, a card like ``Q♠``, a setting as written), a `Phrase` (a part of the sentence
in the reader's words), a `Size` (a count of bytes, in the reader's units), a tuple of phrases and texts (a list,
written joined by commas), or `Sentences` (phrases each a sentence of its own, written one after another). `str`
of a phrase is its key and values, for a log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Phrase:
    """A sentence or a part of one in the reader's language: a catalogue key and its values."""

    key: str
    values: tuple[tuple[str, Value], ...] = ()

    @classmethod
    def of(cls, key: str, /, **values: Value) -> Phrase:
        return cls(key, tuple(values.items()))

    @property
    def params(self) -> dict[str, Value]:
        return dict(self.values)

    def __str__(self) -> str:
        if not self.values:
            return self.key
        return f"{self.key}({', '.join(f'{name}={_debug(value)}' for name, value in self.values)})"


@dataclass(frozen=True, slots=True)
class Size:
    """A size in bytes, written in the reader's units and decimal sign (``5 bajtova``, ``1,5 KB``, ``128 MB``)."""

    bytes: int

    def __str__(self) -> str:
        return f"{self.bytes} B"


@dataclass(frozen=True, slots=True)
class Sentences:
    """Phrases each a sentence of its own, said one after another (a check's several faults)."""

    parts: tuple[Phrase, ...]

    def __str__(self) -> str:
        return "; ".join(map(str, self.parts))


Value: TypeAlias = int | str | Phrase | Size | Sentences | tuple[Phrase | str, ...]


def _debug(value: Value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_debug(v) for v in value) + ")"
    return str(value) if isinstance(value, Phrase | Size | Sentences | int) else repr(value)
