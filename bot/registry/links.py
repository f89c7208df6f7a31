"""Proven identity: asking to link an account to a club nickname (the one thing an account not linked yet may
do), and the moderators' and the owner's side — the requests to approve or deny, unlinking. The desk decides
(`bot.desk.links`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.desk.links import PLATFORMS
from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Command, member_of

if TYPE_CHECKING:
    from bot.desk import Desk

APPROVE, DENY = "odobri", "odbij"


async def nadimak(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.links.ask_link(
        caller.platform, caller.account, caller.display, args.text("nadimak"), args.opt_text("kod"), caller.member
    )


async def povezi(desk: Desk, caller: Caller, args: Args) -> Reply:
    member, typed, decision = member_of(caller), args.opt_text("nadimak"), args.opt_text("odluka")
    if typed is None and decision is None:
        return await desk.links.link_requests(member)
    if typed is None or decision is None:
        return desk.voice.refuse("command.usage", problem=desk.t("usage.arg.odluka"), usage=desk.t("usage.povezi"))
    return await desk.links.decide_link_by_nick(member, typed, decision == APPROVE, args.text("razlog"))


async def odvezi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.links.unlink(
        member_of(caller), args.text("clan"), args.opt_text("platforma"), args.text("razlog")
    )


COMMANDS = (
    Command(
        "nadimak",
        nadimak,
        (Arg("nadimak", ArgKind.NICK), Arg("kod", ArgKind.WORD, required=False)),
        audience=Audience.ANYONE,
    ),
    Command(
        "povezi",
        povezi,
        (
            Arg("nadimak", ArgKind.NICK, required=False, about="arg.nadimak_request"),
            Arg("odluka", ArgKind.CHOICE, required=False, choices=(APPROVE, DENY)),
            Arg("razlog", ArgKind.REASON, required=False),
        ),
        audience=Audience.OFFICIAL,
        aliases=("poveži",),
    ),
    Command(
        "odvezi",
        odvezi,
        (
            Arg("clan", ArgKind.NICK),
            Arg("platforma", ArgKind.CHOICE, required=False, choices=PLATFORMS),
            Arg("razlog", ArgKind.REASON, required=False),
        ),
        audience=Audience.OFFICIAL,
    ),
)
