"""Each member's own language (`/jezik`): one row per member who chose one; no row means the club's language."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import now_text
from storage.states import Language

if TYPE_CHECKING:
    from storage.database import Database


async def member_language(db: Database, member_id: int) -> Language | None:
    """The language the member chose, or None (he reads the club's)."""
    async with db.connection.execute("SELECT language FROM member_languages WHERE member = ?", (member_id,)) as cursor:
        row = await cursor.fetchone()
    return None if row is None else Language(str(row[0]))


async def account_language(db: Database, platform: str, account: str) -> Language | None:
    """The language the member linked to this platform account chose, or None (he reads the club's, or the account
    is linked to nobody): one indexed read, without the member's own row."""
    async with db.connection.execute(
        "SELECT l.language FROM accounts a JOIN member_languages l ON l.member = a.member"
        " WHERE a.platform = ? AND a.account = ?",
        (platform, account),
    ) as cursor:
        row = await cursor.fetchone()
    return None if row is None else Language(str(row[0]))


async def set_member_language(db: Database, member_id: int, language: Language | None, now: datetime) -> None:
    """Choose his language; None goes back to the club's."""
    async with db.transaction() as conn:
        if language is None:
            await conn.execute("DELETE FROM member_languages WHERE member = ?", (member_id,))
        else:
            await conn.execute(
                "INSERT INTO member_languages (member, language, at) VALUES (?, ?, ?)"
                " ON CONFLICT (member) DO UPDATE SET language = excluded.language, at = excluded.at",
                (member_id, language, now_text(now)),
            )
