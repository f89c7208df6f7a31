"""The earliest open deadline, for the safety sweep: one query over the partial indexes of pending calls,
pending councilor calls and running plavac marks, so asking costs a few index look-ups whatever the history."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import parse_stored_time

if TYPE_CHECKING:
    from storage.database import Database

_EARLIEST = (
    "SELECT min(due) FROM ("
    " SELECT min(deadline) AS due FROM calls WHERE state = 'pending'"
    " UNION ALL SELECT min(deadline) FROM councilor_calls WHERE state = 'pending'"
    " UNION ALL SELECT min(until) FROM plavac WHERE active = 1) AS deadlines"
)


async def earliest_deadline(db: Database) -> datetime | None:
    """When the first open deadline falls (it may lie in the past), or None when nothing waits."""
    async with db.connection.execute(_EARLIEST) as cursor:
        row = await cursor.fetchone()
    return parse_stored_time(str(row[0])) if row and row[0] else None


async def query_plan(db: Database) -> list[str]:
    """How SQLite answers `earliest_deadline` (a test checks that it uses indexes, never a table scan)."""
    async with db.connection.execute("EXPLAIN QUERY PLAN " + _EARLIEST) as cursor:
        return [str(row[3]) for row in await cursor.fetchall()]
