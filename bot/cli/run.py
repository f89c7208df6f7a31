"""`sudija run`: start the bot. Discord and/or Telegram when their tokens are set (both may run in one process
over one database); with no token configured, the console club over the demo database (what `make run` shows).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bot.cli._common import add_db_option, club_config
from bot.cli._language import current
from bot.config import Config, ConfigError
from storage.postgres import is_postgres

if TYPE_CHECKING:
    from bot.app import App
    from bot.http import Endpoint
    from bot.outbox_engine import OutboxEngine


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run")
    add_db_option(parser)
    parser.add_argument("--standby", action="store_true")
    parser.add_argument("--club", action="append", default=None, metavar="FILE")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "club", None):
        return run_clubs(args)
    config = club_config(args)
    if args.db:
        from dataclasses import replace  # noqa: PLC0415 (a sub-command loads only what it runs)

        config = replace(config, database=args.db)
    if config.discord.token is None and config.telegram.token is None:
        from bot.cli._common import DEMO_DATABASE  # noqa: PLC0415 (a sub-command loads only what it runs)

        db_path = args.db or DEMO_DATABASE
        print(f"Nema tokena za Discord ni Telegram: pokrećem konzolni klub ({db_path}). Kucajte help.", file=sys.stderr)
        return asyncio.run(console_club(config, db_path))
    standby = bool(getattr(args, "standby", False))
    if standby and not is_postgres(config.database):
        print(
            '--standby needs a PostgreSQL database (database = "postgresql://…"): see docs/deploy.md', file=sys.stderr
        )
        return 2
    from bot.logs import configure  # noqa: PLC0415 (a sub-command loads only what it runs)

    configure(config.log.level, config.log.format)
    from storage.pg_gateway import GatewayLost  # noqa: PLC0415 (a sub-command loads only what it runs)

    try:
        asyncio.run(serve(config, standby=standby))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    except GatewayLost as exc:  # another process takes the gateway over; restarted, this one stands by
        print(current().t("cli.run.stopped", why=exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


async def console_club(config: Config, db_path: str) -> int:
    """The console club on this terminal (or a script piped in), with the club's web pages (bot/web/server.py) and
    `/healthz` and `/metrics` when `[http]` is on."""
    from bot.console.runner import run_console  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.http import Served, listening  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.web.server import console_serving  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with listening(config.http) as endpoint, contextlib.AsyncExitStack() as pages:

        async def ready(app: App) -> None:
            if endpoint is not None:
                endpoint.serve(Served(config.club_id, app))
            address = await pages.enter_async_context(console_serving(app.desk))
            print(f"Stranice Kluba: {address} (link za prijavu daje /web)", file=sys.stderr)

        return await run_console(
            config, db_path, True, sys.stdin, sys.stdout, sys.stderr, ready=ready, what="sudija run"
        )


def run_clubs(args: argparse.Namespace) -> int:
    """`--club FILE …`: each file's club, all in this process (bot/cli/_clubs.py)."""
    from bot.cli._clubs import check_clubs, serve_clubs  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.config import check_start, load  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.logs import configure  # noqa: PLC0415 (a sub-command loads only what it runs)

    if args.db or args.config:
        print(current().t("cli.run.clubs_alone"), file=sys.stderr)
        return 2
    standby = bool(args.standby)
    try:
        configs = [load(path) for path in args.club]
        check_clubs(configs, args.club)
        for config, path in zip(configs, args.club, strict=True):
            try:
                check_start(config, config.platforms)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
        if standby and not all(is_postgres(c.database) for c in configs):
            raise ConfigError('--standby needs PostgreSQL databases (database = "postgresql://…"): see docs/deploy.md')
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    configure(configs[0].log.level, configs[0].log.format)  # one journal per process: the first file's [log]
    try:
        asyncio.run(serve_clubs(configs, standby=standby))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


