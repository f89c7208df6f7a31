"""The club group's roll call at a Telegram start (`TelegramHandlers.roll_call`, the core's `Reported.roll_call`)
when it cannot finish: the bot is no longer in the group, Telegram asks for a wait longer than a start's, the
database is gone. Each ends the roll call with a warning for the operator: nobody is reported as having left on
an answer Telegram did not give, nothing reaches the log as an error, and the bot runs and stops as ever."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from test_telegram import Scene, fake, scene

from storage.errors import DatabaseUnavailable

__all__ = ["fake", "scene"]  # the fixtures, shared with the Telegram tests


def _unhandled(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def _warned(caplog: pytest.LogCaptureFixture, what: str) -> bool:
    return any(
        "roll call" in r.getMessage() and what in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
    )


async def test_a_bot_no_longer_in_the_club_group_reports_nobody_gone(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot was removed from the club group while it was away: Telegram refuses to say who is in it (403),
    so ana — gone from the group too — is not reported by the roll call; the operator is warned."""
    await scene.link("ana")
    scene.club.members[scene.u("ana").id] = "left"
    scene.club.members[scene.fake.bot.id] = "kicked"
    with caplog.at_level(logging.INFO):
        async with scene.running() as adapter:
            assert adapter.rolled is not None
            assert await adapter.rolled == 0
    assert (await scene.member("ana")).in_club  # as recorded: Telegram did not say otherwise
    assert _warned(caplog, "Forbidden")
    assert _unhandled(caplog) == []


async def test_a_flood_wait_longer_than_a_start_s_ends_the_roll_call(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    """getChatMember answered 429 with a wait of two minutes (past the limiter's `FLOOD_WAIT_LIMIT`): the roll
    call is not kept waiting; it ends, warned, and ana's leave is left to the next start."""
    await scene.link("ana")
    scene.club.members[scene.u("ana").id] = "left"
    scene.fake.fail_next("getChatMember", 429, "Too Many Requests: retry after 120", retry_after=120)
    with caplog.at_level(logging.INFO):
        async with scene.running() as adapter:
            assert adapter.rolled is not None
            assert await adapter.rolled == 0
    assert (await scene.member("ana")).in_club
    assert _warned(caplog, "RetryAfter")
    assert _unhandled(caplog) == []


async def test_the_database_gone_ends_the_roll_call_not_the_stop(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database is gone (not busy) when the roll call reads the linked accounts: the roll call ends with a
    warning instead of failing its task — whose failure the stop awaiting it would raise, leaving Telegram's
    client unclosed and the operator a traceback."""
    await scene.link("ana")

    async def gone(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("the connection to the server was lost")

    monkeypatch.setattr(scene.a.db.members, "accounts_on", gone)
    with caplog.at_level(logging.INFO):
        async with scene.running() as adapter:
            assert adapter.rolled is not None
            assert await adapter.rolled == 0
    assert not adapter.application.running
    assert _warned(caplog, "DatabaseUnavailable")
    assert _unhandled(caplog) == []
