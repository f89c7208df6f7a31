"""The one shape of every outbox: `outbox` (the commands to the game server, `storage.outbox`) and `chat_outbox`
(the chat effects of the desk's decisions, `storage.chat_outbox`) are both an `OutboxTable`. The worker that
drives one is `bot.outbox_engine`.

A row is written with the decision that asks for it and lives in a queue (``game:N``, ``call:N``, ``member:N``
…). It is ``pending`` until it ends: ``sent``; ``failed`` (the other side refused it, and called the refusal
final); ``dead`` (it kept failing in a way that may heal, past the configured bound); or ``skipped`` (an operator
gave it up with a reason, `sudija outbox --skip`, or a newer row of its queue made it moot). An operator may send
a failed or dead row again (`sudija outbox --retry`): it is pending once more, its tries counted afresh. Who
resolved a row last, when and why stay on it (`resolved_by`, `resolved_at`, `reason`).

Order: a queue's rows are acted on in the order written. A row waits while an earlier row of its queue waits for
a retry (`next_at`) or is leased; an ended row holds nothing, except that a table may name rows that wait behind
an earlier failed or dead one (`held`: the game server's ``resume_table`` behind a table's paper that did not
arrive). Leases: a process acts on a row only after leasing it (a conditional update naming the process,
`Database.lease_holder`), so with several bot processes on one database exactly one acts on each; the lease of a
process that is gone runs out, or is released by the next bot to start or by a worker that finds it
(`release_dead`, `leased_elsewhere`).

Bookkeeping writes (a lease, a retry's time) are not synced (`durable=False`): lost to a power cut they are only
taken again. The end of a row and what it tells the officers (`told`, chat effects) are one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from storage.database import dead_leases, now_text, parse_stored_time
from storage.states import OutboxState

if TYPE_CHECKING:
    from storage.chat_outbox import NewEffect
    from storage.database import Database
    from storage.sql import Connection

Row = TypeVar("Row")
ERROR_LENGTH = 2000  # the longest error text a row keeps


@dataclass(frozen=True, slots=True)
class Resolution:
    """Who resolved a row last, when and why (`sudija outbox --retry` / `--skip`)."""

    by: str
    at: datetime
    reason: str | None


class OutboxTable(Generic[Row]):
    """One outbox table: its rows read as `Row` (`columns`, parsed by `parse`), in queues, leased, retried, ended
    and resolved. `held`, when given, is an SQL condition on a row of the table (named by the table's name) that
    makes a pending row wait although it is due."""

    def __init__(
        self,
        db: Database,
        table: str,
        columns: str,
        parse: Callable[[Any], Row],
        held: str | None = None,
    ) -> None:
        self.db = db
        self.table = table
        self.columns = columns
        self.parse = parse
        self.held = held

    async def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        async with self.db.connection.execute(sql, params) as cur:
            return list(await cur.fetchall())

    def _not_held(self) -> str:
        return f" AND NOT ({self.held})" if self.held else ""

    # Acting on the rows ---------------------------------------------------------------------------------------
    async def due(self, now: datetime, limit: int = 200, *, queue: str | None = None) -> list[Row]:
        """Every pending row that is due (its retry time, if any, has come), not leased, not held, and not behind
        a row of its queue that waits for its retry or is leased, oldest first: act on them in this order, a queue
        stopping at its first row that does not end. `queue`: that queue's only."""
        t, at = self.table, now_text(now)
        one = f" AND {t}.queue = ?" if queue is not None else ""
        rows = await self._rows(
            f"SELECT {self.columns} FROM {t} WHERE state = 'pending' AND (next_at IS NULL OR next_at <= ?)"
            f" AND (leased_until IS NULL OR leased_until <= ?){one}"
            f" AND NOT EXISTS (SELECT 1 FROM {t} AS e WHERE e.queue = {t}.queue AND e.state = 'pending'"
            f" AND e.id < {t}.id AND (e.next_at > ? OR e.leased_until > ?)){self._not_held()}"
            " ORDER BY id LIMIT ?",
            (at, at, *((queue,) if queue is not None else ()), at, at, limit),
        )
        return [self.parse(r) for r in rows]

    async def lease(self, row: int, now: datetime, until: datetime) -> bool:
        """Take the row to act on it until `until`: False when another process holds an unexpired lease on it, it
        ended meanwhile, or it is held now (a row before it in its queue just failed or died)."""
        async with self.db.transaction(durable=False) as conn:
            return await self.lease_in(conn, row, now, until)

    async def lease_in(self, conn: Connection, row: int, now: datetime, until: datetime) -> bool:
        """`lease` inside the caller's transaction (which may write what acting on the row begins with)."""
        cur = await conn.execute(
            f"UPDATE {self.table} SET leased_until = ?, leased_by = ? WHERE id = ? AND state = 'pending'"
            f" AND (leased_until IS NULL OR leased_until <= ?){self._not_held()}",
            (now_text(until), self.db.lease_holder, row, now_text(now)),
        )
        return cur.rowcount == 1

    async def release(self, rows: Sequence[int]) -> None:
        """Give up the leases of rows this process did not finish acting on (it failed on the way)."""
        if rows:
            marks = ", ".join("?" * len(rows))
            async with self.db.transaction(durable=False) as conn:
                await conn.execute(
                    f"UPDATE {self.table} SET leased_until = NULL, leased_by = NULL WHERE id IN ({marks})", tuple(rows)
                )

    async def release_dead(self) -> int:
        """The leases of processes that are gone (a bot starting or taking over the gateway; on SQLite, where one
        process serves the file, every lease left): released, so their rows are acted on again at once; how many."""
        if not await self._rows(f"SELECT 1 FROM {self.table} WHERE leased_until IS NOT NULL LIMIT 1"):
            return 0  # the usual start: nothing to write
        where, alive = dead_leases(await self.db.live_holders())
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(
                f"UPDATE {self.table} SET leased_until = NULL, leased_by = NULL WHERE {where}", alive
            )
            return max(0, int(cur.rowcount))

    async def leased_elsewhere(self) -> bool:
        """Whether a pending row is leased by another process while several may serve the database (PostgreSQL):
        its holder may be gone without the release at a start or a takeover having seen it go (a killed process's
        connections close one after another), so the worker asks again (`release_dead`) rather than wait for the
        lease to run out. False on SQLite, where one process serves the file and every lease left is released at
        its start."""
        if self.db.dialect != "postgresql":
            return False
        rows = await self._rows(
            f"SELECT 1 FROM {self.table} WHERE state = 'pending' AND leased_until IS NOT NULL"
            " AND (leased_by IS NULL OR leased_by <> ?) LIMIT 1",
            (self.db.lease_holder,),
        )
        return bool(rows)

    async def next_wake(self) -> datetime | None:
        """When the earliest queue head falls due: its retry time, or when another process's lease on it runs out
        (None: no head waits for a time)."""
        t = self.table
        rows = await self._rows(
            "SELECT min(CASE WHEN next_at IS NULL THEN leased_until WHEN leased_until > next_at THEN leased_until"
            f" ELSE next_at END) FROM {t} WHERE id IN (SELECT min(id) FROM {t} WHERE state = 'pending'"
            f"{self._not_held()} GROUP BY queue)"
        )
        value = rows[0][0] if rows else None
        return parse_stored_time(value) if value else None

    async def due_now(self, error_like: str, now: datetime) -> int:
        """The pending rows waiting for a retry after an error like `error_like` (an SQL LIKE pattern) are due now
        (what refused them is mended: the permission is back); how many."""
        async with self.db.transaction(durable=False) as conn:
            cur = await conn.execute(
                f"UPDATE {self.table} SET next_at = ? WHERE state = 'pending' AND last_error LIKE ? AND next_at > ?",
                (now_text(now), error_like, now_text(now)),
            )
            return int(cur.rowcount or 0)

    async def retry_at(self, row: int, error: str, at: datetime, now: datetime) -> None:
        """Not delivered, in a way that may heal: tried again at `at` (its first such failure dates its age)."""
        async with self.db.transaction(durable=False) as conn:
            await conn.execute(
                f"UPDATE {self.table} SET attempts = attempts + 1, next_at = ?, last_error = ?, leased_until = NULL,"
                " failing_since = coalesce(failing_since, ?) WHERE id = ? AND state = 'pending'",
                (now_text(at), error[:ERROR_LENGTH], now_text(now), row),
            )

    async def end_in(
        self,
        conn: Connection,
        row: int,
        state: OutboxState,
        error: str | None,
        now: datetime,
        told: Sequence[NewEffect] = (),
    ) -> bool:
        """End a pending row inside the caller's transaction: sent, failed or dead (with its error), and the chat
        effects that tell of it written with it; False when it had ended already (an operator skipped it)."""
        cur = await conn.execute(
            f"UPDATE {self.table} SET state = ?, attempts = attempts + 1, done_at = ?, last_error = ?,"
            " leased_until = NULL WHERE id = ? AND state = 'pending'",
            (state, now_text(now), error[:ERROR_LENGTH] if error else None, row),
        )
        if cur.rowcount != 1:
            return False
        if told:
            from storage.chat_outbox import add_effects  # noqa: PLC0415 (the chat outbox is an OutboxTable too)

            await add_effects(conn, told, now)
        return True

    async def keep_payload(self, conn: Connection, row: int, payload: dict[str, Any]) -> None:
        """What an ended row keeps of its payload (a secret it carried, a link code, is forgotten)."""
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        await conn.execute(f"UPDATE {self.table} SET payload = ? WHERE id = ?", (text, row))

    # An operator's resolution (`sudija outbox --retry` / `--skip`) ----------------------------------------------
    async def retry(self, row: int, by: str, now: datetime, reason: str | None = None) -> OutboxState | None:
        """Send a failed or dead row again: pending, due at once whatever the clock of the process that acts on it,
        its tries counted afresh; the state it was in (it changed only if that was failed or dead), None when there
        is no such row."""
        async with self.db.transaction() as conn:
            before = await self._state(conn, row)
            if before in (OutboxState.FAILED, OutboxState.DEAD):
                await conn.execute(
                    f"UPDATE {self.table} SET state = 'pending', attempts = 0, next_at = NULL, failing_since = NULL,"
                    " done_at = NULL, leased_until = NULL, leased_by = NULL, resolved_by = ?, resolved_at = ?,"
                    " reason = ? WHERE id = ?",
                    (by, now_text(now), reason, row),
                )
                await self.retried(conn, row)
            return before

    async def retried(self, conn: Connection, row: int) -> None:
        """What else a row sent again forgets (a table's own bookkeeping), inside `retry`'s transaction."""

    async def skip(self, row: int, by: str, reason: str, now: datetime) -> OutboxState | None:
        """Give a row up for good, with who and why: one still pending (waiting, held), failed or dead. The state
        it was in (it changed only if that was one of those), None when there is no such row."""
        async with self.db.transaction() as conn:
            before = await self._state(conn, row)
            if before in (OutboxState.PENDING, OutboxState.FAILED, OutboxState.DEAD):
                await conn.execute(
                    f"UPDATE {self.table} SET state = 'skipped', done_at = coalesce(done_at, ?), leased_until = NULL,"
                    " resolved_by = ?, resolved_at = ?, reason = ? WHERE id = ?",
                    (now_text(now), by, now_text(now), reason, row),
                )
            return before

    async def _state(self, conn: Connection, row: int) -> OutboxState | None:
        async with conn.execute(f"SELECT state FROM {self.table} WHERE id = ?", (row,)) as cur:
            found = await cur.fetchone()
        return OutboxState(str(found[0])) if found is not None else None

    # Reading --------------------------------------------------------------------------------------------------
    async def get(self, row: int) -> Row | None:
        rows = await self._rows(f"SELECT {self.columns} FROM {self.table} WHERE id = ?", (row,))
        return self.parse(rows[0]) if rows else None

    async def listing(self, state: OutboxState | None = None, limit: int = 200) -> list[Row]:
        """Rows newest first, optionally only those in `state`."""
        if state is None:
            rows = await self._rows(f"SELECT {self.columns} FROM {self.table} ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = await self._rows(
                f"SELECT {self.columns} FROM {self.table} WHERE state = ? ORDER BY id DESC LIMIT ?", (state, limit)
            )
        return [self.parse(r) for r in rows]

    async def counts(self) -> dict[str, int]:
        rows = await self._rows(f"SELECT state, count(*) FROM {self.table} GROUP BY state")
        return {str(r[0]): int(r[1]) for r in rows}

    async def held_rows(self) -> dict[int, int]:
        """Each pending row that waits behind an earlier failed or dead one of its queue, with that row's id."""
        if not self.held:
            return {}
        t = self.table
        rows = await self._rows(
            f"SELECT id, (SELECT max(b.id) FROM {t} AS b WHERE b.queue = {t}.queue AND b.id < {t}.id"
            f" AND b.state IN ('failed', 'dead')) FROM {t} WHERE state = 'pending' AND ({self.held})"
        )
        return {int(r[0]): int(r[1]) for r in rows if r[1] is not None}


def resolution(row: Any, at: int) -> Resolution | None:
    """The resolution of a stored row whose `resolved_by`, `resolved_at`, `reason` begin at column `at`."""
    by, when, reason = row[at], row[at + 1], row[at + 2]
    return Resolution(str(by), parse_stored_time(when), reason) if by is not None and when else None


@dataclass(frozen=True, slots=True)
class OutboxCount:
    """How many rows of an outbox are in a state, per platform: ``gameserver`` for the commands to the game
    server; for a chat effect, each platform whose part of it is recorded (a part done counts as ``sent`` for
    that platform, whatever the effect's state), or ``-`` for an effect no platform has begun."""

    outbox: str  # "chat" or "gameserver"
    platform: str
    state: OutboxState
    count: int


async def outbox_counts(db: Database) -> list[OutboxCount]:
    """The outboxes' rows counted by state and platform (what a metrics endpoint reads): one query each."""
    counted: list[OutboxCount] = []
    async with db.connection.execute("SELECT state, count(*) FROM outbox GROUP BY state") as cur:
        counted += [
            OutboxCount("gameserver", "gameserver", OutboxState(str(s)), int(n)) for s, n in await cur.fetchall()
        ]
    async with db.connection.execute(
        "SELECT coalesce(d.platform, '-') AS platform, CASE WHEN d.state = 'done' THEN 'sent' ELSE o.state END"
        " AS state, count(*) FROM chat_outbox AS o LEFT JOIN chat_deliveries AS d ON d.effect = o.id"
        " GROUP BY coalesce(d.platform, '-'), CASE WHEN d.state = 'done' THEN 'sent' ELSE o.state END"
    ) as cur:
        counted += [OutboxCount("chat", str(p), OutboxState(str(s)), int(n)) for p, s, n in await cur.fetchall()]
    return sorted(counted, key=lambda c: (c.outbox, c.platform, c.state))
