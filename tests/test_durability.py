"""Durability and the Sudi race under load: commits whose result a member is told run with synchronous=FULL;
50 referees pressing at once give exactly one winner, and the presses that cannot win are answered without a
write (naming the winner); a winner whose write fails leaves the call open to the next press."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from club import Club
from storage.errors import DatabaseBusy

FULL, NORMAL = 2, 1


async def synchronous(club: Club) -> int:
    async with club.db.connection.execute("PRAGMA synchronous") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def test_a_commit_a_member_is_told_of_is_synced_full_and_bookkeeping_normal(club: Club) -> None:
    # Between transactions the pragma stays as the last one left it (the fixture may end on bookkeeping, which
    # is not synced): only what each transaction runs with matters.
    async with club.db.transaction(durable=False):
        assert await synchronous(club) == NORMAL
    async with club.db.transaction():
        assert await synchronous(club) == FULL


async def test_fifty_referees_press_at_once_the_losers_are_answered_before_the_winners_write_ends(club: Club) -> None:
    gate = asyncio.Event()
    writes = 0
    real = club.db.trials.take

    async def slow(*args: Any) -> Any:  # the winner's write takes as long as the test wants
        nonlocal writes
        writes += 1
        await gate.wait()
        return await real(*args)

    club.db.trials.take = slow  # type: ignore[method-assign]
    ana = await club.member("ana")
    await club.game(500)
    judges = [await club.member(f"sudija{i}", "referee") for i in range(50)]
    assert (await club.desk.calls.call(ana, 500)).ok
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    presses = [asyncio.create_task(club.desk.trials.take(j, call.id)) for j in judges]
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    # the losers are answered while the winner's write is held (it may begin after the last of them is answered)
    while (sum(p.done() for p in presses) < 49 or writes < 1) and loop.time() < end:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    assert sum(p.done() for p in presses) == 49
    assert writes == 1
    gate.set()
    replies = [await p for p in presses]
    winners = [j.nick for j, reply in zip(judges, replies, strict=True) if reply.ok]
    assert len(winners) == 1
    assert writes == 1
    told = club.desk.t("take.in_progress", game=500, referee=winners[0])
    assert all(reply.text == told for reply in replies if not reply.ok)
    trial = await club.db.trials.open_for_game(500)
    assert trial is not None
    assert await club.desk.lookups.nick(trial.referee) == winners[0]
    late = await club.desk.trials.take(judges[0] if winners[0] != judges[0].nick else judges[1], call.id)
    assert late.text == club.desk.t("take.taken", game=500, referee=winners[0])


async def test_a_winner_whose_write_fails_leaves_the_call_to_the_next_press(club: Club) -> None:
    real = club.db.trials.take
    failures = [DatabaseBusy("database is locked")]

    async def flaky(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real(*args)

    club.db.trials.take = flaky  # type: ignore[method-assign]
    ana = await club.member("ana")
    await club.game(500)
    first, second = await club.member("sudija1", "referee"), await club.member("sudija2", "referee")
    assert (await club.desk.calls.call(ana, 500)).ok
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    with pytest.raises(DatabaseBusy):
        await club.desk.trials.take(first, call.id)
    assert (await club.desk.trials.take(second, call.id)).ok
    assert club.desk.trials._take_claims == {}
