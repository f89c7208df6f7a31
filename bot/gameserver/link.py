"""The game-server link running beside the desk: the events endpoint, the outbox worker and korekcija, started by
`sudija run` (and the console club) when ``[gameserver]`` is configured, and stopped with them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from aiohttp import web

from bot.config import ConfigError, GameServerConfig
from bot.desk import Desk
from bot.gameserver.feed import LiveFeed
from bot.gameserver.inbound import events_app, serve_events
from bot.gameserver.korekcija import KorekcijaDesk
from bot.gameserver.outbox import Backoff, HttpGameServer, OutboxWorker
from bot.ports import SystemClock


def link_secret(config: GameServerConfig) -> bytes:
    secret = config.secret
    if secret is None:
        raise ConfigError(
            f"the game-server link is configured (gameserver.url) but the environment variable "
            f"{config.secret_env} holds no shared secret; set it to the secret the game server uses"
        )
    return secret.encode("utf-8")


class GameServerLink:
    """Everything of the link for one desk. The desk's game-server port must be an `HttpGameServer`."""

    def __init__(
        self, desk: Desk, config: GameServerConfig, secret: bytes, clock: Callable[[], datetime] | None = None
    ) -> None:
        port = desk.game_server
        if not isinstance(port, HttpGameServer):
            raise TypeError("the desk's game server must be an HttpGameServer for the link")
        self.desk = desk
        self.config = config
        self.clock = clock or SystemClock().now
        self.port = port
        self.worker = OutboxWorker(
            desk.db,
            config.url,
            secret,
            self.clock,
            backoff=Backoff(config.retry_initial_seconds, config.retry_max_seconds),
        )
        port.wake = self.worker.wake
        self.feed = LiveFeed(desk)
        self.korekcija = KorekcijaDesk(desk)
        self.korekcija.attach(self.feed)
        self.app = events_app(self.feed, secret, self.clock, config.timestamp_window_seconds)
        self._runner: web.AppRunner | None = None

    async def start(self, listen: bool = True) -> None:
        """Listen for events (unless `listen` is False: a test serves `self.app` itself), send what the outbox
        holds, and act on what the feed said while the desk was not listening."""
        if listen:
            try:
                self._runner = await serve_events(self.app, self.config.host, self.config.port)
            except OSError as exc:
                raise ConfigError(
                    f"the game-server link cannot listen on {self.config.host}:{self.config.port} "
                    f"(gameserver.host / gameserver.port): {exc.strerror or exc}"
                ) from None
        await self.feed.resync()
        self.worker.start()
        self.worker.wake()

    async def stop(self) -> None:
        await self.worker.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
