"""A general penalty model for a club's catalogue, held as configuration (`[[penalties.rules]]`).

The first club's catalogue knows plavac days, league points and call denials (`rules.catalogue`). Other clubs
punish otherwise: a bridge federation (seed 001) warns first and then takes 10% of a top (or 1 IMP) per minute of
lateness after the first, assigns 40% / 60% results for an unplayed board, and fines unsportsmanlike conduct at
least 50% and then 100%; a preferans site (seed 003) suspends for 10 days, 14 for a repeat within three months of
the end of the earlier suspension, with a six-month probation after a repeat, and gives an appeal restriction of
30–365 days. A rule names an offence and its steps — the penalty of the first offence, of the first repeat, …
(the last step repeats) — each of one kind, with a fixed amount, an amount per unit beyond some free units, or a
range the referee chooses within. `price` says what an offence costs a member now, given his earlier penalties
under the same rule; a refusal names the limit (`PenaltyRefused.key` and its params, for the message catalogue).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any


class PenaltyKind(StrEnum):
    WARNING = "warning"  # opomena: nothing but the record (it counts for the next step)
    BULE = "bule"  # bule added to the culprit's paper
    LEAGUE_POINTS = "league_points"
    TOP_SHARE = "top_share"  # percent of a top (bridge: matchpoints)
    IMPS = "imps"
    ASSIGNED_RESULT = "assigned_result"  # percent for the offenders, `innocent` percent for the innocent side
    ASSIGNED_IMPS = "assigned_imps"  # the same in IMPs: −3 for the offenders, `innocent` (+3) for the innocent side
    SUSPENSION_DAYS = "suspension_days"  # from play (the first club: plavac, unrated games only)
    CALL_RESTRICTION_DAYS = "call_restriction_days"
    APPEAL_RESTRICTION_DAYS = "appeal_restriction_days"
    REFERRAL = "referral"  # to a committee (disciplinary, jury): no amount


SIGNED = frozenset({PenaltyKind.IMPS, PenaltyKind.ASSIGNED_IMPS})  # IMPs are a score: a figure may be negative


class PenaltyModelError(ValueError):
    """A `[[penalties.rules]]` entry that cannot be used; the message says which and why."""


class PenaltyRefused(ValueError):
    """The referee's figures do not fit the rule; `key` and `params` say which limit."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class Step:
    kind: PenaltyKind
    amount: int = 0  # fixed part (percent, IMPs, days, points, bule)
    per_unit: int = 0  # plus this much per unit beyond `free_units` (10% per minute after the first)
    free_units: int = 0
    low: int = 0  # with `high`: a range the referee chooses within (`amount` is then the default)
    high: int = 0
    innocent: int = 0  # assigned_result (assigned_imps): the innocent side's percent, 60 (IMPs, +3)
    cap: int = 0  # the most a computed amount may reach (0: no cap)
    also: PenaltyKind | None = None  # an additional fixed penalty with it (a second unplayed board: +50% of a top)
    also_amount: int = 0

    @property
    def ranged(self) -> bool:
        return self.high > 0


@dataclass(frozen=True, slots=True)
class PenaltyRule:
    name: str
    steps: tuple[Step, ...]  # the first offence, the first repeat, …; the last one repeats
    description: str = ""
    unit: str = ""  # what per_unit counts: "minute", "board"
    tolerated_units: int = 0  # up to this many units is no offence at all ("Jedan minut kašnjenja se toleriše")
    window_days: int = 0  # an earlier offence within this many days makes a repeat (0: every earlier one)
    from_end: bool = False  # the window runs from the end of the earlier penalty (served), not from when it was given
    probation_days: int = 0  # after a repeat, the window for the next offence is this long instead


@dataclass(frozen=True, slots=True)
class Earlier:
    """An earlier penalty of the member under the same rule."""

    given_at: datetime
    ended_at: datetime | None = None  # a suspension's end; None: as given


@dataclass(frozen=True, slots=True)
class Priced:
    kind: PenaltyKind
    amount: int
    innocent: int
    repeat: int  # 0: a first offence; 1: the first repeat; …
    capped: bool
    also: PenaltyKind | None = None
    also_amount: int = 0


@dataclass(frozen=True, slots=True)
class Sanction:
    """A penalty recorded in the club's own units, as its catalogue prices it (a warning, a share of a top, IMPs,
    an assigned result, a referral): what a verdict names when the game it judges has no such scoring to apply it
    to. `units` is what a per-unit rule counted (the minutes of a delay), `repeat` the step of the escalation."""

    kind: PenaltyKind
    amount: int = 0
    innocent: int = 0
    units: int | None = None
    repeat: int = 0
    also: PenaltyKind | None = None
    also_amount: int = 0

    @classmethod
    def of(cls, priced: Priced, units: int | None) -> Sanction:
        return cls(priced.kind, priced.amount, priced.innocent, units, priced.repeat, priced.also, priced.also_amount)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind.value, "amount": self.amount, "repeat": self.repeat}
        if self.innocent:
            data["innocent"] = self.innocent
        if self.units is not None:
            data["units"] = self.units
        if self.also is not None:
            data.update(also=self.also.value, also_amount=self.also_amount)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Sanction:
        also = data.get("also")
        units = data.get("units")
        return cls(
            PenaltyKind(str(data["kind"])),
            int(data.get("amount", 0)),
            int(data.get("innocent", 0)),
            None if units is None else int(units),
            int(data.get("repeat", 0)),
            None if also is None else PenaltyKind(str(also)),
            int(data.get("also_amount", 0)),
        )


