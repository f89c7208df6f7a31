"""A member's own language: `/jezik [JEZIK]` shows it or chooses it (the desk decides, `bot.desk.languages`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.desk.languages import LANGUAGE_CHOICES
from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Caller, Command, member_of

if TYPE_CHECKING:
    from bot.desk import Desk


async def jezik(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.languages.choose_language(member_of(caller), args.opt_text("jezik"))


COMMANDS = (Command("jezik", jezik, (Arg("jezik", ArgKind.CHOICE, required=False, choices=LANGUAGE_CHOICES),)),)
