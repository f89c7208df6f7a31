"""What every part of the desk shares: the database, the ports, the clock, the configuration and the messages,
plus the look-ups they all need (a member, a game's facts, the referees in the lobby)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.config import Config
from bot.messages import Catalogue
from bot.ports import Chats, Clock, GameServerPort, Reply, Timers
from bot.views import render_trials
from rules.eligibility import GameFacts, RefereeFacts
from rules.gamelog import Game
from rules.paper import compute_paper
from rules.paper_render import paper_json, paper_text
from storage.database import Database
from storage.members import Member
from storage.trials import Trial


class DeskBase:
    def __init__(self, db: Database, chat: Chats, game_server: GameServerPort, clock: Clock, config: Config,
                 timers: Timers) -> None:
        self.db = db
        self.chat = chat
        self.game_server = game_server
        self.clock = clock
        self.config = config
        self.timers = timers
        self.messages = Catalogue(config.language)
        self._take_locks: dict[int, asyncio.Lock] = {}  # presses on one call, queued (the DB still decides)
        # Buttons of parts beyond the desk's mixins (the game-server link's korekcija), for `Desk.press`.
        self.extra_actions: dict[str, Callable[[Member, int], Awaitable[Reply]]] = {}

    @property
    def call_time(self) -> timedelta:
        return timedelta(minutes=self.config.call_minutes)

    @property
    def claim_window(self) -> timedelta:
        return timedelta(days=self.config.claim_days)

    def now(self) -> datetime:
        return self.clock.now()

    def t(self, key: str, **params: object) -> str:
        return self.messages.t(key, **params)

    def refuse(self, key: str, **params: object) -> Reply:
        return Reply(self.t(key, **params), ok=False)

    def is_owner(self, member: Member) -> bool:
        return self.config.owner is not None and member.nick.casefold() == self.config.owner.casefold()

    def roles_of(self, member: Member) -> set[str]:
        roles = set(member.roles)
        if self.is_owner(member):
            roles.add("owner")
        return roles

    async def nick(self, member_id: int | None) -> str:
        if member_id is None:
            return "—"
        member = await self.db.members.get(member_id)
        return member.nick if member else f"#{member_id}"

    async def game_facts(self, number: int) -> GameFacts | None:
        summary = await self.db.games.summary(number)
        if summary is None:
            return None
        return GameFacts(summary.number, summary.rated, summary.ai, summary.status, summary.players,
                         summary.ended_at)

    async def load_game(self, number: int) -> Game:
        game = await self.db.games.get(number)
        assert game is not None, f"game {number} vanished from the database"
        return game

    async def referee_facts(self, member: Member) -> RefereeFacts:
        judging = await self.db.trials.judging(member.id) is not None
        return RefereeFacts(member.id, member.nick, member.online, member.on_duty, member.seated_game is not None,
                            judging)

    async def lobby(self, role: str) -> list[tuple[Member, RefereeFacts]]:
        """Everyone holding `role`, with the facts the notification rules need (one query)."""
        return [(m, RefereeFacts(m.id, m.nick, m.online, m.on_duty, m.seated_game is not None, judging))
                for m, judging in await self.db.members.with_role_judging(role)]

    async def trial_members(self, trial: Trial) -> list[Member]:
        return await self.db.members.in_trial(trial.id)

    async def verdict_list(self, number: int, show_referees: bool) -> Reply:
        trials = await self.db.trials.for_game(number)
        names = {m.id: m.nick for m in await self.db.members.all()}
        return Reply(render_trials(number, trials, names, show_referees, self.messages))

    async def paper(self, number: int) -> Reply:
        """/papir <game>: the game's paper, computed from its log and the changes attached to its hands."""
        game = await self.db.games.get(number)
        if game is None:
            return self.refuse("call.unknown_game", game=number)
        paper = compute_paper(game, await self.db.paper_changes.for_game(number))
        return Reply(paper_text(game, paper, self.config.language))

    async def paper_changed(self, number: int) -> None:
        """Tell the game server the game's paper after a change landed (a verdict or a correction)."""
        game = await self.db.games.get(number)
        if game is not None:
            paper = compute_paper(game, await self.db.paper_changes.for_game(number))
            await self.game_server.paper_changed(number, paper_json(game, paper))

