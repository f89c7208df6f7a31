"""A bot process pressing Sudi, for tests/test_postgres.py: ``python tests/pg_press.py URL NICK:CALL …``.

It opens the club's PostgreSQL database with its own desk (its own connection, as a second bot process would),
prints ``ready``, waits for a line on standard input, then presses every NICK's Sudi on CALL at once and prints
one JSON object: call id → whether that press won.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bot.config import Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW
from fakes.chat import RecordingChat
from storage.database import open_database


async def main(url: str, presses: list[tuple[str, int]]) -> None:
    db = await open_database(url)
    try:
        desk = Desk(db, Chats([RecordingChat()]), LoggingGameServer(), ManualClock(NOW), Config(), ManualTimers())
        members = {nick: await db.members.by_nick(nick) for nick, _ in presses}
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)

        async def press(nick: str, call: int) -> tuple[int, bool]:
            member = members[nick]
            assert member is not None, nick
            return call, (await desk.take(member, call)).ok

        won = await asyncio.gather(*(press(nick, call) for nick, call in presses))
        print(json.dumps({str(call): ok for call, ok in won}), flush=True)
    finally:
        await db.close()


if __name__ == "__main__":
    pairs = [arg.split(":") for arg in sys.argv[2:]]
    asyncio.run(main(sys.argv[1], [(nick, int(call)) for nick, call in pairs]))
