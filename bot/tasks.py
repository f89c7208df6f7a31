"""The end of the bot's background tasks (the safety sweep, the inbox's worker, the outboxes' workers, the
reference game server's tables): cancelled and awaited, so none outlives the stop that ends it and its
cancellation is not mistaken for a failure of the stop."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancelled(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` (None: there is none) and wait until it has ended; its `CancelledError` is not raised."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
