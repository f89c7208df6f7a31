"""The council's figures about the referee desk, from the facts of the calls and trials of a period (pure).

For the councilors, who admit and dismiss referees: calls per week, the time from a call to its Sudi (p50 and
p95, nearest rank), the calls that expired and at which hours, trials and their outcomes per referee by verdict
kind (bule, bula, kazna, svodjenje, niko; bez for Bez presude; interrupted; open), the interrupted trials by
reason, the appeals filed and how they stand or were decided (filed, taken, upheld, rejected, inadmissible), the
sanctions recorded in the club's units by kind (warning, top_share, imps, …: another club's catalogue), and the
calls and expiries by hour of day and by week for the chart. Hours and weeks are in the club's
time zone; a week is the ISO week (``2026-W48``). `figures_json` and `figures_csv` are the stable outputs.
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

OUTCOMES = ("verdict", "no_verdict", "interrupted", "open")


@dataclass(frozen=True, slots=True)
class CallFact:
    id: int
    created_at: datetime
    state: str  # pending, taken, withdrawn, expired
    closed_at: datetime | None  # taken, withdrawn or expired at


@dataclass(frozen=True, slots=True)
class TrialFact:
    id: int
    referee: str  # the referee's nickname
    opened_at: datetime
    outcome: str  # open, verdict, no_verdict, interrupted
    verdict_kind: str | None  # the recorded verdict's kind (bule, bula, kazna, svodjenje, niko, bez)
    end_reason: str | None
    sanction: str | None = None  # a penalty's sanction in the club's units: its kind (warning, top_share, …)


@dataclass(frozen=True, slots=True)
class AppealFact:
    id: int
    filed_at: datetime
    state: str  # filed, taken, upheld, rejected, inadmissible


@dataclass(frozen=True)
class RefereeFigures:
    trials: int
    by_kind: dict[str, int]  # verdict kinds, "bez", "interrupted", "open"


@dataclass(frozen=True)
class Figures:
    calls: int
    taken: int
    withdrawn: int
    expired: int
    pending: int
    calls_per_week: dict[str, int]
    expired_per_week: dict[str, int]
    calls_by_hour: tuple[int, ...]  # 24 counts, hour of day in the club's zone
    expired_by_hour: tuple[int, ...]
    to_sudi_p50: float | None  # seconds from the call to its Sudi
    to_sudi_p95: float | None
    trials: int
    interrupted: int
    interrupted_by_reason: dict[str, int]
    referees: dict[str, RefereeFigures] = field(default_factory=dict)
    appeals: int = 0
    appeals_by_state: dict[str, int] = field(default_factory=dict)
    sanctions: dict[str, int] = field(default_factory=dict)  # recorded verdicts' sanctions, by kind


def percentile(values: Sequence[float], p: float) -> float | None:
    """The nearest-rank percentile: the smallest value with at least p% of the values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def week_of(moment: datetime, zone: tzinfo) -> str:
    year, week, _ = moment.astimezone(zone).isocalendar()
    return f"{year}-W{week:02d}"


def kind_of(trial: TrialFact) -> str:
    """The column a trial counts in for its referee."""
    if trial.outcome == "verdict":
        return trial.verdict_kind or "?"
    if trial.outcome == "no_verdict":
        return "bez"
    return trial.outcome


