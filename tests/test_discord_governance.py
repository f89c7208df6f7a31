"""Club governance on Discord (`SudijaBot.member_roles`, bot/discord/client.py) through the real client and the
fake: denying and restoring the right to call, the acts and the member card, and the function roles the bot writes
from the acts (a role changed by hand grants nothing, is reported to the councilors and is put back or left as
configured)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_discord import World, answer_of, link, make_world, store_game

from fakes.discord_server import Perm
from rules.members import Role


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def test_the_owner_denies_and_a_councilor_restores_the_right_to_call(world: World) -> None:
    fake, m = world.fake, world.m
    # the owner's act (a single councilor only proposes a denial: tests/test_governance.py)
    app = await world.app({"owner": "vecnik", "owner_accounts": (f"discord:{m['vecnik'].id}",)})
    await link(app, world, "ana", "vecnik", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        denied = await answer_of(
            fake,
            await fake.slash(m["vecnik"].id, "uskrati", {"clan": "ana", "razlog": "@everyone vređanje", "dana": 3}),
        )
        assert denied.startswith("ana ne može da poziva sudiju do")
        dm = fake.dm_channel_id(m["ana"].id)
        assert dm is not None
        told = fake.messages_in(dm)[-1]
        assert "@everyone vređanje" in told["content"]
        assert fake.pings[int(told["id"])].nobody
        refused = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        assert "uskraćeno do" in refused
        assert await app.db.calls.pending_for_game(100) is None
        not_allowed = await answer_of(fake, await fake.slash(m["sudija1"].id, "vrati", {"clan": "ana"}))
        assert "samo većnici" in not_allowed.lower()
        both = await answer_of(
            fake,
            await fake.slash(m["vecnik"].id, "uskrati", {"clan": "ana", "razlog": "x", "dana": 2, "do": "2027-01-01"}),
        )
        assert both == "Navedite broj dana ili datum, ne oba."
        restored = await answer_of(fake, await fake.slash(m["vecnik"].id, "vrati", {"clan": "ana"}))
        assert restored == "ana ponovo može da poziva sudiju."
        called = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        assert "Pozvan je sudija" in called

        acts = await answer_of(fake, await fake.slash(m["vecnik"].id, "akti", {}))
        assert "nema pravo poziva sudije" in acts
        assert "ponovo ima pravo poziva sudije" in acts
        assert "funkcioneri" in await answer_of(fake, await fake.slash(m["ana"].id, "akti", {}))
        card = await answer_of(fake, await fake.slash(m["ana"].id, "clan", {}))
        assert card.startswith("Član ana")


async def test_a_function_that_comes_with_a_discord_role_is_appointed_by_the_act(world: World) -> None:
    """The acts are the truth (decisions.md): the owner's /postavi of a mapped function appoints, and the bot
    writes the Discord role (it has Manage Roles and a role above here)."""
    fake, m = world.fake, world.m
    fake.bot_role.permissions |= Perm.MANAGE_ROLES
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    app = await world.app({"owner": "marko", "owner_accounts": (f"discord:{m['marko'].id}",)})
    await link(app, world, "ceca")  # marko, the owner, is linked by the configuration at start
    async with world.running(app):
        by_act = await answer_of(
            fake, await fake.slash(m["marko"].id, "postavi", {"clan": "ceca", "funkcija": "referee"})
        )
        assert by_act.startswith("Član ceca je postavljen")
        ceca = await app.db.members.by_nick("ceca")
        assert ceca is not None
        assert ceca.roles == {"referee"}
        await fake.wait_until(lambda: world.referee_role.id in m["ceca"].roles, what="the role written")
        # moderator is not mapped to a Discord role in this club: the desk's act, as on any platform
        appointed = await answer_of(
            fake, await fake.slash(m["marko"].id, "postavi", {"clan": "ceca", "funkcija": "moderator"})
        )
        assert appointed.startswith("Član ceca je postavljen")
        ceca = await app.db.members.by_nick("ceca")
        assert ceca is not None
        assert ceca.roles == {"referee", "moderator"}
        refused = await answer_of(
            fake, await fake.slash(m["ceca"].id, "postavi", {"clan": "marko", "funkcija": "moderator"})
        )
        assert "Nemate pravo" in refused
        resigned = await answer_of(fake, await fake.slash(m["ceca"].id, "ostavka", {"funkcija": "moderator"}))
        assert resigned.startswith("Podneli ste ostavku")


async def test_a_role_given_by_hand_gives_no_power_is_reported_and_put_back(world: World) -> None:
    """The acts are the truth (decisions.md): the bot writes the mapped roles from them; a role given or taken by
    hand on Discord grants or takes nothing, is reported in the councilors' channel and is put back."""
    fake, m = world.fake, world.m
    fake.bot_role.permissions |= Perm.MANAGE_ROLES  # what `sudija check` asks for: Manage Roles, a role above
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    app = await world.app()
    await link(app, world, "ana", "vecnik", "sudija1")
    async with world.running(app):
        await fake.set_roles(m["ana"].id, [world.referee_role.id])  # an admin gives ana the referee role
        await fake.wait_until(lambda: world.referee_role.id not in m["ana"].roles, what="the role put back")
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        assert not ana.is_referee  # no power from the role
        reports = await fake.wait_until(
            lambda: [x for x in fake.messages_in(world.councilors.id) if "ručno dodata" in x["content"]],
            what="the report in the councilors' channel",
        )
        assert "ana" in reports[0]["content"]
        assert "vraćena" in reports[0]["content"]
        assert not [x for x in fake.messages_in(world.referees.id) if "ručno" in x["content"]]
        await fake.set_roles(m["sudija1"].id, [])  # and the referee's role taken by hand
        await fake.wait_until(lambda: world.referee_role.id in m["sudija1"].roles, what="given back")
        sudija1 = await app.db.members.by_nick("sudija1")
        assert sudija1 is not None
        assert sudija1.is_referee
        # an act writes the role, and the bot's own write is no hand change
        before = len(fake.messages_in(world.councilors.id))
        assert (await app.desk.votes.appoint(None, "ana", Role.REFEREE, "dobro poznaje pravila")).ok
        await fake.wait_until(lambda: world.referee_role.id in m["ana"].roles, what="the act's role written")
        assert (await app.desk.votes.dismiss(None, "ana", Role.REFEREE, "na lični zahtev")).ok
        await fake.wait_until(lambda: world.referee_role.id not in m["ana"].roles, what="the act's role taken")
        assert len(fake.messages_in(world.councilors.id)) == before, " | ".join(
            x["content"][:60] for x in fake.messages_in(world.councilors.id)
        )


