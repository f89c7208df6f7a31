"""`sudija games [--player NICK] [--db FILE] [--json] [--limit N]`: list the stored games, newest first.

Text (in ``--lang``, default the club's ``[club] language``; end times on the club's clock): one line per game
(number, status, rated, AI, end time, hands, players in seat order). With ``--json`` a
JSON array of objects with the stable keys ``number``, ``status``, ``rated``, ``ai``, ``players``,
``started_at``, ``ended_at`` (null while in progress) and ``hands``. Games in progress come first, then by end
time, newest first (`storage.games.GameStore.listing`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any
from zoneinfo import ZoneInfo

from bot.cli._common import (
    add_db_option,
    add_lang_option,
    club_config,
    database_path,
    existing_database,
    operator_words,
)
from bot.cli._language import current
from bot.messages import Catalogue
from rules.gamelog import format_time
from rules.nicknames import shown
from storage.games import GameSummary

JSON_KEYS = ("number", "status", "rated", "ai", "players", "started_at", "ended_at", "hands")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("games")
    parser.add_argument("--player", default=None, metavar="NICK")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--limit", type=_positive, default=100, metavar="N")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(current().t("cli.type.positive"))
    return value


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    db_path = database_path(args)
    words = operator_words(args)
    games, total = asyncio.run(_listing(db_path, words, args.player, args.limit, config.club_id))
    if args.json:
        print(json.dumps([game_json(game) for game in games], ensure_ascii=False, indent=2))
        return 0
    for line in table(games, words):
        print(line)
    who = {"nick": args.player} if args.player else {}
    if len(games) == args.limit and (args.player or total > len(games)):
        print(words.t("cli.games.limited_of" if who else "cli.games.limited", shown=len(games), **who))
    elif not games:
        print(words.t("cli.games.none_of" if who else "cli.games.none", db=db_path, **who))
    return 0


async def _listing(
    db_path: str, words: Catalogue, player: str | None, limit: int, club: str
) -> tuple[list[GameSummary], int]:
    async with existing_database(db_path, words, club) as db:
        games = await db.games.listing(player, limit=limit)
        total, _ = await db.games.count()
    return games, total


def game_json(game: GameSummary) -> dict[str, Any]:
    return {
        "number": game.number,
        "status": game.status.value,
        "rated": game.rated,
        "ai": game.ai,
        "players": list(game.players),
        "started_at": format_time(game.started_at),
        "ended_at": format_time(game.ended_at) if game.ended_at is not None else None,
        "hands": game.hand_count,
    }


def table(games: list[GameSummary], words: Catalogue) -> list[str]:
    """The text listing in `words`' language, the end times on the club's clock (its zone named in the heading)."""
    if not games:
        return []
    zone = ZoneInfo(words.zone)
    yes, no = words.t("cli.yes"), words.t("cli.no")
    head = [words.t(f"cli.games.head_{name}") for name in ("game", "status", "rated", "ai", "ended", "hands")]
    ended_head = f"{head[4]} ({words.zone})"
    wide = max(16, len(ended_head))
    lines = [
        f"{head[0]:>9}  {head[1]:<11}  {head[2]:<7}  {head[3]:<3}  {ended_head:<{wide}}  {head[5]:>7}  "
        + words.t("cli.games.head_players")
    ]
    for game in games:
        ended = game.ended_at.astimezone(zone).strftime("%Y-%m-%d %H:%M") if game.ended_at is not None else "—"
        players = ", ".join(shown(p) for p in game.players)  # a nickname never breaks or forges a line
        lines.append(
            f"{game.number:>9}  {game.status.value:<11}  {yes if game.rated else no:<7}  "
            f"{yes if game.ai else no:<3}  {ended:<{wide}}  {game.hand_count:>7}  {players}"
        )
    return lines
