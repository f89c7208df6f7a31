"""Discord and a busy database: an interaction that meets another process's write lock is answered "try again
in a moment" — not the generic failure, and never a "thinking…" left hanging."""

from __future__ import annotations

import pytest
from test_discord import World, answer_of, link, world

from bot.messages import Catalogue
from storage.errors import DatabaseBusy

__all__ = ["world"]  # the fixture, shared with the Discord tests


async def test_an_interaction_meeting_a_busy_database_is_answered_try_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ceca")

    async def busy(*args: object) -> None:
        raise DatabaseBusy("database is locked")

    monkeypatch.setattr(app.desk, "verdicts", busy)
    async with world.running(app):
        answer = await answer_of(fake, await fake.slash(m["ceca"].id, "presude", {"partija": 1}))
    assert answer == Catalogue("sr").t("db.busy")
