"""Out-of-game verdicts taking effect: a penalty (plavac, league penalty points, napustio), (niko) and manual
settlement; one penalty per game (an earlier one is lifted first); the plavac's end as a durable deadline; the
monthly league (live while open, frozen when closed by an admin or after the grace); a member's card.

The rules and arithmetic are `rules.penalties`'; every write of one verdict is one transaction
(`storage.penalties.PenaltyStore.apply_effects`), marked per trial, so a verdict recorded just before a crash
takes effect at the next start. What the members are told is written with it (the chat outbox, each member's
queue) and delivered after the commit; the game server is told after the write (and again at start).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from fractions import Fraction

from bot import chat_outbox as chat_effect
from bot.desk.base import DeskBase, member_queue
from bot.desk.deps import DeskDeps
from bot.desk.refused import Refused
from bot.desk.trials import TrialDesk
from bot.i18n.reader import speaking
from bot.ports import Reply, asserting
from bot.views import render_verdict, sanction_text
from rules.catalogue import escalate, find
from rules.gamelog import Game, GameStatus
from rules.penalties import (
    month_closes_at,
    month_of,
    month_open,
    previous_months,
    settlement_figures,
)
from rules.verdict_effects import plan_effects
from rules.verdicts import Draft, Nobody, Penalty, Settlement, VerdictRefused, verdict_from_json
from storage.changes import NewPaperChange
from storage.chat_outbox import NewEffect
from storage.league import Standing
from storage.members import CallBan, Member
from storage.penalties import SUSPENSION, Effects, GameAtStake
from storage.states import MonthClosing, TrialOutcome
from storage.trials import Trial

MONTHS_WATCHED = 12  # months before the current one that close by themselves after the grace


@dataclass(frozen=True)
class MemberCard:
    """What `sudija clan` and /clan show of a member."""

    member: Member
    roles: tuple[str, ...]
    plavac_until: datetime | None
    month: str
    month_open: bool
    standing: Standing
    napustio_total: int
    call_ban: CallBan | None
    call_allowed: bool
    sanctions: tuple[tuple[int, datetime, str], ...] = ()  # the sanctions in the club's units: game, when, what
    suspended_until: datetime | None = None  # from all the club's tournaments (another club's effect)


class PenaltyDesk(DeskBase):
    """What a verdict does beyond the paper; it extends the trial's draft, checks and effects (`trials`)."""

    def __init__(self, deps: DeskDeps, trials: TrialDesk) -> None:
        super().__init__(deps)
        self.trials = trials

    # The club's catalogue ---------------------------------------------------------------------------------
    async def draft(self, referee: Member, draft: Draft) -> Reply:
        """A penalty named by the catalogue (`po PREKRŠAJ`) gets its cost, escalated for a repeat offence."""
        verdict = draft.verdict
        if not (isinstance(verdict, Penalty) and verdict.offence):
            return await self.trials.draft(referee, draft)
        limits = self.config.penalties
        entry = find(limits.catalogue, verdict.offence)
        if entry is None:
            names = ", ".join(e.name for e in limits.catalogue) or "—"
            raise Refused("catalogue.unknown", name=verdict.offence, names=names)
        earlier = await self.db.trials.penalty_times(verdict.culprit, entry.name)
        cost = escalate(entry, earlier, self.now(), limits.escalation, limits.plavac_max_days, limits.league_max_points)
        priced = Draft(
            replace(
                verdict,
                offence=entry.name,
                plavac_days=verdict.plavac_days or cost.plavac_days,
                league_points=verdict.league_points or cost.league_points,
                deny_call_days=cost.deny_call_days,
            ),
            draft.reason or entry.description,
        )
        reply = await self.trials.draft(referee, priced)
        notes = []
        if reply.ok and cost.repeats:
            notes.append(self.t("catalogue.repeat", repeats=cost.repeats, days=limits.escalation.window_days))
        if reply.ok and cost.capped:
            notes.append(self.t("catalogue.capped", plavac=limits.plavac_max_days, points=limits.league_max_points))
        return Reply("\n".join([reply.text, *notes]), reply.buttons, reply.ok) if notes else reply

    async def deny_call_for(self, trial: Trial, verdict: Penalty) -> None:
        """A catalogue penalty that denies the right to call: counted from the verdict, so applying it again (a
        restart's repair) changes nothing."""
        culprit = await self.db.members.by_nick(verdict.culprit)
        assert trial.closed_at is not None
        if culprit is None:
            return
        until = trial.closed_at + timedelta(days=verdict.deny_call_days)
        ban = await self.db.members.call_ban(culprit.id)
        if ban is not None and (ban.until is None or ban.until >= until):
            return  # an equal or longer denial stands already
        async with self.voice.reading(culprit):
            told = self.delivery.told(culprit.id, self.t("call.denied_until", until=until))
        await self.db.members.set_call_ban(culprit.id, until, trial.referee, verdict.offence, self.now(), [told])
        await self.delivery.deliver_effects()

    def catalogue_text(self) -> str:
        limits = self.config.penalties
        if not limits.catalogue:
            return self.t("catalogue.empty")
        escalation = limits.escalation
        lines = [
            self.t("catalogue.title", days=escalation.window_days, factor=escalation.factor)
            if escalation.window_days
            else self.t("catalogue.title_plain")
        ]
        for entry in limits.catalogue:
            cost = render_verdict(
                Draft(Penalty("", entry.plavac_days, entry.league_points, deny_call_days=entry.deny_call_days)),
                self.voice.messages,
            )
            lines.append(
                self.t(
                    "catalogue.entry",
                    name=entry.name,
                    cost=cost.split(": ", 1)[-1],
                    description=entry.description or "—",
                )
            )
        return "\n".join(lines)

    # Settings -------------------------------------------------------------------------------------------
    @property
    def league_grace(self) -> timedelta:
        return timedelta(days=self.config.league_grace_days)

    @property
    def settlement_share(self) -> Fraction:
        return Fraction(self.config.penalties.settlement_played_share)

    @property
    def settlement_delay(self) -> timedelta:
        return timedelta(minutes=self.config.penalties.settlement_delay_minutes)

    # Drafts: the rules beyond rules.verdicts ----------------------------------------------------------------
    async def checked(self, draft: Draft, trial: Trial, game: Game) -> list[NewPaperChange]:
        verdict = draft.verdict
        if isinstance(verdict, Penalty):
            if verdict.abandoned and game.status is not GameStatus.INTERRUPTED:
                raise VerdictRefused("penalty.abandoned_not_interrupted", game=game.number)
            if verdict.abandoned and (
                await self.db.penalties.settled(game.number) is not None
                or (await self.lookups.paper_of(game)).paper.settled
            ):
                # A settled game counts as finished: nobody abandoned it (never announced and then not counted).
                raise VerdictRefused("penalty.abandoned_settled", game=game.number)
        elif isinstance(verdict, Settlement) and game.status is GameStatus.INTERRUPTED and game.ended_at is not None:
            paper = (await self.lookups.paper_of(game)).paper
            if not paper.ended:
                figures = settlement_figures(
                    game.bule, paper.bule_sum, game.ended_at, self.now(), self.settlement_share, self.settlement_delay
                )
                if not figures.allowed:
                    raise VerdictRefused(
                        "settlement.refused",
                        played=figures.played,
                        total=figures.total,
                        needed=figures.needed,
                        share=str(self.settlement_share),
                        elapsed=figures.elapsed,
                        delay=figures.delay,
                    )
        return await self.trials.checked(draft, trial, game)

    # Taking effect --------------------------------------------------------------------------------------------
    async def after_verdict(self, trial: Trial, draft: Draft) -> None:
        await self.trials.after_verdict(trial, draft)
        await self.take_effect(trial.id)

    async def take_effect(self, trial_id: int) -> Effects | None:
        """Apply a recorded out-of-game verdict once; tell the game server and the members concerned."""
        trial = await self.db.trials.get(trial_id)
        if trial is None or trial.outcome is not TrialOutcome.VERDICT or trial.verdict is None:
            return None
        verdict = verdict_from_json(trial.verdict).verdict
        if not isinstance(verdict, Penalty | Nobody | Settlement):
            return None
        if isinstance(verdict, Penalty) and verdict.deny_call_days and trial.closed_at is not None:
            await self.deny_call_for(trial, verdict)
        game = await self.lookups.load_game(trial.game)
        stake = GameAtStake(
            game.number,
            game.abandoned_by[0] if game.abandoned_by else None,
            game.rated,
            game.status is GameStatus.INTERRUPTED,
            game.ended_at,
        )
        # Effects run from the moment the trial was finished, also when applied late (after a crash and restart):
        # the plavac counts from then and the points go to that month's league.
        now = trial.closed_at or self.now()
        plan = plan_effects(verdict, game.players, game.bule, self.config.settlement_finished_min_bule)
        assert plan is not None
        culprit: Member | None = None
        if plan.penalty is not None:
            culprit = await self.db.members.ensure(plan.penalty.culprit, now)
            plan = plan.with_culprit(culprit.nick)
        # Whom the verdict may tell (the culprit, whoever holds a penalty of this game, and whoever the game counts
        # as having abandoned it), in his language.
        told = [row.member for row in await self.db.penalties.for_game(game.number)]
        counted = await self.db.penalties.napustio(game.number)
        leaver_nick = counted.counted if counted is not None else stake.first_leaver
        leaver = await self.db.members.by_nick(leaver_nick) if leaver_nick else None
        if leaver is not None:
            told.append(leaver.id)
        languages = await self.voice.reader_languages([*told, *([culprit.id] if culprit else [])])
        nicks = {m.id: m.nick for m in await self.db.members.many(list(languages))}
        known = set(nicks)

        def tells(effects: Effects) -> list[NewEffect]:
            # Written with the effects they tell of: the lifted penalties, the new one, the points cancelled; and
            # what the game server is told of them (each plavac as it now runs, the settled game closed).
            rows = self._effect_tells(
                effects,
                game.number,
                now,
                trial.reason,
                culprit,
                languages,
                known,
                nicks,
                verdict if isinstance(verdict, Penalty) else None,
            )
            for lifted in effects.lifted:
                nick = nicks.get(lifted.penalty.member)
                if nick is not None and lifted.penalty.plavac_days and lifted.plavac_before is not None:
                    rows.append(chat_effect.set_plavac(member_queue(lifted.penalty.member), nick, lifted.plavac_after))
            if culprit is not None and effects.penalty is not None and effects.penalty.plavac_days:
                rows.append(chat_effect.set_plavac(member_queue(culprit.id), culprit.nick, effects.plavac_after))
            for lifted in effects.lifted:  # a suspension from all the club's tournaments, as it now runs
                nick = nicks.get(lifted.penalty.member)
                if nick is not None and lifted.penalty.suspension_days and lifted.suspension_before is not None:
                    queue = member_queue(lifted.penalty.member)
                    rows.append(chat_effect.set_suspension(queue, nick, lifted.suspension_after))
            if culprit is not None and effects.penalty is not None and effects.penalty.suspension_days:
                queue = member_queue(culprit.id)
                rows.append(chat_effect.set_suspension(queue, culprit.nick, effects.suspension_after))
            if plan.settles:
                rows.append(chat_effect.server(f"game:{game.number}", "close_game", game.number))
            return rows

        effects = await self.db.penalties.apply_effects(
            trial.id,
            stake,
            now,
            self.league_grace,
            plan,
            culprit=culprit.id if culprit else None,
            actor=trial.referee,
            effects=tells,
        )
        if effects is None:
            return None
        await self.delivery.deliver_effects()
        for lifted in effects.lifted:
            if lifted.penalty.member in known and lifted.penalty.plavac_days and lifted.plavac_before is not None:
                self.arm_plavac(lifted.plavac_after)
            if lifted.penalty.member in known and lifted.suspension_before is not None:
                self.arm_plavac(lifted.suspension_after)
        if culprit is not None and effects.penalty is not None:
            self.arm_plavac(effects.plavac_after)
            self.arm_plavac(effects.suspension_after)
        return effects

    def _effect_tells(
        self,
        effects: Effects,
        game: int,
        now: datetime,
        reason: str | None,
        culprit: Member | None,
        languages: dict[int, str | None],
        known: set[int],
        nicks: dict[int, str],
        penalty: Penalty | None = None,
    ) -> list[NewEffect]:
        """What a verdict's effects tell each member concerned, each in his language (read before)."""
        rows = []
        for lifted in effects.lifted:
            member = lifted.penalty.member
            if member not in known:
                continue
            with speaking(languages.get(member)):
                text = self.lifted_text(
                    game,
                    lifted.penalty.plavac_days,
                    lifted.penalty.league_points,
                    lifted.plavac_before,
                    lifted.plavac_after,
                    lifted.points_returned,
                    lifted.penalty.month,
                    now,
                )
                if lifted.penalty.suspension_days:
                    text += " " + self.suspension_lifted_text(
                        lifted.penalty.suspension_days, lifted.suspension_before, lifted.suspension_after
                    )
            rows.append(self.delivery.told(member, text))
        if culprit is not None and effects.penalty is not None:
            row = effects.penalty
            with speaking(languages.get(culprit.id)):
                sanction = (
                    sanction_text(penalty.sanction, penalty.offence, self.voice.messages)
                    if penalty is not None and penalty.sanction is not None
                    else None
                )
                if row.suspension_days:
                    suspended = self.t(
                        "penalty.part_suspension", days=row.suspension_days, until=effects.suspension_after
                    )
                    sanction = "; ".join(p for p in (suspended, sanction) if p)
                text = self.penalty_text(
                    game, row.plavac_days, row.league_points, row.abandoned, effects.plavac_after, reason, sanction
                )
            rows.append(self.delivery.told(culprit.id, text))
        if effects.settled_counts is not None and effects.napustio_before and not effects.napustio_after:
            # The settlement cancels the game's own league charge: whoever was counted as having abandoned it is
            # no longer (a referee's penalty stands: nothing of it is cancelled).
            leaver = next(
                (m for m, nick in nicks.items() if nick.casefold() == effects.napustio_before.casefold()), None
            )
            if leaver is not None and leaver in known:
                with speaking(languages.get(leaver)):
                    key = (
                        "settlement.napustio_cancelled"
                        if effects.napustio_month_open
                        else "settlement.napustio_month_closed"
                    )
                    text = self.t(key, game=game, league=self.voice.league_name())
                rows.append(self.delivery.told(leaver, text))
        return rows

    def arm_plavac(self, until: datetime | None) -> None:
        if until is not None:
            self.deps.timers.arm(until)

    def penalty_text(
        self,
        game: int,
        days: int,
        points: int,
        abandoned: bool,
        until: datetime | None,
        reason: str | None,
        sanction: str | None = None,
    ) -> str:
        parts = [sanction] if sanction else []
        if days:
            parts.append(self.t("penalty.part_plavac", name=self.voice.plavac_name(), days=days, until=until))
        if points:
            parts.append(self.t("penalty.part_league", points=points, league=self.voice.league_name()))
        if abandoned:
            parts.append(self.t("penalty.part_abandoned"))
        return self.t("penalty.imposed", game=game, what="; ".join(parts), reason=reason or "—")

    def lifted_text(
        self,
        game: int,
        days: int,
        points: int,
        before: datetime | None,
        after: datetime | None,
        returned: bool,
        month: str,
        now: datetime,
    ) -> str:
        parts = []
        if days:
            if before is None:
                parts.append(self.t("lift.plavac_over", name=self.voice.plavac_name()))
            elif after is None:
                parts.append(self.t("lift.plavac_ended", name=self.voice.plavac_name(), days=days))
            else:
                parts.append(self.t("lift.plavac_shortened", name=self.voice.plavac_name(), days=days, until=after))
        if points:
            key = "lift.points_returned" if returned else "lift.points_month_closed"
            parts.append(self.t(key, points=points, month=month, league=self.voice.league_name()))
        return self.t("lift.notice", game=game, what=" ".join(parts) or self.t("lift.nothing"))

    def suspension_lifted_text(self, days: int, before: datetime | None, after: datetime | None) -> str:
        if before is None:
            return self.t("lift.suspension_over")
        if after is None:
            return self.t("lift.suspension_ended", days=days)
        return self.t("lift.suspension_shortened", days=days, until=after)

    # Deadlines ------------------------------------------------------------------------------------------------
    async def penalty_deadlines(self) -> list[datetime]:
        deadlines = [p.until for p in await self.db.penalties.running_plavac()]
        deadlines += [p.until for p in await self.db.penalties.running_plavac(SUSPENSION)]
        now = self.now()
        for month in [month_of(now), *previous_months(now, 1)]:
            if await self.db.league.closed(month) is None:
                deadlines.append(month_closes_at(month, self.league_grace))
        return deadlines

    async def run_penalty_due(self) -> None:
        await self.repair_effects()
        await self.expire_plavac()
        await self.expire_suspensions()
        await self.close_due_months()
        month = month_of(self.now())
        if getattr(self, "_league_armed", None) != month:
            # The current month closes by itself after the grace: wake up then (each month once per process).
            self._league_armed = month
            self.deps.timers.arm(month_closes_at(month, self.league_grace))

    async def repair_effects(self) -> None:
        """Verdicts recorded whose effects were not written (a crash in between) take effect now."""
        for trial_id in await self.db.penalties.effects_pending():
            await self.take_effect(trial_id)

    async def expire_plavac(self) -> None:
        """A plavac that ran out ends: the game server and the member are told, once."""
        now = self.now()
        for plavac in await self.db.penalties.running_plavac():
            if plavac.until > now:
                break
            member = await self.db.members.get(plavac.member)
            told = []
            if member is not None:
                async with self.voice.reading(member):
                    told.append(self.delivery.told(member.id, self.t("plavac.ended", name=self.voice.plavac_name())))
                told.append(chat_effect.set_plavac(member_queue(member.id), member.nick, None))
            if not await self.db.penalties.end_plavac(plavac.member, now, told):
                continue
            await self.delivery.deliver_effects()

    async def expire_suspensions(self) -> None:
        """A suspension from all the club's tournaments that ran out ends: the game server and the member are
        told, once."""
        now = self.now()
        for suspension in await self.db.penalties.running_plavac(SUSPENSION):
            if suspension.until > now:
                break
            member = await self.db.members.get(suspension.member)
            told = []
            if member is not None:
                async with self.voice.reading(member):
                    told.append(self.delivery.told(member.id, self.t("suspension.ended")))
                told.append(chat_effect.set_suspension(member_queue(member.id), member.nick, None))
            if await self.db.penalties.end_plavac(suspension.member, now, told, SUSPENSION):
                await self.delivery.deliver_effects()

    async def resync_plavac(self) -> None:
        """On start every running plavac is asserted again, under the key of the state it asserts (the key its
        verdict's command had: `chat_effect.plavac_key`): the outbox writes it once, and a game server that
        honours keys takes a repeat as a duplicate."""
        for plavac in await self.db.penalties.running_plavac():
            member = await self.db.members.get(plavac.member)
            if member is not None and plavac.until > self.now():
                with asserting(chat_effect.plavac_key(member.nick, plavac.until)):
                    await self.deps.game_server.set_plavac(member.nick, plavac.until)
        for suspension in await self.db.penalties.running_plavac(SUSPENSION):
            member = await self.db.members.get(suspension.member)
            if member is not None and suspension.until > self.now():
                with asserting(chat_effect.suspension_key(member.nick, suspension.until)):
                    await self.deps.game_server.set_suspension(member.nick, suspension.until)

    async def close_due_months(self) -> None:
        now = self.now()
        for month in previous_months(now, MONTHS_WATCHED):
            if now < month_closes_at(month, self.league_grace) or await self.db.league.closed(month) is not None:
                continue
            if await self.db.league.active_members(month):
                await self.close_month(month, None, MonthClosing.GRACE)

    # The league -----------------------------------------------------------------------------------------------
    async def month_is_open(self, month: str) -> bool:
        return month_open(month, self.now(), self.league_grace, await self.db.league.closed(month) is not None)

    async def record_napustio_of(self, nick: str) -> None:
        """Write the napustio rows of `nick`'s interrupted games not yet read from their logs."""
        for number in await self.db.penalties.unrecorded_interrupted(nick):
            game = await self.lookups.load_game(number)
            await self.db.penalties.add_napustio(
                GameAtStake(
                    number, game.abandoned_by[0] if game.abandoned_by else None, game.rated, True, game.ended_at
                ),
                self.now(),
            )

    async def unrecorded_napustio(self, nick: str) -> list[GameAtStake]:
        """`nick`'s interrupted games whose napustio row is not written yet, as their logs give it (read only:
        a read command never writes; the rows are written when a verdict or a month's close needs them)."""
        out = []
        for number in await self.db.penalties.unrecorded_interrupted(nick):
            game = await self.lookups.load_game(number)
            if game.ended_at is not None:
                out.append(
                    GameAtStake(
                        number, game.abandoned_by[0] if game.abandoned_by else None, game.rated, True, game.ended_at
                    )
                )
        return out

    async def napustio_of(self, nick: str, month: str | None = None, rated_only: bool = False) -> int:
        """How many games `nick` is counted as having abandoned (in `month`; rated ones only), the games not yet
        recorded counted as their logs give them."""
        if rated_only:
            assert month is not None
            stored = await self.db.penalties.abandoned_rated(nick, month)
        else:
            stored = await self.db.penalties.napustio_count(nick, month)
        extra = sum(
            1
            for g in await self.unrecorded_napustio(nick)
            if g.first_leaver == nick
            and g.ended_at is not None
            and (month is None or month_of(g.ended_at) == month)
            and (g.rated or not rated_only)
        )
        return stored + extra

    async def live_standing(self, member: Member, month: str) -> Standing:
        """An open month: the paper results of rated finished (or settled, big enough) games, the napustio charge
        of rated interrupted games, and the active penalty points. It only reads."""
        counted = await self.db.penalties.counted_settlements()
        games = points = 0
        for item in await self.db.league.rated_games(month, member.nick):
            if item.status is not GameStatus.FINISHED and item.number not in counted:
                continue
            game = await self.lookups.load_game(item.number)
            paper = (await self.lookups.paper_of(game)).paper
            seat = game.seat_of(member.nick)
            if seat is None or not paper.ended:
                continue
            result = paper.players[seat].result
            if result is not None:
                games += 1
                points += result
        abandoned_rated = await self.napustio_of(member.nick, month, rated_only=True)
        return Standing(
            month,
            member.id,
            games,
            points,
            abandoned_rated * self.config.penalties.abandon_league_points,
            await self.db.penalties.active_points(member.id, month),
            await self.napustio_of(member.nick, month),
        )

    async def standing(self, member: Member, month: str) -> Standing:
        if await self.db.league.closed(month) is not None:
            return await self.db.league.frozen(month, member.id)
        return await self.live_standing(member, month)

    async def close_month(self, month: str, by: int | None, how: MonthClosing, reason: str = "") -> bool:
        """Freeze the month's standings and close it; False when closed already."""
        standings = []
        for member_id in await self.db.league.active_members(month):
            member = await self.db.members.get(member_id)
            if member is not None:
                await self.record_napustio_of(member.nick)  # closing writes what the standings were read from
                standings.append(await self.live_standing(member, month))
        return await self.db.league.close(month, standings, self.now(), by, how, reason)

    # A member's card ------------------------------------------------------------------------------------------
    async def member_card(self, member: Member) -> MemberCard:
        now = self.now()
        plavac = await self.db.penalties.plavac(member.id)
        running = plavac.until if plavac is not None and plavac.active and plavac.until > now else None
        suspension = await self.db.penalties.plavac(member.id, SUSPENSION)
        suspended = (
            suspension.until if suspension is not None and suspension.active and suspension.until > now else None
        )
        month = month_of(now)
        standing = await self.standing(member, month)
        ban = await self.db.members.call_ban(member.id)
        allowed = ban is None or (ban.until is not None and ban.until <= now)
        sanctions = []
        for _, game, at, data in await self.db.trials.sanctions_of(member.nick):
            verdict = verdict_from_json(data).verdict
            if isinstance(verdict, Penalty) and verdict.sanction is not None:
                sanctions.append((game, at, sanction_text(verdict.sanction, verdict.offence, self.voice.messages)))
        return MemberCard(
            member,
            tuple(sorted(self.lookups.roles_of(member))),
            running,
            month,
            await self.month_is_open(month),
            standing,
            await self.napustio_of(member.nick),
            ban,
            allowed,
            tuple(sanctions),
            suspended,
        )

    def card_text(self, card: MemberCard, full: bool) -> str:
        """The card as text; `full` adds the roles and the right to call (the member himself and officials)."""
        lines = [self.t("card.title", nick=card.member.nick)]
        if full:
            roles = ", ".join(self.t(f"role.{r}") for r in card.roles) or self.t("card.no_roles")
            lines.append(self.t("card.roles", roles=roles))
        lines.append(
            self.t("card.plavac", name=self.voice.plavac_name(), until=card.plavac_until)
            if card.plavac_until
            else self.t("card.no_plavac", name=self.voice.plavac_name())
        )
        if card.suspended_until is not None:
            lines.append(self.t("card.suspended", until=card.suspended_until))
        s = card.standing
        lines.append(
            self.t(
                "card.league",
                league=self.voice.league_name(),
                month=card.month,
                points=s.points,
                games=s.games,
                penalty=s.penalty_points,
                state=self.t("card.month_open" if card.month_open else "card.month_closed"),
            )
        )
        lines.append(self.t("card.napustio", total=card.napustio_total, month=s.abandoned))
        if card.sanctions:
            lines.append(self.t("card.sanctions", count=len(card.sanctions)))
            lines += [self.t("card.sanction", game=game, at=at, what=what) for game, at, what in card.sanctions]
        if full:
            if card.call_allowed:
                lines.append(self.t("card.call_allowed"))
            elif card.call_ban is not None and card.call_ban.until is not None:
                lines.append(self.t("card.call_denied_until", until=card.call_ban.until))
            else:
                lines.append(self.t("card.call_denied"))
        return "\n".join(lines)
