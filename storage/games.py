"""Stored game logs: atomic imports, look-ups by number and by player, and the cross-check report.

A game is kept as its canonical log (compressed JSON) plus the columns the desk queries. Importing the same log
again changes nothing; a changed log replaces the stored one only while no call, trial or paper change refers
to the game.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rules.gamelog import Game, GameStatus, format_time, game_to_doc, parse_game

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class PreparedGame:
    """A validated game ready to store: built outside the transaction so the write itself is short."""

    game: Game
    digest: str
    blob: bytes
    cross_check: list[str] | None

    @classmethod
    def of(cls, game: Game, cross_check: list[str] | None = None) -> PreparedGame:
        text = json.dumps(game_to_doc(game), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
        raw = text.encode("utf-8")
        return cls(game, hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 6), cross_check)


@dataclass(frozen=True, slots=True)
class GameSummary:
    number: int
    rated: bool
    ai: bool
    status: GameStatus
    players: tuple[str, str, str]
    started_at: datetime
    ended_at: datetime | None
    hand_count: int

    @property
    def judgeable(self) -> bool:
        return self.rated and not self.ai


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    imported: int  # new or replaced games
    unchanged: int
    refused: list[str]  # one message per refused game
    hands: int  # hands in imported games


class GameStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def store(self, prepared: Sequence[PreparedGame], imported_at: datetime) -> ImportOutcome:
        """Store one file's games in a single transaction; a game referred to by the desk is refused, not replaced."""
        imported = unchanged = hands = 0
        refused: list[str] = []
        stamp = format_time(imported_at)
        async with self.db.transaction() as conn:
            for item in prepared:
                game = item.game
                async with conn.execute("SELECT digest FROM games WHERE number = ?", (game.number,)) as cur:
                    row = await cur.fetchone()
                if row is not None:
                    if row[0] == item.digest:
                        unchanged += 1
                        continue
                    why = await self._reference(game.number)
                    if why is not None:
                        refused.append(f"game {game.number}: the stored log differs but {why}, so it is kept; "
                                       "a log can be replaced only before anyone calls a referee for the game")
                        continue
                    await conn.execute("DELETE FROM games WHERE number = ?", (game.number,))
                ended = format_time(game.ended_at) if game.ended_at else None
                await conn.execute(
                    "INSERT INTO games (number, rated, ai, bule, refe_limit, status, started_at, ended_at,"
                    " hand_count, digest, log, cross_check, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (game.number, game.rated, game.ai, game.bule, game.refe_limit, game.status.value,
                     format_time(game.started_at), ended, len(game.hands), item.digest, item.blob,
                     json.dumps(item.cross_check, ensure_ascii=False) if item.cross_check is not None else None,
                     stamp),
                )
                await conn.executemany(
                    "INSERT INTO game_players (game, seat, nick, ended_at) VALUES (?,?,?,?)",
                    [(game.number, seat, nick, ended) for seat, nick in enumerate(game.players)],
                )
                imported += 1
                hands += len(game.hands)
        return ImportOutcome(imported, unchanged, refused, hands)

    async def _reference(self, number: int) -> str | None:
        """Why the desk still needs the stored log of this game, or None."""
        checks = (
            ("SELECT 1 FROM calls WHERE game = ? LIMIT 1", "a referee was called for it"),
            ("SELECT 1 FROM trials WHERE game = ? LIMIT 1", "it has been judged"),
            ("SELECT 1 FROM paper_changes WHERE game = ? LIMIT 1", "its paper carries changes"),
        )
        for sql, why in checks:
            async with self.db.connection.execute(sql, (number,)) as cur:
                if await cur.fetchone():
                    return why
        return None

    async def get(self, number: int) -> Game | None:
        async with self.db.connection.execute("SELECT log FROM games WHERE number = ?", (number,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return parse_game(json.loads(zlib.decompress(row[0])))

    async def summary(self, number: int) -> GameSummary | None:
        rows = await self._summaries("WHERE g.number = ?", (number,))
        return rows[0] if rows else None

    async def cross_check_report(self, number: int) -> list[str] | None:
        async with self.db.connection.execute("SELECT cross_check FROM games WHERE number = ?", (number,)) as cur:
            row = await cur.fetchone()
        if row is None or row[0] is None:
            return None
        report: list[str] = json.loads(row[0])
        return report

    async def listing(self, player: str | None = None, limit: int = 1000) -> list[GameSummary]:
        """Games newest first (by end, games in progress first), optionally only those `player` sat in."""
        if player is None:
            return await self._summaries("ORDER BY g.ended_at IS NOT NULL, g.ended_at DESC, g.number DESC LIMIT ?",
                                         (limit,))
        return await self._summaries(
            "WHERE g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            " ORDER BY g.ended_at IS NOT NULL, g.ended_at DESC, g.number DESC LIMIT ?", (player, limit))

    async def ended_since(self, player: str, since: datetime, limit: int = 50) -> list[GameSummary]:
        """`player`'s games that ended or were interrupted at or after `since`, newest first."""
        return await self._summaries(
            "WHERE g.number IN (SELECT game FROM game_players WHERE nick = ? AND ended_at >= ?)"
            " ORDER BY g.ended_at DESC, g.number DESC LIMIT ?", (player, format_time(since), limit))

    async def in_progress_for(self, player: str) -> list[GameSummary]:
        return await self._summaries(
            "WHERE g.status = 'in_progress' AND g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            " ORDER BY g.started_at DESC", (player,))

    async def count(self) -> tuple[int, int]:
        async with self.db.connection.execute("SELECT count(*), coalesce(sum(hand_count), 0) FROM games") as cur:
            row = await cur.fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    async def _summaries(self, tail: str, params: tuple[object, ...]) -> list[GameSummary]:
        sql = (
            "SELECT g.number, g.rated, g.ai, g.status, g.started_at, g.ended_at, g.hand_count,"
            " (SELECT group_concat(nick, char(31)) FROM (SELECT nick FROM game_players p WHERE p.game = g.number"
            " ORDER BY seat)) FROM games g " + tail
        )
        async with self.db.connection.execute(sql, params) as cur:
            rows = await cur.fetchall()
        out = []
        for number, rated, ai, status, started, ended, hand_count, nicks in rows:
            a, b, c = str(nicks).split("\x1f")
            out.append(GameSummary(int(number), bool(rated), bool(ai), GameStatus(status), (a, b, c),
                                   _time(started), _time(ended) if ended else None, int(hand_count)))
        return out


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
