"""`sudija clan NICK [--json]`: a member's card (functions, plavac, league points this month, napustio, right to
call), and the governance acts for an admin at the server:

    sudija clan NICK postavi sudija|vecnik|moderator [--razlog R]
    sudija clan NICK razresi sudija|vecnik|moderator --razlog R
    sudija clan NICK uskrati [--dana N | --do YYYY-MM-DD] --razlog R
    sudija clan NICK vrati [--razlog R]
    sudija clan NICK iskljuci --razlog R     remove from the club, until readmitted (no platform's join undoes it)
    sudija clan NICK primi [--razlog R]      readmit
    sudija clan --akti [NICK]            the list of acts (who, whom, when, why)
    sudija clan --zatvori-ligu YYYY-MM   close a league month (its standings freeze)

The admin acts with every right (the acts record no member as their author). The bot's chat platforms are not
reached from here, so the member concerned is not told; the game server is not reached either. An act runs the
club's desk, so on SQLite it takes the database's lock (bot/dblock.py): while the bot runs, act through it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.cli._common import add_db_option, club_config, database_path, days, existing_database, operator_words
from bot.config import Config

if TYPE_CHECKING:
    from bot.desk import Desk
    from bot.desk.penalties import MemberCard
    from bot.ports import Reply
    from storage.penalties import PenaltyRow

ACTIONS = ("postavi", "razresi", "uskrati", "vrati", "iskljuci", "primi")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("clan")
    parser.add_argument("nick", nargs="?", metavar="NICK")
    parser.add_argument("action", nargs="?", choices=ACTIONS, metavar="AKCIJA")
    parser.add_argument("role", nargs="?", metavar="ULOGA")
    parser.add_argument("--razlog", default="", metavar="TEXT")
    parser.add_argument("--dana", type=days, default=None, metavar="N")
    parser.add_argument("--do", dest="until", default=None, metavar="YYYY-MM-DD")
    parser.add_argument("--akti", action="store_true")
    parser.add_argument("--zatvori-ligu", dest="close_month", default=None, metavar="YYYY-MM")
    add_db_option(parser)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    if args.nick is None and not args.akti and args.close_month is None:
        print(operator_words(args).t("cli.clan.usage"), file=sys.stderr)
        return 2
    return asyncio.run(main(args, config, database_path(args)))


async def main(args: argparse.Namespace, config: Config, db_path: str) -> int:
    from bot.cli import in_use  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.dblock import DatabaseInUse, DatabaseLock, shared  # noqa: PLC0415 (a sub-command loads only what it runs)

    writes = args.close_month is not None or (args.action is not None and not args.akti)
    if not writes or shared(db_path):
        return await _main(args, config, db_path)
    lock = DatabaseLock(db_path, "sudija clan")  # an act is the desk's: one process writes the club's file
    try:
        lock.acquire()
    except DatabaseInUse as held:
        print(in_use(held, operator_words(args)), file=sys.stderr)
        return 1
    try:
        return await _main(args, config, db_path)
    finally:
        lock.release()


async def _main(args: argparse.Namespace, config: Config, db_path: str) -> int:
    from bot.desk import Desk  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.ports import Chats, LoggingGameServer, ManualTimers, SystemClock  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, operator_words(args), config.club_id) as db:
        desk = Desk(db, Chats([]), LoggingGameServer(), SystemClock(), config, ManualTimers())
        if args.close_month is not None:
            reply = await desk.governance.close_league(None, args.close_month, args.razlog)
        elif args.akti:
            reply = await desk.governance.acts(None, args.nick)
        elif args.action is not None:
            reply = await act(desk, args)
        else:
            member = await db.members.by_nick(args.nick)
            if member is None:
                print(desk.t("gov.unknown_member", nick=args.nick), file=sys.stderr)
                return 1
            card = await desk.penalties.member_card(member)
            if args.json:
                print(
                    json.dumps(card_json(card, await db.penalties.for_member(member.id)), ensure_ascii=False, indent=2)
                )
            else:
                print(desk.penalties.card_text(card, full=True))
            return 0
    print(reply.text, file=sys.stdout if reply.ok else sys.stderr)
    return 0 if reply.ok else 1


async def act(desk: Desk, args: argparse.Namespace) -> Reply:
    from bot.desk.governance import role_of  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.ports import Reply  # noqa: PLC0415 (a sub-command loads only what it runs)

    if args.action in ("postavi", "razresi"):
        role = role_of(args.role or "")
        if role is None:
            return Reply(desk.t("usage.arg.funkcija"), ok=False)
        if args.action == "postavi":
            return await desk.votes.appoint(None, args.nick, role, args.razlog)
        return await desk.votes.dismiss(None, args.nick, role, args.razlog)
    if args.action == "uskrati":
        until: datetime | None = None
        if args.until is not None:
            try:
                until = datetime.strptime(args.until, "%Y-%m-%d").replace(tzinfo=UTC)
            except ValueError:
                return Reply(desk.t("usage.date"), ok=False)
        elif args.dana is not None:
            until = desk.now() + timedelta(days=args.dana)
        return await desk.votes.deny_call(None, args.nick, until, args.razlog)
    if args.action == "iskljuci":
        return await desk.governance.remove_from_club(None, args.nick, args.razlog)
    if args.action == "primi":
        return await desk.governance.readmit(None, args.nick, args.razlog)
    return await desk.governance.restore_call(None, args.nick, args.razlog)


def card_json(card: MemberCard, penalties: list[PenaltyRow]) -> dict[str, Any]:
    """The card with stable keys."""
    s = card.standing
    ban = card.call_ban
    return {
        "nick": card.member.nick,
        "roles": list(card.roles),
        "plavac_until": _time(card.plavac_until),
        "league": {
            "month": card.month,
            "open": card.month_open,
            "points": s.points,
            "games": s.games,
            "game_points": s.game_points,
            "abandon_points": s.abandon_points,
            "penalty_points": s.penalty_points,
        },
        "napustio": {"total": card.napustio_total, "this_month": s.abandoned},
        "call": {
            "allowed": card.call_allowed,
            "denied_until": _time(ban.until) if ban is not None and not card.call_allowed else None,
            "denied_forever": ban is not None and ban.until is None,
            "reason": ban.reason if ban is not None and not card.call_allowed else None,
        },
        "penalties": [
            {
                "game": p.game,
                "trial": p.trial,
                "plavac_days": p.plavac_days,
                "league_points": p.league_points,
                "abandoned": p.abandoned,
                "month": p.month,
                "imposed_at": _time(p.imposed_at),
                "lifted_at": _time(p.lifted_at),
            }
            for p in penalties
        ],
    }


def _time(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None
