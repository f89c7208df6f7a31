"""`bot.member_list.MemberList` on its own: when it asks again, what a failed request ends in, and its stop.
The whole path through discord.py against the fake Discord is in tests/test_discord.py (a restart within 30 s)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.member_list import FLOOR, MemberList


class Scene:
    def __init__(self) -> None:
        self.pauses: list[float] = []
        self.go = asyncio.Event()
        self.pausing = asyncio.Condition()
        self.requests = 0
        self.completed = 0
        self.fail: Exception | None = None
        self.refuse_next = 0  # requests the platform rate limits (with 30 s), each as it is made
        self.list = MemberList("klub", "discord", self.request, self.complete, self.sleep)
        self.done = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        async with self.pausing:
            self.pauses.append(seconds)
            self.pausing.notify_all()
        await self.go.wait()
        self.go.clear()

    async def paused(self, count: int) -> None:
        async with asyncio.timeout(5), self.pausing:
            await self.pausing.wait_for(lambda: len(self.pauses) >= count)

    async def request(self) -> None:
        self.requests += 1
        if self.fail is not None:
            raise self.fail
        if self.refuse_next:
            self.refuse_next -= 1
            self.list.rate_limited(30.0)

    async def complete(self) -> None:
        self.completed += 1
        self.done.set()


async def test_it_pauses_at_least_the_floor_asks_once_per_pause_and_completes_once() -> None:
    scene = Scene()
    scene.list.rate_limited(0.0)  # a retry_after of nothing: still a pause
    scene.list.rate_limited(2.5)  # another event before the pause began: only the next wait changes
    await scene.paused(1)
    assert scene.pauses == [2.5]
    scene.refuse_next = 1
    scene.go.set()
    await scene.paused(2)
    assert (scene.requests, scene.pauses, scene.completed) == (1, [2.5, 30.0], 0)
    scene.go.set()
    async with asyncio.timeout(5):
        await scene.done.wait()
    assert (scene.requests, scene.completed, scene.list.limited) == (2, 1, 0)
    first = Scene()
    first.list.rate_limited(-1.0)
    await first.paused(1)
    assert first.pauses == [FLOOR]
    await first.list.stop()


async def test_a_request_that_fails_is_told_as_an_error_and_ends_the_episode(caplog: pytest.LogCaptureFixture) -> None:
    scene = Scene()
    scene.fail = ConnectionResetError("the gateway closed")
    with caplog.at_level(logging.INFO, logger="bot.member_list"):
        scene.list.rate_limited(30.0)
        scene.go.set()
        task = scene.list._task
        assert task is not None
        async with asyncio.timeout(5):
            await task
    assert (scene.requests, scene.completed, scene.list.limited) == (1, 0, 0)
    (error,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "ConnectionResetError: the gateway closed" in error.getMessage()
    scene.fail = None
    scene.list.rate_limited(30.0)  # a later rate limit starts a new episode: warned again
    assert sum(r.levelno == logging.WARNING for r in caplog.records) == 2
    await scene.list.stop()


async def test_stop_ends_a_pause_and_nothing_is_asked() -> None:
    scene = Scene()
    scene.list.rate_limited(30.0)
    await scene.paused(1)
    await scene.list.stop()
    scene.go.set()
    await asyncio.sleep(0)
    assert (scene.pauses, scene.requests, scene.completed) == ([30.0], 0, 0)