async def test_left_as_configured_a_hand_given_role_stays_but_gives_nothing(world: World) -> None:
    fake, m = world.fake, world.m
    fake.bot_role.permissions |= Perm.MANAGE_ROLES
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    app = await world.app(role_changes="leave")
    await link(app, world, "ana", "vecnik")
    async with world.running(app):
        await fake.set_roles(m["ana"].id, [world.councilor_role.id])
        reports = await fake.wait_until(
            lambda: [x for x in fake.messages_in(world.councilors.id) if "ručno dodata" in x["content"]],
            what="the report",
        )
        assert "ostavljena" in reports[0]["content"]
        assert world.councilor_role.id in m["ana"].roles  # left
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        assert ana.roles == frozenset()  # and no power


async def test_a_vote_is_never_posted_where_the_referees_read(world: World) -> None:
    """Without a councilors' channel a vote goes to the councilors privately, never to the referees' channel
    (where the referee it concerns would read it)."""
    fake, m = world.fake, world.m
    app = await world.app()
    app.config = app.desk.config = replace(app.config, discord=replace(app.config.discord, councilors_channel_id=0))
    await link(app, world, "vecnik", "sudija1", "ceca", "ana")
    for nick in ("ceca", "ana"):
        member = await app.db.members.by_nick(nick)
        assert member is not None
        await app.db.members.set_role(member.id, Role.COUNCILOR, True, None, world.clock.now())
    async with world.running(app):
        opened = await answer_of(
            fake,
            await fake.slash(m["vecnik"].id, "razresi", {"clan": "sudija1", "funkcija": "referee", "razlog": "x"}),
        )
        assert "glasanje" in opened
        assert not [x for x in fake.messages_in(world.referees.id) if "Glasanje" in x["content"]]
        for nick in ("vecnik", "ceca", "ana"):
            dm = await fake.wait_until(lambda n=nick: fake.dm_channel_id(m[n].id), what=f"{nick}'s DM")
            assert any("Glasanje" in x["content"] for x in fake.messages_in(dm)), nick
