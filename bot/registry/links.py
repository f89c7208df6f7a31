"""Linking a platform account to a club nickname: the one thing an account not linked yet may do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Command

if TYPE_CHECKING:
    from bot.desk import Desk


async def nadimak(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.link_account(caller.platform, caller.account, args.text("nadimak"))


COMMANDS = (
    Command("nadimak", nadimak, (Arg("nadimak", ArgKind.NICK),), audience=Audience.ANYONE),
)
