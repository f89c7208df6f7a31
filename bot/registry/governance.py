"""The club's governance: appointing, dismissing, resigning, denying and restoring the right to call, the acts, a
member's card, closing a league month. The desk decides who may do what (and writes a function to the platforms
that show it as a role: the acts are the truth)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING

from bot.desk.statistics import club_zone
from bot.ports import Reply
from bot.registry.spec import MAX_DAYS, Arg, ArgKind, Args, Audience, Caller, Command, Place, member_of
from rules.members import ROLES, Role

if TYPE_CHECKING:
    from bot.desk import Desk

NICK = Arg("clan", ArgKind.NICK)
OPTIONAL_NICK = Arg("clan", ArgKind.NICK, required=False)
FUNCTION = Arg("funkcija", ArgKind.CHOICE, choices=ROLES)
REASON = Arg("razlog", ArgKind.REASON, required=False)
REQUIRED_REASON = Arg("razlog", ArgKind.REASON)
# The owner's lone dismissal names its ground on its own: "teže kršenje pravila" (bot.desk.votes.GRAVE_VIOLATION)
GROUND = Arg("osnov", ArgKind.CHOICE, required=False, choices=("teze_krsenje",), keyword="osnov")


async def postavi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.votes.appoint(
        member_of(caller), args.text("clan"), Role(args.text("funkcija")), args.text("razlog")
    )


async def razresi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.votes.dismiss(
        member_of(caller), args.text("clan"), Role(args.text("funkcija")), args.text("razlog"), args.opt_text("osnov")
    )


async def ostavka(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.votes.resign(member_of(caller), Role(args.text("funkcija")), args.text("razlog"))


async def uskrati(desk: Desk, caller: Caller, args: Args) -> Reply:
    days, until_day = args.opt_number("dana"), args.opt_day("do")
    if days is not None and until_day is not None:
        return desk.voice.refuse("usage.days_and_date")
    until: datetime | None = None
    if days is not None:
        until = desk.now() + timedelta(days=days)
    elif until_day is not None:
        until = datetime.combine(until_day, time(), tzinfo=club_zone(desk.config.timezone))  # the club's midnight
    return await desk.votes.deny_call(member_of(caller), args.text("clan"), until, args.text("razlog"))


async def vrati(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.governance.restore_call(member_of(caller), args.text("clan"), args.text("razlog"))


async def akti(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.governance.acts(member_of(caller), args.opt_text("clan"))


async def clan(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.governance.member_status(member_of(caller), args.opt_text("clan"))


async def zatvori_ligu(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.governance.close_league(member_of(caller), args.opt_text("mesec"), args.text("razlog"))


async def statistika(desk: Desk, caller: Caller, args: Args) -> Reply:
    from bot.desk.statistics import statistics  # noqa: PLC0415 (pictures only when asked)

    return await statistics(desk, member_of(caller), args.opt_day("od"), args.opt_day("do"))


COMMANDS = (
    Command("postavi", postavi, (NICK, FUNCTION, REASON), audience=Audience.OFFICIAL),
    Command(
        "razresi",
        razresi,
        (NICK, FUNCTION, REQUIRED_REASON, GROUND),
        audience=Audience.OFFICIAL,
        aliases=("razreši",),
    ),
    Command("ostavka", ostavka, (FUNCTION, REASON)),
    Command(
        "uskrati",
        uskrati,
        (
            NICK,
            Arg("dana", ArgKind.NUMBER, required=False, high=MAX_DAYS),
            Arg("do", ArgKind.DATE, required=False, keyword="do"),
            REQUIRED_REASON,
        ),
        audience=Audience.OFFICIAL,
    ),
    Command("vrati", vrati, (NICK, REASON), audience=Audience.OFFICIAL),
    Command("akti", akti, (OPTIONAL_NICK,)),
    Command("clan", clan, (OPTIONAL_NICK,), aliases=("član",)),
    Command(
        "zatvori_ligu",
        zatvori_ligu,
        (Arg("mesec", ArgKind.MONTH, required=False), REASON),
        audience=Audience.OFFICIAL,
        aliases=("liga zatvori",),
    ),
    Command(
        "statistika",
        statistika,
        (Arg("od", ArgKind.DATE, required=False, keyword="od"), Arg("do", ArgKind.DATE, required=False, keyword="do")),
        audience=Audience.OFFICIAL,
        places=frozenset({Place.PRIVATE}),
    ),  # the council's figures stay private
)
