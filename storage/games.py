"""Stored game logs: atomic imports, look-ups by number and by player, and the cross-check report.

A game is kept as its canonical log (compressed JSON) plus the columns the desk queries, and the hands the live
feed appended after that log, one row each (`game_hands`, migration 0037): the game is the log's hands followed by
those rows' (`game_of`). A log written whole holds every hand and deletes the game's rows in its transaction.
Importing the same log again changes nothing; a changed log replaces the stored one only while no call, trial or
paper change refers to the game.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rules.gamelog import Game, GameStatus, extends, format_time, game_to_doc, parse_game

if TYPE_CHECKING:
    from storage.database import Database
from rules.nicknames import identity_key
from rules.phrases import Phrase
from rules.problems import Key, Place, Problem, Word
from storage.nicknames import NickClash, add_spellings, spellings
from storage.sql import SyncConnection, rows_in


def canonical_log(game: Game, doc: dict[str, Any] | None = None) -> tuple[str, bytes]:
    """The digest (sha256 of the canonical JSON text) and the stored form (that text, zlib-compressed) of a game.

    `doc`, when given, must be ``game_to_doc(game)`` (e.g. the canonical document `rules.gamelog.read_game`
    returns); it saves writing the game out again.
    """
    text = json.dumps(
        game_to_doc(game) if doc is None else doc, separators=(",", ":"), ensure_ascii=False, sort_keys=True
    )
    raw = text.encode("utf-8")
    return hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 5)  # 5: time against size, docs/game-log.md


#: A stored game's parts, in order: its log (key 0), then each hand appended after it (key: its place, from 1).
GAME_PARTS = (
    "SELECT 0, log FROM games WHERE number = ? UNION ALL SELECT n, hand FROM game_hands WHERE game = ? ORDER BY 1"
)


def game_of(parts: Sequence[tuple[int, bytes]]) -> Game | None:
    """The game `GAME_PARTS` read (None: no such game): the log's document with the appended hands' added."""
    read = game_document(parts)
    return None if read is None else parse_game(read.doc)


class GameDocument(NamedTuple):
    """A stored game's document, not yet parsed (`game_document`), and the texts it was read from."""

    doc: dict[str, Any]  # the log's document, the appended hands added to its "hands"
    log: str  # the log's text (the canonical text of the game as the log was last written)
    appended: list[str]  # each hand appended after the log, its canonical text (`game_hands`)


def game_document(parts: Sequence[tuple[int, bytes]]) -> GameDocument | None:
    """The document of the game `GAME_PARTS` read (None: no such game), without parsing its hands."""
    if not parts or int(parts[0][0]) != 0:
        return None
    log = zlib.decompress(parts[0][1]).decode("utf-8")
    appended = [bytes(hand).decode("utf-8") for _, hand in parts[1:]]
    doc = json.loads(log)
    doc["hands"].extend(json.loads(hand) for hand in appended)
    return GameDocument(doc, log, appended)


class GameRow(NamedTuple):
    """What storing a game writes: its columns, seats, canonical log and cross-check report; no parsed hands.

    Small and cheap to pickle, so an import can prepare rows in worker processes and store them in the main one.
    """

    number: int
    rated: bool
    ai: bool
    bule: int
    refe_limit: int
    status: GameStatus
    started_at: str
    ended_at: str | None
    hand_count: int
    players: tuple[str, str, str]
    digest: str
    blob: bytes
    cross_check: list[str] | None

    @classmethod
    def of(cls, game: Game, cross_check: list[str] | None = None, doc: dict[str, Any] | None = None) -> GameRow:
        """The row of `game`; `doc` as for `canonical_log`."""
        digest, blob = canonical_log(game, doc)
        return cls.with_log(game, digest, blob, cross_check)

    @classmethod
    def with_log(cls, game: Game, digest: str, blob: bytes, cross_check: list[str] | None) -> GameRow:
        return cls(
            game.number,
            game.rated,
            game.ai,
            game.bule,
            game.refe_limit,
            game.status,
            format_time(game.started_at),
            format_time(game.ended_at) if game.ended_at else None,
            len(game.hands),
            game.players,
            digest,
            blob,
            cross_check,
        )


@dataclass(frozen=True, slots=True)
class PreparedGame:
    """A validated game ready to store: built outside the transaction so the write itself is short."""

    game: Game
    digest: str
    blob: bytes
    cross_check: list[str] | None

    @classmethod
    def of(cls, game: Game, cross_check: list[str] | None = None) -> PreparedGame:
        digest, blob = canonical_log(game)
        return cls(game, digest, blob, cross_check)

    def row(self) -> GameRow:
        return GameRow.with_log(self.game, self.digest, self.blob, self.cross_check)


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
    bule: int
    refe_limit: int

    @property
    def judgeable(self) -> bool:
        return self.rated and not self.ai


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    imported: int  # new or replaced games
    unchanged: int
    refused: list[Problem]  # one per refused game (rules.problems: the edge words it)
    hands: int  # hands in imported games


class GameStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def store(self, prepared: Sequence[PreparedGame | GameRow], imported_at: datetime) -> ImportOutcome:
        """Store one file's games in a single transaction; a game referred to by the desk is refused, not replaced.

        The transaction is one hop to the database's thread (`Database.run_transaction`): the stored digests and
        the registered spellings of every player are read with one statement each, the games written with a
        handful of batched ones, so the write lock is held for the writing alone and the live feed and the desk
        beside an import wait for it briefly.
        """
        rows = [item if isinstance(item, GameRow) else item.row() for item in prepared]
        return await self.db.run_transaction(lambda conn: _store(conn, rows, imported_at))

    async def version(self, number: int) -> int | None:
        """The version of the game's paper (migration 0033): raised by every write the paper is computed from —
        the log stored or grown here and by the live feed, a change written or cancelled (`storage.changes`) —
        in that write's transaction; None for a game not stored."""
        async with self.db.connection.execute("SELECT version FROM games WHERE number = ?", (number,)) as cur:
            row = await cur.fetchone()
        return None if row is None else int(row[0])

    async def get(self, number: int) -> Game | None:
        return game_of(await self.parts(number))

    async def parts(self, number: int) -> list[tuple[int, bytes]]:
        """The game's stored parts (`GAME_PARTS`), read in one statement; `game_of` makes the game of them."""
        return [
            (int(key), bytes(data))
            for key, data in await self.db.connection.execute_fetchall(GAME_PARTS, (number, number))
        ]

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
            return await self._summaries(
                "ORDER BY g.ended_at IS NOT NULL, g.ended_at DESC, g.number DESC LIMIT ?", (limit,)
            )
        return await self._summaries(
            "WHERE g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            " ORDER BY g.ended_at IS NOT NULL, g.ended_at DESC, g.number DESC LIMIT ?",
            (player, limit),
        )

    async def search(
        self,
        played_by: Sequence[str] = (),
        number: int | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        limit: int = 100,
    ) -> list[GameSummary]:
        """Games newest first (games in progress first) that every nickname of `played_by` sat in, numbered
        `number` when given, played within ``[start, end)`` when given (started before its end, not ended before
        its start)."""
        where: list[str] = []
        params: list[object] = []
        for nick in played_by:
            where.append("g.number IN (SELECT game FROM game_players WHERE nick = ?)")
            params.append(nick)
        if number is not None:
            where.append("g.number = ?")
            params.append(number)
        if end is not None:
            where.append("g.started_at < ?")
            params.append(format_time(end))
        if start is not None:
            where.append("(g.ended_at IS NULL OR g.ended_at >= ?)")
            params.append(format_time(start))
        tail = ("WHERE " + " AND ".join(where) + " ") if where else ""
        return await self._summaries(
            tail + "ORDER BY g.ended_at IS NOT NULL, g.ended_at DESC, g.number DESC LIMIT ?", (*params, limit)
        )

    async def ended_since(self, player: str, since: datetime, limit: int = 50) -> list[GameSummary]:
        """`player`'s games that ended or were interrupted at or after `since`, newest first."""
        return await self._summaries(
            "WHERE g.number IN (SELECT game FROM game_players WHERE nick = ? AND ended_at >= ?)"
            " ORDER BY g.ended_at DESC, g.number DESC LIMIT ?",
            (player, format_time(since), limit),
        )

    async def in_progress_for(self, player: str) -> list[GameSummary]:
        return await self._summaries(
            "WHERE g.status = 'in_progress' AND g.number IN (SELECT game FROM game_players WHERE nick = ?)"
            " ORDER BY g.started_at DESC",
            (player,),
        )

    async def count(self) -> tuple[int, int]:
        async with self.db.connection.execute("SELECT count(*), coalesce(sum(hand_count), 0) FROM games") as cur:
            row = await cur.fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    async def _summaries(self, tail: str, params: tuple[object, ...]) -> list[GameSummary]:
        sql = (
            "SELECT g.number, g.rated, g.ai, g.status, g.started_at, g.ended_at, g.hand_count, g.bule, g.refe_limit,"
            " (SELECT group_concat(nick, char(31)) FROM (SELECT nick FROM game_players p WHERE p.game = g.number"
            " ORDER BY seat) AS seats) FROM games g " + tail
        )
        async with self.db.connection.execute(sql, params) as cur:
            rows = await cur.fetchall()
        out = []
        for number, rated, ai, status, started, ended, hand_count, bule, refe_limit, nicks in rows:
            a, b, c = str(nicks).split("\x1f")
            out.append(
                GameSummary(
                    int(number),
                    bool(rated),
                    bool(ai),
                    GameStatus(status),
                    (a, b, c),
                    _time(started),
                    _time(ended) if ended else None,
                    int(hand_count),
                    int(bule),
                    int(refe_limit),
                )
            )
        return out


