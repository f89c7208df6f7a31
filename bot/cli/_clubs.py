"""`sudija run --club FILE --club FILE …`: several clubs served by one process (issue 21).

Each FILE is one club's whole configuration — its `[club] id`, its database, its Discord guild and/or Telegram
groups with their own tokens (the environment variables the file names), its game-server link — and each club is
`bot.cli.run.serve` of its file: its own database connection as its own club (on PostgreSQL usually one database
shared by all, storage/tenancy.py), its own desk, timers and platforms, its own gateway lock. The clubs run side by
side in the one event loop; a stop (SIGTERM, SIGINT) stops them all, and a club that fails (a fatal setup finding,
a platform that stopped) stops the others cleanly and the process exits with its message, so a supervisor restarts
the whole. What would make two clubs one another's double is refused before anything starts (`check_clubs`).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence

from bot.config import Config, ConfigError
from bot.logs import SERVING
from storage.postgres import is_postgres, shown
from storage.tenancy import lock_key


def check_clubs(configs: Sequence[Config], sources: Sequence[str]) -> None:
    """`ConfigError` when the files would not make distinct clubs: the same club twice (one SQLite file, or one
    PostgreSQL database and `[club] id`), two ids of one database whose lock keys meet, a club with no platform
    token, one token for two clubs (both would answer
    every update), or two game-server links listening on one port."""
    clubs: dict[object, str] = {}
    keys: dict[tuple[str, int], tuple[str, str]] = {}
    tokens: dict[tuple[str, str], str] = {}
    ports: dict[tuple[str, int], str] = {}
    for config, source in zip(configs, sources, strict=True):
        club: object = (config.database, config.club_id) if is_postgres(config.database) else config.database
        if club in clubs:
            where = (
                f"the club {config.club_id!r} of {shown(config.database)}"
                if is_postgres(config.database)
                else f"the database file {config.database} (a file is one club's)"
            )
            raise ConfigError(f"{source} and {clubs[club]} both serve {where}: give each club its own [club] id")
        clubs[club] = source
        if is_postgres(config.database):
            key = (config.database, lock_key(config.club_id))
            if key in keys:
                other, other_id = keys[key]
                raise ConfigError(
                    f"{source}: the club ids {config.club_id!r} and {other_id!r} (of {other}) share one lock key, so"
                    " their bots would lock each other out: give one of them another [club] id"
                )
            keys[key] = (source, config.club_id)
        held = [(name, s.token) for name, s in (("discord", config.discord), ("telegram", config.telegram)) if s.token]
        if not held:
            raise ConfigError(
                f"{source}: no Discord or Telegram token (the environment variables its [discord] token_env and "
                "[telegram] token_env name): a club served with --club needs its platforms"
            )
        for name, token in held:
            if (name, token) in tokens:
                raise ConfigError(
                    f"{source} and {tokens[(name, token)]} have the same {name} token: each club needs its own bot"
                )
            tokens[(name, token)] = source
        link = config.gameserver
        if link.enabled:
            if (link.host, link.port) in ports:
                raise ConfigError(
                    f"{source} and {ports[(link.host, link.port)]} both listen for their game server on "
                    f"{link.host}:{link.port}: give each [gameserver] its own port"
                )
            ports[(link.host, link.port)] = source


async def serve_clubs(configs: Sequence[Config], *, stop: asyncio.Event | None = None, standby: bool = False) -> None:
    """Every club until `stop` is set (SIGTERM, SIGINT) or one of them fails: then all stop, and the first failure
    is raised."""
    from bot.cli.run import serve  # noqa: PLC0415 (bot.cli.run imports this module)
    from bot.http import listening  # noqa: PLC0415 (bot.http imports the app)

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    running = []
    settings = next((c.http for c in configs if c.http.enabled), configs[0].http)  # one endpoint per process
    async with listening(settings) as endpoint:
        for config in configs:
            context = contextvars.copy_context()
            context.run(SERVING.set, config.club_id)
            served = serve(config, stop=stop, standby=standby, endpoint=endpoint)
            running.append(loop.create_task(served, context=context))
        try:
            await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.set()
            ended = await asyncio.gather(*running, return_exceptions=True)
    for outcome in ended:
        if isinstance(outcome, BaseException):
            raise outcome
