"""Trials: the atomic take of a call that opens one, participants, the draft, Promeni…, the transcript, and the
end of a trial (recording the verdict and its paper changes in the same transaction, or dropping the draft)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules.members import PartyRole
from storage.changes import NewPaperChange, insert_change
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.errors import Conflict
from storage.events import EventStore
from storage.states import SpaceState, TrialOutcome

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection

WithEnd = Callable[["Connection", datetime], Awaitable[object]]
"""What another store writes in a trial's ending transaction (an appeal decided or put back with its hearing's
end): given the transaction's connection and the moment."""


@dataclass(frozen=True, slots=True)
class Trial:
    id: int
    call: int
    game: int
    in_game: bool
    caller: int
    referee: int
    opened_at: datetime
    closed_at: datetime | None
    outcome: TrialOutcome
    end_reason: str | None
    draft: dict[str, Any] | None
    verdict: dict[str, Any] | None
    reason: str | None

    @property
    def is_open(self) -> bool:
        return self.outcome is TrialOutcome.OPEN


@dataclass(frozen=True, slots=True)
class Participant:
    member: int
    role: PartyRole
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class TrialMessage:
    member: int | None
    text: str
    at: datetime


class TakeResult:
    WON = "won"
    GONE = "gone"  # the call was no longer pending: someone else took it, or it was withdrawn / expired
    JUDGING = "judging"  # the presser already judges another trial


_TRIAL = (
    "SELECT id, call, game, in_game, caller, referee, opened_at, closed_at, outcome, end_reason, draft,"
    " verdict, reason FROM trials "
)


def _trial(row: tuple[Any, ...]) -> Trial:
    return Trial(
        row[0],
        row[1],
        row[2],
        bool(row[3]),
        row[4],
        row[5],
        parse_stored_time(row[6]),
        parse_stored_time(row[7]) if row[7] else None,
        TrialOutcome(row[8]),
        row[9],
        json.loads(row[10]) if row[10] else None,
        json.loads(row[11]) if row[11] else None,
        row[12],
    )


class TrialStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def take(
        self,
        call_id: int,
        referee: int,
        now: datetime,
        parties: list[tuple[int, PartyRole]],
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
    ) -> tuple[str, Trial | None]:
        """Sudi: exactly one presser turns the pending call into a trial, only before its deadline; all in one
        transaction, with the `effects` of the win (given the new trial's id)."""
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "UPDATE calls SET state = 'taken', referee = ?, closed_at = ? WHERE id = ? AND state = 'pending'"
                    " AND deadline > ?",
                    (referee, now_text(now), call_id, now_text(now)),
                )
                if not cur.rowcount:
                    return TakeResult.GONE, None
                row = await (
                    await conn.execute("SELECT game, caller, in_game FROM calls WHERE id = ?", (call_id,))
                ).fetchone()
                assert row is not None
                game, caller, in_game = row
                cur = await conn.execute(
                    "INSERT INTO trials (call, game, in_game, caller, referee, opened_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (call_id, game, in_game, caller, referee, now_text(now)),
                )
                trial_id = int(cur.lastrowid or 0)
                await conn.execute(
                    "INSERT INTO trial_games (trial, game, since) VALUES (?, ?, ?)", (trial_id, game, now_text(now))
                )
                for member, role in [(referee, PartyRole.REFEREE), *parties]:
                    await conn.execute(
                        "INSERT OR IGNORE INTO trial_participants (trial, member, role, joined_at) VALUES (?,?,?,?)",
                        (trial_id, member, role, now_text(now)),
                    )
                await EventStore.add(conn, now, "call_taken", referee, f"call:{call_id}", trial=trial_id)
                if effects is not None:
                    await add_effects(conn, effects(trial_id), now)
        except Conflict:
            return TakeResult.JUDGING, None
        return TakeResult.WON, await self.get(trial_id)

    async def get(self, trial_id: int) -> Trial | None:
        rows = await self._trials("WHERE id = ?", (trial_id,))
        return rows[0] if rows else None

    async def for_game(self, game: int) -> list[Trial]:
        return await self._trials("WHERE game = ? ORDER BY id", (game,))

    async def of_player(self, nick: str, limit: int = 50) -> list[Trial]:
        """The trials of the games `nick` played, newest first."""
        return await self._trials(
            "WHERE game IN (SELECT game FROM game_players WHERE nick = ?) ORDER BY opened_at DESC, id DESC LIMIT ?",
            (nick, limit),
        )

    async def open_trials(self) -> list[Trial]:
        return await self._trials("WHERE outcome = 'open' ORDER BY id", ())

    async def open_for_member(self, member: int) -> Trial | None:
        rows = await self._trials(
            "WHERE outcome = 'open' AND id IN (SELECT trial FROM trial_participants WHERE member = ?) ORDER BY id DESC",
            (member,),
        )
        return rows[0] if rows else None

    async def open_for_game(self, game: int) -> Trial | None:
        rows = await self._trials("WHERE outcome = 'open' AND game = ?", (game,))
        return rows[0] if rows else None

    async def closed_since(self, moment: datetime) -> list[Trial]:
        return await self._trials("WHERE outcome != 'open' AND closed_at >= ? ORDER BY id", (now_text(moment),))

    async def last_judged(self, referee: int) -> Trial | None:
        """The newest trial `referee` judged (open or not)."""
        rows = await self._trials("WHERE referee = ? ORDER BY id DESC LIMIT 1", (referee,))
        return rows[0] if rows else None

    async def judging(self, referee: int) -> Trial | None:
        rows = await self._trials("WHERE outcome = 'open' AND referee = ?", (referee,))
        return rows[0] if rows else None

    async def _trials(self, tail: str, params: tuple[object, ...]) -> list[Trial]:
        rows = await self.db.connection.execute_fetchall(_TRIAL + tail, params)
        return [_trial(tuple(r)) for r in rows]

    async def penalty_times(self, culprit: str, offence: str) -> list[datetime]:
        """When recorded verdicts punished `culprit` for the catalogue's `offence` (for escalation)."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT closed_at FROM trials WHERE outcome = 'verdict' AND json_extract(verdict, '$.kind') = 'kazna'"
            " AND json_extract(verdict, '$.culprit') = ? COLLATE NOCASE"
            " AND json_extract(verdict, '$.offence') = ? COLLATE NOCASE ORDER BY closed_at",
            (culprit, offence),
        )
        return [parse_stored_time(r[0]) for r in rows]

    async def sanctions_of(self, culprit: str) -> list[tuple[int, int, datetime, dict[str, Any]]]:
        """The recorded verdicts whose penalty of `culprit` carries a sanction in the club's units, oldest first,
        but those lifted since (a later penalty of the game or (niko)): each trial's id, game, end and verdict."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT id, game, closed_at, verdict FROM trials WHERE outcome = 'verdict'"
            " AND json_extract(verdict, '$.kind') = 'kazna'"
            " AND json_extract(verdict, '$.culprit') = ? COLLATE NOCASE"
            " AND json_extract(verdict, '$.sanction') IS NOT NULL"
            " AND id NOT IN (SELECT trial FROM penalties WHERE lifted_at IS NOT NULL) ORDER BY closed_at, id",
            (culprit,),
        )
        return [(int(r[0]), int(r[1]), parse_stored_time(r[2]), json.loads(r[3])) for r in rows]

    async def participants_of_game(self, game: int) -> dict[int, list[Participant]]:
        """The participants of every trial of `game`, by trial (each list as `participants` orders it): what a page
        listing the game's trials reads once instead of once per trial."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT p.trial, p.member, p.role, p.joined_at FROM trial_participants p JOIN trials t ON t.id = p.trial"
            " WHERE t.game = ? ORDER BY p.trial, p.joined_at, p.member",
            (game,),
        )
        found: dict[int, list[Participant]] = {}
        for r in rows:
            found.setdefault(int(r[0]), []).append(Participant(r[1], PartyRole(r[2]), parse_stored_time(r[3])))
        return found

    async def messages_of_game(self, game: int) -> dict[int, list[TrialMessage]]:
        """The conversation of every trial of `game`, by trial (each as `messages` orders it)."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT m.trial, m.member, m.text, m.at FROM trial_messages m JOIN trials t ON t.id = m.trial"
            " WHERE t.game = ? ORDER BY m.trial, m.id",
            (game,),
        )
        found: dict[int, list[TrialMessage]] = {}
        for r in rows:
            found.setdefault(int(r[0]), []).append(TrialMessage(r[1], r[2], parse_stored_time(r[3])))
        return found

    async def participants(self, trial_id: int) -> list[Participant]:
        async with self.db.connection.execute(
            "SELECT member, role, joined_at FROM trial_participants WHERE trial = ? ORDER BY joined_at, member",
            (trial_id,),
        ) as cur:
            return [Participant(r[0], PartyRole(r[1]), parse_stored_time(r[2])) for r in await cur.fetchall()]

    async def pause_intervals(self, game: int, now: datetime) -> list[tuple[datetime, datetime]]:
        """When the game's 7-day clock stood still: calls pending and trials on (open ones up to `now`). A call
        is pending until its deadline at the latest, whether or not a timer fired and whatever its row says of
        when the bot acted on it (decisions.md, "Calls": a call ends at its deadline)."""
        out: list[tuple[datetime, datetime]] = []
        async with self.db.connection.execute(
            "SELECT created_at, closed_at, deadline FROM calls WHERE game = ?"
            " UNION ALL SELECT tg.since, coalesce(tg.until, t.closed_at), NULL FROM trial_games tg"
            " JOIN trials t ON t.id = tg.trial WHERE tg.game = ?",
            (game, game),
        ) as cur:
            for start, end, deadline in await cur.fetchall():
                until = parse_stored_time(end) if end else now
                if deadline:
                    until = min(until, parse_stored_time(deadline))
                out.append((parse_stored_time(start), until))
        return out

    async def set_draft(self, trial_id: int, draft: dict[str, Any] | None, actor: int, now: datetime) -> bool:
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE trials SET draft = ? WHERE id = ? AND outcome = 'open'",
                (json.dumps(draft, ensure_ascii=False) if draft else None, trial_id),
            )
            if cur.rowcount:
                await EventStore.add(conn, now, "draft", actor, f"trial:{trial_id}", draft=draft)
            return cur.rowcount > 0

    async def change_game(
        self, trial_id: int, game: int, actor: int, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """Promeni…: the trial is now about `game`; the draft is dropped; `effects` (the line said in its space)
        are written in the same transaction."""
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "UPDATE trials SET game = ?, draft = NULL WHERE id = ? AND outcome = 'open'", (game, trial_id)
                )
                if not cur.rowcount:
                    return False
                await conn.execute(
                    "UPDATE trial_games SET until = ? WHERE trial = ? AND until IS NULL", (now_text(now), trial_id)
                )
                await conn.execute(
                    "INSERT INTO trial_games (trial, game, since) VALUES (?, ?, ?)", (trial_id, game, now_text(now))
                )
                await EventStore.add(conn, now, "trial_game_changed", actor, f"trial:{trial_id}", game=game)
                await add_effects(conn, effects, now)
        except Conflict:
            return False
        return True

    async def add_message(self, trial_id: int, member: int | None, text: str, now: datetime) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO trial_messages (trial, member, text, at) VALUES (?, ?, ?, ?)",
                (trial_id, member, text, now_text(now)),
            )

    async def space_states(self, trial_id: int) -> dict[str, tuple[SpaceState, str | None]]:
        """Each platform whose space of this trial did not simply open and close: its state and the problem."""
        async with self.db.connection.execute(
            "SELECT platform, state, problem FROM trial_spaces WHERE trial = ?", (trial_id,)
        ) as cur:
            return {str(r[0]): (SpaceState(r[1]), r[2]) for r in await cur.fetchall()}

    async def set_space(
        self,
        trial_id: int,
        platform: str,
        state: SpaceState,
        problem: str | None,
        now: datetime,
        effects: Sequence[NewEffect] = (),
        *,
        unless: SpaceState | None = None,
    ) -> bool:
        """The trial's space on `platform` is now `state` (with what the platform refused), and `effects` (who is
        told) are written in the same transaction; with `unless`, nothing changes where it is that state already
        (so a refusal is told once). False when nothing changed."""
        async with self.db.transaction() as conn:
            async with conn.execute(
                "SELECT state FROM trial_spaces WHERE trial = ? AND platform = ?", (trial_id, platform)
            ) as cur:
                row = await cur.fetchone()
            if unless is not None and row is not None and row[0] == unless:
                return False
            await conn.execute(
                "INSERT INTO trial_spaces (trial, platform, state, problem, since) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (trial, platform) DO UPDATE SET state = excluded.state, problem = excluded.problem,"
                " since = excluded.since",
                (trial_id, platform, state.value, problem, now_text(now)),
            )
            await EventStore.add(conn, now, f"space_{state.value}", None, f"trial:{trial_id}", platform=platform)
            await add_effects(conn, effects, now)
        return True

    async def spaces_in(self, platform: str, state: SpaceState) -> list[int]:
        """The trials whose space on `platform` is in `state`, oldest first."""
        async with self.db.connection.execute(
            "SELECT trial FROM trial_spaces WHERE platform = ? AND state = ? ORDER BY trial", (platform, state.value)
        ) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def messages(self, trial_id: int) -> list[TrialMessage]:
        async with self.db.connection.execute(
            "SELECT member, text, at FROM trial_messages WHERE trial = ? ORDER BY id", (trial_id,)
        ) as cur:
            return [TrialMessage(r[0], r[1], parse_stored_time(r[2])) for r in await cur.fetchall()]

    async def finish(
        self,
        trial_id: int,
        outcome: TrialOutcome,
        now: datetime,
        actor: int | None,
        *,
        verdict: dict[str, Any] | None = None,
        reason: str | None = None,
        end_reason: str | None = None,
        changes: list[NewPaperChange] | None = None,
        expected_draft: dict[str, Any] | None = None,
        effects: Sequence[NewEffect] = (),
        also: Sequence[WithEnd] = (),
    ) -> bool:
        """End an open trial. With a verdict, its paper changes are written in the same transaction, and so is
        what `also` writes (after the trial's own effects). When `expected_draft` is given the trial ends only if
        the stored draft is still that one (no lost update). False when the trial was already over."""
        async with self.db.transaction() as conn:
            row = await (await conn.execute("SELECT outcome, draft FROM trials WHERE id = ?", (trial_id,))).fetchone()
            if row is None or row[0] != "open":
                return False
            if expected_draft is not None and (json.loads(row[1]) if row[1] else None) != expected_draft:
                return False
            await conn.execute(
                "UPDATE trials SET outcome = ?, closed_at = ?, end_reason = ?, verdict = ?, reason = ?,"
                " draft = CASE WHEN ? = 'interrupted' THEN NULL ELSE draft END WHERE id = ?",
                (
                    outcome,
                    now_text(now),
                    end_reason,
                    json.dumps(verdict, ensure_ascii=False) if verdict else None,
                    reason,
                    outcome,
                    trial_id,
                ),
            )
            await conn.execute(
                "UPDATE councilor_calls SET state = 'cancelled', closed_at = ? WHERE trial = ? AND state = 'pending'",
                (now_text(now), trial_id),
            )
            for change in changes or []:
                await insert_change(conn, change, trial_id)
            await EventStore.add(conn, now, f"trial_{outcome}", actor, f"trial:{trial_id}", end_reason=end_reason)
            await add_effects(conn, effects, now)
            for step in also:
                await step(conn, now)
        return True
