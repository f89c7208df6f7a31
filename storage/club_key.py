"""The club's signing key as stored (migration 0026): one row per club, its private and public parts as base64
text. What the key is and does is `bot.records.signing`'s; this module only keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import now_text

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class StoredKey:
    private_key: str
    public_key: str
    created_at: str


class ClubKeyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self) -> StoredKey | None:
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT private_key, public_key, created_at FROM club_key WHERE id = 1", ()
            )
        )
        return StoredKey(str(rows[0][0]), str(rows[0][1]), str(rows[0][2])) if rows else None

    async def keep(self, private_key: str, public_key: str, now: datetime) -> StoredKey:
        """Store a new key unless the club has one already (two processes starting at once: the first wins);
        the key the club has afterwards."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT OR IGNORE INTO club_key (id, private_key, public_key, created_at) VALUES (1, ?, ?, ?)",
                (private_key, public_key, now_text(now)),
            )
        stored = await self.get()
        assert stored is not None
        return stored
