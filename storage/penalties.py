"""Penalties and their effects: the penalty rows (plavac days, league penalty points, napustio, suspension days)
and their lifting, each member's running plavac and suspension from all the club's tournaments (durable
deadlines of one shape), who is counted as having abandoned each interrupted game,
manual settlements, and the marker that a trial's verdict has taken effect.

`apply_effects` persists the plan of what a verdict changes (`rules.verdict_effects`) in one transaction and at
most once per trial; the arithmetic is `rules.penalties`'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rules.penalties import (
    month_of,
    month_open,
    plavac_after_lift,
    plavac_after_penalty,
)
from rules.verdict_effects import EffectsPlan, NapustioSource
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.sql import Connection

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class PenaltyRow:
    id: int
    game: int
    trial: int
    member: int
    plavac_days: int
    league_points: int
    abandoned: bool
    month: str
    imposed_at: datetime
    lifted_at: datetime | None
    lifted_by_trial: int | None
    points_returned: bool | None
    suspension_days: int = 0

    @property
    def active(self) -> bool:
        return self.lifted_at is None


@dataclass(frozen=True, slots=True)
class Plavac:
    member: int
    until: datetime
    active: bool
    since: datetime


@dataclass(frozen=True, slots=True)
class Napustio:
    game: int
    first_leaver: str | None
    counted: str | None
    source: NapustioSource
    trial: int | None
    rated: bool
    month: str


@dataclass(frozen=True, slots=True)
class GameAtStake:
    """What the effects need to know of the game (read from its log by the caller)."""

    number: int
    first_leaver: str | None
    rated: bool
    interrupted: bool
    ended_at: datetime | None


@dataclass(frozen=True, slots=True)
class Lifted:
    """An earlier penalty lifted: the plavac (and suspension) before and after, and whether its points came back."""

    penalty: PenaltyRow
    plavac_before: datetime | None
    plavac_after: datetime | None
    points_returned: bool
    suspension_before: datetime | None = None
    suspension_after: datetime | None = None


@dataclass(frozen=True, slots=True)
class Effects:
    lifted: list[Lifted]
    penalty: PenaltyRow | None
    plavac_before: datetime | None  # of the newly punished member
    plavac_after: datetime | None
    napustio_before: str | None
    napustio_after: str | None
    napustio_month_open: bool
    settled_counts: bool | None  # None: no settlement
    suspension_before: datetime | None = None  # of the newly punished member (from all the club's tournaments)
    suspension_after: datetime | None = None


_PENALTY = (
    "SELECT id, game, trial, member, plavac_days, league_points, abandoned, month, imposed_at, lifted_at,"
    " lifted_by_trial, points_returned, suspension_days FROM penalties "
)


def _penalty(r: Any) -> PenaltyRow:
    return PenaltyRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        bool(r[6]),
        r[7],
        parse_stored_time(r[8]),
        parse_stored_time(r[9]) if r[9] else None,
        r[10],
        None if r[11] is None else bool(r[11]),
        int(r[12] or 0),
    )


async def _month_is_open(conn: Connection, month: str, now: datetime, grace: timedelta) -> bool:
    row = await (await conn.execute("SELECT 1 FROM league_months WHERE month = ?", (month,))).fetchone()
    return month_open(month, now, grace, closed=row is not None)


PLAVAC, SUSPENSION = "plavac", "suspensions"  # the two running restrictions of one shape: a member's end and state


async def _plavac_until(conn: Connection, member: int, table: str = PLAVAC) -> datetime | None:
    row = await (await conn.execute(f"SELECT until FROM {table} WHERE member = ? AND active = 1", (member,))).fetchone()
    return parse_stored_time(row[0]) if row else None


async def _set_plavac(
    conn: Connection, member: int, until: datetime | None, now: datetime, table: str = PLAVAC
) -> None:
    if until is None:
        await conn.execute(f"UPDATE {table} SET active = 0 WHERE member = ?", (member,))
    else:
        await conn.execute(
            f"INSERT INTO {table} (member, until, active, since) VALUES (?, ?, 1, ?)"
            f" ON CONFLICT (member) DO UPDATE SET until = excluded.until, active = 1,"
            f" since = CASE WHEN {table}.active = 1 THEN {table}.since ELSE excluded.since END",
            (member, now_text(until), now_text(now)),
        )


async def ensure_napustio(conn: Connection, game: GameAtStake, now: datetime) -> None:
    """The game's napustio row as the log gives it (the first leaver), unless it exists already."""
    if not game.interrupted or game.ended_at is None:
        return
    await conn.execute(
        "INSERT OR IGNORE INTO napustio (game, first_leaver, counted, source, trial, rated, month, at)"
        " VALUES (?, ?, ?, 'log', NULL, ?, ?, ?)",
        (game.number, game.first_leaver, game.first_leaver, game.rated, month_of(game.ended_at), now_text(now)),
    )


class PenaltyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # Reading ---------------------------------------------------------------------------------------------
    async def for_game(self, game: int) -> list[PenaltyRow]:
        return await self._penalties("WHERE game = ? ORDER BY id", (game,))

    async def for_member(self, member: int) -> list[PenaltyRow]:
        return await self._penalties("WHERE member = ? ORDER BY id", (member,))

    async def active_points(self, member: int, month: str) -> int:
        async with self.db.connection.execute(
            "SELECT coalesce(sum(league_points), 0) FROM penalties WHERE member = ? AND month = ?"
            " AND lifted_at IS NULL AND points_cancelled_at IS NULL",
            (member, month),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def _penalties(self, tail: str, params: tuple[object, ...]) -> list[PenaltyRow]:
        async with self.db.connection.execute(_PENALTY + tail, params) as cur:
            return [_penalty(r) for r in await cur.fetchall()]

    async def plavac(self, member: int, table: str = PLAVAC) -> Plavac | None:
        """The member's plavac (or, with `table` SUSPENSION, his suspension from all the club's tournaments)."""
        async with self.db.connection.execute(
            f"SELECT member, until, active, since FROM {table} WHERE member = ?", (member,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return Plavac(row[0], parse_stored_time(row[1]), bool(row[2]), parse_stored_time(row[3]))

    async def running_plavac(self, table: str = PLAVAC) -> list[Plavac]:
        async with self.db.connection.execute(
            f"SELECT member, until, active, since FROM {table} WHERE active = 1 ORDER BY until"
        ) as cur:
            return [Plavac(r[0], parse_stored_time(r[1]), True, parse_stored_time(r[3])) for r in await cur.fetchall()]

    async def end_plavac(
        self, member: int, now: datetime, effects: Sequence[NewEffect] = (), table: str = PLAVAC
    ) -> bool:
        """A plavac (or suspension) that ran out ends, once: True only for the call that ended it (which writes
        its chat `effects` with it)."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                f"UPDATE {table} SET active = 0 WHERE member = ? AND active = 1 AND until <= ?",
                (member, now_text(now)),
            )
            if cur.rowcount:
                kind = "plavac_ended" if table == PLAVAC else "suspension_ended"
                await EventStore.add(conn, now, kind, None, str(member))
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def napustio(self, game: int) -> Napustio | None:
        async with self.db.connection.execute(
            "SELECT game, first_leaver, counted, source, trial, rated, month FROM napustio WHERE game = ?", (game,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return Napustio(row[0], row[1], row[2], NapustioSource(row[3]), row[4], bool(row[5]), row[6])

    async def add_napustio(self, game: GameAtStake, now: datetime) -> None:
        async with self.db.transaction() as conn:
            await ensure_napustio(conn, game, now)

    async def unrecorded_interrupted(self, nick: str) -> list[int]:
        """Interrupted games `nick` played whose napustio row is not written yet (read from their logs)."""
        async with self.db.connection.execute(
            "SELECT g.number FROM games g WHERE g.status = 'interrupted'"
            " AND g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            " AND g.number NOT IN (SELECT game FROM napustio) ORDER BY g.number",
            (nick,),
        ) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def napustio_count(self, nick: str, month: str | None = None) -> int:
        sql = "SELECT count(*) FROM napustio WHERE counted = ?"
        params: tuple[object, ...] = (nick,)
        if month is not None:
            sql += " AND month = ?"
            params = (nick, month)
        async with self.db.connection.execute(sql, params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def abandoned_rated(self, nick: str, month: str) -> int:
        """Rated games of `month` that `nick` is counted as having abandoned (each carries the league charge)."""
        async with self.db.connection.execute(
            "SELECT count(*) FROM napustio WHERE counted = ? AND month = ? AND rated = 1", (nick, month)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def settled(self, game: int) -> bool | None:
        """None: not settled; else whether it counts as a finished game."""
        async with self.db.connection.execute("SELECT counts FROM settlements WHERE game = ?", (game,)) as cur:
            row = await cur.fetchone()
        return None if row is None else bool(row[0])

    async def counted_settlements(self) -> set[int]:
        async with self.db.connection.execute("SELECT game FROM settlements WHERE counts = 1") as cur:
            return {int(r[0]) for r in await cur.fetchall()}

    async def effects_pending(self) -> list[int]:
        """Trials whose recorded verdict changes penalties, napustio or settlement but has not taken effect."""
        async with self.db.connection.execute(
            "SELECT id FROM trials WHERE outcome = 'verdict'"
            " AND json_extract(verdict, '$.kind') IN ('kazna', 'niko', 'svodjenje')"
            " AND id NOT IN (SELECT trial FROM verdict_effects) ORDER BY id"
        ) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    # Writing ---------------------------------------------------------------------------------------------
    async def apply_effects(
        self,
        trial: int,
        game: GameAtStake,
        now: datetime,
        grace: timedelta,
        plan: EffectsPlan,
        *,
        culprit: int | None = None,
        actor: int | None = None,
        effects: Callable[[Effects], Sequence[NewEffect]] | None = None,
    ) -> Effects | None:
        """Persist the plan of a verdict's effects (`rules.verdict_effects`) in one transaction; None when it has
        already taken effect. `culprit` is the member the plan's penalty is imposed on. The chat `effects` of
        what was changed (the members told) are written in the same transaction.

        Lifting an earlier penalty shortens its plavac and gives its points back if its month is open; a
        settlement lifts no penalty; the napustio count is the plan's (`EffectsPlan.napustio`).
        """
        settle = plan.settle
        penalty = plan.penalty
        assert penalty is None or culprit is not None, "a penalty needs the member it is imposed on"
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT OR IGNORE INTO verdict_effects (trial, at) VALUES (?, ?)", (trial, now_text(now))
            )
            if not cur.rowcount:
                return None
            lifted: list[Lifted] = []
            if plan.lift_earlier:
                rows = [
                    _penalty(r)
                    for r in await (
                        await conn.execute(
                            _PENALTY + "WHERE game = ? AND lifted_at IS NULL AND trial != ? ORDER BY id",
                            (game.number, trial),
                        )
                    ).fetchall()
                ]
                for row in rows:
                    before = await _plavac_until(conn, row.member)
                    after = plavac_after_lift(before, now, row.plavac_days) if row.plavac_days else before
                    if row.plavac_days and before is not None:
                        await _set_plavac(conn, row.member, after, now)
                    s_before = await _plavac_until(conn, row.member, SUSPENSION)
                    s_after = plavac_after_lift(s_before, now, row.suspension_days) if row.suspension_days else s_before
                    if row.suspension_days and s_before is not None:
                        await _set_plavac(conn, row.member, s_after, now, SUSPENSION)
                    returned = await _month_is_open(conn, row.month, now, grace)
                    await conn.execute(
                        "UPDATE penalties SET lifted_at = ?, lifted_by_trial = ?, points_returned = ? WHERE id = ?",
                        (now_text(now), trial, returned, row.id),
                    )
                    await EventStore.add(
                        conn,
                        now,
                        "penalty_lifted",
                        actor,
                        str(row.member),
                        game=game.number,
                        penalty=row.id,
                        trial=trial,
                        plavac_until=now_text(after) if after else None,
                        suspension_until=now_text(s_after) if s_after else None,
                        points_returned=returned,
                    )
                    lifted.append(Lifted(row, before, after, returned, s_before, s_after))
            new_row: PenaltyRow | None = None
            plavac_before = plavac_after = suspension_before = suspension_after = None
            if penalty is not None and culprit is not None:
                if penalty.plavac_days:
                    plavac_before = await _plavac_until(conn, culprit)
                    plavac_after = plavac_after_penalty(plavac_before, now, penalty.plavac_days)
                    await _set_plavac(conn, culprit, plavac_after, now)
                if penalty.suspension_days:
                    suspension_before = await _plavac_until(conn, culprit, SUSPENSION)
                    suspension_after = plavac_after_penalty(suspension_before, now, penalty.suspension_days)
                    await _set_plavac(conn, culprit, suspension_after, now, SUSPENSION)
                month = month_of(now)
                cur = await conn.execute(
                    "INSERT INTO penalties (game, trial, member, plavac_days, league_points, abandoned, month,"
                    " imposed_at, suspension_days) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.number,
                        trial,
                        culprit,
                        penalty.plavac_days,
                        penalty.league_points,
                        penalty.abandoned,
                        month,
                        now_text(now),
                        penalty.suspension_days,
                    ),
                )
                new_row = PenaltyRow(
                    int(cur.lastrowid or 0),
                    game.number,
                    trial,
                    culprit,
                    penalty.plavac_days,
                    penalty.league_points,
                    penalty.abandoned,
                    month,
                    now,
                    None,
                    None,
                    None,
                    penalty.suspension_days,
                )
                await EventStore.add(
                    conn,
                    now,
                    "penalty",
                    actor,
                    str(culprit),
                    game=game.number,
                    trial=trial,
                    plavac_days=penalty.plavac_days,
                    league_points=penalty.league_points,
                    abandoned=penalty.abandoned,
                    plavac_until=now_text(plavac_after) if plavac_after else None,
                    suspension_days=penalty.suspension_days,
                    suspension_until=now_text(suspension_after) if suspension_after else None,
                )
            napustio_before = napustio_after = None
            napustio_open = True
            if game.interrupted and game.ended_at is not None:
                await ensure_napustio(conn, game, now)
                found = await (
                    await conn.execute("SELECT counted, source, month FROM napustio WHERE game = ?", (game.number,))
                ).fetchone()
                assert found is not None
                napustio_before, source, month = found[0], NapustioSource(found[1]), found[2]
                napustio_open = await _month_is_open(conn, month, now, grace)
                counted, new_source = plan.napustio(game.first_leaver, napustio_before, source)
                napustio_after = counted
                await conn.execute(
                    "UPDATE napustio SET counted = ?, source = ?, trial = ?, at = ? WHERE game = ?",
                    (counted, new_source, trial, now_text(now), game.number),
                )
                if (counted or "").casefold() != (napustio_before or "").casefold():
                    await EventStore.add(
                        conn,
                        now,
                        "napustio_moved",
                        actor,
                        f"game:{game.number}",
                        before=napustio_before,
                        after=counted,
                        trial=trial,
                    )
            if plan.settles:
                # A settlement cancels the game's own league points (nobody counted as having abandoned it, above)
                # and never a referee's penalty: penalties, (niko) and a settlement compose in any order.
                await conn.execute(
                    "INSERT OR IGNORE INTO settlements (game, trial, at, counts) VALUES (?, ?, ?, ?)",
                    (game.number, trial, now_text(now), settle),
                )
                await EventStore.add(
                    conn, now, "game_settled", actor, f"game:{game.number}", trial=trial, counts=settle
                )
            result = Effects(
                lifted,
                new_row,
                plavac_before,
                plavac_after,
                napustio_before,
                napustio_after,
                napustio_open,
                settle,
                suspension_before,
                suspension_after,
            )
            if effects is not None:
                await add_effects(conn, effects(result), now)
        return result
