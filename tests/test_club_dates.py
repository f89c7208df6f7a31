"""A day a member types (`/uskrati NADIMAK do GGGG-MM-DD`) is that day on the club's clock, as `/statistika od … do …`
and the Partije search read theirs: a Belgrade club's "do 2026-12-20" ends at its own midnight, never at the UTC
midnight it would show as 01:00."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config import Config
from bot.console.runner import run_console
from bot.ports import ManualClock
from storage.database import open_database

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "until", "shown"),
    [
        ("Europe/Belgrade", datetime(2026, 12, 19, 23, 0, tzinfo=UTC), "do 20.12.2026. 00:00"),
        ("UTC", datetime(2026, 12, 20, 0, 0, tzinfo=UTC), "do 20.12.2026. 00:00"),
        ("America/New_York", datetime(2026, 12, 20, 5, 0, tzinfo=UTC), "do 20.12.2026. 00:00"),
    ],
)
async def test_a_denial_until_a_day_ends_at_the_clubs_midnight(
    tmp_path: Path, zone: str, until: datetime, shown: str
) -> None:
    out = io.StringIO()
    script = "@vesna /uskrati marko do 2026-12-20 -- odugovlačenje\n@marko /clan\n"
    status = await run_console(
        Config(timezone=zone), str(tmp_path / "d.db"), True, io.StringIO(script), out, io.StringIO(), ManualClock(NOW)
    )
    assert status == 0
    said = out.getvalue()
    assert said.count(shown) == 3  # told to marko, to vesna, and on marko's card
    db = await open_database(tmp_path / "d.db")
    try:
        marko = await db.members.by_nick("marko")
        assert marko is not None
        ban = await db.members.call_ban(marko.id)
        assert ban is not None
        assert ban.until == until
    finally:
        await db.close()
