"""A club's penalty catalogue and escalation, held as configuration (another club's rules, seeds 001 and 003)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.commands import Commands
from bot.config import ConfigError, from_dict
from club import Club
from rules.catalogue import CatalogueEntry, Escalation, escalate

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def test_escalation_counts_earlier_offences_within_the_window_and_caps_at_the_limits() -> None:
    entry = CatalogueEntry("odugovlacenje", "", plavac_days=2, league_points=1)
    three_months = Escalation(window_days=90, factor=2)
    first = escalate(entry, [], NOW, three_months, 7, 10)
    assert (first.plavac_days, first.league_points, first.repeats, first.capped) == (2, 1, 0, False)
    earlier = [NOW - timedelta(days=100), NOW - timedelta(days=60), NOW - timedelta(days=10)]
    third = escalate(entry, earlier, NOW, three_months, 7, 10)
    assert (third.plavac_days, third.league_points, third.repeats, third.capped) == (7, 4, 2, True)
    assert escalate(entry, earlier, NOW, Escalation(), 7, 10).plavac_days == 2  # no escalation configured


def test_a_catalogue_in_the_configuration_is_checked() -> None:
    config = from_dict(
        {
            "penalties": {
                "plavac_max_days": 30,
                "catalogue": [
                    {"name": "kasnjenje", "description": "kašnjenje", "league_points": 1},
                    {"name": "zalba", "description": "neosnovana žalba", "plavac_days": 3},
                ],
                "escalation": {"window_days": 90, "factor": 2},
            }
        }
    )
    assert [e.name for e in config.penalties.catalogue] == ["kasnjenje", "zalba"]
    for bad, words in (
        ([{"name": "x y", "league_points": 1}], "one word"),
        ([{"name": "x"}], "and/or deny_call_days"),
        ([{"name": "x", "league_points": 1}, {"name": "X", "plavac_days": 1}], "twice"),
        ([{"name": "x", "colour": 1}], "colour"),
    ):
        with pytest.raises(ConfigError, match=words):
            from_dict({"penalties": {"catalogue": bad}})


async def test_a_referee_gives_a_catalogue_penalty_and_a_repeat_costs_more(club: Club) -> None:
    penalties = replace(
        club.config.penalties,
        catalogue=(CatalogueEntry("odugovlacenje", "namerno odugovlačenje", plavac_days=2),),
        escalation=Escalation(window_days=90, factor=2),
    )
    club.desk.config = replace(club.config, penalties=penalties)
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    referee = await club.member("sudija1", "referee")
    commands = Commands(club.desk)
    listing = await commands.handle(referee, "/katalog")
    assert listing is not None
    assert "odugovlacenje" in listing.text
    assert "×2" in listing.text
    for number, expected in ((100, 2), (101, 4)):
        await club.game(number)
        await club.desk.calls.call(await club.get("ana"), number)
        call = await club.db.calls.pending_for_game(number)
        assert call is not None
        await club.desk.trials.take(referee, call.id)
        unknown = await commands.handle(referee, "/presuda kazna petar po nepostoji")
        assert unknown is not None
        assert not unknown.ok
        assert "odugovlacenje" in unknown.text
        drafted = await commands.handle(referee, "/presuda kazna petar po odugovlacenje")
        assert drafted is not None, drafted.text
        assert drafted.ok, drafted.text
        assert f"plavac {expected} dana" in drafted.text
        assert ("Ponovljeni prekršaj" in drafted.text) == (expected == 4)
        assert (await club.desk.finish(referee)).ok
        trial = (await club.db.trials.for_game(number))[-1]
        assert trial.verdict is not None
        assert trial.verdict["offence"] == "odugovlacenje"
        assert trial.verdict["plavac_days"] == expected
        assert trial.reason == "namerno odugovlačenje"


async def test_the_configured_limits_replace_the_default_seven_days(club: Club) -> None:
    club.desk.config = replace(club.config, penalties=replace(club.config.penalties, plavac_max_days=10))
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    referee = await club.member("sudija1", "referee")
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.trials.take(referee, call.id)
    commands = Commands(club.desk)
    assert (await commands.handle(referee, "/presuda kazna petar plavac 9")).ok  # type: ignore[union-attr]
    too_long = await commands.handle(referee, "/presuda kazna petar plavac 11")
    assert too_long is not None
    assert "najviše 10" in too_long.text


async def test_a_catalogue_penalty_may_deny_the_right_to_call(club: Club) -> None:
    penalties = replace(
        club.config.penalties, catalogue=(CatalogueEntry("zalba", "neosnovano zvanje sudije", deny_call_days=30),)
    )
    club.desk.config = replace(club.config, penalties=penalties)
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    referee = await club.member("sudija1", "referee")
    await club.game(100)
    await club.game(101)
    await club.desk.calls.call(await club.get("ana"), 100)
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.trials.take(referee, call.id)
    commands = Commands(club.desk)
    drafted = await commands.handle(referee, "/presuda kazna ana po zalba")
    assert drafted is not None
    assert drafted.ok
    assert "30 dana" in drafted.text
    assert (await club.desk.finish(referee)).ok
    refused = await club.desk.calls.call(await club.get("ana"), 101)
    assert not refused.ok
    assert "uskraćeno do 30.12.2026." in refused.text
    trial = (await club.db.trials.for_game(100))[-1]
    await club.desk.penalties.take_effect(trial.id)  # a restart's repair applies nothing twice
    ban = await club.db.members.call_ban((await club.get("ana")).id)
    assert ban is not None
    assert ban.until == NOW.replace(hour=12) + timedelta(days=30)
