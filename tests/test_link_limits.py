"""Trust at the border (issue 33): link requests and codes are rate-limited per account and per nickname (`[links]`),
the member over the limit told when he may ask again and nothing reaching a moderator or a game client; a
nickname that holds a function is linked only with the game server's code or the owner's approval, and its member
is told on every platform he is linked on; a member who left the club is appointed to nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from test_links import CodeServer, make

from bot.ports import LoggingGameServer
from club import Club


@pytest.fixture
async def plain(tmp_path: Path) -> AsyncIterator[Club]:
    club = await make(tmp_path, LoggingGameServer())
    yield club
    await club.db.close()


@pytest.fixture
async def coded(tmp_path: Path) -> AsyncIterator[tuple[Club, CodeServer]]:
    server = CodeServer()
    club = await make(tmp_path, server)
    yield club, server
    await club.db.close()


def told_to_moderator(club: Club) -> list[str]:
    return [s.text for s in club.chat.sent if s.where == "dm:mod"]


async def test_one_account_alternating_nicknames_reaches_the_moderator_three_times_an_hour(plain: Club) -> None:
    desk = plain.desk
    for i in range(3):
        asked = await desk.links.ask_link("telegram", "flood", "Flooder", ("pera", "zika")[i % 2])
        assert asked.ok, asked.text
    assert len(told_to_moderator(plain)) == 3
    assert (await desk.links.ask_link("telegram", "flood", "Flooder", "pera")).ok  # asked already: nobody told again
    refused = await desk.links.ask_link("telegram", "flood", "Flooder", "zika")
    assert not refused.ok
    assert "Previše zahteva za povezivanje" in refused.text
    assert "30.11.2026. 14:00" in refused.text  # first asked at 13:00 on the club's clock: an hour after it
    for nick in ("zika", "mika", "zika"):
        assert not (await desk.links.ask_link("telegram", "flood", "Flooder", nick)).ok
    assert len(told_to_moderator(plain)) == 3  # nothing more reached the moderator
    plain.clock.advance(timedelta(hours=1, seconds=1))
    assert (await desk.links.ask_link("telegram", "flood", "Flooder", "mika")).ok
    assert len(told_to_moderator(plain)) == 4


async def test_many_accounts_asking_for_one_nickname_are_limited_per_nickname(plain: Club) -> None:
    desk = plain.desk
    answers = [await desk.links.ask_link("discord", f"bot{i}", "Bot", "zoran") for i in range(200)]
    assert sum(1 for a in answers if a.ok) == 3
    assert all("Previše zahteva" in a.text for a in answers[3:])
    assert len(told_to_moderator(plain)) == 3
    assert len([r for r in await plain.db.links.pending() if r.nick == "zoran"]) == 3


async def test_codes_are_limited_and_nothing_reaches_the_game_client_over_the_limit(
    coded: tuple[Club, CodeServer],
) -> None:
    club, server = coded
    desk = club.desk
    for i in range(21):  # one account alternating two nicknames, each code asked again after it expired
        await desk.links.ask_link("discord", "flood", "Flooder", ("jovan", "mira")[i % 2])
        club.clock.advance(timedelta(minutes=1))
    assert len(server.codes) == 3
    refused = await desk.links.ask_link("discord", "flood", "Flooder", "mira")
    assert not refused.ok
    assert "Previše kodova" in refused.text
    for i in range(50):  # other accounts asking for one nickname
        await desk.links.ask_link("telegram", f"t{i}", "Other", "nada")
    assert len([c for c in server.codes if c[0] == "nada"]) == 3


async def test_a_function_holders_nickname_needs_the_owners_approval_and_he_is_told(plain: Club) -> None:
    desk = plain.desk
    asked = await desk.links.ask_link("discord", "777", "Ana?", "ana")  # ana is a referee, linked on the test platform
    assert asked.ok
    told = [s for s in plain.chat.sent if s.where == "dm:ana"]
    assert len(told) == 1
    assert "Ana?" in told[0].text
    assert "discord" in told[0].text
    mod = await plain.get("mod")
    refused = await desk.links.decide_link_by_nick(mod, "ana", True)
    assert not refused.ok
    assert "odobrenjem vlasnika" in refused.text
    assert await desk.member_for("discord", "777") is None
    # a plain player's nickname: the moderator's approval is enough
    await desk.links.ask_link("discord", "778", "Marko", "marko")
    assert (await desk.links.decide_link_by_nick(mod, "marko", True)).ok
    owner = await desk.member_for("telegram", "9000")
    assert owner is not None
    assert (await desk.links.decide_link_by_nick(owner, "ana", True)).ok  # the owner's approval is enough
    assert await desk.member_for("discord", "777") is not None


async def test_a_member_who_left_is_appointed_to_nothing(plain: Club) -> None:
    desk = plain.desk
    marko = await plain.get("marko")
    await plain.db.members.set_in_club(marko.id, False, plain.clock.now())
    refused = await desk.votes.appoint(None, "marko", "referee")
    assert not refused.ok
    assert "više nije u Klubu" in refused.text
    assert "referee" not in (await plain.get("marko")).roles
