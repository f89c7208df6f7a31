"""The councilors' votes: "Većnici dogovorom odlučuju o prijemu i razrešenju sudija i većnika".

A councilor who appoints or dismisses a referee or councilor (`/postavi`, `/razresi`) proposes it: a vote of all
councilors opens for `governance.vote_days`, announced in the councilors' channel with Da / Ne buttons (and
`/glasaj`), each ballot changeable until the vote closes. It closes as soon as its outcome is certain or at its
deadline (a durable deadline acted on by `run_due`), carried by the configured majority of all councilors
(`rules.votes`); then the act is done. A single councilor never appoints or dismisses anyone: a proposal needs
at least two ayes. The owner appoints alone, and dismisses alone only with the grave violation stated as the
reason; the admin at the server (`actor=None`) acts alone. Every ballot and every vote is an event in `/akti`.

The vote's notice, its edit when it closes, the proposer told and the member it appointed or dismissed told are
outbox rows (`bot.chat_outbox`, queue ``vote:N``) written with the opening and with the closing — the closing
carries out the act in the same transaction — delivered at once after the commit and after a crash. What follows
the act is done again on start where a crash left it undone: the appointed member offered the calls waiting, for
the votes carried lately (`resume_carried`); the dismissed one's trial ended, by the start's check of every open
trial's judge.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot import chat_outbox as effect
from bot.desk.base import DeskBase
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.governance import GovernanceDesk, refuse_departed, shown_roles
from bot.desk.links import LinkDesk
from bot.desk.refused import Refused
from bot.i18n.reader import speaking
from bot.ports import Action, Button, CallPost, Channel, Reply
from rules.members import VOTED_ROLES, Role
from rules.nicknames import is_blank
from rules.votes import Outcome, Tally, outcome, parse_majority, tally
from storage.chat_outbox import NewEffect
from storage.councils import AlreadyOpen, Vote, VoteAct
from storage.database import parse_stored_time
from storage.events import Event
from storage.members import Member
from storage.states import VoteAction, VoteState

VOTE_EVENTS = ("vote_opened", "vote_cast", "vote_closed")
GRAVE_VIOLATION = "teze_krsenje"  # the owner's lone dismissal: its ground, chosen on its own (`/razresi … osnov`)


def queue(vote_id: int) -> str:
    """The chat outbox's queue of a vote's effects: they arrive in the order written."""
    return f"vote:{vote_id}"


class VoteDesk(DeskBase):
    """The councilors' votes; they extend governance's appointing, dismissing and resigning (`governance`) and
    the acts' texts as links tell them (`links`)."""

    def __init__(self, deps: DeskDeps, governance: GovernanceDesk, links: LinkDesk, steps: Steps) -> None:
        super().__init__(deps)
        self.governance = governance
        self.links = links
        self.steps = steps

    def by_vote(self, actor: Member | None, role: Role) -> bool:
        """A councilor's act on a referee or councilor is a proposal to vote on; the owner and the admin act."""
        return (
            actor is not None
            and not self.lookups.is_owner(actor)
            and role in VOTED_ROLES
            and Role.COUNCILOR in actor.roles
        )

    @shows_refusals
    async def appoint(self, actor: Member | None, nick: str, role: Role, reason: str = "") -> Reply:
        if not self.by_vote(actor, role):
            return await self.governance.appoint(actor, nick, role, reason)
        assert actor is not None
        return await self.propose(actor, nick, role, VoteAction.APPOINT, reason)

    @shows_refusals
    async def dismiss(
        self, actor: Member | None, nick: str, role: Role, reason: str, ground: str | None = None
    ) -> Reply:
        """/razresi: a councilor proposes (a vote); the owner dismisses alone only on the ground chosen explicitly,
        GRAVE_VIOLATION ("teže kršenje pravila"), with the violation stated, and the councilors are told; the admin
        at the server acts alone."""
        if not self.by_vote(actor, role):
            if actor is None or not self.lookups.is_owner(actor):
                return await self.governance.dismiss(actor, nick, role, reason)
            if ground != GRAVE_VIOLATION:
                raise Refused("vote.owner_needs_grave")
            councilors = [m for m in await self.db.members.with_role(Role.COUNCILOR) if m.in_club]
            languages = await self.voice.reader_languages(m.id for m in councilors)

            def announced(target: Member) -> list[NewEffect]:
                rows = []
                for councilor in councilors:
                    if councilor.id in (target.id, actor.id):
                        continue
                    with speaking(languages[councilor.id]):
                        text = self.t(
                            "vote.owner_grave_told",
                            owner=actor.nick,
                            nick=target.nick,
                            role=self.t(f"role.{role}"),
                            reason=reason,
                        )
                    rows.append(self.delivery.told(councilor.id, text))
                return rows

            reply = await self.governance.dismiss(actor, nick, role, reason, announced)
            return Reply(f"{reply.text}\n{self.t('vote.owner_grave', reason=reason)}")
        assert actor is not None
        return await self.propose(actor, nick, role, VoteAction.DISMISS, reason)

    @shows_refusals
    async def resign(self, member: Member, role: Role, reason: str = "") -> Reply:
        reply = await self.governance.resign(member, role, reason)
        if reply.ok:
            await self.settle_votes()  # the electorate changed
        return reply

    @shows_refusals
    async def deny_call(self, actor: Member | None, nick: str, until: datetime | None, reason: str) -> Reply:
        """/uskrati: denying the right to call is a penalty — the owner's act (or the admin's at the server), or a
        councilors' vote that a single councilor proposes; a councilor never denies it alone."""
        if actor is None or self.lookups.is_owner(actor) or Role.COUNCILOR not in actor.roles:
            return await self.governance.deny_call(actor, nick, until, reason)
        if is_blank(reason):
            raise Refused("gov.reason_required")
        if until is not None and until <= self.now():
            raise Refused("gov.until_past", until=until)
        return await self.propose(actor, nick, None, VoteAction.DENY_CALL, reason, until)

    def subject_text(self, role: Role | str | None, action: VoteAction, until: datetime | None) -> str:
        """What a vote is about, after its member's nickname: the function, or the right to call and how long."""
        if action is VoteAction.DENY_CALL:
            return self.t("vote.call_forever") if until is None else self.t("vote.call_until", until=until)
        return self.t(f"role.{role}")

    # Proposing -------------------------------------------------------------------------------------------
    async def councilor_ids(self) -> set[int]:
        return {m.id for m in await self.db.members.with_role(Role.COUNCILOR) if m.in_club}

    async def propose(
        self,
        proposer: Member,
        nick: str,
        role: Role | None,
        action: VoteAction,
        reason: str,
        until: datetime | None = None,
    ) -> Reply:
        target = await self.governance._target(nick)
        if action is VoteAction.APPOINT:
            refuse_departed(target)
        if target.id == proposer.id:
            raise Refused("gov.not_self" if action is VoteAction.APPOINT else "vote.not_self_proposal")
        if action is not VoteAction.APPOINT and is_blank(reason):
            raise Refused("gov.reason_required")
        reason = reason.strip() or "—"
        holds = role in target.roles
        if action is VoteAction.APPOINT and holds:
            raise Refused("gov.already", nick=target.nick, role=self.t(f"role.{role}"))
        if action is VoteAction.DISMISS and not holds:
            raise Refused("gov.not_holding", nick=target.nick, role=self.t(f"role.{role}"))
        electorate = await self.councilor_ids() - {target.id}
        if len(electorate) < 2:
            raise Refused("vote.too_few", count=len(electorate))
        now = self.now()
        deadline = now + timedelta(days=self.config.governance.vote_days)
        voters = tuple(m for m in await self.db.members.with_role(Role.COUNCILOR) if m.id in electorate)

        def effects(vote_id: int) -> list[NewEffect]:
            # The notice to the councilors' channel, written with the vote.
            with self.voice.club_voice():
                text = self.notice_text(vote_id, proposer.nick, target.nick, role, action, reason, deadline, until)
                post = CallPost(
                    f"councilor:vote:{vote_id}",
                    text,
                    voters,
                    self.vote_buttons(vote_id),
                    voters,
                    channel=Channel.COUNCILORS_ONLY,
                )
                return [effect.post_notice(queue(vote_id), post)]

        try:
            vote = await self.db.votes.open_vote(
                proposer.id, target.id, role or None, action, reason, now, deadline, effects, until
            )
        except AlreadyOpen:
            raise Refused("vote.already_open", nick=target.nick, role=self.subject_text(role, action, until)) from None
        self.deps.timers.arm(deadline)
        await self.delivery.deliver_effects()
        closed = await self.settle(vote)
        t = await self.vote_tally(vote)
        return Reply(
            self.t(
                "vote.opened",
                vote=vote.id,
                nick=target.nick,
                role=self.subject_text(role, action, until),
                action=self.t(f"vote.action_{action}"),
                until=deadline,
                needed=t.needed,
                electorate=t.electorate,
            )
            + (f"\n{closed}" if closed else "")
        )

    def vote_buttons(self, vote_id: int) -> tuple[Button, ...]:
        return (
            Button(self.t(Action.VOTE_YES.label_key), Action.VOTE_YES, vote_id),
            Button(self.t(Action.VOTE_NO.label_key), Action.VOTE_NO, vote_id, "danger"),
        )

    def notice_text(
        self,
        vote_id: int,
        proposer: str,
        subject: str,
        role: Role | None,
        action: VoteAction,
        reason: str,
        until: datetime,
        denied_until: datetime | None = None,
    ) -> str:
        return self.t(
            "vote.notice",
            vote=vote_id,
            proposer=proposer,
            nick=subject,
            role=self.subject_text(role, action, denied_until),
            action=self.t(f"vote.action_{action}"),
            reason=reason,
            until=until,
        )

    # Voting ------------------------------------------------------------------------------------------------
    def vote_actions(self) -> dict[Action, Callable[[Member, int], Awaitable[Reply]]]:
        return {Action.VOTE_YES: self.vote_yes, Action.VOTE_NO: self.vote_no}

    async def vote_yes(self, member: Member, vote_id: int) -> Reply:
        return await self.cast(member, vote_id, True)

    async def vote_no(self, member: Member, vote_id: int) -> Reply:
        return await self.cast(member, vote_id, False)

    @shows_refusals
    async def cast(self, member: Member, vote_id: int, yes: bool) -> Reply:
        """Da / Ne (or /glasaj): a councilor's ballot, changeable until the vote closes."""
        vote = await self.db.votes.get(vote_id)
        if vote is None:
            raise Refused("vote.unknown", vote=vote_id)
        if Role.COUNCILOR not in member.roles:
            raise Refused("vote.not_councilor")
        if member.id == vote.subject:
            raise Refused("vote.not_on_himself")
        if vote.is_open and vote.deadline <= self.now():
            await self.settle(vote)  # the deadline is the law, whether or not a timer fired
            vote = await self.db.votes.get(vote_id) or vote
        if not vote.is_open or not await self.db.votes.cast(vote.id, member.id, yes, self.now()):
            fresh = await self.db.votes.get(vote_id) or vote
            raise Refused("vote.closed", vote=vote_id, state=self.t(f"vote.state_{fresh.state}"))
        closed = await self.settle(vote)
        t = await self.vote_tally(vote)
        text = self.t(
            "vote.cast",
            vote=vote.id,
            ballot=self.t("vote.yes" if yes else "vote.no"),
            yes=t.yes,
            no=t.no,
            electorate=t.electorate,
            needed=t.needed,
        )
        return Reply(f"{text}\n{closed}" if closed else text)

    async def vote_tally(self, vote: Vote) -> Tally:
        return tally(
            await self.db.votes.ballots(vote.id),
            await self.councilor_ids(),
            vote.subject,
            parse_majority(self.config.governance.majority),
        )

    # Closing -----------------------------------------------------------------------------------------------
    async def settle_votes(self) -> None:
        for vote in await self.db.votes.open_votes():
            await self.settle(vote)

    async def settle(self, vote: Vote) -> str | None:
        """Close the vote when its outcome is certain (or its deadline passed) and do what it decided; the text
        announcing the result, None while it stays open."""
        t = await self.vote_tally(vote)
        result = outcome(t, self.now() >= vote.deadline)
        if result is Outcome.UNDECIDED:
            return None
        state = VoteState.CARRIED if result is Outcome.CARRIED else VoteState.FAILED
        subject = await self.db.members.get(vote.subject)
        nick = subject.nick if subject else "?"

        def text() -> str:
            return self.t(
                f"vote.closed_{state}",
                vote=vote.id,
                nick=nick,
                role=self.subject_text(vote.role, vote.action, vote.until),
                action=self.t(f"vote.action_{vote.action}"),
                yes=t.yes,
                no=t.no,
                electorate=t.electorate,
                needed=t.needed,
            )

        with self.voice.club_voice():
            effects = [effect.edit_notices(queue(vote.id), f"councilor:vote:{vote.id}", text())]
        proposer = await self.db.members.get(vote.proposer)
        if proposer is not None:
            async with self.voice.reading(proposer):
                effects.append(effect.tell(queue(vote.id), proposer.id, text()))
        act = await self.act(vote, subject) if state is VoteState.CARRIED and subject is not None else None
        closed = await self.db.votes.close(vote.id, state, self.now(), t.yes, t.no, t.electorate, effects, act)
        if closed is None:
            return None
        await self.delivery.deliver_effects()
        if closed.acted and subject is not None:
            await self.carried_out(vote, subject)
        await self.settle_votes()  # a dismissed councilor leaves the other votes' electorate
        return text()

    async def act(self, vote: Vote, subject: Member) -> VoteAct:
        """What the carried vote does, written with its closing: the role's change by the proposer, and the
        member told (only if it changes anything: he may have resigned or been appointed meanwhile); a vote on the
        right to call denies it (until its `until`), the member told."""
        appoint = vote.action is VoteAction.APPOINT
        with self.voice.club_voice():  # recorded with the role's change
            why = self.t("vote.act_reason", vote=vote.id, reason=vote.reason)
        if vote.action is VoteAction.DENY_CALL:
            async with self.voice.reading(subject):
                denied = (
                    self.t("gov.told_denied_forever", reason=why)
                    if vote.until is None
                    else self.t("gov.told_denied_until", until=vote.until, reason=why)
                )
            return VoteAct(True, vote.proposer, why, [effect.tell(queue(vote.id), subject.id, denied)])
        async with self.voice.reading(subject):
            key = "gov.told_appointed" if appoint else "gov.told_dismissed"
            told = effect.tell(queue(vote.id), subject.id, self.t(key, role=self.t(f"role.{vote.role}"), reason=why))
        return VoteAct(appoint, vote.proposer, why, [told, shown_roles(subject.id)])

    async def carried_out(self, vote: Vote, subject: Member) -> None:
        """After the act: an appointed member is offered what waits; a dismissed one stops judging."""
        if vote.action is VoteAction.DENY_CALL or vote.role is None:
            return  # the denial is the call ban written with the closing: the next /sudija reads it
        if vote.action is VoteAction.APPOINT:
            fresh = await self.db.members.get(subject.id)
            if fresh is not None:
                await self.steps.offer_pending_calls(fresh)
        else:
            await self.steps.end_judging_without_function(subject, vote.role)

    async def resume_carried(self, since: datetime) -> None:
        """On start: what an appointing vote carried since `since` does after its closing is done again where it is
        not done yet (the process may have died between the closing's commit and it): the appointed member is
        offered what waits (each offer written once with its ping: nothing is offered twice). A dismissed
        member's trial is ended by the start's check of every open trial (`AppealDesk.end_trials_without_function`),
        however long ago the vote closed."""
        for vote in await self.db.votes.carried_since(since):
            if vote.action is not VoteAction.APPOINT:
                continue
            subject = await self.db.members.get(vote.subject)
            if subject is not None and subject.in_club and vote.role in subject.roles:
                await self.carried_out(vote, subject)

    async def vote_deadlines(self) -> list[datetime]:
        return [v.deadline for v in await self.db.votes.open_votes()]

    # The acts ------------------------------------------------------------------------------------------------
    def act_text(self, event: Event, names: dict[int, str]) -> str:
        if event.kind not in VOTE_EVENTS:
            return self.links.act_text(event, names)
        data = event.data
        whom = names.get(int(event.subject), "?") if event.subject and event.subject.isdigit() else "?"
        who = names.get(event.actor, "?") if event.actor is not None else ""
        params: dict[str, object] = {"at": event.at, "who": who, "whom": whom, "vote": data.get("vote", "?")}
        if event.kind == "vote_cast":
            params["ballot"] = self.t("vote.yes" if data.get("yes") else "vote.no")
        else:
            action = VoteAction(str(data.get("action", "appoint")))
            params.update(
                role=self.subject_text(str(data.get("role") or ""), action, None),
                action=self.t(f"vote.action_{action}"),
            )
        if event.kind == "vote_opened":
            until = data.get("until")
            params.update(
                reason=data.get("reason") or "—", until=parse_stored_time(until) if isinstance(until, str) else "—"
            )
        if event.kind == "vote_closed":
            params.update(
                state=self.t(f"vote.state_{data.get('state', 'failed')}"),
                yes=data.get("yes", 0),
                no=data.get("no", 0),
                electorate=data.get("electorate", 0),
            )
        return self.t(f"act.{event.kind}", **params)
