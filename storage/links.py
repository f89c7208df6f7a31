"""Link requests and proven links: a chat account asks for a nickname (a pending request, with the hash of its
one-time code when the game server delivered one), wrong codes counted per account (a lock), and the request's
end — proven (the link is written) or denied — and an unlink, each written with its governance event in one
transaction. The desk (`bot.desk.links`) decides who may do what; this module only keeps it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.nicknames import NickClash, register
from storage.sql import Connection
from storage.states import LinkAttempt

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class LinkRequest:
    id: int
    platform: str
    account: str
    nick: str
    display: str
    asked_at: datetime
    code_hash: str | None
    code_salt: str | None
    code_expires: datetime | None


@dataclass(frozen=True, slots=True)
class LinkLock:
    failures: int
    locked_until: datetime | None


class LinkConflict(Exception):
    """The link cannot be written: the account or the nickname's place on that platform is taken."""

    def __init__(self, what: str, imitates: str = "") -> None:
        super().__init__(what)
        self.what = what  # 'request', 'account', 'nick', or 'imitates' (another spelling of `imitates`' identity)
        self.imitates = imitates


_COLUMNS = "id, platform, account, nick, display, asked_at, code_hash, code_salt, code_expires"


def _request(row: tuple[object, ...]) -> LinkRequest:
    rid, platform, account, nick, display, asked, code_hash, salt, expires = row
    return LinkRequest(
        int(str(rid)),
        str(platform),
        str(account),
        str(nick),
        str(display),
        parse_stored_time(str(asked)),
        str(code_hash) if code_hash else None,
        str(salt) if salt else None,
        parse_stored_time(str(expires)) if expires else None,
    )


async def _subject(conn: Connection, nick: str) -> str:
    """The event's subject: the member's id, or ``nick:<nick>`` when nobody holds the nickname yet."""
    async with conn.execute("SELECT id FROM members WHERE nick = ?", (nick,)) as cur:
        row = await cur.fetchone()
    return str(row[0]) if row else f"nick:{nick}"


class LinkStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def ask(
        self,
        platform: str,
        account: str,
        nick: str,
        display: str,
        now: datetime,
        code: tuple[str, str, datetime] | None,
        effects: Callable[[LinkRequest], Sequence[NewEffect]] | None = None,
        attempt: tuple[LinkAttempt, str] | None = None,
    ) -> LinkRequest:
        """Store (or replace) the account's request; `code` is (hash, salt, expiry) when one was delivered. The
        chat `effects` of the request as stored (the approvers told) are written in the same transaction, and so is
        the `attempt` (its kind and the nickname's identity key) the rate limits count (`recent_attempts`)."""
        code_hash, salt, expires = code if code else (None, None, None)
        async with self.db.transaction() as conn:
            if attempt is not None:
                await conn.execute(
                    "INSERT INTO link_attempts (kind, platform, account, nick_key, at) VALUES (?, ?, ?, ?, ?)",
                    (attempt[0].value, platform, account, attempt[1], now_text(now)),
                )
            await conn.execute(
                "INSERT INTO link_requests (platform, account, nick, display, asked_at, code_hash, code_salt,"
                " code_expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, account) DO UPDATE SET"
                " nick = excluded.nick, display = excluded.display, asked_at = excluded.asked_at,"
                " code_hash = excluded.code_hash, code_salt = excluded.code_salt,"
                " code_expires = excluded.code_expires",
                (
                    platform,
                    account,
                    nick,
                    display,
                    now_text(now),
                    code_hash,
                    salt,
                    now_text(expires) if expires else None,
                ),
            )
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM link_requests WHERE platform = ? AND account = ?", (platform, account)
            )
            found = _request(tuple(next(iter(rows))))
            if effects is not None:
                await add_effects(conn, effects(found), now)
        return found

    async def recent_attempts(
        self, kind: LinkAttempt, platform: str, account: str, nick_key: str, since: datetime
    ) -> tuple[list[datetime], list[datetime]]:
        """The moments of the attempts of `kind` since `since`: by this account, and for this nickname (by anyone),
        oldest first."""
        by_account = await self.db.connection.execute_fetchall(
            "SELECT at FROM link_attempts WHERE kind = ? AND platform = ? AND account = ? AND at >= ? ORDER BY at",
            (kind.value, platform, account, now_text(since)),
        )
        by_nick = await self.db.connection.execute_fetchall(
            "SELECT at FROM link_attempts WHERE kind = ? AND nick_key = ? AND at >= ? ORDER BY at",
            (kind.value, nick_key, now_text(since)),
        )
        return [parse_stored_time(str(r[0])) for r in by_account], [parse_stored_time(str(r[0])) for r in by_nick]

    async def issued_code(self, nick: str, code: str) -> datetime | None:
        """When the game server issued `code` to `nick` (`link_code_issued`), if it did and it is not spent."""
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT issued_at FROM gs_link_codes WHERE nick = ? AND code = ? AND used_at IS NULL", (nick, code)
            )
        )
        return parse_stored_time(str(rows[0][0])) if rows else None

    async def get(self, request_id: int) -> LinkRequest | None:
        rows = list(
            await self.db.connection.execute_fetchall(
                f"SELECT {_COLUMNS} FROM link_requests WHERE id = ?", (request_id,)
            )
        )
        return _request(tuple(rows[0])) if rows else None

    async def for_account(self, platform: str, account: str) -> LinkRequest | None:
        rows = list(
            await self.db.connection.execute_fetchall(
                f"SELECT {_COLUMNS} FROM link_requests WHERE platform = ? AND account = ?", (platform, account)
            )
        )
        return _request(tuple(rows[0])) if rows else None

    async def pending(self) -> list[LinkRequest]:
        rows = await self.db.connection.execute_fetchall(f"SELECT {_COLUMNS} FROM link_requests ORDER BY id")
        return [_request(tuple(r)) for r in rows]

    async def lock(self, platform: str, account: str) -> LinkLock:
        rows = list(
            await self.db.connection.execute_fetchall(
                "SELECT failures, locked_until FROM link_locks WHERE platform = ? AND account = ?", (platform, account)
            )
        )
        if not rows:
            return LinkLock(0, None)
        failures, until = rows[0]
        return LinkLock(int(failures), parse_stored_time(str(until)) if until else None)

    async def wrong_code(
        self, platform: str, account: str, now: datetime, limit: int, locked_until: datetime
    ) -> LinkLock:
        """Count a wrong code; the `limit`-th locks further tries until `locked_until` (and restarts the count)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO link_locks (platform, account, failures) VALUES (?, ?, 1) ON CONFLICT (platform,"
                " account) DO UPDATE SET failures = link_locks.failures + 1",
                (platform, account),
            )
            await conn.execute(
                "UPDATE link_locks SET failures = 0, locked_until = ? WHERE platform = ? AND account = ?"
                " AND failures >= ?",
                (now_text(locked_until), platform, account, limit),
            )
            await EventStore.add(conn, now, "link_code_wrong", None, f"account:{platform}:{account}")
        return await self.lock(platform, account)

    async def prove(
        self,
        request: LinkRequest,
        proof: str,
        by: int | None,
        now: datetime,
        effects: Callable[[int], Sequence[NewEffect]] | None = None,
        issued: tuple[str, str, datetime] | None = None,
    ) -> int:
        """Write the proven link (creating the member when new), drop the request and the account's wrong-code
        count, record the act, with the link's chat `effects` (given the member's id); the member's id.
        `LinkConflict` when the account or the nickname's place on the platform is taken (nothing written).
        With `issued` (nickname, code, issued no earlier than): the game server's code is spent with the link,
        once (`LinkConflict("code")` when it is spent already or older)."""
        async with self.db.transaction() as conn:
            if issued is not None:
                cur = await conn.execute(
                    "UPDATE gs_link_codes SET used_at = ? WHERE nick = ? AND code = ? AND used_at IS NULL"
                    " AND issued_at > ?",
                    (now_text(now), issued[0], issued[1], now_text(issued[2])),
                )
                if cur.rowcount != 1:
                    raise LinkConflict("code")
            async with conn.execute(
                "SELECT 1 FROM link_requests WHERE id = ? AND nick = ? AND account = ?",
                (request.id, request.nick, request.account),
            ) as cur:
                if await cur.fetchone() is None:
                    raise LinkConflict("request")
            async with conn.execute(
                "SELECT 1 FROM accounts WHERE platform = ? AND account = ?", (request.platform, request.account)
            ) as cur:
                if await cur.fetchone() is not None:
                    raise LinkConflict("account")
            try:
                await register(conn, (request.nick,), now)
            except NickClash as clash:
                raise LinkConflict("imitates", clash.imitates) from None
            await conn.execute(
                "INSERT OR IGNORE INTO members (nick, created_at) VALUES (?, ?)", (request.nick, now_text(now))
            )
            async with conn.execute("SELECT id, nick FROM members WHERE nick = ?", (request.nick,)) as cur:
                row = await cur.fetchone()
            assert row is not None
            member_id = int(row[0])
            async with conn.execute(
                "SELECT 1 FROM accounts WHERE member = ? AND platform = ?", (member_id, request.platform)
            ) as cur:
                if await cur.fetchone() is not None:
                    raise LinkConflict("nick")
            await conn.execute(
                "INSERT INTO accounts (platform, account, member, proof, linked_at) VALUES (?, ?, ?, ?, ?)",
                (request.platform, request.account, member_id, proof, now_text(now)),
            )
            await conn.execute("DELETE FROM link_requests WHERE id = ?", (request.id,))
            await conn.execute(
                "DELETE FROM link_locks WHERE platform = ? AND account = ?", (request.platform, request.account)
            )
            await EventStore.add(
                conn,
                now,
                "account_linked",
                by,
                str(member_id),
                platform=request.platform,
                account=request.account,
                proof=proof,
                display=request.display,
            )
            if effects is not None:
                await add_effects(conn, effects(member_id), now)
        return member_id

    async def deny(self, request: LinkRequest, by: int | None, now: datetime, reason: str) -> bool:
        """Drop the request and record the denial; False when it was no longer pending."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "DELETE FROM link_requests WHERE id = ? AND nick = ? AND account = ?",
                (request.id, request.nick, request.account),
            )
            if not cur.rowcount:
                return False
            await EventStore.add(
                conn,
                now,
                "link_denied",
                by,
                await _subject(conn, request.nick),
                platform=request.platform,
                account=request.account,
                display=request.display,
                reason=reason,
            )
        return True

    async def unlink(
        self,
        member_id: int,
        platform: str | None,
        by: int | None,
        now: datetime,
        reason: str,
        effects: Callable[[list[str]], Sequence[NewEffect]] | None = None,
    ) -> list[str]:
        """Remove the member's link on `platform` (every platform when None); the platforms unlinked, whose chat
        `effects` (given them) are written in the same transaction."""
        async with self.db.transaction() as conn:
            rows = list(
                await conn.execute_fetchall(
                    "SELECT platform, account FROM accounts WHERE member = ?"
                    + (" AND platform = ?" if platform else ""),
                    (member_id, platform) if platform else (member_id,),
                )
            )
            for gone_platform, account in rows:
                await conn.execute("DELETE FROM accounts WHERE platform = ? AND account = ?", (gone_platform, account))
                await EventStore.add(
                    conn,
                    now,
                    "account_unlinked",
                    by,
                    str(member_id),
                    platform=gone_platform,
                    account=account,
                    reason=reason,
                )
            gone = [str(r[0]) for r in rows]
            if effects is not None and gone:
                await add_effects(conn, effects(gone), now)
        return gone

    async def unlink_account(self, platform: str, account: str, now: datetime, reason: str) -> bool:
        """Remove one account's link (the configuration no longer names it); False when there was none."""
        async with self.db.transaction() as conn:
            async with conn.execute(
                "SELECT member FROM accounts WHERE platform = ? AND account = ?", (platform, account)
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return False
            await conn.execute("DELETE FROM accounts WHERE platform = ? AND account = ?", (platform, account))
            await EventStore.add(
                conn, now, "account_unlinked", None, str(row[0]), platform=platform, account=account, reason=reason
            )
        return True

    async def link_configured(self, member_id: int, platform: str, account: str, now: datetime) -> bool:
        """The owner's account named in the configuration: linked to him (any other link of that account, or of
        his nickname on that platform, removed); False when it already was."""
        async with self.db.transaction() as conn:
            async with conn.execute(
                "SELECT member FROM accounts WHERE platform = ? AND account = ?", (platform, account)
            ) as cur:
                row = await cur.fetchone()
            if row is not None and int(row[0]) == member_id:
                return False
            stale = list(
                await conn.execute_fetchall(
                    "SELECT platform, account, member FROM accounts WHERE (platform = ? AND account = ?)"
                    " OR (platform = ? AND member = ?)",
                    (platform, account, platform, member_id),
                )
            )
            for gone_platform, gone_account, gone_member in stale:
                await conn.execute(
                    "DELETE FROM accounts WHERE platform = ? AND account = ?", (gone_platform, gone_account)
                )
                await EventStore.add(
                    conn,
                    now,
                    "account_unlinked",
                    None,
                    str(gone_member),
                    platform=gone_platform,
                    account=gone_account,
                    reason="configuration",
                )
            await conn.execute("DELETE FROM link_requests WHERE platform = ? AND account = ?", (platform, account))
            await conn.execute(
                "INSERT INTO accounts (platform, account, member, proof, linked_at) VALUES"
                " (?, ?, ?, 'configuration', ?)",
                (platform, account, member_id, now_text(now)),
            )
            await EventStore.add(
                conn,
                now,
                "account_linked",
                None,
                str(member_id),
                platform=platform,
                account=account,
                proof="configuration",
                display="",
            )
        return True
