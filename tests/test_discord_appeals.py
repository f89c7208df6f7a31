"""An appeal on Discord through the real client and the fake (issue 19): /zalba posts to the councilors' channel
with Preuzmi, the councilor's press opens the hearing as a private thread with the appellant."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_discord import World, answer_of, button_ids, link, make_world, store_game

from rules.verdicts import Draft, Penalty


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def test_an_appeal_goes_to_the_councilors_channel_and_preuzmi_opens_the_hearing(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "petar", "sudija1", "vecnik")
    await store_game(app, 100)
    async with world.running(app):
        desk = app.desk
        ana, sudija = (
            await desk.member_for("discord", str(m["ana"].id)),
            await desk.member_for("discord", str(m["sudija1"].id)),
        )
        assert ana is not None
        assert sudija is not None
        assert (await desk.call(ana, 100)).ok
        call = await app.db.calls.pending_for_game(100)
        assert call is not None
        assert (await desk.take(sudija, call.id)).ok
        assert (await desk.draft(sudija, Draft(Penalty("petar", plavac_days=2), "vređanje"))).ok
        assert (await desk.finish(sudija)).ok
        trial = (await app.db.trials.for_game(100))[-1]
        filed = await answer_of(
            fake, await fake.slash(m["petar"].id, "zalba", {"sudjenje": trial.id, "razlog": "@everyone nisam ja"})
        )
        assert filed.startswith("Žalba #1")
        notice = await fake.wait_for_message(world.councilors.id, lambda msg: "sudija:appeal_take:1" in button_ids(msg))
        assert fake.pings[int(notice["id"])].users == {m["vecnik"].id}
        assert not fake.pings[int(notice["id"])].everyone
        taken = await answer_of(fake, await fake.press(m["vecnik"].id, int(notice["id"]), "sudija:appeal_take:1"))
        assert taken.startswith("Preuzeli ste žalbu #1")
        appeal = await app.db.appeals.get(1)
        assert appeal is not None
        assert appeal.hearing is not None
        threads = fake.threads_in(world.trials.id)
        assert len(threads) == 2  # the trial appealed against, then the hearing
        thread = threads[-1]
        assert {m["petar"].id, m["vecnik"].id} <= fake.thread_members(thread.id)
