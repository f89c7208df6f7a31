"""The trial: taking a call (Sudi), the private space, the referee's controls (show hands, earlier trials, draft,
Promeni…, call a councilor, Završi suđenje, leave) and every other end, which drops the draft.

Only `finish` records anything about the verdict; every other end records the trial as interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from fractions import Fraction

from bot import chat_outbox as effect
from bot.desk.base import DeskBase
from bot.desk.calls import CallDesk
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.refused import Refused
from bot.i18n.problems import english
from bot.i18n.reader import for_the_club
from bot.pictures.attach import hand_pictures
from bot.ports import Action, Button, CallPost, Channel, Reply, SpaceFallback, TrialSpace, Unavailable, state_key
from bot.views import render_hand_in_progress, render_hands, render_verdict
from rules.eligibility import GameFacts, check_game, eligible_referees, why_not_referee
from rules.gamelog import Game, GameStatus
from rules.live_hand import LiveHandError, with_hand_in_progress
from rules.members import PartyRole, Role
from rules.nicknames import NickRefused, check_nick
from rules.paper_link import verdict_changes
from rules.verdicts import (
    BulaChange,
    Draft,
    FallTransfer,
    NoVerdict,
    Penalty,
    VerdictRefused,
    check_draft,
    verdict_from_json,
    verdict_to_json,
)
from storage.calls import AlreadyPending, Call
from storage.changes import NewPaperChange
from storage.chat_outbox import NewEffect
from storage.games import PreparedGame
from storage.members import Member
from storage.states import CallState, CouncilorCallState, EndReason, SpaceState, TrialOutcome
from storage.trials import TakeResult, Trial, WithEnd

log = logging.getLogger(__name__)


def named_in_nfc(draft: Draft) -> Draft:
    """The draft with every nickname it names checked and in NFC (rules.nicknames), as the game's players are."""
    verdict = draft.verdict
    if isinstance(verdict, BulaChange):
        verdict = replace(verdict, amounts={check_nick(nick): amount for nick, amount in verdict.amounts.items()})
    elif isinstance(verdict, (FallTransfer, Penalty)):
        verdict = replace(verdict, culprit=check_nick(verdict.culprit))
    return replace(draft, verdict=verdict)


FINISH_TRIES = 3  # Završi suđenje while the draft is being replaced: read again, at most this often


