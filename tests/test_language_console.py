"""The console and the commands in the club's language (issue 37): accounts match without case, a button answers to
its label in the club's language and to the Serbian Latin one a script types, /papir without a number is the game
/sudija would take, the start banner suggests the first commands, every command is described in the help with its
long usage wrapped, and the council's figures say every kind, reason, wait and week in words."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config import Config
from bot.console.runner import run_console
from bot.demo import MEMBERS, TABLE
from bot.desk.statistics import figures_text
from bot.i18n import LANGUAGES
from bot.messages import Catalogue
from bot.ports import ManualClock
from bot.registry import REGISTRY
from bot.registry.spec import usage_lines
from rules.statistics import Figures, RefereeFigures

START = datetime(2026, 11, 30, 19, 0, tzinfo=UTC)
SR = Catalogue("sr")


async def run(db: Path, script: str, language: str = "sr", demo: bool = True) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(language=language), str(db), demo, io.StringIO(script), out, err, ManualClock(START)
    )
    assert (status, err.getvalue()) == (0, "")
    return out.getvalue()


def replies(out: str) -> list[tuple[str, str]]:
    """Each echoed line of the script with what followed it."""
    found: list[tuple[str, str]] = []
    for line in out.splitlines():
        if line.startswith("> "):
            found.append((line[2:], ""))
        elif found:
            found[-1] = (found[-1][0], found[-1][1] + line + "\n")
    return found


async def test_an_account_matches_without_case(tmp_path: Path) -> None:
    out = await run(tmp_path / "c.db", "@Marko /sudija\n@ANA !press sudi\n")
    assert SR.t("console.unknown_nick", nick="Marko") not in out
    assert SR.t("call.notice_taken", game=TABLE, caller="marko", referee="ana") in out
    assert "[dm marko]" in out  # the reply goes to his account as it is, not as typed
    assert "[dm Marko]" not in out


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_button_answers_to_its_label_and_to_the_typed_latin_one(language: str, tmp_path: Path) -> None:
    words = Catalogue(language)
    taken = words.t("call.notice_taken", game=TABLE, caller="marko", referee="ana")
    typed = await run(tmp_path / "latin.db", "@marko /sudija\n@ana !press Sudi\n", language)
    assert taken in typed
    shown = await run(tmp_path / "own.db", f"@marko /sudija\n@ana !press {words.t('button.take')}\n", language)
    assert taken in shown


async def test_papir_without_a_number_is_the_game_sudija_would_take(tmp_path: Path) -> None:
    (_, bare), (_, numbered) = replies(await run(tmp_path / "p.db", "@marko /papir\n@marko /papir 1847320\n"))
    assert bare == numbered
    assert SR.t("papir.no_default") not in bare


async def test_papir_without_a_number_and_without_a_game_says_what_to_type(tmp_path: Path) -> None:
    script = "@zoran /papir\n@zoran /papir 1847333\n!clock +30d\n@vesna /papir\n"
    told = replies(await run(tmp_path / "p.db", script))
    assert told[0][1] == told[1][1]  # zoran sits at 1847333
    # thirty days on, vesna sits at no table and her games are out of /sudija's window
    assert told[3][1] == "[dm vesna] " + SR.t("papir.no_default") + "\n"


async def test_the_banner_suggests_the_first_commands(tmp_path: Path) -> None:
    out = await run(tmp_path / "d.db", "")
    assert any(SR.t("console.first_steps", nick=nick) in out for nick in MEMBERS)
    empty = await run(tmp_path / "e.db", "", demo=False)
    assert SR.t("console.first_steps_empty") in empty


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_command_is_described_and_no_help_line_runs_long(language: str) -> None:
    words = Catalogue(language)
    for command in REGISTRY:
        usage = words.t(command.usage_key)
        assert " — " in usage, command.name
        assert all(len(line) <= 160 for line in usage_lines(usage)), command.name
    forms = usage_lines(words.t("usage.presuda"))
    assert len(forms) == 6
    assert all(line.startswith("  | /presuda ") for line in forms[1:])


def test_usage_lines_keep_a_single_form_whole() -> None:
    assert usage_lines("/clan [NADIMAK] — karton člana") == ["/clan [NADIMAK] — karton člana"]
    assert usage_lines("/a X | /a Y — opis") == ["/a X — opis", "  | /a Y"]
    assert usage_lines("/a [X] — opis; `/a da|ne` — pristanak") == ["/a [X] — opis;", "  `/a da|ne` — pristanak"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_figures_say_kinds_reasons_waits_and_weeks_in_words(language: str) -> None:
    figures = Figures(
        calls=3,
        taken=2,
        withdrawn=0,
        expired=1,
        pending=0,
        to_sudi_p50=65.0,
        to_sudi_p95=20.0,
        calls_by_hour=(0,) * 24,
        expired_by_hour=(0,) * 24,
        calls_per_week={"2026-W49": 3},
        expired_per_week={"2026-W49": 1},
        trials=2,
        interrupted=1,
        interrupted_by_reason={"referee_left": 1},
        referees={"ana": RefereeFigures(2, {"bule": 1, "interrupted": 1})},
    )
    text = figures_text(figures, language, None, None)
    words = Catalogue(language)
    assert words.t("unit.minutes", n=1) + " " + words.t("unit.seconds", n=5) in text
    assert words.t("unit.seconds", n=20) in text
    assert words.t("stats.kind.bule") + ": 1" in text
    assert words.t("stats.kind.interrupted") + ": 1" in text
    assert words.t("end.referee_left") + ": 1" in text
    assert "W49" not in text
    assert " min " not in text
