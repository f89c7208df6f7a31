"""The event history: every act of the desk and of club governance, who did it, to whom, when and why."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from storage.database import now_text, parse_stored_time
from storage.sql import Connection

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    at: datetime
    kind: str
    actor: int | None
    subject: str | None
    data: dict[str, Any]


class EventStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    async def add(
        conn: Connection,
        at: datetime,
        kind: str,
        actor: int | None = None,
        subject: str | None = None,
        **data: Any,
    ) -> None:
        """Record an event inside the caller's transaction, so the act and its record land together."""
        await conn.execute(
            "INSERT INTO events (at, kind, actor, subject, data) VALUES (?, ?, ?, ?, ?)",
            (now_text(at), kind, actor, subject, json.dumps(data, ensure_ascii=False, default=str)),
        )

    async def listing(self, kinds: tuple[str, ...] | None = None, limit: int = 200) -> list[Event]:
        sql = "SELECT id, at, kind, actor, subject, data FROM events"
        params: tuple[Any, ...] = ()
        if kinds:
            sql += f" WHERE kind IN ({','.join('?' * len(kinds))})"
            params = kinds
        sql += " ORDER BY id DESC LIMIT ?"
        async with self.db.connection.execute(sql, (*params, limit)) as cur:
            rows = await cur.fetchall()
        return [Event(r[0], parse_stored_time(r[1]), r[2], r[3], r[4], json.loads(r[5] or "{}")) for r in rows]

    async def of_trial(self, trial: int, call: int | None) -> list[Event]:
        """The bot's own events in a trial's conversation, in order: its call taken, a councilor called and
        joined, the draft saved or replaced, the game changed (Promeni…), the trial ended."""
        async with self.db.connection.execute(
            "SELECT id, at, kind, actor, subject, data FROM events WHERE subject = ?"
            " OR (subject = ? AND kind = 'call_taken') ORDER BY id",
            (f"trial:{trial}", f"call:{call}"),
        ) as cur:
            rows = await cur.fetchall()
        return [Event(r[0], parse_stored_time(r[1]), r[2], r[3], r[4], json.loads(r[5] or "{}")) for r in rows]
