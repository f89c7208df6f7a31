"""Club governance on Discord (bot/discord/governance.py) through the real client and the fake: denying and
restoring the right to call, the acts and the member card, and functions that come with a Discord role."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_discord import World, answer_of, link, make_world, store_game


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


async def test_a_function_that_comes_with_a_discord_role_is_not_appointed_by_command(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app({"owner": "marko", "owner_accounts": (f"discord:{m['marko'].id}",)})
    await link(app, world, "ceca")  # marko, the owner, is linked by the configuration at start
    async with world.running(app):
        by_role = await answer_of(
            fake, await fake.slash(m["marko"].id, "postavi", {"clan": "ceca", "funkcija": "referee"})
        )
        assert "uloga na Discordu" in by_role
        ceca = await app.db.members.by_nick("ceca")
        assert ceca is not None
        assert ceca.roles == frozenset()
        # moderator is not mapped to a Discord role in this club: the desk's act, as on any platform
        appointed = await answer_of(
            fake, await fake.slash(m["marko"].id, "postavi", {"clan": "ceca", "funkcija": "moderator"})
        )
        assert appointed.startswith("ceca je postavljen")
        ceca = await app.db.members.by_nick("ceca")
        assert ceca is not None
        assert ceca.roles == {"moderator"}
        refused = await answer_of(
            fake, await fake.slash(m["ceca"].id, "postavi", {"clan": "marko", "funkcija": "moderator"})
        )
        assert "Nemate pravo" in refused
        resigned = await answer_of(fake, await fake.slash(m["ceca"].id, "ostavka", {"funkcija": "moderator"}))
        assert resigned.startswith("Podneli ste ostavku")
