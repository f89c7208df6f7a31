"""Calls for a referee and for a councilor: creation under the one-pending rules, the atomic take, expiry,
who was pinged, and every copy of a call's message (so each copy can be edited when the call ends)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from rules.notices import Notice
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.errors import Conflict
from storage.events import EventStore
from storage.states import CallState, CouncilorCallState

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection


@dataclass(frozen=True, slots=True)
class Call:
    id: int
    game: int
    caller: int
    in_game: bool
    created_at: datetime
    deadline: datetime
    state: CallState
    referee: int | None
    closed_at: datetime | None


@dataclass(frozen=True, slots=True)
class CouncilorCall:
    id: int
    trial: int
    created_at: datetime
    deadline: datetime
    state: CouncilorCallState
    councilor: int | None
    closed_at: datetime | None


@dataclass(frozen=True, slots=True)
class InTheWay:
    """What stands in the way of a new call for a game by a member: the game's pending call, whether the game's
    trial is open, and the member's own pending call (`CallStore.in_the_way`)."""

    game_call: Call | None
    trial_open: bool
    callers_call: Call | None


class AlreadyPending(Exception):
    """A unique index refused the call: a call for the game, or by the caller, is already pending."""


def _t(text: object) -> datetime | None:
    return parse_stored_time(str(text)) if text else None


def _call(row: tuple[object, ...]) -> Call:
    created, deadline = _t(row[4]), _t(row[5])
    assert created is not None
    assert deadline is not None
    return Call(
        int(str(row[0])),
        int(str(row[1])),
        int(str(row[2])),
        bool(row[3]),
        created,
        deadline,
        CallState(str(row[6])),
        int(str(row[7])) if row[7] is not None else None,
        _t(row[8]),
    )


def _councilor_call(row: tuple[object, ...]) -> CouncilorCall:
    created, deadline = _t(row[2]), _t(row[3])
    assert created is not None
    assert deadline is not None
    return CouncilorCall(
        int(str(row[0])),
        int(str(row[1])),
        created,
        deadline,
        CouncilorCallState(str(row[4])),
        int(str(row[5])) if row[5] is not None else None,
        _t(row[6]),
    )


async def _still_pending(conn: Connection, table: str, call_id: int) -> bool:
    """Inside a write transaction: whether the call (of `table`: calls or councilor_calls) is still pending."""
    cur = await conn.execute(f"SELECT 1 FROM {table} WHERE id = ? AND state = 'pending'", (call_id,))
    return await cur.fetchone() is not None


_CALL = "SELECT id, game, caller, in_game, created_at, deadline, state, referee, closed_at FROM calls "
_CCALL = "SELECT id, trial, created_at, deadline, state, councilor, closed_at FROM councilor_calls "


class CallStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, call_id: int) -> Call | None:
        rows = await self._calls("WHERE id = ?", (call_id,))
        return rows[0] if rows else None

    async def pending(self) -> list[Call]:
        return await self._calls("WHERE state = 'pending' ORDER BY deadline", ())

    async def pending_for_game(self, game: int) -> Call | None:
        rows = await self._calls("WHERE state = 'pending' AND game = ?", (game,))
        return rows[0] if rows else None

    async def pending_by_caller(self, member: int) -> Call | None:
        rows = await self._calls("WHERE state = 'pending' AND caller = ?", (member,))
        return rows[0] if rows else None

    async def in_the_way(self, game: int, caller: int) -> InTheWay:
        """`pending_for_game`, `TrialStore.open_for_game` and `pending_by_caller` in one statement (a call's checks
        before its transaction; its insert checks the trial again, under the write lock)."""
        rows = list(
            await self.db.connection.execute_fetchall(
                _CALL
                + "WHERE state = 'pending' AND (game = ? OR caller = ?) UNION ALL SELECT id, game, caller, in_game,"
                " opened_at, opened_at, 'trial', referee, NULL FROM trials WHERE outcome = 'open' AND game = ?",
                (game, caller, game),
            )
        )
        calls = [_call(tuple(r)) for r in rows if r[6] != "trial"]
        return InTheWay(
            next((c for c in calls if c.game == game), None),
            len(calls) < len(rows),
            next((c for c in calls if c.caller == caller), None),
        )

    async def for_game(self, game: int) -> list[Call]:
        return await self._calls("WHERE game = ? ORDER BY id", (game,))

    async def _calls(self, tail: str, params: tuple[object, ...]) -> list[Call]:
        rows = await self.db.connection.execute_fetchall(_CALL + tail, params)
        return [_call(tuple(r)) for r in rows]

    async def create(
        self,
        game: int,
        caller: int,
        in_game: bool,
        now: datetime,
        deadline: datetime,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
    ) -> Call:
        """Open a call; `effects` (given the new call's id) are written in the same transaction. `AlreadyPending`
        when the game has a pending call or an open trial, or the caller a pending call (nothing written)."""
        created, due = now_text(now), now_text(deadline)
        try:
            async with self.db.transaction() as conn:
                # Not while the game's trial is open: checked by the insert itself, under the write lock.
                cur = await conn.execute(
                    "INSERT INTO calls (game, caller, in_game, created_at, deadline) SELECT ?, ?, ?, ?, ?"
                    " WHERE NOT EXISTS (SELECT 1 FROM trials WHERE game = ? AND outcome = 'open')",
                    (game, caller, in_game, created, due, game),
                )
                if cur.rowcount != 1:
                    raise AlreadyPending("trial")
                call_id = int(cur.lastrowid or 0)
                await EventStore.add(conn, now, "call_created", caller, f"call:{call_id}", game=game)
                if effects is not None:
                    await add_effects(conn, effects(call_id), now)
        except Conflict as exc:
            raise AlreadyPending(str(exc)) from None
        # As `get` would read it back: its times as stored.
        stored = parse_stored_time
        return Call(call_id, game, caller, in_game, stored(created), stored(due), CallState.PENDING, None, None)

    async def close(
        self,
        call_id: int,
        state: Literal[CallState.WITHDRAWN, CallState.EXPIRED],
        now: datetime,
        actor: int | None,
        effects: Sequence[NewEffect] = (),
    ) -> bool:
        """Withdraw or expire a pending call, with its `effects` in the same transaction; False when it was no
        longer pending (idempotent: nothing written then). An expired call ended at its deadline, however late
        the bot acts: its end and its event are recorded then (decisions.md, "Calls")."""
        async with self.db.transaction() as conn:
            row = await (await conn.execute("SELECT deadline FROM calls WHERE id = ?", (call_id,))).fetchone()
            ended = now
            if state is CallState.EXPIRED and row is not None:
                ended = min(now, parse_stored_time(str(row[0])))
            cur = await conn.execute(
                "UPDATE calls SET state = ?, closed_at = ? WHERE id = ? AND state = 'pending'",
                (state, now_text(ended), call_id),
            )
            if cur.rowcount:
                await EventStore.add(conn, ended, f"call_{state}", actor, f"call:{call_id}")
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def add_ping(self, call_id: int, member: int, now: datetime, effects: Sequence[NewEffect] = ()) -> bool:
        """Remember that `member` was notified of the call, with the `effects` that notify him (his offered copy)
        in the same transaction; False (and nothing written) when he already was, or when the call with effects
        to write is no longer pending (its end's edits, written before, would never reach a copy posted after)."""
        async with self.db.transaction(durable=bool(effects)) as conn:
            if effects and not await _still_pending(conn, "calls", call_id):
                return False
            cur = await conn.execute(
                "INSERT OR IGNORE INTO call_pings (call, member, at) VALUES (?, ?, ?)", (call_id, member, now_text(now))
            )
            if cur.rowcount > 0:
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def add_councilor_ping(
        self, ccall_id: int, member: int, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """Remember that `member` was told of the councilor call, with the `effects` that tell him, in the same
        transaction; False (and nothing written) when he already was, or the call with effects is no longer
        pending."""
        async with self.db.transaction(durable=bool(effects)) as conn:
            if effects and not await _still_pending(conn, "councilor_calls", ccall_id):
                return False
            cur = await conn.execute(
                "INSERT OR IGNORE INTO councilor_pings (ccall, member, at) VALUES (?, ?, ?)",
                (ccall_id, member, now_text(now)),
            )
            if cur.rowcount > 0:
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def pinged(self, call_id: int) -> set[int]:
        async with self.db.connection.execute("SELECT member FROM call_pings WHERE call = ?", (call_id,)) as cur:
            return {int(r[0]) for r in await cur.fetchall()}

    async def add_notice(self, subject: str, notice: Notice) -> None:
        async with self.db.transaction(durable=False) as conn:
            await conn.execute(
                "INSERT INTO notices (subject, platform, place, message) VALUES (?, ?, ?, ?)",
                (subject, notice.platform, notice.place, notice.message),
            )

    async def notices(self, subject: str) -> list[Notice]:
        async with self.db.connection.execute(
            "SELECT platform, place, message FROM notices WHERE subject = ? ORDER BY id", (subject,)
        ) as cur:
            return [Notice(str(p), str(pl), str(m)) for p, pl, m in await cur.fetchall()]

    # Councilor calls -------------------------------------------------------------------------------------
    async def councilor_call(self, ccall_id: int) -> CouncilorCall | None:
        async with self.db.connection.execute(_CCALL + "WHERE id = ?", (ccall_id,)) as cur:
            row = await cur.fetchone()
        return _councilor_call(tuple(row)) if row else None

    async def councilor_calls_for(self, trial: int) -> list[CouncilorCall]:
        async with self.db.connection.execute(_CCALL + "WHERE trial = ? ORDER BY id", (trial,)) as cur:
            return [_councilor_call(tuple(r)) for r in await cur.fetchall()]

    async def pending_councilor_calls(self) -> list[CouncilorCall]:
        async with self.db.connection.execute(_CCALL + "WHERE state = 'pending' ORDER BY deadline") as cur:
            return [_councilor_call(tuple(r)) for r in await cur.fetchall()]

    async def create_councilor_call(
        self,
        trial: int,
        now: datetime,
        deadline: datetime,
        actor: int,
        pinged: Sequence[int] = (),
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
    ) -> CouncilorCall:
        """Open a councilor call; the councilors its notice reaches (`pinged`) and its `effects` (given the new
        call's id) are written in the same transaction."""
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "INSERT INTO councilor_calls (trial, created_at, deadline) VALUES (?, ?, ?)",
                    (trial, now_text(now), now_text(deadline)),
                )
                ccall_id = int(cur.lastrowid or 0)
                await EventStore.add(conn, now, "councilor_called", actor, f"trial:{trial}")
                await conn.executemany(
                    "INSERT OR IGNORE INTO councilor_pings (ccall, member, at) VALUES (?, ?, ?)",
                    [(ccall_id, member, now_text(now)) for member in pinged],
                )
                if effects is not None:
                    await add_effects(conn, effects(ccall_id), now)
        except Conflict:
            raise AlreadyPending("councilor") from None
        found = await self.councilor_call(ccall_id)
        assert found is not None
        return found

    async def close_councilor_call(
        self,
        ccall_id: int,
        state: Literal[CouncilorCallState.EXPIRED, CouncilorCallState.CANCELLED],
        now: datetime,
        effects: Sequence[NewEffect] = (),
    ) -> bool:
        """Expire (or cancel) a pending councilor call, with its `effects` in the same transaction; False when it
        was no longer pending (nothing written then). An expired one ended at its deadline, however late the bot
        acts."""
        async with self.db.transaction() as conn:
            row = await (
                await conn.execute("SELECT deadline FROM councilor_calls WHERE id = ?", (ccall_id,))
            ).fetchone()
            ended = now
            if state is CouncilorCallState.EXPIRED and row is not None:
                ended = min(now, parse_stored_time(str(row[0])))
            cur = await conn.execute(
                "UPDATE councilor_calls SET state = ?, closed_at = ? WHERE id = ? AND state = 'pending'",
                (state, now_text(ended), ccall_id),
            )
            if cur.rowcount:
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def take_councilor_call(
        self, ccall_id: int, councilor: int, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """The first councilor to answer joins, with the win's `effects` in the same transaction; exactly one
        wins."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE councilor_calls SET state = 'taken', councilor = ?, closed_at = ?"
                " WHERE id = ? AND state = 'pending'",
                (councilor, now_text(now), ccall_id),
            )
            if not cur.rowcount:
                return False
            row = await (await conn.execute("SELECT trial FROM councilor_calls WHERE id = ?", (ccall_id,))).fetchone()
            assert row is not None
            await conn.execute(
                "INSERT OR IGNORE INTO trial_participants (trial, member, role, joined_at) VALUES (?, ?, ?, ?)",
                (row[0], councilor, "councilor", now_text(now)),
            )
            await EventStore.add(conn, now, "councilor_joined", councilor, f"trial:{row[0]}")
            await add_effects(conn, effects, now)
            return True
