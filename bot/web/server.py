"""Serving the club's web pages (`bot.web.app`) on `[web] host`/`port`, for `sudija run` and the console club.

`sudija run` serves them while `[web] port` is set, behind a reverse proxy with HTTPS (docs/deploy.md). The console
club serves them too, so `make run` shows them: on `[web]` where it is set, else on 127.0.0.1 — CONSOLE_PORT, or
any free port when that one is taken —, and the desk's `/web` then sends links to the address it took. Its own
listener, not `[http]`'s: /healthz and /metrics stay on the machine, the pages face the members.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

from aiohttp import web

from bot.config import ConfigError
from bot.desk import Desk
from bot.web.app import web_app

log = logging.getLogger(__name__)

CONSOLE_PORT = 8780


async def _listen(desk: Desk, host: str, port: int) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(web_app(desk), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise ConfigError(
            f"[web] host = {host!r}, port = {port}: cannot listen there ({exc.strerror or exc}); choose a free port, "
            "or port = 0 to turn the web pages off"
        ) from None
    bound = port
    for address in runner.addresses:  # the port the system chose for port 0
        bound = int(address[1])
    return runner, bound


@contextlib.asynccontextmanager
async def serving(desk: Desk) -> AsyncIterator[int | None]:
    """The pages on `[web]` for the block (the port they listen on; None while `[web]` is off)."""
    settings = desk.config.web
    if not settings.enabled:
        yield None
        return
    runner, port = await _listen(desk, settings.host, settings.port)
    log.info("the club's web pages on http://%s:%s (members open %s)", settings.host, port, settings.base_url)
    try:
        yield port
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
async def console_serving(desk: Desk) -> AsyncIterator[str]:
    """The console club's pages: on `[web]` where it is set, else on 127.0.0.1 (CONSOLE_PORT or a free one); the
    desk's `[web]` then names the address taken, so `/web` sends links to it. Yields that address."""
    settings = desk.config.web
    if settings.enabled:
        async with serving(desk):
            yield settings.base_url
        return
    try:
        runner, port = await _listen(desk, "127.0.0.1", CONSOLE_PORT)
    except ConfigError:
        runner, port = await _listen(desk, "127.0.0.1", 0)
    address = f"http://127.0.0.1:{port}"
    desk.config = replace(desk.config, web=replace(settings, host="127.0.0.1", port=port, public_url=address))
    try:
        yield address
    finally:
        await runner.cleanup()
