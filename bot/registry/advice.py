"""The referee's second opinion: ``/analiza RUKA``, the Arbitar's analysis of a hand's falls as advice, for the
judging referee alone in his trial (private places only; the desk checks that he judges the trial)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Command, Place, member_of

if TYPE_CHECKING:
    from bot.desk import Desk


async def analiza(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.advisor.advice(member_of(caller), args.number("ruka"), caller.trial)


COMMANDS = (
    Command(
        "analiza", analiza, (Arg("ruka", ArgKind.HAND),), audience=Audience.REFEREE, places=frozenset({Place.PRIVATE})
    ),
)
