"""Corrections without a referee, in every game (unrated and AI games too): the players' own tools under the paper.

* **Odlazak u bulu umesto drugog** (`go_into_bula`): the defender who did not fall takes his partner's fall, until
  the end of the next hand; recorded at once, nobody is asked. The fallen player may cancel it (`cancel`), and
  the other may go again, until the same moment. A change the Arbitar imposed is never cancelled.
* **The Arbitar** (`offer_arbitar`): the fallen defender offers it; the other defender accepts or refuses
  (`answer`). On acceptance `rules.arbitar.procedure.arbitrate` decides at once and binds: a transfer writes an
  Odlazak u bulu marked as the Arbitar's (``who`` "Arbitar", ``data.arbitar``), which nobody can cancel; a fall
  that stays changes nothing and the answer says why. A refusal changes nothing; in a game subject to the
  referee system the fallen player is told he may call a referee.
* **Ispravka** (`propose_ispravka`): the player who fell proposes that he be recorded as passed; it is applied
  when the other two agree (`answer`). One per hand: a new one replaces the standing one (with the same
  consent), and the player it corrects may cancel it. The paper (`rules.paper_changes.check_change`) decides the
  limits and the amount, reduced so that 2 bule stay where needed, and the messages say so.

Who acts is resolved from the nicknames in the game log (`Game.seat_of`); a player who is not a linked member
cannot act. In a game with AI, a seat whose nickname is no club member is the AI's: it never proposes and it
agrees to whatever it is asked, so the humans' corrections work there too. Every act is one transaction with its
events (`storage.corrections`). The window for Odlazak u bulu and the Arbitar closes when the hand after the
one concerned ends (`rules.verdict_place`); every correction also closes when the game has finished (an
interrupted game may go on). A hand has at most one fall move from any source — an Ispravka, a player's odlazak,
the Arbitar's transfer, a referee's verdict — whichever came first (`rules.fall_moves`, asked here and by the
verdict path); the refusal names the standing move and whether it can be cancelled.

What an act tells the players (and the table of a game in progress) is written as chat outbox rows in the act's
own transaction (`bot.chat_outbox`, one queue per game: ``corrections:N``), with the lapses of the requests it
leaves nothing to decide and their words first, and delivered after the commit (again after a crash).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from bot import chat_outbox as effect
from bot.arbitar_pool import ArbitarUnavailable
from bot.desk.advice_text import evidence_text
from bot.desk.base import DeskBase
from bot.desk.deps import DeskDeps, shows_refusals
from bot.desk.refused import Refused
from bot.i18n.reader import speaking
from bot.pictures.attach import verdict_pictures
from bot.ports import Action, Button, Reply
from rules.cancelling import Cancel, Cancellable, CancelRefused, what_to_cancel
from rules.fall_moves import FallMove, FallSource, refuse_fall_move
from rules.gamelog import Game, GameStatus
from rules.paper import NOTE_REDUCED, AppliedChange, ChangeKind, Paper, PaperChange, compute_paper
from rules.paper_changes import ChangeRefused, check_change
from rules.paper_hand import HandScore
from rules.verdict_place import is_late
from storage.changes import NewPaperChange, StoredPaperChange
from storage.chat_outbox import NewEffect
from storage.corrections import (
    AlreadyPending,
    CorrectionRequest,
    CorrectionStore,
    Lapse,
    NotPending,
    StaleChanges,
)
from storage.languages import member_language
from storage.members import Member
from storage.states import CorrectionAnswer, CorrectionKind, RequestState

if TYPE_CHECKING:
    from rules.arbitar.verdict import ArbitarVerdict

log = logging.getLogger(__name__)

ARBITAR_NAME = "Arbitar"
ATTEMPTS = 3  # a paper that changed under an act is re-read and re-checked this many times
# What /ponisti can cancel (`Cancel`): an Odlazak u bulu made for me, my Ispravka, my pending proposal, my offer.
CANCEL_CHOICES = tuple(Cancel)
Readers = list[tuple[int, Member, str | None]]  # a game's member-players: seat, member, his language (None: club's)


@dataclass(frozen=True)
class HandState:
    """What a correction needs to know about hand `n` of a game, read once: the paper with the standing changes,
    the hand's score and the standing rows attached to it."""

    game: Game
    n: int
    paper: Paper
    score: HandScore
    standing: tuple[PaperChange, ...]
    ids: tuple[int, ...]
    rows: tuple[StoredPaperChange, ...]  # the hand's standing changes
    moves: tuple[FallMove, ...] = ()  # the game's standing fall moves, from every source

    @property
    def declarer(self) -> int:
        assert self.score.declarer is not None
        return self.score.declarer

    def other_defender(self, seat: int) -> int:
        return 3 - self.declarer - seat

    def odlazak(self) -> StoredPaperChange | None:
        return next((r for r in self.rows if r.kind is ChangeKind.ODLAZAK_U_BULU), None)

    def ispravka(self) -> StoredPaperChange | None:
        return next((r for r in self.rows if r.kind is ChangeKind.ISPRAVKA), None)

    def without(self, change_id: int | None) -> list[PaperChange]:
        return [c for c in self.standing if c.id != change_id]


