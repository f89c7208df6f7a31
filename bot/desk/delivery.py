"""The chat outbox the parts' decisions write their effects to and deliver through (`bot.chat_outbox`: one per
desk, kept in `DeskDeps`), and what delivering them needs of the desk (`bot.chat_outbox.Reach`: the database, the
ports, a trial's space, the club's words, the paper a game server is told). One per part."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager

from bot import chat_outbox as chat_effect
from bot.chat_outbox import ChatOutbox
from bot.config import Config
from bot.desk.deps import DeskDeps
from bot.desk.lookups import Lookups
from bot.desk.voice import Voice
from bot.ports import Button, Chats, GameServerPort, TrialSpace
from rules.paper_render import paper_json
from storage.chat_outbox import NewEffect
from storage.database import Database
from storage.trials import Trial

log = logging.getLogger(__name__)


class Delivery:
    """A decision's chat effects: `told` and `paper_effect` make them, `deliver_effects` delivers what was written."""

    def __init__(self, deps: DeskDeps, voice: Voice, lookups: Lookups) -> None:
        self.deps = deps
        self.voice = voice
        self.lookups = lookups

    @property
    def db(self) -> Database:
        return self.deps.db

    @property
    def chat(self) -> Chats:
        return self.deps.chat

    @property
    def game_server(self) -> GameServerPort:
        return self.deps.game_server

    @property
    def config(self) -> Config:
        return self.deps.config

    def t(self, key: str, **params: object) -> str:
        return self.voice.t(key, **params)

    def club_voice(self) -> AbstractContextManager[None]:
        return self.voice.club_voice()

    async def trial_space(self, trial: Trial) -> TrialSpace:
        return await self.lookups.trial_space(trial)

    @property
    def chat_outbox(self) -> ChatOutbox:
        """The deliverer of the chat effects a decision writes in its transaction (one per desk)."""
        outbox = self.deps.chat_outbox
        if outbox is None:  # shared by every part through their one DeskDeps
            outbox = self.deps.chat_outbox = ChatOutbox(self)
        return outbox

    async def enqueue_effects(self, effects: Sequence[NewEffect]) -> None:
        """Effects of a decision whose record another part wrote (a game-server event the feed took): written to
        the chat outbox in a transaction of their own, then delivered like every other. A table's line is one
        (`bot.chat_outbox.tell_table`: the platforms get the table's players who are members when it is
        delivered); a decision of the desk writes its own in its transaction instead."""
        if effects:
            await self.chat_outbox.store.enqueue(effects, self.deps.clock.now())
            await self.deliver_effects()

    async def deliver_effects(self) -> None:
        """Deliver at once what the last decisions wrote to the chat outbox; a failure here loses nothing (the
        rows wait for the worker, or for the next start), so it is logged and the member still gets his answer."""
        try:
            await self.chat_outbox.deliver()
        except Exception:
            log.exception("the chat outbox could not deliver now; the worker will")
            self.chat_outbox.wake()

    def told(self, member: int, text: str, buttons: Sequence[Button] = ()) -> NewEffect:
        """A private message to `member`, in his own queue of the chat outbox (`member_queue`)."""
        return chat_effect.tell(member_queue(member), member, text, buttons)

    def paper_effect(self, number: int, queue: chat_effect.Queue | None = None) -> NewEffect:
        """The game server is to learn game `number`'s paper: written with the decision that changed it (a
        verdict, a correction), delivered through `paper_changed` with the paper as it then stands; in `queue`
        (a verdict's: its call's, so the paper goes before the table resumes), else the game's own."""
        return chat_effect.server(f"game:{number}" if queue is None else queue, "paper_changed", number)

    async def paper_changed(self, number: int) -> None:
        """Tell the game server the game's paper after a change landed (the delivery of a `paper_effect`)."""
        kept = await self.lookups.papers.get(number)
        if kept is not None:
            await self.game_server.paper_changed(number, paper_json(kept.game, kept.anonymous))


def member_queue(member: int) -> str:
    """The chat outbox's queue of what one member is told of his standing (roles, the right to call, links,
    penalties) and of his links' platform effects: delivered in the order decided (denied, then restored)."""
    return f"member:{member}"
