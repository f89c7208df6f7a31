"""Out-of-game verdicts as pure rules: manual settlement conditions, plavac arithmetic, the league month, and who
is counted as having abandoned (napustio) an interrupted game.

Club text (Presuda van partije): a settlement needs at least 2/3 of all bule played and an hour since the
interruption; a plavac lasts at most 7 days, a penalty has at most 10 league points; one penalty per game — a new
penalty or (niko) first lifts the earlier one (the plavac is shortened by its days, the league points come back
if the league of that month is still open); the napustio count follows the verdict; a settled game cancels its
napustio and league points and counts as a finished game when big enough. Every figure is a parameter here, so a
club's configuration (`bot.config.PenaltyConfig`) decides the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from rules.limits import SETTLEMENT_DELAY, SETTLEMENT_PLAYED_SHARE

# Manual settlement -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SettlementFigures:
    """Both figures of the settlement rule, shown whenever a settlement is refused."""

    total: int  # all bule of the game (3 × size)
    played: int  # bule played so far (total − the bule still on the paper)
    needed: int  # bule that must be played (the configured share of `total`, rounded up)
    elapsed: timedelta  # since the interruption
    delay: timedelta  # that must have passed

    @property
    def enough_played(self) -> bool:
        return self.played >= self.needed

    @property
    def late_enough(self) -> bool:
        return self.elapsed >= self.delay

    @property
    def allowed(self) -> bool:
        return self.enough_played and self.late_enough


def settlement_figures(
    size: int,
    bule_left: int,
    interrupted_at: datetime,
    now: datetime,
    share: Fraction = SETTLEMENT_PLAYED_SHARE,
    delay: timedelta = SETTLEMENT_DELAY,
) -> SettlementFigures:
    """The settlement figures of a game of `size` bule per player with `bule_left` bule still on the paper."""
    total = 3 * size
    needed = -(-total * share.numerator // share.denominator)  # ceiling: "at least 2/3"
    return SettlementFigures(total, total - bule_left, needed, now - interrupted_at, delay)


def counts_as_finished(size: int, min_size: int) -> bool:
    """A settled game counts as any finished game when it is big enough (its size in bule per player)."""
    return size >= min_size


# Plavac --------------------------------------------------------------------------------------------------


def plavac_after_penalty(until: datetime | None, now: datetime, days: int) -> datetime:
    """A new plavac of `days` starts now, or when a plavac still running ends (penalties add up)."""
    start = until if until is not None and until > now else now
    return start + timedelta(days=days)


def plavac_after_lift(until: datetime | None, now: datetime, days: int) -> datetime | None:
    """Lifting a penalty shortens the running plavac by its days; None when nothing is left (it ends now, or it
    was already over)."""
    if until is None or until <= now:
        return None
    shortened = until - timedelta(days=days)
    return shortened if shortened > now else None


# The league month ----------------------------------------------------------------------------------------


def month_of(moment: datetime) -> str:
    """The league month of a moment, as ``YYYY-MM`` (UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m")


def parse_month(text: str) -> str:
    """A month typed as ``YYYY-MM``; ValueError otherwise."""
    moment = datetime.strptime(text.strip(), "%Y-%m")
    return moment.strftime("%Y-%m")


def month_start(month: str) -> datetime:
    return datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)


def month_end(month: str) -> datetime:
    """The first instant of the next month."""
    start = month_start(month)
    return start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)


def month_closes_at(month: str, grace: timedelta) -> datetime:
    """When the month closes by itself: `grace` after its end."""
    return month_end(month) + grace


def month_open(month: str, now: datetime, grace: timedelta, closed: bool) -> bool:
    """Open until an admin closes it or until the grace after its end has passed."""
    return not closed and now < month_closes_at(month, grace)


def previous_months(now: datetime, count: int) -> list[str]:
    """The `count` months before the month of `now`, newest first."""
    out: list[str] = []
    start = month_start(month_of(now))
    for _ in range(count):
        start = (
            start.replace(year=start.year - 1, month=12) if start.month == 1 else start.replace(month=start.month - 1)
        )
        out.append(month_of(start))
    return out


# Napustio ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameVerdict:
    """An out-of-game verdict that decides who abandoned a game: (niko) when `culprit` is None."""

    culprit: str | None
    abandoned: bool


def counted_abandoner(first_leaver: str | None, verdicts: Sequence[GameVerdict], settled: bool) -> str | None:
    """Who is counted as having abandoned an interrupted game.

    The log's first leaver, unless the latest verdict decides otherwise: (niko) — nobody; a penalty with
    `abandoned` — its culprit; a penalty without it — the first leaver again (a new penalty lifts the earlier one
    with its napustio). A manually settled game counts nobody.
    """
    if settled:
        return None
    if not verdicts:
        return first_leaver
    last = verdicts[-1]
    if last.culprit is None:
        return None
    return last.culprit if last.abandoned else first_leaver
