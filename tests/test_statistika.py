"""The council's figures: a property test that the figures computed from the calls and trials tables equal a
brute-force recount over the stored events for a generated club month (also over a part of it); `sudija statistika`
as text, JSON, CSV and a chart; /statistika for councilors only, through the registry."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.desk.statistics import club_zone, council_figures
from bot.pictures.chart import render_chart
from bot.pictures.draw import MAX_PNG_BYTES
from club import Club
from rules.generator import generate_game
from rules.statistics import AppealFact, CallFact, Figures, compute, figures_csv, figures_json, percentile
from storage.database import Database, open_database
from storage.games import PreparedGame

START = datetime(2026, 11, 1, 0, 0, tzinfo=UTC)
KINDS = ("bule", "bula", "kazna", "svodjenje", "niko", "bez", "interrupted")
REASONS = ("referee_left", "caller_left", "game_closed", "referee_disconnected")
CALLERS = ("ana", "marko", "petar", "ivana")
REFEREES = ("sudija1", "sudija2", "sudija3")


@dataclass(frozen=True)
class CallSpec:
    gap_minutes: int  # after the previous call was settled
    caller: int
    fate: str  # taken, expired, withdrawn
    delay_seconds: int  # until Sudi or the withdrawal
    referee: int
    kind: str  # the trial's end: a verdict kind, bez, interrupted
    reason: int
    appealed: bool = False  # the caller appeals the recorded trial


calls_strategy = st.lists(
    st.builds(
        CallSpec,
        st.integers(1, 2 * 24 * 60),
        st.integers(0, len(CALLERS) - 1),
        st.sampled_from(("taken", "taken", "expired", "withdrawn")),
        st.integers(0, 15 * 60),
        st.integers(0, len(REFEREES) - 1),
        st.sampled_from(KINDS),
        st.integers(0, len(REASONS) - 1),
        st.booleans(),
    ),
    max_size=30,
)


async def club_month(db: Database, specs: list[CallSpec]) -> None:
    """The month through the storage's own operations, one call settled before the next is made."""
    ids = {nick: (await db.members.link("test", nick, nick, START)).id for nick in (*CALLERS, *REFEREES)}
    games = [
        generate_game(random.Random(n), n, hands=2, players=("ana", "marko", "petar"), start=START)
        for n in (100, 101, 102)
    ]
    await db.games.store([PreparedGame.of(g) for g in games], START)
    moment = START
    for i, spec in enumerate(specs):
        moment += timedelta(minutes=spec.gap_minutes)
        deadline = moment + timedelta(minutes=15)
        call = await db.calls.create(games[i % 3].number, ids[CALLERS[spec.caller]], False, moment, deadline)
        if spec.fate == "expired":
            assert await db.calls.close(call.id, "expired", deadline, None)
            moment = deadline
            continue
        at = moment + timedelta(seconds=min(spec.delay_seconds, 15 * 60 - 1))
        if spec.fate == "withdrawn":
            assert await db.calls.close(call.id, "withdrawn", at, ids[CALLERS[spec.caller]])
            moment = at
            continue
        referee = ids[REFEREES[spec.referee]]
        _, trial = await db.trials.take(call.id, referee, at, [(ids[CALLERS[spec.caller]], "caller")])
        assert trial is not None
        end = at + timedelta(minutes=7)
        if spec.kind == "interrupted":
            assert await db.trials.finish(trial.id, "interrupted", end, referee, end_reason=REASONS[spec.reason])
        else:
            verdict = {"kind": spec.kind, "reason": "razlog"}
            await db.trials.set_draft(trial.id, {"kind": "niko", "reason": "prvi nacrt"}, referee, at)
            await db.trials.set_draft(trial.id, verdict, referee, end)
            outcome = "no_verdict" if spec.kind == "bez" else "verdict"
            assert await db.trials.finish(trial.id, outcome, end, referee, verdict=verdict, reason="razlog")
            if spec.appealed:
                await db.appeals.file(
                    trial.id,
                    ids[CALLERS[spec.caller]],
                    "presuda",
                    "",
                    end,
                    end + timedelta(minutes=5),
                    end + timedelta(days=14),
                )
        moment = end


