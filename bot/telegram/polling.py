"""Telegram's long poll (getUpdates) for the adapter, in place of python-telegram-bot's `Updater`: it hands the
updates to the `Application`'s queue, and it can be stopped at any moment without a conflict on Telegram's side.

What Telegram does (its Bot API server, tdlib/telegram-bot-api: `Client::process_get_updates_query`,
`Client::do_get_updates`, `Client::abort_long_poll`): a getUpdates confirms every update before its offset as it
arrives. One that finds nothing and may wait is held, and it ends the poll held before with 409 "Conflict:
terminated by other getUpdates request"; one answered at once ends none. A held poll whose client went away
stays held until an update, its timeout or the next held poll (its answer then reaches nobody). A call with the
offset of the one before, within 3 s of that one's start, is made to wait 3 s even when it asked for no wait.

PTB's `Updater.stop` cuts the poll under way and confirms with one more call (no wait, the same offset): within
3 s of the cut poll's start Telegram holds that call, so the stop waits for it, and the next process's first
poll ends it with a 409 (logged as an error), or it ends the next process's poll when it comes after it.

Here a long poll is sent only with an offset Telegram already took from an answered call. After updates, the
next call carries their offset and waits `SHORT_POLL` at most; only once it is answered does the long poll go
(with that offset: not limited to one update, since it comes later than half a second after). So a stop needs
no call of its own: a long poll under way is cut (Telegram has its offset already; the held poll left behind
hurts nobody), a short one is let end, and what either brings once the stop began is neither handed on nor
confirmed — the next start gets it.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
from collections.abc import Awaitable, Callable, Sequence

from telegram.error import InvalidToken, RetryAfter, TelegramError, TimedOut

from bot.tasks import cancelled
from bot.telegram.handlers import AnyApplication
from bot.telegram.limiter import retry_seconds

log = logging.getLogger(__name__)

#: The longest pause after failed polls in a row (PTB's own polling backs off the same way).
MAX_BACKOFF = 30.0
#: How long the call after updates waits (seconds): over the half second within which Telegram gives a call with
#: the offset of the one before one update at most, and short enough that a stop waiting for it is not felt.
SHORT_POLL = dtm.timedelta(seconds=1)


class Poller:
    def __init__(
        self,
        application: AnyApplication,
        *,
        timeout: float,
        allowed_updates: Sequence[str],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`timeout`: how long a long poll waits for an update (seconds); `allowed_updates`: the kinds asked for;
        `sleep`: the pause after a failed call (a stop ends it; tests pass one that moves their clock)."""
        self.application = application
        self.sleep = sleep
        self.timeout = dtm.timedelta(seconds=timeout)
        self.allowed_updates = list(allowed_updates)
        self.offset = 0  # the next update wanted: every one before it was handed on
        self.told: int | None = None  # the offset Telegram took from the last answered call
        self.waiting = False  # the call under way is a long poll, its offset already taken (a stop cuts it)
        self.stopping = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """No webhook (getUpdates is refused while one is set), then poll in the background."""
        await self.application.bot.delete_webhook()
        self.task = asyncio.get_running_loop().create_task(self._run(), name="telegram-poll")

    async def stop(self) -> None:
        """No more updates handed on: a long poll under way is cut, a short one is let end (what it brings is left
        unconfirmed, for the next start)."""
        self.stopping.set()
        task, self.task = self.task, None
        if task is None or task.done():
            return
        if self.waiting:
            await cancelled(task)
            log.info("Telegram: input stopped, the long poll cut")
            return
        log.info("Telegram: input stopped with a short poll under way: let end, what it brings left for later")
        await task

    async def _run(self) -> None:
        failures = 0
        while not self.stopping.is_set():
            offset = self.offset
            self.waiting = offset == self.told
            try:
                updates = await self.application.bot.get_updates(
                    offset=offset,
                    timeout=self.timeout if self.waiting else SHORT_POLL,
                    allowed_updates=self.allowed_updates,
                )
            except InvalidToken as error:  # revoked at @BotFather: nothing comes until a restart with a new one
                log.error("Telegram: the token was refused (%s): no more updates until a restart", error)
                return
            except RetryAfter as error:
                pause = retry_seconds(error)
            except TimedOut:
                pause = 0.0
            except (TelegramError, ValueError, TypeError, KeyError) as error:
                # Another process polling with the token (409), the network, an answer PTB cannot read: said,
                # and asked again after a pause that grows with the failures in a row.
                failures += 1
                pause = min(MAX_BACKOFF, 1.5 ** (failures - 1))
                log.warning("Telegram: getUpdates failed (%s): polling again in %.1f s", error, pause)
            else:
                failures = 0
                self.told = offset
                if self.stopping.is_set():
                    return  # brought after the stop began: neither handed on nor confirmed
                for update in updates:
                    await self.application.update_queue.put(update)
                if updates:
                    self.offset = updates[-1].update_id + 1
                continue
            finally:
                self.waiting = False
            if pause > 0:
                await self._pause(pause)

    @property
    def polling(self) -> bool:
        """Whether updates still come (False once stopped, or after Telegram refused the token)."""
        return self.task is not None and not self.task.done()

    async def _pause(self, seconds: float) -> None:
        """`sleep(seconds)`, ended early by a stop."""
        sleeping = asyncio.ensure_future(self.sleep(seconds))
        stopped = asyncio.ensure_future(self.stopping.wait())
        await asyncio.wait({sleeping, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for waiter in (sleeping, stopped):
            await cancelled(waiter)