_UPSERT = (
    "INSERT INTO games (number, rated, ai, bule, refe_limit, status, started_at, ended_at,"
    " hand_count, digest, log, cross_check, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (number) DO UPDATE SET rated = excluded.rated, ai = excluded.ai,"
    " bule = excluded.bule, refe_limit = excluded.refe_limit, status = excluded.status,"
    " started_at = excluded.started_at, ended_at = excluded.ended_at,"
    " hand_count = excluded.hand_count, digest = excluded.digest, log = excluded.log,"
    " cross_check = excluded.cross_check, imported_at = excluded.imported_at,"
    " version = games.version + 1"
)
_REFERENCES = (
    ("SELECT 1 FROM calls WHERE game = ? LIMIT 1", Word.REFEREE_CALLED),
    ("SELECT 1 FROM trials WHERE game = ? LIMIT 1", Word.JUDGED),
    ("SELECT 1 FROM paper_changes WHERE game = ? LIMIT 1", Word.PAPER_CHANGED),
)


def _store(conn: SyncConnection, rows: Sequence[GameRow], imported_at: datetime) -> ImportOutcome:
    """`GameStore.store`'s transaction (on the database's thread)."""
    imported = unchanged = hands = 0
    refused: list[Problem] = []
    stamp = format_time(imported_at)
    pending: dict[int, GameRow] = {}
    replaced: list[tuple[int]] = []
    stored = _digests(conn, [row.number for row in rows])
    keys = {nick: identity_key(nick) for row in rows for nick in row.players}
    registered = spellings(conn, keys.values())  # identity key → the club's spelling, the file's own added
    new_nicks: dict[str, str] = {}
    for row in rows:
        number = row.number
        earlier = pending.get(number)
        if earlier is not None:  # the same game twice in one call: the later log wins, as if stored in turn
            if earlier.digest == row.digest:
                unchanged += 1
                continue
        elif number in stored:
            if stored[number] == row.digest:
                unchanged += 1
                continue
            why = _reference(conn, number)
            if why is not None and not _continues(conn, number, row):
                refused.append(Problem.of(Key.STORED_KEPT, Place(game=number), why=Phrase(why)))
                continue
            replaced.append((number,))
        clash = next(
            (
                NickClash(nick, registered[keys[nick]])
                for nick in row.players
                if registered.get(keys[nick], nick) != nick
            ),
            None,
        )
        if clash is not None:
            refused.append(Problem.of(Key.NICK_IMITATED, Place(game=number), nick=clash.nick, imitates=clash.imitates))
            continue
        for nick in row.players:
            if keys[nick] not in registered:
                registered[keys[nick]] = new_nicks[nick] = nick
        pending[number] = row
        imported += 1
        hands += row.hand_count
    add_spellings(conn, [(nick, keys[nick]) for nick in new_nicks], imported_at)
    if replaced:  # the desk's rows refer to the game, so its row is updated in place, never deleted
        conn.executemany("DELETE FROM game_players WHERE game = ?", replaced)
        conn.executemany("DELETE FROM game_hands WHERE game = ?", replaced)  # the new log holds every hand
    if pending:
        conn.executemany(
            _UPSERT,
            [
                (
                    r.number,
                    r.rated,
                    r.ai,
                    r.bule,
                    r.refe_limit,
                    r.status,
                    r.started_at,
                    r.ended_at,
                    r.hand_count,
                    r.digest,
                    r.blob,
                    json.dumps(r.cross_check, ensure_ascii=False) if r.cross_check is not None else None,
                    stamp,
                )
                for r in pending.values()
            ],
        )
        conn.executemany(
            "INSERT INTO game_players (game, seat, nick, ended_at) VALUES (?,?,?,?)",
            [(r.number, seat, nick, r.ended_at) for r in pending.values() for seat, nick in enumerate(r.players)],
        )
    return ImportOutcome(imported, unchanged, refused, hands)


def _digests(conn: SyncConnection, numbers: Sequence[int]) -> dict[int, str]:
    """The stored digest of each of `numbers` that is stored."""
    rows = rows_in(conn, "SELECT number, digest FROM games WHERE number IN ({marks})", numbers)
    return {int(number): str(digest) for number, digest in rows}


def _continues(conn: SyncConnection, number: int, row: GameRow) -> bool:
    """Whether the new log only continues the stored one (a game in progress that went on)."""
    old = game_of(conn.execute(GAME_PARTS, (number, number)).fetchall())
    if old is None:
        return False
    return extends(old, parse_game(json.loads(zlib.decompress(row.blob))))


def _reference(conn: SyncConnection, number: int) -> Word | None:
    """Why the desk still needs the stored log of this game, or None."""
    for sql, why in _REFERENCES:
        if conn.execute(sql, (number,)).fetchone() is not None:
            return why
    return None


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
