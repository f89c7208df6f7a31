"""The councilors' business: votes on admitting and dismissing referees and councilors with every ballot, appeals
against recorded trials (filing, the one-winner claim, the hearing, the decision) and appeal restrictions.

Every act writes its event (`storage.events`) in the same transaction, so `/akti` and `/presude` list what was done,
and its chat effects (`storage.chat_outbox`: the notices posted and edited, the members told, the hearing's space
opened) likewise, delivered after the commit and again after a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rules.members import Role
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.errors import Conflict
from storage.events import EventStore
from storage.members import change_role, deny_call
from storage.states import AppealState, VoteAction, VoteState

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection
    from storage.trials import WithEnd


class AlreadyOpen(Exception):
    """A unique index refused the row: a vote on the same subject and function is open, or the party already
    appealed against that trial."""


def _t(text: object) -> datetime | None:
    return parse_stored_time(str(text)) if text else None


@dataclass(frozen=True, slots=True)
class Vote:
    id: int
    proposer: int
    subject: int
    role: Role | None  # None: a vote on the right to call (`VoteAction.DENY_CALL`)
    action: VoteAction
    reason: str
    opened_at: datetime
    deadline: datetime
    state: VoteState
    closed_at: datetime | None
    until: datetime | None = None  # a vote on the right to call: the end of the denial (None: until restored)

    @property
    def is_open(self) -> bool:
        return self.state is VoteState.OPEN


@dataclass(frozen=True, slots=True)
class Appeal:
    id: int
    trial: int | None  # the trial appealed against; None: a report of an incident in `game` (the third club's)
    appellant: int
    kind: str
    text: str
    filed_at: datetime
    ping_at: datetime
    pinged: bool
    review_deadline: datetime
    reminded: bool
    state: AppealState
    councilor: int | None
    taken_at: datetime | None
    hearing: int | None
    decided_at: datetime | None
    reason: str | None
    restriction_days: int
    overdue: bool
    game: int = 0  # the game it concerns (an appeal: its trial's)

    @property
    def is_report(self) -> bool:
        return self.trial is None

    @property
    def decided(self) -> bool:
        return self.state in (AppealState.UPHELD, AppealState.REJECTED, AppealState.INADMISSIBLE)


@dataclass(frozen=True, slots=True)
class VoteAct:
    """What a carried vote does, written with its closing: the role granted (or removed) by the proposer, and
    the effects that tell of it, written only when it changed something."""

    granted: bool
    by: int
    reason: str
    effects: Sequence[NewEffect] = ()


@dataclass(frozen=True, slots=True)
class VoteClosed:
    """A vote closed (by this call): whether its act changed a role."""

    acted: bool


@dataclass(frozen=True, slots=True)
class NewFile:
    """A file a member attached (the table's chat, a screenshot), as the platform handed it over."""

    name: str
    content_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class AppealFile:
    id: int
    name: str
    content_type: str
    size: int
    data: bytes
    at: datetime


@dataclass(frozen=True, slots=True)
class AppealBan:
    member: int
    until: datetime
    reason: str | None


_VOTE = "SELECT id, proposer, subject, role, action, reason, opened_at, deadline, state, closed_at, until FROM votes "
_APPEAL = (
    "SELECT id, trial, appellant, kind, text, filed_at, ping_at, pinged, review_deadline, reminded, state,"
    " councilor, taken_at, hearing, decided_at, reason, restriction_days, overdue,"
    " coalesce(game, (SELECT t.game FROM trials t WHERE t.id = appeals.trial)) FROM appeals "
)


def _vote(r: tuple[object, ...]) -> Vote:
    opened, deadline = _t(r[6]), _t(r[7])
    assert opened is not None
    assert deadline is not None
    return Vote(
        int(str(r[0])),
        int(str(r[1])),
        int(str(r[2])),
        None if r[3] is None else Role(str(r[3])),  # no function: a vote on the right to call
        VoteAction(str(r[4])),
        str(r[5]),
        opened,
        deadline,
        VoteState(str(r[8])),
        _t(r[9]),
        _t(r[10]),
    )


def _appeal(r: tuple[object, ...]) -> Appeal:
    filed, ping, review = _t(r[5]), _t(r[6]), _t(r[8])
    assert filed is not None
    assert ping is not None
    assert review is not None
    return Appeal(
        int(str(r[0])),
        int(str(r[1])) if r[1] is not None else None,
        int(str(r[2])),
        str(r[3]),
        str(r[4]),
        filed,
        ping,
        bool(r[7]),
        review,
        bool(r[9]),
        AppealState(str(r[10])),
        int(str(r[11])) if r[11] is not None else None,
        _t(r[12]),
        int(str(r[13])) if r[13] is not None else None,
        _t(r[14]),
        str(r[15]) if r[15] is not None else None,
        int(str(r[16])),
        bool(r[17]),
        int(str(r[18])) if r[18] is not None else 0,
    )


class VoteStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, vote_id: int) -> Vote | None:
        rows = list(await self.db.connection.execute_fetchall(_VOTE + "WHERE id = ?", (vote_id,)))
        return _vote(tuple(rows[0])) if rows else None

    async def open_votes(self) -> list[Vote]:
        rows = list(await self.db.connection.execute_fetchall(_VOTE + "WHERE state = 'open' ORDER BY deadline", ()))
        return [_vote(tuple(r)) for r in rows]

    async def carried_since(self, moment: datetime) -> list[Vote]:
        """The votes carried at `moment` or later, oldest first (their acts' aftermath is repeated on start)."""
        rows = list(
            await self.db.connection.execute_fetchall(
                _VOTE + "WHERE state = 'carried' AND closed_at >= ? ORDER BY closed_at, id", (now_text(moment),)
            )
        )
        return [_vote(tuple(r)) for r in rows]

    async def open_vote(
        self,
        proposer: int,
        subject: int,
        role: Role | None,
        action: VoteAction,
        reason: str,
        now: datetime,
        deadline: datetime,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
        until: datetime | None = None,
    ) -> Vote:
        """A proposal opens a vote, with the proposer's own ballot for it and its `effects` (given the new vote's
        id: its notice to the councilors). A vote on the right to call (`VoteAction.DENY_CALL`) has no `role` and
        may deny it `until` a moment."""
        try:
            async with self.db.transaction() as conn:
                cur = await conn.execute(
                    "INSERT INTO votes (proposer, subject, role, action, reason, opened_at, deadline, until)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        proposer,
                        subject,
                        role or None,
                        action,
                        reason,
                        now_text(now),
                        now_text(deadline),
                        now_text(until) if until else None,
                    ),
                )
                vote_id = int(cur.lastrowid or 0)
                await conn.execute(
                    "INSERT INTO ballots (vote, member, yes, at) VALUES (?, ?, 1, ?)",
                    (vote_id, proposer, now_text(now)),
                )
                await EventStore.add(
                    conn,
                    now,
                    "vote_opened",
                    proposer,
                    str(subject),
                    vote=vote_id,
                    role=role,
                    action=str(action),
                    reason=reason,
                    until=now_text(deadline),
                )
                if effects is not None:
                    await add_effects(conn, effects(vote_id), now)
        except Conflict:
            raise AlreadyOpen("vote") from None
        vote = await self.get(vote_id)
        assert vote is not None
        return vote

    async def cast(self, vote_id: int, member: int, yes: bool, now: datetime) -> bool:
        """A councilor's ballot, replacing his earlier one; False when the vote is no longer open."""
        async with self.db.transaction() as conn:
            row = await (await conn.execute("SELECT state, subject FROM votes WHERE id = ?", (vote_id,))).fetchone()
            if row is None or row[0] != "open":
                return False
            await conn.execute(
                "INSERT INTO ballots (vote, member, yes, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (vote, member) DO UPDATE SET yes = excluded.yes, at = excluded.at",
                (vote_id, member, int(yes), now_text(now)),
            )
            await EventStore.add(conn, now, "vote_cast", member, str(row[1]), vote=vote_id, yes=yes)
        return True

    async def ballots(self, vote_id: int) -> dict[int, bool]:
        rows = list(
            await self.db.connection.execute_fetchall("SELECT member, yes FROM ballots WHERE vote = ?", (vote_id,))
        )
        return {int(r[0]): bool(r[1]) for r in rows}

    async def close(
        self,
        vote_id: int,
        state: VoteState,
        now: datetime,
        yes: int,
        no: int,
        electorate: int,
        effects: Sequence[NewEffect] = (),
        act: VoteAct | None = None,
    ) -> VoteClosed | None:
        """Close an open vote once, with its `effects` and (carried) its `act`, all in one transaction; None when
        another wake-up closed it first. A vote closes at its deadline at the latest, however late the bot acts:
        its end, its event and its act are recorded then (decisions.md, "Calls")."""
        async with self.db.transaction() as conn:
            found = await (await conn.execute("SELECT deadline FROM votes WHERE id = ?", (vote_id,))).fetchone()
            ended = now if found is None else min(now, parse_stored_time(str(found[0])))
            cur = await conn.execute(
                "UPDATE votes SET state = ?, closed_at = ? WHERE id = ? AND state = 'open'",
                (state, now_text(ended), vote_id),
            )
            if not cur.rowcount:
                return None
            row = await (
                await conn.execute("SELECT subject, role, action, until FROM votes WHERE id = ?", (vote_id,))
            ).fetchone()
            assert row is not None
            await EventStore.add(
                conn,
                ended,
                "vote_closed",
                None,
                str(row[0]),
                vote=vote_id,
                role=row[1],
                action=row[2],
                state=str(state),
                yes=yes,
                no=no,
                electorate=electorate,
            )
            await add_effects(conn, effects, now)
            if act is not None and row[2] == VoteAction.DENY_CALL:
                await deny_call(conn, int(row[0]), _t(row[3]), act.by, act.reason, ended)
                acted = True
            else:
                acted = act is not None and await change_role(
                    conn, int(row[0]), Role(str(row[1])), act.granted, act.by, ended, act.reason
                )
            if act is not None and acted:
                await add_effects(conn, act.effects, now)
        return VoteClosed(acted)


class AppealStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, appeal_id: int) -> Appeal | None:
        rows = list(await self.db.connection.execute_fetchall(_APPEAL + "WHERE id = ?", (appeal_id,)))
        return _appeal(tuple(rows[0])) if rows else None

    async def _many(self, tail: str, params: tuple[object, ...]) -> list[Appeal]:
        rows = list(await self.db.connection.execute_fetchall(_APPEAL + tail, params))
        return [_appeal(tuple(r)) for r in rows]

    async def by_hearing(self, trial_id: int) -> Appeal | None:
        rows = await self._many("WHERE hearing = ? ORDER BY id DESC LIMIT 1", (trial_id,))
        return rows[0] if rows else None

    async def for_trials(self, trial_ids: list[int]) -> list[Appeal]:
        if not trial_ids:
            return []
        return await self._many(f"WHERE trial IN ({','.join('?' * len(trial_ids))}) ORDER BY id", tuple(trial_ids))

    async def reports_of_game(self, game: int) -> list[Appeal]:
        """The reports of an incident in `game` (appeals that concern no trial)."""
        return await self._many("WHERE trial IS NULL AND game = ? ORDER BY id", (game,))

    async def files(self, appeal_id: int) -> list[AppealFile]:
        """What the appellant attached, in the order given."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT id, name, content_type, size, data, at FROM appeal_files WHERE appeal = ? ORDER BY id",
            (appeal_id,),
        )
        return [
            AppealFile(int(r[0]), str(r[1]), str(r[2]), int(r[3]), bytes(r[4]), parse_stored_time(r[5])) for r in rows
        ]

    async def undecided(self) -> list[Appeal]:
        return await self._many("WHERE state IN ('filed', 'taken') ORDER BY id", ())

    async def file(
        self,
        trial: int | None,
        appellant: int,
        kind: str,
        text: str,
        now: datetime,
        ping_at: datetime,
        review_deadline: datetime,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
        pinged: Sequence[int] = (),
        game: int | None = None,
        files: Sequence[NewFile] = (),
    ) -> Appeal:
        """File an appeal against `trial` (or, with no trial, a report of an incident in `game`), with the files
        the appellant attached, the councilors its notice reaches (`pinged`) and its `effects` (given the new
        appeal's id) in the same transaction."""
        try:
            async with self.db.transaction() as conn:
                if game is None and trial is not None:
                    found = await (await conn.execute("SELECT game FROM trials WHERE id = ?", (trial,))).fetchone()
                    game = int(found[0]) if found else None
                cur = await conn.execute(
                    "INSERT INTO appeals (trial, game, appellant, kind, text, filed_at, ping_at, review_deadline)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (trial, game, appellant, kind, text, now_text(now), now_text(ping_at), now_text(review_deadline)),
                )
                appeal_id = int(cur.lastrowid or 0)
                subject = f"trial:{trial}" if trial is not None else f"game:{game}"
                await EventStore.add(
                    conn, now, "appeal_filed", appellant, subject, appeal=appeal_id, appeal_kind=kind, files=len(files)
                )
                for item in files:
                    await conn.execute(
                        "INSERT INTO appeal_files (appeal, name, content_type, size, data, at)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (appeal_id, item.name, item.content_type, len(item.data), item.data, now_text(now)),
                    )
                await _add_pings(conn, appeal_id, pinged, now)
                if effects is not None:
                    await add_effects(conn, effects(appeal_id), now)
        except Conflict:
            raise AlreadyOpen("appeal") from None
        appeal = await self.get(appeal_id)
        assert appeal is not None
        return appeal

    async def take(
        self,
        appeal_id: int,
        councilor: int,
        game: int,
        appellant: int,
        now: datetime,
        effects: Callable[[int, int], Sequence[NewEffect]] | None = None,
    ) -> int | None:
        """Preuzmi: exactly one councilor turns the filed appeal into his hearing — a trial of the game between the
        appellant and him (a call row taken at once, so the trial has what every trial has), with the win's
        `effects` (given the hearing's id and its call's) in the same transaction. The hearing's id, or None when
        the appeal was no longer filed; `Conflict` when he already judges a trial."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE appeals SET state = 'taken', councilor = ?, taken_at = ? WHERE id = ? AND state = 'filed'",
                (councilor, now_text(now), appeal_id),
            )
            if not cur.rowcount:
                return None
            at = now_text(now)
            cur = await conn.execute(
                "INSERT INTO calls (game, caller, in_game, created_at, deadline, state, referee, closed_at)"
                " VALUES (?, ?, 0, ?, ?, 'taken', ?, ?)",
                (game, appellant, at, at, councilor, at),
            )
            call_id = int(cur.lastrowid or 0)
            cur = await conn.execute(
                "INSERT INTO trials (call, game, in_game, caller, referee, opened_at) VALUES (?, ?, 0, ?, ?, ?)",
                (call_id, game, appellant, councilor, at),
            )
            hearing = int(cur.lastrowid or 0)
            await conn.execute("INSERT INTO trial_games (trial, game, since) VALUES (?, ?, ?)", (hearing, game, at))
            for member, role in ((councilor, "referee"), (appellant, "caller")):
                await conn.execute(
                    "INSERT INTO trial_participants (trial, member, role, joined_at) VALUES (?, ?, ?, ?)",
                    (hearing, member, role, at),
                )
            await conn.execute("UPDATE appeals SET hearing = ? WHERE id = ?", (hearing, appeal_id))
            await EventStore.add(conn, now, "appeal_taken", councilor, f"appeal:{appeal_id}", trial=hearing)
            if effects is not None:
                await add_effects(conn, effects(hearing, call_id), now)
        return hearing

    async def reopen(self, appeal_id: int, now: datetime, effects: Sequence[NewEffect] = ()) -> bool:
        """The hearing ended without a decision (the councilor left or disconnected): the appeal waits again, its
        `effects` (the notice posted again) written with it."""
        async with self.db.transaction() as conn:
            return await _reopen(conn, appeal_id, now, effects)

    def reopened_with_end(self, appeal_id: int, effects: Sequence[NewEffect] = ()) -> WithEnd:
        """`reopen`, written in the hearing's ending transaction (`TrialStore.finish(also=…)`): no crash leaves
        the appeal taken with its hearing over."""

        async def step(conn: Connection, now: datetime) -> bool:
            return await _reopen(conn, appeal_id, now, effects)

        return step

    async def decide(
        self,
        appeal_id: int,
        state: AppealState,
        councilor: int,
        reason: str,
        now: datetime,
        restriction_until: datetime | None = None,
        restriction_days: int = 0,
        effects: Sequence[NewEffect] = (),
    ) -> bool:
        """The councilor's decision, once; a restriction (blocking further appeals) and its `effects` (the
        appellant told, the notices edited) are written with it."""
        async with self.db.transaction() as conn:
            return await _decide(
                conn, appeal_id, state, councilor, reason, now, restriction_until, restriction_days, effects
            )

    def decided_with_end(
        self,
        appeal_id: int,
        state: AppealState,
        councilor: int,
        reason: str,
        restriction_until: datetime | None = None,
        restriction_days: int = 0,
        effects: Sequence[NewEffect] = (),
    ) -> WithEnd:
        """`decide`, written in the hearing's ending transaction (`TrialStore.finish(also=…)`): no crash leaves
        the appeal taken with its hearing over."""

        async def step(conn: Connection, now: datetime) -> bool:
            return await _decide(
                conn, appeal_id, state, councilor, reason, now, restriction_until, restriction_days, effects
            )

        return step

    async def add_ping(self, appeal_id: int, member: int, now: datetime, effects: Sequence[NewEffect] = ()) -> bool:
        """Remember that `member` was told of the appeal, with the `effects` that tell him; False (and nothing
        written) when he already was."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT OR IGNORE INTO appeal_pings (appeal, member, at) VALUES (?, ?, ?)",
                (appeal_id, member, now_text(now)),
            )
            if cur.rowcount > 0:
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def mark(
        self,
        appeal_id: int,
        column: str,
        now: datetime,
        effects: Sequence[NewEffect] = (),
        pinged: Sequence[int] = (),
    ) -> bool:
        """Mark the 5-minute ping, the review reminder or the overdue notice as sent, once, with its `effects`
        and the members it tells (`pinged`) in the same transaction."""
        assert column in ("pinged", "reminded", "overdue")
        async with self.db.transaction() as conn:
            cur = await conn.execute(f"UPDATE appeals SET {column} = 1 WHERE id = ? AND {column} = 0", (appeal_id,))
            if cur.rowcount > 0:
                await _add_pings(conn, appeal_id, pinged, now)
                await add_effects(conn, effects, now)
            return cur.rowcount > 0

    async def ban(self, member: int) -> AppealBan | None:
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT member, until, reason FROM appeal_bans WHERE member = ?", (member,)
            )
        )
        if not rows:
            return None
        until = _t(rows[0][1])
        assert until is not None
        return AppealBan(int(rows[0][0]), until, rows[0][2])


