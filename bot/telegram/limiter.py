"""Telegram's flood limits, kept by python-telegram-bot's `AIORateLimiter` (the ``rate-limiter`` extra) instead of
sleeping inside a handler: every request of the bot passes through it, so one member's flood wait never holds
another member's update, and the throttling (30 messages a second, 20 a minute per group) is PTB's own.

`ClubRateLimiter` is `AIORateLimiter` with two changes: the wait after a 429 ``retry_after`` is an injectable
`sleep` (tests move a manual clock instead of waiting for real), and a wait longer than `FLOOD_WAIT_LIMIT`
fails the request at once instead of holding every other request for minutes. While one request waits out a
429, every other request waits too (Telegram's flood control is per bot), exactly as in `AIORateLimiter`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import Awaitable, Callable, Coroutine
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)

FLOOD_RETRIES = 3  # a request is retried this many times after Telegram's 429
FLOOD_WAIT_LIMIT = 60.0  # seconds; Telegram asking for a longer wait fails the request instead

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]


def retry_seconds(flood: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        wait = flood.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


class ClubRateLimiter(AIORateLimiter):
    def __init__(
        self,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        max_retries: int = FLOOD_RETRIES,
        wait_limit: float = FLOOD_WAIT_LIMIT,
        overall_max_rate: float = 30,
        group_max_rate: float = 20,
    ) -> None:
        super().__init__(overall_max_rate=overall_max_rate, group_max_rate=group_max_rate, max_retries=max_retries)
        self.sleep = sleep
        self.retries = max_retries
        self.wait_limit = wait_limit
        self.floods = 0  # 429 answers seen (for the logs and the tests)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSONResult]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSONResult:
        chat_id: Any = data.get("chat_id")
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)
        group: int | str | bool = (
            chat_id if (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str) else False
        )
        retries = rate_limit_args if rate_limit_args is not None else self.retries
        for attempt in range(retries + 1):
            try:
                return await self._run_request(
                    chat=chat_id is not None,
                    group=group,
                    allow_paid_broadcast=False,
                    callback=callback,
                    args=args,
                    kwargs=kwargs,
                )
            except RetryAfter as flood:
                self.floods += 1
                wait = retry_seconds(flood)
                if attempt == retries or wait > self.wait_limit:
                    log.warning("telegram %s: flood control (retry after %.0f s), given up", endpoint, wait)
                    raise
                log.info("telegram %s: flood control, retrying after %.1f s", endpoint, wait)
                self._retry_after_event.clear()  # every other request waits too
                try:
                    await self.sleep(wait + 0.1)
                finally:
                    self._retry_after_event.set()
        raise AssertionError("unreachable")  # pragma: no cover