class CorrectionDesk(DeskBase):
    """The players' corrections: built on the shared look-ups alone; `bot.desk.Desk` offers its entry points."""

    def __init__(self, deps: DeskDeps) -> None:
        super().__init__(deps)
        self.corrections_store = CorrectionStore(deps.db)
        self._correction_locks: dict[int, asyncio.Lock] = {}  # acts on one game, queued

    # Plumbing -----------------------------------------------------------------------------------------------
    def _game_lock(self, game: int) -> asyncio.Lock:
        """Acts on one game's corrections are queued (the transactions still re-check the paper)."""
        return self._correction_locks.setdefault(game, asyncio.Lock())

    def correction_actions(self) -> dict[Action, Callable[[Member, int], Awaitable[Reply]]]:
        """Buttons of the corrections, for `Desk.press`: answer a request by id, cancel a change by id."""
        return {
            Action.CONSENT: self._consent_button,
            Action.DECLINE: self._decline_button,
            Action.CANCEL_CHANGE: self.cancel_change_button,
        }

    async def _consent_button(self, member: Member, ref: int) -> Reply:
        return await self.answer(member, ref, True)

    async def _decline_button(self, member: Member, ref: int) -> Reply:
        return await self.answer(member, ref, False)

    def _answer_buttons(self, request: int) -> tuple[Button, ...]:
        return (
            Button(self.t(Action.CONSENT.label_key), Action.CONSENT, request),
            Button(self.t(Action.DECLINE.label_key), Action.DECLINE, request, "danger"),
        )

    async def _correction_game(self, member: Member, number: int | None) -> tuple[Game, int]:
        """The game a correction is about (named, else the table he sits at, else his game in progress) and his
        seat in it."""
        return await self.players_game(member, number, "correction.no_game", "correction.not_player")

    async def players_game(self, member: Member, number: int | None, no_game: str, not_player: str) -> tuple[Game, int]:
        """The game `number`, else the table the member sits at, else his game in progress, with his seat in it;
        refused with `no_game` when there is none, `not_player` when he did not play it."""
        if number is None:
            number = member.seated_game
            if number is None:
                playing = await self.db.games.in_progress_for(member.nick)
                if not playing:
                    raise Refused(no_game)
                number = playing[0].number
        game = (await self.lookups.kept_paper(number)).game
        seat = game.seat_of(member.nick)
        if seat is None:
            raise Refused(not_player, game=number)
        return game, seat

    async def _hand_state(self, game: Game, n: int) -> HandState:
        if not 1 <= n <= len(game.hands):
            raise Refused("correction.no_hand", hand=n, game=game.number, count=len(game.hands))
        kept = await self.lookups.paper_of(game)
        standing, paper = kept.changes, kept.paper
        score = paper.hands[n - 1].score
        if score is None:
            raise Refused("correction.hand_not_scored", hand=n, game=game.number)
        if score.declarer is None or score.passed is None or not score.fallen:
            raise Refused("correction.nobody_fell", hand=n)
        rows = tuple(r for r in await self.db.paper_changes.rows(game.number) if r.hand == n)
        return HandState(
            game,
            n,
            paper,
            score,
            standing,
            tuple(c.id for c in standing if c.id is not None),
            rows,
            tuple(await self.lookups.fall_moves(game.number)),
        )

    def _fall_move_refused(self, state: HandState, source: FallSource, replacing: int | None = None) -> None:
        """One fall move per hand, whichever source came first (`rules.fall_moves`)."""
        refusal = refuse_fall_move(state.moves, state.n, source, replacing)
        if refusal is not None:
            raise Refused(refusal.key, hand=state.n)

    def _game_open(self, game: Game) -> None:
        if game.status is GameStatus.FINISHED:
            raise Refused("correction.game_finished", game=game.number)

    def _window(self, game: Game, n: int) -> None:
        """Odlazak u bulu and the Arbitar: until the end of the next hand (and while the game has not finished)."""
        self._game_open(game)
        if is_late(n, sum(1 for h in game.hands if h.completed)):
            raise Refused("correction.too_late", hand=n, next=n + 1)

    def _check(self, game: Game, standing: Sequence[PaperChange], change: PaperChange) -> AppliedChange:
        try:
            return check_change(game, standing, change)
        except ChangeRefused as refused:
            raise Refused(refused.message_key, **refused.params) from None

    def _moves_end(self, game: Game, before: Sequence[PaperChange], after: Sequence[PaperChange]) -> bool:
        one, two = compute_paper(game, before), compute_paper(game, after)
        return (one.ended, one.end_hand) != (two.ended, two.end_hand)

    async def _player_members(self, game: Game) -> list[Member | None]:
        return [await self.db.members.by_nick(nick) for nick in game.players]

    async def _readers(self, game: Game) -> Readers:
        """The game's member-players, each with the language he reads in."""
        return [
            (seat, member, await member_language(self.db, member.id))
            for seat, member in enumerate(await self._player_members(game))
            if member is not None
        ]

    def _tells(
        self,
        game: Game,
        readers: Readers,
        text: Callable[[], str],
        skip: Sequence[int] = (),
        buttons: Callable[[], dict[int, tuple[Button, ...]]] | None = None,
    ) -> list[NewEffect]:
        """What tells every member-player of the game (but the seats in `skip`), each in his language (`text`
        and `buttons` are written once per reader); at a table in progress, the table too, in the club's: the
        rows to write with the act, in the game's corrections queue."""
        queue = _queue(game)
        rows = []
        for seat, member, language in readers:
            if seat not in skip:
                with speaking(language):
                    rows.append(effect.tell(queue, member.id, text(), (buttons() if buttons else {}).get(seat, ())))
        if game.status is GameStatus.IN_PROGRESS:
            with self.voice.club_voice():
                rows.append(effect.tell_table(queue, game.number, text()))
        return rows

    async def _told(
        self,
        game: Game,
        text: Callable[[], str],
        skip: Sequence[int] = (),
        buttons: Callable[[], dict[int, tuple[Button, ...]]] | None = None,
    ) -> list[NewEffect]:
        """`_tells`, the readers read now."""
        return self._tells(game, await self._readers(game), text, skip, buttons)

    def _effect(self, game: Game, applied: AppliedChange, seat: int) -> str:
        amount = applied.entries[seat].bule
        if applied.note == NOTE_REDUCED:
            return self.t(
                "correction.ispravka_reduced",
                nick=game.players[seat],
                amount=_signed(amount),
                full=_signed(applied.requested),
            )
        return self.t("correction.ispravka_effect", nick=game.players[seat], amount=_signed(amount))

    async def _on_game(
        self, member: Member, number: int | None, work: Callable[[Game, int], Awaitable[Reply]]
    ) -> Reply:
        """Run a correction on the member's game (the one named, or his table), one at a time per game, again
        when the paper's standing changes moved underneath (another act landed first)."""
        found = await self._correction_game(member, number)
        game, seat = found
        async with self._game_lock(game.number):
            for _ in range(ATTEMPTS):
                try:
                    return await work(game, seat)
                except StaleChanges:
                    continue
        raise Refused("correction.busy")

    # Odlazak u bulu umesto drugog ---------------------------------------------------------------------------
    @shows_refusals
    async def go_into_bula(self, member: Member, hand: int, number: int | None = None) -> Reply:
        """/bula RUKA: the defender who did not fall goes into the bule instead of his partner, at once."""
        return await self._on_game(member, number, lambda game, seat: self._go_into_bula(member, game, seat, hand))

    async def _go_into_bula(self, member: Member, game: Game, seat: int, n: int) -> Reply:
        self._window(game, n)
        state = await self._hand_state(game, n)
        if seat == state.declarer:
            raise Refused("correction.declarer_odlazak", hand=n)
        if seat in state.score.fallen:
            raise Refused("correction.you_fell", hand=n)
        fallen = state.other_defender(seat)
        if fallen not in state.score.fallen:
            raise Refused("correction.partner_did_not_fall", hand=n, nick=game.players[fallen])
        self._fall_move_refused(state, FallSource.PLAYER)
        now = self.now()
        change = PaperChange(ChangeKind.ODLAZAK_U_BULU, n, member.nick, now, player=seat)
        self._check(game, state.standing, change)
        readers = await self._readers(game)

        def told(change_id: int) -> list[NewEffect]:
            tells = self._tells(
                game,
                readers,
                lambda: self.t(
                    "correction.odlazak_done", nick=member.nick, fallen=game.players[fallen], hand=n, game=game.number
                ),
                skip=(seat,),
                buttons=lambda: {
                    fallen: (Button(self.t(Action.CANCEL_CHANGE.label_key), Action.CANCEL_CHANGE, change_id, "danger"),)
                },
            )
            return [*tells, self.delivery.paper_effect(game.number)]

        await self.corrections_store.record_change(
            NewPaperChange(game.number, n, ChangeKind.ODLAZAK_U_BULU, change.data(), member.id, now),
            state.ids,
            "odlazak_chosen",
            effects=told,
            lapse=await self._lapses(
                game,
                n,
                fallen,
                (CorrectionKind.ARBITAR, CorrectionKind.ISPRAVKA),
                self.t("correction.lapsed_moved", hand=n),
            ),
            fallen=fallen,
            player=seat,
        )
        await self.delivery.deliver_effects()
        return Reply(
            self.t(
                "correction.odlazak_ok", fallen=game.players[fallen], hand=n, game=game.number, amount=state.score.value
            )
        )

    async def _lapses(self, game: Game, n: int, fallen: int, kinds: Sequence[CorrectionKind], note: str) -> list[Lapse]:
        """Pending requests about a fall that moves (or is corrected) have nothing left to decide: they lapse with
        the act, and the players are told so first."""
        lapses = []
        for kind in kinds:
            pending = await self.corrections_store.pending(game.number, n, kind)
            if pending is None or pending.seat != fallen:
                continue
            key = "correction.arbitar_lapsed" if kind is CorrectionKind.ARBITAR else "correction.ispravka_lapsed"
            lapses.append(Lapse(pending.id, note, await self._told(game, partial(self.t, key, hand=n, why=note))))
        return lapses

    # Cancelling -----------------------------------------------------------------------------------------------
    @shows_refusals
    async def cancel(self, member: Member, hand: int, number: int | None = None, what: str | None = None) -> Reply:
        """/ponisti RUKA [bula|ispravka|arbitar]: the fallen player cancels an Odlazak u bulu made for him; the
        player an Ispravka corrects cancels it; a proposer withdraws his pending offer or proposal."""
        return await self._on_game(member, number, lambda game, seat: self._cancel(member, game, seat, hand, what))

    async def cancel_change_button(self, member: Member, change_id: int) -> Reply:
        """The Poništi button under a recorded correction; the payload is only a hint, everything is re-checked."""
        place = await self.corrections_store.change_place(change_id)
        if place is None:
            raise Refused("correction.nothing_to_cancel", hand="?")
        game, hand, kind = place
        what = {ChangeKind.ODLAZAK_U_BULU: Cancel.BULA, ChangeKind.ISPRAVKA: Cancel.ISPRAVKA}.get(kind)
        if what is None:
            raise Refused("correction.nothing_to_cancel", hand=hand)
        return await self.cancel(member, hand, game, what)

    async def _cancel(self, member: Member, game: Game, seat: int, n: int, what: str | None) -> Reply:
        state = await self._hand_state(game, n)
        store = self.corrections_store
        odlazak, ispravka = state.odlazak(), state.ispravka()
        proposal = await store.pending(game.number, n, CorrectionKind.ISPRAVKA)
        offer = await store.pending(game.number, n, CorrectionKind.ARBITAR)
        cancellable = Cancellable(
            odlazak=state.other_defender(int(odlazak.data.get("player", -1))) if odlazak is not None else None,
            odlazak_by_referee=odlazak is not None and odlazak.trial is not None,
            odlazak_by_arbitar=odlazak is not None and bool(odlazak.data.get("arbitar")),
            ispravka=_seat(ispravka.data.get("player")) if ispravka is not None else None,
            proposal=proposal.seat if proposal is not None else None,
            offer=offer.seat if offer is not None else None,
        )
        if what is not None and what not in CANCEL_CHOICES:
            raise Refused("correction.nothing_to_cancel", hand=n)
        try:
            choice = what_to_cancel(cancellable, seat, Cancel(what) if what is not None else None)
        except CancelRefused as refused:
            raise Refused(refused.key, hand=n, **refused.params) from None
        targets = {Cancel.BULA: odlazak, Cancel.ISPRAVKA: ispravka, Cancel.PROPOSAL: proposal, Cancel.ARBITAR: offer}
        target = targets[choice]
        assert target is not None
        if isinstance(target, StoredPaperChange):
            if choice is Cancel.BULA:
                self._window(game, n)
                event, key = "odlazak_cancelled", "correction.odlazak_cancelled"
            else:
                self._game_open(game)
                event, key = "ispravka_cancelled", "correction.ispravka_cancelled"
            return await self._cancel_change(member, state, target, event, key)
        key = "correction.arbitar_withdrawn" if choice is Cancel.ARBITAR else "correction.ispravka_withdrawn"
        told = await self._told(game, lambda: self.t(key, nick=member.nick, hand=n), skip=(seat,))
        try:
            await store.settle(target.id, RequestState.WITHDRAWN, self.now(), member.id, game=game.number, effects=told)
        except NotPending:
            raise Refused("correction.not_pending", request=target.id) from None
        await self.delivery.deliver_effects()
        return Reply(self.t("correction.withdrawn_ok", hand=n))

    async def _cancel_change(
        self, member: Member, state: HandState, row: StoredPaperChange, event: str, key: str
    ) -> Reply:
        game, n = state.game, state.n
        if self._moves_end(game, state.standing, state.without(row.id)):
            raise Refused("correction.cancel_moves_end", hand=n)
        seat = game.seat_of(member.nick)
        told = await self._told(
            game,
            lambda: self.t(key, nick=member.nick, hand=n, game=game.number),
            skip=(seat,) if seat is not None else (),
        )
        told.append(self.delivery.paper_effect(game.number))
        if not await self.corrections_store.cancel_change(
            row.id, game.number, member.id, self.now(), state.ids, event, effects=told, hand=n
        ):
            raise Refused("correction.nothing_to_cancel", hand=n)
        await self.delivery.deliver_effects()
        return Reply(self.t(key, nick=member.nick, hand=n, game=game.number))

    # The Arbitar ----------------------------------------------------------------------------------------------
    @shows_refusals
    async def offer_arbitar(self, member: Member, hand: int, number: int | None = None) -> Reply:
        """/arbitar RUKA: the fallen defender offers the Arbitar; the other defender is asked (the AI agrees)."""
        return await self._on_game(member, number, lambda game, seat: self._offer_arbitar(member, game, seat, hand))

    async def _arbitar_blocked(self, state: HandState, fallen: int) -> None:
        """Why the Arbitar has nothing to decide for `fallen` in this hand now (None: it can decide)."""
        game, n = state.game, state.n
        self._window(game, n)
        if fallen == state.declarer:
            raise Refused("correction.arbitar_declarer", hand=n)
        if fallen not in state.score.fallen:
            raise Refused("correction.arbitar_not_fallen", hand=n)
        self._fall_move_refused(state, FallSource.ARBITAR)
        transfer = PaperChange(
            ChangeKind.ODLAZAK_U_BULU, n, ARBITAR_NAME, self.now(), player=state.other_defender(fallen)
        )
        self._check(game, state.standing, transfer)

    async def _offer_arbitar(self, member: Member, game: Game, seat: int, n: int) -> Reply:
        state = await self._hand_state(game, n)
        await self._arbitar_blocked(state, seat)
        earlier = [r for r in await self.corrections_store.for_game(game.number, n) if r.kind is CorrectionKind.ARBITAR]
        if any(r.state is RequestState.DECIDED for r in earlier):
            raise Refused("correction.arbitar_decided", hand=n)
        if any(r.state is RequestState.REFUSED for r in earlier):
            raise Refused("correction.arbitar_refused_before", hand=n)
        if _procedure() is None:
            raise Refused("correction.arbitar_unavailable")
        other = state.other_defender(seat)
        readers = await self._readers(game)

        def offered(request: int) -> list[NewEffect]:
            return self._tells(
                game,
                readers,
                lambda: self.t(
                    "correction.arbitar_offered", nick=member.nick, hand=n, other=game.players[other], request=request
                ),
                skip=(seat,),
                buttons=lambda: {other: self._answer_buttons(request)},
            )

        asks = not self._ai_answers_all(game, readers, (other,))  # the AI's seat agrees at once: nobody is asked
        try:
            request = await self.corrections_store.open(
                game.number,
                n,
                CorrectionKind.ARBITAR,
                member.id,
                seat,
                (other,),
                "",
                None,
                self.now(),
                replace_pending=False,
                effects=offered if asks else None,
            )
        except AlreadyPending:
            raise Refused("correction.arbitar_pending", hand=n) from None
        if await self._ai_answers(game, request):
            fresh = await self.corrections_store.get(request)
            assert fresh is not None
            return await self._decide(fresh, game, None)
        await self.delivery.deliver_effects()
        return Reply(self.t("correction.arbitar_offer_ok", hand=n, other=game.players[other], request=request))

    def _ai_answers_all(self, game: Game, readers: Readers, asked: Sequence[int]) -> bool:
        """Whether the AI answers for every seat asked (a game with AI, no member in those seats): then the
        request is carried out at once and nobody is told of it being asked."""
        members = {seat for seat, _, _ in readers}
        return game.ai and all(seat not in members for seat in asked)

    async def _ai_answers(self, game: Game, request: int) -> bool:
        """In a game with AI, the seats no member holds are the AI's: they agree at once. True when nobody else
        has to answer any more."""
        stored = await self.corrections_store.get(request)
        assert stored is not None
        if game.ai:
            members = await self._player_members(game)
            for seat in stored.waiting:
                if members[seat] is None:
                    await self.corrections_store.answer(request, seat, None, True, self.now())
            stored = await self.corrections_store.get(request)
            assert stored is not None
        return not stored.waiting and stored.agreed

    async def _decide(self, request: CorrectionRequest, game: Game, actor: Member | None) -> Reply:
        """The other defender accepted: the Arbitar decides at once and its verdict binds."""
        n, fallen = request.hand, request.seat
        for _ in range(ATTEMPTS):
            try:
                state = await self._hand_state(game, n)
                await self._arbitar_blocked(state, fallen)
            except Refused as refused:
                return await self._lapse(request, game, self.t(refused.key, **refused.values))
            arbitrate = _procedure()
            if arbitrate is None:
                raise Refused("correction.arbitar_unavailable")
            try:
                verdict = await self.deps.arbitar().run(arbitrate, game, n, fallen)
            except ArbitarUnavailable:  # its worker died: the consent stands, carried out when asked again
                raise Refused("correction.arbitar_worker_lost", request=request.id) from None
            except Exception:
                log.exception("the Arbitar failed on game %s hand %s", game.number, n)
                raise Refused("correction.arbitar_failed", request=request.id) from None
            other = state.other_defender(fallen)
            if verdict.transfers and verdict.to != other:
                log.error(
                    "the Arbitar moved the fall of seat %s to seat %s in game %s hand %s",
                    fallen,
                    verdict.to,
                    game.number,
                    n,
                )
                raise Refused("correction.arbitar_failed", request=request.id)
            # Kept with the request: what the players were told, and the reason's key and values, so that a later
            # reader (the web's Prikaz ruke) reads the reason in his own language.
            shown = {
                **verdict.to_json(game.players),
                "reason_key": verdict.reason_key,
                "reason_values": verdict.reason_values,
            }
            now = self.now()
            add = None
            if verdict.transfers:
                add = NewPaperChange(
                    game.number,
                    n,
                    ChangeKind.ODLAZAK_U_BULU,
                    {"player": other, "arbitar": True, "who": ARBITAR_NAME, "request": request.id},
                    None,
                    now,
                    f"{ARBITAR_NAME}: {verdict.reason_in(self.voice.club_messages.t)}",  # kept with the change
                )
            text = self._verdict_text(game, request, verdict, other)
            # The verdict reaches each member once: the one the reply goes to (the player who accepted, or the
            # offerer when the AI accepted for him) is not told again.
            actor_seat = game.seat_of(actor.nick) if actor is not None else request.seat
            told = await self._told(game, text, skip=(actor_seat,) if actor_seat is not None else ())
            moved = self.t("correction.lapsed_moved", hand=n)
            lapse = await self._lapses(game, n, fallen, (CorrectionKind.ISPRAVKA,), moved) if verdict.transfers else []
            if verdict.transfers:
                told.append(self.delivery.paper_effect(game.number))
            try:
                await self.corrections_store.settle(
                    request.id,
                    RequestState.DECIDED,
                    now,
                    actor.id if actor else None,
                    game=game.number,
                    expected=state.ids,
                    add=add,
                    verdict=shown,
                    effects=told,
                    lapse=lapse,
                )
            except StaleChanges:
                continue
            except NotPending:
                raise Refused("correction.not_pending", request=request.id) from None
            await self.delivery.deliver_effects()
            return Reply(
                text(), pictures=await verdict_pictures(game, n, fallen, verdict, self.voice.messages.language)
            )
        raise Refused("correction.busy")

    def _verdict_text(
        self, game: Game, request: CorrectionRequest, verdict: ArbitarVerdict, other: int
    ) -> Callable[[], str]:
        """The Arbitar's verdict as the players read it (written once per reader)."""
        n, fallen = request.hand, request.seat
        step = verdict.step if verdict.step is not None else "—"  # neither step applied

        def text() -> str:
            facts = evidence_text(game, n, fallen, verdict, self.voice.messages)
            evidence = "\n".join("  " + fact for fact in facts) or "  —"
            if verdict.transfers:
                return self.t(
                    "correction.arbitar_transfer",
                    hand=n,
                    fallen=game.players[fallen],
                    other=game.players[other],
                    reason=verdict.reason_in(self.t),
                    step=step,
                    evidence=evidence,
                )
            said = self.t(
                "correction.arbitar_stays",
                hand=n,
                fallen=game.players[fallen],
                reason=verdict.reason_in(self.t),
                step=step,
                evidence=evidence,
            )
            if verdict.not_obvious and game.judgeable:
                said += "\n" + self.t("correction.may_call_referee", game=game.number)
            return said

        return text

    async def _lapse(self, request: CorrectionRequest, game: Game, why: str) -> Reply:
        key = "correction.arbitar_lapsed" if request.kind is CorrectionKind.ARBITAR else "correction.ispravka_lapsed"
        told = await self._told(game, lambda: self.t(key, hand=request.hand, why=why))
        try:
            await self.corrections_store.settle(
                request.id, RequestState.LAPSED, self.now(), None, game=game.number, note=why, effects=told
            )
        except NotPending:
            raise Refused("correction.not_pending", request=request.id) from None
        await self.delivery.deliver_effects()
        raise Refused(key, hand=request.hand, why=why)

    # Answers (the Arbitar's acceptance, an Ispravka's consent) -----------------------------------------------
    @shows_refusals
    async def answer(self, member: Member, request_id: int | None, yes: bool) -> Reply:
        """/prihvatam [BROJ], /odbijam [BROJ] and their buttons: the answer of a player who was asked."""
        if request_id is None:
            waiting = await self.corrections_store.awaiting(member.nick)
            if not waiting:
                raise Refused("correction.nothing_to_answer")
            if len(waiting) > 1:
                raise Refused("correction.which_request", requests=", ".join(str(r.id) for r in waiting))
            request_id = waiting[0].id
        request = await self.corrections_store.get(request_id)
        if request is None:
            raise Refused("correction.unknown_request", request=request_id)
        game = await self.lookups.load_game(request.game)
        async with self._game_lock(game.number):
            request = await self.corrections_store.get(request_id)
            assert request is not None
            return await self._answer(member, game, request, yes)

    async def _answer(self, member: Member, game: Game, request: CorrectionRequest, yes: bool) -> Reply:
        if not request.pending:
            raise Refused("correction.not_pending", request=request.id)
        seat = game.seat_of(member.nick)
        asked = {a.seat: a for a in request.answers}
        if seat is None or seat not in asked:
            raise Refused("correction.not_asked", request=request.id)
        if asked[seat].answer is not None:
            if asked[seat].answer is CorrectionAnswer.YES and yes and request.agreed:
                return await self._carry_out(request, game, member)  # an earlier attempt failed: try again
            raise Refused("correction.already_answered", request=request.id)
        n = request.hand
        waiting = tuple(s for s in request.waiting if s != seat)  # after this answer (acts on a game are queued)
        noted: list[NewEffect] = []
        if yes and waiting:
            noted = await self._told(
                game,
                lambda: self.t(
                    "correction.consent_noted",
                    nick=member.nick,
                    hand=n,
                    waiting=", ".join(game.players[s] for s in waiting),
                ),
                skip=(seat,),
            )
        if not yes:  # his no and the refusal it makes are one write
            return await self._refused(member, game, request, seat)
        if not await self.corrections_store.answer(request.id, seat, member.id, yes, self.now(), noted):
            raise Refused("correction.not_pending", request=request.id)
        fresh = await self.corrections_store.get(request.id)
        assert fresh is not None
        if fresh.waiting:
            await self.delivery.deliver_effects()
            return Reply(
                self.t("correction.consent_ok", hand=n, waiting=", ".join(game.players[s] for s in fresh.waiting))
            )
        return await self._carry_out(fresh, game, member)

    async def _refused(self, member: Member, game: Game, request: CorrectionRequest, seat: int) -> Reply:
        """A player asked says no: his answer and the request's refusal are written together, with what tells
        the others (the Arbitar's offerer with the hint that he may call a referee)."""
        n, proposer = request.hand, request.seat
        if request.kind is CorrectionKind.ARBITAR:

            def refused() -> str:
                return self.t("correction.arbitar_refused", nick=member.nick, hand=n)

            told = await self._told(game, refused, skip=(seat, proposer))
            proposer_member = await self.db.members.get(request.by_member)
            if proposer_member is not None:
                with speaking(await member_language(self.db, proposer_member.id)):
                    hint = self.t("correction.may_call_referee", game=game.number) if game.judgeable else ""
                    said = refused() + ("\n" + hint if hint else "")
                told.append(effect.tell(_queue(game), proposer_member.id, said))
            answer = "correction.arbitar_refuse_ok"
        else:
            told = await self._told(
                game,
                lambda: self.t("correction.ispravka_refused", nick=member.nick, hand=n, fallen=game.players[proposer]),
                skip=(seat,),
            )
            answer = "correction.ispravka_refuse_ok"
        try:
            await self.corrections_store.settle(
                request.id,
                RequestState.REFUSED,
                self.now(),
                member.id,
                game=game.number,
                effects=told,
                refusal=(seat, member.id),
            )
        except NotPending:
            raise Refused("correction.not_pending", request=request.id) from None
        await self.delivery.deliver_effects()
        return Reply(self.t(answer, hand=n))

    async def _carry_out(self, request: CorrectionRequest, game: Game, actor: Member | None) -> Reply:
        if request.kind is CorrectionKind.ARBITAR:
            return await self._decide(request, game, actor)
        return await self._apply_ispravka(request, game, actor)

    # Ispravka -------------------------------------------------------------------------------------------------
    @shows_refusals
    async def propose_ispravka(self, member: Member, hand: int, number: int | None = None, reason: str = "") -> Reply:
        """/ispravka RUKA [-- razlog]: the player who fell asks to be recorded as passed; the other two agree."""
        return await self._on_game(
            member, number, lambda game, seat: self._propose_ispravka(member, game, seat, hand, reason)
        )

    def _ispravka_check(self, state: HandState, seat: int) -> tuple[AppliedChange, StoredPaperChange | None]:
        game, n = state.game, state.n
        self._game_open(game)
        if seat not in state.score.fallen:
            raise Refused("correction.ispravka_not_fallen", hand=n)
        replaced = state.ispravka()
        if replaced is not None and replaced.trial is not None:
            raise Refused("correction.referee_imposed", hand=n)
        self._fall_move_refused(state, FallSource.ISPRAVKA, replaced.id if replaced else None)
        change = PaperChange(ChangeKind.ISPRAVKA, n, game.players[seat], self.now(), player=seat)
        applied = self._check(game, state.without(replaced.id if replaced else None), change)
        return applied, replaced

    async def _propose_ispravka(self, member: Member, game: Game, seat: int, n: int, reason: str) -> Reply:
        state = await self._hand_state(game, n)
        applied, replaced = self._ispravka_check(state, seat)
        others = tuple(s for s in range(3) if s != seat)
        key = "correction.ispravka_proposed_replacing" if replaced is not None else "correction.ispravka_proposed"
        readers = await self._readers(game)

        def proposed(request: int) -> list[NewEffect]:
            return self._tells(
                game,
                readers,
                lambda: self.t(
                    key,
                    nick=member.nick,
                    hand=n,
                    effect=self._effect(game, applied, seat),
                    reason=reason or "—",
                    request=request,
                ),
                skip=(seat,),
                buttons=lambda: {s: self._answer_buttons(request) for s in others},
            )

        asks = not self._ai_answers_all(game, readers, others)  # the AI agrees for both: nobody is asked
        request = await self.corrections_store.open(
            game.number,
            n,
            CorrectionKind.ISPRAVKA,
            member.id,
            seat,
            others,
            reason,
            replaced.id if replaced else None,
            self.now(),
            replace_pending=True,
            effects=proposed if asks else None,
        )
        if await self._ai_answers(game, request):
            fresh = await self.corrections_store.get(request)
            assert fresh is not None
            return await self._apply_ispravka(fresh, game, member)
        await self.delivery.deliver_effects()
        shown = self._effect(game, applied, seat)
        return Reply(
            self.t(
                "correction.ispravka_propose_ok",
                hand=n,
                effect=shown,
                request=request,
                others=", ".join(game.players[s] for s in others),
            )
        )

    async def _apply_ispravka(self, request: CorrectionRequest, game: Game, actor: Member | None) -> Reply:
        n, seat = request.hand, request.seat
        for _ in range(ATTEMPTS):
            try:
                state = await self._hand_state(game, n)
                applied, replaced = self._ispravka_check(state, seat)
            except Refused as refused:
                return await self._lapse(request, game, self.t(refused.key, **refused.values))
            now = self.now()
            add = NewPaperChange(
                game.number,
                n,
                ChangeKind.ISPRAVKA,
                {"player": seat, "request": request.id},
                request.by_member,
                now,
                request.reason,
            )

            def text(applied: AppliedChange = applied) -> str:
                return self.t("correction.ispravka_applied", hand=n, effect=self._effect(game, applied, seat))

            actor_seat = game.seat_of(actor.nick) if actor is not None else None
            told = await self._told(game, text, skip=(actor_seat,) if actor_seat is not None else ())
            told.append(self.delivery.paper_effect(game.number))
            corrected = self.t("correction.lapsed_corrected", hand=n)
            try:
                await self.corrections_store.settle(
                    request.id,
                    RequestState.APPLIED,
                    now,
                    actor.id if actor else None,
                    game=game.number,
                    expected=state.ids,
                    add=add,
                    cancel=replaced.id if replaced else None,
                    effects=told,
                    lapse=await self._lapses(game, n, seat, (CorrectionKind.ARBITAR,), corrected),
                )
            except StaleChanges:
                continue
            except NotPending:
                raise Refused("correction.not_pending", request=request.id) from None
            await self.delivery.deliver_effects()
            return Reply(text())
        raise Refused("correction.busy")

    # What stands and what waits ----------------------------------------------------------------------------
    @shows_refusals
    async def corrections_status(self, member: Member, number: int | None = None) -> Reply:
        """/korekcije [PARTIJA]: the players' corrections standing on the paper and the requests still waiting."""
        found = await self._correction_game(member, number)
        game, _ = found
        names = game.players
        lines = [self.t("correction.status_title", game=game.number)]
        for row in await self.db.paper_changes.rows(game.number):
            player = row.data.get("player")
            if row.trial is not None or not isinstance(player, int):
                continue
            if row.kind is ChangeKind.ODLAZAK_U_BULU:
                key = "correction.status_arbitar" if row.data.get("arbitar") else "correction.status_odlazak"
                lines.append(self.t(key, hand=row.hand, nick=names[player]))
            elif row.kind is ChangeKind.ISPRAVKA:
                lines.append(self.t("correction.status_ispravka", hand=row.hand, nick=names[player]))
        for request in await self.corrections_store.for_game(game.number):
            if request.pending:
                key = (
                    "correction.status_offer"
                    if request.kind is CorrectionKind.ARBITAR
                    else "correction.status_proposal"
                )
                lines.append(
                    self.t(
                        key,
                        request=request.id,
                        hand=request.hand,
                        nick=names[request.seat],
                        waiting=", ".join(names[s] for s in request.waiting),
                    )
                )
        if len(lines) == 1:
            lines.append(self.t("correction.status_none"))
        return Reply("\n".join(lines))


def _procedure() -> Callable[[Game, int, int], ArbitarVerdict] | None:
    """The Arbitar's procedure, imported when first needed (None while it is not installed)."""
    try:
        module = importlib.import_module("rules.arbitar.procedure")
    except ImportError:
        return None
    arbitrate: Callable[[Game, int, int], ArbitarVerdict] = module.arbitrate
    return arbitrate


def _seat(value: object) -> int | None:
    """A seat as a change's data stores it (None when it names none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _queue(game: Game) -> str:
    """The chat outbox queue of a game's corrections: what they tell arrives in the order the acts were made."""
    return f"corrections:{game.number}"


def _signed(amount: int) -> str:
    return f"{amount:+d}"
