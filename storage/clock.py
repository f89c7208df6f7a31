"""The club's stored clock: the console club's time lives in its database, so a scripted club resumes at its
own time (its stored rows never lie in its future) instead of at the real time of each start."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import now_text, parse_stored_time

if TYPE_CHECKING:
    from storage.database import Database


async def stored_clock(db: Database) -> datetime | None:
    async with db.connection.execute("SELECT now FROM club_clock WHERE id = 1") as cursor:
        row = await cursor.fetchone()
    return parse_stored_time(str(row[0])) if row else None


async def store_clock(db: Database, moment: datetime) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO club_clock (id, now) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET now = excluded.now",
            (now_text(moment),),
        )
