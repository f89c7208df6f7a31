"""The councilors' business: voting on a proposal (`/glasaj`, besides the Da / Ne buttons), filing an appeal
(`/zalba`) or, in a club whose appeals are reports of an incident, a report with the table's chat (`/prijava`),
the appeals open (`/zalbe`), taking one (`/preuzmi`, besides the Preuzmi button) and deciding it
(`/resi`). The desk decides who may do what (`bot.desk.votes`, `bot.desk.appeals`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Reply
from bot.registry.spec import MAX_DAYS, Arg, ArgKind, Args, Audience, Caller, Command, Place, member_of

if TYPE_CHECKING:
    from bot.desk import Desk

APPEAL = Arg("zalba", ArgKind.NUMBER)
PRIVATE = frozenset({Place.PRIVATE})


async def glasaj(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.votes.cast(member_of(caller), args.number("glasanje"), bool(args.opt_flag("glas")))


async def zalba(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.appeals.file_appeal(
        member_of(caller), args.number("sudjenje"), args.opt_text("osnov"), args.text("razlog")
    )


async def prijava(desk: Desk, caller: Caller, args: Args) -> Reply:
    upload = args.upload("prilog")
    return await desk.appeals.file_report(
        member_of(caller),
        args.number("partija"),
        args.opt_text("osnov"),
        args.text("razlog"),
        (upload,) if upload is not None else (),
    )


async def preuzmi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.appeals.take_appeal(member_of(caller), args.number("zalba"))


async def zalbe(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.appeals.open_appeals(member_of(caller))


async def resi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.appeals.decide_appeal(
        member_of(caller), args.number("zalba"), args.text("ishod"), args.opt_number("dana"), args.text("razlog")
    )


COMMANDS = (
    Command("glasaj", glasaj, (Arg("glasanje", ArgKind.NUMBER), Arg("glas", ArgKind.BOOL)), audience=Audience.OFFICIAL),
    Command(
        "zalba",
        zalba,
        (
            Arg("sudjenje", ArgKind.NUMBER, about="arg.sudjenje_zalba"),
            Arg("osnov", ArgKind.WORD, required=False),
            Arg("razlog", ArgKind.REASON, required=False, about="arg.razlog_zalba"),
        ),
        aliases=("žalba",),
    ),
    Command(
        "prijava",
        prijava,
        (
            Arg("partija", ArgKind.GAME, autocomplete=True, about="arg.partija_prijava"),
            Arg("osnov", ArgKind.WORD, required=False),
            Arg("prilog", ArgKind.FILE, required=False),
            Arg("razlog", ArgKind.REASON, required=False, about="arg.razlog_prijava"),
        ),
        places=PRIVATE,
    ),
    Command("preuzmi", preuzmi, (APPEAL,), audience=Audience.OFFICIAL),
    Command("zalbe", zalbe, audience=Audience.OFFICIAL, places=PRIVATE, aliases=("žalbe",)),
    Command(
        "resi",
        resi,
        (
            APPEAL,
            Arg("ishod", ArgKind.CHOICE, choices=("usvojena", "odbijena", "nedopustena")),
            Arg("dana", ArgKind.NUMBER, required=False, high=MAX_DAYS),
            Arg("razlog", ArgKind.REASON, required=False),
        ),
        audience=Audience.OFFICIAL,
        places=PRIVATE,
        aliases=("reši",),
    ),
)
