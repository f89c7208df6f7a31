"""Korekcija of a wrong click ("vraćanje poslednjeg poteza ruke u toku"): the player whose move is the last of the
hand in progress asks to take it back; the other two consent or refuse; with both consents the game server is
told to undo it (`undo_move`, written to the outbox in the transaction that records the second consent). Asked
once per move; refused, with the reason, when his move is no longer the last, the hand is over, or no game
server is linked. The live feed's moves say what the last move is (`storage.gameserver`).

In a game with AI, a seat whose nickname is no club member is the AI's and consents to whatever it is asked
(as with the other corrections). One `KorekcijaDesk` belongs to each desk (`korekcija_of`).

What the players are told is a row of the chat outbox written with what it tells of: the asks with the request,
the requester's answer with the answer that decided, the done message with the feed's take of the game server's
``korekcija_done`` (a crash after any of those commits loses none of them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING

from bot import chat_outbox as effect
from bot.desk.refused import Refused
from bot.gameserver.outbox import undo_command
from bot.gameserver.protocol import Event
from bot.i18n.reader import speaking
from bot.ports import Action, Button, Reply
from rules.gamelog import Game, GameStatus
from storage.chat_outbox import NewEffect
from storage.gameserver import Korekcija, LiveFeedStore
from storage.members import Member
from storage.outbox import Command
from storage.sql import Connection
from storage.states import KorekcijaState, OutboxState

if TYPE_CHECKING:
    from bot.desk import Desk
    from bot.gameserver.feed import LiveFeed


def korekcija_of(desk: Desk) -> KorekcijaDesk:
    """The desk's korekcija part, made (and its buttons registered) on first use."""
    found = desk.__dict__.get("_korekcija")
    if found is None:
        found = desk.__dict__["_korekcija"] = KorekcijaDesk(desk)
    assert isinstance(found, KorekcijaDesk)
    return found


