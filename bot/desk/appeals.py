"""Appeals: "Eventualne žalbe rešavaju većnici".

A party of a recorded trial (its caller, a player at its table, or a member its verdict names) files one appeal
against it (`/zalba SUĐENJE [KIND] [-- text]`) within the window of the appeal's kind (`[appeals]`, counted from
when the verdict was recorded), unless an appeal restriction stands against him. The appeal goes to the
councilors' channel with a **Preuzmi** button — a claim like Sudi: exactly one councilor wins however many press,
the councilors in the lobby are pinged, one who arrives later is offered it, and when nobody took it within the
call's minutes every eligible councilor is told; a councilor who took part in that trial (or is named by it) is
never offered it and may not take it. The winner sees the trial with its transcript and verdict and hears the
appellant in a private space — the hearing, a trial of the same game he judges — and decides:

- upheld: he drafts the new verdict in the hearing (`/presuda`) and ends it (Završi suđenje or `/resi … usvojena`);
  the hearing's verdict supersedes the old one by the one-penalty rule, the old record is never edited. Where the
  club allows only the lifting of a wrongly given penalty (`may_change = "lift"`), the new verdict is (niko) and the
  appealed verdict must have been a penalty;
- rejected or inadmissible (`/resi … odbijena|nedopustena [dana N] -- reason`): the hearing ends without a
  verdict, and where configured the appellant gets an appeal restriction, which refuses his next appeals but
  neither calls nor play.

The hearing is an out-of-game trial in every other way: the appellant's game offers are blocked while it is on,
its conversation is its transcript. The review deadline (`review_days`) has a reminder to the councilors.
`/presude` lists every appeal with the trial it concerns. The hearing ending otherwise (the councilor left or
disconnected) puts the appeal back for Preuzmi.

Every chat effect of these decisions (the notice posted, offered, edited; the appellant and councilors told; the
hearing's space opened) is an outbox row written with the decision (`bot.chat_outbox`, queue ``appeal:N``; the
hearing's own space in its call's queue, as every trial's), delivered at once after the commit and after a crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence, Set
from datetime import datetime, timedelta

from bot import chat_outbox as effect
from bot.desk.base import DeskBase
from bot.desk.calls import CallDesk
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.governance import GovernanceDesk
from bot.desk.refused import Refused
from bot.desk.trials import TrialDesk
from bot.i18n.reader import for_the_club
from bot.ports import Action, Button, CallPost, Channel, Document, Reply, TrialSpace, Upload
from bot.views import render_appeals, render_verdict
from rules.appeals import kinds_text, restriction_days, within_window
from rules.gamelog import GameStatus
from rules.members import PartyRole, Role
from rules.nicknames import is_blank
from rules.verdicts import (
    BulaChange,
    Draft,
    FallTransfer,
    Nobody,
    NoVerdict,
    Penalty,
    verdict_from_json,
    verdict_to_json,
)
from storage.chat_outbox import NewEffect
from storage.councils import AlreadyOpen, Appeal, NewFile
from storage.database import now_text
from storage.errors import Conflict
from storage.members import Member
from storage.states import AppealState, EndReason, TrialOutcome
from storage.trials import Trial

OUTCOMES = {"usvojena": AppealState.UPHELD, "odbijena": AppealState.REJECTED, "nedopustena": AppealState.INADMISSIBLE}


def queue(appeal_id: int) -> str:
    """The chat outbox's queue of an appeal's effects: they arrive in the order written."""
    return f"appeal:{appeal_id}"


class AppealDesk(DeskBase):
    """Appeals; a hearing is a trial (`trials`), and appeals extend how one is judged, finished and
    interrupted, an official arriving (`calls`) and one losing his function (`governance`)."""

    def __init__(
        self, deps: DeskDeps, calls: CallDesk, trials: TrialDesk, governance: GovernanceDesk, steps: Steps
    ) -> None:
        super().__init__(deps)
        self.calls = calls
        self.trials = trials
        self.governance = governance
        self.steps = steps
        self._appeal_locks: dict[int, asyncio.Lock] = {}  # presses on one appeal, queued (the DB still decides)

    # Filing --------------------------------------------------------------------------------------------------
    async def named_in(self, trial: Trial) -> set[int]:
        """The members the trial's verdict names (a penalty's culprit, a bula change's players)."""
        if trial.verdict is None:
            return set()
        verdict = verdict_from_json(trial.verdict).verdict
        nicks: list[str] = []
        if isinstance(verdict, Penalty | FallTransfer):
            nicks.append(verdict.culprit)
        elif isinstance(verdict, BulaChange):
            nicks += list(verdict.amounts)
        members = [await self.db.members.by_nick(n) for n in nicks]
        return {m.id for m in members if m is not None}

    async def parties_of(self, trial: Trial) -> set[int]:
        """Who may appeal: the trial's caller and players, and whoever its verdict names."""
        return {
            p.member
            for p in await self.db.trials.participants(trial.id)
            if p.role in (PartyRole.CALLER, PartyRole.PLAYER)
        } | await self.named_in(trial)

    async def took_part(self, trial: Trial) -> set[int]:
        """Who may not hear an appeal against it: everyone in that trial (referee, councilor, parties) and whoever
        its verdict names."""
        return {p.member for p in await self.db.trials.participants(trial.id)} | await self.named_in(trial)

    @shows_refusals
    async def file_appeal(self, member: Member, trial_id: int, kind_name: str | None, text: str) -> Reply:
        now = self.now()
        rules = self.config.appeals
        ban = await self.db.appeals.ban(member.id)
        if ban is not None and ban.until > now:
            raise Refused("appeal.restricted", until=ban.until)
        if rules.reports:
            # This club's appeals are reports of an incident in a game, not of a verdict (its own rules).
            raise Refused("appeal.reports_here")
        trial = await self.db.trials.get(trial_id)
        if trial is None:
            raise Refused("appeal.unknown_trial", trial=trial_id)
        if trial.outcome not in (TrialOutcome.VERDICT, TrialOutcome.NO_VERDICT) or trial.closed_at is None:
            raise Refused("appeal.not_recorded", trial=trial_id)
        if await self.db.appeals.by_hearing(trial.id) is not None:
            raise Refused("appeal.of_a_hearing", trial=trial_id)
        if member.id not in await self.parties_of(trial):
            raise Refused("appeal.not_a_party", trial=trial_id)
        appealed = verdict_from_json(trial.verdict) if trial.verdict else Draft(NoVerdict(), "")
        if rules.may_change == "lift" and not isinstance(appealed.verdict, Penalty):
            # Where an upheld appeal may only lift a penalty, an appeal against anything else (a bula change,
            # a settlement, Bez presude) could never change anything: it is refused, saying why.
            raise Refused(
                "appeal.nothing_to_lift", trial=trial_id, verdict=render_verdict(appealed, self.voice.messages)
            )
        kind = rules.kind(kind_name)
        if kind is None:
            raise Refused("appeal.unknown_kind", kind=kind_name, kinds=kinds_text(rules.kinds))
        window = within_window(kind, trial.closed_at, now)
        if not window.allowed:
            raise Refused("appeal.too_late", trial=trial_id, kind=kind.name, days=kind.days, deadline=window.deadline)
        excluded = await self.took_part(trial) | {member.id}

        def notice(appeal_id: int) -> str:
            return self.notice_text(appeal_id, trial, kind.name, member.nick, text.strip())

        appeal = await self._file(member, trial.id, trial.game, kind.name, text, notice, excluded, ())
        if appeal is None:
            raise Refused("appeal.already", trial=trial_id)
        return Reply(
            self.t("appeal.filed", appeal=appeal.id, trial=trial.id, kind=kind.name, until=appeal.review_deadline)
        )

    @shows_refusals
    async def file_report(
        self, member: Member, number: int, kind_name: str | None, text: str, files: Sequence[Upload] = ()
    ) -> Reply:
        """/prijava PARTIJA [VRSTA] [-- opis], with the table's chat attached: the third club's "апелляция", a
        report of an incident in a game. Any player of the game files one within its kind's window from the game's
        end (the call window does not apply); a kind that must carry the table's chat is refused without it; what
        the club never reviews is refused with its reason; an appeal restriction (умиротворитель) refuses it."""
        now = self.now()
        rules = self.config.appeals
        if not rules.reports:
            raise Refused("report.not_here")
        ban = await self.db.appeals.ban(member.id)
        if ban is not None and ban.until > now:
            raise Refused("appeal.restricted", until=ban.until)
        facts = await self.lookups.game_facts(number)
        if facts is None:
            raise Refused("call.unknown_game", game=number)
        if not facts.played_by(member.nick):
            raise Refused("report.not_a_player", game=number)
        if facts.status is GameStatus.IN_PROGRESS or facts.ended_at is None:
            raise Refused("report.game_in_progress", game=number)
        never = rules.not_reviewed(kind_name)
        if never is not None:
            raise Refused("report.not_reviewed", what=never.description)
        kind = rules.kind(kind_name)
        if kind is None:
            raise Refused("appeal.unknown_kind", kind=kind_name, kinds=kinds_text(rules.kinds))
        window = within_window(kind, facts.ended_at, now)
        if not window.allowed:
            raise Refused("report.too_late", game=number, kind=kind.name, days=kind.days, deadline=window.deadline)
        if kind.attachment and not files:
            raise Refused("report.attachment_needed", kind=kind.name)
        limit = rules.attachment_max_kb * 1024
        for upload in files:
            if len(upload.data) > limit or not upload.data:
                raise Refused("report.attachment_size", name=upload.name, kb=rules.attachment_max_kb)
        excluded = await self.players_of(number) | {member.id}

        def notice(appeal_id: int) -> str:
            return self.report_notice(appeal_id, number, kind.name, member.nick, text.strip(), len(files))

        appeal = await self._file(member, None, number, kind.name, text, notice, excluded, files)
        if appeal is None:
            raise Refused("report.already", game=number, kind=kind.name)
        return Reply(
            self.t("report.filed", appeal=appeal.id, game=number, kind=kind.name, until=appeal.review_deadline)
        )

    async def _file(
        self,
        member: Member,
        trial: int | None,
        game: int,
        kind: str,
        text: str,
        notice: Callable[[int], str],
        excluded: Set[int],
        files: Sequence[Upload],
    ) -> Appeal | None:
        """File an appeal (or report) with its notice to the councilors who may take it, its deadlines armed;
        None when the member filed this one already."""
        now = self.now()
        eligible = tuple(await self._eligible(excluded, lobby_only=True))

        def effects(appeal_id: int) -> list[NewEffect]:
            # The notice to the councilors' channel, written with the appeal (its councilors recorded as pinged).
            with self.voice.club_voice():
                post = CallPost(
                    f"councilor:appeal:{appeal_id}",
                    notice(appeal_id),
                    eligible,
                    self.appeal_buttons_of(appeal_id),
                    eligible if self.config.direct_messages else (),
                    channel=Channel.COUNCILORS,
                )
                return [effect.post_notice(queue(appeal_id), post)]

        try:
            appeal = await self.db.appeals.file(
                trial,
                member.id,
                kind,
                text.strip(),
                now,
                now + self.lookups.call_time,
                now + timedelta(days=self.config.appeals.review_days),
                effects,
                [c.id for c in eligible],
                game=game,
                files=[NewFile(f.name, f.content_type, f.data) for f in files],
            )
        except AlreadyOpen:
            return None
        for deadline in (appeal.ping_at, self.reminder_at(appeal), appeal.review_deadline):
            self.deps.timers.arm(deadline)
        await self.delivery.deliver_effects()
        return appeal

    async def players_of(self, number: int) -> set[int]:
        """The members who played game `number` (none of them hears a report of it)."""
        facts = await self.lookups.game_facts(number)
        if facts is None:
            return set()
        found = [await self.db.members.by_nick(nick) for nick in facts.players]
        return {m.id for m in found if m is not None}

    def report_notice(self, appeal_id: int, game: int, kind: str, reporter: str, text: str, files: int) -> str:
        return self.t(
            "report.notice", appeal=appeal_id, game=game, kind=kind, appellant=reporter, text=text or "—", count=files
        )

    async def excluded(self, appeal: Appeal) -> set[int]:
        """Who may not hear it: the appellant, and everyone in the trial appealed against (or, for a report,
        every player of the game)."""
        if appeal.trial is None:
            return await self.players_of(appeal.game) | {appeal.appellant}
        trial = await self.db.trials.get(appeal.trial)
        return (await self.took_part(trial) if trial is not None else set()) | {appeal.appellant}

    def said_of(self, appeal: Appeal, what: str, **values: object) -> str:
        """The text `appeal.WHAT` of an appeal against a trial, or `report.WHAT` of a report of a game."""
        if appeal.trial is None:
            return self.t(f"report.{what}", appeal=appeal.id, game=appeal.game, **values)
        return self.t(f"appeal.{what}", appeal=appeal.id, trial=appeal.trial, **values)

    def reminder_at(self, appeal: Appeal) -> datetime:
        return appeal.review_deadline - timedelta(days=self.config.appeals.remind_days)

    def appeal_buttons(self, appeal: Appeal) -> tuple[Button, ...]:
        return self.appeal_buttons_of(appeal.id)

    def appeal_buttons_of(self, appeal_id: int) -> tuple[Button, ...]:
        return (Button(self.t(Action.APPEAL_TAKE.label_key), Action.APPEAL_TAKE, appeal_id),)

    async def appeal_text(self, appeal: Appeal) -> str:
        appellant = await self.lookups.nick(appeal.appellant)
        if appeal.trial is None:
            files = len(await self.db.appeals.files(appeal.id))
            return self.report_notice(appeal.id, appeal.game, appeal.kind, appellant, appeal.text, files)
        trial = await self.db.trials.get(appeal.trial)
        assert trial is not None
        return self.notice_text(appeal.id, trial, appeal.kind, appellant, appeal.text)

    def notice_text(self, appeal_id: int, trial: Trial, kind: str, appellant: str, text: str) -> str:
        return self.t(
            "appeal.notice",
            appeal=appeal_id,
            trial=trial.id,
            game=trial.game,
            kind=kind,
            appellant=appellant,
            text=text or "—",
        )

    async def eligible_councilors(self, appeal: Appeal, lobby_only: bool, ending: int | None = None) -> list[Member]:
        """The councilors who may take the appeal (in the lobby: online, on duty, not seated, not judging — but
        `ending`, whose trial is being ended)."""
        return await self._eligible(await self.excluded(appeal), lobby_only, ending)

    async def _eligible(self, excluded: Set[int], lobby_only: bool, ending: int | None = None) -> list[Member]:
        """The councilors but `excluded` who may take an appeal (before it is filed, too)."""
        out = []
        for member, facts in await self.lookups.lobby(Role.COUNCILOR):
            if member.id in excluded:
                continue
            judging = facts.judging and member.id != ending
            if lobby_only and not (facts.online and facts.on_duty and not facts.seated and not judging):
                continue
            out.append(member)
        return out

    # Preuzmi -------------------------------------------------------------------------------------------------
    def appeal_actions(self) -> dict[Action, Callable[[Member, int], Awaitable[Reply]]]:
        return {Action.APPEAL_TAKE: self.take_appeal}

    @shows_refusals
    async def take_appeal(self, councilor: Member, appeal_id: int) -> Reply:
        """Preuzmi: exactly one councilor wins (the database decides; presses on one appeal are queued so the
        rest are answered from what stands)."""
        async with self._appeal_locks.setdefault(appeal_id, asyncio.Lock()):
            return await self._take_appeal(councilor, appeal_id)

    async def _take_appeal(self, councilor: Member, appeal_id: int) -> Reply:
        appeal = await self.db.appeals.get(appeal_id)
        if appeal is None:
            raise Refused("appeal.unknown", appeal=appeal_id)
        if Role.COUNCILOR not in councilor.roles:
            raise Refused("appeal.not_councilor")
        trial = await self.db.trials.get(appeal.trial) if appeal.trial is not None else None
        if councilor.id in await self.excluded(appeal):
            if trial is None:
                raise Refused("report.played", game=appeal.game)
            raise Refused("appeal.took_part", trial=trial.id)
        if appeal.state is not AppealState.FILED:
            raise Refused("appeal.gone", appeal=appeal.id, councilor=await self.lookups.nick(appeal.councilor))
        if await self.db.trials.judging(councilor.id) is not None:
            raise Refused("take.judging")
        game = appeal.game
        if await self.db.trials.open_for_game(game) is not None:
            raise Refused("appeal.game_busy", game=game)
        facts = await self.lookups.game_facts(game)
        if facts is not None and facts.status is GameStatus.IN_PROGRESS:
            # A hearing is a trial of the game: while the table plays it would keep the table from calling.
            raise Refused("appeal.game_in_progress", game=game)
        appellant = await self.lookups.nick(appeal.appellant)
        files = await self.db.appeals.files(appeal.id)

        def effects(hearing_id: int, call_id: int) -> list[NewEffect]:
            # Written with the win, in the club's words: the notices say who took it, the hearing's space opens
            # in its own call's queue (as every trial's), after the appellant's offers are blocked.
            with self.voice.club_voice():
                if trial is None:
                    taken = self.t("report.notice_taken", appeal=appeal.id, game=game, councilor=councilor.nick)
                    opened = self.t(
                        "report.hearing_opened",
                        appeal=appeal.id,
                        game=game,
                        kind=appeal.kind,
                        appellant=appellant,
                        councilor=councilor.nick,
                        text=appeal.text or "—",
                        files=", ".join(f.name for f in files) or "—",
                    )
                else:
                    taken = self.t("appeal.notice_taken", appeal=appeal.id, trial=trial.id, councilor=councilor.nick)
                    opened = self.t(
                        "appeal.hearing_opened",
                        appeal=appeal.id,
                        trial=trial.id,
                        game=game,
                        appellant=appellant,
                        councilor=councilor.nick,
                        text=appeal.text or "—",
                    )
                controls = self.trials.controls(TrialSpace(hearing_id, game, False, True, ()))
                return [
                    effect.edit_notices(queue(appeal.id), f"councilor:appeal:{appeal.id}", taken),
                    # As in any out-of-game trial: he is there to be heard.
                    effect.server(call_id, "block_offers", appellant),
                    effect.open_trial_space(call_id, hearing_id, opened, controls),
                ]

        try:
            hearing_id = await self.db.appeals.take(
                appeal.id, councilor.id, game, appeal.appellant, self.now(), effects
            )
        except Conflict:
            raise Refused("appeal.game_busy", game=game) from None
        if hearing_id is None:
            fresh = await self.db.appeals.get(appeal.id)
            raise Refused(
                "appeal.gone", appeal=appeal.id, councilor=await self.lookups.nick(fresh.councilor if fresh else None)
            )
        await self.delivery.deliver_effects()
        seen = await self.lookups.verdict_list(game, show_referees=True)  # verdicts, talks
        if trial is None:
            # The committee sees what the reporter attached (the table's chat), with the game's record.
            head = self.t(
                "report.take_ok", appeal=appeal.id, game=game, hearing=hearing_id, until=appeal.review_deadline
            )
            documents = tuple(
                Document(f.name, f.data, f.content_type, self.t("report.file_title", appeal=appeal.id, name=f.name))
                for f in files
            )
            return Reply("\n".join([head, seen.text]), documents=documents)
        head = self.t(
            "appeal.take_ok", appeal=appeal.id, trial=trial.id, hearing=hearing_id, until=appeal.review_deadline
        )
        return Reply("\n".join([head, seen.text]))

    @for_the_club  # a private copy of the channel's notice
    async def offer_pending_calls(self, member: Member) -> None:
        """A councilor who arrives in the lobby is also offered every appeal waiting that he may take."""
        await self.calls.offer_pending_calls(member)
        if Role.COUNCILOR not in member.roles:
            return
        offered = False
        for appeal in await self.db.appeals.undecided():
            if appeal.state is not AppealState.FILED:
                continue
            if member.id not in {m.id for m in await self.eligible_councilors(appeal, True)}:
                continue
            post = CallPost(
                f"councilor:appeal:{appeal.id}",
                await self.appeal_text(appeal),
                (member,),
                self.appeal_buttons(appeal),
                channel=Channel.COUNCILORS,
            )
            # The copy is written with his ping: a second arrival offers nothing again, a crash loses nothing.
            copy = effect.offer_call(queue(appeal.id), member.id, post)
            offered = await self.db.appeals.add_ping(appeal.id, member.id, self.now(), [copy]) or offered
        if offered:
            await self.delivery.deliver_effects()

    # The hearing ---------------------------------------------------------------------------------------------
    async def _judged_by(self, referee: Member, trial_id: int | None) -> Trial:
        """A councilor judges his hearing without being a referee."""
        trial = await self.db.trials.judging(referee.id)
        if trial is not None and (trial_id is None or trial.id == trial_id):
            appeal = await self.db.appeals.by_hearing(trial.id)
            if appeal is not None:
                if Role.COUNCILOR not in referee.roles:
                    await self.interrupt(trial, EndReason.REFEREE_DISMISSED)
                    raise Refused("appeal.not_councilor")
                return trial
        return await self.trials._judged_by(referee, trial_id)

    @shows_refusals
    async def finish(self, referee: Member, trial_id: int | None = None) -> Reply:
        """Završi suđenje in a hearing upholds the appeal: its draft is the new verdict."""
        trial = await self.db.trials.judging(referee.id)
        appeal = await self.db.appeals.by_hearing(trial.id) if trial is not None else None
        if trial is None or appeal is None or (trial_id is not None and trial.id != trial_id):
            return await self.trials.finish(referee, trial_id)
        if not trial.draft:
            raise Refused("appeal.upheld_needs_draft", appeal=appeal.id)
        draft = verdict_from_json(trial.draft)
        if self.config.appeals.may_change == "lift" and appeal.trial is not None:
            appealed = await self.db.trials.get(appeal.trial)
            old = verdict_from_json(appealed.verdict).verdict if appealed and appealed.verdict else NoVerdict()
            if not isinstance(draft.verdict, Nobody) or not isinstance(old, Penalty):
                raise Refused("appeal.lift_only")
        reason = draft.reason or "—"
        told = await self.decision_effects(appeal, AppealState.UPHELD, reason, 0, None, draft)
        # The decision is written in the hearing's ending transaction: no crash leaves it taken with its hearing over.
        decided = self.db.appeals.decided_with_end(appeal.id, AppealState.UPHELD, referee.id, reason, effects=told)
        reply = await self.trials.finish(referee, trial.id, also=[decided])
        if not reply.ok:
            return reply
        return Reply(self.said_of(appeal, "decided_ok", state=self.t("appeal.state_upheld")))

    @shows_refusals
    async def decide_appeal(
        self, councilor: Member, appeal_id: int, result: str, days: int | None, reason: str
    ) -> Reply:
        """/resi ŽALBA usvojena|odbijena|nedopustena [dana N] -- razlog."""
        state = OUTCOMES.get(result)
        appeal = await self.db.appeals.get(appeal_id)
        if appeal is None or state is None:
            raise Refused("appeal.unknown", appeal=appeal_id)
        if appeal.state is not AppealState.TAKEN or appeal.councilor != councilor.id or appeal.hearing is None:
            raise Refused("appeal.not_yours", appeal=appeal_id)
        if state is AppealState.UPHELD:
            return await self.finish(councilor, appeal.hearing)
        if is_blank(reason):
            raise Refused("gov.reason_required")
        chosen = restriction_days(self.config.appeals, state is AppealState.INADMISSIBLE, days)
        rules = self.config.appeals
        if isinstance(chosen, str):
            raise Refused(chosen, low=rules.restriction_min_days, high=rules.restriction_max_days)
        hearing = await self.db.trials.get(appeal.hearing)
        assert hearing is not None
        now = self.now()
        until = now + timedelta(days=chosen) if chosen else None
        with self.voice.club_voice():  # said in the hearing's space
            text = self.t(
                "appeal.hearing_closed", appeal=appeal.id, state=self.t(f"appeal.state_{state}"), reason=reason
            )
        told = await self.decision_effects(appeal, state, reason, chosen, until, None)
        if until is not None and self.config.appeals.reports:
            # The site's "умиротворитель" also closes its forum and petitions to him: the game server is told.
            appellant = await self.lookups.nick(appeal.appellant)
            told.append(effect.server(queue(appeal.id), "set_restriction", appellant, now_text(until)))
        if not await self.db.trials.finish(
            hearing.id,
            TrialOutcome.NO_VERDICT,
            now,
            councilor.id,
            verdict=verdict_to_json(Draft(NoVerdict(), reason)),
            reason=reason,
            effects=await self.trials._ending_effects(hearing, text),
            # The decision in the hearing's ending transaction: no crash leaves it taken with its hearing over.
            also=[self.db.appeals.decided_with_end(appeal.id, state, councilor.id, reason, until, chosen, told)],
        ):
            raise Refused("appeal.not_yours", appeal=appeal_id)
        await self.trials._ended(hearing)  # delivers the hearing's end and the decision's words, in that order
        return Reply(self.said_of(appeal, "decided_ok", state=self.t(f"appeal.state_{state}")))

    async def decision_effects(
        self, appeal: Appeal, state: AppealState, reason: str, days: int, until: datetime | None, verdict: Draft | None
    ) -> list[NewEffect]:
        """What the decision says, written with it: the appellant is told privately (in his language); the
        appeal's notices say how it ended (the club's)."""
        rows: list[NewEffect] = []
        appellant = await self.db.members.get(appeal.appellant)
        if appellant is not None:
            async with self.voice.reading(appellant):
                text = (
                    self.t(
                        "report.told_decided",
                        appeal=appeal.id,
                        game=appeal.game,
                        state=self.t(f"appeal.state_{state}"),
                        reason=reason,
                    )
                    if appeal.trial is None
                    else self.t(
                        "appeal.told_decided",
                        appeal=appeal.id,
                        trial=appeal.trial,
                        state=self.t(f"appeal.state_{state}"),
                        reason=reason,
                    )
                )
                if verdict is not None:
                    text += "\n" + self.t(
                        "appeal.told_new_verdict", verdict=render_verdict(verdict, self.voice.messages)
                    )
                if until is not None:
                    text += "\n" + self.t("appeal.told_restricted", days=days, until=until)
                rows.append(effect.tell(queue(appeal.id), appellant.id, text))
        with self.voice.club_voice():
            decided = (
                self.t(
                    "report.notice_decided", appeal=appeal.id, game=appeal.game, state=self.t(f"appeal.state_{state}")
                )
                if appeal.trial is None
                else self.t(
                    "appeal.notice_decided", appeal=appeal.id, trial=appeal.trial, state=self.t(f"appeal.state_{state}")
                )
            )
            rows.append(effect.edit_notices(queue(appeal.id), f"councilor:appeal:{appeal.id}", decided))
        return rows

    @for_the_club
    async def interrupt(self, trial: Trial, why: EndReason) -> None:
        """A hearing that ends without a decision puts its appeal back for Preuzmi, in the hearing's ending
        transaction (no crash leaves the appeal taken with its hearing over)."""
        appeal = await self.db.appeals.by_hearing(trial.id)
        if appeal is None or appeal.state is not AppealState.TAKEN:
            await self.trials.interrupt(trial, why)
            return
        # Whom the notice reaches is decided as if the hearing were over: its councilor is no longer judging.
        eligible = await self.eligible_councilors(appeal, lobby_only=True, ending=trial.referee)
        post = CallPost(
            f"councilor:appeal:{appeal.id}",
            await self.appeal_text(appeal),
            tuple(eligible),
            self.appeal_buttons(appeal),
            channel=Channel.COUNCILORS,
        )
        back = self.db.appeals.reopened_with_end(appeal.id, [effect.post_notice(queue(appeal.id), post)])
        await self.trials.interrupt(trial, why, also=[back])
        fresh = await self.db.appeals.get(appeal.id)
        if fresh is not None and fresh.state is AppealState.FILED:
            self.deps.timers.arm(fresh.ping_at)

    async def end_judging_without_function(self, member: Member, role: Role) -> None:
        """A councilor who is no longer one stops hearing an appeal: the hearing ends and the appeal waits again."""
        await self.governance.end_judging_without_function(member, role)
        if role != Role.COUNCILOR:
            return
        trial = await self.db.trials.judging(member.id)
        if trial is not None and await self.db.appeals.by_hearing(trial.id) is not None:
            await self.interrupt(trial, EndReason.REFEREE_DISMISSED)

    async def end_trials_without_function(self) -> None:
        """On start: every open trial whose judge no longer holds the function he judges it in (a referee for a
        trial, a councilor for a hearing) ends as if he had just lost it. The role's removal and the end of his
        trial are two steps (a dismissal, a resignation, a carried vote), so a crash between them, or a role
        taken away at the server while the bot was down, would leave the trial open, the table paused, however
        long ago that was."""
        for trial in await self.db.trials.open_trials():
            judge = await self.db.members.get(trial.referee)
            hearing = await self.db.appeals.by_hearing(trial.id) is not None
            function = Role.COUNCILOR if hearing else Role.REFEREE
            if judge is None or function not in judge.roles:
                await self.interrupt(trial, EndReason.REFEREE_DISMISSED)

    # Deadlines -----------------------------------------------------------------------------------------------
    async def appeal_deadlines(self) -> list[datetime]:
        out = []
        for appeal in await self.db.appeals.undecided():
            if appeal.state is AppealState.FILED and not appeal.pinged:
                out.append(appeal.ping_at)
            if not appeal.reminded:
                out.append(self.reminder_at(appeal))
            if not appeal.overdue:
                out.append(appeal.review_deadline)
        return out

    async def run_appeals_due(self) -> None:
        """The appeals' deadlines that passed: each mark is written once, with what it tells."""
        now = self.now()
        marked = False
        for appeal in await self.db.appeals.undecided():
            if appeal.state is AppealState.FILED and not appeal.pinged and appeal.ping_at <= now:
                # Nobody took it within the call's minutes: every councilor who may take it is told.
                councilors = await self.eligible_councilors(appeal, lobby_only=False)
                told = []
                for councilor in councilors:
                    async with self.voice.reading(councilor):
                        text = self.said_of(appeal, "waiting", minutes=self.config.call_minutes)
                        told.append(effect.tell(queue(appeal.id), councilor.id, text, self.appeal_buttons(appeal)))
                pinged = [c.id for c in councilors]
                marked = await self.db.appeals.mark(appeal.id, "pinged", now, told, pinged) or marked
            if not appeal.reminded and self.reminder_at(appeal) <= now:
                people = (
                    [m for m in [await self.db.members.get(appeal.councilor)] if m]
                    if appeal.councilor
                    else await self.eligible_councilors(appeal, lobby_only=False)
                )
                post = CallPost(
                    f"councilor:appeal-reminder:{appeal.id}",
                    self.said_of(appeal, "reminder", until=appeal.review_deadline),
                    tuple(people),
                    (),
                    tuple(people),
                    channel=Channel.COUNCILORS,
                )
                reminded = [effect.post_notice(queue(appeal.id), post)]
                marked = await self.db.appeals.mark(appeal.id, "reminded", now, reminded) or marked
            if not appeal.overdue and appeal.review_deadline <= now:
                post = CallPost(
                    f"councilor:appeal-overdue:{appeal.id}",
                    self.said_of(appeal, "overdue", until=appeal.review_deadline),
                    (),
                    (),
                    channel=Channel.COUNCILORS,
                )
                overdue = [effect.post_notice(queue(appeal.id), post)]
                marked = await self.db.appeals.mark(appeal.id, "overdue", now, overdue) or marked
        if marked:
            await self.delivery.deliver_effects()

    @shows_refusals
    async def open_appeals(self, viewer: Member) -> Reply:
        """/zalbe: the appeals waiting for a councilor or under review, each with its deadline (councilors and the
        owner)."""
        if Role.COUNCILOR not in viewer.roles and not self.lookups.is_owner(viewer):
            raise Refused("appeal.list_not_allowed")
        appeals = await self.db.appeals.undecided()
        if not appeals:
            return Reply(self.t("appeal.none_open"))
        lines = [self.t("appeal.open_title")]
        for appeal in appeals:
            # A report concerns a game, not a trial: `report.open_line` names the game alone.
            lines.append(
                self.said_of(
                    appeal,
                    "open_line",
                    **({} if appeal.trial is None else {"game": appeal.game}),
                    kind=appeal.kind,
                    appellant=await self.lookups.nick(appeal.appellant),
                    state=self.t(f"appeal.state_{appeal.state}"),
                    councilor=await self.lookups.nick(appeal.councilor) if appeal.councilor else "—",
                    until=appeal.review_deadline,
                )
            )
        buttons = tuple(b for a in appeals if a.state is AppealState.FILED for b in self.appeal_buttons(a))[:5]
        return Reply("\n".join(lines), buttons)

    # /presude ------------------------------------------------------------------------------------------------
    async def verdict_list(
        self,
        number: int,
        show_referees: bool,
        readable: Set[int] | None = None,
        trial_id: int | None = None,
        page: int = 1,
    ) -> Reply:
        """The game's trials, then every appeal against them with its decision and the trial it concerns."""
        reply = await self.lookups.verdict_list(number, show_referees, readable, trial_id, page)
        if trial_id is not None or not reply.ok:
            return reply
        trials = await self.db.trials.for_game(number)
        appeals = await self.db.appeals.for_trials([t.id for t in trials])
        appeals += await self.db.appeals.reports_of_game(number)
        if not appeals:
            return reply
        members = {m for a in appeals for m in (a.appellant, a.councilor) if m is not None}
        names = {m: await self.lookups.nick(m) for m in members}
        lines = [reply.text, *render_appeals(appeals, names, show_referees, self.voice.messages)]
        return Reply("\n".join(lines), reply.buttons, reply.ok)
