"""The club's gateway session on PostgreSQL: several bot processes serve one database at once, but only one may
receive the club's platform events (Discord's gateway, Telegram's polling, the game server's feed), or every
event would be handled once per process. That one holds the gateway lock, a session-level advisory lock
(`GATEWAY_LOCK`, the club's number) on a connection of its own; the others wait on it while they serve deadlines
and outbox rows. A process that dies, even by kill -9, drops its connection and with it the lock: a waiting
process holds it at that moment.

The lock is on a connection of its own so that waiting for it never holds up the stores' connection. Losing that
connection while holding the lock (the server restarted, the network cut) means another process may take the
gateway: `GatewayLock.watch` returns then, and the holder stops receiving events.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import asyncpg

from storage.postgres import GATEWAY_LOCK, shown
from storage.tenancy import DEFAULT_CLUB, lock_key

CHECK_SECONDS = 5.0  # how often a holder asks its lock's connection whether it is still there


class GatewayLost(Exception):
    """The connection holding the gateway lock is gone: another process may hold the gateway now."""


class GatewayLock:
    """The gateway lock of the club whose key (`storage.tenancy.lock_key`) is `club` on the server `target`."""

    def __init__(self, target: str, club: int = lock_key(DEFAULT_CLUB)) -> None:
        self.target = target
        self.club = club
        self._conn: asyncpg.Connection | None = None
        self._lost = asyncio.Event()

    @property
    def held(self) -> bool:
        return self._conn is not None and not self._lost.is_set()

    async def holder(self) -> str | None:
        """Who holds the gateway (a server process and its client), or None when nobody does."""
        conn = await asyncpg.connect(self.target)
        try:
            return await _holder(conn, self.club)
        finally:
            await conn.close()

    async def take(self, waiting: Callable[[str], None] | None = None) -> None:
        """Hold the gateway: at once when it is free, else wait (without bound; cancel to give up) until the
        process holding it is gone — `waiting` is told once who holds it."""
        try:
            conn = await asyncpg.connect(
                self.target,
                server_settings={
                    "application_name": "sudija-gateway",
                    "lock_timeout": "0",
                    # A waiter cancelled or gone is noticed by the server within a second, not when it wins.
                    "client_connection_check_interval": "1000",
                },
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise GatewayLost(f"cannot reach {shown(self.target)} for the gateway lock: {exc}") from None
        try:
            if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", GATEWAY_LOCK, self.club):
                if waiting is not None:
                    waiting(await _holder(conn, self.club) or "another process")
                await conn.execute("SELECT pg_advisory_lock($1, $2)", GATEWAY_LOCK, self.club)
        except BaseException:
            conn.terminate()
            raise
        self._lost.clear()
        conn.add_termination_listener(lambda _conn: self._lost.set())
        self._conn = conn

    async def watch(self, every: float = CHECK_SECONDS) -> None:
        """Return (`GatewayLost`) once the lock's connection is gone; asks it every `every` seconds."""
        while self._conn is not None and not self._lost.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), every)
            if self._lost.is_set() or self._conn is None:
                break
            try:
                await asyncio.wait_for(self._conn.fetchval("SELECT 1"), every)
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
                self._lost.set()
        raise GatewayLost("the connection holding the gateway lock is gone: another process may hold the gateway")

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                await conn.close(timeout=5)
            conn.terminate()


async def _holder(conn: asyncpg.Connection, club: int) -> str | None:
    row = await conn.fetchrow(
        "SELECT a.pid, coalesce(host(a.client_addr), 'local'), a.backend_start FROM pg_locks l"
        " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = $1"
        " AND l.objid = $2 AND l.objsubid = 2 AND l.granted",
        GATEWAY_LOCK,
        club,
    )
    if row is None:
        return None
    pid, host, since = row
    return f"server process {pid} for a client on {host}, since {since:%Y-%m-%d %H:%M:%S %Z}"