class KorekcijaDesk:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.store = LiveFeedStore(desk.db)
        # The undo is a row of the game-server outbox: dated by the clock its worker compares it with (the
        # console club's own clock moves only when told).
        self.clock: Callable[[], datetime] = getattr(desk.deps.game_server, "clock", None) or desk.now
        desk.extra_actions[Action.KOREKCIJA_YES] = self._yes_button
        desk.extra_actions[Action.KOREKCIJA_NO] = self._no_button
        desk.__dict__.setdefault("_korekcija", self)

    def attach(self, feed: LiveFeed) -> None:
        feed.told_with.append(self.done_effects)
        feed.lapses_with.append(self.lapse_effects)

    @property
    def linked(self) -> bool:
        return bool(getattr(self.desk.deps.game_server, "linked", False))

    async def _yes_button(self, member: Member, ref: int) -> Reply:
        return await self.answer(member, ref, True)

    async def _no_button(self, member: Member, ref: int) -> Reply:
        return await self.answer(member, ref, False)

    async def _table(self, member: Member, number: int | None) -> Game:
        game, _ = await self.desk.corrections.players_game(member, number, "korekcija.no_table", "korekcija.not_player")
        if game.status is not GameStatus.IN_PROGRESS:
            raise Refused("korekcija.hand_over", game=game.number)
        return game

    async def _others(self, game: Game, requester: str) -> list[tuple[str, Member | None]]:
        """The two other seats: each nickname with its member (None: the AI's seat, or no member)."""
        out = []
        for nick in game.players:
            if nick.casefold() != requester.casefold():
                out.append((nick, await self.desk.db.members.by_nick(nick)))
        return out

    async def request(self, member: Member, number: int | None = None) -> Reply:
        """/korekcija: take back my last move of the hand in progress, if the other two agree."""
        desk = self.desk
        if not self.linked:
            raise Refused("korekcija.no_link")
        game = await self._table(member, number)
        move = await self.store.last_move(game.number)
        if move is None:
            raise Refused("korekcija.hand_over", game=game.number)
        if move.player.casefold() != member.nick.casefold():
            raise Refused("korekcija.not_last", game=game.number, nick=move.player)
        if await self.store.korekcija_for_move(move.row) is not None:
            raise Refused("korekcija.once", game=game.number)
        others = await self._others(game, member.nick)
        asked = [other for _nick, other in others if other is not None]
        languages = await desk.voice.reader_languages([other.id for other in asked])

        def ask(request: int) -> list[NewEffect]:
            # The members among the other two are asked with the request (the AI's seats consent below).
            told = []
            for other in asked:
                with speaking(languages.get(other.id)):
                    buttons = (
                        Button(desk.t(Action.KOREKCIJA_YES.label_key), Action.KOREKCIJA_YES, request),
                        Button(desk.t(Action.KOREKCIJA_NO.label_key), Action.KOREKCIJA_NO, request, "danger"),
                    )
                    text = desk.t(
                        "korekcija.asked", nick=member.nick, game=game.number, what=move.what, request=request
                    )
                    told.append(effect.tell(f"korekcija:{game.number}", other.id, text, buttons))
            return told

        request = await self.store.request_korekcija(move, member.id, desk.now(), ask)
        if request is None:
            raise Refused("korekcija.once", game=game.number)
        for nick, other in others:
            if other is None and game.ai:
                await self._record(request, game, nick, True)
        await desk.delivery.deliver_effects()
        fresh = await self.store.korekcija(request)
        if fresh is not None and fresh.state is KorekcijaState.AGREED:
            return Reply(desk.t("korekcija.agreed", game=game.number, what=move.what))
        return Reply(desk.t("korekcija.requested", game=game.number, what=move.what))

    async def _record(
        self,
        request: int,
        game: Game,
        nick: str,
        yes: bool,
        effects: Callable[[KorekcijaState], list[NewEffect]] | None = None,
    ) -> KorekcijaState | None:
        korekcija = await self.store.korekcija(request)
        assert korekcija is not None
        state = await self.store.answer_korekcija(
            request,
            nick,
            yes,
            2,
            self.desk.now(),
            undo_command(game.number, korekcija.hand, korekcija.move),
            effects,
            command_at=self.clock(),
        )
        if state is KorekcijaState.AGREED:
            wake = getattr(self.desk.deps.game_server, "wake", None)
            if callable(wake):
                wake()
        return state

    async def answer(self, member: Member, request_id: int | None, yes: bool) -> Reply:
        """A consent (yes) or a refusal of the other players to a pending korekcija."""
        desk = self.desk
        korekcija: Korekcija | None
        if request_id is None:
            game = await self._table(member, None)
            korekcija = await self.store.pending_korekcija(game.number)
        else:
            korekcija = await self.store.korekcija(request_id)
        if korekcija is None:
            raise Refused("korekcija.none")
        stored = await desk.db.games.get(korekcija.game)
        if stored is None or stored.seat_of(member.nick) is None or member.id == korekcija.requester:
            raise Refused("korekcija.not_asked")
        if korekcija.state is not KorekcijaState.PENDING:
            raise Refused(f"korekcija.state_{korekcija.state}", game=korekcija.game)
        nick = stored.players[stored.seat_of(member.nick) or 0]
        # Everyone else of the request hears the outcome with the answer that decided it: the requester, and the
        # other player asked (who consented already, or had not answered yet).
        others = [m for m in await self._members(stored) if m.id != member.id]
        texts: dict[int, dict[KorekcijaState, str]] = {}
        for other in others:
            async with desk.voice.reading(other):
                texts[other.id] = {
                    KorekcijaState.REFUSED: desk.t("korekcija.refused", nick=member.nick, game=korekcija.game),
                    KorekcijaState.AGREED: desk.t("korekcija.agreed_all", game=korekcija.game),
                }

        def told(state: KorekcijaState) -> list[NewEffect]:
            queue = f"korekcija:{korekcija.game}"
            return [effect.tell(queue, other_id, said[state]) for other_id, said in texts.items() if state in said]

        state = await self._record(korekcija.id, stored, nick, yes, told)
        if state is None:
            fresh = await self.store.korekcija(korekcija.id)
            raise Refused(f"korekcija.state_{fresh.state if fresh else KorekcijaState.LAPSED}", game=korekcija.game)
        await desk.delivery.deliver_effects()
        if state is KorekcijaState.REFUSED:
            return Reply(desk.t("korekcija.you_refused", game=korekcija.game))
        if state is KorekcijaState.AGREED:
            return Reply(desk.t("korekcija.agreed_all", game=korekcija.game))
        return Reply(desk.t("korekcija.consent_recorded", game=korekcija.game))

    async def _members(self, game: Game) -> list[Member]:
        """The game's players who are members (an AI's seat is none)."""
        found = [await self.desk.db.members.by_nick(nick) for nick in game.players]
        return [m for m in found if m is not None]

    async def _told_all(self, number: int, key: str, **values: object) -> list[NewEffect]:
        """`key` told to each player of the game who is a member, in his language."""
        game = await self.desk.db.games.get(number)
        if game is None:
            return []
        told = []
        for member in await self._members(game):
            async with self.desk.voice.reading(member):
                told.append(effect.tell(f"korekcija:{number}", member.id, self.desk.t(key, game=number, **values)))
        return told

    async def lapse_effects(self, game: int, why: str) -> dict[int, list[NewEffect]]:
        """What tells the parties of each open request of the game that it lapsed (the next move came, or the
        hand ended, before it was done), by request; written by the feed only for a request it did lapse."""
        key = "korekcija.lapsed_move" if why == "move" else "korekcija.lapsed_hand"
        return {k.id: await self._told_all(game, key) for k in await self.store.open_korekcije(game)}

    async def undo_ended(self, command: Command, state: OutboxState) -> Callable[[Connection], Awaitable[None]] | None:
        """An undo the game server refused for good, or that was given up: the request lapses and its parties are
        told why, in the transaction that ends the command (`OutboxWorker`'s `ending`)."""
        if command.kind != "undo_move" or state not in (OutboxState.FAILED, OutboxState.DEAD):
            return None
        game, hand, move = (int(command.payload[k]) for k in ("game", "hand", "move"))
        korekcija = await self.store.agreed_korekcija(game, hand, move)
        if korekcija is None:
            return None
        key = "korekcija.failed_refused" if state is OutboxState.FAILED else "korekcija.failed_dead"
        told = await self._told_all(game, key, hand=hand)
        return LiveFeedStore.undo_failed(korekcija.id, self.desk.now(), told)

    async def done_effects(self, event: Event) -> list[NewEffect]:
        """The game server took the move back: what tells the players and the table, written with the event in
        the feed's transaction that takes it (`LiveFeed.told_with`)."""
        if event.type != "korekcija_done" or event.game is None:
            return []
        game = await self.desk.db.games.get(event.game)
        if game is None:
            return []
        queue = f"korekcija:{event.game}"
        told: list[NewEffect] = []
        for nick in game.players:
            member = await self.desk.db.members.by_nick(nick)
            if member is not None:
                async with self.desk.voice.reading(member):
                    said = self.desk.t("korekcija.done", game=event.game, hand=event.data["hand"])
                    told.append(effect.tell(queue, member.id, said))
        with self.desk.voice.club_voice():
            said = self.desk.t("korekcija.done", game=event.game, hand=event.data["hand"])
            told.append(effect.tell_table(queue, event.game, said))
        return told