async def recount(db: Database, low: datetime | None, high: datetime | None) -> dict[str, Any]:
    """The figures counted again, the slow way, from the event history alone."""
    zone = club_zone()
    nick = {m.id: m.nick for m in await db.members.all()}
    events = sorted(await db.events.listing(limit=100_000), key=lambda e: e.id)

    def inside(moment: datetime) -> bool:
        return (low is None or moment >= low) and (high is None or moment < high)

    created: dict[str, datetime] = {}
    fate: dict[str, tuple[str, datetime]] = {}
    opened: dict[str, tuple[str, datetime]] = {}  # trial -> (referee, opened at)
    drafts: dict[str, str] = {}
    ends: dict[str, tuple[str, str | None]] = {}
    appeals = 0
    for e in events:
        if e.kind == "appeal_filed" and inside(e.at):
            appeals += 1
        if e.kind == "call_created":
            created[str(e.subject)] = e.at
        elif e.kind in ("call_taken", "call_expired", "call_withdrawn"):
            fate[str(e.subject)] = (e.kind.removeprefix("call_"), e.at)
            if e.kind == "call_taken":
                opened[f"trial:{e.data['trial']}"] = (nick[e.actor or 0], e.at)
        elif e.kind == "draft":
            drafts[str(e.subject)] = e.data["draft"]["kind"]
        elif e.kind.startswith("trial_") and e.kind != "trial_game_changed":
            ends[str(e.subject)] = (e.kind.removeprefix("trial_"), e.data.get("end_reason"))
    calls = [c for c, at in created.items() if inside(at)]
    weeks: Counter[str] = Counter()
    expired_hours = [0] * 24
    waits = []
    for c in calls:
        year, week, _ = created[c].astimezone(zone).isocalendar()
        weeks[f"{year}-W{week:02d}"] += 1
        state, at = fate.get(c, ("pending", created[c]))
        if state == "expired":
            expired_hours[created[c].astimezone(zone).hour] += 1
        if state == "taken":
            waits.append((at - created[c]).total_seconds())
    per_referee: dict[str, Counter[str]] = {}
    interrupted: Counter[str] = Counter()
    for t, (referee, at) in opened.items():
        if not inside(at):
            continue
        outcome, reason = ends.get(t, ("open", None))
        column = drafts[t] if outcome == "verdict" else "bez" if outcome == "no_verdict" else outcome
        per_referee.setdefault(referee, Counter())[column] += 1
        if outcome == "interrupted":
            interrupted[reason or "unknown"] += 1

    def nearest_rank(p: int) -> float | None:  # the smallest wait with at least p% of the waits at or below it
        return min((w for w in waits if 100 * sum(x <= w for x in waits) >= p * len(waits)), default=None)

    return {
        "calls": len(calls),
        "weeks": dict(weeks),
        "expired_by_hour": expired_hours,
        "p50": nearest_rank(50),
        "p95": nearest_rank(95),
        "referees": {r: dict(k) for r, k in per_referee.items()},
        "interrupted": dict(interrupted),
        "appeals": {"filed": appeals} if appeals else {},
    }


def as_recount(figures: Figures) -> dict[str, Any]:
    return {
        "calls": figures.calls,
        "weeks": figures.calls_per_week,
        "expired_by_hour": list(figures.expired_by_hour),
        "p50": figures.to_sudi_p50,
        "p95": figures.to_sudi_p95,
        "referees": {r: f.by_kind for r, f in figures.referees.items()},
        "interrupted": figures.interrupted_by_reason,
        "appeals": figures.appeals_by_state,
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=calls_strategy, first=st.integers(0, 40), length=st.integers(0, 40))
def test_figures_equal_a_recount_over_the_stored_events(specs: list[CallSpec], first: int, length: int) -> None:
    async def check() -> None:
        db = await open_database(":memory:")
        try:
            await club_month(db, specs)
            figures = await council_figures(db, None, None, club_zone())
            assert as_recount(figures) == await recount(db, None, None)
            assert figures.calls == len(specs)
            assert figures.trials == sum(s.fate == "taken" for s in specs)
            start = (START + timedelta(days=first)).date()
            end = start + timedelta(days=length)
            part = await council_figures(db, start, end, club_zone())
            low = datetime.combine(start, time(), tzinfo=club_zone())
            high = datetime.combine(end + timedelta(days=1), time(), tzinfo=club_zone())
            assert as_recount(part) == await recount(db, low, high)
        finally:
            await db.close()

    asyncio.run(check())


def test_percentile_is_the_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.0
    assert percentile([float(x) for x in range(1, 21)], 95) == 19.0
    assert percentile([float(x) for x in range(1, 101)], 95) == 95.0