def compute(
    calls: Sequence[CallFact], trials: Sequence[TrialFact], zone: tzinfo, appeals: Sequence[AppealFact] = ()
) -> Figures:
    states = Counter(c.state for c in calls)
    per_week = Counter(week_of(c.created_at, zone) for c in calls)
    expired = [c for c in calls if c.state == "expired"]
    expired_week = Counter(week_of(c.created_at, zone) for c in expired)
    by_hour = [0] * 24
    for c in calls:
        by_hour[c.created_at.astimezone(zone).hour] += 1
    expired_hour = [0] * 24
    for c in expired:  # the hour the call was made: when nobody came
        expired_hour[c.created_at.astimezone(zone).hour] += 1
    waits = [
        (c.closed_at - c.created_at).total_seconds() for c in calls if c.state == "taken" and c.closed_at is not None
    ]
    referees: dict[str, Counter[str]] = {}
    counts: Counter[str] = Counter()
    for t in trials:
        referees.setdefault(t.referee, Counter())[kind_of(t)] += 1
        counts[t.referee] += 1
    interrupted = [t for t in trials if t.outcome == "interrupted"]
    return Figures(
        calls=len(calls),
        taken=states["taken"],
        withdrawn=states["withdrawn"],
        expired=states["expired"],
        pending=states["pending"],
        calls_per_week=dict(sorted(per_week.items())),
        expired_per_week=dict(sorted(expired_week.items())),
        calls_by_hour=tuple(by_hour),
        expired_by_hour=tuple(expired_hour),
        to_sudi_p50=percentile(waits, 50),
        to_sudi_p95=percentile(waits, 95),
        trials=len(trials),
        interrupted=len(interrupted),
        interrupted_by_reason=dict(sorted(Counter(t.end_reason or "unknown" for t in interrupted).items())),
        referees={
            nick: RefereeFigures(counts[nick], dict(sorted(kinds.items()))) for nick, kinds in sorted(referees.items())
        },
        appeals=len(appeals),
        appeals_by_state=dict(sorted(Counter(a.state for a in appeals).items())),
        sanctions=dict(sorted(Counter(t.sanction for t in trials if t.outcome == "verdict" and t.sanction).items())),
    )


def figures_json(figures: Figures, start: str | None = None, end: str | None = None) -> dict[str, Any]:
    """Stable keys: period, calls, time_to_sudi_seconds, trials, referees, appeals, sanctions, chart."""
    return {
        "period": {"from": start, "to": end},
        "calls": {
            "total": figures.calls,
            "taken": figures.taken,
            "withdrawn": figures.withdrawn,
            "expired": figures.expired,
            "pending": figures.pending,
            "per_week": figures.calls_per_week,
            "expired_per_week": figures.expired_per_week,
            "expired_by_hour": {str(h): n for h, n in enumerate(figures.expired_by_hour) if n},
        },
        "time_to_sudi_seconds": {"p50": figures.to_sudi_p50, "p95": figures.to_sudi_p95},
        "trials": {
            "total": figures.trials,
            "interrupted": figures.interrupted,
            "interrupted_by_reason": figures.interrupted_by_reason,
        },
        "referees": {nick: {"trials": r.trials, "by_kind": r.by_kind} for nick, r in figures.referees.items()},
        "appeals": {"total": figures.appeals, "by_state": figures.appeals_by_state},
        "sanctions": figures.sanctions,
        "chart": {"calls_by_hour": list(figures.calls_by_hour), "expired_by_hour": list(figures.expired_by_hour)},
    }


def figures_csv(figures: Figures) -> str:
    """One figure a row: ``section,key,value`` (a spreadsheet pivots it as it likes)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", "key", "value"])
    for key in ("calls", "taken", "withdrawn", "expired", "pending", "trials", "interrupted"):
        writer.writerow(["totals", key, getattr(figures, key)])
    writer.writerow(["time_to_sudi_seconds", "p50", "" if figures.to_sudi_p50 is None else figures.to_sudi_p50])
    writer.writerow(["time_to_sudi_seconds", "p95", "" if figures.to_sudi_p95 is None else figures.to_sudi_p95])
    for week, n in figures.calls_per_week.items():
        writer.writerow(["calls_per_week", week, n])
    for week, n in figures.expired_per_week.items():
        writer.writerow(["expired_per_week", week, n])
    for hour in range(24):
        writer.writerow(["calls_by_hour", hour, figures.calls_by_hour[hour]])
    for hour in range(24):
        writer.writerow(["expired_by_hour", hour, figures.expired_by_hour[hour]])
    for reason, n in figures.interrupted_by_reason.items():
        writer.writerow(["interrupted_by_reason", reason, n])
    writer.writerow(["appeals", "total", figures.appeals])
    for state, n in figures.appeals_by_state.items():
        writer.writerow(["appeals", state, n])
    for kind, n in figures.sanctions.items():
        writer.writerow(["sanctions", kind, n])
    for nick, r in figures.referees.items():
        writer.writerow([_cell(f"referee:{nick}"), "trials", r.trials])
        for kind, n in r.by_kind.items():
            writer.writerow([_cell(f"referee:{nick}"), kind, n])
    return out.getvalue()


def _cell(text: str) -> str:
    """A nickname cannot become a spreadsheet formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
