"""The players' corrections without a referee: requests that wait for an answer and the paper changes they write.

A request is an Arbitar offered by the fallen defender (the other defender answers) or an Ispravka proposed by
the player who fell (the other two answer); it stays ``pending`` until it is applied, decided (the Arbitar), refused,
replaced by a newer proposal, withdrawn or lapsed. The paper changes themselves are rows of ``paper_changes``
written with `storage.changes.add_change`, so the paper reads them like every other change. Each write here is
one transaction that also records its events, and checks that the game's standing changes are still the ones the
desk validated against (`StaleChanges` otherwise), so two acts on one paper can never both pass a limit that only
one of them may pass. A change the Arbitar imposed (``data.arbitar``) or a referee recorded (``trial``) can never be
cancelled here. What an act tells the players (chat outbox rows, `storage.chat_outbox`) is written in the act's
own transaction, and so are the lapses of the requests the act leaves nothing to decide (`Lapse`), their words
first, as the players heard them before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules.paper import ChangeKind
from storage.changes import NewPaperChange, add_change, cancel_change
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.sql import Connection
from storage.states import CorrectionAnswer, CorrectionKind, RequestState

if TYPE_CHECKING:
    from storage.database import Database


class StaleChanges(RuntimeError):
    """The game's standing paper changes are no longer those the caller checked against; check again."""


class NotPending(RuntimeError):
    """The request is no longer pending (somebody else answered, withdrew or settled it first)."""


class AlreadyPending(RuntimeError):
    """A request of that kind is already pending for that hand."""


@dataclass(frozen=True, slots=True)
class Answer:
    seat: int
    member: int | None
    answer: CorrectionAnswer | None  # None while unanswered
    at: datetime | None


@dataclass(frozen=True, slots=True)
class CorrectionRequest:
    id: int
    game: int
    hand: int
    kind: CorrectionKind
    by_member: int
    seat: int  # the proposer's seat: the player who fell
    reason: str
    replaces: int | None
    created_at: datetime
    state: RequestState
    closed_at: datetime | None
    closed_by: int | None
    change: int | None
    verdict: dict[str, Any] | None
    note: str
    answers: tuple[Answer, ...]

    @property
    def pending(self) -> bool:
        return self.state is RequestState.PENDING

    @property
    def waiting(self) -> tuple[int, ...]:
        """Seats still to answer."""
        return tuple(a.seat for a in self.answers if a.answer is None)

    @property
    def agreed(self) -> bool:
        return all(a.answer is CorrectionAnswer.YES for a in self.answers)

    @property
    def declined(self) -> bool:
        return any(a.answer is CorrectionAnswer.NO for a in self.answers)


@dataclass(frozen=True, slots=True)
class Lapse:
    """A pending request an act leaves nothing to decide (the fall it is about moved, or was corrected): lapsed
    in the act's transaction with `note`, its `effects` written only if it was still pending."""

    request: int
    note: str
    effects: Sequence[NewEffect] = ()


_COLUMNS = (
    "id, game, hand, kind, by_member, seat, reason, replaces, created_at, state, closed_at, closed_by,"
    " change, verdict, note"
)


def _time(value: object) -> datetime | None:
    return parse_stored_time(str(value)) if value else None


class CorrectionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # Reading ------------------------------------------------------------------------------------------------
    async def _requests(self, tail: str, params: tuple[object, ...]) -> list[CorrectionRequest]:
        conn = self.db.connection
        rows = await conn.execute_fetchall(f"SELECT {_COLUMNS} FROM correction_requests {tail}", params)
        out = []
        for r in rows:
            answers = await conn.execute_fetchall(
                "SELECT seat, member, answer, at FROM correction_answers WHERE request = ? ORDER BY seat", (r[0],)
            )
            out.append(
                CorrectionRequest(
                    int(r[0]),
                    int(r[1]),
                    int(r[2]),
                    CorrectionKind(str(r[3])),
                    int(r[4]),
                    int(r[5]),
                    str(r[6] or ""),
                    int(r[7]) if r[7] is not None else None,
                    parse_stored_time(str(r[8])),
                    RequestState(str(r[9])),
                    _time(r[10]),
                    int(r[11]) if r[11] is not None else None,
                    int(r[12]) if r[12] is not None else None,
                    json.loads(r[13]) if r[13] else None,
                    str(r[14] or ""),
                    tuple(
                        Answer(
                            int(a[0]),
                            int(a[1]) if a[1] is not None else None,
                            CorrectionAnswer(str(a[2])) if a[2] is not None else None,
                            _time(a[3]),
                        )
                        for a in answers
                    ),
                )
            )
        return out

    async def get(self, request_id: int) -> CorrectionRequest | None:
        found = await self._requests("WHERE id = ?", (request_id,))
        return found[0] if found else None

    async def for_game(self, game: int, hand: int | None = None) -> list[CorrectionRequest]:
        if hand is None:
            return await self._requests("WHERE game = ? ORDER BY id", (game,))
        return await self._requests("WHERE game = ? AND hand = ? ORDER BY id", (game, hand))

    async def pending(self, game: int, hand: int, kind: CorrectionKind) -> CorrectionRequest | None:
        found = await self._requests(
            "WHERE game = ? AND hand = ? AND kind = ? AND state = 'pending'", (game, hand, kind)
        )
        return found[0] if found else None

    async def awaiting(self, nick: str) -> list[CorrectionRequest]:
        """Pending requests in which the player `nick` (by his seat in that game) has still to answer."""
        return await self._requests(
            "WHERE state = 'pending' AND id IN (SELECT a.request FROM correction_answers a"
            " JOIN correction_requests r ON r.id = a.request"
            " JOIN game_players p ON p.game = r.game AND p.seat = a.seat"
            " WHERE a.answer IS NULL AND p.nick = ?) ORDER BY id",
            (nick,),
        )

    async def change_place(self, change_id: int) -> tuple[int, int, ChangeKind] | None:
        """(game, hand, kind) of a paper change, for a button that names only its id."""
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT game, hand, kind FROM paper_changes WHERE id = ?", (change_id,)
            )
        )
        return (int(rows[0][0]), int(rows[0][1]), ChangeKind(str(rows[0][2]))) if rows else None

    async def standing_ids(self, game: int) -> tuple[int, ...]:
        """The ids of the game's standing (not cancelled) paper changes: what a check was made against."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT id FROM paper_changes WHERE game = ? AND cancelled_at IS NULL ORDER BY id", (game,)
        )
        return tuple(int(r[0]) for r in rows)

    # Writing ------------------------------------------------------------------------------------------------
    @staticmethod
    async def _still(conn: Connection, game: int, expected: Sequence[int]) -> None:
        rows = await conn.execute_fetchall(
            "SELECT id FROM paper_changes WHERE game = ? AND cancelled_at IS NULL ORDER BY id", (game,)
        )
        if tuple(int(r[0]) for r in rows) != tuple(expected):
            raise StaleChanges(f"the paper of game {game} changed meanwhile")

    async def open(
        self,
        game: int,
        hand: int,
        kind: CorrectionKind,
        by: int,
        seat: int,
        asked: Sequence[int],
        reason: str,
        replaces: int | None,
        now: datetime,
        *,
        replace_pending: bool,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
    ) -> int:
        """A new request; `asked` are the seats that must answer. A pending request of the same kind for the hand
        is replaced (`replace_pending`) or makes this one fail with `AlreadyPending`. `effects` (given the new
        request's id) are written in the same transaction."""
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM correction_requests WHERE game = ? AND hand = ? AND kind = ? AND state = 'pending'",
                (game, hand, kind),
            )
            for (old,) in rows:
                if not replace_pending:
                    raise AlreadyPending(f"a {kind} request is pending for hand {hand} of game {game}")
                await conn.execute(
                    "UPDATE correction_requests SET state = 'replaced', closed_at = ?, closed_by = ? WHERE id = ?",
                    (now_text(now), by, old),
                )
                await EventStore.add(
                    conn, now, "correction_replaced", by, f"game:{game}", request=old, hand=hand, request_kind=kind
                )
            cur = await conn.execute(
                "INSERT INTO correction_requests (game, hand, kind, by_member, seat, reason, replaces, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game, hand, kind, by, seat, reason, replaces, now_text(now)),
            )
            request = int(cur.lastrowid or 0)
            for asked_seat in sorted(set(asked)):
                await conn.execute(
                    "INSERT INTO correction_answers (request, seat) VALUES (?, ?)", (request, asked_seat)
                )
            await EventStore.add(
                conn,
                now,
                f"{kind}_requested",
                by,
                f"game:{game}",
                request=request,
                hand=hand,
                seat=seat,
                asked=sorted(set(asked)),
                reason=reason,
                replaces=replaces,
            )
            if effects is not None:
                await add_effects(conn, effects(request), now)
            return request

    async def answer(
        self, request: int, seat: int, member: int | None, yes: bool, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """Record one seat's answer, with its `effects`; False (nothing written) when the request is no longer
        pending or that seat already answered."""
        async with self.db.transaction() as conn:
            if not await self._answered(conn, request, seat, member, yes, now):
                return False
            await add_effects(conn, effects, now)
            return True

    @staticmethod
    async def _answered(
        conn: Connection, request: int, seat: int, member: int | None, yes: bool, now: datetime
    ) -> bool:
        """One seat's answer and its event, inside a transaction; False when it cannot be recorded."""
        cur = await conn.execute(
            "UPDATE correction_answers SET member = ?, answer = ?, at = ? WHERE request = ? AND seat = ?"
            " AND answer IS NULL AND (SELECT state FROM correction_requests WHERE id = ?) = 'pending'",
            (member, CorrectionAnswer.YES if yes else CorrectionAnswer.NO, now_text(now), request, seat, request),
        )
        if not cur.rowcount:
            return False
        await EventStore.add(
            conn,
            now,
            "correction_answer",
            member,
            f"request:{request}",
            seat=seat,
            answer=CorrectionAnswer.YES if yes else CorrectionAnswer.NO,
        )
        return True

    async def settle(
        self,
        request: int,
        state: RequestState,
        now: datetime,
        by: int | None,
        *,
        game: int,
        expected: Sequence[int] | None = None,
        add: NewPaperChange | None = None,
        cancel: int | None = None,
        verdict: dict[str, Any] | None = None,
        note: str = "",
        effects: Sequence[NewEffect] = (),
        lapse: Sequence[Lapse] = (),
        refusal: tuple[int, int | None] | None = None,
    ) -> int | None:
        """Close a pending request as `state`, cancelling the standing change `cancel` and writing `add` (its id is
        returned), the requests it leaves nothing to decide (`lapse`) and its `effects`, in the same transaction;
        with `refusal` (seat, member), that seat's no, which refuses it, first. Raises `NotPending` (also when
        that seat answered already) or `StaleChanges` (nothing is written then)."""
        async with self.db.transaction() as conn:
            rows = list(await conn.execute_fetchall("SELECT state FROM correction_requests WHERE id = ?", (request,)))
            if not rows or rows[0][0] != RequestState.PENDING:
                raise NotPending(f"request {request} is not pending")
            if refusal is not None and not await self._answered(conn, request, *refusal, False, now):
                raise NotPending(f"seat {refusal[0]} answered request {request} already")
            if expected is not None:
                await self._still(conn, game, expected)
            if cancel is not None and not await cancel_change(conn, cancel, by, now):
                raise StaleChanges(f"change {cancel} can no longer be cancelled")
            change_id = None
            if add is not None:
                change_id = await add_change(conn, add)
            await conn.execute(
                "UPDATE correction_requests SET state = ?, closed_at = ?, closed_by = ?, change = ?, verdict = ?,"
                " note = ? WHERE id = ?",
                (
                    state,
                    now_text(now),
                    by,
                    change_id,
                    json.dumps(verdict, ensure_ascii=False, default=str) if verdict is not None else None,
                    note,
                    request,
                ),
            )
            await EventStore.add(
                conn,
                now,
                f"correction_{state}",
                by,
                f"game:{game}",
                request=request,
                change=change_id,
                cancelled=cancel,
                verdict=verdict,
                note=note,
            )
            await self._lapse(conn, game, lapse, now)
            await add_effects(conn, effects, now)
            return change_id

    async def record_change(
        self,
        change: NewPaperChange,
        expected: Sequence[int],
        event: str,
        *,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
        lapse: Sequence[Lapse] = (),
        **data: Any,
    ) -> int:
        """Write one change at once (Odlazak u bulu umesto drugog: nobody is asked), with the requests it leaves
        nothing to decide (`lapse`) and its `effects` (given the change's id)."""
        async with self.db.transaction() as conn:
            await self._still(conn, change.game, expected)
            change_id = await add_change(conn, change)
            await EventStore.add(
                conn,
                change.at,
                event,
                change.by_member,
                f"game:{change.game}",
                hand=change.hand,
                change=change_id,
                **data,
            )
            await self._lapse(conn, change.game, lapse, change.at)
            if effects is not None:
                await add_effects(conn, effects(change_id), change.at)
            return change_id

    async def cancel_change(
        self,
        change_id: int,
        game: int,
        by: int,
        now: datetime,
        expected: Sequence[int],
        event: str,
        *,
        effects: Sequence[NewEffect] = (),
        **data: Any,
    ) -> bool:
        """Cancel a players' correction, with its `effects`; False (nothing written) when it is not standing or may
        not be cancelled (Arbitar, referee)."""
        async with self.db.transaction() as conn:
            await self._still(conn, game, expected)
            if not await cancel_change(conn, change_id, by, now):
                return False
            await EventStore.add(conn, now, event, by, f"game:{game}", change=change_id, **data)
            await add_effects(conn, effects, now)
            return True

    @staticmethod
    async def _lapse(conn: Connection, game: int, lapses: Sequence[Lapse], now: datetime) -> None:
        """Each request still pending lapses (as `settle` would lapse it), its effects first in the act's."""
        for lapse in lapses:
            cur = await conn.execute(
                "UPDATE correction_requests SET state = 'lapsed', closed_at = ?, closed_by = NULL, change = NULL,"
                " verdict = NULL, note = ? WHERE id = ? AND state = 'pending'",
                (now_text(now), lapse.note, lapse.request),
            )
            if not cur.rowcount:
                continue
            await EventStore.add(
                conn,
                now,
                "correction_lapsed",
                None,
                f"game:{game}",
                request=lapse.request,
                change=None,
                cancelled=None,
                verdict=None,
                note=lapse.note,
            )
            await add_effects(conn, lapse.effects, now)