async def prepare_schema(config: Config, log: logging.Logger) -> None:
    """Before the database is opened (and so migrated): refuse one a newer release migrated, and copy an SQLite
    database that has migrations pending beside itself first (`bot.cli.migrate.backup_before_migrating`)."""
    from bot.cli.migrate import backup_before_migrating, too_new  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.messages import Catalogue  # noqa: PLC0415 (a sub-command loads only what it runs)
    from storage.postgres import shown  # noqa: PLC0415 (a sub-command loads only what it runs)
    from storage.schema import schema_state  # noqa: PLC0415 (a sub-command loads only what it runs)

    state = await schema_state(config.database, config.club_id)
    if state.unknown:
        raise ConfigError(too_new(state, shown(config.database), Catalogue(config.language, config.timezone)))
    copy = await asyncio.to_thread(backup_before_migrating, config.database, state)
    if copy is not None:
        log.info("migrations pending (%s): the database was backed up first to %s", len(state.pending), copy)


async def serve(
    config: Config, *, stop: asyncio.Event | None = None, standby: bool = False, endpoint: Endpoint | None = None
) -> None:
    """Every configured platform over one database and one desk, until SIGTERM or SIGINT (or `stop` is set):
    then the platforms stop taking input (Telegram confirms the updates it fetched, so nothing is handled twice
    after a restart), the chat effects on their way end and are recorded (`_wind_down`), the platforms close, and
    the database closes last. On SQLite one bot per database: a second process is refused
    (bot/dblock.py). On PostgreSQL several processes serve one database at once: each acts on deadlines and
    delivers what it can reach from the start, and the one holding the club's gateway lock receives the
    platforms' events; the others stand by for it (`standby` changes nothing there: every process does).
    Before the desk acts on platform events, the setup is checked as `sudija check` does; a fatal finding stops
    the process. `/healthz` and `/metrics` (bot/http.py) are served on `endpoint`, or on `[http]` when it is on;
    the club's web pages (bot/web) on `[web]` when it is on."""
    from bot.app import build_app  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.config import check_start  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.dblock import DatabaseLock  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.http import listening  # noqa: PLC0415 (a sub-command loads only what it runs)

    del standby  # PostgreSQL: every process stands by for the gateway; SQLite: refused before this (run)
    check_start(config, config.platforms)  # before anything opens: the owner, the game-server secret
    from bot.logs import SERVING  # noqa: PLC0415 (a sub-command loads only what it runs)

    SERVING.set(config.club_id)  # every line this club's tasks log names it (bot/logs.py)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
            loop.add_signal_handler(signum, stop.set)
    log = logging.getLogger(__name__)
    lock = DatabaseLock(config.database, "sudija run")
    lock.acquire()
    try:
        async with contextlib.AsyncExitStack() as listening_stack:
            if endpoint is None:
                endpoint = await listening_stack.enter_async_context(listening(config.http))
            await prepare_schema(config, log)
            app = await build_app(config)
            try:
                await _serve_app(config, app, stop, endpoint, log)
            finally:
                if endpoint is not None:
                    endpoint.leave(config.club_id)
                await app.close()
    finally:
        lock.release()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)


