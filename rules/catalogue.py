"""A club's penalty catalogue and its escalation for repeat offences, held as configuration.

Other clubs judge by a catalogue: a bridge federation's list of offences with fixed penalties (seed 001), or a
preferans site whose suspensions grow for a repeat offence within three months (seed 003). A catalogue entry
names an offence and what it costs (plavac days, league points); `escalate` applies the club's escalation: each
earlier penalty for the same offence within the window multiplies the cost by `factor`, capped by the club's
limits. The referee may still give any penalty by hand; an entry is a preset he names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


class CatalogueError(ValueError):
    """A catalogue in the configuration that cannot be used; the message says which entry and why."""


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    name: str  # what the referee types: /presuda kazna NICK po NAME
    description: str = ""
    plavac_days: int = 0
    league_points: int = 0
    deny_call_days: int = 0  # the right to call a referee denied (e.g. for unfounded calls, seed 003)


@dataclass(frozen=True, slots=True)
class Escalation:
    window_days: int = 0  # 0: no escalation
    factor: int = 2


@dataclass(frozen=True, slots=True)
class Cost:
    plavac_days: int
    league_points: int
    deny_call_days: int
    repeats: int  # earlier penalties for the same offence within the window
    capped: bool  # the escalated cost was cut to the club's limits


def parse_catalogue(raw: Sequence[Mapping[str, Any]]) -> tuple[CatalogueEntry, ...]:
    entries: list[CatalogueEntry] = []
    for i, item in enumerate(raw, start=1):
        try:
            entry = CatalogueEntry(**dict(item))
        except TypeError as exc:
            raise CatalogueError(f"penalties.catalogue entry {i}: {exc}") from None
        if not entry.name or " " in entry.name:
            raise CatalogueError(f"penalties.catalogue entry {i}: 'name' must be one word, not {entry.name!r}")
        costs = (entry.plavac_days, entry.league_points, entry.deny_call_days)
        if min(costs) < 0 or sum(costs) == 0:
            raise CatalogueError(
                f"penalties.catalogue entry {entry.name!r}: give plavac_days, league_points "
                "and/or deny_call_days (not negative)"
            )
        if any(e.name.casefold() == entry.name.casefold() for e in entries):
            raise CatalogueError(f"penalties.catalogue: the name {entry.name!r} appears twice")
        entries.append(entry)
    return tuple(entries)


def parse_escalation(raw: Mapping[str, Any]) -> Escalation:
    try:
        escalation = Escalation(**dict(raw))
    except TypeError as exc:
        raise CatalogueError(f"penalties.escalation: {exc}") from None
    if escalation.window_days < 0 or escalation.factor < 1:
        raise CatalogueError("penalties.escalation: window_days must be ≥ 0 and factor ≥ 1")
    return escalation


def find(entries: Sequence[CatalogueEntry], name: str) -> CatalogueEntry | None:
    return next((e for e in entries if e.name.casefold() == name.casefold()), None)


def escalate(
    entry: CatalogueEntry,
    earlier: Sequence[datetime],
    now: datetime,
    escalation: Escalation,
    plavac_limit: int,
    league_limit: int,
) -> Cost:
    """The cost of `entry` for a member whose earlier penalties for the same offence were given at `earlier`."""
    window = timedelta(days=escalation.window_days)
    repeats = sum(1 for at in earlier if escalation.window_days and now - window <= at <= now)
    factor = escalation.factor**repeats
    plavac, league = entry.plavac_days * factor, entry.league_points * factor
    capped = plavac > plavac_limit or league > league_limit
    return Cost(min(plavac, plavac_limit), min(league, league_limit), entry.deny_call_days * factor, repeats, capped)
