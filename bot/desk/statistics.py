"""The council's figures (`/statistika [od DATUM] [do DATUM]`, `sudija statistika`): the period in the club's time
zone, the facts from storage, the figures (`rules.statistics`) in words and as a chart.

Only councilors (and the owner) see them: they decide on admitting and dismissing referees.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.i18n.clock import week_span
from bot.i18n.words import catalogue_words
from bot.messages import Catalogue
from bot.ports import Picture, Reply
from rules.members import OWNER, Member, Role
from rules.statistics import Figures, compute
from storage.states import EndReason
from storage.statistics import period_facts

if TYPE_CHECKING:
    from bot.desk import Desk
    from storage.database import Database

#: The kinds a referee's trials are counted by (`rules.statistics.kind_of`), each a ``stats.kind.*`` entry.
TRIAL_KINDS = ("bule", "bula", "kazna", "svodjenje", "niko", "bez", "interrupted", "open")
CLUB_ZONE = "Europe/Belgrade"  # decisions.md: the club's time zone by default


def club_zone(name: str = CLUB_ZONE) -> tzinfo:
    """The club's zone; UTC where the system has no time-zone data."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def period(start: date | None, end: date | None, zone: tzinfo) -> tuple[datetime | None, datetime | None]:
    """``od``…``do`` as instants: from the start day's midnight to the midnight after the end day (both included)."""
    low = datetime.combine(start, time(), tzinfo=zone) if start is not None else None
    high = datetime.combine(end + timedelta(days=1), time(), tzinfo=zone) if end is not None else None
    return low, high


async def council_figures(db: Database, start: date | None, end: date | None, zone: tzinfo) -> Figures:
    low, high = period(start, end, zone)
    calls, trials, appeals = await period_facts(db, low, high)
    return compute(calls, trials, zone, appeals)


def _duration(seconds: float | None, m: Catalogue) -> str:
    """A wait in minutes and seconds, each through its plural form (``1 minut 5 sekundi``, ``40 секунд``)."""
    if seconds is None:
        return "—"
    minutes, secs = divmod(round(seconds), 60)
    parts = [m.t("unit.minutes", n=minutes)] if minutes else []
    if secs or not minutes:
        parts.append(m.t("unit.seconds", n=secs))
    return " ".join(parts)


def _kind(kind: str, m: Catalogue) -> str:
    """A referee's trials by kind in words: a verdict's kind, Bez presude, interrupted, still open."""
    return m.t(f"stats.kind.{kind}") if kind in TRIAL_KINDS else m.t("stats.kind.other", kind=kind)


def figures_text(figures: Figures, lang: str, start: date | None, end: date | None) -> str:
    w = catalogue_words(lang, "stats.")
    m = Catalogue(lang)
    span = (w["from"].format(start=start) if start else "") + (w["to"].format(end=end) if end else "")
    hours = ", ".join(f"{h}h: {n}" for h, n in enumerate(figures.expired_by_hour) if n) or w["none"]
    weeks = ", ".join(f"{week_span(k, lang)}: {n}" for k, n in figures.calls_per_week.items()) or w["none"]
    reasons = ", ".join(f"{m.t(EndReason.key_of(k))}: {n}" for k, n in figures.interrupted_by_reason.items())
    lines = [
        w["title"].format(period=span),
        w["calls"].format(
            total=figures.calls,
            taken=figures.taken,
            withdrawn=figures.withdrawn,
            expired=figures.expired,
            pending=figures.pending,
        ),
        w["wait"].format(p50=_duration(figures.to_sudi_p50, m), p95=_duration(figures.to_sudi_p95, m)),
        w["expired_hours"].format(hours=hours),
        w["weeks"].format(weeks=weeks),
        w["trials"].format(
            total=figures.trials, interrupted=figures.interrupted, reasons=f" ({reasons})" if reasons else ""
        ),
    ]
    for nick, ref in figures.referees.items():
        kinds = ", ".join(f"{_kind(k, m)}: {n}" for k, n in ref.by_kind.items())
        lines.append(w["referee"].format(nick=nick, trials=ref.trials, kinds=kinds))
    if figures.sanctions:
        named = catalogue_words(lang, "penalty_kind.")
        kinds = ", ".join(f"{named.get(k, k)} {n}" for k, n in figures.sanctions.items())
        lines.append(w["sanctions"].format(kinds=kinds))
    return "\n".join(lines)


async def statistics(desk: Desk, member: Member, start: date | None, end: date | None) -> Reply:
    """/statistika: the figures for a councilor (or the owner), with the chart; anyone else is refused."""
    if {Role.COUNCILOR, OWNER}.isdisjoint(desk.lookups.roles_of(member)):
        return desk.voice.refuse("statistika.only_councilors")
    if start is not None and end is not None and start > end:
        return desk.voice.refuse("statistika.bad_period", start=start, end=end)
    from bot.pictures.chart import chart_png  # noqa: PLC0415 (Pillow only when drawn)

    lang = desk.voice.messages.language  # the reader's (/jezik), else the club's
    figures = await council_figures(desk.db, start, end, club_zone())
    text = figures_text(figures, lang, start, end)
    return Reply(text, pictures=(Picture("statistika.png", chart_png(figures, lang), text.split("\n")[0]),))
