"""The outbox of commands to the game server: a command is a row first, sent later by a worker, never lost.

Commands of one queue (a table: ``game:N``; a member: ``nick:X``) go out in the order they were written: only
the oldest pending command of a queue is due. A refused command (the game server answered 4xx) is kept as
``failed`` with the answer, for an officer to see (`sudija outbox`); the queue then goes on. A process sends a
command only after leasing it (`lease`, a conditional update), so with several bot processes on one database
exactly one sends each; a lease whose process died runs out and the command is sent again, with its key.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from storage.database import dead_leases, now_text, parse_stored_time
from storage.sql import Connection
from storage.states import OutboxState

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class Command:
    id: int
    queue: str
    kind: str
    payload: dict[str, Any]
    key: str
    created_at: datetime
    state: OutboxState
    attempts: int
    next_at: datetime
    last_error: str | None
    done_at: datetime | None


_COLUMNS = "id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error, done_at"


def _command(row: Any) -> Command:
    return Command(
        int(row[0]),
        str(row[1]),
        str(row[2]),
        json.loads(row[3]),
        str(row[4]),
        parse_stored_time(row[5]),
        OutboxState(str(row[6])),
        int(row[7]),
        parse_stored_time(row[8]),
        row[9],
        parse_stored_time(row[10]) if row[10] else None,
    )


async def _rows(db: Database, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
    async with db.connection.execute(sql, params) as cur:
        return list(await cur.fetchall())


class OutboxStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    async def add(
        conn: Connection, queue: str, kind: str, payload: dict[str, Any], now: datetime, key: str | None = None
    ) -> int | None:
        """Write a command inside the caller's transaction. The same command already waiting in its queue is
        not written twice (a resync after a restart repeats what is still pending): None then. With `key` (fixed
        by what asks for it: a chat outbox effect), a command once written under that key is never written again,
        whatever became of it."""
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        if key is not None:
            async with conn.execute("SELECT 1 FROM outbox WHERE key = ?", (key,)) as cur:
                if await cur.fetchone() is not None:
                    return None
        async with conn.execute(
            "SELECT id FROM outbox WHERE queue = ? AND state = 'pending' ORDER BY id DESC LIMIT 1", (queue,)
        ) as cur:
            last = await cur.fetchone()
        if last is not None:
            async with conn.execute("SELECT kind, payload FROM outbox WHERE id = ?", (last[0],)) as cur:
                row = await cur.fetchone()
            if row is not None and row[0] == kind and row[1] == text:
                return None
        key = key or f"sudija-{secrets.token_hex(12)}"
        cur2 = await conn.execute(
            "INSERT INTO outbox (queue, kind, payload, key, created_at, next_at) VALUES (?, ?, ?, ?, ?, ?)",
            (queue, kind, text, key, now_text(now), now_text(now)),
        )
        return cur2.lastrowid

    async def enqueue(
        self, queue: str, kind: str, payload: dict[str, Any], now: datetime, key: str | None = None
    ) -> int | None:
        async with self.db.transaction() as conn:
            return await self.add(conn, queue, kind, payload, now, key)

    async def due(self, now: datetime, limit: int = 100) -> list[Command]:
        """The head of every queue whose retry time has come and that no process is sending, oldest first."""
        rows = await _rows(
            self.db,
            f"SELECT {_COLUMNS} FROM outbox WHERE id IN (SELECT min(id) FROM outbox WHERE state = 'pending'"
            " GROUP BY queue) AND next_at <= ? AND (leased_until IS NULL OR leased_until <= ?) ORDER BY id LIMIT ?",
            (now_text(now), now_text(now), limit),
        )
        return [_command(r) for r in rows]

    async def lease(self, command_id: int, now: datetime, until: datetime) -> bool:
        """Take the pending command for sending until `until`: True for exactly one process, False when another
        holds an unexpired lease or the command is done. (Bookkeeping: a lease lost to a power cut is harmless.)"""
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(
                "UPDATE outbox SET leased_until = ?, leased_by = ? WHERE id = ? AND state = 'pending'"
                " AND (leased_until IS NULL OR leased_until <= ?)",
                (now_text(until), self.db.lease_holder, command_id, now_text(now)),
            )
        return cur.rowcount == 1

    async def release(self, command_ids: list[int]) -> None:
        """Give up the leases of commands this process did not finish sending (it failed on the way)."""
        if not command_ids:
            return
        marks = ", ".join("?" * len(command_ids))
        async with self.db.transaction(durable=False) as conn:
            await conn.execute(f"UPDATE outbox SET leased_until = NULL WHERE id IN ({marks})", tuple(command_ids))

    async def release_dead(self) -> int:
        """The leases of processes that are gone (every lease left, on SQLite): released; how many."""
        if not await _rows(self.db, "SELECT 1 FROM outbox WHERE leased_until IS NOT NULL LIMIT 1", ()):
            return 0  # the usual start: nothing to write
        where, alive = dead_leases(await self.db.live_holders())
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(f"UPDATE outbox SET leased_until = NULL, leased_by = NULL WHERE {where}", alive)
        return max(0, cur.rowcount)

    async def next_wake(self) -> datetime | None:
        """When the earliest queue head falls due (None: nothing pending); one another process is sending, when
        its lease runs out."""
        rows = await _rows(
            self.db,
            "SELECT min(CASE WHEN leased_until > next_at THEN leased_until ELSE next_at END) FROM outbox"
            " WHERE id IN (SELECT min(id) FROM outbox WHERE state = 'pending' GROUP BY queue)",
        )
        value = rows[0][0] if rows else None
        return parse_stored_time(value) if value else None

    async def sent(self, command_id: int, now: datetime, kept: dict[str, Any] | None = None) -> None:
        """The game server took the command; with `kept`, the row keeps that payload instead (a secret removed)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE outbox SET state = 'sent', attempts = attempts + 1, done_at = ?,"
                " last_error = NULL, leased_until = NULL WHERE id = ? AND state = 'pending'",
                (now_text(now), command_id),
            )
            if kept is not None:
                text = json.dumps(kept, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                await conn.execute("UPDATE outbox SET payload = ? WHERE id = ?", (text, command_id))

    async def failed(self, command_id: int, error: str, now: datetime) -> None:
        """The game server refused the command (4xx): kept, with its answer, and the queue goes on."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE outbox SET state = 'failed', attempts = attempts + 1, done_at = ?,"
                " last_error = ?, leased_until = NULL WHERE id = ? AND state = 'pending'",
                (now_text(now), error[:2000], command_id),
            )

    async def retry_at(self, command_id: int, error: str, at: datetime) -> None:
        """Not delivered (no answer, 5xx): tried again at `at`."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE outbox SET attempts = attempts + 1, next_at = ?, last_error = ?, leased_until = NULL"
                " WHERE id = ? AND state = 'pending'",
                (now_text(at), error[:2000], command_id),
            )

    async def listing(self, state: OutboxState | None = None, limit: int = 200) -> list[Command]:
        """Commands newest first, optionally only those in `state` (pending, sent, failed)."""
        if state is None:
            rows = await _rows(self.db, f"SELECT {_COLUMNS} FROM outbox ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = await _rows(
                self.db, f"SELECT {_COLUMNS} FROM outbox WHERE state = ? ORDER BY id DESC LIMIT ?", (state, limit)
            )
        return [_command(r) for r in rows]

    async def counts(self) -> dict[str, int]:
        rows = await _rows(self.db, "SELECT state, count(*) FROM outbox GROUP BY state")
        return {str(r[0]): int(r[1]) for r in rows}
