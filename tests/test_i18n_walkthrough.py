"""The walkthrough (examples/scenarios/walkthrough.txt) through the console club in each of the four languages,
checked against tests/golden/walkthrough.<language>.txt (SUDIJA_UPDATE_GOLDEN=1 rewrites them for review).

Members type the same Serbian commands in every language; the buttons they press carry the language's labels."""

from __future__ import annotations

import io
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config import Config
from bot.console.runner import run_console
from bot.i18n import LANGUAGES
from bot.messages import MESSAGES
from bot.ports import ManualClock

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
START = datetime(2026, 11, 30, 19, 0, tzinfo=UTC)


def in_language(script: str, language: str) -> str:
    """The script with each pressed button's Serbian label replaced by the language's."""
    index = LANGUAGES.index(language)
    labels = {MESSAGES[k][0]: MESSAGES[k][index] for k in MESSAGES if k.startswith("button.")}

    def press(match: re.Match[str]) -> str:
        return match.group(1) + labels.get(match.group(2), match.group(2))

    return re.sub(r"^(@\w+ !press )(.+)$", press, script, flags=re.MULTILINE)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_walkthrough_in_every_language(language: str, tmp_path: Path) -> None:
    script = in_language((ROOT / "examples" / "scenarios" / "walkthrough.txt").read_text("utf-8"), language)
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(language=language), str(tmp_path / "club.db"), True, io.StringIO(script), out, err, ManualClock(START)
    )
    assert (status, err.getvalue()) == (0, "")
    text = out.getvalue().replace(str(tmp_path), "<tmp>")
    path = GOLDEN / f"walkthrough.{language}.txt"
    if os.environ.get("SUDIJA_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
