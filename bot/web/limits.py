"""The sign-in's rate limit: at most `limit` attempts per client address within a sliding `window` (a guessed
link, a replayed login), answered 429 with `Retry-After` beyond it. Kept in this process's memory — a restart
forgets it, which costs an attacker nothing he could not get by waiting the window out — and bounded in size, so
a flood of addresses cannot grow it without end. The clock is injected (the tests step it)."""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from datetime import datetime, timedelta

MAX_ADDRESSES = 10_000  # the oldest address is forgotten beyond this


class RateLimit:
    def __init__(self, limit: int, window: timedelta, now: Callable[[], datetime]) -> None:
        self.limit = limit
        self.window = window
        self.now = now
        self._seen: OrderedDict[str, deque[datetime]] = OrderedDict()

    def attempt(self, address: str) -> timedelta | None:
        """Count one attempt from `address`; None when it is allowed, else how long until the next one is."""
        now = self.now()
        times = self._seen.pop(address, None) or deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        self._seen[address] = times
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)
        if len(times) >= self.limit:
            return times[0] + self.window - now
        times.append(now)
        return None
