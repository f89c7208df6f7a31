"""Changes attached to a hand's paper (verdicts and players' corrections), kept as data and never edited:
a cancelled correction gets a `cancelled_at`, and the paper is always derived from the log plus these rows.

A change is written by `insert_change` (a verdict's, with its trial: `storage.trials`) or `add_change` (any
other, with its event), and cancelled by `cancel_change`, inside the caller's transaction: the players'
corrections (`storage.corrections`) and this module's store use the same three, and each raises the game's paper
version (`storage.games.GameStore.version`) in that transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rules.paper import ChangeKind, PaperChange
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.sql import Connection

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class NewPaperChange:
    game: int
    hand: int
    kind: ChangeKind
    data: dict[str, Any]
    by_member: int | None
    at: datetime
    reason: str = ""


@dataclass(frozen=True, slots=True)
class StoredPaperChange:
    id: int
    game: int
    hand: int
    kind: ChangeKind
    data: dict[str, Any]
    by_member: int | None
    at: datetime
    reason: str
    trial: int | None
    cancelled_at: datetime | None


_NEW_VERSION = "UPDATE games SET version = version + 1 WHERE number = ?"


async def insert_change(conn: Connection, change: NewPaperChange, trial: int | None) -> int:
    """Write a change, and raise its game's paper version with it (`GameStore.version`)."""
    await conn.execute(_NEW_VERSION, (change.game,))
    cur = await conn.execute(
        "INSERT INTO paper_changes (game, hand, kind, data, by_member, at, reason, trial)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            change.game,
            change.hand,
            change.kind,
            json.dumps(change.data, ensure_ascii=False),
            change.by_member,
            now_text(change.at),
            change.reason,
            trial,
        ),
    )
    return int(cur.lastrowid or 0)


async def add_change(conn: Connection, change: NewPaperChange) -> int:
    """A change made outside a trial (a players' correction, an operator's), with its event; its id."""
    change_id = await insert_change(conn, change, None)
    await EventStore.add(
        conn,
        change.at,
        "paper_change",
        change.by_member,
        f"game:{change.game}",
        hand=change.hand,
        change_kind=change.kind,
    )
    return change_id


async def cancel_change(conn: Connection, change_id: int, by: int | None, now: datetime) -> bool:
    """Cancel a standing change, with its event; False when it cannot be: already cancelled, a referee's (it
    carries its trial) or imposed by the Arbitar (its data carries ``"arbitar": true``)."""
    cur = await conn.execute(
        "UPDATE paper_changes SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL AND trial IS NULL"
        " AND json_extract(data, '$.arbitar') IS NULL",
        (now_text(now), change_id),
    )
    if cur.rowcount:
        await conn.execute(_NEW_VERSION.replace("?", "(SELECT game FROM paper_changes WHERE id = ?)"), (change_id,))
        await EventStore.add(conn, now, "paper_change_cancelled", by, f"change:{change_id}")
    return cur.rowcount > 0


class PaperChangeStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def rows(self, game: int, include_cancelled: bool = False) -> list[StoredPaperChange]:
        sql = (
            "SELECT id, game, hand, kind, data, by_member, at, reason, trial, cancelled_at FROM paper_changes"
            " WHERE game = ?" + ("" if include_cancelled else " AND cancelled_at IS NULL") + " ORDER BY id"
        )
        async with self.db.connection.execute(sql, (game,)) as cur:
            return [
                StoredPaperChange(
                    r[0],
                    r[1],
                    r[2],
                    ChangeKind(r[3]),
                    json.loads(r[4]),
                    r[5],
                    parse_stored_time(r[6]),
                    r[7] or "",
                    r[8],
                    parse_stored_time(r[9]) if r[9] else None,
                )
                for r in await cur.fetchall()
            ]

    async def for_game(self, game: int) -> list[PaperChange]:
        """The game's standing changes as the paper reads them (cancelled corrections left out)."""
        async with self.db.connection.execute(
            "SELECT c.id, c.hand, c.kind, c.data, coalesce(json_extract(c.data, '$.who'), m.nick, ''), c.at,"
            " c.reason, c.trial"
            " FROM paper_changes c LEFT JOIN members m ON m.id = c.by_member"
            " WHERE c.game = ? AND c.cancelled_at IS NULL ORDER BY c.id",
            (game,),
        ) as cur:
            rows = await cur.fetchall()
        out = []
        for change_id, hand, kind, data, who, at, reason, trial in rows:
            extra = json.loads(data)
            bule = extra.get("bule") or (0, 0, 0)
            out.append(
                PaperChange(
                    kind=ChangeKind(kind),
                    hand=hand,
                    who=who,
                    when=parse_stored_time(at),
                    why=reason or "",
                    trial=trial,
                    bule=(bule[0], bule[1], bule[2]),
                    player=extra.get("player"),
                    id=change_id,
                )
            )
        return out

    async def add(self, change: NewPaperChange) -> int:
        async with self.db.transaction() as conn:
            return await add_change(conn, change)

    async def cancel(self, change_id: int, by: int | None, now: datetime) -> bool:
        async with self.db.transaction() as conn:
            return await cancel_change(conn, change_id, by, now)
