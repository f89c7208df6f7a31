"""Telegram's flood limits, kept by the bot's own `BaseRateLimiter` (python-telegram-bot's public interface for
it): every request of the bot passes through `ClubRateLimiter.process_request`, and nothing sleeps in a handler.

What Telegram documents (Bots FAQ, "My bot is hitting limits"), and how it is kept here:

* about one message a second in one chat (short bursts allowed) — every chat is paced at `CHAT_RATE`;
* at most 20 messages a minute in a group — a group is paced at `GROUP_RATE` as well;
* about 30 messages a second for the whole bot — every message is paced at `BOT_RATE`;
* a 429 ``retry_after`` is the wait of the chat it came from: that chat alone is held (its requests wait, then
  go in order); every other chat goes on. A 429 on a request with no chat holds that method only.
* a part of an effect the chat outbox delivers that has shown nothing yet (`bot.ports.Delivery`) waits out no
  hold: to a held chat it fails at once with the wait left (`PutOff`; a 429 too, with Telegram's wait), and the
  outbox tries it again after that wait — so a held chat holds its own queue of effects and nothing else: not the
  worker's other queues, not the member whose decision wrote the effect and waits for his answer. Once the part
  has shown something it waits like any request (tried again, it would show that twice);
* a lookup (`LOOKUPS`: getChatMember and the like — the start's roll call asks one per linked account) is paced
  at its own `lookup_rate` (`[telegram] roll_call_per_second`), in a bucket of its own: it takes no slot of a chat
  or of the bot, so the members' messages and answers never wait behind a roll call; and a 429 on a lookup holds
  the lookups alone (they are waited out as Telegram asks, `retry_after`), never the chat it asked about — the
  club group's messages go on;
* a press must be answered within seconds or Telegram refuses the answer as "query is too old": a callback
  answer (`IMMEDIATE`) is never paced and never waits for any hold; a 429 on it is retried only while the press
  can still be answered (`ANSWER_WAIT_LIMIT`).

The pacing is the generic cell rate algorithm over one `Schedule` (pure: times in, send times out): a request
reserves the earliest moment its chat's buckets (the chat, and the group) conform, all of them charged at once,
and sleeps until then; then, when its chat lets it go, it reserves the bot's bucket the same way (so one chat's
backlog never takes the bot's slots from the others). A reservation is taken before the sleep, so concurrent
requests get distinct slots in the order they came. A bucket of `Rate(count, period, burst)` lets `burst`
messages go at once and then one every ``period / count`` seconds: in any window of ``period`` seconds at most
``count + burst - 1`` go (the rates below are chosen so that this stays within Telegram's figures;
tests/test_telegram_limits.py holds it for any arrivals). The clock and the sleep are injected: the tests move a
manual clock instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.ports import delivering

log = logging.getLogger(__name__)

FLOOD_RETRIES = 3  # a request is retried this many times after Telegram's 429
FLOOD_WAIT_LIMIT = 60.0  # seconds; Telegram asking for a longer wait fails the request instead
ANSWER_WAIT_LIMIT = 5.0  # seconds; a callback answer is retried after a 429 only for waits this short
MARGIN = 0.1  # seconds added to Telegram's retry_after

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]


@dataclass(frozen=True)
class Rate:
    """`count` messages per `period` seconds, `burst` of them at once."""

    count: float
    period: float
    burst: int = 1

    @property
    def interval(self) -> float:
        return self.period / self.count

    @property
    def tolerance(self) -> float:
        return (self.burst - 1) * self.interval


CHAT_RATE = Rate(1, 1.0, burst=3)  # one chat: a message a second after a burst of 3 (≤ 4 in any second)
GROUP_RATE = Rate(15, 60.0, burst=6)  # a group: ≤ 20 in any minute
BOT_RATE = Rate(25, 1.0, burst=6)  # the whole bot: ≤ 30 in any second
LOOKUP_RATE = Rate(5, 1.0, burst=5)  # the default `[telegram] roll_call_per_second`; a start's few checks go at once

#: Requests that read about a chat or its members (the roll call's): paced at the lookup rate, held by themselves.
LOOKUPS = frozenset({"getChatMember", "getChat", "getChatAdministrators", "getChatMemberCount"})

#: Requests that answer a member's action and must reach Telegram at once: never paced, never held.
IMMEDIATE = frozenset({"answerCallbackQuery", "answerInlineQuery", "answerPreCheckoutQuery", "answerShippingQuery"})
#: Requests that are a message in a chat (sent, edited, copied): paced.
_MESSAGE_PREFIXES = ("send", "edit", "copyMessage", "forwardMessage", "stopPoll")


def is_message(endpoint: str) -> bool:
    return endpoint.startswith(_MESSAGE_PREFIXES) and endpoint != "sendChatAction"


class PutOff(RetryAfter):
    """A part of a chat outbox effect that showed nothing yet, put off whole because its chat is held: the outbox
    tries it again after `retry_after` (the port lets it through where it would swallow a failed request)."""


def retry_seconds(flood: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        wait = flood.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


class Schedule:
    """The buckets' state: for each key its theoretical arrival time (the GCRA's), and the holds Telegram asked
    for. Pure: every method takes the time."""

    PRUNE_AT = 4096  # keys kept before the idle ones are dropped

    def __init__(self) -> None:
        self.tat: dict[Hashable, float] = {}
        self.holds: dict[Hashable, float] = {}

    def held_until(self, key: Hashable, now: float) -> float:
        until = self.holds.get(key, 0.0)
        if until <= now:
            self.holds.pop(key, None)
            return 0.0
        return until

    def reserve(self, now: float, buckets: Sequence[tuple[Hashable, Rate]], hold: Hashable | None = None) -> float:
        """The moment a request of these buckets (and under the hold of `hold`) may go, charged to every bucket."""
        start = now
        if hold is not None:
            start = max(start, self.held_until(hold, now))
        for key, rate in buckets:
            start = max(start, self.tat.get(key, start) - rate.tolerance)
        for key, rate in buckets:
            self.tat[key] = max(self.tat.get(key, start), start) + rate.interval
        if len(self.tat) > self.PRUNE_AT:
            self.tat = {k: v for k, v in self.tat.items() if v > now}
        return start

    def hold(self, key: Hashable, until: float) -> None:
        """Telegram asked this chat (or method) to wait until `until`: nothing of it goes before."""
        self.holds[key] = max(self.holds.get(key, 0.0), until)


def chat_key(data: dict[str, Any]) -> int | str | None:
    """The chat a request is for (an int id, or a public ``@username``), or None."""
    chat_id: Any = data.get("chat_id")
    if chat_id is None:
        return None
    with contextlib.suppress(ValueError, TypeError):
        return int(chat_id)
    return str(chat_id)


def is_group(chat: int | str) -> bool:
    """Groups, supergroups and channels have negative ids (or a public @username); users have positive ones."""
    return isinstance(chat, str) or chat < 0


class ClubRateLimiter(BaseRateLimiter[int]):
    """`rate_limit_args` (PTB's per-call argument) is the number of retries after a 429 for that call."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        max_retries: int = FLOOD_RETRIES,
        wait_limit: float = FLOOD_WAIT_LIMIT,
        paced: bool = True,
        chat_rate: Rate = CHAT_RATE,
        group_rate: Rate = GROUP_RATE,
        bot_rate: Rate = BOT_RATE,
        lookup_rate: Rate = LOOKUP_RATE,
    ) -> None:
        """`paced=False` keeps only the holds after a 429 (tests that send bursts without a clock to pace on)."""
        self.clock = clock
        self.sleep = sleep
        self.retries = max_retries
        self.wait_limit = wait_limit
        self.paced = paced
        self.chat_rate, self.group_rate, self.bot_rate = chat_rate, group_rate, bot_rate
        self.lookup_rate = lookup_rate
        self.schedule = Schedule()
        self.floods = 0  # 429 answers seen (for the logs and the tests)

    async def initialize(self) -> None:
        """Nothing to open: the schedule lives in memory."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    def held(self, chat: int | str) -> bool:
        """Whether Telegram's flood control holds this chat now."""
        return self.schedule.held_until(chat, self.clock()) > 0

    def paces(self, endpoint: str) -> bool:
        return self.paced and is_message(endpoint)

    @staticmethod
    def hold_of(endpoint: str, chat: int | str | None) -> Hashable:
        """What a 429 on this request holds: its chat; a lookup's, or a request for no chat, its method alone."""
        return endpoint if chat is None or endpoint in LOOKUPS else chat

    def chat_buckets(self, endpoint: str, chat: int | str | None) -> list[tuple[Hashable, Rate]]:
        """The buckets a request waits for before the bot's: a lookup's own, or its chat's (and group's)."""
        if endpoint in LOOKUPS:
            return [("lookups", self.lookup_rate)]
        if chat is None:
            return []
        buckets: list[tuple[Hashable, Rate]] = [(("chat", chat), self.chat_rate)]
        if is_group(chat):
            buckets.append((("group", chat), self.group_rate))
        return buckets

    async def _wait(self, start: float, now: float) -> None:
        if start > now:
            await self.sleep(round(start - now, 6))  # to the microsecond: no float noise of the clock's epoch

    def refuse_held(self, hold: Hashable) -> None:
        """A request that waits out no hold: `PutOff` with the wait left (whole seconds, as Telegram's), if held."""
        now = self.clock()
        until = self.schedule.held_until(hold, now)
        if until:
            raise PutOff(timedelta(seconds=math.ceil(until - now)))

    async def until_free(
        self, endpoint: str, chat: int | str | None, data: dict[str, Any], *, holds: bool = True
    ) -> None:
        """Wait for this request's slot: its chat's hold and pacing first, then the bot's own pacing, taken when
        the chat lets it go (so one chat's backlog never holds the bot's slots); again if a hold came meanwhile.
        `holds=False`: a hold is not waited out but refused (`refuse_held`), before the slot and after it."""
        hold = self.hold_of(endpoint, chat)
        weight = max(1, len(data.get("media") or ())) if endpoint == "sendMediaGroup" else 1
        paced = self.paces(endpoint)
        lookup = self.paced and endpoint in LOOKUPS
        while True:
            if not holds:
                self.refuse_held(hold)
            now = self.clock()
            start = now
            for _ in range(weight):  # an album is as many messages as it has items
                start = self.schedule.reserve(now, self.chat_buckets(endpoint, chat) if paced or lookup else [], hold)
            await self._wait(start, now)
            if paced:
                now = self.clock()
                for _ in range(weight):
                    start = self.schedule.reserve(now, [("bot", self.bot_rate)])
                await self._wait(start, now)
            if self.schedule.held_until(hold, self.clock()) == 0.0:
                return

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSONResult]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSONResult:
        immediate = endpoint in IMMEDIATE
        part = delivering.get()
        put_off = part is not None and not part.shown  # the outbox may try it again whole: it waits out no hold
        chat = chat_key(data)
        retries = rate_limit_args if rate_limit_args is not None else self.retries
        for attempt in range(retries + 1):
            if not immediate:
                await self.until_free(endpoint, chat, data, holds=not put_off)
            try:
                result = await callback(*args, **kwargs)
            except RetryAfter as flood:
                self.floods += 1
                wait = retry_seconds(flood)
                limit = ANSWER_WAIT_LIMIT if immediate else self.wait_limit
                where = f"chat {chat}" if chat is not None else endpoint
                if put_off and not immediate:
                    self.schedule.hold(self.hold_of(endpoint, chat), self.clock() + wait + MARGIN)
                    log.info("telegram %s (%s): flood control, the outbox tries it after %.1f s", endpoint, where, wait)
                    raise PutOff(timedelta(seconds=math.ceil(wait + MARGIN))) from flood
                if attempt == retries or wait > limit:
                    log.warning("telegram %s (%s): flood control (retry after %.0f s), given up", endpoint, where, wait)
                    raise
                held = f"{endpoint} (every lookup)" if endpoint in LOOKUPS else where
                log.info("telegram %s (%s): flood control, %s waits %.1f s", endpoint, where, held, wait)
                if immediate:
                    await self.sleep(wait + MARGIN)
                else:
                    self.schedule.hold(self.hold_of(endpoint, chat), self.clock() + wait + MARGIN)
                continue
            if part is not None:
                part.shown = True
            return result
        raise AssertionError("unreachable")  # pragma: no cover
