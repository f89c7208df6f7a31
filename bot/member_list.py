"""A platform's whole member list asked for again after the platform rate limited the request for it.

Discord answers the whole member list (Request Guild Members, op 8, with an empty query and no limit) once per
guild in 30 seconds; a second request within that window — a restart within 30 s — gets a RATE_LIMITED gateway
event instead of the members, with the seconds to wait (`retry_after`). discord.py 2.7 ignores that event, so the
bot would run with only the members the guild's GUILD_CREATE carried (online, with a role or a nickname), and the
roles the acts give the others would not be written until each of them showed some activity.

The adapter reports each such event to `MemberList.rate_limited`; this decides when to ask again — after the
`retry_after` the platform named, never sooner than `FLOOR` — asks through the adapter's `request` (which returns
once the list came whole, or once it was rate limited again), and when a request came back without a rate limit
runs the adapter's `complete` (the same member sync as when the bot is ready).

Invariants. One asking task at a time: an event while it waits or asks only sets the next wait, so the platform is
never asked twice at once. The task ends when a request was answered without a rate limit, when a request failed
or went unanswered for `ANSWER_WITHIN` seconds (logged as an error: the members still missing are synced when each
shows activity, or at the next start), or when the client closes (`stop`). The operator reads one warning per
episode (the first rate limit after a whole list); every rate limit is counted in `sudija_platform_rate_limited`.
The pause is injected (`sleep`): the tests move it, nothing waits for real.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot import metrics
from bot.tasks import cancelled

log = logging.getLogger(__name__)

FLOOR = 1.0  # seconds: the least pause before asking again, whatever `retry_after` says
ANSWER_WITHIN = 120.0  # seconds a request may take to be answered whole (a large guild comes in many chunks)
REQUEST = "members"  # the request's name in the metric


class MemberList:
    """The whole member list of one platform's server, asked for again until it comes."""

    def __init__(
        self,
        club: str,
        platform: str,
        request: Callable[[], Awaitable[object]],
        complete: Callable[[], Awaitable[object]],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.club = club
        self.platform = platform
        self.request = request
        self.complete = complete
        self.sleep = sleep
        self.limited = 0  # rate limits since the list last came whole
        self._wait: float | None = None  # the pause before the next request, while one is due
        self._task: asyncio.Task[None] | None = None

    def rate_limited(self, retry_after: float) -> None:
        """The platform refused the whole member list for `retry_after` seconds (called from the gateway's
        parser, so it only takes note and leaves the asking to a task of its own)."""
        self.limited += 1
        metrics.PLATFORM_RATE_LIMITED.labels(self.club, self.platform, REQUEST).inc()
        self._wait = max(FLOOR, retry_after)
        if self.limited == 1:
            log.warning(
                "%s rate limited the request for the server's whole member list (a restart within its window?): "
                "asking again in %.1f s; the members not received yet are synced then",
                self.platform,
                self._wait,
            )
        else:
            log.info(
                "%s rate limited the member list again (%d times): asking in %.1f s",
                self.platform,
                self.limited,
                self._wait,
            )
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._ask(), name=f"{self.platform}-member-list")

    async def _ask(self) -> None:
        while self._wait is not None:
            wait, self._wait = self._wait, None
            await self.sleep(wait)
            try:
                async with asyncio.timeout(ANSWER_WITHIN):
                    await self.request()
            except Exception as failed:  # noqa: BLE001 (a connection lost, no answer: told, and the start heals it)
                log.error(
                    "asking %s again for the whole member list failed (%s: %s); members not received are synced "
                    "when they show activity or at the next start",
                    self.platform,
                    type(failed).__name__,
                    failed,
                )
                self._wait, self.limited = None, 0
                return
        log.info("the whole member list came from %s after %d rate limits: syncing it", self.platform, self.limited)
        self.limited = 0
        await self.complete()

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)
