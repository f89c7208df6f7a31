"""`sudija presude GAME [--db FILE] [--json] [--as NICK]`: every trial of a game with its outcome, verdict, reason
and whole conversation.

Text: the desk's own rendering (`bot.views.render_trials`) with every message of each trial, then the game's appeals
and reports as `/presude` lists them (`bot.views.render_appeals`), in the chosen language. ``--json``: stable
keys — ``game`` and ``trials``, each trial with ``id``, ``kind`` (in_game / out_of_game), ``caller``, ``referee``
(nicknames), ``opened_at``, ``closed_at`` (ISO 8601 UTC, null while open), ``outcome`` (verdict / no_verdict /
interrupted / open), ``verdict`` (the stored verdict JSON, or null), ``reason`` and ``messages`` (every message:
``at``, ``author`` — the author's label — and ``text``). The operator sees names; with ``--as NICK`` it is shown as
that member sees it (`bot.records.access`, as `/presude` and `/zapisnik` show it): unless his roles are in
``referee_names_visible_to``, ``referee`` is null and the referee's and councilors' messages are labelled by
function ("sudija" / "većnik"); a trial he may not read (he is neither its party, nor a player of the game, nor
one of the club's officials) has ``messages`` null. ``appeals`` (only when there are
any): every appeal against the game's trials, then every report of the game itself (``trial`` null), as `/presude`
lists them (``id``, ``trial``, ``kind``, ``appellant``, ``filed_at``,
``state``, ``councilor`` — null where the referee is —, ``hearing``, ``decided_at``, ``reason``,
``restriction_days``). An unknown game, member or a missing database: a message on standard error and exit
status 1.
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
from bot.records.access import game_players, trial_access
from bot.views import TranscriptLine, author_label, render_appeals, render_trials
from rules.gamelog import format_time
from storage.councils import Appeal
from storage.trials import Trial


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("presude")
    parser.add_argument("game", type=game_number, metavar="GAME")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true")
    add_lang_option(parser)
    add_viewer_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    return asyncio.run(
        show(
            args.game,
            database_path(args),
            as_json=args.json,
            lang=args.lang or config.language,
            viewer=args.viewer,
            config=config,
        )
    )


def trial_json(
    trial: Trial, names: dict[int, str], said: list[TranscriptLine] | None = None, show_names: bool = True
) -> dict[str, Any]:
    return {
        "id": trial.id,
        "kind": "in_game" if trial.in_game else "out_of_game",
        "caller": names.get(trial.caller),
        "referee": names.get(trial.referee) if show_names else None,
        "opened_at": format_time(trial.opened_at),
        "closed_at": format_time(trial.closed_at) if trial.closed_at else None,
        "outcome": trial.outcome,
        "verdict": trial.verdict,
        "reason": trial.reason,
        "messages": None
        if said is None
        else [{"at": format_time(line.at), "author": line.author, "text": line.text} for line in said],
    }


def appeal_json(appeal: Appeal, names: dict[int, str], show_names: bool = True) -> dict[str, Any]:
    return {
        "id": appeal.id,
        "trial": appeal.trial,
        "kind": appeal.kind,
        "appellant": names.get(appeal.appellant),
        "filed_at": format_time(appeal.filed_at),
        "state": appeal.state,
        "councilor": names.get(appeal.councilor) if show_names and appeal.councilor is not None else None,
        "hearing": appeal.hearing,
        "decided_at": format_time(appeal.decided_at) if appeal.decided_at else None,
        "reason": appeal.reason,
        "restriction_days": appeal.restriction_days,
    }


async def show(
    number: int,
    db_path: str,
    *,
    as_json: bool = False,
    lang: str = "sr",
    viewer: str | None = None,
    config: Config | None = None,
) -> int:
    """Print the trials of game `number` from the database at `db_path`; the exit status."""

    messages = Catalogue(lang, (config or Config()).timezone)
    async with existing_database(db_path, messages, (config or Config()).club_id) as db:
        if await db.games.summary(number) is None:
            print(messages.t("call.unknown_game", game=number), file=sys.stderr)
            return 1
        trials = await db.trials.for_game(number)
        members = await db.members.all()
        names = {m.id: m.nick for m in members}
        member = None
        if viewer is not None:
            member = await db.members.by_nick(viewer)  # as `sudija papir --as` and the chat find a nickname
            if member is None:
                print(messages.t("cli.unknown_member", nick=viewer), file=sys.stderr)
                return 1
        show_names = sees_names(config or Config(), member)
        appeals = await db.appeals.for_trials([t.id for t in trials])
        appeals += await db.appeals.reports_of_game(number)
        players = await game_players(db, number)
        said: dict[int, list[TranscriptLine]] = {}
        for trial in trials:
            if (
                member is not None
                and not (await trial_access(db, config or Config(), member, trial, players)).transcript
            ):
                continue
            roles = {p.member: p.role for p in await db.trials.participants(trial.id)}
            said[trial.id] = [
                TranscriptLine(msg.at, author_label(msg.member, roles, names, show_names, messages), msg.text)
                for msg in await db.trials.messages(trial.id)
            ]
    if as_json:
        shown: dict[str, Any] = {
            "game": number,
            "trials": [trial_json(t, names, said.get(t.id), show_names) for t in trials],
        }
        if appeals:
            shown["appeals"] = [appeal_json(a, names, show_names) for a in appeals]
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        shown_text = render_trials(number, trials, names, show_names, messages, said, page_size=None)
        print("\n".join([shown_text, *render_appeals(appeals, names, show_names, messages)]))
    return 0
