"""The live feed: one event from the game server checked against what is stored, taken durably, then told to the
desk (seating, a stood-up referee's pending calls, an administrator closing a game with a trial on).

`LiveFeed.apply(body)` is the whole use case behind the endpoint: it returns the answer (HTTP status and JSON)
and changes nothing unless it answers 200 with ``accepted``. A hand is validated as a file import validates its
game, incrementally: the hand alone, as the next one of the stored game (`rules.validation.validate_next_hand`),
and cross-checked with that hand's scoring added to the game's (`rules.paper.grown_facts`); it is stored as one
row appended to the game (`LiveFeedStore.add_hand`). Events arriving together are checked one by one and taken
in one transaction (`LiveFeedStore.take_many`); a game not cached is read beside the feed (`LiveFeed._load`).
An event's times may lie at most the configured tolerance ahead of the link's clock; a game starts once, and a
live feed beginning on an imported game must say what is stored. A refused event leaves its `seq` unused.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from bot.gameserver.protocol import Event, ProtocolError, decode, parse_event
from bot.i18n.problems import english
from rules.gamelog import Game, GameStatus, LogError, format_time, game_to_doc, parse_game, parse_time, read_game
from rules.nicknames import NickRefused, check_nick, check_scripts
from rules.paper import cross_check, game_facts, grown_facts
from rules.paper_hand import HandFacts, hand_facts
from rules.paper_render import discrepancy_lines
from rules.validation import validate_game, validate_next_hand
from storage.chat_outbox import NewEffect
from storage.games import GameDocument, GameRow, game_document
from storage.gameserver import (
    Effect,
    EffectRefused,
    Guarded,
    Lapses,
    LiveFeedStore,
    Refusable,
    Taken,
    TakeResult,
    hand_text,
    live_digest,
    live_row,
    stored_texts,
)

if TYPE_CHECKING:
    from bot.desk import Desk

log = logging.getLogger(__name__)
Answer = tuple[int, dict[str, Any]]
BATCH = 200  # events taken in one transaction at most
# The events of a game checked against its head alone (its players, status and completed hands: `_Head`), never
# its hands: a cold game's are taken as soon as its head is read, before its hands are parsed (`LiveFeed._load`).
_HEAD_KINDS = frozenset({"player_sat", "player_stood", "move_played", "korekcija_done"})
_FAILED: Answer = (500, {"ok": False, "error": "the bot could not take the event; send it again", "field": "body"})


@dataclass(slots=True)
class _Work:
    """One checked event waiting for its batch's transaction."""

    event: Event
    body: bytes
    future: asyncio.Future[Answer]
    effect: Effect | None
    after: Callable[[], Awaitable[None]]
    pending: tuple[str, Game] | None  # the game as it will be stored (for the cache)
    pending_doc: _Doc | None


class _Head(NamedTuple):
    """What a seat, move or korekcija event is checked against: the stored game's head (`game`: its players,
    number and status; its hands, when read, are not looked at) and how many of its hands are completed."""

    game: Game
    completed: int

    @classmethod
    def of(cls, game: Game) -> _Head:
        return cls(game, sum(1 for h in game.hands if h.completed))


#: A game's canonical document as the feed keeps it: its digest, its head (the document without its hands), its
#: hands' texts (`storage.gameserver.live_row`'s; one text may hold several hands) and how many hands it has.
_Doc = tuple[str, dict[str, Any], list[str], int]


class _Whole(NamedTuple):
    """A stored game as `_load` reads it beside the feed: the game, its hands' scoring (None for a game that
    has ended) and its document (None unless every hand is completed and its text is the stored digest's)."""

    game: Game
    facts: tuple[HandFacts, ...] | None
    doc: _Doc | None


def _time(value: str, field: str) -> datetime:
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ProtocolError(422, field, f"'{field}': {exc}") from None


def _not_ahead(moment: datetime, field: str, now: datetime, tolerance: timedelta) -> None:
    """An event's time may lie ahead of the bot's clock by the tolerance at most (clocks differ a little; a hand
    dated tomorrow would make every correct next hand look earlier than it)."""
    if moment > now + tolerance:
        raise ProtocolError(
            422,
            field,
            f"'{field}' is {format_time(moment)}, more than {int(tolerance.total_seconds())} s ahead of the bot's "
            f"clock ({format_time(now)}); check the game server's clock and send the event again",
        )


