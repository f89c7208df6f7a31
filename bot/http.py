"""`sudija run`'s own HTTP endpoint (`[http] host`, `port`; 127.0.0.1 by default, off while the port is 0): what a
supervisor, a container's HEALTHCHECK or Prometheus asks of the running bot.

``GET /healthz``: JSON, status 200 when every club served is healthy, else 503. For each club: ``database`` (``ok``
or why it cannot be read), ``platforms`` (each platform this process connected: ``true`` while connected),
``gateway`` (``held``: this process receives the club's events — always, on SQLite, whose file lock is the one
process's; ``standing by``: another PostgreSQL process holds it), and the age in seconds of the oldest chat effect
and game-server command still waiting. A club is unhealthy when its database cannot be read or a platform it
connected is gone; standing by is healthy. ``GET /metrics``: bot/metrics.py's registry in Prometheus's text
format, the club tables' figures read at that moment.

One endpoint per process: `sudija run --club …` serves every club's health and figures on the first file's
``[http]``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot import metrics
from bot.config import ConfigError, HttpConfig
from storage.observed import Observed, observe

if TYPE_CHECKING:
    from bot.app import App

log = logging.getLogger(__name__)


@dataclass
class Served:
    """One club as the endpoint sees it: its app, its platforms' connection probes, its gateway."""

    club: str
    app: App
    platforms: dict[str, Callable[[], bool]] = field(default_factory=dict)
    gateway: str = "held"  # "standing by" while another PostgreSQL process holds the club's gateway


class Endpoint:
    def __init__(self, settings: HttpConfig) -> None:
        self.settings = settings
        self.clubs: dict[str, Served] = {}
        self._runner: web.AppRunner | None = None

    def serve(self, served: Served) -> None:
        self.clubs[served.club] = served

    def leave(self, club: str) -> None:
        self.clubs.pop(club, None)

    async def start(self) -> None:
        """Listen; `ConfigError` naming `[http]` when the address cannot be taken (a port in use)."""
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.settings.host, self.settings.port).start()
        except OSError as exc:
            await runner.cleanup()
            raise ConfigError(
                f"[http] host = {self.settings.host!r}, port = {self.settings.port}: cannot listen there "
                f"({exc.strerror or exc}); choose a free port, or port = 0 to turn /healthz and /metrics off"
            ) from None
        self._runner = runner
        log.info("/healthz and /metrics on http://%s:%s", self.settings.host, self.settings.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _observe(self, served: Served) -> Observed | str:
        try:
            return await observe(served.app.db, served.app.clock.now())
        except Exception as exc:  # noqa: BLE001 (whatever the database says is the health check's answer)
            return f"unreachable: {exc}"

    async def healthz(self, request: web.Request) -> web.Response:
        clubs: dict[str, Any] = {}
        healthy = bool(self.clubs)
        for club, served in sorted(self.clubs.items()):
            seen = await self._observe(served)
            platforms = {name: bool(connected()) for name, connected in served.platforms.items()}
            ok = not isinstance(seen, str) and all(platforms.values())
            healthy = healthy and ok
            clubs[club] = {
                "ok": ok,
                "database": seen if isinstance(seen, str) else "ok",
                "platforms": platforms,
                "gateway": served.gateway,
                "oldest_effect_seconds": None if isinstance(seen, str) else round(seen.oldest_effect_seconds, 3),
                "oldest_command_seconds": None if isinstance(seen, str) else round(seen.oldest_command_seconds, 3),
            }
        body = {"status": "ok" if healthy else "unhealthy", "clubs": clubs}
        return web.json_response(body, status=200 if healthy else 503)

    async def metrics(self, request: web.Request) -> web.Response:
        for club, served in self.clubs.items():
            seen = await self._observe(served)
            if not isinstance(seen, str):
                metrics.TABLES.refresh(club, seen)
            metrics.GATEWAY_HELD.labels(club).set(1 if served.gateway == "held" else 0)
            for name, connected in served.platforms.items():
                metrics.PLATFORM_CONNECTED.labels(club, name).set(1 if connected() else 0)
        body = generate_latest(metrics.REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


@contextlib.asynccontextmanager
async def listening(settings: HttpConfig) -> AsyncIterator[Endpoint | None]:
    """An endpoint started for the block (None when `[http]` is off)."""
    if not settings.enabled:
        yield None
        return
    endpoint = Endpoint(settings)
    await endpoint.start()
    try:
        yield endpoint
    finally:
        await endpoint.stop()
