"""The chat outbox: every chat effect of a decision is a row written in the decision's own transaction, delivered
later (at once, normally) by the worker in `bot.chat_outbox`, never lost to a crash between the two. It is an
`OutboxTable` (storage/outbox_engine.py: queues, leases, retries, dead letters).

Effects of one queue (a call and its trial: ``call:N``) are delivered in the order they were written. Each
platform's part of an effect is bookkept in `chat_deliveries`: ``started`` before the platform is asked, ``done``
(with the messages it created, in the same transaction) after, ``failed`` when the platform refused it for good
or the effect was given up, so a repeated delivery skips what is done and knows what may have been shown already.
An effect refused for good (``failed``) or given up (``dead``) keeps its error, for an officer to see; its queue
then goes on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules.notices import Notice
from storage.database import now_text, parse_stored_time
from storage.outbox_engine import OutboxTable, Resolution, resolution
from storage.sql import insert_rows
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
    failing_since: datetime | None = None
    resolution: Resolution | None = None


_COLUMNS = (
    "id, queue, kind, payload, created_at, state, attempts, next_at, last_error, done_at,"
    " (SELECT group_concat(platform || ' ' || state, char(10)) FROM chat_deliveries WHERE effect = chat_outbox.id),"
    " failing_since, resolved_by, resolved_at, reason"
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
        parse_stored_time(row[11]) if row[11] else None,
        resolution(row, 12),
    )


@dataclass(frozen=True, slots=True)
class Ending:
    """How an effect ends: sent, failed or dead, the members its call pinged, and the platforms whose part is
    recorded as failed with it (those not done when it was given up)."""

    state: OutboxState
    error: str | None = None
    pings: Sequence[int] = ()
    call: int | None = None  # the call the pings are of
    kept: dict[str, Any] | None = None  # what the row keeps of its payload once ended (None: all of it)
    failed: Sequence[str] = ()


async def add_effects(conn: Connection, effects: Sequence[NewEffect], now: datetime) -> None:
    """Write effects inside the caller's (the decision's) transaction, in one statement (in their order: their
    ids follow it)."""
    await insert_rows(
        conn,
        "INSERT INTO chat_outbox (queue, kind, payload, created_at) VALUES {rows}",
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


class ChatOutboxStore(OutboxTable[Effect]):
    def __init__(self, db: Database) -> None:
        super().__init__(db, "chat_outbox", _COLUMNS, _effect)

    async def waiting(self, queue: str, kind: str) -> list[tuple[dict[str, Any], str | None]]:
        """The effects of `kind` in `queue` not delivered yet (pending, or waiting for a retry), oldest first: each
        one's payload and the error it last met."""
        rows = await self._rows(
            "SELECT payload, last_error FROM chat_outbox"
            " WHERE queue = ? AND kind = ? AND state = 'pending' ORDER BY id",
            (queue, kind),
        )
        return [(json.loads(r[0]), r[1]) for r in rows]

    async def enqueue(self, effects: Sequence[NewEffect], now: datetime) -> None:
        """Effects of no other decision (or of one whose record is written elsewhere), in a transaction of their
        own."""
        async with self.db.transaction() as conn:
            await add_effects(conn, effects, now)

    async def deliveries(self, effect: int) -> dict[str, DeliveryState]:
        """Each platform's part of the effect so far."""
        rows = await self._rows("SELECT platform, state FROM chat_deliveries WHERE effect = ?", (effect,))
        return {str(p): DeliveryState(str(s)) for p, s in rows}

    async def lease(self, row: int, now: datetime, until: datetime, starting: Sequence[str] = ()) -> bool:
        """`OutboxTable.lease`, and the platforms about to be asked (`starting`) marked ``started`` in the same
        transaction when the lease is taken: a crash from here on makes the next delivery to them a repeat."""
        async with self.db.transaction(durable=False) as conn:
            if not await self.lease_in(conn, row, now, until):
                return False
            await insert_rows(
                conn,
                "INSERT OR IGNORE INTO chat_deliveries (effect, platform, state, at) VALUES {rows}",
                [(row, platform, now_text(now)) for platform in starting],
                "(?, ?, 'started', ?)",
            )
            return True

    async def done(
        self,
        effect: int,
        platform: str,
        now: datetime,
        notices: tuple[str, Sequence[Notice]] | None = None,
        state: DeliveryState = DeliveryState.DONE,
        end: Ending | None = None,
    ) -> None:
        """The platform's part is over; what it created (a call's notices, under their subject) is kept in the
        same transaction, so a repeat finds it and edits rather than posts again. `end`: the effect ends with it
        (its last platform's part), in the same transaction too, as `end` ends it."""
        async with self.db.transaction(durable=end is not None and end.state is not OutboxState.SENT) as conn:
            await _done_in(conn, effect, platform, notices, now, state)
            if end is not None:
                await self._end_in(conn, effect, end, now, ())

    async def end(self, effect: int, ending: Ending, now: datetime, told: Sequence[NewEffect] = ()) -> None:
        """The effect ends — sent, refused for good or given up (each platform not done then `failed`) — with the
        members its call pinged, and the chat effects that tell the officials of it (`told`), in one transaction."""
        async with self.db.transaction(durable=ending.state is not OutboxState.SENT) as conn:
            await self._end_in(conn, effect, ending, now, told)

    async def _end_in(
        self, conn: Connection, effect: int, ending: Ending, now: datetime, told: Sequence[NewEffect]
    ) -> None:
        if not await self.end_in(conn, effect, ending.state, ending.error, now, told):
            return
        for platform in ending.failed:
            await _part(conn, effect, platform, DeliveryState.FAILED, now)
        if ending.kept is not None:  # a secret it carried (a link code) is not kept once it is delivered
            await self.keep_payload(conn, effect, ending.kept)
        if ending.pings and ending.call is not None:  # every referee pinged: one statement
            await insert_rows(
                conn,
                "INSERT OR IGNORE INTO call_pings (call, member, at) VALUES {rows}",
                [(ending.call, m, now_text(now)) for m in ending.pings],
            )

    async def retried(self, conn: Connection, row: int) -> None:
        """An effect sent again is asked of the platforms that failed it (those done keep what they did)."""
        await conn.execute("DELETE FROM chat_deliveries WHERE effect = ? AND state = 'failed'", (row,))


async def _done_in(
    conn: Connection,
    effect: int,
    platform: str,
    notices: tuple[str, Sequence[Notice]] | None,
    now: datetime,
    state: DeliveryState = DeliveryState.DONE,
) -> None:
    if notices is not None:
        subject, created = notices
        await insert_rows(
            conn,
            "INSERT INTO notices (subject, platform, place, message) VALUES {rows}",
            [(subject, n.platform, n.place, n.message) for n in created],
        )
    await _part(conn, effect, platform, state, now)


async def _part(conn: Connection, effect: int, platform: str, state: DeliveryState, now: datetime) -> None:
    await conn.execute(
        "INSERT INTO chat_deliveries (effect, platform, state, at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (effect, platform) DO UPDATE SET state = excluded.state, at = excluded.at",
        (effect, platform, state, now_text(now)),
    )
