"""Members of the club: nicknames, chat accounts on each platform, roles, duty, presence, seats and call bans."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from rules.members import MAX_NICK, ROLES, Member, Role
from rules.nicknames import identity_key
from storage.chat_outbox import NewEffect, add_effects
from storage.database import now_text, parse_stored_time
from storage.events import EventStore
from storage.nicknames import register

if TYPE_CHECKING:
    from storage.database import Database
    from storage.sql import Connection

__all__ = ["MAX_NICK", "ROLES", "CallBan", "Member", "MemberStore"]


@dataclass(frozen=True, slots=True)
class CallBan:
    member: int
    until: datetime | None
    by: int | None
    reason: str | None
    at: datetime


_SELECT = (
    "SELECT m.id, m.nick, m.on_duty, m.online, m.in_club, m.presence_changed_at,"
    " (SELECT group_concat(role) FROM roles r WHERE r.member = m.id),"
    # Seated: where the live feed (or the console) last put him — a row with no game means he stood up — and,
    # when nothing was said about him, at a game whose log is in progress.
    " CASE WHEN EXISTS (SELECT 1 FROM seating s WHERE s.member = m.id)"
    " THEN (SELECT game FROM seating s WHERE s.member = m.id)"
    " ELSE (SELECT gp.game FROM game_players gp JOIN games g ON g.number = gp.game"
    "  WHERE gp.nick = m.nick AND gp.ended_at IS NULL AND g.status = 'in_progress'"
    "  ORDER BY g.started_at DESC LIMIT 1) END,"
    " (SELECT group_concat(a.platform || ':' || a.account, char(31)) FROM accounts a WHERE a.member = m.id)"
    " FROM members m "
)


def _member(row: tuple[object, ...]) -> Member:
    mid, nick, on_duty, online, in_club, changed, roles, seated, accounts = row
    return Member(
        int(str(mid)),
        str(nick),
        frozenset(Role(r) for r in str(roles).split(",")) if roles else frozenset(),
        bool(on_duty),
        bool(online),
        bool(in_club),
        parse_stored_time(str(changed)) if changed else None,
        int(str(seated)) if seated is not None else None,
        frozenset(str(accounts).split("\x1f")) if accounts else frozenset(),
    )


class MemberStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, member_id: int) -> Member | None:
        rows = await self._query("WHERE m.id = ?", (member_id,))
        return rows[0] if rows else None

    async def many(self, member_ids: list[int]) -> list[Member]:
        """These members in one query, in the order given (any no longer there left out)."""
        if not member_ids:
            return []
        wanted = sorted(set(member_ids))  # one placeholder each: read alike by SQLite and PostgreSQL
        found = {m.id: m for m in await self._query(f"WHERE m.id IN ({', '.join('?' * len(wanted))})", tuple(wanted))}
        return [found[i] for i in member_ids if i in found]

    async def by_nick(self, nick: str) -> Member | None:
        """The member whose nickname has `nick`'s identity key (`rules.nicknames.identity_key`): ``čeda``, ``Čeda``
        and ``ČEDA`` are one member on both backends, whatever the database's collation."""
        rows = await self._query(
            "WHERE m.nick = ? OR m.nick IN (SELECT k.nick FROM nicknames k WHERE k.key = ?)", (nick, identity_key(nick))
        )
        return rows[0] if rows else None

    async def by_account(self, platform: str, account: str) -> Member | None:
        rows = await self._query(
            "WHERE m.id = (SELECT member FROM accounts WHERE platform = ? AND account = ?)", (platform, account)
        )
        return rows[0] if rows else None

    async def accounts(self, member_id: int) -> dict[str, str]:
        async with self.db.connection.execute(
            "SELECT platform, account FROM accounts WHERE member = ?", (member_id,)
        ) as cur:
            return {str(p): str(a) for p, a in await cur.fetchall()}

    async def accounts_on(self, platform: str) -> list[tuple[str, bool, bool]]:
        """Every account linked on `platform`, in order: the account, whether it is in the club's group or server
        there (`present`), and whether its member is where the records put him: in the club, or removed from it
        by an officer (`removed`), which no platform undoes."""
        rows = await self.db.connection.execute_fetchall(
            "SELECT a.account, a.present,"
            " CASE WHEN m.in_club = 1 OR EXISTS (SELECT 1 FROM removals r WHERE r.member = m.id) THEN 1 ELSE 0 END"
            " FROM accounts a JOIN members m ON m.id = a.member WHERE a.platform = ? ORDER BY a.account",
            (platform,),
        )
        return [(str(account), bool(present), bool(settled)) for account, present, settled in rows]

    async def removed(self, member_id: int) -> bool:
        """Whether an officer removed him from the club (and nobody readmitted him yet)."""
        async with self.db.connection.execute("SELECT 1 FROM removals WHERE member = ?", (member_id,)) as cur:
            return await cur.fetchone() is not None

    async def remove_from_club(
        self, member_id: int, by: int | None, reason: str, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """An officer removes him from the club, until one readmits him: out of it now, with the act's event and its
        chat `effects`; False when he was removed already (and then nothing is written)."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "INSERT OR IGNORE INTO removals (member, by, reason, at) VALUES (?, ?, ?, ?)",
                (member_id, by, reason, now_text(now)),
            )
            if cur.rowcount <= 0:
                return False
            await conn.execute("UPDATE members SET in_club = ? WHERE id = ?", (False, member_id))
            await EventStore.add(conn, now, "removed_from_club", by, str(member_id), reason=reason)
            await add_effects(conn, effects, now)
            return True

    async def readmit(
        self, member_id: int, by: int | None, reason: str, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """An officer undoes a removal: he is in the club again when one of his accounts is in its group or server
        (else he comes in with his next join there); False when he was not removed (nothing is written)."""
        async with self.db.transaction() as conn:
            cur = await conn.execute("DELETE FROM removals WHERE member = ?", (member_id,))
            if cur.rowcount <= 0:
                return False
            await conn.execute(
                "UPDATE members SET in_club ="
                " CASE WHEN EXISTS (SELECT 1 FROM accounts a WHERE a.member = ? AND a.present = 1) THEN 1 ELSE 0 END"
                " WHERE id = ?",
                (member_id, member_id),
            )
            await EventStore.add(conn, now, "readmitted", by, str(member_id), reason=reason)
            await add_effects(conn, effects, now)
            return True

    async def with_role(self, role: Role) -> list[Member]:
        return await self._query("WHERE m.id IN (SELECT member FROM roles WHERE role = ?) ORDER BY m.nick", (role,))

    async def all(self) -> list[Member]:
        return await self._query("ORDER BY m.nick", ())

    async def _query(self, tail: str, params: tuple[object, ...]) -> list[Member]:
        rows = await self.db.connection.execute_fetchall(_SELECT + tail, params)
        return [_member(tuple(row)) for row in rows]

    async def in_trial(self, trial: int) -> list[Member]:
        return await self._query(
            "WHERE m.id IN (SELECT member FROM trial_participants WHERE trial = ?) ORDER BY m.nick", (trial,)
        )

    async def with_role_judging(self, role: Role) -> list[tuple[Member, bool]]:
        """Everyone in the club holding `role`, each with whether he is judging an open trial now."""
        rows = await self.db.connection.execute_fetchall(
            _SELECT.replace(
                " FROM members m ",
                ", EXISTS (SELECT 1 FROM trials t WHERE t.referee = m.id AND t.outcome = 'open') FROM members m ",
            )
            + "WHERE m.in_club = 1 AND m.id IN (SELECT member FROM roles WHERE role = ?) ORDER BY m.nick",
            (role,),
        )
        return [(_member(tuple(row[:-1])), bool(row[-1])) for row in rows]

    async def ensure(self, nick: str, now: datetime) -> Member:
        """The member with this nickname, created when new (`NickClash` when another spelling of its identity is
        registered: nothing is created)."""
        async with self.db.transaction() as conn:
            await register(conn, (nick,), now)
            await conn.execute("INSERT OR IGNORE INTO members (nick, created_at) VALUES (?, ?)", (nick, now_text(now)))
        member = await self.by_nick(nick)
        assert member is not None
        return member

    async def link(self, platform: str, account: str, nick: str, now: datetime) -> Member:
        """The server admin's link (the console's demo club, `sudija clan`, tests): a chat account to a club
        nickname (creating the member), replacing an earlier link of the account. Members link themselves
        through `storage.links` with a proof."""
        member = await self.ensure(nick, now)
        async with self.db.transaction() as conn:
            await conn.execute(
                "DELETE FROM accounts WHERE platform = ? AND (account = ? OR member = ?)",
                (platform, account, member.id),
            )
            await conn.execute(
                "INSERT INTO accounts (platform, account, member, proof, linked_at) VALUES (?, ?, ?, 'admin', ?)",
                (platform, account, member.id, now_text(now)),
            )
            await EventStore.add(
                conn, now, "account_linked", None, str(member.id), platform=platform, account=account, proof="admin"
            )
        fresh = await self.get(member.id)
        assert fresh is not None
        return fresh

    async def set_account_presence(self, member_id: int, platform: str, online: bool) -> bool:
        """Presence on one platform; True when the member is online on any platform he is linked on. An account
        already so is not written (a member's every action on Telegram says he is online: read, not a commit)."""
        async with self.db.connection.execute(
            "SELECT (SELECT online FROM accounts WHERE member = ? AND platform = ?),"
            " EXISTS (SELECT 1 FROM accounts WHERE member = ? AND online = 1)",
            (member_id, platform, member_id),
        ) as cur:
            stored = await cur.fetchone()
        if stored is not None and stored[0] is not None and bool(stored[0]) == online:
            return bool(stored[1])
        return await self._set_account_flag("online", member_id, platform, online)

    async def set_account_present(self, member_id: int, platform: str, present: bool) -> bool:
        """In the club on one platform (joined / left its server or group); True when he is still in the club
        on some platform he is linked on."""
        return await self._set_account_flag("present", member_id, platform, present)

    async def _set_account_flag(
        self, flag: Literal["online", "present"], member_id: int, platform: str, value: bool
    ) -> bool:
        """One account's `flag` (a column of `accounts`, named by the code, never by input) set to `value`, in one
        transaction with the answer: whether any account of the member has it now."""
        async with self.db.transaction() as conn:
            await conn.execute(
                f"UPDATE accounts SET {flag} = ? WHERE member = ? AND platform = ?", (value, member_id, platform)
            )
            async with conn.execute(
                f"SELECT EXISTS (SELECT 1 FROM accounts WHERE member = ? AND {flag} = 1)", (member_id,)
            ) as cur:
                row = await cur.fetchone()
        return bool(row and row[0])

    async def set_role(
        self,
        member_id: int,
        role: Role,
        granted: bool,
        by: int | None,
        now: datetime,
        reason: str = "",
        effects: Sequence[NewEffect] = (),
    ) -> bool:
        """Grant or remove a role; False when nothing changed. The chat `effects` of the change (the member
        told) are written with it, and only when it changed something."""
        async with self.db.transaction() as conn:
            changed = await change_role(conn, member_id, role, granted, by, now, reason)
            if changed:
                await add_effects(conn, effects, now)
        return changed

    async def set_duty(self, member_id: int, on_duty: bool, now: datetime) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("UPDATE members SET on_duty = ? WHERE id = ?", (on_duty, member_id))
            await EventStore.add(conn, now, "duty", member_id, str(member_id), on_duty=on_duty)

    async def set_presence(self, member_id: int, online: bool, now: datetime) -> bool:
        """Record presence; True when it changed (read first: what would not change is not a commit)."""
        async with self.db.connection.execute("SELECT online FROM members WHERE id = ?", (member_id,)) as cur:
            stored = await cur.fetchone()
        if stored is None or bool(stored[0]) == online:
            return False
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE members SET online = ?, presence_changed_at = ? WHERE id = ? AND online != ?",
                (online, now_text(now), member_id, online),
            )
            return cur.rowcount > 0

    async def set_in_club(self, member_id: int, in_club: bool, now: datetime) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("UPDATE members SET in_club = ? WHERE id = ?", (in_club, member_id))
            await EventStore.add(conn, now, "joined_club" if in_club else "left_club", member_id, str(member_id))

    async def seat(self, member_id: int, game: int | None, now: datetime) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO seating (member, game, since) VALUES (?, ?, ?)",
                (member_id, game, now_text(now)),
            )

    async def seated_at(self, game: int) -> list[Member]:
        return await self._query("WHERE m.id IN (SELECT member FROM seating WHERE game = ?) ORDER BY m.nick", (game,))

    async def call_ban(self, member_id: int) -> CallBan | None:
        async with self.db.connection.execute(
            "SELECT member, until, by, reason, at FROM call_bans WHERE member = ?", (member_id,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return CallBan(
            int(row[0]), parse_stored_time(row[1]) if row[1] else None, row[2], row[3], parse_stored_time(row[4])
        )

    async def set_call_ban(
        self,
        member_id: int,
        until: datetime | None,
        by: int | None,
        reason: str,
        now: datetime,
        effects: Sequence[NewEffect] = (),
    ) -> None:
        """Deny the member the right to call (until `until`, or until restored); its chat `effects` with it."""
        async with self.db.transaction() as conn:
            await deny_call(conn, member_id, until, by, reason, now)
            await add_effects(conn, effects, now)

    async def lift_call_ban(
        self, member_id: int, by: int | None, reason: str, now: datetime, effects: Sequence[NewEffect] = ()
    ) -> bool:
        """Restore the right to call; False when it was not denied (and then no `effects` are written)."""
        async with self.db.transaction() as conn:
            cur = await conn.execute("DELETE FROM call_bans WHERE member = ?", (member_id,))
            if cur.rowcount:
                await EventStore.add(conn, now, "call_restored", by, str(member_id), reason=reason)
                await add_effects(conn, effects, now)
            return cur.rowcount > 0


async def change_role(
    conn: Connection, member_id: int, role: Role, granted: bool, by: int | None, now: datetime, reason: str = ""
) -> bool:
    """Grant or remove a role inside the caller's transaction (a carried vote's act, written with its closing),
    with its event; False when nothing changed (`MemberStore.set_role` in a transaction of its own)."""
    if granted:
        cur = await conn.execute(
            "INSERT OR IGNORE INTO roles (member, role, granted_at, granted_by) VALUES (?, ?, ?, ?)",
            (member_id, role, now_text(now), by),
        )
    else:
        cur = await conn.execute("DELETE FROM roles WHERE member = ? AND role = ?", (member_id, role))
    if cur.rowcount <= 0:
        return False
    await EventStore.add(
        conn, now, "role_granted" if granted else "role_removed", by, str(member_id), role=role, reason=reason
    )
    return True


async def deny_call(
    conn: Connection, member_id: int, until: datetime | None, by: int | None, reason: str, now: datetime
) -> None:
    """Deny the member the right to call inside the caller's transaction (a carried vote's act, written with its
    closing), with its event (`MemberStore.set_call_ban` in a transaction of its own)."""
    await conn.execute(
        "INSERT OR REPLACE INTO call_bans (member, until, by, reason, at) VALUES (?,?,?,?,?)",
        (member_id, now_text(until) if until else None, by, reason, now_text(now)),
    )
    await EventStore.add(
        conn, now, "call_denied", by, str(member_id), until=now_text(until) if until else None, reason=reason
    )
