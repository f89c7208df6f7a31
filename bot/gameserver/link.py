"""The game-server link running beside the desk: the events endpoint, the outbox worker and korekcija, started by
`sudija run` (and the console club) when ``[gameserver]`` is configured, and stopped with them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from aiohttp import web

from bot.chat_outbox import NOTICE_QUEUE, tell_officials
from bot.config import ConfigError, GameServerConfig, require_secret
from bot.desk import Desk
from bot.gameserver.feed import LiveFeed
from bot.gameserver.inbound import events_app, serve_events
from bot.gameserver.korekcija import KorekcijaDesk
from bot.gameserver.outbox import HttpGameServer, Notice, OutboxWorker
from bot.gameserver.protocol import Key, Keyring
from bot.gameserver.query import GameServerQuery
from bot.outbox_engine import Attempt, Backoff, Bounds
from bot.ports import SystemClock
from storage.chat_outbox import NewEffect
from storage.outbox import HOLDS, Command
from storage.states import OutboxState


def link_secret(config: GameServerConfig) -> bytes:
    return require_secret(config).encode("utf-8")


def officials_notice(desk: Desk) -> Notice:
    """What the officials are told, in the club's language, of a command the game server refused for good or that
    was given up: what it was and what to do; a table's paper says that play there does not resume without it."""
    holding = {kind for behind in HOLDS.values() for kind in behind}

    def notice(command: Command, state: OutboxState, attempt: Attempt) -> Sequence[NewEffect]:
        if command.kind in holding:
            key = "outbox.paper_stuck"
        else:
            key = "outbox.command_dead" if state is OutboxState.DEAD else "outbox.command_refused"
        what = command.payload.get("game", command.payload.get("nick", ""))
        with desk.voice.club_voice():
            text = desk.t(key, id=command.id, command=command.kind, what=what, error=attempt.error[:300])
        return [tell_officials(f"{NOTICE_QUEUE}gameserver:{command.id}", text)]

    return notice


def _key(config: GameServerConfig, setting: str, env: str, key_id: str) -> Key:
    secret = config.read_secret(env)
    if secret is None:
        raise ConfigError(
            f"gameserver.{setting} names the environment variable {env}, which holds no secret; set it, or empty "
            f"gameserver.{setting}"
        )
    return Key(secret.encode("utf-8"), key_id or None)


def link_keys(config: GameServerConfig) -> Keyring:
    """The bot's keyring: its commands signed with `secret_env`'s key; the game server's events checked with
    `events_secret_env`'s (or that same key), and during a rotation also with `previous_secret_env`'s."""
    signing = Key(link_secret(config), config.key_id or None)
    events = signing
    if config.events_secret_env:
        events = _key(config, "events_secret_env", config.events_secret_env, config.events_key_id)
    accepted = [events]
    if config.previous_secret_env:
        accepted.append(_key(config, "previous_secret_env", config.previous_secret_env, config.previous_key_id))
    return Keyring(signing, tuple(accepted))


class GameServerLink:
    """Everything of the link for one desk. The desk's game-server port must be an `HttpGameServer`."""

    def __init__(
        self,
        desk: Desk,
        config: GameServerConfig,
        secret: bytes | Keyring,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        port = desk.deps.game_server
        if not isinstance(port, HttpGameServer):
            raise TypeError("the desk's game server must be an HttpGameServer for the link")
        self.desk = desk
        self.config = config
        self.clock = clock or SystemClock().now
        self.port = port
        self.keys = keys = secret if isinstance(secret, Keyring) else Keyring.shared(secret)
        self.korekcija = KorekcijaDesk(desk)
        self.worker = OutboxWorker(
            desk.db,
            config.url,
            keys.signing,
            self.clock,
            backoff=Backoff(config.retry_initial_seconds, config.retry_max_seconds),
            bounds=Bounds.of(desk.config.outbox),
            notice=officials_notice(desk),
            told=desk.delivery.deliver_effects,
            ending=self.korekcija.undo_ended,
        )
        port.wake = self.worker.wake
        self.query = GameServerQuery(config.url, keys.signing, self.clock, config.query_timeout_seconds)
        port.ask = self.query.hand_in_progress
        self.feed = LiveFeed(desk, wall=self.clock)
        self.korekcija.attach(self.feed)
        self.app = events_app(self.feed, keys, self.clock, config.timestamp_window_seconds)
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
        await self.query.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
