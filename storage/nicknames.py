"""The club's nicknames with their identity keys (migration 0025): one spelling per key, on both backends.

`rules.nicknames.identity_key` decides who a nickname is; this module keeps, for every nickname the club knows (a
member's, a game's player's), the one spelling registered for its key. `register` (and `register_sync`, for a
`Database.run_transaction` body) runs inside the transaction that brings a nickname in — a game stored, a member
created — and raises `NickClash` for a second spelling of a registered key, so that transaction stores nothing;
an import reads and registers a whole file's players at once (`spellings`, `add_spellings`).
`NicknameStore.spelling` answers "which registered nickname is this?" for any typed form of it.

The rows written before the migration are registered once per club, when it is opened (`register_existing`):
members first (the linked members are who others may not imitate), then the games' players in the order of their
games; a spelling whose key is already registered under another is listed in ``nick_clashes`` and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rules.nicknames import identity_key
from storage.database import now_text
from storage.sql import rows_in

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection, SyncConnection

log = logging.getLogger(__name__)

_KNOWN = "SELECT nick FROM nicknames WHERE key = ?"
_ADD = "INSERT INTO nicknames (nick, key, first_seen) VALUES (?, ?, ?)"


class NickClash(ValueError):
    """`nick` has the identity key of the registered nickname `imitates` but is spelled otherwise."""

    def __init__(self, nick: str, imitates: str) -> None:
        super().__init__(f"the nickname {nick!r} imitates {imitates!r}, already in the club")
        self.nick = nick
        self.imitates = imitates


@dataclass(frozen=True, slots=True)
class Clash:
    nick: str
    imitates: str
    found_at: str


async def register(conn: Connection, nicks: Iterable[str], now: datetime) -> None:
    """Register `nicks` in the caller's transaction; `NickClash` for one spelled otherwise than its key's."""
    for nick in dict.fromkeys(nicks):
        key = identity_key(nick)
        rows = list(await conn.execute_fetchall(_KNOWN, (key,)))
        if rows:
            if str(rows[0][0]) != nick:
                raise NickClash(nick, str(rows[0][0]))
            continue
        await conn.execute(_ADD, (nick, key, now_text(now)))


def spellings(conn: SyncConnection, keys: Iterable[str]) -> dict[str, str]:
    """The registered spelling of each of the identity `keys` that is registered (for a `run_transaction` body:
    one statement for many keys: `storage.sql.rows_in`)."""
    return {
        str(key): str(nick)
        for key, nick in rows_in(conn, "SELECT key, nick FROM nicknames WHERE key IN ({marks})", keys)
    }


def add_spellings(conn: SyncConnection, new: Iterable[tuple[str, str]], now: datetime) -> None:
    """Register new (nickname, identity key) pairs whose keys `spellings` found unregistered."""
    stamp = now_text(now)
    conn.executemany(_ADD, [(nick, key, stamp) for nick, key in new])


def register_sync(conn: SyncConnection, nicks: Iterable[str], now: datetime) -> None:
    """`register` for a `Database.run_transaction` body."""
    for nick in dict.fromkeys(nicks):
        key = identity_key(nick)
        row = conn.execute(_KNOWN, (key,)).fetchone()
        if row is not None:
            if str(row[0]) != nick:
                raise NickClash(nick, str(row[0]))
            continue
        conn.execute(_ADD, (nick, key, now_text(now)))


async def register_existing(db: Database, now: datetime) -> list[Clash]:
    """Once per club after migration 0025: register every nickname already stored; the clashes found (each also
    logged and kept in ``nick_clashes``). Later calls return at once."""
    if await _registered(db.connection):
        return []  # read without the write lock: a start beside a busy writer is not kept waiting
    async with db.transaction() as conn:
        if await _registered(conn):
            return []
        members = [str(r[0]) for r in await conn.execute_fetchall("SELECT nick FROM members ORDER BY id", ())]
        players = [
            str(r[0]) for r in await conn.execute_fetchall("SELECT nick FROM game_players ORDER BY game, seat", ())
        ]
        registered: dict[str, str] = {
            str(r[0]): str(r[1]) for r in await conn.execute_fetchall("SELECT key, nick FROM nicknames", ())
        }
        found: list[Clash] = []
        stamp = now_text(now)
        for nick in dict.fromkeys([*members, *players]):
            key = identity_key(nick)
            known = registered.get(key)
            if known is None:
                registered[key] = nick
                await conn.execute(_ADD, (nick, key, stamp))
            elif known != nick:
                found.append(Clash(nick, known, stamp))
                await conn.execute(
                    "INSERT OR IGNORE INTO nick_clashes (nick, imitates, found_at) VALUES (?, ?, ?)",
                    (nick, known, stamp),
                )
        await conn.execute("INSERT INTO nicknames_registered (done) VALUES (1)")
    for clash in found:
        log.warning(
            "the nickname %r already stored has the identity of %r (NFKC, case folding, UTS #39 skeleton): the bot "
            "finds both as %r; every such clash is kept in the table nick_clashes",
            clash.nick,
            clash.imitates,
            clash.imitates,
        )
    return found


async def _registered(conn: Connection) -> bool:
    async with conn.execute("SELECT count(*) FROM nicknames_registered") as cur:
        row = await cur.fetchone()
    return row is not None and int(row[0]) > 0


class NicknameStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def spelling(self, nick: str) -> str | None:
        """The registered nickname whose identity key `nick` has (None: nobody the club knows)."""
        rows = list(await self.db.connection.execute_fetchall(_KNOWN, (identity_key(nick),)))
        return str(rows[0][0]) if rows else None

    async def clashes(self) -> list[Clash]:
        """What the registration of the existing rows found (`register_existing`)."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT nick, imitates, found_at FROM nick_clashes ORDER BY found_at, nick", ()
        )
        return [Clash(str(r[0]), str(r[1]), str(r[2])) for r in rows]
