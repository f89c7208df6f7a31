"""`sudija papir GAME [--db FILE] [--json] [--as NICK]`: show a game's paper (papir) computed from its stored log
and changes. With ``--as NICK`` the paper is shown as that member sees it: a verdict's change carries its trial
number and no referee's name (``who`` is null) unless his roles are in ``referee_names_visible_to``.

Text (Serbian by default, the club's language from the configuration, or ``--lang``): the players' columns, the
hand list with each hand's entries and attached changes, the results once the game has ended, and the
cross-check report kept at import (differences between the log's recorded score and the computed paper). With
``--json`` the paper is printed as JSON with the stable keys of `rules.paper_render.paper_json`; the
cross-check report then goes to standard error so that standard output stays pure JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from bot.cli._common import (
    add_db_option,
    add_lang_option,
    add_viewer_option,
    club_config,
    database_path,
    existing_database,
    game_number,
    sees_names,
)
from bot.config import Config
from bot.messages import Catalogue
from rules.paper import compute_paper
from rules.paper_render import anonymised, paper_json, paper_text


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("papir")
    parser.add_argument("game", type=game_number, metavar="GAME")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true")
    add_lang_option(parser)
    add_viewer_option(parser)
    parser.add_argument("--png", default=None, metavar="FILE")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    lang = args.lang or config.language
    return asyncio.run(
        show(
            args.game,
            database_path(args),
            as_json=args.json,
            lang=lang,
            viewer=args.viewer,
            config=config,
            png=args.png,
        )
    )


async def show(
    number: int,
    db_path: str,
    *,
    as_json: bool = False,
    lang: str = "sr",
    viewer: str | None = None,
    config: Config | None = None,
    png: str | None = None,
) -> int:
    """Print the paper of game `number` from the database at `db_path`; the exit status."""

    words = Catalogue(lang)
    async with existing_database(db_path, words, (config or Config()).club_id) as db:
        game = await db.games.get(number)
        if game is None:
            print(words.t("papir.unknown", game=number, db=db_path), file=sys.stderr)
            return 1
        changes = await db.paper_changes.for_game(number)
        report = await db.games.cross_check_report(number)
        if viewer is not None:
            member = await db.members.by_nick(viewer)
            if member is None:
                print(words.t("cli.unknown_member", nick=viewer), file=sys.stderr)
                return 1
            if not sees_names(config or Config(), member):
                changes = anonymised(changes)
    paper = compute_paper(game, changes)
    if png is not None:
        from bot.cli._pictures import write_png  # noqa: PLC0415 (a sub-command loads only what it runs)
        from bot.pictures.paper import paper_png  # noqa: PLC0415 (a sub-command loads only what it runs)

        if not write_png(png, paper_png(game, paper, lang), to_stderr=as_json):
            return 1
    if as_json:
        print(json.dumps(paper_json(game, paper), ensure_ascii=False, indent=2))
        if report:
            print("\n".join([words.t("papir.report"), *report]), file=sys.stderr)
        return 0
    print(paper_text(game, paper, words.t))
    if report:
        print()
        print("\n".join([words.t("papir.report"), *report]))
    return 0