class TrialDesk(DeskBase):
    """The trial's use cases; built on the calls (a press may expire one, a caller leaving withdraws his) and
    taking the steps others extend (opening, judging, interrupting, a draft's checks and effects) through
    `steps`."""

    def __init__(self, deps: DeskDeps, calls: CallDesk, steps: Steps) -> None:
        super().__init__(deps)
        self.calls = calls
        self.steps = steps
        self._take_locks: dict[int, asyncio.Lock] = {}  # presses on one call, queued (the DB still decides)
        self._take_claims: dict[int, tuple[str, int]] = {}  # call id -> (nick, game) of the checked presser writing
        self._promeni_locks: dict[int, asyncio.Lock] = {}  # a referee's Promeni, queued

    @shows_refusals
    async def take(self, referee: Member, call_id: int) -> Reply:
        """Sudi: the first eligible referee wins, atomically; the others are told who took it.

        The database decides the winner (a conditional UPDATE). Presses on one call are checked one at a time
        (reads only); as soon as one presser has passed every check he holds the claim, and every press still
        waiting — or arriving while his write goes on — is refused at once, without a read or a write, naming
        him. A claim that fails (the database busy) is dropped, and the call stays open to the next press.
        """
        claimant = self._take_claims.get(call_id)
        if claimant is not None:
            raise Refused("take.in_progress", referee=claimant[0], game=claimant[1])
        lock = self._take_locks.setdefault(call_id, asyncio.Lock())
        try:
            async with lock:
                claimant = self._take_claims.get(call_id)
                if claimant is not None:
                    raise Refused("take.in_progress", referee=claimant[0], game=claimant[1])
                checked = await self._check_take(referee, call_id)
                self._take_claims[call_id] = (referee.nick, checked[0].game)
        finally:
            if not lock.locked() and self._take_locks.get(call_id) is lock:
                del self._take_locks[call_id]
        try:
            return await self._take(referee, *checked)
        finally:
            self._take_claims.pop(call_id, None)

    async def _check_take(self, referee: Member, call_id: int) -> tuple[Call, list[tuple[int, PartyRole]]]:
        """Everything a press must pass before its write, read from the database: a refusal, or the call and
        the trial's parties."""
        call = await self.db.calls.get(call_id)
        if call is None:
            raise Refused("take.unknown")
        if not referee.is_referee:
            raise Refused("take.not_referee")
        if call.state is CallState.PENDING and call.deadline <= self.now():
            # The deadline is the law: a press after it (a timer that never ran, a press queued while the bot
            # was down) expires the call then and there.
            await self.calls.expire_call(call)
            raise Refused("take.expired", game=call.game)
        if call.state is not CallState.PENDING:
            raise Refused(f"take.{call.state}", referee=await self.lookups.nick(call.referee), game=call.game)
        facts = await self.lookups.game_facts(call.game)
        assert facts is not None
        why = why_not_referee(await self.lookups.referee_facts(referee), facts, call.caller)
        if why is not None:
            raise Refused(why, game=call.game)
        return call, await self._parties(call, facts)

    async def _take(self, referee: Member, call: Call, parties: list[tuple[int, PartyRole]]) -> Reply:
        caller = await self.lookups.nick(call.caller)
        briefing = await self.steps.briefing(call.game, referee.id, call.id)  # the game's trials before this one

        def effects(trial_id: int) -> list[NewEffect]:
            # Written with the win, in the club's words: the notices say who took it, the trial's space opens,
            # the table pauses; then the referee's briefing, in his.
            with self.voice.club_voice():
                taken = self.t("call.notice_taken", game=call.game, caller=caller, referee=referee.nick)
                edit = effect.edit_notices(call.id, f"call:{call.id}", taken)
                return [edit, *self._opening_effects(call, trial_id, caller, referee.nick), *briefing]

        result, trial = await self.db.trials.take(call.id, referee.id, self.now(), parties, effects)
        self._take_claims.pop(call.id, None)  # written: from now on the stored state answers every press
        if result == TakeResult.JUDGING:
            raise Refused("take.judging")
        if result == TakeResult.GONE or trial is None:
            fresh = await self.db.calls.get(call.id)
            assert fresh is not None
            if fresh.state is CallState.PENDING:  # the deadline passed between the check and the take
                await self.calls.expire_call(fresh)
                raise Refused("take.expired", game=call.game)
            raise Refused(f"take.{fresh.state}", referee=await self.lookups.nick(fresh.referee), game=call.game)
        await self.steps.open_trial(trial)
        taken = Reply(self.t("take.ok", game=call.game, trial=trial.id))
        if not call.in_game or not getattr(self.deps.game_server, "linked", False):
            return taken
        # The referee of an in-game call sees the hand in progress at once (asked of the game server, kept nowhere).
        stored = await self.lookups.load_game(call.game)
        live, notes = await self.with_hand_in_progress(stored)
        shown = [render_hand_in_progress(live, self.voice.messages)] if live is not stored else []
        return replace(taken, text="\n\n".join([taken.text, *shown, *notes]))

    async def _parties(self, call: Call, facts: GameFacts) -> list[tuple[int, PartyRole]]:
        """Out of game: the caller. In game: the table's three players (those who are members)."""
        parties = [(call.caller, PartyRole.CALLER)]
        if call.in_game:
            for nick in facts.players:
                member = await self.db.members.by_nick(nick)
                if member is not None and member.id != call.caller:
                    parties.append((member.id, PartyRole.PLAYER))
        return parties

    @for_the_club  # the trial's space and the table
    async def open_trial(self, trial: Trial) -> None:
        """The trial's space opens: its effects were written with the take (`_opening_effects`), delivered now."""
        await self.delivery.deliver_effects()

    def _opening_effects(self, call: Call, trial_id: int, caller: str, referee: str) -> list[NewEffect]:
        key = "trial.opened_in_game" if call.in_game else "trial.opened_out_of_game"
        text = self.t(key, game=call.game, caller=caller, referee=referee)
        controls = self.controls(TrialSpace(trial_id, call.game, call.in_game, True, ()))
        rows = [effect.open_trial_space(call.id, trial_id, text, controls)]
        if call.in_game:
            rows.append(
                effect.server(call.id, "pause_table", call.game, key=state_key("pause", call.game, "trial", trial_id))
            )
            rows.append(effect.tell_table(call.id, call.game, self.t("table.paused")))
        else:
            key = state_key("block", caller.casefold(), "trial", trial_id)
            rows.append(effect.server(call.id, "block_offers", caller, key=key))
        return rows

    def controls(self, trial: Trial | TrialSpace) -> tuple[Button, ...]:
        buttons = [
            Button(self.t(Action.HANDS.label_key), Action.HANDS, trial.id, "secondary"),
            Button(self.t(Action.HISTORY.label_key), Action.HISTORY, trial.id, "secondary"),
        ]
        if trial.in_game:
            buttons.append(Button(self.t(Action.COUNCILOR.label_key), Action.COUNCILOR, trial.id, "secondary"))
        buttons += [
            Button(self.t(Action.FINISH.label_key), Action.FINISH, trial.id),
            Button(self.t(Action.LEAVE.label_key), Action.LEAVE, trial.id, "danger"),
        ]
        return tuple(buttons)

    async def _judged_by(self, referee: Member, trial_id: int | None) -> Trial:
        """The open trial `referee` judges (the one named, if any), or the refusal to show him."""
        trial = await self.db.trials.judging(referee.id)
        if trial is None or (trial_id is not None and trial.id != trial_id):
            raise Refused("trial.not_your_trial")
        if not referee.is_referee:
            await self.steps.interrupt(trial, EndReason.REFEREE_DISMISSED)
            raise Refused("take.not_referee")
        return trial

    async def say(self, member: Member, text: str, trial_id: int | None = None) -> Reply | None:
        """A message typed in a trial: kept in the transcript and shown to the other parties. A platform that
        knows which trial's space it was typed in says so (a member may be in two trials: his table's and his
        own call's); otherwise it goes to his newest open trial."""
        trial = None
        if trial_id is not None:
            named = await self.db.trials.get(trial_id)
            parties = {p.member for p in await self.db.trials.participants(trial_id)} if named else set()
            trial = named if named is not None and named.is_open and member.id in parties else None
        if trial is None:
            trial = await self.db.trials.open_for_member(member.id)
        if trial is None:
            return None
        await self.db.trials.add_message(trial.id, member.id, text, self.now())
        await self.deps.chat.say_in_trial(await self.lookups.trial_space(trial), text, member)
        return None

    async def show_hands(self, referee: Member, trial_id: int | None = None) -> Reply:
        """Prikaz ruke: every card of every played hand and of the hand in progress, trick by trick — in an
        in-game trial the hand in progress as the game server reports it now (for the referee alone)."""
        trial = await self.steps.judged_by(referee, trial_id)
        game = await self.lookups.load_game(trial.game)
        paper = (await self.lookups.paper_of(game)).paper
        notes: list[str] = []
        if trial.in_game:
            game, notes = await self.with_hand_in_progress(game)
        return Reply(
            "\n".join([render_hands(game, self.voice.messages, paper), *notes]),
            pictures=await hand_pictures(game, self.voice.messages.language),
        )

    async def with_hand_in_progress(self, game: Game) -> tuple[Game, list[str]]:
        """The game with the hand in progress the game server reports (asked now, never stored: it is shown to
        the trial's referee and forgotten), and the lines that go with it (the trick being played, a talon the
        table has not seen) or that say why it is not available. With no game server linked, the stored game is
        all there is, and nothing is said."""
        if game.status is not GameStatus.IN_PROGRESS:
            return game, []
        asked = await self.deps.game_server.hand_in_progress(game.number)
        if asked.unavailable is Unavailable.NO_LINK:
            return game, []
        why = asked.unavailable
        if asked.answer is not None:
            try:
                live = with_hand_in_progress(game, asked.answer)
            except LiveHandError as problem:
                log.warning(
                    "the game server's hand in progress of game %s does not fit: %s",
                    game.number,
                    english(problem.problems),
                )
                why = Unavailable.INVALID
            else:
                hand = live.hand.n
                notes = []
                if live.current_trick:
                    played = ", ".join(f"{game.players[seat]} {card.display()}" for seat, card in live.current_trick)
                    notes.append(self.t("hands.current_trick", hand=hand, cards=played))
                if not live.talon_seen:
                    notes.append(self.t("hands.talon_unseen", hand=hand))
                return live.game, notes
        assert why is not None
        return game, [self.t("hands.live_unavailable", game=game.number, why=self.t(f"hands.why_{why.value}"))]

    @shows_refusals
    async def history(self, referee: Member, trial_id: int | None = None) -> Reply:
        trial = await self.steps.judged_by(referee, trial_id)
        return await self.steps.verdict_list(trial.game, show_referees=True)

    async def draft(self, referee: Member, draft: Draft) -> Reply:
        """Draft (or replace) the verdict; checked now and again at Završi suđenje. A draft that arrives after
        the trial ended (Završi suđenje won the race) is answered so: it was not saved."""
        try:
            trial = await self.steps.judged_by(referee, None)
        except Refused:
            last = await self.db.trials.last_judged(referee.id)
            if last is not None and not last.is_open and referee.is_referee:
                raise Refused("draft.trial_ended", trial=last.id) from None
            raise
        try:
            draft = named_in_nfc(draft)
        except NickRefused as problem:
            raise Refused("nick.bad", problem=self.lookups.nick_problem(problem)) from None
        game = await self.lookups.load_game(trial.game)
        try:
            await self.steps.checked(draft, trial, game)
        except VerdictRefused as refused:
            raise Refused(refused.key, **refused.params) from None
        if not await self.db.trials.set_draft(trial.id, verdict_to_json(draft), referee.id, self.now()):
            raise Refused("draft.trial_ended", trial=trial.id)
        return Reply(self.t("draft.saved", verdict=render_verdict(draft, self.voice.messages)))

    async def checked(self, draft: Draft, trial: Trial, game: Game) -> list[NewPaperChange]:
        """Every rule a draft must meet, the paper's limits included; the paper changes it would write."""
        completed = sum(1 for h in game.hands if h.completed)
        limits = self.config.penalties
        check_draft(
            draft,
            in_game=trial.in_game,
            players=game.players,
            completed_hands=completed,
            plavac_limit=limits.plavac_max_days,
            league_limit=limits.league_max_points,
        )
        standing = (await self.lookups.paper_of(game)).changes
        limits = self.config.penalties
        share = Fraction(limits.settlement_played_share)
        settlement = ((share.numerator, share.denominator), timedelta(minutes=limits.settlement_delay_minutes))
        changes = verdict_changes(
            draft,
            game,
            standing,
            await self.lookups.nick(trial.referee),
            self.now(),
            settlement=settlement,
            moves=await self.lookups.fall_moves(game.number),
        )
        return [NewPaperChange(c.game, c.hand, c.kind, dict(c.data), trial.referee, c.at, c.reason) for c in changes]

    @shows_refusals
    async def change_game(self, referee: Member, number: int) -> Reply:
        """Promeni…: the same rules as a call (7 days counted to the call; the caller played; not the referee);
        the draft is dropped. A referee's Promeni are queued, so two at once are answered from what stands."""
        async with self._promeni_locks.setdefault(referee.id, asyncio.Lock()):
            return await self._change_game(referee, number)

    async def _change_game(self, referee: Member, number: int) -> Reply:
        trial = await self.steps.judged_by(referee, None)
        if trial.in_game:
            raise Refused("promeni.in_game")
        call = await self.db.calls.get(trial.call)
        assert call is not None
        caller = await self.db.members.get(trial.caller)
        assert caller is not None
        facts = await self.lookups.game_facts(number)
        paused = [
            (s, e) for s, e in await self.db.trials.pause_intervals(number, call.created_at) if s < call.created_at
        ]
        refusal = check_game(facts, caller.nick, call.created_at, paused, self.lookups.claim_window, number)
        if refusal is not None:
            reason, p = refusal.reason.value, refusal.params
            if reason == "not_your_game":
                raise Refused("promeni.caller_not_player", caller=caller.nick, game=number)
            if reason == "too_old":
                raise Refused(
                    "promeni.too_old",
                    game=number,
                    ended_at=p["ended_at"],
                    consumed=p["consumed"],
                    days=self.config.claim_days,
                )
            raise self.calls.refused(refusal)
        assert facts is not None
        if facts.status is GameStatus.IN_PROGRESS:
            raise Refused("promeni.in_progress", game=number)
        if facts.played_by(referee.nick):
            raise Refused("take.played", game=number)
        if facts.number == trial.game:
            raise Refused("promeni.same", game=number)
        if await self.db.calls.pending_for_game(number):
            raise Refused("call.already_open", game=number)
        with self.voice.club_voice():  # said in the trial's space, written with the change
            said = [effect.say_in_trial(trial.call, trial.id, self.t("promeni.done", game=number))]
        said += await self.steps.briefing(number, referee.id, trial.call, trial.id)  # the new game's, in his language
        if not await self.db.trials.change_game(trial.id, number, referee.id, self.now(), said):
            fresh = await self.db.trials.get(trial.id)
            if fresh is not None and not fresh.is_open:
                raise Refused("promeni.trial_ended", trial=trial.id)
            if fresh is not None and fresh.game == number:
                raise Refused("promeni.moved_meanwhile", game=number)
            raise Refused("call.already_open", game=number)
        await self.delivery.deliver_effects()
        return Reply(self.t("promeni.ok", game=number))

    @shows_refusals
    async def call_councilor(self, referee: Member, trial_id: int | None = None) -> Reply:
        """The referee calls a councilor: the notice to the eligible councilors (recorded as pinged) and the line
        in the trial's space are written with the call and delivered after it."""
        trial = await self.steps.judged_by(referee, trial_id)
        if not trial.in_game:
            raise Refused("councilor.out_of_game")
        now = self.now()
        facts = await self.lookups.game_facts(trial.game)
        assert facts is not None
        present = {p.member for p in await self.db.trials.participants(trial.id)}
        lobby = await self.lookups.lobby(Role.COUNCILOR)
        eligible = {c.member_id for c in eligible_referees([f for _, f in lobby], facts, trial.caller)} - present
        members = [m for m, _ in lobby if m.id in eligible]
        deadline = now + self.lookups.call_time
        minutes = self.config.call_minutes

        def effects(ccall_id: int) -> list[NewEffect]:
            with self.voice.club_voice():
                post = CallPost(
                    f"councilor:{ccall_id}",
                    self.t("councilor.notice", game=trial.game, until=deadline),
                    tuple(members),
                    (Button(self.t(Action.JOIN.label_key), Action.JOIN, ccall_id),),
                    tuple(members),
                    channel=Channel.COUNCILORS,
                )
                said = self.t("councilor.called_none" if not members else "councilor.called", minutes=minutes)
                return [
                    effect.post_councilor_call(trial.call, post),
                    effect.say_in_trial(trial.call, trial.id, said),
                ]

        try:
            ccall = await self.db.calls.create_councilor_call(
                trial.id, now, deadline, referee.id, [m.id for m in members], effects
            )
        except AlreadyPending:
            raise Refused("councilor.pending") from None
        self.deps.timers.arm(ccall.deadline)
        await self.delivery.deliver_effects()
        if not members:  # the call still lives its minutes: a councilor who comes to the lobby gets it
            return Reply(self.t("councilor.ok_none", minutes=minutes))
        return Reply(self.t("councilor.ok"))

    @shows_refusals
    async def join_as_councilor(self, councilor: Member, ccall_id: int) -> Reply:
        """The first councilor to answer joins: the notices edited and his arrival in the trial's space are
        written with the win."""
        ccall = await self.db.calls.councilor_call(ccall_id)
        if ccall is None:
            raise Refused("take.unknown")
        if Role.COUNCILOR not in councilor.roles:
            raise Refused("councilor.not_councilor")
        trial = await self.db.trials.get(ccall.trial)
        assert trial is not None
        facts = await self.lookups.game_facts(trial.game)
        assert facts is not None
        if ccall.state is CouncilorCallState.PENDING and ccall.deadline <= self.now():
            # The deadline is the law (decisions.md, "Calls"): a press after it finds the call expired, and it is
            # recorded so, at its deadline, whether or not a timer fired.
            await self.expire_due_councilor_calls()
            raise Refused("councilor.notice_expired", game=trial.game)
        if ccall.state is not CouncilorCallState.PENDING:
            raise Refused("councilor.gone", councilor=await self.lookups.nick(ccall.councilor))
        if facts.played_by(councilor.nick) or councilor.id == trial.referee:
            raise Refused("take.played", game=trial.game)
        with self.voice.club_voice():
            taken = self.t("councilor.notice_taken", game=trial.game, councilor=councilor.nick)
            effects = [
                effect.edit_notices(trial.call, f"councilor:{ccall.id}", taken),
                effect.add_to_trial_space(
                    trial.call, trial.id, councilor.id, self.t("councilor.joined", nick=councilor.nick)
                ),
                *await self.steps.briefing(trial.game, councilor.id, trial.call, trial.id),
            ]
        if not await self.db.calls.take_councilor_call(ccall.id, councilor.id, self.now(), effects):
            fresh = await self.db.calls.councilor_call(ccall.id)
            raise Refused("councilor.gone", councilor=await self.lookups.nick(fresh.councilor if fresh else None))
        await self.delivery.deliver_effects()
        return Reply(self.t("councilor.join_ok", trial=trial.id, game=trial.game))

    @for_the_club
    async def expire_due_councilor_calls(self) -> None:
        """Each councilor call past its deadline expires, its notices edited and its trial told, both written
        with the expiry."""
        now = self.now()
        expired = False
        for ccall in await self.db.calls.pending_councilor_calls():
            if ccall.deadline > now:
                continue
            trial = await self.db.trials.get(ccall.trial)
            if trial is None:  # unreachable (the trial is the call's foreign key): expired without a word
                await self.db.calls.close_councilor_call(ccall.id, CouncilorCallState.EXPIRED, now)
                continue
            effects = [
                effect.edit_notices(
                    trial.call, f"councilor:{ccall.id}", self.t("councilor.notice_expired", game=trial.game)
                )
            ]
            if trial.is_open:
                effects.append(effect.say_in_trial(trial.call, trial.id, self.t("councilor.expired")))
            expired = (
                await self.db.calls.close_councilor_call(ccall.id, CouncilorCallState.EXPIRED, now, effects) or expired
            )
        if expired:
            await self.delivery.deliver_effects()

    async def finish(self, referee: Member, trial_id: int | None = None, also: Sequence[WithEnd] = ()) -> Reply:
        """Završi suđenje: record the draft (a verdict, or Bez presude with its reason) and, in game, let play go
        on; what `also` writes (a hearing's appeal decided) is written with the end. Without a draft nothing is
        recorded: Bez presude is a decision with a reason ("sa obrazloženjem koje će pročitati eventualni
        sledeći sudija"), written as `/presuda bez -- obrazloženje` like any other."""
        for _ in range(FINISH_TRIES):
            trial = await self.steps.judged_by(referee, trial_id)
            ended = await self._finish(referee, trial, also)
            if ended is not None:
                return ended
            # The draft was replaced while it was checked: Završi records the draft that stands now.
        raise Refused("trial.not_your_trial")

    async def _finish(self, referee: Member, trial: Trial, also: Sequence[WithEnd]) -> Reply | None:
        """Record the trial's draft as read; None when the draft changed meanwhile (nothing written then)."""
        if not trial.draft:
            raise Refused("finish.no_draft", game=trial.game)
        draft = verdict_from_json(trial.draft)
        game = await self.lookups.load_game(trial.game)
        try:
            changes = await self.steps.checked(draft, trial, game)
        except VerdictRefused as refused:
            raise Refused("finish.draft_invalid", why=self.t(refused.key, **refused.params)) from None
        outcome = TrialOutcome.NO_VERDICT if isinstance(draft.verdict, NoVerdict) else TrialOutcome.VERDICT
        with self.voice.club_voice():  # said in the trial's space
            text = self.t(
                "trial.finished",
                game=trial.game,
                verdict=render_verdict(draft, self.voice.messages),
                reason=draft.reason or "—",
            )
        ending = await self._ending_effects(trial, text)
        if not await self.db.trials.finish(
            trial.id,
            outcome,
            self.now(),
            referee.id,
            verdict=verdict_to_json(draft),
            reason=draft.reason or None,
            changes=changes,
            expected_draft=trial.draft,
            # The game server learns the paper the verdict changed with the verdict, before the table resumes.
            effects=[*([self.delivery.paper_effect(trial.game, trial.call)] if changes else []), *ending],
            also=also,
        ):
            fresh = await self.db.trials.get(trial.id)
            if fresh is not None and fresh.is_open and fresh.referee == referee.id and fresh.draft != trial.draft:
                return None
            raise Refused("trial.not_your_trial")
        await self.steps.after_verdict(trial, draft)
        await self._ended(trial)
        return Reply("\n".join([self.t("finish.ok", game=trial.game), *await self.unfinished_lines(trial)]))

    async def unfinished_lines(self, trial: Trial) -> list[str]:
        """What the referee must hear when a platform did not let the trial's space close at its end: the verdict
        is recorded, but the space is not locked (or not closed) yet — tried again, the officials told."""
        lines = []
        for platform, (state, problem) in sorted((await self.db.trials.space_states(trial.id)).items()):
            if state is SpaceState.UNLOCKED:
                lines.append(self.t("finish.unlocked", platform=platform, problem=problem or "—"))
        for payload, error in await self.delivery.chat_outbox.store.waiting(
            effect.queue_of(trial.call), "close_trial_space"
        ):
            if payload.get("trial") == trial.id and error:
                lines.append(self.t("finish.not_closed", error=error[:300]))
        return lines

    async def after_verdict(self, trial: Trial, draft: Draft) -> None:
        """Consequences beyond the paper (penalties, settlement); the penalties part of the desk extends this."""

    @shows_refusals
    async def leave(self, referee: Member, trial_id: int | None = None) -> Reply:
        trial = await self.steps.judged_by(referee, trial_id)
        await self.steps.interrupt(trial, EndReason.REFEREE_LEFT)
        return Reply(self.t("leave.ok"))

    @for_the_club  # the trial's space, the notices and the table
    async def interrupt(self, trial: Trial, why: EndReason, also: Sequence[WithEnd] = ()) -> None:
        """Any end but Završi suđenje: nothing is recorded but the trial itself (and what `also` writes with it:
        a hearing's appeal put back); the players may call again."""
        text = self.t("trial.interrupted", game=trial.game, why=self.t(why.message_key))
        effects = await self._ending_effects(trial, text, why)
        if not await self.db.trials.finish(
            trial.id, TrialOutcome.INTERRUPTED, self.now(), None, end_reason=why, effects=effects, also=also
        ):
            return
        await self._ended(trial)

    @for_the_club  # the trial's space, the notices and the table
    async def _ending_effects(self, trial: Trial, text: str, why: EndReason | None = None) -> list[NewEffect]:
        """What a trial's end says, written with it: the space closes, the councilor calls it cuts short have
        their notices edited, the table resumes (or the caller's offers are unblocked) and is told. A table whose
        game is over (an administrator closed it on the game server) is told so, and nothing resumes it."""
        rows = [effect.close_trial_space(trial.call, trial.id, text)]
        for ccall in await self.db.calls.councilor_calls_for(trial.id):
            if ccall.state is CouncilorCallState.PENDING:  # cancelled by this end (unless taken meanwhile)
                edit = effect.edit_notices(
                    trial.call, f"councilor:{ccall.id}", self.t("councilor.notice_cancelled", game=trial.game)
                )
                rows.append(replace(edit, payload={**edit.payload, "if_cancelled": ccall.id}))
        if trial.in_game:
            if why is EndReason.GAME_CLOSED or not await self.game_goes_on(trial.game):
                rows.append(effect.tell_table(trial.call, trial.game, self.t("table.closed", game=trial.game)))
            else:
                key = state_key("resume", trial.game, "trial", trial.id)
                rows.append(effect.server(trial.call, "resume_table", trial.game, key=key))
                rows.append(effect.tell_table(trial.call, trial.game, self.t("table.resumed")))
        else:
            caller = await self.lookups.nick(trial.caller)
            key = state_key("unblock", caller.casefold(), "trial", trial.id)
            rows.append(effect.server(trial.call, "unblock_offers", caller, key=key))
        return rows

    async def game_goes_on(self, number: int) -> bool:
        """Whether the game is still in progress (its table may play again)."""
        summary = await self.db.games.summary(number)
        return summary is not None and summary.status is GameStatus.IN_PROGRESS

    # A space a platform refused ------------------------------------------------------------------------------
    async def space_refused(self, trial_id: int, platform: str, problem: str) -> SpaceFallback:
        """A platform refused to open the trial's space (`problem`: what it lacks). As the club configured it
        (`[club] space_refused`): the trial goes on through the bot's private relay there — the referee and the
        caller (every party) told at once — or it ends as interrupted; the officials are told what to fix either
        way. A refusal of a space already relayed is told once."""
        trial = await self.db.trials.get(trial_id)
        if trial is None or not trial.is_open:
            return SpaceFallback.INTERRUPT
        interrupt = self.config.space_refused == SpaceFallback.INTERRUPT
        with self.voice.club_voice():
            key = "trial.space_refused_interrupted" if interrupt else "trial.space_refused_officials"
            officials = self.t(key, trial=trial.id, game=trial.game, platform=platform, problem=problem)
        told = [effect.tell_officials(f"space:{trial.id}:{platform}", officials)]
        if not interrupt:
            space = await self.lookups.trial_space(trial)
            for member in space.members:
                async with self.voice.reading(member):
                    text = self.t("trial.space_relayed", trial=trial.id, game=trial.game, platform=platform)
                told.append(effect.tell(trial.call, member.id, text))
        fresh = await self.db.trials.set_space(
            trial.id, platform, SpaceState.RELAYED, problem, self.now(), told, unless=SpaceState.RELAYED
        )
        if interrupt:
            await self.steps.interrupt(trial, EndReason.SPACE_REFUSED)
            return SpaceFallback.INTERRUPT
        if fresh:  # delivered by a further pass of the delivery that met the refusal (behind it, in its queue)
            await self.delivery.deliver_effects()
        return SpaceFallback.RELAY

    async def space_opened(self, trial_id: int, platform: str) -> None:
        """The platform opened the trial's space after all (the permission is back): the parties are told to go
        on there."""
        trial = await self.db.trials.get(trial_id)
        if trial is None:
            return
        space = await self.lookups.trial_space(trial)
        told = []
        for member in space.members:
            async with self.voice.reading(member):
                text = self.t("trial.space_opened", trial=trial.id, game=trial.game, platform=platform)
            told.append(effect.tell(trial.call, member.id, text))
        await self.db.trials.set_space(trial.id, platform, SpaceState.OPEN, None, self.now(), told)
        await self.delivery.deliver_effects()

    async def space_unlocked(self, trial_id: int, platform: str, problem: str) -> None:
        """The platform refused to lock the trial's space at its end: recorded (the referee's answer says so),
        the officials told what to fix — once; the lock is tried again."""
        trial = await self.db.trials.get(trial_id)
        if trial is None:
            return
        with self.voice.club_voice():
            text = self.t("trial.space_unlocked", trial=trial.id, game=trial.game, platform=platform, problem=problem)
        told = [effect.tell_officials(f"space:{trial.id}:{platform}", text)]
        if await self.db.trials.set_space(
            trial.id, platform, SpaceState.UNLOCKED, problem, self.now(), told, unless=SpaceState.UNLOCKED
        ):
            await self.delivery.deliver_effects()

    async def space_locked(self, trial_id: int, platform: str) -> None:
        """The space a platform refused to lock is locked after all."""
        states = await self.db.trials.space_states(trial_id)
        if states.get(platform, (None, None))[0] is SpaceState.UNLOCKED:
            await self.db.trials.set_space(trial_id, platform, SpaceState.LOCKED, None, self.now())

    async def relayed_spaces(self, platform: str) -> list[TrialSpace]:
        """The open trials whose space `platform` refused to open: relayed privately there until it opens."""
        spaces = []
        for trial_id in await self.db.trials.spaces_in(platform, SpaceState.RELAYED):
            trial = await self.db.trials.get(trial_id)
            if trial is not None and trial.is_open:
                spaces.append(await self.lookups.trial_space(trial))
        return spaces

    async def unlocked_spaces(self, platform: str) -> list[TrialSpace]:
        """The ended trials whose space `platform` refused to lock."""
        spaces = []
        for trial_id in await self.db.trials.spaces_in(platform, SpaceState.UNLOCKED):
            trial = await self.db.trials.get(trial_id)
            if trial is not None:
                spaces.append(await self.lookups.trial_space(trial))
        return spaces

    async def _ended(self, trial: Trial) -> None:
        """After a trial's end: its effects delivered, and its referee offered the calls still pending."""
        await self.delivery.deliver_effects()
        referee = await self.db.members.get(trial.referee)
        if referee is not None:
            await self.steps.offer_pending_calls(referee)

    # Events from the platforms and the game server ---------------------------------------------------
    async def member_left_club(self, member: Member, platform: str | None = None) -> None:
        """He left the server or group of `platform`: he leaves the club only when he is gone from every platform
        he is linked on (`platform` None: from the club itself, as the console says)."""
        if platform is not None and await self.db.members.set_account_present(member.id, platform, False):
            return
        await self.db.members.set_in_club(member.id, False, self.now())
        await self.end_trials_of(member)

    async def member_joined(self, member: Member, platform: str) -> None:
        """He is in the server or group of `platform` (a join, a sync, the start's roll call): his account is present
        there, and he is in the club again — unless an officer removed him (`GovernanceDesk.remove_from_club`),
        which only an officer undoes."""
        await self.db.members.set_account_present(member.id, platform, True)
        if not member.in_club and not await self.db.members.removed(member.id):
            await self.db.members.set_in_club(member.id, True, self.now())

    async def end_trials_of(self, member: Member) -> None:
        """Every open trial he judges, and every out-of-game trial he called, ends as interrupted — all of them,
        also when he is a party of another trial at the same time; a call of his still pending is withdrawn (no
        referee should take a call nobody can speak for any more)."""
        pending = await self.db.calls.pending_by_caller(member.id)
        if pending is not None:
            with contextlib.suppress(Refused):  # withdrawn or taken meanwhile: nothing of his left to withdraw
                await self.calls.withdraw(member, pending.id)
        for trial in await self.db.trials.open_trials():
            if trial.referee == member.id:
                await self.steps.interrupt(trial, EndReason.REFEREE_LEFT)
            elif not trial.in_game and trial.caller == member.id:
                await self.steps.interrupt(trial, EndReason.CALLER_LEFT)

    async def game_closed(self, number: int) -> None:
        trial = await self.db.trials.open_for_game(number)
        if trial is not None and trial.in_game:
            await self.steps.interrupt(trial, EndReason.GAME_CLOSED)

    @shows_refusals
    async def administrator_closed(self, number: int) -> Reply:
        """What the game server reports when an administrator closes a game in progress (its `game_closed`
        event), for a club without the link (the console club plays the administrator, `!close GAME`): the game
        is stored interrupted now, its hands as they stand, and its in-game trial ends as an interruption (the
        draft dropped, nothing recorded: "zatvaranje partije od strane administratora … odbacuje nacrt")."""
        game = await self.db.games.get(number)
        if game is None:
            raise Refused("call.unknown_game", game=number)
        if game.status is not GameStatus.IN_PROGRESS:
            raise Refused("close.not_in_progress", game=number)
        ended = replace(game, status=GameStatus.INTERRUPTED, ended_at=self.now(), abandoned_by=())
        outcome = await self.db.games.store([PreparedGame.of(ended)], self.now())
        if outcome.refused:
            raise Refused("close.not_in_progress", game=number)
        await self.game_closed(number)
        return Reply(self.t("close.ok", game=number))

    async def interrupt_offline_referees(self) -> None:
        """A referee shown offline longer than the grace period has disconnected: his trial ends."""
        now = self.now()
        grace = timedelta(seconds=self.config.referee_offline_grace_seconds)
        for trial in await self.db.trials.open_trials():
            referee = await self.db.members.get(trial.referee)
            if referee is None or referee.online or referee.presence_changed_at is None:
                continue
            if now - referee.presence_changed_at >= grace:
                await self.steps.interrupt(trial, EndReason.REFEREE_DISCONNECTED)