def _nick(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64 or not value.isprintable():
        raise ProtocolError(422, field, f"'{field}' must be a nickname (printable text, at most 64 characters)")
    return value


class LiveFeed:
    def __init__(
        self, desk: Desk, now: Callable[[], datetime] | None = None, wall: Callable[[], datetime] | None = None
    ) -> None:
        self.desk = desk
        self.store = LiveFeedStore(desk.db)
        self.now = now or desk.now
        # An event's times are checked against the link's clock, the one its signatures are checked with (the
        # console club's own clock moves only when told).
        self.wall = wall or self.now
        self.tolerance = timedelta(seconds=desk.config.gameserver.clock_tolerance_seconds)
        self.listeners: list[Callable[[Event], Awaitable[None]]] = []  # told after an event is taken
        # The chat effects an event's take writes with it (korekcija's done message), delivered once it committed.
        self.told_with: list[Callable[[Event], Awaitable[Sequence[NewEffect]]]] = []
        # What tells the parties of a korekcija the event lapses (a move after it, its hand over), by request id:
        # written with the event, for each request it did lapse.
        self.lapses_with: list[Callable[[int, str], Awaitable[Lapses]]] = []
        # The games in progress as last written by this feed (digest, game) and each game's last sequence
        # number: a hand is checked without reading the game back. The transaction still compares the digest,
        # so a game changed elsewhere (a file import) is refused once and then read afresh.
        self._games: dict[int, tuple[str, Game]] = {}
        self._last: dict[int, int] = {}
        self._pending: tuple[str, Game] | None = None
        self._digest: str | None = None
        self._docs: dict[int, _Doc] = {}  # the cached games' canonical documents
        # The hands' scoring of the game last checked (`rules.paper.game_facts`): a new hand's cross-check scores
        # that hand alone (`grown_facts`), however many hands the game has.
        self._facts: dict[int, tuple[Game, tuple[HandFacts, ...]]] = {}
        self._pending_doc: _Doc | None = None
        # The requests not yet checked: each body, its answer to come and its event once decoded (one held back
        # is not decoded again).
        self._queue: collections.deque[tuple[bytes, asyncio.Future[Answer], Event | None]] = collections.deque()
        self._worker: asyncio.Task[None] | None = None
        # A game the feed has not cached is read and parsed beside the feed (`_load`: the parsing in a thread),
        # its events held back meanwhile, so the other tables' events are not queued behind a long game's first
        # event; its head is known first (`_heads`: its seat and move events go on), then the game read (digest,
        # game) waits in `_warm` for its event's check.
        self._loading: dict[int, asyncio.Task[None]] = {}
        self._heads: dict[int, _Head] = {}
        self._warm: dict[int, tuple[str | None, Game | None]] = {}
        self._unread: dict[int, bool] = {}  # a game whose reading beside the feed failed
        self._wake = asyncio.Event()  # an event arrived, or a game was read

    async def apply(self, body: bytes) -> Answer:
        """Check, take and act on one signed request's body (the signature is the endpoint's business).

        Requests arriving together are taken together (group commit): each is checked in arrival order, then
        all are written in one transaction, each in its own savepoint (one that fails leaves the others), and
        each is answered once that transaction committed. Two events of one game never share a batch."""
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._queue.append((body, future, None))
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        """Check and take the requests queued, a batch at a time. The next batch is checked once this one is
        taken, not while it is: the transaction runs in a thread that needs the interpreter between its
        statements, and an event loop busy checking meanwhile makes it wait for it (docs/game-server.md)."""
        while self._queue or self._loading:
            self._wake.clear()
            batch = await self._batch()
            if batch:
                await self._take(batch)
            elif self._loading:  # every event waits for its game: until one is read or another event arrives
                await self._wake.wait()

    async def _batch(self) -> list[_Work]:
        """The next batch: the queued events checked in arrival order; an event of a game already in the batch or
        of a game being read is held back in the queue, in order."""
        batch: list[_Work] = []
        games: set[int] = set()
        deferred: list[tuple[bytes, asyncio.Future[Answer], Event | None]] = []
        while self._queue and len(batch) < BATCH:
            body, future, event = self._queue.popleft()
            try:
                if event is None:
                    event = parse_event(decode(body))
                if event.game is not None and (event.game in games or self._held(event)):
                    deferred.append((body, future, event))  # after this batch, or once its game is read
                    continue
                if self._cold(event):
                    assert event.game is not None
                    self._loading[event.game] = asyncio.get_running_loop().create_task(self._load(event.game))
                    deferred.append((body, future, event))
                    continue
                work = await self._check(event, body, future)
            except ProtocolError as problem:
                future.set_result((problem.status, problem.body()))
                continue
            except Exception:
                log.exception("the game-server event could not be checked")
                future.set_result(_FAILED)
                continue
            if work is not None:
                batch.append(work)
                if event.game is not None:
                    games.add(event.game)
        self._queue.extendleft(reversed(deferred))
        return batch

    def _held(self, event: Event) -> bool:
        """Whether the event waits for its game being read beside the feed (`_load`): an event checked against
        the game's head goes on once the head is read."""
        assert event.game is not None
        if event.game not in self._loading:
            return False
        return event.type not in _HEAD_KINDS or event.game not in self._heads

    def _cold(self, event: Event) -> bool:
        """Whether the event's check would read its game from the database (the feed has not cached it, and no
        reading of it failed just now: then the check reads it itself, and answers what fails)."""
        game = event.game
        if game is None or event.type == "game_started" or self._unread.pop(game, False):
            return False
        if game not in self._last:
            return True
        if event.type in _HEAD_KINDS and game in self._heads:
            return False
        return game not in self._games and game not in self._warm

    async def _load(self, number: int) -> None:
        """Read the game `number` beside the feed: its last sequence number, digest and stored document, whose
        head is known first (`_heads`: the game's seat and move events are checked against it meanwhile), then
        its hands parsed and scored and its canonical texts cut out of what was read (`_whole`), both in a worker
        thread, so the event loop goes on answering the other tables. A failure is logged and leaves nothing:
        the event's check reads the game again, and answers what fails then."""
        try:
            if number not in self._last:
                self._last[number] = await self.store.last_seq(number)
            digest = await self.store.digest(number)
            if digest is None:
                self._warm[number] = (None, None)
                return
            read = await asyncio.to_thread(_head_of, await self.desk.db.games.parts(number))
            if read is None:  # gone since its digest was read: the check finds it unknown, or reads it again
                self._warm[number] = (digest, None)
                return
            document, head = read
            if head.game.status is GameStatus.IN_PROGRESS:
                self._heads[number] = head
                self._wake.set()
            whole = await asyncio.to_thread(_whole, document, digest)
            self._warm[number] = (digest, whole.game)
            if whole.facts is not None:
                self._facts[number] = (whole.game, whole.facts)
            if whole.doc is not None:
                self._docs[number] = whole.doc
        except Exception:
            log.exception("game %s could not be read for its game-server event", number)
            self._heads.pop(number, None)
            self._unread[number] = True
        finally:
            self._loading.pop(number, None)
            self._wake.set()

    async def _check(self, event: Event, body: bytes, future: asyncio.Future[Answer]) -> _Work | None:
        """The event's work for the batch, or None when it is answered already (a gap)."""
        game = event.game
        self._pending = self._pending_doc = None
        if event.at is not None:
            _not_ahead(_time(event.at, "at"), "at", self.wall(), self.tolerance)
        if game is not None:
            last = self._last.get(game)
            if last is None:
                last = await self.store.last_seq(game)
            if event.seq != last + 1:
                if not await self._seen(event.id):
                    future.set_result(self._gap(last))
                    return None
                return _Work(event, body, future, None, _nothing, None, None)
        effect, after = await self._prepare(event)
        return _Work(event, body, future, effect, after, self._pending, self._pending_doc)

    async def _take(self, batch: list[_Work]) -> None:
        async def tellings(games: Mapping[int, str]) -> dict[int, Lapses]:
            """Whom the korekcija requests the moves or the hands' ends of `games` lapse are told (asked by the
            transaction only when such a request is open; why: ``move``, ``hand``): the desk delivers those effects
            once the batch is taken."""
            told = {game: await self._lapses(game, why) for game, why in games.items()}
            for work in batch:
                if work.event.game is not None and told.get(work.event.game):
                    work.after = self.desk.delivery.deliver_effects
            return told

        try:
            results = await self.store.take_many(
                [
                    (w.event.id, w.event.type, w.event.game, w.event.seq, w.body.decode("utf-8"), w.effect)
                    for w in batch
                ],
                self.now(),
                tellings if self.lapses_with else None,
            )
        except Exception:
            log.exception("the game-server events could not be stored")
            for work in batch:
                if work.event.game is not None:
                    self._forget(work.event.game)
                work.future.set_result(_FAILED)
            return
        answers = [self._answer(work, result) for work, result in zip(batch, results, strict=True)]
        for work, result, answer in zip(batch, results, answers, strict=True):
            if isinstance(result, TakeResult) and result.taken is Taken.ACCEPTED:
                try:  # the desk acts before the answer, so the game server knows the bot has heard it
                    await work.after()
                    for listener in self.listeners:
                        await listener(work.event)
                except Exception:  # the event is taken; what the desk does next must not make it come again
                    log.exception("the desk failed on game-server event %s", work.event.id)
            work.future.set_result(answer)

    def _answer(self, work: _Work, result: TakeResult | EffectRefused) -> Answer:
        game = work.event.game
        if isinstance(result, EffectRefused):
            if game is not None:
                self._forget(game)
            return 409, {"ok": False, "error": result.message, "field": result.field}
        if game is not None:
            self._last[game] = result.last_seq
            if result.taken is Taken.ACCEPTED and work.pending is not None:
                self._games[game] = work.pending
                if work.pending_doc is not None:
                    self._docs[game] = work.pending_doc
                if work.pending[1].status is not GameStatus.IN_PROGRESS:
                    self._forget(game)
        if result.taken is Taken.DUPLICATE:
            return 200, {"ok": True, "duplicate": True, "last_seq": result.last_seq}
        if result.taken is Taken.ID_REUSED:
            return 409, {
                "ok": False,
                "error": f"the id {work.event.id!r} was taken before with another body; an event keeps its id and "
                "body when it is sent again, and a new event needs a new id",
                "field": "id",
                "last_seq": result.last_seq,
            }
        if result.taken is Taken.GAP:
            return self._gap(result.last_seq)
        return 200, {"ok": True, "last_seq": result.last_seq}

    def _forget(self, game: int) -> None:
        self._games.pop(game, None)
        self._heads.pop(game, None)
        self._warm.pop(game, None)
        self._docs.pop(game, None)
        self._facts.pop(game, None)
        self._last.pop(game, None)

    async def _stored(self, number: int) -> Game | None:
        """The stored game (a game in progress from the cache: the transaction's digest check catches a game
        changed elsewhere, and the next try reads it afresh); `self._digest` is its digest."""
        cached = self._games.get(number)
        if cached is not None:
            self._digest = cached[0]
            return cached[1]
        self._heads.pop(number, None)  # the game read now has it
        warm = self._warm.pop(number, None)
        if warm is not None:  # read beside the feed (`_load`)
            digest, game = warm
            self._digest = digest
        else:
            digest = self._digest = await self.store.digest(number)
            game = None if digest is None else await self.desk.db.games.get(number)
        if digest is None:
            return None
        if game is not None and game.status is GameStatus.IN_PROGRESS:
            self._games[number] = (digest, game)
        return game

    async def _seen(self, event_id: str) -> bool:
        return await self.store.seen(event_id)

    @staticmethod
    def _gap(last: int) -> Answer:
        return 409, {
            "ok": False,
            "error": f"the game's sequence goes on from {last + 1}; send the events after {last} again, in order",
            "field": "seq",
            "last_seq": last,
        }

    async def _prepare(self, event: Event) -> tuple[Effect | None, Callable[[], Awaitable[None]]]:
        """The event's effect (run in the transaction that records it) and what the desk does afterwards."""
        now = self.now()
        data = event.data
        if event.type == "game_started":
            return await self._game_started(event, now)
        if event.game is not None:
            head = self._head(event.game) if event.type in _HEAD_KINDS else None
            if head is not None:
                return await self._on_table(event, head, now)
            stored = await self._stored(event.game)
            if stored is None:
                raise ProtocolError(404, "game", f"game {event.game} is unknown: its game_started event comes first")
            if event.type in _HEAD_KINDS:
                return await self._on_table(event, _Head.of(stored), now)
            return await self._on_game(event, stored, now)
        nick = _nick(data["nick"], "data.nick")
        if event.type in ("offer_made", "offer_withdrawn"):
            offer = data["offer"]
            if not offer or len(offer) > 100:
                raise ProtocolError(422, "data.offer", "'data.offer' must be the offer's id (1 to 100 characters)")
            made = event.type == "offer_made"
            return LiveFeedStore.offer(nick, offer, made, now), _nothing
        code = data["code"]
        if not 4 <= len(code) <= 32 or not code.isalnum():
            raise ProtocolError(422, "data.code", "'data.code' must be 4 to 32 letters or digits")
        return LiveFeedStore.link_code(nick, code, now), _nothing

    async def _game_started(self, event: Event, now: datetime) -> tuple[Effect, Callable[[], Awaitable[None]]]:
        assert event.game is not None
        data = event.data
        players = data["players"]
        if len(players) != 3:
            raise ProtocolError(422, "data.players", "'data.players' must list the three nicknames in seat order")
        for i, nick in enumerate(players):
            _nick(nick, f"data.players[{i}]")
            try:
                check_scripts(check_nick(nick), self.desk.config.scripts)
            except NickRefused as problem:
                raise ProtocolError(422, f"data.players[{i}]", str(problem)) from None
        doc = {
            "game": event.game,
            "rated": data["rated"],
            "ai": data["ai"],
            "bule": data["bule"],
            "refe_limit": data["refe_limit"],
            "players": players,
            "status": "in_progress",
            "started_at": data["started_at"],
            "hands": [],
        }
        game = self._valid(doc, "data")
        _not_ahead(game.started_at, "data.started_at", self.wall(), self.tolerance)
        if event.seq != 1:
            raise ProtocolError(
                409, "type", f"game {event.game} has started already (its game_started is seq 1); a game starts once"
            )
        stored = await self.desk.db.games.summary(event.game)  # its columns: the hands are not read
        if stored is not None:
            if stored.status is not GameStatus.IN_PROGRESS:
                raise ProtocolError(409, "game", f"game {event.game} is stored as {stored.status.value}")
            for name, mine, theirs in (
                ("players", stored.players, game.players),
                ("rated", stored.rated, game.rated),
                ("ai", stored.ai, game.ai),
                ("bule", stored.bule, game.bule),
                ("refe_limit", stored.refe_limit, game.refe_limit),
                ("started_at", stored.started_at, game.started_at),
            ):
                if mine != theirs:
                    raise ProtocolError(
                        409,
                        f"data.{name}",
                        f"game {event.game} is stored with {name} {_shown(mine)}, not {_shown(theirs)}; a game "
                        "starts once, with what it is",
                    )
            return LiveFeedStore.steps(), _nothing  # an imported game in progress whose live feed begins now
        head, texts = _texts(game)
        row = live_row(game, None, head, texts)
        self._pending = (row.digest, game)
        self._pending_doc = (row.digest, head, texts, len(game.hands))
        return LiveFeedStore.store_game(row, None, now), _nothing

    def _head(self, number: int) -> _Head | None:
        """The head of the game `number` from what the feed holds (the game cached, or its head read beside the
        feed), None when it holds neither."""
        cached = self._games.get(number)
        if cached is not None:
            return _Head.of(cached[1])
        return self._heads.get(number)

    async def _on_table(
        self, event: Event, head: _Head, now: datetime
    ) -> tuple[Effect | None, Callable[[], Awaitable[None]]]:
        """A seat, move or korekcija event (`_HEAD_KINDS`), checked against the game's head alone."""
        data = event.data
        stored, completed = head
        number = stored.number
        kind = event.type
        if kind in ("player_sat", "player_stood"):
            nick = _nick(data["nick"], "data.nick")
            seat = stored.seat_of(nick)
            if seat is None:
                raise ProtocolError(422, "data.nick", f"{nick} is not a player of game {number}")
            nick = stored.players[seat]
            where = number if kind == "player_sat" else None
            if where is not None and stored.status is not GameStatus.IN_PROGRESS:
                raise ProtocolError(409, "game", f"game {number} has ended; nobody sits at it")

            async def seated() -> None:
                member = await self.desk.db.members.by_nick(nick)
                if member is not None:
                    await self.desk.seat(member, where)

            return LiveFeedStore.seat(nick, where, now), seated
        if stored.status is not GameStatus.IN_PROGRESS:
            raise ProtocolError(409, "game", f"game {number} has ended ({stored.status.value}); it takes no events")
        if kind == "move_played":
            hand, move = data["hand"], data["move"]
            if hand != completed + 1:
                raise ProtocolError(
                    422, "data.hand", f"hand {hand} is not in progress in game {number} (hand {completed + 1} is)"
                )
            if move < 1:
                raise ProtocolError(422, "data.move", "'data.move' counts the hand's moves from 1")
            player = _nick(data["player"], "data.player")
            seat = stored.seat_of(player)
            if seat is None:
                raise ProtocolError(422, "data.player", f"{player} is not a player of game {number}")
            what = str(data["what"])[:100]
            # Whom the korekcija requests this move lapses are told: asked by the transaction, when one is open.
            return LiveFeedStore.move(number, hand, move, stored.players[seat], what, now), _nothing
        told = [row for told_with in self.told_with for row in await told_with(event)]  # korekcija_done
        return LiveFeedStore.undone(number, data["hand"], data["move"], now, told), self.desk.delivery.deliver_effects

    async def _on_game(
        self, event: Event, stored: Game, now: datetime
    ) -> tuple[Effect | None, Callable[[], Awaitable[None]]]:
        """A hand finished or the game's end, checked against the stored game."""
        data = event.data
        number = stored.number
        kind = event.type
        if stored.status is not GameStatus.IN_PROGRESS:
            raise ProtocolError(409, "game", f"game {number} has ended ({stored.status.value}); it takes no events")
        completed = sum(1 for h in stored.hands if h.completed)
        digest = self._digest
        if kind == "hand_finished":
            game = self._next_hand(stored, data["hand"])
            hand_end = game.hands[-1].ended_at
            assert hand_end is not None
            _not_ahead(hand_end, "data.hand.ended_at", self.wall(), self.tolerance)
            scored = self._facts.get(number)
            facts = game_facts(game) if scored is None else grown_facts(scored[0], scored[1], game)
            self._facts[number] = (game, facts)  # kept while this game is: `cross_check` below reads them
            report = None
            if any(h.score is not None for h in game.hands):
                found = cross_check(game)
                report = discrepancy_lines(found, self.desk.voice.club_messages.t) if found else None  # stored
            cached = self._docs.get(number)
            count = len(game.hands)
            if cached is not None and cached[0] == digest and cached[3] == count - 1:  # the stored texts, this hand's
                head = cached[1]
                texts = [*cached[2], hand_text(game_to_doc(replace(game, hands=game.hands[-1:]))["hands"][0])]
            else:
                head, texts = _texts(game)
            store: Refusable | Guarded
            if len(stored.hands) == count - 1:  # the stored game grows by this hand: its row appended
                grown = live_digest(head, texts)
                store = LiveFeedStore.add_hand(number, texts[-1], count, grown, report, digest, now)
            else:  # an unfinished hand of an imported log is dropped: the log written whole
                row = live_row(game, report, head, texts)
                grown, store = row.digest, LiveFeedStore.store_game(row, digest, now)
            self._pending = (grown, game)
            self._pending_doc = (grown, head, texts, count)
            # Whom the korekcija requests this hand's end lapses are told: asked by the transaction, when one is open.
            return LiveFeedStore.steps(store, LiveFeedStore.hand_done(number, completed + 1, now)), _nothing
        # The game ends: finished, interrupted, or closed by an administrator.
        ended_at = _time(data["ended_at"], "data.ended_at")
        _not_ahead(ended_at, "data.ended_at", self.wall(), self.tolerance)
        abandoned: tuple[str, ...] = ()
        status = GameStatus.FINISHED if kind == "game_finished" else GameStatus.INTERRUPTED
        if kind == "game_interrupted":
            for i, nick in enumerate(data["abandoned_by"]):
                seat = stored.seat_of(_nick(nick, f"data.abandoned_by[{i}]"))
                if seat is None:
                    raise ProtocolError(422, f"data.abandoned_by[{i}]", f"{nick} is not a player of game {number}")
                abandoned += (stored.players[seat],)
        hands = stored.hands if status is GameStatus.INTERRUPTED else tuple(h for h in stored.hands if h.completed)
        ended = replace(stored, status=status, ended_at=ended_at, abandoned_by=abandoned, hands=hands)
        problems = validate_game(ended)
        if problems:
            raise ProtocolError(422, "data", english(problems[:5]))
        at_table = await self.desk.db.members.seated_at(number)

        async def ended_game() -> None:
            if kind == "game_closed":
                await self.desk.trials.game_closed(number)
            for member in at_table:
                await self.desk.seat(member, None)

        self._pending = (digest or "", ended)
        return LiveFeedStore.steps(
            LiveFeedStore.store_game(GameRow.of(ended), digest, now), LiveFeedStore.stand_all(number, now)
        ), ended_game

    async def _lapses(self, game: int, why: str) -> Lapses:
        told: dict[int, list[NewEffect]] = {}
        for lapses_with in self.lapses_with:
            for request, rows in (await lapses_with(game, why)).items():
                told.setdefault(request, []).extend(rows)
        return told

    @staticmethod
    def _next_hand(stored: Game, hand_doc: dict[str, Any]) -> Game:
        """The stored game (its completed hands) with `hand_doc` added, checked as an import checks a game: the
        hand read by the log reader and validated by the import's rules for the next hand."""
        n = hand_doc.get("n")
        if type(n) is not int:
            raise ProtocolError(422, "data.hand.n", "'data.hand.n' must be the hand's number")
        header = {
            "game": stored.number,
            "rated": stored.rated,
            "ai": stored.ai,
            "bule": stored.bule,
            "refe_limit": stored.refe_limit,
            "players": list(stored.players),
            "status": "in_progress",
            "started_at": format_time(stored.started_at),
            "hands": [{**hand_doc, "n": 1}],
        }
        try:
            hand = replace(parse_game(header).hands[0], n=n)
        except LogError as exc:
            raise ProtocolError(422, "data.hand", english(exc.problems[:5])) from None
        if hand.ended_at is None:
            raise ProtocolError(422, "data.hand.ended_at", "a finished hand has its 'ended_at'")
        before = replace(stored, hands=tuple(h for h in stored.hands if h.completed))
        problems = validate_next_hand(before, hand)
        if problems:
            raise ProtocolError(422, "data.hand", english(problems[:5]))
        return replace(before, hands=(*before.hands, hand))

    @staticmethod
    def _valid(doc: dict[str, Any], field: str) -> Game:
        try:
            game, _ = read_game(doc)
        except LogError as exc:
            raise ProtocolError(422, field, english(exc.problems[:5])) from None
        problems = validate_game(game)
        if problems:
            raise ProtocolError(422, field, english(problems[:5]))
        return game

    async def resync(self) -> None:
        """On start: a game closed by an administrator while the bot was down (or before the desk heard it)
        ends its in-game trial."""
        for trial in await self.desk.db.trials.open_trials():
            if trial.in_game and await self.store.closed_by_admin(trial.game):
                await self.desk.trials.game_closed(trial.game)


def _shown(value: Any) -> str:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


def _texts(game: Game) -> tuple[dict[str, Any], list[str]]:
    """A game's canonical document without its hands, and each hand's canonical text."""
    doc = game_to_doc(game)
    return {k: v for k, v in doc.items() if k != "hands"}, [hand_text(h) for h in doc["hands"]]


def _head_of(parts: Sequence[tuple[int, bytes]]) -> tuple[GameDocument, _Head] | None:
    """The stored game's document (`storage.games.game_document`) and its head, its hands not parsed: the game
    without hands (`rules.gamelog.parse_game` reads the head alone) and its hands that have an end time."""
    document = game_document(parts)
    if document is None:
        return None
    hands = document.doc["hands"]
    game = parse_game({**document.doc, "hands": []})
    return document, _Head(game, sum(1 for hand in hands if hand.get("ended_at") is not None))


def _whole(document: GameDocument, digest: str) -> _Whole:
    """The stored game read from its document: parsed (as `storage.games.game_of`), its hands scored when it is
    in progress (`rules.paper.game_facts`'s, computed here: its cache is not shared with a worker thread), and its
    canonical document from the texts it was read from when every hand is completed (a finished hand is
    appended after them)."""
    game = parse_game(document.doc)
    if game.status is not GameStatus.IN_PROGRESS:
        return _Whole(game, None, None)
    facts = tuple(hand_facts(hand) for hand in game.hands)
    doc = None
    if all(hand.completed for hand in game.hands):
        head = {k: v for k, v in document.doc.items() if k != "hands"}
        texts = stored_texts(document.log, head, document.appended, digest)
        if texts is not None:
            doc = (digest, head, texts, len(game.hands))
    return _Whole(game, facts, doc)


async def _nothing() -> None:
    return None
