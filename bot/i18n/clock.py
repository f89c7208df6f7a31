"""The club's clock as members read it: a moment in the club's time zone with the language's date format, and
durations in words with their plural forms ("3 dana 2 sata", "5 minuta")."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import cache, lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime, format_skeleton, get_month_names

from bot.i18n import LOCALES

DEFAULT_TIMEZONE = "Europe/Belgrade"

#: Each language's date and time (CLDR patterns): 3.12.2026. 13:00 · 3 Dec 2026, 13:00 · 03.12.2026 13:00.
PATTERNS: dict[str, str] = {
    "sr": "d.M.yyyy. HH:mm",
    "sr-Cyrl": "d.M.yyyy. HH:mm",
    "en": "d MMM yyyy, HH:mm",
    "ru": "dd.MM.yyyy HH:mm",
}
#: The catalogue's plural entries a duration is written with, largest first.
DURATION_UNITS = (("unit.days", 24 * 60), ("unit.hours", 60), ("unit.minutes", 1))
LOCAL_TEXTS_KEPT = 8192  # moments written (`local_text`) kept, the least recently asked forgotten first


@cache
def zone(name: str) -> tzinfo:
    return ZoneInfo(name)


def known_zone(name: str) -> bool:
    try:
        zone(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


@lru_cache(maxsize=LOCAL_TEXTS_KEPT)
def local_text(moment: datetime, language: str, zone_name: str, locale: str) -> str:
    """The moment in the club's zone, written the language's way (a naive moment is taken as UTC). A pure function
    of its arguments (the zone's rules and the CLDR data are fixed for the process), so the moments a page shows
    again and again (a trial's every message on Suđenja) are formatted once."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(zone(zone_name))
    return format_datetime(local, PATTERNS[language], locale=locale)


def duration_parts(value: timedelta) -> list[tuple[str, int]]:
    """(unit key, amount) for days, hours and minutes; at least the minutes."""
    total = max(0, int(value.total_seconds() // 60))
    parts: list[tuple[str, int]] = []
    for key, size in DURATION_UNITS:
        amount, total = divmod(total, size)
        if amount:
            parts.append((key, amount))
    return parts or [("unit.minutes", 0)]


def week_span(week: str, language: str) -> str:
    """An ISO week (``2026-W49``) as its first and last day in the language's short date (``30. 11. – 6. 12.``);
    a key that is no ISO week is shown as it is."""
    monday = _week_monday(week)
    if monday is None:
        return week
    locale = LOCALES[language]
    first = format_skeleton("Md", monday, locale=locale)
    return f"{first} – {format_skeleton('Md', monday + timedelta(days=6), locale=locale)}"


def week_start(week: str, language: str) -> str:
    """An ISO week's Monday in the language's short date (``30. 11.``): a chart's label under the week's bar."""
    monday = _week_monday(week)
    return week if monday is None else format_skeleton("Md", monday, locale=LOCALES[language])


def _week_monday(week: str) -> date | None:
    year, _, number = week.partition("-W")
    if not (year.isdigit() and number.isdigit()):
        return None
    try:
        return date.fromisocalendar(int(year), int(number), 1)
    except ValueError:
        return None


def _moment_patterns() -> dict[str, re.Pattern[str]]:
    months = "|".join(re.escape(str(m)) for m in get_month_names("abbreviated", locale="en").values())
    serbian = re.compile(r"\b(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})\. (?P<H>\d\d):(?P<M>\d\d)\b")
    return {
        "sr": serbian,
        "sr-Cyrl": serbian,
        "en": re.compile(rf"\b(?P<d>\d{{1,2}}) (?P<mon>{months}) (?P<y>\d{{4}}), (?P<H>\d\d):(?P<M>\d\d)\b"),
        "ru": re.compile(r"\b(?P<d>\d\d)\.(?P<m>\d\d)\.(?P<y>\d{4}) (?P<H>\d\d):(?P<M>\d\d)\b"),
    }


_PATTERNS = _moment_patterns()
_MONTH_NUMBER = {str(name): number for number, name in get_month_names("abbreviated", locale="en").items()}


def discord_times(text: str, language: str, zone_name: str, now: datetime | None = None) -> str:
    """Every moment `local_text` wrote in `text` as a Discord timestamp, which each member's client shows in his
    own time (``<t:…:f>``), and, for a moment still to come, also how far off it is (``<t:…:R>``: "in 5 minutes").
    A moment in the repeated hour of the autumn change is read as its first occurrence."""

    def stamp(match: re.Match[str]) -> str:
        month = int(match["m"]) if "m" in match.groupdict() and match["m"] else _MONTH_NUMBER[match["mon"]]
        local = datetime(
            int(match["y"]), month, int(match["d"]), int(match["H"]), int(match["M"]), tzinfo=zone(zone_name)
        )
        epoch = int(local.timestamp())
        if now is not None and local > now:
            return f"<t:{epoch}:f> (<t:{epoch}:R>)"
        return f"<t:{epoch}:f>"

    return _PATTERNS[language].sub(stamp, text)
