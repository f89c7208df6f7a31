"""Commands to the game server through the durable outbox: `HttpGameServer` is the desk's `GameServerPort` with a
link configured (each call writes a row and wakes the worker), and `OutboxWorker`, the outbox engine's worker
(`bot.outbox_engine`) that sends the rows.

The worker posts each queue's commands to ``{url}/v1/commands`` in the order written, signed, with its
idempotency key (the command's ``id`` and the ``Idempotency-Key`` header), so a command sent again after a crash
is harmless; the queues (per table ``game:N``, per member ``nick:X``) go side by side. A 2xx answer marks it
sent; a refusal the protocol calls final (`bot.gameserver.protocol.final_refusal`, and 400, 413, 422) keeps it as
failed with the answer; no answer, a 5xx and the 4xx that may heal are tried again after an exponential backoff
with jitter (at least the answer's ``Retry-After``), up to the configured bound, then the command is dead. Either
way the officials are told (`notice`, given by the link), and `sudija outbox --retry` / `--skip` resolves it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import aiohttp

from bot.gameserver.protocol import IDEMPOTENCY_HEADER, Key, command_doc, encode, final_refusal, signed_headers
from bot.outbox_engine import Attempt, Backoff, Bounds, OutboxEngine, Outcome, answer_outcome
from bot.ports import HandInProgress, Unavailable, command_key
from rules.gamelog import format_time
from storage.database import Database
from storage.outbox import Command, OutboxStore
from storage.sql import Connection
from storage.states import OutboxState

if TYPE_CHECKING:
    from storage.chat_outbox import NewEffect

__all__ = ["LEASE", "Backoff", "HttpGameServer", "OutboxWorker", "undo_command"]

LEASE = timedelta(seconds=60)  # a command being sent is this process's for this long (longer than any answer)
#: What tells the officials of a command refused for good or given up (the link renders it with the desk).
Notice = Callable[[Command, OutboxState, Attempt], Sequence["NewEffect"]]
#: What else a command's end decides, written in the transaction that ends it (korekcija: an undo that failed).
Ending = Callable[[Command, OutboxState], Awaitable[Callable[[Connection], Awaitable[None]] | None]]


class HttpGameServer:
    """The game-server port when a link is configured: every command is a row first."""

    linked = True
    delivers_link_codes = True  # the game client shows the code to the nickname: it proves a link (bot.desk.links)

    def __init__(self, db: Database, clock: Callable[[], datetime], wake: Callable[[], None] = lambda: None) -> None:
        self.store = OutboxStore(db)
        self.clock = clock
        self.wake = wake
        self.ask: Callable[[int], Awaitable[HandInProgress]] | None = None  # set by the link

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

    async def set_suspension(self, nick: str, until: datetime | None) -> None:
        await self._enqueue(
            f"nick:{nick.casefold()}", "set_suspension", {"nick": nick, "until": format_time(until) if until else None}
        )

    async def set_restriction(self, nick: str, until: datetime) -> None:
        await self._enqueue(f"nick:{nick.casefold()}", "set_restriction", {"nick": nick, "until": format_time(until)})

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        await self._enqueue(f"game:{game}", "paper_changed", {"game": game, "paper": paper})

    async def undo_move(self, game: int, hand: int, move: int) -> None:
        await self._enqueue(f"game:{game}", "undo_move", {"game": game, "hand": hand, "move": move})

    async def deliver_link_code(self, nick: str, code: str) -> None:
        await self._enqueue(f"nick:{nick.casefold()}", "deliver_link_code", {"nick": nick, "code": code})

    async def hand_in_progress(self, game: int) -> HandInProgress:
        """Asked at once (a question is no outbox row), through the link's `GameServerQuery`."""
        if self.ask is None:
            return HandInProgress(None, Unavailable.NO_LINK)
        return await self.ask(game)


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


class OutboxWorker(OutboxEngine[Command]):
    name = "game-server outbox"
    lease_time = LEASE
    until_quiet = True

    def __init__(
        self,
        db: Database,
        url: str,
        secret: bytes | Key,
        clock: Callable[[], datetime],
        *,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        bounds: Bounds | None = None,
        timeout: float = 10.0,
        session: aiohttp.ClientSession | None = None,
        notice: Notice | None = None,
        told: Callable[[], Awaitable[None]] | None = None,
        ending: Ending | None = None,
    ) -> None:
        self.store = OutboxStore(db)
        self._ending = ending
        super().__init__(self.store, clock, backoff=backoff, rng=rng, bounds=bounds)
        self.url = url.rstrip("/") + "/v1/commands"
        self.secret = secret
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self._session = session
        self._own_session = session is None
        self._notice = notice
        self._told = told

    async def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self.timeout)
        return self._session

    async def attempt(self, row: Command) -> Attempt:
        body = encode(command_doc(row.kind, row.payload, row.key))
        headers = signed_headers(self.secret, body, self.clock())
        headers[IDEMPOTENCY_HEADER] = row.key
        try:
            session = await self.session()
            async with session.post(self.url, data=body, headers=headers) as response:
                status = response.status
                text = (await response.text())[:500]
                answered = response.headers
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            return Attempt(Outcome.RETRY, f"no answer: {type(exc).__name__}: {exc}")
        return answer_outcome(status, text, answered, final_refusal)

    async def end(
        self, row: Command, state: OutboxState, attempt: Attempt, now: datetime, told: Sequence[NewEffect]
    ) -> None:
        kept = _kept(row) if state is OutboxState.SENT else None
        also = await self._ending(row, state) if self._ending is not None else None
        await self.store.end(row, state, attempt.error or None, now, told, kept, also)
        if also is not None:
            await self.told()

    def notice(self, row: Command, state: OutboxState, attempt: Attempt) -> Sequence[NewEffect]:
        return self._notice(row, state, attempt) if self._notice is not None else ()

    async def told(self) -> None:
        if self._told is not None:
            await self._told()

    async def stop(self) -> None:
        await super().stop()
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def drain(self, seconds: float) -> bool:
        """Send until nothing waits but what is held behind a dead or refused command, or `seconds` of the
        loop's time passed (the console club at exit)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end:
            await self.run_once()
            if (await self.store.counts()).get("pending", 0) <= len(await self.store.held_rows()):
                return True
            await asyncio.sleep(0.05)
        return False
