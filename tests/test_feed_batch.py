"""What one batch of the live feed costs the database (`LiveFeedStore.take_many`), on both backends: the statements
it sends do not grow with the batch, and the work of its read does not grow with the events its games already
have."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bench_scripts import load_bench
from linked import Linked, live_game, players_linked

from bot.gameserver.protocol import encode
from club import Club, database_for
from rules.gamelog import game_to_doc
from storage.database import open_database
from storage.gameserver import EffectRefused, Guarded, LiveFeedStore, Sure, Taken, TakeResult, Taking
from storage.sql import SyncConnection

NOW = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def seat(event_id: str, game: int, seq: int, effect: Any = None) -> Taking:
    return (event_id, "player_sat", game, seq, f'{{"id":"{event_id}"}}', effect)


async def fill(store: LiveFeedStore, game: int, count: int) -> None:
    """`count` events of `game` taken, a few hundred a batch."""
    for start in range(0, count, 250):
        taken = await store.take_many(
            [seat(f"{game}-{seq}", game, seq) for seq in range(start + 1, min(count, start + 250) + 1)], NOW
        )
        assert {r.taken for r in taken if isinstance(r, TakeResult)} == {Taken.ACCEPTED}


async def read_work(club: Club, backend: str, batch: list[Taking]) -> int:
    """What taking `batch` costs the database in rows or steps, its read included: on SQLite the virtual machine's
    steps of the whole transaction (a progress handler called at each); on PostgreSQL the rows of `gs_events`
    read by then (sequential and index fetches, `pg_stat_xact_user_tables`), counted by the last event's effect."""
    store = LiveFeedStore(club.db)
    if backend == "sqlite":
        steps = 0

        def step() -> int:
            nonlocal steps
            steps += 1
            return 0

        await club.db.sqlite.set_progress_handler(step, 1)
        try:
            results = await store.take_many(batch, NOW)
        finally:
            await club.db.sqlite.set_progress_handler(None, 1)  # type: ignore[arg-type]  # None removes it
        assert all(isinstance(r, TakeResult) and r.taken is Taken.ACCEPTED for r in results), results
        return steps
    rows: list[int] = []

    def count(conn: SyncConnection) -> None:
        found = conn.execute(
            "SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0) FROM pg_stat_xact_user_tables"
            " WHERE relname = 'gs_events'"
        ).fetchone()
        rows.append(int(found[0]))

    *others, last = batch
    results = await store.take_many([*others, (*last[:5], Sure(count))], NOW)
    assert all(isinstance(r, TakeResult) and r.taken is Taken.ACCEPTED for r in results), results
    return rows[0]


async def test_a_batch_s_read_costs_the_same_however_many_events_its_games_have(club: Club, backend: str) -> None:
    """The ids taken and the games' last numbers are looked up key by key through their indexes: a batch on
    games with 1,500 events each costs what one on games with 3 does, and on PostgreSQL a few rows per event
    whatever the planner's statistics say of the tables (a fresh database's say they are empty). A read of each
    game's events, or of the club's, made an evening's feed slower with every move it took."""
    store = LiveFeedStore(club.db)
    for game in (1, 2, 3, 4):
        await fill(store, game, 3)
    for game in (11, 12, 13, 14):
        await fill(store, game, 1500)
    young = await read_work(club, backend, [seat(f"{g}-4", g, 4) for g in (1, 2, 3, 4)])
    old = await read_work(club, backend, [seat(f"{g}-1501", g, 1501) for g in (11, 12, 13, 14)])
    assert old <= young * 1.5 + 20, (young, old)
    if backend == "postgresql":  # a few rows per key, not the club's thousands of events
        assert old <= 4 * 10, old


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    async with players_linked(tmp_path) as club:
        yield club


def posted(game: int, seq: int, kind: str, data: dict[str, Any]) -> bytes:
    return encode({"v": 1, "id": f"b-{game}-{seq}", "type": kind, "game": game, "seq": seq, "data": data})


async def together(linked: Linked, bodies: list[bytes]) -> list[str]:
    """The statements the feed sends the database for events arriving together (one batch), each answered 200."""
    async with linked.db.statements_sent() as sent:
        answers = await asyncio.gather(*(linked.link.feed.apply(body) for body in bodies))
    assert [status for status, _ in answers] == [200] * len(bodies), answers
    return list(sent)


async def start(linked: Linked, games: range) -> list[dict[str, Any]]:
    """`games` started (in one batch); their hands' documents, by game."""
    starts, hands = [], []
    for number in games:
        doc = game_to_doc(live_game(number, ("ana", "marko", "petar"), 3))
        data = {k: doc[k] for k in ("rated", "ai", "bule", "refe_limit", "players", "started_at")}
        starts.append(posted(number, 1, "game_started", data))
        hands.append(doc["hands"])
    await together(linked, starts)
    return hands


async def moves_of(linked: Linked, games: range) -> list[str]:
    """The statements of one batch of a move at each of `games` (started before, in a batch of their own)."""
    await start(linked, games)
    move = {"hand": 1, "move": 1, "player": "ana", "what": "bid 2"}
    return await together(linked, [posted(number, 2, "move_played", move) for number in games])


async def hands_of(linked: Linked, games: range) -> list[str]:
    """The statements of one batch of each of `games`' first hand finished."""
    hands = await start(linked, games)
    return await together(
        linked, [posted(number, 2, "hand_finished", {"hand": doc[0]}) for number, doc in zip(games, hands, strict=True)]
    )


