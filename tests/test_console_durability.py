"""The console club keeps its clock in its database (a scripted club resumes at its own time), refuses clock
moves out of range with a message, and answers "try again in a moment" — never a traceback — while another
process holds the database's write lock."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import Config
from bot.console.language import MAX_STEP_DAYS, LineError, parse_line
from bot.console.runner import run_console
from bot.messages import Catalogue
from bot.ports import ManualClock
from club import NOW

SR = Catalogue("sr")
CLOCK = re.compile(r"\(sat: (\d{1,2}\.\d{1,2}\.\d{4}\. \d\d:\d\d)\)")


async def run(db: Path, script: str, clock: ManualClock | None = None, **options: int) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(Config(), str(db), True, io.StringIO(script), out, err, clock, **options)
    return status, out.getvalue(), err.getvalue()


async def test_a_scripted_club_resumes_at_its_own_time(tmp_path: Path) -> None:
    status, out, _ = await run(tmp_path / "club.db", "!clock +3d\n!clock +2h\n")
    assert status == 0
    first_end = CLOCK.findall(out)[-1]
    status, out, _ = await run(tmp_path / "club.db", "!clock\n@marko /sudija\n")
    assert status == 0
    assert CLOCK.findall(out) == [first_end]  # not the real time of this start
    assert (
        SR.t(
            "console.clock_resumed",
            now=datetime.strptime(first_end, "%d.%m.%Y. %H:%M").replace(tzinfo=ZoneInfo("Europe/Belgrade")),
        )
        in out
    )


@pytest.mark.parametrize("step", ["+99999999d", "+3661d", "+999999999999999999999999d", "+87840h1s"])
def test_a_clock_move_out_of_range_is_refused_with_a_message(step: str) -> None:
    with pytest.raises(LineError) as caught:
        parse_line(f"!clock {step}")
    assert caught.value.key == "console.clock_range"
    assert SR.t(caught.value.key, **caught.value.params).startswith(f"Sat se pomera najviše {MAX_STEP_DAYS} dana")


async def test_the_clock_is_refused_past_the_ceiling_and_the_script_says_which_line(tmp_path: Path) -> None:
    status, _, err = await run(
        tmp_path / "club.db", "!clock +3650d\n" * 2 + "!clock +99999999d\n", ManualClock(NOW.replace(year=8980))
    )
    assert status == 1
    assert err.startswith("line 2: Sat se pomera")
    assert "Traceback" not in err
    assert "ne dalje od 9000. godine" in err  # the year the clock stops at, not 9999 (CLOCK_CEILING)
    status, _, err = await run(tmp_path / "other.db", "!clock +99999999d\n", ManualClock(NOW))
    assert status == 1
    assert err.startswith("line 1: Sat se pomera najviše")
    assert "99999999d" in err


HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
"""


async def test_the_console_answers_a_locked_database_with_a_message_not_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / "club.db"
    status, _, _ = await run(db, "!who\n", ManualClock(NOW))  # the demo club is created first
    assert status == 0
    holder = subprocess.Popen(  # noqa: ASYNC220 (the child runs beside the test)
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        status, out, err = await run(db, "@marko /sudija\n!clock +6m\n!who\n", ManualClock(NOW), busy_timeout_ms=50)
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    assert status == 0, err
    assert "Traceback" not in out + err
    assert out.count(SR.t("db.busy")) >= 2  # the call and the clock move were each answered
    status, out, err = await run(db, "@marko /sudija\n", ManualClock(NOW))
    assert status == 0
    assert "[dm marko] Pozvan je sudija" in out


@pytest.mark.parametrize("line", ["@ana !sit 99999999999999999999", "@ana !sit " + "7" * 5000])
def test_a_table_number_beyond_2_53_is_refused_by_the_console_not_by_sqlite(line: str) -> None:
    with pytest.raises(LineError) as caught:
        parse_line(line)
    assert caught.value.key == "console.sit_game"
