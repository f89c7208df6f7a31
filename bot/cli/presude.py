"""`sudija presude GAME [--db FILE] [--json]`: every trial of a game with its outcome, verdict and reason.

Text: the desk's own rendering (`bot.views.render_trials`) with the referees' names. ``--json``: stable keys —
``game`` and ``trials``, each trial with ``id``, ``kind`` (in_game / out_of_game), ``caller``, ``referee``
(nicknames), ``opened_at``, ``closed_at`` (ISO 8601 UTC, null while open), ``outcome`` (verdict / no_verdict /
interrupted / open), ``verdict`` (the stored verdict JSON, or null) and ``reason``. An unknown game or a missing
database: a message on standard error and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bot.cli._common import add_db_option, club_config, game_number
from bot.messages import Catalogue
from bot.views import render_trials
from rules.gamelog import format_time
from storage.trials import Trial


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("presude", help="show every trial and verdict of a game",
                                   description="Show every trial of a game: its kind, caller, referee, times, "
                                               "outcome, verdict and reason, oldest first.")
    parser.add_argument("game", type=game_number, metavar="GAME", help="the game number, e.g. 1847258")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true", help="print the trials as JSON")
    parser.add_argument("--lang", choices=("sr", "en"), default=None, help="language (default: the club's)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    return asyncio.run(show(args.game, args.db or config.database, as_json=args.json,
                            lang=args.lang or config.language))


def trial_json(trial: Trial, names: dict[int, str]) -> dict[str, Any]:
    return {
        "id": trial.id,
        "kind": "in_game" if trial.in_game else "out_of_game",
        "caller": names.get(trial.caller),
        "referee": names.get(trial.referee),
        "opened_at": format_time(trial.opened_at),
        "closed_at": format_time(trial.closed_at) if trial.closed_at else None,
        "outcome": trial.outcome,
        "verdict": trial.verdict,
        "reason": trial.reason,
    }


async def show(number: int, db_path: str, *, as_json: bool = False, lang: str = "sr") -> int:
    """Print the trials of game `number` from the database at `db_path`; the exit status."""
    from storage.database import open_database

    messages = Catalogue(lang)
    if db_path != ":memory:" and not Path(db_path).exists():
        print(messages.t("presude.no_db", db=db_path), file=sys.stderr)
        return 1
    db = await open_database(db_path)
    try:
        if await db.games.summary(number) is None:
            print(messages.t("call.unknown_game", game=number), file=sys.stderr)
            return 1
        trials = await db.trials.for_game(number)
        names = {m.id: m.nick for m in await db.members.all()}
    finally:
        await db.close()
    if as_json:
        print(json.dumps({"game": number, "trials": [trial_json(t, names) for t in trials]},
                         ensure_ascii=False, indent=2))
    else:
        print(render_trials(number, trials, names, True, messages))
    return 0
