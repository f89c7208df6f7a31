"""Replacing a stored log: free before the desk refers to the game; afterwards only a log that continues it."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from club import NOW, Club
from rules.gamelog import GameStatus
from rules.generator import generate_game
from storage.games import PreparedGame


async def test_a_game_in_progress_may_go_on_after_a_call_but_its_finished_hands_may_not_change(club: Club) -> None:
    full = generate_game(
        random.Random(7),
        700,
        hands=6,
        status=GameStatus.FINISHED,
        players=("ana", "marko", "petar"),
        start=NOW - timedelta(hours=2),
    )
    assert full.ended_at is not None
    early = replace(full, status=GameStatus.IN_PROGRESS, ended_at=None, hands=full.hands[:3])
    assert (await club.db.games.store([PreparedGame.of(early)], NOW)).imported == 1
    ana = await club.db.members.ensure("ana", NOW)
    await club.db.calls.create(700, ana.id, True, NOW, NOW + timedelta(minutes=5))
    went_on = await club.db.games.store([PreparedGame.of(replace(early, hands=full.hands[:5]))], NOW)
    assert (went_on.imported, went_on.refused) == (1, [])
    assert len((await club.db.games.get(700)).hands) == 5  # type: ignore[union-attr]
    first = full.hands[0]
    assert first.ended_at is not None
    rewritten = replace(full, hands=(replace(first, ended_at=first.ended_at + timedelta(seconds=1)), *full.hands[1:]))
    refused = await club.db.games.store([PreparedGame.of(rewritten)], NOW)
    assert refused.imported == 0
    assert "a referee was called" in refused.refused[0]
    finished = await club.db.games.store([PreparedGame.of(full)], NOW)
    assert finished.imported == 1
    assert (await club.db.games.summary(700)).status is GameStatus.FINISHED  # type: ignore[union-attr]
    # A finished game does not go on.
    again = await club.db.games.store([PreparedGame.of(replace(full, abandoned_by=("ana",)))], NOW)
    assert again.imported == 0
    assert again.refused
