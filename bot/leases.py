"""Leases a starting bot gives back: each outbox (the game server's, the chat's) leases a row before acting on it,
so that with several bot processes on one database exactly one acts. A lease names its holder (on PostgreSQL its
server connection); a bot starting, or taking over the club's gateway, releases the leases of processes that are
gone (on SQLite, where one process serves the file, every lease it finds), so those rows are acted on again at
once rather than when their leases run out."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


async def release_dead_leases(release_dead: Callable[[], Awaitable[int]], outbox: str) -> int:
    """Release the dead processes' leases (the store's `release_dead`); how many. A failure is logged, not raised: the
    leases then run out by themselves."""
    try:
        released = await release_dead()
    except Exception:
        log.exception("the %s could not release a stopped process's leases; they run out by themselves", outbox)
        return 0
    if released:
        log.info("the %s: %d row(s) a stopped process was acting on are taken up again", outbox, released)
    return released
