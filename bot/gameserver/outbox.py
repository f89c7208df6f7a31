"""Commands to the game server through the durable outbox: `HttpGameServer` is the desk's `GameServerPort` with a
link configured (each call writes a row and wakes the worker), and `OutboxWorker` sends the rows.

The worker posts each queue's oldest pending command to ``{url}/v1/commands``, signed, with its idempotency key
(the command's ``id`` and the ``Idempotency-Key`` header), so a command sent again after a crash is harmless.
A 2xx answer marks it sent; a 4xx (but 408 and 429) keeps it as failed with the answer, for `sudija outbox`; no
answer or any other status is tried again after an exponential backoff with jitter. Queues are per table
(``game:N``) and per member (``nick:X``): a queue's commands arrive in the order they were written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp

from bot.gameserver.protocol import IDEMPOTENCY_HEADER, command_doc, encode, signed_headers
from bot.leases import release_dead_leases
from bot.ports import command_key
from rules.gamelog import format_time
from storage.database import Database
from storage.outbox import Command, OutboxStore

log = logging.getLogger(__name__)
LEASE = timedelta(seconds=60)  # a command being sent is this process's for this long (longer than any answer)


@dataclass(frozen=True)
class Backoff:
    initial: float = 1.0
    maximum: float = 300.0

    def delay(self, attempts: int, rng: random.Random) -> float:
        """After `attempts` failed tries: half the exponential delay fixed, half random (equal jitter)."""
        full = min(self.maximum, self.initial * float(2 ** min(attempts, 30)))
        return full / 2 + rng.uniform(0, full / 2)


class HttpGameServer:
    """The game-server port when a link is configured: every command is a row first."""

    linked = True
    delivers_link_codes = True  # the game client shows the code to the nickname: it proves a link (bot.desk.links)

    def __init__(self, db: Database, clock: Callable[[], datetime], wake: Callable[[], None] = lambda: None) -> None:
        self.store = OutboxStore(db)
        self.clock = clock
        self.wake = wake

    async def _enqueue(self, queue: str, kind: str, data: dict[str, Any]) -> None:
        # A command the chat outbox delivers (a decision's `server` effect) goes under the key its effect fixes:
        # written once however often a crash makes that delivery repeat.
        await self.store.enqueue(queue, kind, data, self.clock(), command_key.get())
        self.wake()

    async def pause_table(self, game: int) -> None:
        await self._enqueue(f"game:{game}", "pause_table", {"game": game})

    async def resume_table(self, game: int) -> None:
        await self._enqueue(f"game:{game}", "resume_table", {"game": game})

    async def block_offers(self, nick: str) -> None:
        await self._enqueue(f"nick:{nick.casefold()}", "block_offers", {"nick": nick})

    async def unblock_offers(self, nick: str) -> None:
        await self._enqueue(f"nick:{nick.casefold()}", "unblock_offers", {"nick": nick})

    async def close_game(self, game: int) -> None:
        await self._enqueue(f"game:{game}", "close_game", {"game": game})

    async def set_plavac(self, nick: str, until: datetime | None) -> None:
        await self._enqueue(
            f"nick:{nick.casefold()}", "set_plavac", {"nick": nick, "until": format_time(until) if until else None}
        )

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        await self._enqueue(f"game:{game}", "paper_changed", {"game": game, "paper": paper})

    async def undo_move(self, game: int, hand: int, move: int) -> None:
        await self._enqueue(f"game:{game}", "undo_move", {"game": game, "hand": hand, "move": move})

    async def deliver_link_code(self, nick: str, code: str) -> None:
        await self._enqueue(f"nick:{nick.casefold()}", "deliver_link_code", {"nick": nick, "code": code})


SECRETS = {"deliver_link_code": "code"}  # a command's field the row forgets once the game server took it


def _kept(command: Command) -> dict[str, Any] | None:
    """What a sent command's row keeps: all of it (None), or its payload without its secret (a link code, whose
    hash alone is stored otherwise)."""
    secret = SECRETS.get(command.kind)
    if secret is None:
        return None
    return {k: v for k, v in command.payload.items() if k != secret}


def undo_command(game: int, hand: int, move: int) -> tuple[str, str, dict[str, Any]]:
    """The outbox row of a korekcija's undo (written in the transaction that records the second consent)."""
    return f"game:{game}", "undo_move", {"game": game, "hand": hand, "move": move}


class OutboxWorker:
    def __init__(
        self,
        db: Database,
        url: str,
        secret: bytes,
        clock: Callable[[], datetime],
        *,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        timeout: float = 10.0,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self.store = OutboxStore(db)
        self.url = url.rstrip("/") + "/v1/commands"
        self.secret = secret
        self.clock = clock
        self.backoff = backoff or Backoff()
        self.rng = rng or random.Random()
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self._session = session
        self._own_session = session is None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        self._wake.set()

    async def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self.timeout)
        return self._session

    async def run_once(self) -> int:
        """Send every queue head that is due, the queues side by side; how many were sent or failed for good."""
        done = 0
        while True:
            now = self.clock()
            heads = [c for c in await self.store.due(now) if await self.store.lease(c.id, now, now + LEASE)]
            if not heads:  # nothing due, or another process is sending what is
                return done
            try:
                results = await asyncio.gather(*(self._send(command) for command in heads))
            except BaseException:
                await self.store.release([c.id for c in heads])  # what was not recorded is sent again
                raise
            finished = sum(results)
            done += finished
            if finished == 0:
                return done

    async def _send(self, command: Command) -> int:
        body = encode(command_doc(command.kind, command.payload, command.key))
        headers = signed_headers(self.secret, body, self.clock())
        headers[IDEMPOTENCY_HEADER] = command.key
        try:
            session = await self.session()
            async with session.post(self.url, data=body, headers=headers) as response:
                status = response.status
                text = (await response.text())[:500]
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            await self._later(command, f"no answer: {type(exc).__name__}: {exc}")
            return 0
        if 200 <= status < 300:
            await self.store.sent(command.id, self.clock(), _kept(command))
            return 1
        if 400 <= status < 500 and status not in (408, 429):
            log.warning("the game server refused %s %s: %s %s", command.kind, command.key, status, text)
            await self.store.failed(command.id, f"{status} {text}", self.clock())
            return 1
        await self._later(command, f"{status} {text}")
        return 0

    async def _later(self, command: Command, error: str) -> None:
        delay = self.backoff.delay(command.attempts, self.rng)
        await self.store.retry_at(command.id, error, self.clock() + timedelta(seconds=delay))

    async def run_forever(self) -> None:
        """Send what is due, then sleep until the next retry or until a new command wakes the worker."""
        while True:
            self._wake.clear()
            try:
                await self.run_once()
            except Exception:
                log.exception("the outbox worker failed; trying again shortly")
            wake = await self.store.next_wake()
            seconds = 60.0 if wake is None else max(0.0, (wake - self.clock()).total_seconds())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=min(seconds, 60.0) or 0.001)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._start_then_run())

    async def _start_then_run(self) -> None:
        """First the leases of processes that are gone (they died while sending) are released, then the loop."""
        await release_dead_leases(self.store.release_dead, "game-server outbox")
        await self.run_forever()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def drain(self, seconds: float) -> bool:
        """Send until nothing is pending or `seconds` of the loop's time passed (the console club at exit)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end:
            await self.run_once()
            if not (await self.store.counts()).get("pending"):
                return True
            await asyncio.sleep(0.05)
        return False
