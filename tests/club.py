"""A small club for the desk's tests: a database, a desk on a manual clock, members with roles, and games."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import ArbitarConfig, Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from fakes.chat import RecordingChat
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from storage.database import Database, open_database
from storage.games import PreparedGame
from storage.members import Member

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
POSTGRES: list[str] = []  # the fresh PostgreSQL database of the test running on PostgreSQL (tests/conftest.py)


def database_for(tmp_path: Path, name: str = "club.db") -> str | Path:
    """The test's database: an SQLite file in its directory, or its fresh PostgreSQL database when the test runs
    on PostgreSQL (the `backend` fixture)."""
    return POSTGRES[-1] if POSTGRES else tmp_path / name


@dataclass
class Club:
    db: Database
    desk: Desk
    chat: RecordingChat
    clock: ManualClock
    timers: ManualTimers
    server: LoggingGameServer
    config: Config

    async def member(self, nick: str, *roles: str, online: bool = True) -> Member:
        member = await self.db.members.link("test", nick, nick, self.clock.now())
        for role in roles:
            await self.db.members.set_role(member.id, role, True, None, self.clock.now())
        if online:
            await self.db.members.set_presence(member.id, True, self.clock.now())
        return await self.get(nick)

    async def get(self, nick: str) -> Member:
        member = await self.db.members.by_nick(nick)
        assert member is not None, nick
        return member

    async def game(
        self,
        number: int,
        players: tuple[str, str, str] = ("ana", "marko", "petar"),
        *,
        ended_ago: timedelta | None = timedelta(hours=1),
        status: GameStatus = GameStatus.FINISHED,
        rated: bool = True,
        ai: bool = False,
        hands: int = 4,
    ) -> Game:
        """A generated legal game that ended `ended_ago` before now (or is in progress)."""
        end = self.clock.now() - (ended_ago or timedelta())
        start = end - timedelta(hours=2)
        game = generate_game(
            random.Random(number), number, hands=hands, status=status, rated=rated, ai=ai, players=players, start=start
        )
        if status is not GameStatus.IN_PROGRESS:
            game = replace(game, ended_at=end)
        await self.db.games.store([PreparedGame.of(game)], self.clock.now())
        return game

    async def advance(self, delta: timedelta) -> None:
        self.clock.advance(delta)
        await self.desk.run_due()


async def make_club(tmp_path: Path, *, database: str | Path | None = None, **settings: object) -> Club:
    """A club on the test's database (or `database`), as the club its `club_id` setting names."""
    settings.setdefault("arbitar", ArbitarConfig(workers=0))  # the Arbitar in a thread: tests inject closures
    config = Config(**settings)  # type: ignore[arg-type]
    db = await open_database(database or database_for(tmp_path), club=config.club_id)
    chat = RecordingChat()
    clock = ManualClock(NOW)
    timers = ManualTimers()
    server = LoggingGameServer()
    desk = Desk(db, Chats([chat]), server, clock, config, timers)
    await desk.start()
    return Club(db, desk, chat, clock, timers, server, config)
