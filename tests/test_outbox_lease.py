"""Several bot processes sending one outbox (on both backends; PostgreSQL is where it matters): a command is
leased before it is sent, so two workers on two connections send each command exactly once, and a command whose
sender died is sent again — with its key — once its lease runs out, or at once when the next bot starts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot import outbox_engine
from bot.gameserver.outbox import LEASE, OutboxWorker
from bot.gameserver.protocol import IDEMPOTENCY_HEADER
from club import NOW, database_for
from storage.database import Database, open_database
from storage.outbox import OutboxStore

SECRET = b"s" * 32


@pytest.fixture
async def game_server() -> AsyncIterator[tuple[str, list[str]]]:
    """A game server on loopback that accepts every command and keeps each key it received, in order."""
    received: list[str] = []

    async def commands(request: web.Request) -> web.Response:
        received.append(request.headers[IDEMPOTENCY_HEADER])
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/v1/commands", commands)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("/")), received
    finally:
        await server.close()


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[tuple[Database, Database]]:
    """Two connections to the test's database, as two bot processes have."""
    first = await open_database(database_for(tmp_path))
    second = await open_database(database_for(tmp_path))
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def test_two_workers_send_each_command_exactly_once(
    two: tuple[Database, Database], game_server: tuple[str, list[str]]
) -> None:
    url, received = game_server
    first, second = two
    for game in range(1, 11):
        await OutboxStore(first).enqueue(f"game:{game}", "pause_table", {"game": game}, NOW)
        await OutboxStore(first).enqueue(f"game:{game}", "resume_table", {"game": game}, NOW)
    workers = [OutboxWorker(db, url, SECRET, lambda: NOW) for db in two]
    total = 0
    try:
        while done := sum(await asyncio.gather(*(w.run_once() for w in workers))):  # both at once
            total += done
    finally:
        for worker in workers:
            await worker.stop()
    keys = [c.key for c in await OutboxStore(second).listing()]
    assert sorted(received) == sorted(keys)
    assert len(set(received)) == 20  # each exactly once
    assert total == 20
    assert await OutboxStore(second).counts() == {"sent": 20}


async def test_a_command_whose_sender_died_is_sent_once_its_lease_runs_out_or_when_the_next_bot_starts(
    two: tuple[Database, Database], game_server: tuple[str, list[str]]
) -> None:
    url, received = game_server
    first, second = two
    store = OutboxStore(first)
    command = await store.enqueue("game:7", "pause_table", {"game": 7}, NOW)
    assert command is not None
    assert await store.lease(command, NOW, NOW + LEASE)  # the first process took it, then died
    assert not await OutboxStore(second).lease(command, NOW, NOW + LEASE)  # one taker

    later = NOW + timedelta(seconds=1)
    worker = OutboxWorker(second, url, SECRET, lambda: later)
    try:
        assert await worker.run_once() == 0  # still the dead process's
        assert received == []
        assert await OutboxStore(second).next_wake() == NOW + LEASE  # not before it runs out
        later = NOW + LEASE
        assert await worker.run_once() == 1
    finally:
        await worker.stop()
    assert len(received) == 1

    other = await store.enqueue("game:8", "pause_table", {"game": 8}, NOW)
    assert other is not None
    assert await store.lease(other, NOW, NOW + LEASE)
    if second.dialect == "postgresql":  # several processes serve at once: a live process's lease is kept
        assert await OutboxStore(second).release_dead() == 0
        await first.close()  # as when its process dies: its connection gone
    assert await OutboxStore(second).release_dead() == 1  # a bot starting: the leases left are a dead one's
    worker = OutboxWorker(second, url, SECRET, lambda: NOW)
    try:
        assert await worker.run_once() == 1
    finally:
        await worker.stop()
    assert len(received) == 2
    assert await OutboxStore(second).counts() == {"sent": 2}


async def test_a_lease_whose_holder_dies_after_the_takeover_looked_is_released_without_waiting_it_out(
    two: tuple[Database, Database], game_server: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed process's connections close one after another: the process taking over may look at who is alive
    while the connection named by a lease is still there. Its worker asks again while another process's lease
    holds a row, so the row is sent once that connection is gone, not only when the lease runs out."""
    url, received = game_server
    first, second = two
    if second.dialect != "postgresql":
        pytest.skip("one process serves a SQLite file: every lease left is released at its start")
    monkeypatch.setattr(outbox_engine, "RECHECK", 0.01)  # the worker's own pause between two looks, made short
    store = OutboxStore(first)
    command = await store.enqueue("game:9", "pause_table", {"game": 9}, NOW)
    assert command is not None
    assert await store.lease(command, NOW, NOW + LEASE)  # the first process is acting on it
    worker = OutboxWorker(second, url, SECRET, lambda: NOW + timedelta(seconds=1))
    worker.start()  # the takeover: its release finds the first process alive
    try:
        await asyncio.sleep(0.05)  # the worker has looked and found the row another's
        assert received == []
        await first.close()  # the first process's last connection gone
        for _ in range(500):  # a bound; the worker looks again every RECHECK
            if received:
                break
            await asyncio.sleep(0.01)
        assert len(received) == 1  # sent long before the lease (minutes) runs out
    finally:
        await worker.stop()