@pytest.fixture
def month_db(tmp_path: Path) -> str:
    path = tmp_path / "club.db"
    specs = [
        CallSpec(
            60 * (i + 1),
            i % 4,
            ("taken", "expired", "withdrawn", "taken")[i % 4],
            30 * i,
            i % 3,
            KINDS[i % len(KINDS)],
            i % 4,
        )
        for i in range(16)
    ]

    async def build() -> None:
        db = await open_database(path)
        try:
            await club_month(db, specs)
        finally:
            await db.close()

    asyncio.run(build())
    return str(path)


def test_cli_json_csv_text_and_chart(month_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["statistika", "--db", month_db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == [
        "period",
        "calls",
        "time_to_sudi_seconds",
        "trials",
        "referees",
        "appeals",
        "sanctions",
        "chart",
    ]
    assert doc["calls"]["total"] == 16
    assert doc["calls"]["expired"] == 4
    assert doc["calls"]["taken"] == 8
    assert doc["trials"]["total"] == 8
    assert set(doc["referees"]) <= set(REFEREES)
    assert doc["time_to_sudi_seconds"]["p50"] is not None
    assert main(["statistika", "--db", month_db, "--csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["section", "key", "value"]
    assert ["totals", "calls", "16"] in rows
    assert len([r for r in rows if r[0] == "calls_by_hour"]) == 24
    chart = tmp_path / "chart.png"
    assert main(["statistika", "--db", month_db, "--od", "2026-11-01", "--do", "2026-11-01", "--png", str(chart)]) == 0
    out = capsys.readouterr().out
    assert f"PNG: {chart}" in out
    assert "Statistika sudijskog stola od 2026-11-01 do 2026-11-01" in out
    assert chart.read_bytes().startswith(b"\x89PNG")
    assert len(chart.read_bytes()) < MAX_PNG_BYTES


def test_cli_bad_input(month_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["statistika", "--db", month_db, "--od", "2026-11-30", "--do", "2026-11-01"]) == 1
    assert "posle kraja" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["statistika", "--db", month_db, "--od", "30.11.2026"])
    assert "nije datum GGGG-MM-DD: '30.11.2026'" in capsys.readouterr().err  # the CLI's Serbian
    assert main(["statistika", "--db", month_db + ".none"]) == 1


def test_the_chart_fits_its_texts() -> None:
    calls = [
        CallFact(
            i,
            START + timedelta(hours=7 * i),
            "expired" if i % 3 == 0 else "taken",
            START + timedelta(hours=7 * i, minutes=2),
        )
        for i in range(200)
    ]
    figures = compute(calls, [], UTC)
    canvas = render_chart(figures)
    assert all(p.fits for p in canvas.placed)
    assert sum(figures.calls_by_hour) == 200
    assert len(figures.calls_per_week) >= 8
    assert render_chart(compute([], [], UTC)).png()[:4] == b"\x89PNG"


async def test_statistika_command_for_councilors_only(club: Club) -> None:
    from bot.registry import BY_NAME, run  # noqa: PLC0415 (imported where the test needs it)
    from bot.registry.spec import Args, Caller, Place  # noqa: PLC0415 (imported where the test needs it)

    councilor = await club.member("vecnik", "councilor")
    referee = await club.member("sudija", "referee")
    command = BY_NAME["statistika"]
    refused = await run(
        club.desk, Caller("test", "sudija", referee, Place.PRIVATE), command, Args({"od": None, "do": None})
    )
    assert not refused.ok
    assert "samo većnici" in refused.text
    reply = await run(
        club.desk,
        Caller("test", "vecnik", councilor, Place.PRIVATE),
        command,
        Args({"od": date(2026, 11, 1), "do": None}),
    )
    assert reply.ok
    assert reply.text.startswith("Statistika sudijskog stola od 2026-11-01")
    [chart] = reply.pictures
    assert chart.name == "statistika.png"
    assert chart.png.startswith(b"\x89PNG")
    backwards = await run(
        club.desk,
        Caller("test", "vecnik", councilor, Place.PRIVATE),
        command,
        Args({"od": date(2026, 11, 2), "do": date(2026, 11, 1)}),
    )
    assert not backwards.ok


def test_appeals_are_counted_by_how_they_stand() -> None:
    appeals = [
        AppealFact(i, START + timedelta(days=i), state)
        for i, state in enumerate(("filed", "taken", "upheld", "rejected", "rejected", "inadmissible"))
    ]
    figures = compute([], [], UTC, appeals)
    assert figures.appeals == 6
    assert figures.appeals_by_state == {"filed": 1, "inadmissible": 1, "rejected": 2, "taken": 1, "upheld": 1}
    assert figures_json(figures)["appeals"] == {"total": 6, "by_state": figures.appeals_by_state}
    assert "appeals,rejected,2" in figures_csv(figures)