def _within(rule: PenaltyRule, earlier: Earlier, was_repeat: bool, moment: datetime) -> bool:
    days = rule.probation_days if was_repeat and rule.probation_days else rule.window_days
    if not days:
        return True
    start = earlier.ended_at if rule.from_end and earlier.ended_at is not None else earlier.given_at
    return moment - start <= timedelta(days=days)


def repeat_level(rule: PenaltyRule, earlier: Sequence[Earlier], now: datetime) -> int:
    """How many offences in an unbroken chain of repeats precede this one (0: it is a first offence)."""
    levels: list[int] = []
    history = sorted(earlier, key=lambda e: e.given_at)
    for i, item in enumerate(history):
        if i == 0:
            levels.append(0)
            continue
        chained = _within(rule, history[i - 1], levels[-1] > 0, item.given_at)
        levels.append(levels[-1] + 1 if chained else 0)
    if not history or not _within(rule, history[-1], levels[-1] > 0, now):
        return 0
    return levels[-1] + 1


def price(
    rule: PenaltyRule, earlier: Sequence[Earlier], now: datetime, units: int | None = None, chosen: int | None = None
) -> Priced:
    """What the offence costs now; PenaltyRefused when a figure the rule needs is missing or out of its range."""
    if rule.tolerated_units:
        # The tolerance is measured on every offence, the first (a warning) too: "Za prvo kašnjenje preko jednog
        # minuta par dobija opomenu". What it tolerates is no offence, so it is never recorded nor counted later.
        if units is None or units < 0:
            raise PenaltyRefused("penalty_model.units_needed", name=rule.name, unit=rule.unit or "unit")
        if units <= rule.tolerated_units:
            raise PenaltyRefused(
                "penalty_model.tolerated", name=rule.name, units=units, tolerated=rule.tolerated_units, unit=rule.unit
            )
    level = repeat_level(rule, earlier, now)
    step = rule.steps[min(level, len(rule.steps) - 1)]
    if step.ranged:
        amount = step.amount if chosen is None else chosen
        if not step.low <= amount <= step.high:
            raise PenaltyRefused(
                "penalty_model.out_of_range", name=rule.name, low=step.low, high=step.high, kind=str(step.kind)
            )
        return Priced(step.kind, amount, step.innocent, level, False, step.also, step.also_amount)
    if chosen is not None:
        raise PenaltyRefused("penalty_model.fixed", name=rule.name, amount=step.amount, kind=str(step.kind))
    amount = step.amount
    if step.per_unit:
        if units is None or units < 0:
            raise PenaltyRefused("penalty_model.units_needed", name=rule.name, unit=rule.unit or "unit")
        amount += step.per_unit * max(0, units - step.free_units)
    capped = bool(step.cap) and amount > step.cap
    amount = min(amount, step.cap) if capped else amount
    return Priced(step.kind, amount, step.innocent, level, capped, step.also, step.also_amount)


def parse_rules(raw: Sequence[Mapping[str, Any]]) -> tuple[PenaltyRule, ...]:
    rules: list[PenaltyRule] = []
    for i, item in enumerate(raw, start=1):
        data = dict(item)
        where = f"penalties.rules entry {i} ({data.get('name', '?')})"
        steps = []
        for j, raw_step in enumerate(data.pop("steps", []), start=1):
            step_data = dict(raw_step)
            try:
                step_data["kind"] = PenaltyKind(str(step_data.get("kind")))
                if "also" in step_data:
                    step_data["also"] = PenaltyKind(str(step_data["also"]))
                step = Step(**step_data)
            except ValueError:
                raise PenaltyModelError(
                    f"{where}, step {j}: kind must be one of {', '.join(k.value for k in PenaltyKind)}"
                ) from None
            except TypeError as exc:
                raise PenaltyModelError(f"{where}, step {j}: {exc}") from None
            figures = (step.amount, step.per_unit, step.free_units, step.low, step.high, step.innocent, step.cap)
            if min(figures) < 0 and step.kind not in SIGNED:
                raise PenaltyModelError(f"{where}, step {j}: figures must not be negative")
            if step.ranged and not step.low <= step.amount <= step.high and step.amount:
                raise PenaltyModelError(f"{where}, step {j}: amount {step.amount} is outside {step.low} … {step.high}")
            steps.append(step)
        if not steps:
            raise PenaltyModelError(f"{where}: give at least one [[penalties.rules.steps]]")
        try:
            rule = PenaltyRule(steps=tuple(steps), **data)
        except TypeError as exc:
            raise PenaltyModelError(f"{where}: {exc}") from None
        if not rule.name or " " in rule.name:
            raise PenaltyModelError(f"{where}: 'name' must be one word")
        if min(rule.window_days, rule.probation_days, rule.tolerated_units) < 0:
            raise PenaltyModelError(f"{where}: window_days, probation_days and tolerated_units must not be negative")
        if rule.tolerated_units and not rule.unit:
            raise PenaltyModelError(f"{where}: tolerated_units counts the rule's 'unit'; name it")
        if any(r.name.casefold() == rule.name.casefold() for r in rules):
            raise PenaltyModelError(f"penalties.rules: the name {rule.name!r} appears twice")
        rules.append(rule)
    return tuple(rules)


def find_rule(rules: Sequence[PenaltyRule], name: str) -> PenaltyRule | None:
    return next((r for r in rules if r.name.casefold() == name.casefold()), None)