async def _serve_app(
    config: Config, app: App, stop: asyncio.Event, endpoint: Endpoint | None, log: logging.Logger
) -> None:
    """The club's platforms over its built app, until `stop` or a platform stops (see `serve`)."""
    from bot.app import StandbyStopped, take_gateway  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.http import Served  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.messages import Catalogue  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.setup import Report, SetupError  # noqa: PLC0415 (a sub-command loads only what it runs)
    from bot.web.server import serving  # noqa: PLC0415 (a sub-command loads only what it runs)

    shared = is_postgres(config.database)
    served = Served(config.club_id, app, gateway="standing by" if shared else "held")
    if endpoint is not None:
        endpoint.serve(served)
    async with contextlib.AsyncExitStack() as stack:
        # The club's pages (`[web]`) from every process: they read the database and keep only sign-ins in it.
        await stack.enter_async_context(serving(app.desk))
        runners: list[asyncio.Future[Any]] = []
        watchers: list[asyncio.Future[Any]] = []  # this loop's own: cancelled when it ends
        if shared:  # deadlines and outbox rows from now on; platform events once the gateway is ours
            await app.desk.start()
            try:
                gateway = await take_gateway(
                    app,
                    waiting=lambda holder: log.info(
                        "standing by for the gateway: %s receives the club's events; this process acts on"
                        " deadlines and delivers meanwhile",
                        holder,
                    ),
                    stopping=stop,
                )
            except StandbyStopped:
                return
            stack.push_async_callback(gateway.release)
            served.gateway = "held"
            log.info("holding the gateway: this process receives the club's events")
            watchers.append(asyncio.ensure_future(gateway.watch()))
        report = Report()  # `sudija check` once the platforms are connected, before the desk acts
        stopping_input: list[Callable[[], Awaitable[None]]] = []  # each platform's first step of a stop
        finishing: list[Callable[[float], Awaitable[None]]] = []  # its acts under way, let end within the grace
        if config.discord.token is not None:
            from bot.discord import start_discord  # noqa: PLC0415 (a sub-command loads only what it runs)

            # Logged in and ready before the desk starts, so the desk can edit calls that expired meanwhile.
            bot, discord_task = await start_discord(app)
            stack.push_async_callback(bot.close)
            runners.append(discord_task)
            served.platforms["discord"] = lambda: bot.is_ready() and not bot.is_closed()
            from bot.discord.check import discord_findings  # noqa: PLC0415 (a sub-command loads only what it runs)

            report.add("discord", discord_findings(bot, config))
            stopping_input.append(_as_async(bot.stop_events))
            finishing.append(bot.finish_handling)
        if config.telegram.token is not None:
            from bot.telegram.adapter import TelegramAdapter  # noqa: PLC0415 (a sub-command loads only what it runs)
            from bot.telegram.check import telegram_findings  # noqa: PLC0415 (a sub-command loads only what it runs)

            telegram = TelegramAdapter(app.desk, config.telegram)
            app.attach(telegram.port)
            await stack.enter_async_context(telegram)
            served.platforms["telegram"] = lambda: bool(telegram.application.running) and telegram.poller.polling
            report.add("telegram", await telegram_findings(telegram.application.bot, config))
            stopping_input.append(telegram.stop_input)
            finishing.append(telegram.finish_handling)
        # Unwound first, before the platforms close (the callbacks above): see `_wind_down`.
        stack.push_async_callback(_wind_down, app, stopping_input, finishing, config.outbox.stop_grace_seconds)
        words = Catalogue(config.language, config.timezone)  # the club's, as the operator reads the start
        for finding in report.findings:
            (log.error if finding.fatal else log.warning)("%s", finding.line(words))
        if report.fatal:  # a call would go nowhere, a trial could not open: say what to change, and stop
            raise SetupError(report, words)
        if shared:
            await app.desk.delivery.deliver_effects()  # what waited for a platform while nobody held the gateway
        else:
            await app.desk.start()
        await app.start_link()
        app.start_inbox()  # what the writing commands hand it, and the watched folder (bot/inbox.py)
        watchers.append(asyncio.ensure_future(stop.wait()))
        try:
            done, _ = await asyncio.wait(runners + watchers, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # a platform that stopped by itself (or the gateway lost) says why
        finally:
            for task in watchers:
                task.cancel()
        log.info("stopping")


async def _wind_down(
    app: App,
    stopping_input: list[Callable[[], Awaitable[None]]],
    finishing: list[Callable[[float], Awaitable[None]]],
    grace: float,
) -> None:
    """The first steps of a stop, before the platforms close and then the database: (1) no platform takes new
    input (Telegram's long poll ends, what it handed on confirmed, without a conflict for the next process:
    bot/telegram/polling.py; Discord's gateway events are dropped), so nothing new is decided from them; (2) side
    by side, for at most `grace` seconds in all: the members' acts a platform was handling are let end, the
    desk's transaction and the answer that follows it (each platform's `finish_handling`), and both outboxes —
    the chat effects and the game server's commands — lease no row any more and let the rows on their way end
    and be recorded (`OutboxEngine.wind_down`): one the platform or the game
    server already took is recorded sent, not sent again after the restart. What is cut then, and what is
    pending, waits in its outbox for the next start (a command goes again under its idempotency key)."""
    try:
        for stop_input in stopping_input:
            await stop_input()
    finally:
        outboxes: list[OutboxEngine[Any]] = [app.desk.delivery.chat_outbox]
        if app.link is not None:
            outboxes.append(app.link.worker)
        ended = await asyncio.gather(
            *(finish(grace) for finish in finishing), *(o.wind_down(grace) for o in outboxes), return_exceptions=True
        )
        for failed in ended:  # each was let end first: none closes before the others recorded what they hold
            if isinstance(failed, BaseException):
                raise failed


def _as_async(step: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        step()

    return run
