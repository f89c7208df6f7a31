"""The club group's roll call at a Telegram start (`TelegramHandlers.roll_call`, the core's `Reported.roll_call`):
paced at `[telegram] roll_call_per_second` apart from the members' messages, so a club of many linked accounts
draws no 429 and holds nothing of the club group; a 429 Telegram gives it anyway is waited out by the lookups
alone. And when it cannot finish: the bot is no longer in the group, Telegram asks for a wait longer than a
start's, the database is gone. Each ends the roll call with a warning for the operator: nobody is reported as
having left on an answer Telegram did not give, nothing reaches the log as an error, and the bot runs and stops
as ever."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from test_telegram import Scene, fake, scene
from test_telegram_limits import Timeline

from bot.config import ConfigError, TelegramConfig, from_dict
from bot.telegram.adapter import TelegramAdapter
from bot.telegram.limiter import LOOKUP_RATE, ClubRateLimiter, Rate
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


async def link_many(scene: Scene, count: int) -> list[int]:
    """`count` more members of the club group, each linked: their Telegram ids."""
    ids = []
    for n in range(count):
        user = scene.fake.user(f"Igrac{n}", started=True)
        scene.club.members[user.id] = "member"
        await scene.a.db.members.link("telegram", str(user.id), f"igrac{n}", scene.clock.now())
        ids.append(user.id)
    return ids


def asked(scene: Scene, since: int = 0) -> list[int]:
    """The accounts getChatMember asked about (answered), in order."""
    return [r.params["user_id"] for r in scene.fake.calls("getChatMember") if r.ok and r.index >= since]


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_roll_call_of_many_accounts_keeps_telegram_s_rate(scene: Scene) -> None:
    """Against a fake as strict as Telegram about lookups: unpaced, a roll call of 40 linked accounts back to back
    draws 429s; paced at the default rate, none is refused, every account is asked, and the one who left while
    the bot was away is reported."""
    fake = scene.fake
    fake.limits = True
    ids = await link_many(scene, 40)
    scene.club.members[ids[-1]] = "left"
    unpaced = ClubRateLimiter(clock=lambda: scene.fake_now, sleep=scene.sleep, paced=False, max_retries=0)
    async with scene.running(limiter=unpaced) as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 0  # ended by the first 429: nobody reported
    assert fake.limit_refusals > 0  # the fake is as strict as Telegram: an unpaced roll call is refused
    refused, start, mark = fake.limit_refusals, scene.fake_now, fake.mark()
    fake.sent_times.clear()
    paced = ClubRateLimiter(clock=lambda: scene.fake_now, sleep=scene.sleep, max_retries=0)
    async with scene.running(limiter=paced) as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 1
    assert fake.limit_refusals == refused  # paced: nothing refused
    assert set(ids) <= set(asked(scene, mark))
    assert scene.fake_now - start >= (len(ids) - LOOKUP_RATE.burst) * LOOKUP_RATE.interval
    assert not (await scene.member("igrac39")).in_club


async def test_the_roll_call_s_pace_holds_no_message_of_the_club_group(scene: Scene) -> None:
    """While the roll call waits for its next lookup's slot, a message to the club group (an announcement, the
    deep link for a member who never started the bot) goes at once: the roll call takes no slot of the group's
    or the bot's."""
    time = Timeline(scene)
    limiter = ClubRateLimiter(clock=time.now, sleep=time.sleep)
    await link_many(scene, LOOKUP_RATE.burst)  # more than a burst: the roll call waits for a slot
    try:
        async with scene.running(limiter=limiter) as adapter:
            await time.asleep(1)  # the roll call waits for its next slot on Telegram's clock
            paused_at, mark = scene.fake_now, scene.fake.mark()
            await adapter.port.send(scene.club.id, "obaveštenje")
            assert [r.ok for r in scene.fake.calls("sendMessage") if r.index >= mark] == [True]
            assert scene.fake_now == paused_at  # nothing waited for the roll call
            await time.release()  # the roll call's waits end: it asks the rest
            assert adapter.rolled is not None
            assert await adapter.rolled == 0
    finally:
        await time.release()


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_429_on_the_roll_call_is_waited_out_by_the_lookups_alone(scene: Scene) -> None:
    """getChatMember answered 429 retry after 5: the roll call waits as Telegram asks and goes on (ana's leave
    is reported), while the club group it asked about is never held — its messages go on meanwhile."""
    held: list[bool] = []

    async def sleep(seconds: float) -> None:
        held.append(limiter.held(scene.club.id))
        await scene.sleep(seconds)

    limiter = ClubRateLimiter(clock=lambda: scene.fake_now, sleep=sleep)
    await scene.link("ana")
    scene.club.members[scene.u("ana").id] = "left"
    scene.fake.fail_next("getChatMember", 429, "Too Many Requests: retry after 5", retry_after=5)
    async with scene.running(limiter=limiter) as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 1
    assert limiter.floods == 1
    assert any(wait >= 5 for wait in scene.waits)  # Telegram's retry_after, honoured
    assert held  # the wait Telegram asked for
    assert not any(held), "the roll call's 429 held the club group's messages"
    assert not (await scene.member("ana")).in_club


async def test_the_roll_call_s_pace_is_configured_and_checked(scene: Scene) -> None:
    """`[telegram] roll_call_per_second`: 5 unless set, above 0 and at most 20 (Telegram answers a bot that floods
    with 429); the adapter's limiter paces the lookups at it."""
    assert from_dict({}).telegram.roll_call_per_second == LOOKUP_RATE.count == 5
    assert from_dict({"telegram": {"roll_call_per_second": 0.5}}).telegram.roll_call_per_second == 0.5
    for wrong in (0, -1, 21, "5/s", True):
        with pytest.raises(
            ConfigError, match=r"telegram\.roll_call_per_second must be a number above 0 and at most 20"
        ):
            from_dict({"telegram": {"roll_call_per_second": wrong}})
    settings = TelegramConfig(club_group_id=scene.club.id, base_url=scene.fake.base_url, roll_call_per_second=2)
    adapter = TelegramAdapter(scene.a.desk, settings)
    assert adapter.rate_limiter.lookup_rate == Rate(2, 1.0, burst=LOOKUP_RATE.burst)
