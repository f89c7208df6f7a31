"""The pure rules of out-of-game verdicts (rules.penalties) and their configuration (bot.config [penalties])."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from bot.config import ConfigError, PenaltyConfig, from_dict
from club import Club, make_club
from rules.penalties import (
    GameVerdict,
    counted_abandoner,
    counts_as_finished,
    month_closes_at,
    month_end,
    month_of,
    month_open,
    parse_month,
    plavac_after_lift,
    plavac_after_penalty,
    previous_months,
    settlement_figures,
)
from rules.verdicts import Draft, Penalty

T = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def test_settlement_figures_at_the_boundaries() -> None:
    exact = settlement_figures(60, 60, T - timedelta(minutes=60), T)
    assert (exact.total, exact.played, exact.needed) == (180, 120, 120)
    assert exact.allowed
    assert not settlement_figures(60, 62, T - timedelta(hours=5), T).enough_played
    early = settlement_figures(60, 60, T - timedelta(minutes=59), T)
    assert early.enough_played
    assert not early.late_enough
    assert not early.allowed
    assert settlement_figures(50, 50, T, T).needed == 100  # 150 × 2/3
    assert settlement_figures(31, 31, T, T).needed == 62  # 93 × 2/3 = 62 exactly
    assert settlement_figures(10, 0, T, T, Fraction(3, 4)).needed == 23  # rounded up
    assert counts_as_finished(60, 60)
    assert not counts_as_finished(30, 60)


def test_plavac_arithmetic() -> None:
    assert plavac_after_penalty(None, T, 3) == T + 3 * DAY
    assert plavac_after_penalty(T - DAY, T, 3) == T + 3 * DAY  # one that ran out does not count
    assert plavac_after_penalty(T + 2 * DAY, T, 3) == T + 5 * DAY  # penalties add up
    assert plavac_after_lift(T + 5 * DAY, T, 3) == T + 2 * DAY
    assert plavac_after_lift(T + 2 * DAY, T, 3) is None  # used up: it ends now
    assert plavac_after_lift(T + 3 * DAY, T, 3) is None
    assert plavac_after_lift(T - DAY, T, 3) is None  # already over
    assert plavac_after_lift(None, T, 3) is None


def test_league_months() -> None:
    assert month_of(T) == "2026-11"
    assert parse_month("2026-1") == "2026-01"
    with pytest.raises(ValueError, match="unconverted data"):
        parse_month("2026-13")
    assert month_end("2026-12") == datetime(2027, 1, 1, tzinfo=UTC)
    grace = 3 * DAY
    closes = month_closes_at("2026-11", grace)
    assert closes == datetime(2026, 12, 4, tzinfo=UTC)
    assert month_open("2026-11", closes - timedelta(seconds=1), grace, closed=False)
    assert not month_open("2026-11", closes, grace, closed=False)
    assert not month_open("2026-11", T, grace, closed=True)
    assert previous_months(datetime(2026, 1, 15, tzinfo=UTC), 2) == ["2025-12", "2025-11"]


def test_who_is_counted_as_having_abandoned() -> None:
    assert counted_abandoner("marko", [], settled=False) == "marko"
    assert counted_abandoner("marko", [GameVerdict("petar", True)], settled=False) == "petar"
    assert counted_abandoner("marko", [GameVerdict("petar", True), GameVerdict("ana", False)], False) == "marko"
    assert counted_abandoner("marko", [GameVerdict("petar", True), GameVerdict(None, False)], False) is None
    assert counted_abandoner("marko", [GameVerdict("petar", True)], settled=True) is None
    assert counted_abandoner(None, [], settled=False) is None


def test_the_penalties_section_of_the_configuration() -> None:
    config = from_dict(
        {
            "club": {"owner": "vlasnik"},
            "penalties": {
                "plavac_max_days": 10,
                "league_max_points": 0,
                "plavac_name": "отстранение",
                "abandon_league_points": -50,
            },
        }
    )
    assert config.penalties == PenaltyConfig(
        plavac_max_days=10, league_max_points=0, plavac_name="отстранение", abandon_league_points=-50
    )
    assert from_dict({}).penalties == PenaltyConfig()
    with pytest.raises(ConfigError):
        from_dict({"penalties": {"settlement_played_share": "dve trećine"}})
    with pytest.raises(ConfigError):
        from_dict({"penalties": {"unknown_limit": 1}})


async def test_the_desk_holds_the_configured_limits_and_names(tmp_path: Path) -> None:
    club: Club = await make_club(tmp_path)
    try:
        club.desk.config = replace(
            club.config, penalties=PenaltyConfig(plavac_max_days=3, league_max_points=0, plavac_name="suspenzija")
        )
        for nick in ("ana", "marko", "petar"):
            await club.member(nick)
        await club.member("sudija1", "referee")
        await club.game(100)
        assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
        call = await club.db.calls.pending_for_game(100)
        assert call is not None
        referee = await club.get("sudija1")
        await club.desk.trials.take(referee, call.id)
        too_long = await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=4), ""))
        assert not too_long.ok
        assert "najviše 3" in too_long.text
        no_points = await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=1, league_points=1), ""))
        assert not no_points.ok
        assert "Najviše 0" in no_points.text
        assert (await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=3), ""))).ok
        assert (await club.desk.finish(referee)).ok
        assert "suspenzija 3 dana" in club.chat.to("dm:petar")[-1].text
        card = (await club.desk.governance.member_status(await club.get("petar"), None)).text
        assert "suspenzija do" in card
    finally:
        await club.db.close()