async def test_a_batch_of_moves_sends_the_same_few_statements_however_many_tables_it_holds(
    linked: Linked, backend: str
) -> None:
    """A batch of moves asks the database the same few statements for 3 tables or 30: BEGIN with the write lock,
    the one read of the batch's ids, games and open korekcija requests, the moves and the events written in one
    statement on PostgreSQL (two on SQLite, which has no data-modifying WITH and no round trips), COMMIT. On
    PostgreSQL each is a round trip to the server the import and the Arbitar share the machine with."""
    few = await moves_of(linked, range(101, 104))
    many = await moves_of(linked, range(201, 231))
    assert len(many) == len(few), "\n".join(many)
    assert len(many) <= {"sqlite": 5, "postgresql": 4}[backend], "\n".join(many)
    assert sum("gs_moves" in s for s in many) == 1, "\n".join(many)


async def test_a_batch_of_finished_hands_sends_one_round_trip_per_hand(linked: Linked, backend: str) -> None:
    """A finished hand appends its row to its game: its game's columns grown and the row, in one statement on
    PostgreSQL (one round trip), two on SQLite; its end is written with the batch's moves and events, and the
    korekcija requests it lapses are looked for only when the batch's read found one open for its game (none
    here), so nothing else is asked per hand, in the transaction or before it."""
    per_hand = {"sqlite": 2, "postgresql": 1}[backend]
    few = await hands_of(linked, range(301, 304))
    many = await hands_of(linked, range(401, 431))
    assert len(many) - len(few) == per_hand * (30 - 3), "\n".join(many)
    assert len(few) <= {"sqlite": 6, "postgresql": 4}[backend] + per_hand * 3, "\n".join(few)
    assert not [s for s in many if "korekcije" in s and not s.startswith("SELECT 0")], "\n".join(many)


async def test_a_hand_s_end_refused_with_its_event_leaves_no_row_and_lapses_nothing(club: Club) -> None:
    """A hand's end (`HandDone`) is written with the batch's rows after the loop, only for an event taken: one
    whose effect is refused, before it wrote (`Guarded`) or after (rolled back to its savepoint), leaves no row of
    its hand's end and lapses no request, while the batch's other events are taken as if one by one."""
    store = LiveFeedStore(club.db)
    ana = await club.db.members.ensure("ana", NOW)
    await store.take_many([("m-1", "move_played", 7, 1, "{}", LiveFeedStore.move(7, 1, 1, "ana", "x", NOW))], NOW)
    await store.take_many([("m-2", "move_played", 8, 1, "{}", LiveFeedStore.move(8, 1, 1, "ana", "x", NOW))], NOW)
    requests = {}
    for game in (7, 8):
        last = await store.last_move(game)
        assert last is not None
        requests[game] = await store.request_korekcija(last, ana.id, NOW)

    def refuse_first(conn: SyncConnection) -> None:
        raise EffectRefused("game", "refused before writing")

    def refuse_after(conn: SyncConnection) -> None:
        LiveFeedStore.offer("ana", "rolled-back", True, NOW).run(conn)
        raise EffectRefused("game", "refused after writing")

    results = await store.take_many(
        [
            (
                "h-7",
                "hand_finished",
                7,
                2,
                "{}",
                LiveFeedStore.steps(Guarded(refuse_first), LiveFeedStore.hand_done(7, 1, NOW)),
            ),
            ("h-8", "hand_finished", 8, 2, "{}", LiveFeedStore.steps(LiveFeedStore.hand_done(8, 1, NOW), refuse_after)),
            (
                "h-9",
                "hand_finished",
                9,
                1,
                "{}",
                LiveFeedStore.steps(Sure(lambda conn: None), LiveFeedStore.hand_done(9, 1, NOW)),
            ),
        ],
        NOW,
    )
    assert [type(r).__name__ for r in results] == ["EffectRefused", "EffectRefused", "TakeResult"]
    assert not await store.hand_finished(7, 1)
    assert not await store.hand_finished(8, 1)
    assert await store.hand_finished(9, 1)
    assert await store.offers("ana") == []
    for game in (7, 8):
        request = requests[game]
        assert request is not None
        still = await store.korekcija(request)
        assert still is not None
        assert still.state.value == "pending", game
    assert await store.last_seq(7) == 1
    again = await store.take_many(
        [
            (
                "h-7",
                "hand_finished",
                7,
                2,
                "{}",
                LiveFeedStore.steps(Sure(lambda conn: None), LiveFeedStore.hand_done(7, 1, NOW)),
            )
        ],
        NOW,
    )
    assert again == [TakeResult(Taken.ACCEPTED, 2)]
    assert await store.hand_finished(7, 1)
    lapsed = await store.korekcija(requests[7] or 0)
    assert lapsed is not None
    assert lapsed.state.value == "lapsed"


async def test_the_batch_bench_takes_its_batches_and_counts_what_the_test_counts(tmp_path: Path, backend: str) -> None:
    """`bench/feed_batch.py` times batches the store takes whole (each move accepted, the games growing a move a
    batch) and reports the statements of one, as counted above: BEGIN, the read, the writes, COMMIT."""
    bench = load_bench("feed_batch")
    target = str(database_for(tmp_path))
    median, p90, statements, cpu = await bench.run(target, 4, 3)
    assert statements == {"sqlite": 5, "postgresql": 4}[backend]
    assert 0 < median <= p90
    assert cpu > 0
    db = await open_database(target)
    try:
        assert await LiveFeedStore(db).last_seq(4) == 4  # batches 1 to 4: every move taken
        assert await LiveFeedStore(db).event_count() == 4 * 4
    finally:
        await db.close()