async def _add_pings(conn: Connection, appeal_id: int, members: Sequence[int], now: datetime) -> None:
    await conn.executemany(
        "INSERT OR IGNORE INTO appeal_pings (appeal, member, at) VALUES (?, ?, ?)",
        [(appeal_id, member, now_text(now)) for member in members],
    )


async def _reopen(conn: Connection, appeal_id: int, now: datetime, effects: Sequence[NewEffect]) -> bool:
    cur = await conn.execute(
        "UPDATE appeals SET state = 'filed', councilor = NULL, taken_at = NULL, hearing = NULL, pinged = 0,"
        " ping_at = ? WHERE id = ? AND state = 'taken'",
        (now_text(now), appeal_id),
    )
    if cur.rowcount:
        await EventStore.add(conn, now, "appeal_reopened", None, f"appeal:{appeal_id}")
        await add_effects(conn, effects, now)
    return cur.rowcount > 0


async def _decide(
    conn: Connection,
    appeal_id: int,
    state: AppealState,
    councilor: int,
    reason: str,
    now: datetime,
    restriction_until: datetime | None,
    restriction_days: int,
    effects: Sequence[NewEffect],
) -> bool:
    cur = await conn.execute(
        "UPDATE appeals SET state = ?, decided_at = ?, reason = ?, restriction_days = ?"
        " WHERE id = ? AND state = 'taken' AND councilor = ?",
        (state, now_text(now), reason, restriction_days, appeal_id, councilor),
    )
    if not cur.rowcount:
        return False
    row = await (await conn.execute("SELECT appellant FROM appeals WHERE id = ?", (appeal_id,))).fetchone()
    assert row is not None
    if restriction_until is not None:
        await conn.execute(
            "INSERT INTO appeal_bans (member, until, by, reason, at) VALUES (?, ?, ?, ?, ?)"
            # max(until, excluded.until), NULL (no end) when either is: written so both dialects read it
            " ON CONFLICT (member) DO UPDATE SET until = CASE WHEN appeal_bans.until IS NULL"
            " OR excluded.until IS NULL THEN NULL WHEN excluded.until > appeal_bans.until THEN excluded.until"
            " ELSE appeal_bans.until END, by = excluded.by,"
            " reason = excluded.reason, at = excluded.at",
            (row[0], now_text(restriction_until), councilor, reason, now_text(now)),
        )
    await EventStore.add(
        conn,
        now,
        "appeal_decided",
        councilor,
        f"appeal:{appeal_id}",
        state=str(state),
        reason=reason,
        restriction_days=restriction_days,
    )
    await add_effects(conn, effects, now)
    return True


async def offence_history(db: Database, culprit: str, offence: str) -> list[tuple[datetime, int]]:
    """When recorded verdicts punished `culprit` under the catalogue's `offence`, each with its suspension (or
    plavac) days (a suspension runs to its end: the general penalty model counts some windows from there); a
    penalty lifted since (a later verdict of its game, (niko)) was never the offence it named and does not count."""
    rows = await db.connection.execute_fetchall(
        "SELECT closed_at, coalesce(json_extract(verdict, '$.suspension_days'), json_extract(verdict, '$.plavac_days'))"
        " FROM trials"
        " WHERE outcome = 'verdict' AND json_extract(verdict, '$.kind') = 'kazna'"
        " AND json_extract(verdict, '$.culprit') = ? COLLATE NOCASE"
        " AND json_extract(verdict, '$.offence') = ? COLLATE NOCASE"
        " AND id NOT IN (SELECT trial FROM penalties WHERE lifted_at IS NOT NULL) ORDER BY closed_at",
        (culprit, offence),
    )
    out: list[tuple[datetime, int]] = []
    for row in rows:
        at = _t(row[0])
        assert at is not None
        out.append((at, int(row[1] or 0)))  # a JSON number: PostgreSQL reads it as text
    return out
