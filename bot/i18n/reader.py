"""Whose language the bot speaks in the current task: the member it answers (his own choice, `/jezik`), or the
club's when nobody in particular reads (the club's chat, the table, a trial's space, what a timer says).

The desk's edges set it for one member's action (`bot.registry.run`, `Desk.press`, the adapters' answer to an
interaction) and around a private message to a member (`bot.desk.voice.Voice.reading`); `Voice.club_voice` sets it back
to the club's for what the club reads. A context variable: each asyncio task (one update, one interaction, one
timer) has its own, so concurrent members never hear each other's language.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_READER: ContextVar[str | None] = ContextVar("sudija_reader_language", default=None)


def reader_language() -> str | None:
    """The language of whoever reads what is being written now; None: the club's."""
    return _READER.get()


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Write in `language` (None: the club's) until the block ends."""
    token = _READER.set(language)
    try:
        yield
    finally:
        _READER.reset(token)


def for_the_club(method: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """A use case whose words are for the club (its notices, the table, a trial's space, what a timer says):
    written in the club's language whoever's action led to it; a private message inside it says `reading`."""

    @wraps(method)
    async def in_the_clubs_language(*args: P.args, **kwargs: P.kwargs) -> R:
        with speaking(None):
            return await method(*args, **kwargs)

    return in_the_clubs_language
