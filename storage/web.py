"""The club's web sign-ins as stored (migration 0036): the one-time links the bot sends (`/web`) and the sessions
they open. Each is kept by the SHA-256 of its token (`token_hash`), never the token: the token is in the member's
private message and in his browser's cookie only.

A link is used at most once: `use_link` is a conditional update (not used yet, not expired) in the transaction
that opens the session, so two browsers racing with one link get one session. A session ends early, with its
reason (`storage.states.SessionEnd`), by `end_session` or `end_sessions_of`; whether it still stands is the desk's
question (`bot.desk.web`), asked on every request."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from storage.database import now_text, parse_stored_time
from storage.sql import Connection
from storage.states import SessionEnd, SignInVia

if TYPE_CHECKING:
    from storage.database import Database


def token_hash(token: str) -> str:
    """What the database keeps of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SignInLink:
    id: int
    member: int
    platform: str
    account: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None


@dataclass(frozen=True, slots=True)
class WebSession:
    id: int
    member: int
    platform: str
    account: str
    via: SignInVia
    offices: frozenset[str]  # the offices he held when he signed in (`rules.members.Office` values)
    created_at: datetime
    expires_at: datetime
    ended_at: datetime | None
    end_reason: SessionEnd | None

    def standing(self, now: datetime) -> bool:
        """Not ended, not expired."""
        return self.ended_at is None and now < self.expires_at


def _time(text: object) -> datetime | None:
    return parse_stored_time(str(text)) if text else None


def _moment(text: object) -> datetime:
    return parse_stored_time(str(text))


_LINK = "SELECT id, member, platform, account, created_at, expires_at, used_at FROM web_links "
_SESSION = (
    "SELECT id, member, platform, account, via, offices, created_at, expires_at, ended_at, end_reason"
    " FROM web_sessions "
)


def _link(row: tuple[object, ...]) -> SignInLink:
    return SignInLink(
        int(str(row[0])), int(str(row[1])), str(row[2]), str(row[3]), _moment(row[4]), _moment(row[5]), _time(row[6])
    )


def _session(row: tuple[object, ...]) -> WebSession:
    offices = frozenset(o for o in str(row[5]).split(",") if o)
    return WebSession(
        int(str(row[0])),
        int(str(row[1])),
        str(row[2]),
        str(row[3]),
        SignInVia(str(row[4])),
        offices,
        _moment(row[6]),
        _moment(row[7]),
        _time(row[8]),
        SessionEnd(str(row[9])) if row[9] else None,
    )


class WebStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_link(
        self, token: str, member: int, platform: str, account: str, now: datetime, expires: datetime
    ) -> SignInLink:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO web_links (token_hash, member, platform, account, created_at, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (token_hash(token), member, platform, account, now_text(now), now_text(expires)),
            )
        found = await self.link(token)
        assert found is not None
        return found

    async def link(self, token: str) -> SignInLink | None:
        rows = list(await self.db.connection.execute_fetchall(_LINK + "WHERE token_hash = ?", (token_hash(token),)))
        return _link(tuple(rows[0])) if rows else None

    async def links_since(self, member: int, since: datetime) -> int:
        """How many links were sent to `member` after `since` (the rate of `/web`)."""
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT count(*) FROM web_links WHERE member = ? AND created_at > ?", (member, now_text(since))
            )
        )
        return int(rows[0][0])

    async def use_link(
        self, token: str, session_token: str, offices: frozenset[str], now: datetime, lifetime_end: datetime
    ) -> WebSession | None:
        """Use the link `token` (unused, unexpired) and open a session `session_token` for its member and account,
        in one transaction; None when the link is unknown, used or expired."""
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE web_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
                (now_text(now), token_hash(token), now_text(now)),
            )
            if cursor.rowcount != 1:
                return None
            rows = list(await conn.execute_fetchall(_LINK + "WHERE token_hash = ?", (token_hash(token),)))
            link = _link(tuple(rows[0]))
            await self._open(
                conn,
                session_token,
                link.member,
                link.platform,
                link.account,
                SignInVia.LINK,
                offices,
                now,
                lifetime_end,
            )
        return await self.session(session_token)

    async def open_session(
        self,
        session_token: str,
        member: int,
        platform: str,
        account: str,
        via: SignInVia,
        offices: frozenset[str],
        now: datetime,
        lifetime_end: datetime,
    ) -> WebSession:
        """A session a platform's login proved (the Telegram widget, Discord's OAuth2)."""
        async with self.db.transaction() as conn:
            await self._open(conn, session_token, member, platform, account, via, offices, now, lifetime_end)
        found = await self.session(session_token)
        assert found is not None
        return found

    @staticmethod
    async def _open(
        conn: Connection,
        session_token: str,
        member: int,
        platform: str,
        account: str,
        via: SignInVia,
        offices: frozenset[str],
        now: datetime,
        lifetime_end: datetime,
    ) -> None:
        await conn.execute(
            "INSERT INTO web_sessions (token_hash, member, platform, account, via, offices, created_at, expires_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                token_hash(session_token),
                member,
                platform,
                account,
                via.value,
                ",".join(sorted(offices)),
                now_text(now),
                now_text(lifetime_end),
            ),
        )

    async def session(self, token: str) -> WebSession | None:
        rows = list(await self.db.connection.execute_fetchall(_SESSION + "WHERE token_hash = ?", (token_hash(token),)))
        return _session(tuple(rows[0])) if rows else None

    async def end_session(self, session_id: int, why: SessionEnd, now: datetime) -> bool:
        """End one session (if it still stands); False when it had ended already."""
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE web_sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
                (now_text(now), why.value, session_id),
            )
            return cursor.rowcount == 1

    async def end_sessions_of(self, member: int, why: SessionEnd, now: datetime) -> int:
        """End every standing session of `member`; how many there were."""
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE web_sessions SET ended_at = ?, end_reason = ? WHERE member = ? AND ended_at IS NULL",
                (now_text(now), why.value, member),
            )
            return int(cursor.rowcount)
