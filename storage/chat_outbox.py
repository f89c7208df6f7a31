"""The chat outbox: every chat effect of a decision is a row written in the decision's own transaction, delivered
later (at once, normally) by the worker in `bot.chat_outbox`, never lost to a crash between the two.

Effects of one queue (a call and its trial: ``call:N``) are delivered in the order they were written: only the
oldest pending effect of a queue is due. Each platform's part of an effect is bookkept in `chat_deliveries`:
``started`` before the platform is asked, ``done`` (with the messages it created, in the same transaction) after,
so a repeated delivery skips what is done and knows what may have been shown already. A permanent failure is
kept as ``failed`` with its error, for an officer to see; the queue then goes on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules.notices import Notice
from storage.database import dead_leases, now_text, parse_stored_time
from storage.states import DeliveryState, OutboxState

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection, SyncConnection


@dataclass(frozen=True, slots=True)
class NewEffect:
    """An effect to write with a decision: its queue, its kind and what the worker needs to deliver it."""

    queue: str
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Effect:
    id: int
    queue: str
    kind: str
    payload: dict[str, Any]
    created_at: datetime
    state: OutboxState
    attempts: int
    next_at: datetime | None
    last_error: str | None
    done_at: datetime | None
    deliveries: dict[str, DeliveryState]  # each platform's part so far


_COLUMNS = (
    "id, queue, kind, payload, created_at, state, attempts, next_at, last_error, done_at,"
    " (SELECT group_concat(platform || ' ' || state, char(10)) FROM chat_deliveries WHERE effect = chat_outbox.id)"
)


def _effect(row: Any) -> Effect:
    return Effect(
        int(row[0]),
        str(row[1]),
        str(row[2]),
        json.loads(row[3]),
        parse_stored_time(row[4]),
        OutboxState(str(row[5])),
        int(row[6]),
        parse_stored_time(row[7]) if row[7] else None,
        row[8],
        parse_stored_time(row[9]) if row[9] else None,
        {p: DeliveryState(s) for p, _, s in (part.rpartition(" ") for part in (row[10] or "").split("\n") if part)},
    )


@dataclass(frozen=True, slots=True)
class Ending:
    """How an effect ends (with its last platform's part, in one transaction): sent or failed, and the members
    its call pinged."""

    state: OutboxState
    error: str | None = None
    pings: Sequence[int] = ()
    call: int | None = None  # the call the pings are of
    kept: dict[str, Any] | None = None  # what the row keeps of its payload once ended (None: all of it)


async def add_effects(conn: Connection, effects: Sequence[NewEffect], now: datetime) -> None:
    """Write effects inside the caller's (the decision's) transaction."""
    await conn.executemany(
        "INSERT INTO chat_outbox (queue, kind, payload, created_at) VALUES (?, ?, ?, ?)",
        [(e.queue, e.kind, json.dumps(e.payload, ensure_ascii=False, sort_keys=True), now_text(now)) for e in effects],
    )


def add_effects_sync(conn: SyncConnection, effects: Sequence[NewEffect], now: datetime) -> None:
    """`add_effects` for an effect run inside a batch's transaction (a game-server event's, `storage.gameserver`)."""
    if effects:
        conn.executemany(
            "INSERT INTO chat_outbox (queue, kind, payload, created_at) VALUES (?, ?, ?, ?)",
            [
                (e.queue, e.kind, json.dumps(e.payload, ensure_ascii=False, sort_keys=True), now_text(now))
                for e in effects
            ],
        )


class ChatOutboxStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        async with self.db.connection.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def enqueue(self, effects: Sequence[NewEffect], now: datetime) -> None:
        """Effects of no other decision (or of one whose record is written elsewhere), in a transaction of their
        own."""
        async with self.db.transaction() as conn:
            await add_effects(conn, effects, now)

    _HEADS = "SELECT min(id) FROM chat_outbox WHERE state = 'pending' GROUP BY queue"

    async def due(self, now: datetime, limit: int = 200) -> list[Effect]:
        """Every pending effect that is due (never tried, or its retry time has come) and not behind one of its
        queue that waits for its retry, oldest first: deliver them in this order, a queue stopping at its first
        effect that does not end."""
        at = now_text(now)
        rows = await self._rows(
            f"SELECT {_COLUMNS} FROM chat_outbox WHERE state = 'pending' AND (next_at IS NULL OR next_at <= ?)"
            " AND (leased_until IS NULL OR leased_until <= ?)"
            " AND NOT EXISTS (SELECT 1 FROM chat_outbox AS e WHERE e.queue = chat_outbox.queue"
            " AND e.state = 'pending' AND e.id < chat_outbox.id AND (e.next_at > ? OR e.leased_until > ?))"
            " ORDER BY id LIMIT ?",
            (at, at, at, at, limit),
        )
        return [_effect(r) for r in rows]

    async def lease(self, effect: int, now: datetime, until: datetime) -> bool:
        """Take the effect to deliver it until `until`: False when another process holds an unexpired lease on
        it or it ended meanwhile (several bot processes on one database; bookkeeping, so not synced)."""
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(
                "UPDATE chat_outbox SET leased_until = ?, leased_by = ? WHERE id = ? AND state = 'pending'"
                " AND (leased_until IS NULL OR leased_until <= ?)",
                (now_text(until), self.db.lease_holder, effect, now_text(now)),
            )
            return cur.rowcount == 1

    async def release_dead(self) -> int:
        """The leases of processes that are gone (a bot starting or taking over the gateway; on SQLite, where
        one process serves the file, every lease left): released so their effects are delivered again at once;
        how many."""
        if not await self._rows("SELECT 1 FROM chat_outbox WHERE leased_until IS NOT NULL LIMIT 1"):
            return 0  # the usual start: nothing to write
        where, alive = dead_leases(await self.db.live_holders())
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(
                f"UPDATE chat_outbox SET leased_until = NULL, leased_by = NULL WHERE {where}", alive
            )
            return max(0, int(cur.rowcount))

    async def next_wake(self) -> datetime | None:
        """When the earliest waiting queue head falls due (None: nothing waits for a retry)."""
        rows = await self._rows(f"SELECT min(next_at) FROM chat_outbox WHERE id IN ({self._HEADS})")
        value = rows[0][0] if rows else None
        return parse_stored_time(value) if value else None

    async def deliveries(self, effect: int) -> dict[str, DeliveryState]:
        """Each platform's part of the effect so far."""
        rows = await self._rows("SELECT platform, state FROM chat_deliveries WHERE effect = ?", (effect,))
        return {str(p): DeliveryState(str(s)) for p, s in rows}

    async def started(self, effect: int, platforms: Sequence[str], now: datetime) -> None:
        """About to ask these platforms: a crash from here on makes the next delivery to them a repeat."""
        async with self.db.transaction(durable=False) as conn:
            await conn.executemany(
                "INSERT OR IGNORE INTO chat_deliveries (effect, platform, state, at) VALUES (?, ?, 'started', ?)",
                [(effect, platform, now_text(now)) for platform in platforms],
            )

    async def done(
        self,
        effect: int,
        platform: str,
        now: datetime,
        notices: tuple[str, Sequence[Notice]] | None = None,
        state: DeliveryState = DeliveryState.DONE,
        ending: Ending | None = None,
    ) -> None:
        """The platform's part is over; what it created (a call's notices, under their subject) is kept in the
        same transaction, so a repeat finds it and edits rather than posts again. With `ending`, the last part:
        the effect ends with it."""
        async with self.db.transaction(durable=False) as conn:
            if notices is not None:
                subject, created = notices
                await conn.executemany(
                    "INSERT INTO notices (subject, platform, place, message) VALUES (?, ?, ?, ?)",
                    [(subject, n.platform, n.place, n.message) for n in created],
                )
            await conn.execute(
                "INSERT INTO chat_deliveries (effect, platform, state, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (effect, platform) DO UPDATE SET state = excluded.state, at = excluded.at",
                (effect, platform, state, now_text(now)),
            )
            if ending is not None:
                await _end(conn, effect, ending, now)

    async def finish(self, effect: int, ending: Ending, now: datetime) -> None:
        """Every platform's part is over (or there was none to do)."""
        async with self.db.transaction(durable=False) as conn:
            await _end(conn, effect, ending, now)

    async def retry_at(self, effect: int, error: str, at: datetime) -> None:
        """Not delivered (a transient error): tried again at `at`."""
        async with self.db.transaction(durable=False) as conn:
            await conn.execute(
                "UPDATE chat_outbox SET attempts = attempts + 1, next_at = ?, last_error = ?, leased_until = NULL"
                " WHERE id = ? AND state = 'pending'",
                (now_text(at), error[:2000], effect),
            )

    async def listing(self, state: OutboxState | None = None, limit: int = 200) -> list[Effect]:
        """Effects newest first, optionally only those in `state`."""
        if state is None:
            rows = await self._rows(f"SELECT {_COLUMNS} FROM chat_outbox ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = await self._rows(
                f"SELECT {_COLUMNS} FROM chat_outbox WHERE state = ? ORDER BY id DESC LIMIT ?", (state, limit)
            )
        return [_effect(r) for r in rows]

    async def counts(self) -> dict[str, int]:
        rows = await self._rows("SELECT state, count(*) FROM chat_outbox GROUP BY state")
        return {str(r[0]): int(r[1]) for r in rows}


async def _end(conn: Connection, effect: int, ending: Ending, now: datetime) -> None:
    """The effect is sent (or failed, with the error), and the members its call pinged are recorded."""
    error = ending.error[:2000] if ending.error else None
    await conn.execute(
        "UPDATE chat_outbox SET state = ?, attempts = attempts + 1, done_at = ?, last_error = ?, leased_until = NULL"
        " WHERE id = ? AND state = 'pending'",
        (ending.state, now_text(now), error, effect),
    )
    if ending.kept is not None:  # a secret it carried (a link code) is not kept once it is delivered
        await conn.execute(
            "UPDATE chat_outbox SET payload = ? WHERE id = ?",
            (json.dumps(ending.kept, ensure_ascii=False, sort_keys=True), effect),
        )
    if ending.pings and ending.call is not None:
        await conn.executemany(
            "INSERT OR IGNORE INTO call_pings (call, member, at) VALUES (?, ?, ?)",
            [(ending.call, m, now_text(now)) for m in ending.pings],
        )
