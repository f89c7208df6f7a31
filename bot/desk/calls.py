"""Calling a referee: `/sudija [game]`, withdrawing, late-arriving referees and expiry.

The rules are `rules.eligibility`'s; this module orders the steps, writes through storage and tells people.
"""

from __future__ import annotations

from datetime import timedelta

from bot import chat_outbox as effect
from bot import metrics
from bot.desk.base import DeskBase
from bot.desk.deps import shows_refusals
from bot.desk.refused import Refused
from bot.i18n.reader import for_the_club
from bot.ports import Action, Button, CallPost, Channel, Reply
from rules.eligibility import (
    GameFacts,
    Refusal,
    RefusalReason,
    check_game,
    eligible_referees,
    within_window,
)
from rules.gamelog import GameStatus
from rules.members import Role
from storage.calls import AlreadyPending, Call
from storage.chat_outbox import NewEffect
from storage.members import Member
from storage.states import CallState


class CallDesk(DeskBase):
    @shows_refusals
    async def call(self, caller: Member, number: int | None) -> Reply:
        """/sudija [game]: check every rule, open the call, notify the referees in the lobby."""
        await self.expire_due_calls()  # a call past its deadline has ended, whether or not a timer fired
        now = self.now()
        ban = await self.db.members.call_ban(caller.id)
        if ban is not None and (ban.until is None or ban.until > now):
            if ban.until is None:
                raise Refused("call.denied_forever")
            raise Refused("call.denied_until", until=ban.until)
        if number is None:
            facts = await self.default_game(caller)
            if facts is None:
                raise Refused("call.nothing_eligible", days=self.config.claim_days)
        else:
            facts = await self.lookups.game_facts(number)
        paused = await self.db.trials.pause_intervals(facts.number, now) if facts else []
        refusal = check_game(facts, caller.nick, now, paused, self.lookups.claim_window, number)
        if refusal is not None:
            raise self.refused(refusal)
        assert facts is not None
        in_the_way = await self.db.calls.in_the_way(facts.number, caller.id)
        pending = in_the_way.game_call
        if pending is not None and pending.caller == caller.id:
            # "Poziv se povlači ponovnim pritiskom na isto dugme": the same call again is not a new one; he is
            # shown how to withdraw it (the button, or /povuci), never a second call.
            return Reply(
                self.t("call.yours_pending", game=facts.number, until=pending.deadline),
                (Button(self.t(Action.WITHDRAW.label_key), Action.WITHDRAW, pending.id, "danger"),),
                ok=False,
            )
        if pending is not None or in_the_way.trial_open:
            raise Refused("call.already_open", game=facts.number)
        mine = in_the_way.callers_call
        if mine is not None:
            raise Refused("call.caller_has_pending", game=mine.game)
        in_game = facts.status is GameStatus.IN_PROGRESS
        deadline = now + self.lookups.call_time
        referees = await self._referees_to_notify(facts, caller.id)
        with self.voice.club_voice():  # the referees' channel (its private copies edited with it)
            notice = self.t(
                "call.notice_in_game" if in_game else "call.notice_out_of_game",
                game=facts.number,
                caller=caller.nick,
                until=deadline,
            )

        def effects(call_id: int) -> list[NewEffect]:
            # The call's notice to the referees and the table's line, written with the call, in the club's words.
            with self.voice.club_voice():
                rows = [effect.post_call(call_id, self._call_post(call_id, notice, referees))]
                if in_game:
                    rows.append(effect.tell_table(call_id, facts.number, self.t("table.called", nick=caller.nick)))
            return rows

        try:
            call = await self.db.calls.create(facts.number, caller.id, in_game, now, deadline, effects)
        except AlreadyPending:
            raise Refused("call.already_open", game=facts.number) from None
        self.deps.timers.arm(call.deadline)
        await self.delivery.deliver_effects()
        return Reply(
            self.t("call.ok", game=call.game, minutes=self.config.call_minutes),
            (Button(self.t(Action.WITHDRAW.label_key), Action.WITHDRAW, call.id, "danger"),),
        )

    def refused(self, refusal: Refusal) -> Refused:
        """The refusal to raise for a call the eligibility rules refuse."""
        p = refusal.params
        if refusal.reason is RefusalReason.TOO_OLD:
            consumed = p["consumed"]
            assert isinstance(consumed, timedelta)
            return Refused(
                "call.too_old", game=p["game"], ended_at=p["ended_at"], consumed=consumed, days=self.config.claim_days
            )
        return Refused(f"call.{refusal.reason.value}", **p)

    async def default_game(self, caller: Member) -> GameFacts | None:
        """Without a number: the table he sits at, else his last rated game without AI that ended or was
        interrupted within the window; a game still in progress is reached only from its table."""
        if caller.seated_game is not None:
            seated = await self.lookups.game_facts(caller.seated_game)
            if seated is not None:
                return seated
        now = self.now()
        # Pauses can stretch a window, so look further back than 7 days and let the rule decide.
        for summary in await self.db.games.ended_since(caller.nick, now - 4 * self.lookups.claim_window):
            if not summary.judgeable:
                continue
            facts = await self.lookups.game_facts(summary.number)
            assert facts is not None
            if facts.status is GameStatus.IN_PROGRESS:
                continue
            if within_window(
                facts, now, await self.db.trials.pause_intervals(facts.number, now), self.lookups.claim_window
            ):
                return facts
        return None

    async def _referees_to_notify(self, facts: GameFacts, caller: int) -> tuple[Member, ...]:
        lobby = await self.lookups.lobby(Role.REFEREE)
        eligible = {r.member_id for r in eligible_referees([facts for _, facts in lobby], facts, caller)}
        return tuple(m for m, _ in lobby if m.id in eligible)

    def _call_post(self, call_id: int, text: str, members: tuple[Member, ...]) -> CallPost:
        return CallPost(
            f"call:{call_id}",
            text,
            members,
            (Button(self.t(Action.TAKE.label_key), Action.TAKE, call_id),),
            members if self.config.direct_messages else (),
            channel=Channel.REFEREES,
        )

    def call_text(self, call: Call, caller: str) -> str:
        key = "call.notice_in_game" if call.in_game else "call.notice_out_of_game"
        return self.t(key, game=call.game, caller=caller, until=call.deadline)

    @for_the_club  # a private copy of the channel's notice, edited with the others
    async def offer_pending_calls(self, member: Member) -> None:
        """A referee or councilor just became eligible (came to the lobby, went on duty, stood up, finished a
        trial): he finds every call still pending that he may take, as a private copy edited with the others.
        The copy is written with his ping, in the queue of the call it copies, and delivered after it."""
        facts_self = await self.lookups.referee_facts(member)
        offered = False
        if member.is_referee:
            for call in await self.db.calls.pending():
                facts = await self.lookups.game_facts(call.game)
                if facts is None or not eligible_referees([facts_self], facts, call.caller):
                    continue
                post = CallPost(
                    f"call:{call.id}",
                    self.call_text(call, await self.lookups.nick(call.caller)),
                    (member,),
                    (Button(self.t(Action.TAKE.label_key), Action.TAKE, call.id),),
                    channel=Channel.REFEREES,
                )
                copy = [effect.offer_call(call.id, member.id, post)]
                offered = await self.db.calls.add_ping(call.id, member.id, self.now(), copy) or offered
        if Role.COUNCILOR in member.roles:
            for ccall in await self.db.calls.pending_councilor_calls():
                trial = await self.db.trials.get(ccall.trial)
                facts = await self.lookups.game_facts(trial.game) if trial is not None else None
                if trial is None or facts is None or not eligible_referees([facts_self], facts, trial.caller):
                    continue
                if member.id in {p.member for p in await self.db.trials.participants(trial.id)}:
                    continue
                post = CallPost(
                    f"councilor:{ccall.id}",
                    self.t("councilor.notice", game=trial.game, until=ccall.deadline),
                    (member,),
                    (Button(self.t(Action.JOIN.label_key), Action.JOIN, ccall.id),),
                    channel=Channel.COUNCILORS,
                )
                copy = [effect.offer_call(trial.call, member.id, post)]
                offered = await self.db.calls.add_councilor_ping(ccall.id, member.id, self.now(), copy) or offered
        if offered:  # through the chat outbox, as the call's other words: from any process, in its queue's order
            await self.delivery.deliver_effects()

    @shows_refusals
    async def withdraw(self, caller: Member, call_id: int | None = None) -> Reply:
        """The caller's button (or /povuci) withdraws the call while no referee has taken it and its deadline has
        not passed."""
        call = (
            await self.db.calls.get(call_id)
            if call_id is not None
            else await self.db.calls.pending_by_caller(caller.id)
        )
        if call is None:
            raise Refused("withdraw.none")
        if call.caller != caller.id:
            raise Refused("withdraw.not_yours")
        if call.state is CallState.PENDING and call.deadline <= self.now():
            # The deadline is the law: a withdrawal after it (a timer that never ran, the bot down meanwhile)
            # finds the call expired, and it is recorded so, at its deadline.
            await self.expire_call(call)
            raise Refused("withdraw.expired", game=call.game)
        if call.state is not CallState.PENDING:
            raise Refused(f"withdraw.{call.state}", referee=await self.lookups.nick(call.referee))
        with self.voice.club_voice():  # the notices and the table
            effects = [
                effect.edit_notices(
                    call.id, f"call:{call.id}", self.t("call.notice_withdrawn", game=call.game, caller=caller.nick)
                )
            ]
            if call.in_game:
                effects.append(effect.tell_table(call.id, call.game, self.t("table.withdrawn", nick=caller.nick)))
        if not await self.db.calls.close(call.id, CallState.WITHDRAWN, self.now(), caller.id, effects):
            raise Refused("withdraw.too_late")
        await self.delivery.deliver_effects()
        return Reply(self.t("withdraw.ok", game=call.game))

    async def expire_due_calls(self) -> None:
        now = self.now()
        for call in await self.db.calls.pending():
            if call.deadline > now:
                continue
            if await self.expire_call(call):
                metrics.deadline_acted(self.config.club_id, "call", (self.now() - call.deadline).total_seconds())

    @for_the_club
    async def expire_call(self, call: Call) -> bool:
        """The call's deadline has passed: it expires now (whether or not a timer fired); False when another
        wake-up or press got there first."""
        now = self.now()
        caller = await self.db.members.get(call.caller)
        effects = [
            effect.edit_notices(
                call.id,
                f"call:{call.id}",
                self.t("call.notice_expired", game=call.game, caller=caller.nick if caller else "—"),
            )
        ]
        if caller is not None:
            async with self.voice.reading(caller):
                told = self.t("call.expired", game=call.game, minutes=self.config.call_minutes)
            effects.append(effect.tell(call.id, caller.id, told))
        if call.in_game:
            effects.append(effect.tell_table(call.id, call.game, self.t("table.expired")))
        if not await self.db.calls.close(call.id, CallState.EXPIRED, now, None, effects):
            return False
        await self.delivery.deliver_effects()
        return True
