"""The club's clock as members read it: a moment in the club's time zone with the language's date format, and
durations in words with their plural forms ("3 dana 2 sata", "5 minuta")."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime, get_month_names

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


@cache
def zone(name: str) -> tzinfo:
    return ZoneInfo(name)


def known_zone(name: str) -> bool:
    try:
        zone(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def local_text(moment: datetime, language: str, zone_name: str, locale: str) -> str:
    """The moment in the club's zone, written the language's way (a naive moment is taken as UTC)."""
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
