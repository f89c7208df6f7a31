"""`sudija ruka GAME N [--db FILE] --png FILE`: one hand of a stored game as the picture Prikaz ruke shows (the
three hands, the talon and the discards, the auction, the tricks in order with who led and who won), and the
same hand as text on standard output. An unknown game or hand, or a missing database: a message on standard
error and exit status 1."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from typing import Any

from bot.cli._common import (
    add_db_option,
    add_lang_option,
    club_config,
    database_path,
    existing_database,
    game_number,
    whole_number,
)
from bot.cli._pictures import write_png
from bot.messages import Catalogue
from storage.tenancy import DEFAULT_CLUB


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ruka")
    parser.add_argument("game", type=game_number, metavar="GAME")
    parser.add_argument("hand", type=whole_number, metavar="N")
    add_db_option(parser)
    parser.add_argument("--png", required=True, metavar="FILE")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    lang = args.lang or config.language
    return asyncio.run(show(args.game, args.hand, database_path(args), args.png, lang, config.club_id))


async def show(number: int, n: int, db_path: str, png: str, lang: str, club: str = DEFAULT_CLUB) -> int:
    from bot.pictures.hand import hand_png  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.views import render_hands  # noqa: PLC0415 (a sub-command loads only what it runs)

    words = Catalogue(lang)
    async with existing_database(db_path, words, club) as db:
        game = await db.games.get(number)
    if game is None:
        print(words.t("papir.unknown", game=number, db=db_path), file=sys.stderr)
        return 1
    hand = next((h for h in game.hands if h.n == n), None)
    if hand is None:
        missing = words.t("cli.ruka.no_hand", game=number, hand=n, count=len(game.hands))
        print(f"sudija ruka: {missing}", file=sys.stderr)
        return 1
    if not write_png(png, hand_png(game, n, lang)):
        return 1
    print(render_hands(dataclasses.replace(game, hands=(hand,)), words))
    return 0
