"""The bot's HTTP endpoint for the game server's events: ``POST /v1/events`` (signed, one event per request) and
``GET /healthz``. It checks the signature and the timestamp (`protocol.verify`, against an injected clock) and
hands the body to `LiveFeed.apply`; every refusal is a JSON error naming the field, with nothing changed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from aiohttp import web

from bot.gameserver.feed import LiveFeed
from bot.gameserver.protocol import MAX_BODY, MINOR, VERSION, WINDOW_SECONDS, Keyring, Keys, ProtocolError, verify

log = logging.getLogger(__name__)


def events_app(
    feed: LiveFeed, keys: Keys | Keyring, clock: Callable[[], datetime], window: int = WINDOW_SECONDS
) -> web.Application:
    """The aiohttp application of the endpoint (served by `serve_events`, or by a test server)."""

    async def events(request: web.Request) -> web.Response:
        if request.content_length is not None and request.content_length > MAX_BODY:
            return _error(ProtocolError(413, "body", f"the body is larger than {MAX_BODY} bytes"))
        try:
            body = await request.content.read(MAX_BODY + 1)
        except (ConnectionError, asyncio.IncompleteReadError):
            return _error(ProtocolError(400, "body", "the body could not be read"))
        if len(body) > MAX_BODY:
            return _error(ProtocolError(413, "body", f"the body is larger than {MAX_BODY} bytes"))
        try:
            verify(keys, request.headers, body, clock(), window)
        except ProtocolError as problem:
            return _error(problem)
        try:
            status, answer = await feed.apply(body)  # the feed takes events in order, in batches
        except Exception:
            log.exception("the game-server event could not be taken")
            status, answer = (
                500,
                {"ok": False, "error": "the bot could not take the event; send it again", "field": "body"},
            )
        return web.json_response(answer, status=status)

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "protocol": VERSION, "minor": MINOR})

    app = web.Application(client_max_size=MAX_BODY + 1)
    app.router.add_post("/v1/events", events)
    app.router.add_get("/healthz", healthz)
    return app


def _error(problem: ProtocolError) -> web.Response:
    return web.json_response(problem.body(), status=problem.status)


async def serve_events(app: web.Application, host: str, port: int) -> web.AppRunner:
    """Start listening; the caller keeps the runner and calls its `cleanup` at shutdown."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner
