"""The pictures the desk attaches to its replies: the paper with /papir, the hands with Prikaz ruke, the Arbitar's
evidence with its verdict. Rendering runs
in a worker thread so a large game's pictures never stall the event loop; the reply's text stays the same."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.ports import Picture
from rules.arbitar.verdict import ArbitarVerdict
from rules.gamelog import Game
from rules.paper import Paper

if TYPE_CHECKING:
    from bot.papers import KeptPaper

log = logging.getLogger(__name__)
MAX_HAND_PICTURES = 10  # Discord takes at most ten files a message; the text shows every hand anyway


def _paper(game: Game, paper: Paper, lang: str) -> Picture:
    from bot.pictures.paper import paper_png  # noqa: PLC0415 (Pillow only when drawn)
    from bot.pictures.words import words  # noqa: PLC0415 (Pillow only when drawn)

    return Picture(
        f"papir-{game.number}.png", paper_png(game, paper, lang), words(lang)["paper"].format(game=game.number)
    )


def _hands(game: Game, lang: str) -> tuple[Picture, ...]:
    from bot.pictures.hand import render_hand  # noqa: PLC0415 (Pillow only when drawn)
    from bot.pictures.words import words  # noqa: PLC0415 (Pillow only when drawn)

    title = words(lang)["hands_title"]
    return tuple(
        Picture(
            f"ruka-{game.number}-{hand.n}.png",
            render_hand(game, hand, lang).png(),
            title.format(game=game.number, n=hand.n),
        )
        for hand in game.hands[-MAX_HAND_PICTURES:]
    )


async def _rendered(render: Callable[[], tuple[Picture, ...]], what: str) -> tuple[Picture, ...]:
    """The pictures, rendered in a worker thread; none when rendering fails (logged): the text says it all, and
    what the desk already did (a verdict recorded) must not look failed because of a picture."""
    try:
        return await asyncio.to_thread(render)
    except Exception:
        log.exception("cannot render the pictures of %s", what)
        return ()


async def paper_pictures(game: Game, paper: Paper, lang: str) -> tuple[Picture, ...]:
    return await _rendered(lambda: (_paper(game, paper, lang),), f"the paper of game {game.number}")


async def kept_paper_pictures(kept: KeptPaper, lang: str) -> tuple[Picture, ...]:
    """The picture of a kept paper (`bot.papers`) in `lang`, drawn once per version of the paper and kept with it
    (without the referees' names, as every picture); none when drawing fails (logged, and drawn again when next
    asked)."""

    def draw() -> tuple[Picture, ...]:
        return (_paper(kept.game, kept.anonymous, lang),)

    try:
        return await kept.derived_async(("picture", lang), lambda: asyncio.to_thread(draw))
    except Exception:
        log.exception("cannot render the pictures of the paper of game %s", kept.number)
        return ()


async def hand_pictures(game: Game, lang: str) -> tuple[Picture, ...]:
    """The last `MAX_HAND_PICTURES` hands of `game` (the hand in progress included), oldest first."""
    return await _rendered(lambda: _hands(game, lang), f"the hands of game {game.number}")


def _verdict(game: Game, n: int, fallen: int, verdict: ArbitarVerdict, lang: str) -> Picture:
    from bot.pictures.arbitar import verdict_png  # noqa: PLC0415 (Pillow only when drawn)
    from bot.pictures.words import words  # noqa: PLC0415 (Pillow only when drawn)

    return Picture(
        f"arbitar-{game.number}-{n}.png",
        verdict_png(game, n, fallen, verdict, lang),
        words(lang)["arbitar"].format(game=game.number, n=n),
    )


async def verdict_pictures(game: Game, n: int, fallen: int, verdict: ArbitarVerdict, lang: str) -> tuple[Picture, ...]:
    return await _rendered(
        lambda: (_verdict(game, n, fallen, verdict, lang),), f"the Arbitar's verdict on game {game.number} hand {n}"
    )
