"""A club linked to the reference game server over loopback HTTP (127.0.0.1): the bot's events endpoint and the
reference server's commands endpoint are real aiohttp servers; the outbox worker is run by the test
(`flush`), and one manual clock drives both sides (signatures, backoff)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from bot.config import Config, GameServerConfig
from bot.desk import Desk
from bot.gameserver.link import GameServerLink
from bot.gameserver.outbox import HttpGameServer
from bot.gameserver.reference import ReferenceGameServer, Table
from bot.ports import Chats, ManualClock, ManualTimers
from club import NOW, database_for
from fakes.chat import RecordingChat
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from storage.database import Database, open_database
from storage.members import Member

SECRET = b"test-secret-not-for-production"


@dataclass
class Linked:
    db: Database
    desk: Desk
    chat: RecordingChat
    clock: ManualClock
    link: GameServerLink
    ref: ReferenceGameServer
    bot_server: TestServer
    ref_server: TestServer
    told: list[str]

    async def member(self, nick: str, *roles: str) -> Member:
        member = await self.db.members.link("test", nick, nick, self.clock.now())
        for role in roles:
            await self.db.members.set_role(member.id, role, True, None, self.clock.now())
        await self.db.members.set_presence(member.id, True, self.clock.now())
        return await self.get(nick)

    async def get(self, nick: str) -> Member:
        member = await self.db.members.by_nick(nick)
        assert member is not None, nick
        return member

    async def flush(self) -> int:
        """Run the outbox worker once: every command due is sent."""
        return await self.link.worker.run_once()

    def table(
        self,
        number: int,
        players: tuple[str, str, str] = ("ana", "marko", "petar"),
        hands: int = 3,
        rated: bool = True,
        ai: bool = False,
    ) -> Table:
        game = live_game(number, players, hands, rated=rated, ai=ai)
        return self.ref.add_table(game)

    async def close(self) -> None:
        await self.link.stop()
        await self.ref.close()
        await self.bot_server.close()
        await self.ref_server.close()
        await self.db.close()


def live_game(number: int, players: tuple[str, str, str], hands: int, *, rated: bool = True, ai: bool = False) -> Game:
    """A generated finished game that starts an hour before NOW, its hands a minute apart."""
    game = generate_game(
        random.Random(number),
        number,
        hands=hands,
        status=GameStatus.FINISHED,
        rated=rated,
        ai=ai,
        players=players,
        start=NOW - timedelta(hours=1),
    )
    return game


@asynccontextmanager
async def players_linked(tmp_path: Path, **options: Any) -> AsyncIterator[Linked]:
    """A linked club whose members are the players ana, marko and petar, closed afterwards."""
    club = await make_linked(tmp_path, **options)
    try:
        for nick in ("ana", "marko", "petar"):
            await club.member(nick)
        yield club
    finally:
        await club.close()


async def make_linked(
    tmp_path: Path, *, server: type[ReferenceGameServer] = ReferenceGameServer, **settings: object
) -> Linked:
    """A club linked to a reference game server (or to `server`, a strict or faulty variant of it)."""
    told: list[str] = []
    clock = ManualClock(NOW)
    ref = server("http://127.0.0.1:1", SECRET, clock.now, say=told.append)
    ref_server = TestServer(ref.app(), host="127.0.0.1")
    await ref_server.start_server()
    url = str(ref_server.make_url("/"))
    config = Config(gameserver=GameServerConfig(url=url), **settings)  # type: ignore[arg-type]
    db = await open_database(database_for(tmp_path))
    chat = RecordingChat()
    desk = Desk(db, Chats([chat]), HttpGameServer(db, clock.now), clock, config, ManualTimers())
    await desk.start()
    link = GameServerLink(desk, config.gameserver, SECRET, clock=clock.now)
    link.worker.rng = random.Random(7)
    bot_server = TestServer(link.app, host="127.0.0.1")
    await bot_server.start_server()
    ref.events_url = str(bot_server.make_url("/v1/events"))
    return Linked(db, desk, chat, clock, link, ref, bot_server, ref_server, told)
