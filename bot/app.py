"""The composition root: opens the database, builds the desk with its ports and timers, and runs the adapters.

`sudija run` calls `run(config)`: with a Discord and/or Telegram token configured those platforms start (both
may run in one process over one database); with none, the console club starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config, ConfigError
from bot.desk import Desk
from bot.ports import ChatPort, Chats, Clock, GameServerPort, LoggingGameServer, SystemClock, Timers
from bot.scheduler import SchedulerTimers
from bot.sweep import Sweeper
from storage.database import BUSY_TIMEOUT_MS, Database, open_database
from storage.errors import DatabaseBusy, DatabaseReadOnly
from storage.pg_gateway import GatewayLock
from storage.postgres import PostgresDatabase

#: What a front end catches and answers "try again in a moment": another process held the write lock past the
#: bound (also while the database is being opened), and nothing was written — the storage's own errors
#: (`DatabaseReadOnly`, one of them: a console opened only to read).
__all__ = ["BUSY_TIMEOUT_MS", "App", "DatabaseBusy", "DatabaseReadOnly", "build_app"]

if TYPE_CHECKING:
    from bot.gameserver.link import GameServerLink
    from bot.inbox import InboxWorker


@dataclass
class App:
    config: Config
    db: Database
    desk: Desk
    chats: Chats
    clock: Clock
    timers: Timers
    sweeper: Sweeper | None = None
    link: GameServerLink | None = None
    inbox: InboxWorker | None = None

    async def start_link(self) -> None:
        """With `[gameserver]` configured: listen for the game server's events and send the outbox (after the
        desk has started, so what the feed says finds the desk ready)."""
        from bot.gameserver.link import GameServerLink, link_keys  # noqa: PLC0415 (the link only when configured)
        from bot.gameserver.outbox import HttpGameServer  # noqa: PLC0415 (the link only when configured)

        if self.link is None and isinstance(self.desk.deps.game_server, HttpGameServer):
            self.link = GameServerLink(self.desk, self.config.gameserver, link_keys(self.config.gameserver))
            await self.link.start()

    def start_inbox(self) -> None:
        """What this process imports and resolves by itself (bot/inbox.py), looked at every `[import] poll_seconds`:
        on SQLite the work the writing commands hand it (it holds the database's lock), and on both backends the
        game logs landing in `[import] watch` (on PostgreSQL only the process holding the club's gateway calls
        this). A read-only process, or a database in memory, has no inbox."""
        from bot.inbox import FolderWatch, Inbox, InboxWorker  # noqa: PLC0415 (the inbox only where it runs)

        if self.inbox is not None or self.db.read_only:
            return
        local = not isinstance(self.db, PostgresDatabase) and self.db.path != ":memory:"
        folder = self.config.imports.watch
        if not local and not folder:
            return
        self.inbox = InboxWorker(
            self.db,
            self.desk.now,
            inbox=Inbox(self.db.path) if local else None,
            watch=FolderWatch(Path(folder)) if folder else None,
            lang=self.config.language,
            scripts=self.config.scripts,
            woken=self.woken,
            interval=float(self.config.imports.poll_seconds),
        )
        self.inbox.start()

    def woken(self) -> None:
        """Another process committed a deadline or an effect (PostgreSQL's NOTIFY): sweep and send now."""
        if self.sweeper is not None:
            self.sweeper.wake()
        if self.chats.ports:  # a process without the platforms (waiting for the gateway) leaves chat effects alone
            self.desk.delivery.chat_outbox.wake()
        if self.link is not None:
            self.link.worker.wake()

    def attach(self, port: ChatPort) -> None:
        """Adapters are built with the desk and then attached, so the desk can reach them."""
        self.chats.ports.append(port)

    async def close(self) -> None:
        if self.inbox is not None:
            await self.inbox.stop()
        await self.desk.delivery.chat_outbox.stop()
        await self.desk.reported.stop()
        if self.sweeper is not None:
            await self.sweeper.stop()
        if self.link is not None:
            await self.link.stop()
        if isinstance(self.timers, SchedulerTimers):
            self.timers.shutdown()
        self.desk.deps.arbitar().shutdown()
        await self.db.close()


class StandbyStopped(Exception):
    """A process waiting for the gateway was asked to stop (SIGTERM) before the process holding it stopped."""


async def take_gateway(
    app: App, *, waiting: Callable[[str], None] | None = None, stopping: asyncio.Event | None = None
) -> GatewayLock:
    """On PostgreSQL, several processes serve one database, and the one holding the club's gateway lock receives
    its platform events (`storage.pg_gateway`): hold it — at once when free, else after waiting (told who holds
    it) until that process is gone, however it went (even kill -9); `StandbyStopped` when `stopping` is set
    first. Then the leases the previous holder left are released, so what it was delivering goes out at once."""
    if not isinstance(app.db, PostgresDatabase):
        raise ConfigError("the gateway lock is PostgreSQL's: on SQLite one process serves the club (bot/dblock.py)")
    gateway = GatewayLock(app.db.path, app.db.club_key)  # the club's own: other clubs' processes never wait on it
    taking = asyncio.ensure_future(gateway.take(waiting))
    stopped = asyncio.ensure_future((stopping or asyncio.Event()).wait())
    try:
        await asyncio.wait({taking, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not taking.done():
            taking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await taking
    if taking.cancelled():
        raise StandbyStopped
    taking.result()
    await app.desk.delivery.chat_outbox.release_leases()
    return gateway


async def build_app(
    config: Config,
    *,
    clock: Clock | None = None,
    timers: Timers | None = None,
    game_server: GameServerPort | None = None,
    database: str | None = None,
    sweep: bool | None = None,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    read_only: bool = False,
) -> App:
    """Open the database and build the desk. Call `App.attach` for each adapter, then `desk.start()`.

    `sweep` starts the safety sweep (`bot.sweep`); by default it runs whenever the real timers do. On
    PostgreSQL several processes may serve one database at once (each sweeps and delivers; `take_gateway` for
    the one that receives platform events); SQLite's one bot per file is bot/dblock.py's lock. `read_only`: the
    database opened for reading only (a console that only looks): no sweep, no outbox worker, nothing written.
    """
    if game_server is None and config.gameserver.enabled:
        from bot.gameserver.link import link_keys  # noqa: PLC0415 (the link only when configured)

        link_keys(config.gameserver)  # no secret: refuse to start rather than run unlinked, before opening
    db = await open_database(
        database or config.database, busy_timeout_ms=busy_timeout_ms, club=config.club_id, read_only=read_only
    )
    try:
        app = _assemble(config, db, clock, timers, game_server, sweep, read_only)
    except BaseException:
        await db.close()  # an open aiosqlite connection's thread would keep the process alive: nothing left open
        raise
    if isinstance(db, PostgresDatabase):
        try:
            await db.listen(app.woken)
        except BaseException:
            await app.close()
            raise
    return app


def _assemble(
    config: Config,
    db: Database,
    clock: Clock | None,
    timers: Timers | None,
    game_server: GameServerPort | None,
    sweep: bool | None,
    read_only: bool,
) -> App:
    chats = Chats([])
    clock = clock or SystemClock()
    if timers is None:
        scheduler = SchedulerTimers()
        timers = scheduler
    if game_server is None and config.gameserver.enabled:
        from bot.gameserver.outbox import HttpGameServer  # noqa: PLC0415 (the link only when configured)

        game_server = HttpGameServer(db, SystemClock().now)
    desk = Desk(db, chats, game_server or LoggingGameServer(), clock, config, timers)
    if isinstance(timers, SchedulerTimers):
        timers.bind(desk.run_due)
        timers.start()
    desk.delivery.chat_outbox.background = (
        not read_only
    )  # `desk.start()`, once the adapters are attached, starts its worker
    sweeper = None
    if not read_only and (sweep if sweep is not None else isinstance(timers, SchedulerTimers)):
        sweeper = Sweeper(desk)
        sweeper.start()
    return App(config, db, desk, chats, clock, timers, sweeper)
