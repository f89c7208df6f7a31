"""The general penalty model (`rules.penalty_model`, `[[penalties.rules]]`) in the referee's verdict: a penalty
named by a rule (`/presuda kazna NICK po PRAVILO [JEDINICA] [iznos N]`) gets the rule's price for this culprit
now — his earlier penalties under the same rule make it a repeat, the step of the rule's escalation. The kinds
this game applies are applied: suspension days (from all the club's tournaments, an effect of its own told to the
game server — not the plavac, which is the first club's "samo partije bez rejtinga"), league points, call
restriction days. Every other
kind — a warning, a share of a top, IMPs, an assigned result, a referral (a bridge federation's catalogue, seed
001) — is recorded as the verdict's sanction in the club's own units (`rules.penalty_model.Sanction`), shown in
`/presude`, the member's card and the statistics, and the referee is told that this game has no such scoring to
apply it to. The referee names what a per-unit rule counts after its name (`po kasnjenje 4`: four minutes) and
his figure within a range (`plavac DANA`, `liga POENA`, or `iznos N` in the rule's units); a figure out of the
range or a missing count is refused, naming the limit in the reader's words. The first club's own catalogue
(`[[penalties.catalogue]]`, `bot.desk.penalties`) is untouched.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.desk.base import DeskBase
from bot.desk.deps import DeskDeps
from bot.desk.penalties import PenaltyDesk
from bot.desk.refused import Refused
from bot.desk.trials import TrialDesk
from bot.ports import Reply
from rules.catalogue import find
from rules.penalty_model import (
    Earlier,
    PenaltyKind,
    PenaltyRefused,
    Sanction,
    Step,
    find_rule,
    price,
    repeat_level,
)
from rules.verdicts import Draft, Penalty
from storage.councils import offence_history
from storage.members import Member

APPLIED = {
    PenaltyKind.SUSPENSION_DAYS: "suspension_days",
    PenaltyKind.LEAGUE_POINTS: "league_points",
    PenaltyKind.CALL_RESTRICTION_DAYS: "deny_call_days",
}


class RuleCatalogueDesk(DeskBase):
    """The general penalty model's rules in /katalog and in a draft (`po PRAVILO`); it extends the club's
    catalogue (`penalties`)."""

    def __init__(self, deps: DeskDeps, penalties: PenaltyDesk, trials: TrialDesk) -> None:
        super().__init__(deps)
        self.penalties = penalties
        self.trials = trials

    def catalogue_text(self) -> str:
        """/katalog: the club's catalogue, then the rules of the general model and the kinds of appeal."""
        rules = self.config.penalties.rules
        lines = [self.penalties.catalogue_text()] if self.config.penalties.catalogue or not rules else []
        if rules:
            lines.append(self.t("penalty_model.title"))
            for rule in rules:
                steps = " → ".join(self.step_text(step, rule.unit) for step in rule.steps)
                repeat = self.t("penalty_model.window", days=rule.window_days) if rule.window_days else ""
                if rule.tolerated_units:
                    repeat += self.t("penalty_model.tolerance", tolerated=rule.tolerated_units, unit=rule.unit)
                lines.append(
                    self.t(
                        "penalty_model.entry",
                        name=rule.name,
                        steps=steps,
                        repeat=repeat,
                        description=rule.description or "—",
                    )
                )
        kinds = ", ".join(self.t("appeal.kind_entry", name=k.name, days=k.days) for k in self.config.appeals.kinds)
        lines.append(self.t("appeal.kinds", kinds=kinds, review=self.config.appeals.review_days))
        if self.config.appeals.not_appealable:
            what = "; ".join(
                f"{n.description} ({n.name})" if n.name else n.description for n in self.config.appeals.not_appealable
            )
            lines.append(self.t("appeal.not_appealable", what=what))
        return "\n".join(lines)

    def step_text(self, step: Step, unit: str) -> str:
        text = self._step_text(step, unit)
        if step.also is not None:
            text += f" + {self.kind_text(step.also)} {step.also_amount}"
        return text

    def _step_text(self, step: Step, unit: str) -> str:
        kind = self.t(f"penalty_kind.{step.kind}")
        if step.ranged:
            return f"{kind} {step.low}–{step.high}"
        if step.per_unit:
            return self.t(
                "penalty_model.per_unit",
                kind=kind,
                amount=step.amount,
                per=step.per_unit,
                unit=unit or "—",
                free=step.free_units,
            )
        if step.kind is PenaltyKind.ASSIGNED_RESULT:
            return f"{kind} {step.amount}/{step.innocent}"
        if step.kind is PenaltyKind.ASSIGNED_IMPS:
            return f"{kind} {step.amount:+d}/{step.innocent:+d}"
        return f"{kind} {step.amount}" if step.amount else kind

    def kind_text(self, kind: PenaltyKind | str) -> str:
        """A penalty kind in the reader's words ("opomena", "% topa"), never its configuration name."""
        return self.t(f"penalty_kind.{kind}")

    def refused(self, refused: PenaltyRefused) -> Refused:
        """A rule's refusal with its kind in the reader's words."""
        values = dict(refused.params)
        if "kind" in values:
            values["kind"] = self.kind_text(str(values["kind"]))
        return Refused(refused.key, **values)

    async def draft(self, referee: Member, draft: Draft) -> Reply:
        verdict = draft.verdict
        limits = self.config.penalties
        if not (isinstance(verdict, Penalty) and verdict.offence) or find(limits.catalogue, verdict.offence):
            return await self.penalties.draft(referee, draft)
        rule = find_rule(limits.rules, verdict.offence)
        if rule is None:
            return await self.penalties.draft(referee, draft)  # the catalogue's own refusal names what there is
        earlier = [
            Earlier(at, at + timedelta(days=days) if days else None)
            for at, days in await offence_history(self.db, verdict.culprit, rule.name)
        ]
        level = repeat_level(rule, earlier, self.now())
        step = rule.steps[min(level, len(rule.steps) - 1)]
        field = APPLIED.get(step.kind)
        # The referee's figure within the rule's range: in the kind's own words (plavac, liga), or `iznos N`; a
        # suspension's days may be typed as `plavac N` too (the days a referee gives).
        typed = getattr(verdict, field) if field else 0
        if step.kind is PenaltyKind.SUSPENSION_DAYS:
            typed = typed or verdict.plavac_days
        chosen = typed or verdict.amount
        try:
            priced = price(rule, earlier, self.now(), units=verdict.units, chosen=chosen)
        except PenaltyRefused as refused:
            raise self.refused(refused) from None
        target = APPLIED.get(priced.kind)
        amount = {name: priced.amount if name == target else 0 for name in APPLIED.values()}
        # A kind this game applies (suspension as the plavac, league points, a call restriction) is applied; any
        # other (a warning, a share of a top, IMPs, an assigned result, a referral: a bridge club's) is the
        # verdict's sanction, recorded in the club's units.
        sanction = None if target is not None else Sanction.of(priced, verdict.units)
        drafted = Draft(
            replace(
                verdict,
                offence=rule.name,
                plavac_days=0,  # the rule decides what it costs: a plavac is the first club's, never a rule's
                suspension_days=amount["suspension_days"],
                league_points=amount["league_points"],
                deny_call_days=amount["deny_call_days"],
                sanction=sanction,
            ),
            draft.reason or rule.description,
        )
        # The rule's price is the catalogue's step here: PenaltyDesk.draft would look the name up in the other
        # catalogue, so the trial's own draft rules (limits, the paper) are applied directly.
        reply = await self.trials.draft(referee, drafted)
        if not reply.ok:
            return reply
        notes = []
        if priced.repeat:
            notes.append(self.t("penalty_model.repeat", repeat=priced.repeat, name=rule.name))
        if sanction is not None:
            notes.append(self.t("penalty_model.recorded", kind=self.kind_text(sanction.kind)))
        return Reply("\n".join([reply.text, *notes]), reply.buttons, reply.ok) if notes else reply
