"""Replacing a stored log: free before the desk refers to the game; afterwards only a log that continues it."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from log_words import english

from bot.gameserver.feed import _texts
from club import NOW, Club, database_for
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from storage.database import open_database
from storage.games import PreparedGame, canonical_log
from storage.gameserver import EffectRefused, LiveFeedStore, Taken, TakeResult, live_digest


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
    assert "a referee was called" in english(refused.refused)[0]
    finished = await club.db.games.store([PreparedGame.of(full)], NOW)
    assert finished.imported == 1
    assert (await club.db.games.summary(700)).status is GameStatus.FINISHED  # type: ignore[union-attr]
    # A finished game does not go on.
    again = await club.db.games.store([PreparedGame.of(replace(full, abandoned_by=("ana",)))], NOW)
    assert again.imported == 0
    assert again.refused


def _live(number: int, hands: int) -> Game:
    return generate_game(
        random.Random(number),
        number,
        hands=hands,
        status=GameStatus.IN_PROGRESS,
        players=("ana", "marko", "petar"),
        start=NOW - timedelta(hours=3),
        open_last=False,
    )


async def _append(club: Club, game: Game, upto: int) -> None:
    """The live feed's write of each finished hand of `game` after the stored ones, up to hand `upto`: its row
    appended (`LiveFeedStore.add_hand`), the log not written."""
    store = LiveFeedStore(club.db)
    head, texts = _texts(game)
    for n in range(len((await club.db.games.get(game.number)).hands) + 1, upto + 1):  # type: ignore[union-attr]
        digest = await store.digest(game.number)
        grown = live_digest(head, texts[:n])
        effect = LiveFeedStore.add_hand(game.number, texts[n - 1], n, grown, None, digest, NOW)
        event = (f"h-{game.number}-{n}", "hand_finished", None, None, "{}", effect)
        assert await store.take_many([event], NOW) == [TakeResult(Taken.ACCEPTED, 0)]


async def test_hands_appended_read_back_as_the_whole_game_and_a_whole_log_takes_them_in(club: Club) -> None:
    """A hand the live feed finished is a row of its own, not the game's log written again: the game reads back
    the same as its whole log would (hands, digest, version raised per hand), a file of that very log is
    unchanged, and a log written whole (one that goes on) holds every hand and leaves no appended row."""
    game = _live(4401, 8)
    assert (await club.db.games.store([PreparedGame.of(replace(game, hands=game.hands[:3]))], NOW)).imported == 1
    version = await club.db.games.version(4401)
    await _append(club, game, 6)
    six = replace(game, hands=game.hands[:6])
    assert await club.db.games.get(4401) == six
    assert await LiveFeedStore(club.db).digest(4401) == canonical_log(six)[0]
    assert await club.db.games.version(4401) == (version or 0) + 3
    assert (await club.db.games.summary(4401)).hand_count == 6  # type: ignore[union-attr]
    assert await appended(club, 4401) == 3
    assert (await club.db.games.store([PreparedGame.of(six)], NOW)).unchanged == 1
    ana = await club.db.members.ensure("ana", NOW)
    await club.db.calls.create(4401, ana.id, True, NOW, NOW + timedelta(minutes=5))  # only a log going on now
    went_on = await club.db.games.store([PreparedGame.of(game)], NOW)
    assert (went_on.imported, went_on.refused) == (1, [])
    assert await club.db.games.get(4401) == game
    assert await appended(club, 4401) == 0
    stale = LiveFeedStore.add_hand(4401, "{}", 7, "x", None, canonical_log(six)[0], NOW)  # the feed's old digest
    [refused] = await LiveFeedStore(club.db).take_many([("late", "hand_finished", None, None, "{}", stale)], NOW)
    assert isinstance(refused, EffectRefused)
    assert await club.db.games.get(4401) == game


async def test_a_database_of_whole_logs_migrates_and_reads_back_the_same(club: Club, tmp_path: Path) -> None:
    """Migration 0037 on a database whose games are whole logs (as every game was before it): each game reads back
    identical, with its digest and paper version, and the live feed appends to a migrated game in progress."""
    finished = generate_game(random.Random(9), 4402, hands=5, players=("ana", "marko", "petar"), start=NOW)
    live = _live(4403, 7)
    rows = [PreparedGame.of(finished), PreparedGame.of(replace(live, hands=live.hands[:4]))]
    assert (await club.db.games.store(rows, NOW)).imported == 2
    before = {n: (await club.db.games.get(n), await club.db.games.version(n)) for n in (4402, 4403)}
    async with club.db.transaction() as conn:  # the schema as it stood before 0037
        await conn.execute("DROP TABLE game_hands")
        await conn.execute("DELETE FROM schema_migrations WHERE version = 37")
    await club.db.close()
    club.db = await open_database(database_for(tmp_path))
    applied = await club.db.connection.execute_fetchall("SELECT version FROM schema_migrations WHERE version = 37")
    assert [tuple(row) for row in applied] == [(37,)]
    assert {n: (await club.db.games.get(n), await club.db.games.version(n)) for n in (4402, 4403)} == before
    await _append(club, live, 7)
    assert await club.db.games.get(4403) == live


async def appended(club: Club, game: int) -> int:
    rows = await club.db.connection.execute_fetchall("SELECT count(*) FROM game_hands WHERE game = ?", (game,))
    return int(next(iter(rows))[0])
