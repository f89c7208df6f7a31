"""The club's clock as members read it: a moment in the club's time zone with the language's date format, and
durations in words with their plural forms ("3 dana 2 sata", "5 minuta")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime

DEFAULT_TIMEZONE = "Europe/Belgrade"

#: Each language's date and time (CLDR patterns): 3.12.2026. 13:00 · 3 Dec 2026, 13:00 · 03.12.2026 13:00.
PATTERNS: dict[str, str] = {"sr": "d.M.yyyy. HH:mm", "sr-Cyrl": "d.M.yyyy. HH:mm", "en": "d MMM yyyy, HH:mm",
                            "ru": "dd.MM.yyyy HH:mm"}
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
