"""`sudija run`'s serve loop against the fake Bot API: one bot per SQLite database (a second process is refused and
told who holds the lock), several on PostgreSQL (one polls, another takes over when it stops), and a stop (what
SIGTERM and SIGINT set) ends it cleanly, the fetched updates confirmed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli.run import serve
from bot.config import Config, ConfigError, TelegramConfig
from bot.dblock import DatabaseLock
from fakes.telegram_server import FakeTelegram


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123456789:TEST-fake-bot-token")
    async with FakeTelegram() as server:
        yield server


def config(fake: FakeTelegram, tmp_path: Path) -> Config:
    club = fake.group("Klub")
    return Config(
        database=str(tmp_path / "club.db"),
        owner="vesna",
        owner_accounts=("telegram:9001",),
        telegram=TelegramConfig(club_group_id=club.id, base_url=fake.base_url),
    )


async def test_one_bot_per_database_and_a_clean_stop(fake: FakeTelegram, tmp_path: Path) -> None:
    settings = config(fake, tmp_path)
    stop = asyncio.Event()
    running = asyncio.create_task(serve(settings, stop=stop))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    with pytest.raises(ConfigError, match=r"in use by another Sudija \(pid \d+ on .+, since .+\)"):
        DatabaseLock(settings.database).acquire()
    with pytest.raises(ConfigError, match="one bot per database"):
        await serve(settings, stop=asyncio.Event())
    stop.set()
    await asyncio.wait_for(running, 10)
    assert fake.calls("getUpdates")[-1].params["timeout"] == 0  # PTB confirmed what it fetched on the way out
    with DatabaseLock(settings.database):  # released: the next bot may start
        pass


async def test_sigterm_stops_the_bot_cleanly(fake: FakeTelegram, tmp_path: Path) -> None:
    import os  # noqa: PLC0415 (imported where the test needs it)
    import signal  # noqa: PLC0415 (imported where the test needs it)

    settings = config(fake, tmp_path)
    running = asyncio.create_task(serve(settings))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    os.kill(os.getpid(), signal.SIGTERM)  # what systemd or docker stop sends
    await asyncio.wait_for(running, 10)
    assert fake.calls("getUpdates")[-1].params["timeout"] == 0
    with DatabaseLock(settings.database):
        pass


async def test_on_postgresql_two_bots_serve_at_once_and_one_polls_until_it_stops_then_the_other_does(
    fake: FakeTelegram, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = replace(config(fake, tmp_path), database=pg_url)
    caplog.set_level(logging.INFO)
    first_stop, second_stop = asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(serve(settings, stop=first_stop))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    second = asyncio.create_task(serve(settings, stop=second_stop))  # not refused: it serves beside the first
    await fake.wait_until(lambda: "standing by for the gateway: server process" in caplog.text)
    assert not second.done()
    first_stop.set()
    await asyncio.wait_for(first, 10)
    handed_over = len(fake.calls("getUpdates"))
    assert fake.calls("getUpdates")[-1].params["timeout"] == 0  # the first confirmed what it fetched
    await fake.wait_until(lambda: len(fake.calls("getUpdates")) > handed_over)  # the second polls now
    assert "holding the gateway" in caplog.text
    second_stop.set()
    await asyncio.wait_for(second, 10)
    # While both served, one polled: no poll was cut short by another's (409 Conflict). The second's last poll
    # is ended by its own confirmation on the way out, as any bot's.
    assert [r.error_code for r in fake.calls("getUpdates")[:handed_over]] == [None] * handed_over
