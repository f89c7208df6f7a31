"""What one batch of the live feed costs the database (`LiveFeedStore.take_many`), on both backends: the work of
its read does not grow with the events its games already have."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from club import Club
from storage.gameserver import LiveFeedStore, Sure, Taken, TakeResult, Taking
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
    if backend == "postgresql":  # a few rows per key, not the club's events (6,012 stored here)
        assert old <= 4 * 10, old
