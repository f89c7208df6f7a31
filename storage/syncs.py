"""What the bot last synced to a platform, as a digest (`platform_syncs`): a platform adapter asks before it
syncs something the platform caps (Discord's application commands) and records what it synced."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import now_text

if TYPE_CHECKING:
    from storage.database import Database


async def synced_digest(db: Database, platform: str, what: str) -> str | None:
    """The digest of what was last synced as `what` to `platform`, or None (never synced)."""
    async with db.connection.execute(
        "SELECT digest FROM platform_syncs WHERE platform = ? AND what = ?", (platform, what)
    ) as cursor:
        row = await cursor.fetchone()
    return None if row is None else str(row[0])


async def record_sync(db: Database, platform: str, what: str, digest: str, now: datetime) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO platform_syncs (platform, what, digest, synced_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (platform, what) DO UPDATE SET digest = excluded.digest, synced_at = excluded.synced_at",
            (platform, what, digest, now_text(now)),
        )
