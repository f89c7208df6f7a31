"""The chat outbox on Discord: a trial's space delivered again after a crash (its part begun, not known done)
finds the thread it created by the trial's id instead of opening a second one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_discord import World, link, make_world, open_trial, store_game

from storage.chat_outbox import ChatOutboxStore
from storage.states import DeliveryState, OutboxState


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def test_a_repeated_opening_of_a_trials_space_finds_its_thread(world: World) -> None:
    fake = world.fake
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        store = ChatOutboxStore(app.db)
        (opening,) = [e for e in await store.listing() if e.kind == "open_trial_space"]
        assert opening.state is OutboxState.SENT
        # The crash came after Discord was asked and before the commit that says so: pending, begun.
        async with app.db.transaction() as conn:
            await conn.execute("UPDATE chat_outbox SET state = 'pending' WHERE id = ?", (opening.id,))
            await conn.execute("UPDATE chat_deliveries SET state = 'started' WHERE effect = ?", (opening.id,))
        assert await app.desk.delivery.chat_outbox.deliver() == 1
        threads = [t for t in fake.threads_in(world.trials.id) if t.name == f"Suđenje #{trial_id}"]
        assert [t.id for t in threads] == [thread.id]
        assert await store.deliveries(opening.id) == {"discord": DeliveryState.DONE}
