"""The outbox of commands to the game server: a command is a row first, sent later by a worker, never lost. It is
an `OutboxTable` (storage/outbox_engine.py: queues, leases, retries, dead letters), with each command's
idempotency key.

Commands of one queue (a table: ``game:N``; a member: ``nick:X``) go out in the order they were written. Where
the order matters beyond that, a table's ``resume_table`` waits behind an earlier ``paper_changed`` of its queue
that failed or is dead: play does not resume on a paper the game server never got (the officials are told, and
`sudija outbox --retry` / `--skip` lets it go); a ``pause_table`` is never held, and once one is sent the resumes
it passed are moot (skipped), so an old resume cannot undo a newer trial's pause.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from storage.database import now_text, parse_stored_time
from storage.outbox_engine import OutboxTable, Resolution, resolution
from storage.sql import Connection
from storage.states import OutboxState

if TYPE_CHECKING:
    from storage.chat_outbox import NewEffect
    from storage.database import Database

HOLDS = {"resume_table": ("paper_changed",)}  # a command, and the earlier ones of its queue it may not pass
SUPERSEDED_BY = "sudija"  # `resolved_by` of a row a newer one made moot (its `reason`: that row, "#N")


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
    next_at: datetime | None
    last_error: str | None
    done_at: datetime | None
    failing_since: datetime | None = None
    resolution: Resolution | None = None


_COLUMNS = (
    "id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error, done_at, failing_since,"
    " resolved_by, resolved_at, reason"
)


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
        parse_stored_time(row[8]) if row[8] else None,
        row[9],
        parse_stored_time(row[10]) if row[10] else None,
        parse_stored_time(row[11]) if row[11] else None,
        resolution(row, 12),
    )


def _held() -> str:
    """A command that waits behind an earlier failed or dead one it may not pass (`HOLDS`)."""
    cases = " OR ".join(
        f"(outbox.kind = '{kind}' AND b.kind IN ({', '.join(repr(k) for k in behind)}))"
        for kind, behind in HOLDS.items()
    )
    return (
        "EXISTS (SELECT 1 FROM outbox AS b WHERE b.queue = outbox.queue AND b.id < outbox.id"
        f" AND b.state IN ('failed', 'dead') AND ({cases}))"
    )


class OutboxStore(OutboxTable[Command]):
    def __init__(self, db: Database) -> None:
        super().__init__(db, "outbox", _COLUMNS, _command, held=_held())

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
            "SELECT kind, payload FROM outbox WHERE queue = ? AND state = 'pending' ORDER BY id DESC LIMIT 1", (queue,)
        ) as cur:
            last = await cur.fetchone()
        if last is not None and last[0] == kind and last[1] == text:
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

    async def end(
        self,
        command: Command,
        state: OutboxState,
        error: str | None,
        now: datetime,
        told: Sequence[NewEffect] = (),
        kept: dict[str, Any] | None = None,
        also: Callable[[Connection], Awaitable[None]] | None = None,
    ) -> None:
        """The command ends: sent (with `kept`, the row keeps that payload instead: a secret removed), refused
        for good or dead (with the answer, and the officials' notice `told`, in one transaction; `also` writes
        what else its end decides: a korekcija whose undo failed lapses). A sent pause makes the resumes of its
        queue that waited behind a failed paper moot."""
        async with self.db.transaction() as conn:
            if not await self.end_in(conn, command.id, state, error, now, told):
                return
            if also is not None:
                await also(conn)
            if kept is not None:
                await self.keep_payload(conn, command.id, kept)
            if state is OutboxState.SENT and command.kind == "pause_table":
                await conn.execute(
                    "UPDATE outbox SET state = 'skipped', done_at = ?, resolved_by = ?, resolved_at = ?, reason = ?"
                    " WHERE queue = ? AND kind = 'resume_table' AND state = 'pending' AND id < ?",
                    (now_text(now), SUPERSEDED_BY, now_text(now), f"#{command.id}", command.queue, command.id),
                )
