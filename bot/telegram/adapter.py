"""The Telegram adapter's life cycle: builds the python-telegram-bot `Application` (its `Bot` behind the
`TelegramChat` port, the handlers) and runs it inside the caller's event loop — initialize, setMyCommands,
long polling with every update type (``chat_member`` included; polling.py, not PTB's `Updater`), start, and the
club group's roll call in the background (`TelegramHandlers.roll_call`: who of the linked accounts is in it);
then stop in the reverse order. Nothing is global and nothing owns the loop (no ``run_polling``), so Discord and
Telegram can run in one process over one database.

`sudija run` with a Telegram token: ``await run_telegram(app)``; with both platforms::

    telegram = TelegramAdapter(app.desk, app.config.telegram, commands=commands)
    app.attach(telegram.port)           # before the desk starts: start-up edits reach Telegram too
    await telegram.start()              # the bot must be initialized before the desk uses the port
    ... the Discord adapter likewise ...
    await app.desk.start()
    ... wait for the stop signal ...
    await telegram.stop()
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import Application, SimpleUpdateProcessor

from bot.app import App
from bot.commands import Commands
from bot.config import ConfigError, TelegramConfig
from bot.desk import Desk
from bot.tasks import cancelled
from bot.telegram.handlers import AnyApplication, TelegramHandlers
from bot.telegram.limiter import LOOKUP_RATE, ClubRateLimiter, Rate
from bot.telegram.polling import Poller
from bot.telegram.port import TelegramChat
from bot.telegram.transport import AiohttpRequest, UpdatesRequest

log = logging.getLogger(__name__)

#: Updates handled at once (PTB's default with concurrent updates).
CONCURRENT_UPDATES = 256


class Handling(SimpleUpdateProcessor):
    """PTB's own processing of updates, each one's handling a task of its own, known, so that a stop can let
    them end within the grace and cut what is still under way then (`TelegramAdapter.finish_handling`)."""

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self.under_way: set[asyncio.Task[Any]] = set()
        self.cut = False  # the grace is over: an update still queued is dropped, not handled

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        if self.cut:
            if asyncio.iscoroutine(coroutine):
                coroutine.close()
            return
        task = asyncio.ensure_future(coroutine)
        self.under_way.add(task)
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self.under_way.discard(task)
        if not task.cancelled():  # cut at a stop: its answer is lost, as in a crash
            task.result()


def freeze_startup_heap() -> None:
    """The start-up heap (catalogues, registry, the libraries) lives as long as the process: frozen out of the
    collector (once per process), a full collection during a burst of presses does not walk it (what it saves:
    docs/telegram.md, "For developers")."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


class TelegramAdapter:
    def __init__(
        self,
        desk: Desk,
        config: TelegramConfig,
        *,
        commands: Commands | None = None,
        token: str | None = None,
        poll_timeout: float = 10.0,
        concurrent_updates: bool = True,
        rate_limiter: ClubRateLimiter | None = None,
    ) -> None:
        """`commands`: the shared command language (pass the one the governance commands were added to);
        `concurrent_updates`: handle updates in parallel (the desk is safe; one member's messages keep their
        order, see handlers.py), so one slow update never holds another member's press;
        `rate_limiter`: Telegram's flood limits (limiter.py; tests pass one whose waits move a manual clock)."""
        token = token or config.token
        if not token:
            raise ConfigError(f"no Telegram token: set the environment variable {config.token_env}")
        lookups = Rate(config.roll_call_per_second, 1.0, burst=LOOKUP_RATE.burst)
        self.rate_limiter = rate_limiter or ClubRateLimiter(lookup_rate=lookups)
        self.handling = Handling(CONCURRENT_UPDATES if concurrent_updates else 1)
        builder = (
            Application.builder()
            .token(token)
            .concurrent_updates(self.handling)
            .rate_limiter(self.rate_limiter)
            .request(AiohttpRequest())  # transport.py: a burst of presses answered without httpx's CPU cost
            .get_updates_request(UpdatesRequest())  # without the pressed messages' formatting
            .updater(None)  # the long poll is polling.py's: stopped at any moment without a conflict
        )
        if config.base_url:
            # A fake Bot API (tests): its files where Telegram's are, beside the methods (`…/bot` → `…/file/bot`).
            builder = builder.base_url(config.base_url).base_file_url(config.base_url.removesuffix("bot") + "file/bot")
        self.application: AnyApplication = builder.build()
        self.poll_timeout = poll_timeout
        self.port = TelegramChat(self.application.bot, desk, config)
        self.handlers = TelegramHandlers(desk, commands or Commands(desk), self.port)
        self.handlers.install(self.application)
        self.rolled: asyncio.Task[int] | None = None  # the start's roll call of the club group
        self.poller = Poller(
            self.application, timeout=poll_timeout, allowed_updates=Update.ALL_TYPES, sleep=self.rate_limiter.sleep
        )

    async def start(self) -> None:
        application = self.application
        await application.initialize()
        await self.handlers.register_commands()
        await self.handlers.mark_present()
        await self.poller.start()
        await application.start()
        self.rolled = asyncio.get_running_loop().create_task(self.handlers.roll_call(), name="telegram-roll-call")
        freeze_startup_heap()

    async def stop_input(self) -> None:
        """No new input: the long poll ends (every update handed on is confirmed to Telegram already; what a
        call under way brings is left for the next start, `Poller.stop`) and the roll call is cancelled, while the
        bot's client stays open for the requests under way and the handlers running go on. The first step of a
        stop (bot/cli/run.py): no call of this process ends another's poll, or the next process's."""
        await self.poller.stop()
        rolled, self.rolled = self.rolled, None
        await cancelled(rolled)

    async def finish_handling(self, grace: float) -> None:
        """The second step of a stop, after `stop_input` (bot/cli/run.py): the members' acts taken before it —
        the updates being handled and those queued — are let end (PTB's `Application.stop`), the desk's
        transaction and the answer that follows it, for at most `grace` seconds, as the outboxes' rows on their
        way are; one still under way then is cut (what its transaction wrote stands, the answer that would follow
        is lost, as in a crash) and one still queued is dropped (Telegram has it confirmed: not handled again)."""
        application, handling = self.application, self.handling
        if not application.running:
            return
        waiting = len(handling.under_way) + application.update_queue.qsize()
        if waiting:
            log.info("Telegram: stopping with %d member act(s) under way: let end for at most %s s", waiting, grace)
        stopping = asyncio.ensure_future(application.stop())
        done, _ = await asyncio.wait({stopping}, timeout=grace)
        if not done:
            handling.cut = True
            late = [task for task in handling.under_way if not task.done()]
            log.warning("Telegram: %d member act(s) still under way after %s s: cut", len(late), grace)
            for task in late:
                task.cancel()
        await stopping

    async def stop(self) -> None:
        """Stop taking updates, let the handlers running end (PTB's `Application.stop`; `finish_handling` bounds
        it by the stop's grace), then close the client."""
        application = self.application
        await self.stop_input()
        if application.running:
            await application.stop()
        await application.shutdown()

    async def __aenter__(self) -> TelegramAdapter:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def run_telegram(app: App, commands: Commands | None = None) -> None:
    """Telegram alone: attach, start, start the desk, run until cancelled, stop."""
    telegram = TelegramAdapter(app.desk, app.config.telegram, commands=commands)
    app.attach(telegram.port)
    async with telegram:
        await app.desk.start()
        await asyncio.Event().wait()
