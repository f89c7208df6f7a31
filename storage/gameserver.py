"""What the game-server link stores: the events taken (idempotent by id, ordered per game by sequence number), the
live state they carry (the games' logs, seating, the moves of hands in progress, pending game offers, link
codes) and the korekcija requests.

`LiveFeedStore.take_many` is the one door for events: in one transaction for a batch of them it refuses a replay or
a gap, applies each event's effect and records the event, so an event acknowledged to the game server is durable
and an event that failed left nothing behind. An effect says how it may fail, and so what it costs: `Sure` (never
refused: run bare), `Guarded` (refused before it writes: run bare), a bare callable (`Refusable`: run in a
savepoint), `MoveRow` (a move: written with the batch's others in one statement).
"""

from __future__ import annotations

import functools
import hashlib
import json
import zlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

from rules.gamelog import Game
from storage.chat_outbox import NewEffect, add_effects, add_effects_sync
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.games import GameRow
from storage.nicknames import NickClash, register_sync
from storage.outbox import OutboxStore
from storage.sql import Connection, SyncConnection
from storage.states import KorekcijaState

if TYPE_CHECKING:
    from storage.database import Database


async def _rows(db: Database, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
    return list(await db.connection.execute_fetchall(sql, params))


def _take(
    conn: SyncConnection,
    events: Sequence[tuple[str, str, int | None, int | None, str, Effect | None]],
    stamp: str,
    asking: bool,
    together: bool = False,
) -> list[TakeResult | EffectRefused]:
    """`LiveFeedStore.take_many`'s transaction. The ids already taken, each game's last sequence number and the
    games' korekcija requests still open are read once for the whole batch (one statement: `_state`) and kept up
    to date as its events are taken. When `asking` and a move or a hand's end (`MoveRow`, `HandDone`) lapses an
    open request of its game whose parties it does not say how to tell, `TellFirst` is raised before anything is
    written. An effect runs bare unless it may be refused after it wrote (`_bare`), then in a savepoint of its
    own; the rows (`MoveRow`, `HandDone`) are written after the loop, each kind in one statement, then the open
    requests they lapse (a hand's end looks for them only when its game has one); the taken events are recorded
    together at the end (no effect reads them), in one statement, and when `together` (PostgreSQL, where each
    statement is a round trip) all in one statement (`_ROWS_TOGETHER`). The same answers as taking the events one
    by one: an event that was refused leaves its id untaken and its game's number unused, an event taken earlier
    in the batch is a duplicate, and an effect of a game whose row the batch holds runs after that row is written
    (the feed's batches hold one event of a game at most). Any error but a refusal fails the whole transaction
    (nothing of the batch is written, none is acknowledged)."""
    taken, last, requests = _state(conn, events)
    if asking:
        untold = {
            row.game: "move" if isinstance(row, MoveRow) else "hand"
            for *_, effect in events
            for row in _rows_of(effect)
            if any(r not in row.told for r in requests.get(row.game, ()))
        }
        if untold:
            raise TellFirst(untold)
    recorded: list[tuple[str, str, int | None, int | None, str, str]] = []
    rows = _Rows([], [])
    out: list[TakeResult | EffectRefused] = []
    for event_id, kind, game, seq, body, effect in events:
        current = 0 if game is None else last.get(game, 0)
        earlier = taken.get(event_id)
        if earlier is not None:
            same = earlier == body or _canonical(earlier) == _canonical(body)
            out.append(TakeResult(Taken.DUPLICATE if same else Taken.ID_REUSED, current))
            continue
        if game is not None and seq != current + 1:
            out.append(TakeResult(Taken.GAP, current))
            continue
        if effect is not None and not isinstance(effect, MoveRow) and rows.of(game):
            _write(conn, rows, requests)  # an effect after a row of its game in the batch sees that row written
            rows = _Rows([], [])
        if isinstance(effect, MoveRow):
            rows.moves.append(effect)
        elif effect is not None:
            refused = _run(conn, effect, rows, together)
            if refused is not None:
                out.append(refused)
                continue
        taken[event_id] = body
        if game is not None:
            last[game] = seq or 0
        recorded.append((event_id, kind, game, seq, stamp, body))
        out.append(TakeResult(Taken.ACCEPTED, seq or 0))
    events_rows = json.dumps(
        [{"id": i, "type": k, "game": g, "seq": n, "at": at, "body": b} for i, k, g, n, at, b in recorded],
        ensure_ascii=False,
    )
    if together and recorded:
        conn.execute(_ROWS_TOGETHER, (_move_rows(rows.moves), _done_rows(rows.done), events_rows))
        _lapse_rows(conn, rows, requests)
        return out
    _write(conn, rows, requests)
    if recorded:
        conn.execute(_EVENTS, (events_rows,))
    return out


def _run(
    conn: SyncConnection, effect: Refusable | Guarded | Sure | HandDone | Steps, rows: _Rows, together: bool
) -> EffectRefused | None:
    """One event's effect run (its `HandDone` rows added to `rows` once it is not refused; a `Guarded` step in one
    statement when `together` and it has that form); its refusal, if it was refused (then it wrote nothing that
    stays)."""
    steps = effect.steps if isinstance(effect, Steps) else (effect,)
    done: list[HandDone] = []
    bare = _bare(steps)
    if not bare:
        conn.execute("SAVEPOINT event")
    try:
        for step in steps:
            if isinstance(step, HandDone):
                done.append(step)
            elif isinstance(step, Guarded) and together and step.at_once is not None:
                step.at_once(conn)
            elif isinstance(step, Sure | Guarded):
                step.run(conn)
            else:
                step(conn)
    except EffectRefused as refused:
        if not bare:  # a bare effect is refused before it wrote anything: nothing to roll back
            conn.execute("ROLLBACK TO event")
            conn.execute("RELEASE event")
        return refused
    if not bare:
        conn.execute("RELEASE event")
    rows.done.extend(done)
    return None


def _bare(steps: Sequence[Refusable | Guarded | Sure | HandDone]) -> bool:
    """Whether an effect of these steps runs without a savepoint: it can be refused only before it writes
    anything (by its first step, `Guarded`), or not at all (`Sure`, `HandDone`)."""
    return all(
        isinstance(step, Sure | HandDone) or (i == 0 and isinstance(step, Guarded)) for i, step in enumerate(steps)
    )


@dataclass(slots=True)
class _Rows:
    """The rows of the batch's events not yet written: moves, and hands that ended."""

    moves: list[MoveRow]
    done: list[HandDone]

    def of(self, game: int | None) -> bool:
        return any(m.game == game for m in self.moves) or any(d.game == game for d in self.done)


def _rows_of(effect: Effect | None) -> list[MoveRow | HandDone]:
    if isinstance(effect, MoveRow | HandDone):
        return [effect]
    if isinstance(effect, Steps):
        return [step for step in effect.steps if isinstance(step, HandDone)]
    return []


# The batch's rows go as one JSON array a statement (`json_each`: each element an object, its fields read by
# `json_extract`), so a batch's writes are one statement each, of one text whatever the batch's size, and
# PostgreSQL writes them in one execution (not one per row). The texts come back as they went (JSON strings hold
# any text the request bodies and nicknames can).
_MOVES = (
    "INSERT INTO gs_moves (game, hand, move, player, what, at)"
    " SELECT CAST(json_extract(k.value, '$.game') AS BIGINT), CAST(json_extract(k.value, '$.hand') AS BIGINT),"
    " CAST(json_extract(k.value, '$.move') AS BIGINT), json_extract(k.value, '$.player'),"
    " json_extract(k.value, '$.what'), json_extract(k.value, '$.at') FROM json_each(?) AS k"
)
_DONE = (  # (WHERE true: SQLite reads the ON of an upsert after a bare FROM as a join's)
    "INSERT INTO gs_hands_done (game, hand) SELECT CAST(json_extract(k.value, '$.game') AS BIGINT),"
    " CAST(json_extract(k.value, '$.hand') AS BIGINT) FROM json_each(?) AS k WHERE true ON CONFLICT DO NOTHING"
)
_EVENTS = (
    "INSERT INTO gs_events (id, type, game, seq, received_at, body)"
    " SELECT json_extract(k.value, '$.id'), json_extract(k.value, '$.type'),"
    " CAST(json_extract(k.value, '$.game') AS BIGINT), CAST(json_extract(k.value, '$.seq') AS BIGINT),"
    " json_extract(k.value, '$.at'), json_extract(k.value, '$.body') FROM json_each(?) AS k"
)
# All three in one statement (a data-modifying WITH, which PostgreSQL has and SQLite has not): the batch's
# writes are one round trip.
_ROWS_TOGETHER = f"WITH moved AS ({_MOVES}), done AS ({_DONE}) {_EVENTS}"


def _move_rows(moves: Sequence[MoveRow]) -> str:
    return json.dumps(
        [
            {"game": m.game, "hand": m.hand, "move": m.move, "player": m.player, "what": m.what, "at": m.stamp}
            for m in moves
        ],
        ensure_ascii=False,
    )


def _done_rows(done: Sequence[HandDone]) -> str:
    return json.dumps([{"game": d.game, "hand": d.hand} for d in done])


def _write(conn: SyncConnection, rows: _Rows, requests: Mapping[int, Sequence[int]]) -> None:
    """The rows written (one statement a kind), then the korekcija requests they lapse."""
    if rows.moves:
        conn.execute(_MOVES, (_move_rows(rows.moves),))
    if rows.done:
        conn.execute(_DONE, (_done_rows(rows.done),))
    _lapse_rows(conn, rows, requests)


def _lapse_rows(conn: SyncConnection, rows: _Rows, requests: Mapping[int, Sequence[int]]) -> None:
    """Once the rows are written, the korekcija requests still open that they lapse (`requests`, by game, as the
    batch read them: a request is never opened inside the batch), each one's parties told if it did: each request
    of a move's game (no longer about the last move), and each on an ended hand."""
    for move in {m.game: m for m in rows.moves}.values():
        for request in requests.get(move.game, ()):
            _lapse_one(conn, request, move.stamp, move.now, move.told)
    for done in rows.done:
        if requests.get(done.game):
            _lapse(conn, "game = ? AND hand = ?", (done.game, done.hand), done.now, done.told)


def _told(event: Taking, tellings: Mapping[int, Lapses]) -> Taking:
    """The event, its move or hand's end of a game in `tellings` with those tellings added."""
    effect = event[5]
    if isinstance(effect, MoveRow | HandDone) and effect.game in tellings:
        return (*event[:5], replace(effect, told={**effect.told, **tellings[effect.game]}))
    if isinstance(effect, Steps) and any(isinstance(s, HandDone) and s.game in tellings for s in effect.steps):
        steps = tuple(
            replace(s, told={**s.told, **tellings[s.game]}) if isinstance(s, HandDone) and s.game in tellings else s
            for s in effect.steps
        )
        return (*event[:5], Steps(steps))
    return event


class TellFirst(Exception):
    """The moves or hands' ends of `games` lapse korekcija requests whose parties they do not say how to tell:
    nothing was written, and `take_many` asks for those games' tellings (why each lapses: ``move``, ``hand``)
    before it takes the batch again."""

    def __init__(self, games: Mapping[int, str]) -> None:
        super().__init__(f"games {sorted(games)}: korekcija requests lapse untold")
        self.games = games


def _state(
    conn: SyncConnection, events: Sequence[tuple[str, str, int | None, int | None, str, Effect | None]]
) -> tuple[dict[str, str], dict[int, int], dict[int, list[int]]]:
    """What the batch's events are checked against, read in one statement (`_STATE`): the stored body of each id
    already taken, the last sequence number taken of each game, and each game's korekcija requests still open.
    The keys go as two JSON arrays, so the statement has one text whatever the batch's size."""
    ids = json.dumps(sorted({event[0] for event in events}), ensure_ascii=False)
    games = json.dumps(sorted({event[2] for event in events if event[2] is not None}))
    taken: dict[str, str] = {}
    last: dict[int, int] = {}
    requests: dict[int, list[int]] = {}
    for part, key, value in conn.execute(_STATE, (ids, games, games)).fetchall():
        if value is None:  # an id not taken, a game without events
            continue
        if int(part) == 0:
            taken[str(key)] = str(value)
        elif int(part) == 1:
            last[int(key)] = int(value)
        else:
            requests.setdefault(int(value), []).append(int(key))
    return taken, last, requests


# Each id and each game is looked up by itself, in a subquery the key's index answers (the id's primary key; the
# game's last number is the last entry of its range of `gs_events_by_game_seq`): what the batch costs does not
# grow with the events its games already have, and the plan does not hang on the tables' statistics (a table
# that grew since its last ANALYZE is still read through its index).
_STATE = (
    "SELECT 0, k.value, (SELECT body FROM gs_events WHERE id = k.value) FROM json_each(?) AS k"
    " UNION ALL SELECT 1, k.value,"
    " CAST((SELECT max(seq) FROM gs_events WHERE game = CAST(k.value AS BIGINT)) AS TEXT) FROM json_each(?) AS k"
    " UNION ALL SELECT 2, CAST(id AS TEXT), CAST(game AS TEXT) FROM korekcije"
    " WHERE game IN (SELECT CAST(value AS BIGINT) FROM json_each(?)) AND state IN ('pending', 'agreed')"
)
_TELLINGS = 3  # times a batch is taken again with the tellings of its moves' lapses


def _canonical(body: str) -> str:
    """An event's JSON with its keys sorted and no spaces: a resend may be serialised differently."""
    try:
        return json.dumps(json.loads(body), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    except ValueError:
        return body


def hand_text(hand_doc: dict[str, Any]) -> str:
    """One hand's canonical JSON text, as it stands inside its game's canonical text."""
    return json.dumps(hand_doc, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def live_row(game: Game, report: list[str] | None, head: dict[str, Any], hand_texts: list[str]) -> GameRow:
    """The row of a game the live feed grew: `head` is ``game_to_doc(game)`` without its hands and `hand_texts`
    its hands' `hand_text`s. The same canonical text and digest as `storage.games.canonical_log`; compressed
    faster (zlib level 1; every level reads back alike)."""
    raw = _live_text(head, hand_texts)
    return GameRow.with_log(game, hashlib.sha256(raw).hexdigest(), zlib.compress(raw, 1), report)


def live_digest(head: dict[str, Any], hand_texts: list[str]) -> str:
    """The digest `live_row` would give the game, without writing its log: a hand appended (`add_hand`)."""
    return hashlib.sha256(_live_text(head, hand_texts)).hexdigest()


def stored_texts(log: str, head: dict[str, Any], appended: Sequence[str], digest: str) -> list[str] | None:
    """The hands' texts of a stored game as `live_row` and `live_digest` take them, from the texts it was read
    from (`storage.games.GameDocument`): the log's hands as one text (cut out of the log between its head's
    parts, not written out again) and each appended hand's; joined with commas they are the game's hands in its
    canonical text. None unless the digest of the text they make is `digest`, the stored one: then that text is
    the stored game's canonical text, whatever the cut."""
    text = json.dumps({**head, "hands": []}, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    cut = text.find('"hands":[]') + len('"hands":[')
    before, after = text[:cut], text[cut:]
    if cut < len('"hands":[') or not (log.startswith(before) and log.endswith(after)):
        return None
    texts = [hands for hands in (log[len(before) : len(log) - len(after)], *appended) if hands]
    return texts if live_digest(head, texts) == digest else None


def _live_text(head: dict[str, Any], hand_texts: list[str]) -> bytes:
    """The game's canonical text, UTF-8, from its head and its hands' texts: a new hand costs its own text."""
    text = json.dumps({**head, "hands": []}, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    # Only the top-level key can read so: a nickname's quotes are escaped, and the hands list is empty here.
    text = text.replace('"hands":[]', '"hands":[' + ",".join(hand_texts) + "]", 1)
    return text.encode("utf-8")


class Taken(Enum):
    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"  # the id was taken before, with this body: acknowledged, nothing done
    ID_REUSED = "id_reused"  # the id was taken before with another body: refused, nothing done
    GAP = "gap"  # the game's sequence number is not the next one: the game server resends from last_seq + 1


@dataclass(frozen=True, slots=True)
class TakeResult:
    taken: Taken
    last_seq: int = 0


class EffectRefused(Exception):
    """The event does not fit what is stored (found inside the transaction): nothing is written."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


#: The chat effects that tell a lapsed korekcija's parties, by request id.
Lapses = Mapping[int, Sequence[NewEffect]]


def _lapse(conn: SyncConnection, where: str, params: tuple[object, ...], now: datetime, told: Lapses) -> None:
    """Korekcija requests still open (pending, or agreed and waiting for the game server) lapse; each one that
    did has its parties told."""
    stamp = now_text(now)
    for (request,) in conn.execute(
        f"SELECT id FROM korekcije WHERE {where} AND state IN ('pending', 'agreed')", params
    ).fetchall():
        _lapse_one(conn, int(request), stamp, now, told)


def _lapse_one(conn: SyncConnection, request: int, stamp: str, now: datetime, told: Lapses) -> None:
    """One open request lapses; its parties are told if it did (it was still open)."""
    changed = conn.execute(
        "UPDATE korekcije SET state = 'lapsed', closed_at = ? WHERE id = ? AND state IN ('pending', 'agreed')",
        (stamp, request),
    ).rowcount
    if changed:
        add_effects_sync(conn, told.get(request, ()), now)


@dataclass(frozen=True, slots=True)
class Sure:
    """An effect that refuses nothing (it raises no `EffectRefused`): `take_many` runs it without a savepoint."""

    run: Callable[[SyncConnection], None]


@dataclass(frozen=True, slots=True)
class Guarded:
    """An effect that may be refused (`EffectRefused`), but only before it writes anything: `take_many` runs it
    without a savepoint, and its refusal leaves nothing to roll back."""

    run: Callable[[SyncConnection], None]
    # The same in one statement, run instead on PostgreSQL (`take_many`'s `together`), where each statement is a
    # round trip and a data-modifying WITH joins what SQLite writes in two.
    at_once: Callable[[SyncConnection], None] | None = None


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A move of a hand in progress as `take_many` writes it, with the batch's other moves in one statement; a
    korekcija request of its game still open lapses (no longer about the last move), and its parties are told
    (`told`, by request: written only for a request this move did lapse)."""

    game: int
    hand: int
    move: int
    player: str
    what: str
    stamp: str
    now: datetime
    told: Lapses


@dataclass(frozen=True, slots=True)
class HandDone:
    """A hand ended: its row (`gs_hands_done`) written with the batch's others, and the korekcija requests on it
    still open lapse (looked for only when the batch read an open request of its game), each lapsed one's
    parties told (`told`, by request)."""

    game: int
    hand: int
    now: datetime
    told: Lapses


@dataclass(frozen=True, slots=True)
class Steps:
    """One event's effects, one after another (`LiveFeedStore.steps`)."""

    steps: tuple[Refusable | Guarded | Sure | HandDone, ...]


#: An effect that may be refused (`EffectRefused`): `take_many` runs it in a savepoint of its own.
Refusable = Callable[[SyncConnection], None]
#: What an event does in the transaction that takes it.
Effect = Refusable | Guarded | Sure | MoveRow | HandDone | Steps
#: An event as `LiveFeedStore.take_many` takes it: id, type, game, seq, body, effect.
Taking = tuple[str, str, int | None, int | None, str, Effect | None]


@dataclass(frozen=True, slots=True)
class Move:
    row: int
    game: int
    hand: int
    move: int
    player: str
    what: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Korekcija:
    id: int
    game: int
    hand: int
    move: int
    move_row: int
    requester: int
    created_at: datetime
    state: KorekcijaState
    answers: dict[str, bool]


# A finished hand's game grown, refused (nothing written) unless it is as the feed read it; the hand's row appended
# in the same statement (`_GROW_AND_APPEND`, PostgreSQL's: one round trip), or after it.
_GROW = (
    "UPDATE games SET hand_count = ?, digest = ?, cross_check = ?, imported_at = ?, version = version + 1"
    " WHERE number = ? AND digest = ? AND status = 'in_progress'"
)
_GROW_AND_APPEND = (
    f"WITH grown AS ({_GROW} RETURNING number) INSERT INTO game_hands (game, n, hand) SELECT number, ?, ? FROM grown"
    " RETURNING game"
)


class LiveFeedStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # Events -----------------------------------------------------------------------------------------------
    async def take_many(
        self,
        events: list[tuple[str, str, int | None, int | None, str, Effect | None]],
        now: datetime,
        told: Callable[[Mapping[int, str]], Awaitable[Mapping[int, Lapses]]] | None = None,
    ) -> list[TakeResult | EffectRefused]:
        """Take events (id, type, game, seq, body, effect) in one transaction: a replayed id is DUPLICATE
        (ID_REUSED when its body differs, keys' order and spaces aside), a sequence number that is not the game's
        next is GAP, otherwise the effect runs and the event is recorded; one whose effect is refused
        (`EffectRefused`) is rolled back alone (a savepoint) and answered with it. The whole transaction is one
        hop to the database thread, with a few statements per batch and one per event whose effect writes alone
        (`_take`): on PostgreSQL each statement is a round trip to the server. `told`, given the games whose moves
        or hands' ends lapse korekcija requests they do not say how to tell (and why each lapses: ``move`` or
        ``hand``), says how (by game, by request): the batch is then taken again with those tellings (a request
        opened meanwhile asks again; the last attempt takes the events as they are, and such a request lapses
        untold)."""
        stamp = now_text(now)
        together = self.db.dialect == "postgresql"
        for _attempt in range(_TELLINGS):
            try:
                return await self.db.run_transaction(
                    functools.partial(_take, events=events, stamp=stamp, asking=told is not None, together=together)
                )
            except TellFirst as first:
                assert told is not None
                tellings = await told(first.games)
                events = [_told(event, tellings) for event in events]
        return await self.db.run_transaction(
            functools.partial(_take, events=events, stamp=stamp, asking=False, together=together)
        )

    async def last_seq(self, game: int) -> int:
        rows = await _rows(self.db, "SELECT max(seq) FROM gs_events WHERE game = ?", (game,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    async def seen(self, event_id: str) -> bool:
        return bool(await _rows(self.db, "SELECT 1 FROM gs_events WHERE id = ?", (event_id,)))

    async def event_count(self) -> int:
        rows = await _rows(self.db, "SELECT count(*) FROM gs_events")
        return int(rows[0][0])

    async def closed_by_admin(self, game: int) -> bool:
        rows = await _rows(self.db, "SELECT 1 FROM gs_events WHERE game = ? AND type = 'game_closed' LIMIT 1", (game,))
        return bool(rows)

    async def digest(self, game: int) -> str | None:
        rows = await _rows(self.db, "SELECT digest FROM games WHERE number = ?", (game,))
        return str(rows[0][0]) if rows else None

    # Effects (each runs inside `take_many`'s transaction, on the database thread) ----------------------------------
    @staticmethod
    def store_game(row: GameRow, expected_digest: str | None, now: datetime) -> Refusable:
        """Write the game's log (new, or grown from the stored one whose digest was `expected_digest`)."""
        stamp = now_text(now)
        report = json.dumps(row.cross_check, ensure_ascii=False) if row.cross_check is not None else None

        def effect(conn: SyncConnection) -> None:
            found = conn.execute("SELECT digest, ended_at FROM games WHERE number = ?", (row.number,)).fetchone()
            if (found[0] if found else None) != expected_digest:
                raise EffectRefused("game", f"game {row.number} changed meanwhile; send the event again")
            conn.execute(
                "INSERT INTO games (number, rated, ai, bule, refe_limit, status, started_at, ended_at, hand_count,"
                " digest, log, cross_check, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT (number) DO UPDATE SET status = excluded.status, ended_at = excluded.ended_at,"
                " hand_count = excluded.hand_count, digest = excluded.digest, log = excluded.log,"
                " cross_check = excluded.cross_check, imported_at = excluded.imported_at,"
                " version = games.version + 1",
                (
                    row.number,
                    row.rated,
                    row.ai,
                    row.bule,
                    row.refe_limit,
                    row.status,
                    row.started_at,
                    row.ended_at,
                    row.hand_count,
                    row.digest,
                    row.blob,
                    report,
                    stamp,
                ),
            )
            if found is None:
                try:
                    register_sync(conn, row.players, now)
                except NickClash as clash:
                    raise EffectRefused("data.players", f"{clash}: a player of the club may not be imitated") from None
                conn.executemany(
                    "INSERT INTO game_players (game, seat, nick, ended_at) VALUES (?,?,?,?)",
                    [(row.number, seat, nick, row.ended_at) for seat, nick in enumerate(row.players)],
                )
            else:
                conn.execute("DELETE FROM game_hands WHERE game = ?", (row.number,))  # the log holds every hand
                if found[1] != row.ended_at:
                    conn.execute("UPDATE game_players SET ended_at = ? WHERE game = ?", (row.ended_at, row.number))

        return effect

    @staticmethod
    def add_hand(
        number: int,
        hand: str,
        hand_count: int,
        digest: str,
        report: list[str] | None,
        expected_digest: str | None,
        now: datetime,
    ) -> Guarded:
        """A finished hand appended to the stored game in progress whose digest was `expected_digest`: its row in
        `game_hands` (its place: `hand_count`) and the game's columns (`digest` the grown game's), the paper's
        version raised with them; the log is not written. Refused by its first statement, which writes nothing
        unless the game is as the feed read it."""
        stamp = now_text(now)
        cross_check = json.dumps(report, ensure_ascii=False) if report is not None else None

        grow = (hand_count, digest, cross_check, stamp, number, expected_digest)
        refused = EffectRefused("game", f"game {number} changed meanwhile; send the event again")

        def effect(conn: SyncConnection) -> None:
            if conn.execute(_GROW, grow).rowcount != 1:
                raise refused
            conn.execute(
                "INSERT INTO game_hands (game, n, hand) VALUES (?, ?, ?)", (number, hand_count, hand.encode("utf-8"))
            )

        def at_once(conn: SyncConnection) -> None:
            if not conn.execute(_GROW_AND_APPEND, (*grow, hand_count, hand.encode("utf-8"))).fetchall():
                raise refused  # the game was not grown, so no row appended: nothing written

        return Guarded(effect, at_once)

    @staticmethod
    def hand_done(game: int, hand: int, now: datetime, told: Lapses | None = None) -> HandDone:
        """A hand ended: korekcija requests on it lapse (each lapsed one's parties told: `told`, by request)."""
        return HandDone(game, hand, now, told or {})

    @staticmethod
    def steps(*effects: Refusable | Guarded | Sure | HandDone) -> Steps:
        """The effects one after another, as one event's: run bare when only the first may be refused, and only
        before it writes (`Guarded`), or none may; in a savepoint otherwise."""
        return Steps(effects)

    @staticmethod
    def seat(nick: str, game: int | None, now: datetime) -> Sure:
        """Where a member sits (None: he stood up); a nickname that is no member is not recorded."""
        stamp = now_text(now)

        def effect(conn: SyncConnection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO seating (member, game, since) SELECT id, ?, ? FROM members WHERE nick = ?",
                (game, stamp, nick),
            )

        return Sure(effect)

    @staticmethod
    def stand_all(game: int, now: datetime) -> Sure:
        """The game ended: everyone seated at it stands up."""
        stamp = now_text(now)

        def effect(conn: SyncConnection) -> None:
            conn.execute("UPDATE seating SET game = NULL, since = ? WHERE game = ?", (stamp, game))

        return Sure(effect)

    @staticmethod
    def move(
        game: int, hand: int, move: int, player: str, what: str, now: datetime, told: Lapses | None = None
    ) -> MoveRow:
        """A move of the hand in progress; a pending korekcija of an earlier move lapses (no longer the last), and
        its parties are told (`told`, by request: written only for a request this move did lapse)."""
        return MoveRow(game, hand, move, player, what, now_text(now), now, told or {})

    @staticmethod
    def undone(game: int, hand: int, move: int, now: datetime, told: Sequence[NewEffect] = ()) -> Guarded:
        """The game server took a move back (korekcija done); the chat effects that tell it (`told`) are written
        with it."""
        stamp = now_text(now)

        def effect(conn: SyncConnection) -> None:
            row = conn.execute(
                "SELECT id FROM gs_moves WHERE game = ? AND hand = ? AND move = ? AND undone = 0"
                " ORDER BY id DESC LIMIT 1",
                (game, hand, move),
            ).fetchone()
            if row is None:
                raise EffectRefused("data.move", f"game {game}, hand {hand} has no move {move} to take back")
            conn.execute("UPDATE gs_moves SET undone = 1 WHERE id = ?", (row[0],))
            conn.execute(
                "UPDATE korekcije SET state = 'done', closed_at = ? WHERE move_row = ?"
                " AND state IN ('pending', 'agreed')",
                (stamp, row[0]),
            )
            add_effects_sync(conn, told, now)

        return Guarded(effect)

    @staticmethod
    def offer(nick: str, offer: str, made: bool, now: datetime) -> Sure:
        """An offer made or withdrawn. Offers are about no game, so nothing orders their events: a withdrawal of an
        offer the bot has not heard made is remembered (`withdrawn_at`), and the late `offer_made` of it is void
        (it spends that memory). An offer withdrawn and made again (unblocked) is open again."""
        stamp = now_text(now)

        def effect(conn: SyncConnection) -> None:
            found = conn.execute(
                "SELECT withdrawn_at FROM gs_offers WHERE nick = ? AND offer = ?", (nick, offer)
            ).fetchone()
            if made:
                if found is not None and found[0] is not None:
                    conn.execute("DELETE FROM gs_offers WHERE nick = ? AND offer = ?", (nick, offer))
                    return
                conn.execute(
                    "INSERT OR REPLACE INTO gs_offers (nick, offer, made_at, withdrawn_at) VALUES (?, ?, ?, NULL)",
                    (nick, offer, stamp),
                )
            elif found is not None and found[0] is None:
                conn.execute("DELETE FROM gs_offers WHERE nick = ? AND offer = ?", (nick, offer))
            elif found is None:
                conn.execute(
                    "INSERT INTO gs_offers (nick, offer, made_at, withdrawn_at) VALUES (?, ?, ?, ?)",
                    (nick, offer, stamp, stamp),
                )

        return Sure(effect)

    @staticmethod
    def link_code(nick: str, code: str, now: datetime) -> Sure:
        """A code the game server showed to `nick`; the same code issued again stays as it was (a spent code is
        never alive again)."""
        stamp = now_text(now)

        def effect(conn: SyncConnection) -> None:
            conn.execute(
                "INSERT OR IGNORE INTO gs_link_codes (nick, code, issued_at) VALUES (?, ?, ?)", (nick, code, stamp)
            )

        return Sure(effect)

    # The live state, read ------------------------------------------------------------------------------------
    async def last_move(self, game: int) -> Move | None:
        """The last move of the game's hand in progress that stands (None once that hand ended)."""
        rows = await _rows(
            self.db,
            "SELECT id, game, hand, move, player, what, at FROM gs_moves WHERE game = ? AND undone = 0"
            " ORDER BY id DESC LIMIT 1",
            (game,),
        )
        if not rows:
            return None
        r = rows[0]
        done = await _rows(self.db, "SELECT 1 FROM gs_hands_done WHERE game = ? AND hand = ?", (game, r[2]))
        if done:
            return None
        return Move(int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]), str(r[5]), parse_stored_time(r[6]))

    async def hand_finished(self, game: int, hand: int) -> bool:
        rows = await _rows(self.db, "SELECT 1 FROM gs_hands_done WHERE game = ? AND hand = ?", (game, hand))
        return bool(rows)

    async def offers(self, nick: str) -> list[str]:
        rows = await _rows(
            self.db,
            "SELECT offer FROM gs_offers WHERE nick = ? AND withdrawn_at IS NULL ORDER BY made_at, offer",
            (nick,),
        )
        return [str(r[0]) for r in rows]

    # Korekcija requests ----------------------------------------------------------------------------------------
    async def korekcija_for_move(self, move_row: int) -> Korekcija | None:
        rows = await _rows(self.db, "SELECT id FROM korekcije WHERE move_row = ?", (move_row,))
        return await self.korekcija(int(rows[0][0])) if rows else None

    async def korekcija(self, request: int) -> Korekcija | None:
        rows = await _rows(
            self.db,
            "SELECT id, game, hand, move, move_row, requester, created_at, state FROM korekcije WHERE id = ?",
            (request,),
        )
        if not rows:
            return None
        r = rows[0]
        answers = await _rows(self.db, "SELECT player, yes FROM korekcija_answers WHERE request = ?", (request,))
        return Korekcija(
            int(r[0]),
            int(r[1]),
            int(r[2]),
            int(r[3]),
            int(r[4]),
            int(r[5]),
            parse_stored_time(r[6]),
            KorekcijaState(str(r[7])),
            {str(a[0]): bool(a[1]) for a in answers},
        )

    async def open_korekcije(self, game: int) -> list[Korekcija]:
        """The game's korekcija requests still open: pending, or agreed and waiting for the game server."""
        rows = await _rows(
            self.db, "SELECT id FROM korekcije WHERE game = ? AND state IN ('pending', 'agreed') ORDER BY id", (game,)
        )
        found = [await self.korekcija(int(r[0])) for r in rows]
        return [k for k in found if k is not None]

    async def agreed_korekcija(self, game: int, hand: int, move: int) -> Korekcija | None:
        """The agreed request whose undo of that move the game server was sent."""
        rows = await _rows(
            self.db,
            "SELECT id FROM korekcije WHERE game = ? AND hand = ? AND move = ? AND state = 'agreed'"
            " ORDER BY id DESC LIMIT 1",
            (game, hand, move),
        )
        return await self.korekcija(int(rows[0][0])) if rows else None

    @staticmethod
    def undo_failed(request: int, now: datetime, told: Sequence[NewEffect]) -> Callable[[Connection], Awaitable[None]]:
        """The game server did not take the move back (refused, or never answered): the agreed request lapses and
        its parties are told, in the transaction that ends its undo command."""

        async def also(conn: Connection) -> None:
            cur = await conn.execute(
                "UPDATE korekcije SET state = 'lapsed', closed_at = ? WHERE id = ? AND state = 'agreed'",
                (now_text(now), request),
            )
            if cur.rowcount == 1:
                await EventStore.add(conn, now, "korekcija_failed", None, str(request))
                await add_effects(conn, told, now)

        return also

    async def pending_korekcija(self, game: int) -> Korekcija | None:
        rows = await _rows(
            self.db, "SELECT id FROM korekcije WHERE game = ? AND state = 'pending' ORDER BY id DESC LIMIT 1", (game,)
        )
        return await self.korekcija(int(rows[0][0])) if rows else None

    async def request_korekcija(
        self,
        move: Move,
        requester: int,
        now: datetime,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
    ) -> int | None:
        """A new request for this move, unless the move was already asked about (once per move) or is no
        longer the last standing one: None then. The chat `effects` of the new request (given its id: the other
        players asked) are written in the same transaction."""
        async with self.db.transaction() as conn:
            async with conn.execute(
                "SELECT id FROM gs_moves WHERE game = ? AND undone = 0 ORDER BY id DESC LIMIT 1", (move.game,)
            ) as cur:
                last = await cur.fetchone()
            if last is None or int(last[0]) != move.row:
                return None
            cur2 = await conn.execute(
                "INSERT OR IGNORE INTO korekcije (game, hand, move, move_row, requester, created_at)"
                " VALUES (?,?,?,?,?,?)",
                (move.game, move.hand, move.move, move.row, requester, now_text(now)),
            )
            if cur2.rowcount == 0:
                return None
            await EventStore.add(
                conn, now, "korekcija_requested", requester, str(move.game), hand=move.hand, move=move.move
            )
            if effects is not None and cur2.lastrowid is not None:
                await add_effects(conn, effects(cur2.lastrowid), now)
            return cur2.lastrowid

    async def answer_korekcija(
        self,
        request: int,
        player: str,
        yes: bool,
        needed: int,
        now: datetime,
        command: tuple[str, str, dict[str, Any]] | None,
        effects: Callable[[KorekcijaState], Sequence[NewEffect]] | None = None,
        command_at: datetime | None = None,
    ) -> KorekcijaState | None:
        """Record a player's answer to a pending request; the request's new state (pending, refused, agreed),
        or None when it was no longer pending. On agreement `command` (queue, kind, payload) is
        written to the outbox in the same transaction, dated `command_at` (the clock of the outbox's worker), and
        so are the chat `effects` of the new state."""
        async with self.db.transaction() as conn:
            async with conn.execute("SELECT state, requester, game FROM korekcije WHERE id = ?", (request,)) as cur:
                row = await cur.fetchone()
            if row is None or row[0] != KorekcijaState.PENDING:
                return None
            await conn.execute(
                "INSERT OR REPLACE INTO korekcija_answers (request, player, yes, at) VALUES (?,?,?,?)",
                (request, player, yes, now_text(now)),
            )
            async with conn.execute(
                "SELECT count(*), sum(yes) FROM korekcija_answers WHERE request = ?", (request,)
            ) as cur:
                counts = await cur.fetchone()
            assert counts is not None
            answered, agreed = int(counts[0]), int(counts[1] or 0)
            state = KorekcijaState.PENDING
            if answered > agreed:
                state = KorekcijaState.REFUSED
            elif agreed >= needed:
                state = KorekcijaState.AGREED
            if state is not KorekcijaState.PENDING:
                await conn.execute(
                    "UPDATE korekcije SET state = ?, closed_at = ? WHERE id = ?",
                    (state, now_text(now) if state is KorekcijaState.REFUSED else None, request),
                )
                await EventStore.add(conn, now, f"korekcija_{state}", None, str(row[2]), request=request)
            if state is KorekcijaState.AGREED and command is not None:
                await OutboxStore.add(conn, command[0], command[1], command[2], command_at or now)
            if effects is not None:
                await add_effects(conn, effects(state), now)
            return state
