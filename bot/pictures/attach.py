"""The pictures the desk attaches to its replies: the paper with /papir, the hands with Prikaz ruke. Rendering runs
in a worker thread so a large game's pictures never stall the event loop; the reply's text stays the same."""

from __future__ import annotations

import asyncio

from bot.ports import Picture
from rules.gamelog import Game
from rules.paper import Paper

MAX_HAND_PICTURES = 10  # Discord takes at most ten files a message; the text shows every hand anyway


def _paper(game: Game, paper: Paper, lang: str) -> Picture:
    from bot.pictures.paper import paper_png
    from bot.pictures.words import words

    return Picture(f"papir-{game.number}.png", paper_png(game, paper, lang),
                   words(lang)["paper"].format(game=game.number))


def _hands(game: Game, lang: str) -> tuple[Picture, ...]:
    from bot.pictures.hand import render_hand
    from bot.pictures.words import words

    title = words(lang)["hands_title"]
    return tuple(Picture(f"ruka-{game.number}-{hand.n}.png", render_hand(game, hand, lang).png(),
                         title.format(game=game.number, n=hand.n))
                 for hand in game.hands[-MAX_HAND_PICTURES:])


async def paper_pictures(game: Game, paper: Paper, lang: str) -> tuple[Picture, ...]:
    return (await asyncio.to_thread(_paper, game, paper, lang),)


async def hand_pictures(game: Game, lang: str) -> tuple[Picture, ...]:
    """The last `MAX_HAND_PICTURES` hands of `game` (the hand in progress included), oldest first."""
    return await asyncio.to_thread(_hands, game, lang)
