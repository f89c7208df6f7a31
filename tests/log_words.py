"""A game log's problems (`rules.problems`) in the catalogue's English, for the tests that read what they say: the
same text `sudija import --lang en` prints and the game-server protocol answers (`bot.i18n.problems`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pytest

from bot.i18n.problems import ENGLISH, problem_text
from rules.problems import Problem, Problems


def english(problems: Iterable[Problem | str]) -> list[str]:
    """Each problem as `sudija import --lang en` writes it."""
    return [problem_text(problem, ENGLISH.t) for problem in problems]


@contextmanager
def refused_with(match: str, kind: type[ValueError] = ValueError) -> Iterator[None]:
    """The block raises `kind` (`LogError`, `AuctionError`, … or a plain ValueError) saying `match` (a regular
    expression): a `Problems`' problems in English, another error's own text."""
    with pytest.raises(kind) as caught:
        yield
    error = caught.value
    said = "\n".join(english(error.problems)) if isinstance(error, Problems) else str(error)
    assert re.search(match, said), said
