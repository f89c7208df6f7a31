"""What every part of the desk is built on: the dependencies it is given (`DeskDeps`: the database, the ports, the
clock, the configuration, the timers and the messages) and the few collaborators every part shares over them,
each an explicit object: `voice` (what it writes in, `bot.desk.voice`), `lookups` (what it reads of the club,
`bot.desk.lookups`) and `delivery` (the chat outbox its decisions write to and deliver through,
`bot.desk.delivery`). A part inherits only these, with the database, the configuration, the clock and `t` at
hand."""

from __future__ import annotations

from datetime import datetime

from bot.config import Config
from bot.desk.delivery import Delivery, member_queue
from bot.desk.deps import DeskDeps
from bot.desk.lookups import Lookups
from bot.desk.voice import Voice
from storage.database import Database

__all__ = ["DeskBase", "member_queue"]


class DeskBase:
    """A part's dependencies and collaborators. The parts of one desk share one `DeskDeps` (and a desk
    reconfigured, as the tests do, is reconfigured for every part): `self.db`, `self.config`, `self.now()` read
    it, as `self.deps.chat`, `self.deps.game_server`, `self.deps.timers` do."""

    def __init__(self, deps: DeskDeps) -> None:
        self.deps = deps
        self.voice = Voice(deps)
        self.lookups = Lookups(deps, self.voice)
        self.delivery = Delivery(deps, self.voice, self.lookups)

    @property
    def db(self) -> Database:
        return self.deps.db

    @db.setter
    def db(self, value: Database) -> None:
        self.deps.db = value

    @property
    def config(self) -> Config:
        return self.deps.config

    @config.setter
    def config(self, value: Config) -> None:
        self.deps.config = value

    def now(self) -> datetime:
        return self.deps.clock.now()

    def t(self, key: str, **params: object) -> str:
        """The text of `key` in the reader's language (`Voice.t`)."""
        return self.voice.t(key, **params)
