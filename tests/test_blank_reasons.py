"""A reason that shows a reader nothing — zero-width marks, a direction override, the braille blank — is no reason:
where one is required (Bez presude, (niko), a dismissal) it is refused as an empty one is, the draft that stood is
kept, and an optional one is recorded as none rather than as an invisible text."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config import Config
from bot.console.runner import run_console
from bot.messages import Catalogue
from bot.ports import ManualClock
from rules.nicknames import is_blank
from storage.database import open_database

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SR = Catalogue("sr")
INVISIBLE = ["\u200b", "\u202e\u2066", "\u2800", " \u200d\ufe0f ", "\u3164"]


async def _run(db: Path, script: str) -> str:
    out = io.StringIO()
    status = await run_console(Config(), str(db), True, io.StringIO(script), out, io.StringIO(), ManualClock(NOW))
    assert status == 0
    return out.getvalue()


@pytest.mark.parametrize("text", INVISIBLE)
def test_invisible_text_is_blank(text: str) -> None:
    assert is_blank(text)


@pytest.mark.parametrize("text", ["x", "👨\u200d👩\u200d👧", "\u200bnije\u200b"])
def test_a_visible_character_is_a_reason(text: str) -> None:
    assert not is_blank(text)


@pytest.mark.parametrize("invisible", INVISIBLE)
async def test_an_invisible_required_reason_is_refused_and_the_standing_draft_is_recorded(
    tmp_path: Path, invisible: str
) -> None:
    out = await _run(
        tmp_path / "d.db",
        "@milica /sudija 1847301\n@petar !press Sudi\n"
        "@petar /presuda niko -- nikola je imao prekid veze\n"
        f"@petar /presuda bez -- {invisible}\n"
        f"@petar /presuda niko -- {invisible}\n"
        "@petar /zavrsi\n",
    )
    assert out.count("[dm petar] " + SR.t("verdict.reason_required")) == 2
    db = await open_database(tmp_path / "d.db")
    try:
        (trial,) = await db.trials.for_game(1847301)
        assert trial.reason == "nikola je imao prekid veze"
    finally:
        await db.close()


async def test_an_invisible_optional_reason_is_recorded_as_none(tmp_path: Path) -> None:
    out = await _run(
        tmp_path / "d.db",
        "@marko /sudija\n@ana !press Sudi\n@ana /presuda bule ruka 5 ivana +2 -- \u200b\n@ana /zavrsi\n",
    )
    assert not [line for line in out.splitlines() if "\u200b" in line and not line.startswith("> ")]
    db = await open_database(tmp_path / "d.db")
    try:
        (trial,) = await db.trials.for_game(1847320)
        assert trial.verdict is not None
        assert trial.verdict["reason"] == ""
    finally:
        await db.close()


async def test_an_invisible_reason_for_a_dismissal_is_refused_and_the_referee_keeps_his_function(
    tmp_path: Path,
) -> None:
    out = await _run(tmp_path / "d.db", "@vesna /razresi ana sudija osnov teze_krsenje -- \u200b\u200b\n")
    assert "[dm vesna] " + SR.t("usage.reason_needed") in out
    db = await open_database(tmp_path / "d.db")
    try:
        ana = await db.members.by_nick("ana")
        assert ana is not None
        assert "referee" in ana.roles
    finally:
        await db.close()
