"""The one place an attempt's outcome is classified (bot/outbox_engine.py), for both outboxes: delivered, to be
tried again (what may heal), or refused for good (what the protocol or the platform calls final) — from the real
chat libraries' errors, the network's, and the game server's answers — and the bound after which a row is dead."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import discord
import pytest
import telegram.error

from bot.config import ConfigError, OutboxConfig, from_dict
from bot.gameserver.protocol import final_refusal
from bot.outbox_engine import Backoff, Bounds, Outcome, answer_outcome, by_status, error_outcome

RETRY, REFUSED, DELIVERED = Outcome.RETRY, Outcome.REFUSED, Outcome.DELIVERED
#: python-telegram-bot warns that `retry_after` becomes a timedelta (both are read).
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def response(status: int) -> SimpleNamespace:
    return SimpleNamespace(status=status, reason="")


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (200, DELIVERED),
        (204, DELIVERED),
        (None, RETRY),  # no answer
        (500, RETRY),
        (503, RETRY),
        (301, RETRY),  # a redirect the client did not follow: a misconfigured address
        (400, REFUSED),
        (401, RETRY),
        (403, RETRY),
        (404, RETRY),
        (408, RETRY),
        (409, RETRY),
        (410, REFUSED),
        (413, REFUSED),
        (422, REFUSED),
        (425, RETRY),
        (429, RETRY),
    ],
)
def test_the_one_table_of_statuses(status: int | None, outcome: Outcome) -> None:
    assert by_status(status, "x").outcome is outcome
    if status is not None and status < 500 and outcome is RETRY:
        assert by_status(status, "x", final=True).outcome is REFUSED  # unless the protocol calls it final


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (telegram.error.Forbidden("Forbidden: bot was blocked by the user"), RETRY),
        (telegram.error.InvalidToken(), RETRY),
        (telegram.error.Conflict("terminated by other getUpdates request"), RETRY),
        (telegram.error.TimedOut(), RETRY),
        (telegram.error.NetworkError("Bad Gateway"), RETRY),
        (telegram.error.RetryAfter(5), RETRY),
        (telegram.error.BadRequest("Message is too long"), REFUSED),
        (telegram.error.ChatMigrated(5), REFUSED),
        (discord.Forbidden(response(403), "Missing Permissions"), RETRY),
        (discord.NotFound(response(404), "Unknown Channel"), RETRY),
        (discord.DiscordServerError(response(503), "down"), RETRY),
        (discord.HTTPException(response(400), "Invalid Form Body"), REFUSED),
        (TimeoutError(), RETRY),
        (ConnectionResetError(), RETRY),
        (ValueError("a bug"), REFUSED),
        (KeyError("a bug"), REFUSED),
    ],
)
def test_the_chat_libraries_errors(error: BaseException, outcome: Outcome) -> None:
    assert error_outcome(error).outcome is outcome


def test_a_rate_limits_wait_is_kept() -> None:
    assert error_outcome(telegram.error.RetryAfter(7)).retry_after == 7.0
    assert error_outcome(telegram.error.RetryAfter(timedelta(seconds=9))).retry_after == 9.0  # newer releases
    limited = type("RateLimited", (Exception,), {"retry_after": 2.5})()
    assert (error_outcome(limited).outcome, error_outcome(limited).retry_after) == (RETRY, 2.5)


@pytest.mark.parametrize(
    ("status", "body", "outcome"),
    [
        (200, '{"ok": true}', DELIVERED),
        (404, '{"ok": false, "error": "no table plays game 9", "field": "data.game"}', REFUSED),
        (404, "<html>Not Found</html>", RETRY),  # not the protocol's answer: a wrong address
        (404, '{"ok": false, "field": "url"}', RETRY),
        (409, '{"ok": false, "error": "not the last move", "field": "data.move"}', REFUSED),
        (409, '{"ok": false, "error": "the table is busy", "field": "game"}', RETRY),
        (401, '{"ok": false, "field": "X-Sudija-Signature"}', RETRY),
        (403, "", RETRY),
        (422, '{"ok": false, "field": "data.nick"}', REFUSED),
        (400, "not json", REFUSED),
        (502, "", RETRY),
    ],
)
def test_the_game_servers_answers(status: int, body: str, outcome: Outcome) -> None:
    assert answer_outcome(status, body, {}, final_refusal).outcome is outcome


def test_retry_after_in_seconds_or_as_a_date() -> None:
    assert answer_outcome(429, "", {"Retry-After": "120"}, final_refusal).retry_after == 120.0
    later = datetime.now(UTC) + timedelta(minutes=10)
    waited = answer_outcome(503, "", {"Retry-After": format_datetime(later, usegmt=True)}, final_refusal).retry_after
    assert waited is not None
    assert 9 * 60 < waited <= 10 * 60
    assert answer_outcome(503, "", {"Retry-After": "soon"}, final_refusal).retry_after is None


def test_the_backoff_and_the_bound() -> None:
    backoff, rng = Backoff(1.0, 300.0), random.Random(3)
    assert all(0.5 <= backoff.delay(0, rng) <= 1.0 for _ in range(20))
    assert all(150.0 <= backoff.delay(40, rng) <= 300.0 for _ in range(20))
    now = datetime(2026, 12, 1, tzinfo=UTC)
    bounds = Bounds.of(OutboxConfig(max_attempts=5, max_age_minutes=30))
    assert not bounds.reached(4, None, now)
    assert bounds.reached(5, None, now)
    assert not bounds.reached(2, now - timedelta(minutes=29), now)
    assert bounds.reached(2, now - timedelta(minutes=30), now)  # whichever comes first


def test_the_bound_is_configured_and_checked() -> None:
    assert from_dict({}).outbox == OutboxConfig(20, 60.0)
    assert from_dict({"outbox": {"max_attempts": 5, "max_age_minutes": 15}}).outbox == OutboxConfig(5, 15)
    with pytest.raises(ConfigError, match=r"outbox\.max_attempts"):
        from_dict({"outbox": {"max_attempts": 0}})
    with pytest.raises(ConfigError, match=r"outbox\.max_age_minutes"):
        from_dict({"outbox": {"max_age_minutes": "an hour"}})
    with pytest.raises(ConfigError, match="max_tries"):
        from_dict({"outbox": {"max_tries": 3}})


def test_the_stop_grace_is_configured_and_checked() -> None:
    """How long a stopping bot lets the chat effects on their way end (`OutboxEngine.wind_down`): 5 s unless set,
    0 (cut at once) to 60."""
    assert from_dict({}).outbox.stop_grace_seconds == 5.0
    assert from_dict({"outbox": {"stop_grace_seconds": 0}}).outbox.stop_grace_seconds == 0
    for wrong in (-1, 61, "5 s", True):
        with pytest.raises(ConfigError, match=r"outbox\.stop_grace_seconds must be a number from 0 to 60"):
            from_dict({"outbox": {"stop_grace_seconds": wrong}})
