"""The monthly league: which months are closed (by an admin or after the grace) and the standings frozen when a
month closes, plus the rated games of a month the live standings are computed from.

An open month's standings are computed live by the desk (paper results of rated games, the napustio charge,
active penalty points); a closed month reads only the frozen rows, so nothing that happens later changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rules.gamelog import GameStatus, format_time
from rules.penalties import month_end, month_start
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.states import MonthClosing

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class Standing:
    """One member's league month: games counted, their points, the napustio charge, penalty points, napustio."""

    month: str
    member: int
    games: int = 0
    game_points: int = 0
    abandon_points: int = 0
    penalty_points: int = 0
    abandoned: int = 0

    @property
    def points(self) -> int:
        """League points from games (the napustio charge included); penalty points are shown beside them."""
        return self.game_points + self.abandon_points


@dataclass(frozen=True, slots=True)
class ClosedMonth:
    month: str
    closed_at: datetime
    closed_by: int | None
    how: MonthClosing


@dataclass(frozen=True, slots=True)
class MonthGame:
    number: int
    status: GameStatus
    players: tuple[str, ...]


class LeagueStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def closed(self, month: str) -> ClosedMonth | None:
        async with self.db.connection.execute(
            "SELECT month, closed_at, closed_by, how FROM league_months WHERE month = ?", (month,)
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else ClosedMonth(row[0], parse_stored_time(row[1]), row[2], MonthClosing(row[3]))

    async def closed_months(self) -> list[ClosedMonth]:
        async with self.db.connection.execute(
            "SELECT month, closed_at, closed_by, how FROM league_months ORDER BY month"
        ) as cur:
            return [ClosedMonth(r[0], parse_stored_time(r[1]), r[2], MonthClosing(r[3])) for r in await cur.fetchall()]

    async def close(
        self, month: str, standings: list[Standing], now: datetime, by: int | None, how: MonthClosing, reason: str = ""
    ) -> bool:
        """Close `month` and freeze its standings; False when it was closed already."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT OR IGNORE INTO league_months (month, closed_at, closed_by, how) VALUES (?, ?, ?, ?)",
                (month, now_text(now), by, how),
            )
            if not cur.rowcount:
                return False
            await conn.executemany(
                "INSERT INTO league_standings (month, member, games, game_points, abandon_points, penalty_points,"
                " abandoned) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (month, s.member, s.games, s.game_points, s.abandon_points, s.penalty_points, s.abandoned)
                    for s in standings
                ],
            )
            await EventStore.add(
                conn, now, "league_closed", by, f"month:{month}", how=how, reason=reason, members=len(standings)
            )
        return True

    async def frozen(self, month: str, member: int) -> Standing:
        async with self.db.connection.execute(
            "SELECT games, game_points, abandon_points, penalty_points, abandoned FROM league_standings"
            " WHERE month = ? AND member = ?",
            (month, member),
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return Standing(month, member)
        return Standing(month, member, row[0], row[1], row[2], row[3], row[4])

    async def frozen_month(self, month: str) -> list[Standing]:
        async with self.db.connection.execute(
            "SELECT member, games, game_points, abandon_points, penalty_points, abandoned FROM league_standings"
            " WHERE month = ? ORDER BY member",
            (month,),
        ) as cur:
            return [Standing(month, r[0], r[1], r[2], r[3], r[4], r[5]) for r in await cur.fetchall()]

    async def rated_games(self, month: str, nick: str | None = None) -> list[MonthGame]:
        """Rated games that ended (finished or interrupted) in `month`, optionally only those `nick` played."""
        sql = (
            "SELECT g.number, g.status, (SELECT group_concat(nick, char(31)) FROM (SELECT nick FROM game_players p"
            " WHERE p.game = g.number ORDER BY seat) AS seats) FROM games g"
            " WHERE g.rated = 1 AND g.status != 'in_progress'"
            " AND g.ended_at >= ? AND g.ended_at < ?"
        )
        params: tuple[object, ...] = (format_time(month_start(month)), format_time(month_end(month)))
        if nick is not None:
            sql += " AND g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            params = (*params, nick)
        async with self.db.connection.execute(sql + " ORDER BY g.number", params) as cur:
            return [
                MonthGame(int(r[0]), GameStatus(str(r[1])), tuple(str(r[2]).split("\x1f")))
                for r in await cur.fetchall()
            ]

    async def active_members(self, month: str) -> list[int]:
        """Members with anything in `month`: a rated game, a penalty or a napustio."""
        start, end = format_time(month_start(month)), format_time(month_end(month))
        async with self.db.connection.execute(
            "SELECT m.id FROM members m WHERE m.nick IN (SELECT p.nick FROM game_players p JOIN games g"
            " ON g.number = p.game WHERE g.rated = 1 AND g.ended_at >= ? AND g.ended_at < ?)"
            " OR m.id IN (SELECT member FROM penalties WHERE month = ?)"
            " OR m.nick IN (SELECT counted FROM napustio WHERE month = ?) ORDER BY m.id",
            (start, end, month, month),
        ) as cur:
            return [int(r[0]) for r in await cur.fetchall()]
