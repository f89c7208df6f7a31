"""The club's web pages from the chat: `/web` sends the member a private one-time sign-in link (the desk decides,
`bot.desk.signin`); typed in the club's chat it is refused (`Place`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Reply
from bot.registry.spec import Args, Caller, Command, Place, member_of

if TYPE_CHECKING:
    from bot.desk import Desk


async def web(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.signin.web_link(member_of(caller), caller.platform, caller.account)


# Private only: whoever opens the link first is signed in as him, so it is never posted where others read.
COMMANDS = (Command("web", web, places=frozenset({Place.PRIVATE})),)
