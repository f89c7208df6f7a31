"""The one outbox engine: the worker that carries the rows of an outbox (`storage.outbox_engine.OutboxTable`) out
to the world — the chat effects (`bot.chat_outbox.ChatOutbox`) and the commands to the game server
(`bot.gameserver.outbox.OutboxWorker`) — and the one place where an attempt's outcome is classified.

An attempt ends one of three ways (`Outcome`): delivered; refused for good (the other side called it final: a
request it can never take, or something it names that is gone); or it may heal and is tried again later — no
answer, a timeout, the network, a 5xx, a rate limit, and the 4xx that a mended configuration or a moment heals
(401, 403, 404, 408, 409, 425, 429), unless the protocol calls that very refusal final. A retry waits an
exponential backoff with equal jitter, and at least what the other side asked (`Retry-After`, `retry_after`);
past the configured bound (`[outbox] max_attempts` tries, or `max_age_minutes` since the first failure, whichever
comes first) the row is given up as ``dead``. A row refused or given up is never silent: it is logged, kept with
its error for `sudija outbox`, and the officials are told in their channel (a chat effect written with its end,
in one transaction), what failed and what to do — except a notice about a notice, which would only loop.

One worker per outbox: `run_once` acts on every row that is due, its queues side by side — a queue's rows in the
order written, a queue stopping at its first row that does not end, and a queue that waits (on a slow platform,
a rate limit) holding no other; `run_forever` sleeps until the next retry or until woken. A row is leased before
it is acted on, so several bot processes on one database act on each row once; a starting bot releases the
leases of processes that are gone (`release_leases`), and so does a worker that finds another process's lease
holding a row, every `RECHECK` seconds while it does (a killed process's connections close one after another:
the look at its start may have seen the lease's holder still there).

A stopping bot winds its outboxes down before its platforms close (`wind_down`): from then on no row is leased,
and the attempts in hand — a request the other side may already have carried out — are let end and their outcome
recorded, for at most a grace period; an attempt still in hand then is cut, its row released untouched (its
platform's part stays begun), and the next start acts on it again at once: at least once, as after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import random
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from bot.tasks import cancelled
from storage.outbox_engine import OutboxTable
from storage.states import OutboxState

if TYPE_CHECKING:
    from bot.config import OutboxConfig
    from storage.chat_outbox import NewEffect


# The outcome of an attempt ------------------------------------------------------------------------------------
class Outcome(StrEnum):
    DELIVERED = "delivered"
    RETRY = "retry"  # may heal: tried again after a backoff, up to the bound, then dead
    REFUSED = "refused"  # final: kept as failed, never tried again


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt came to: its outcome, the error, how long the other side asked us to wait, where it
    failed (a chat effect's platforms), and what the outbox records with the row's end, in its transaction (a chat
    effect's last platform's part: `bot.chat_outbox.ChatOutbox.attempt`)."""

    outcome: Outcome
    error: str = ""
    retry_after: float | None = None
    where: tuple[str, ...] = ()
    with_end: Any = None


DELIVERED = Attempt(Outcome.DELIVERED)
#: The 4xx that may heal: credentials or permissions mended (401, 403), a wrong address or a thing not there yet
#: (404), a timeout (408), a conflict that clears (409), too early (425), a rate limit (429).
HEALING = frozenset({401, 403, 404, 408, 409, 425, 429})
RETRY_AFTER_CAP = 3600.0  # the longest wait a `Retry-After` is honoured for (a bigger one is read as this)


def by_status(status: int | None, error: str, *, retry_after: float | None = None, final: bool = False) -> Attempt:
    """The one table: a 2xx is delivered; a refusal the protocol calls `final`, and every other 4xx, is refused;
    no answer (None), a 5xx, anything else and the 4xx in `HEALING` may heal."""
    if status is not None and 200 <= status < 300:
        return DELIVERED
    if final or (status is not None and 400 <= status < 500 and status not in HEALING):
        return Attempt(Outcome.REFUSED, error)
    return Attempt(Outcome.RETRY, error, retry_after)


class Permanent(Exception):
    """A row that can never be carried out (what it names is gone): refused for good."""


#: python-telegram-bot's errors carry no status: each class and the HTTP status Telegram answered it with.
_TELEGRAM = {
    "BadRequest": 400,
    "ChatMigrated": 400,
    "InvalidToken": 401,
    "Forbidden": 403,
    "EndPointNotFound": 404,
    "Conflict": 409,
    "RetryAfter": 429,
}
_NETWORK = frozenset({"NetworkError", "TimedOut", "ClientConnectionError", "ServerDisconnectedError"})


def error_outcome(exc: BaseException) -> Attempt:
    """The outcome of an attempt that raised `exc` (a chat library's error, the network's, or a bug), told by
    what the errors carry — a status (discord.py, aiohttp), the class (python-telegram-bot), a `retry_after` — so
    this module imports none of those libraries. An error that says nothing of the kind (a bug) is refused."""
    error = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, Permanent):
        return Attempt(Outcome.REFUSED, error)
    retry_after = _seconds(getattr(exc, "retry_after", None))
    status = getattr(exc, "status", None)
    names = [cls.__name__ for cls in type(exc).__mro__]
    if not isinstance(status, int) or isinstance(status, bool):
        status = next((_TELEGRAM[n] for n in names if n in _TELEGRAM), None)
    if status is None:
        network = isinstance(exc, (TimeoutError, ConnectionError, OSError)) or bool(_NETWORK & set(names))
        if not network and retry_after is None:
            return Attempt(Outcome.REFUSED, error)
    return by_status(status, error, retry_after=retry_after)


def answer_outcome(status: int, body: str, headers: Any, final: Callable[[int, Any], bool]) -> Attempt:
    """The outcome of an HTTP answer (the game server's to a command): `final` says whether the protocol calls
    this status with this JSON answer a final refusal; `Retry-After` (seconds or an HTTP date) is honoured."""
    try:
        answer = json.loads(body)
    except ValueError:
        answer = None
    retry_after = _retry_after(headers.get("Retry-After") if headers is not None else None)
    return by_status(status, f"{status} {body}".strip(), retry_after=retry_after, final=final(status, answer))


def _seconds(value: object) -> float | None:
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


# Retries and their bound --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Backoff:
    """After `attempts` failed tries: half the exponential delay fixed, half random (equal jitter)."""

    initial: float = 1.0
    maximum: float = 300.0

    def delay(self, attempts: int, rng: random.Random) -> float:
        full = min(self.maximum, self.initial * float(2 ** min(attempts, 30)))
        return full / 2 + rng.uniform(0, full / 2)


@dataclass(frozen=True)
class Bounds:
    """How long a row that may heal is tried: at most `attempts` tries, or until `age` after its first failure,
    whichever comes first (`[outbox]`); then it is dead."""

    attempts: int = 20
    age: timedelta = timedelta(hours=1)

    @classmethod
    def of(cls, config: OutboxConfig) -> Bounds:
        return cls(config.max_attempts, timedelta(minutes=config.max_age_minutes))

    def reached(self, attempts: int, failing_since: datetime | None, now: datetime) -> bool:
        return attempts >= self.attempts or (failing_since is not None and now - failing_since >= self.age)


# The worker ---------------------------------------------------------------------------------------------------
class OutboxRow(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def queue(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def attempts(self) -> int: ...
    @property
    def failing_since(self) -> datetime | None: ...


Row = TypeVar("Row", bound=OutboxRow)
IDLE = 60.0  # the longest a worker sleeps without being woken (a row another process wrote, on SQLite)
RECHECK = 1.0  # while another process's lease holds a row (PostgreSQL): how often its holder is asked after again
#: The engines whose `run_once` this task is inside (a hook run by a delivery that asks to deliver again).
_inside: ContextVar[frozenset[int]] = ContextVar("outbox_engines", default=frozenset())


class OutboxEngine(Generic[Row]):
    """The worker of one outbox. An outbox says how to carry a row out (`attempt`), how its end is recorded
    (`end`) and what the officials are told when it is refused or given up (`notice`).

    Its queues go side by side: each queue with due rows is carried by one task of this process at a time (a
    carrier, `_carry`), which acts on its rows in order; any number of runs (`run_once`: the worker's, and each
    decision's own delivery right after its commit) may be under way at once, and none waits for a queue that
    another is carrying — a run that finds a queue carried leaves its rows to that carrier, which looks at the
    queue again before it stops (`_look_again`). So a queue that waits (a platform holding one chat for a minute)
    delays only its own rows, and a decision's delivery waits only for the queues it found to carry."""

    name = "outbox"
    lease_time = timedelta(minutes=2)  # how long a process holds a row it acts on (longer than any attempt)
    until_quiet = False  # pass again while a pass ended something (rows a delivery wrote meanwhile)

    def __init__(
        self,
        table: OutboxTable[Row],
        clock: Callable[[], datetime],
        *,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        bounds: Bounds | None = None,
    ) -> None:
        self.table = table
        self.clock = clock
        self.backoff = backoff or Backoff()
        self.rng = rng or random.Random()
        self.bounds = bounds or Bounds()
        self.log = logging.getLogger(type(self).__module__)
        self._carriers: dict[str, asyncio.Task[int]] = {}  # the queues this process is acting on now
        self._look_again: set[str] = set()  # carried queues a run looked at meanwhile: read again before stopping
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._closing = False  # `wind_down` began: no row is leased any more
        self._in_hand: set[asyncio.Task[Attempt]] = set()  # the attempts under way
        self._cut: set[asyncio.Task[Attempt]] = set()  # those a stop cut when its grace ran out

    # What each outbox does ------------------------------------------------------------------------------------
    async def attempt(self, row: Row) -> Attempt:
        """Carry the row out once."""
        raise NotImplementedError

    async def end(
        self, row: Row, state: OutboxState, attempt: Attempt, now: datetime, told: Sequence[NewEffect]
    ) -> None:
        """Record the row's end (sent, failed or dead) with the officials' notice `told`, in one transaction."""
        raise NotImplementedError

    def may_attempt(self, row: Row) -> bool:
        """Whether this process acts on the row now (False: it, and its queue, wait)."""
        return True

    async def lease(self, row: Row, now: datetime, until: datetime) -> bool:
        """Take the row to attempt it (`OutboxTable.lease`); an outbox whose attempt begins with a write of its own
        writes it here, in the lease's transaction."""
        return await self.table.lease(row.id, now, until)

    def notice(self, row: Row, state: OutboxState, attempt: Attempt) -> Sequence[NewEffect]:
        """The chat effects that tell the officials a row was refused for good or given up."""
        return ()

    async def told(self) -> None:
        """A notice was written: have it delivered."""

    # Acting on what is due ------------------------------------------------------------------------------------
    async def run_once(self) -> int:
        """Act on every row that is due; how many the queues this run carried ended. A delivery's hook that asks
        for another run while a run carries its queue (a decision it takes writes rows) gets a further pass of
        the runs under way instead of one of its own, which would wait for the queue it is in."""
        if self._closing:
            return 0  # the bot is stopping: what is due waits for the next start
        if id(self) in _inside.get():
            self._again = True
            return 0
        token = _inside.set(_inside.get() | {id(self)})
        try:
            ended = 0
            self._again = True
            while self._again:
                self._again = False
                done = await self._pass()
                ended += done
                self._again = self._again or (self.until_quiet and done > 0)
            return ended
        finally:
            _inside.reset(token)

    async def _pass(self) -> int:
        """One look at the due rows: a carrier for each queue nobody here carries, awaited; a queue carried
        already is left to its carrier. Every queue carried when the look begins reads its rows again before it
        stops: a row written before this pass may stand behind one its carrier leased, unseen here."""
        self._look_again.update(self._carriers)
        queues: dict[str, list[Row]] = {}
        for row in await self.table.due(self.clock()):
            queues.setdefault(row.queue, []).append(row)
        carried: list[asyncio.Task[int]] = []
        for queue, rows in queues.items():
            if queue in self._carriers:
                self._look_again.add(queue)
            else:
                carrier = asyncio.ensure_future(self._carry(queue, rows))
                self._carriers[queue] = carrier
                carried.append(carrier)
        if not carried:
            return 0
        outcomes = await asyncio.gather(*carried, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return sum(int(o) for o in outcomes if not isinstance(o, BaseException))

    async def _carry(self, queue: str, rows: list[Row]) -> int:
        """Act on one queue's due rows in order, stopping at its first row that does not end; then, while a pass
        looked at the queue meanwhile, on its rows due now (none while a row waits for its retry or another
        process's lease: `OutboxTable.due` leaves out what stands behind it). How many ended. Rows of a read made
        before another carrier of the queue ended them are refused their lease and stop these rows like a row
        that waits; a pass that looked meanwhile has what stands behind them read here."""
        ended = 0
        try:
            while True:
                for row in rows:
                    if not await self._one(row):
                        break  # the rest of these rows wait for it (its retry, another's lease) or ended already
                    ended += 1
                if self._closing or queue not in self._look_again:
                    return ended
                self._look_again.discard(queue)
                rows = await self.table.due(self.clock(), queue=queue)
        except BaseException:
            if queue in self._look_again:  # rows left to this carrier: the worker takes them up
                self.wake()
            raise
        finally:
            if self._carriers.get(queue) is asyncio.current_task():
                del self._carriers[queue]

    async def _one(self, row: Row) -> bool:
        """Lease the row, attempt it and record the outcome; whether it ended (False: it and its queue wait)."""
        if self._closing or not self.may_attempt(row):
            return False
        now = self.clock()
        if not await self.lease(row, now, now + self.lease_time):
            return False  # another process acts on it (and on the rest of its queue)
        settled = False
        try:
            attempt = await self._attempted(row)
            if attempt is None:
                return False  # a stop began meanwhile, or cut it when its grace ran out: the next start acts on it
            ended = await self._settle(row, attempt)
            settled = True
            return ended
        finally:
            if not settled:  # failed on the way (the database, a cancel, a stop): the row is acted on again
                with contextlib.suppress(Exception):
                    await self.table.release([row.id])

    async def _attempted(self, row: Row) -> Attempt | None:
        """The attempt of a leased row, in a task of its own that `wind_down` can cut without cutting what
        records its outcome; None when it was cut so, or the stop began while the lease was taken (not begun)."""
        if self._closing:
            return None
        attempt = asyncio.ensure_future(self.attempt(row))
        self._in_hand.add(attempt)
        try:
            return await attempt
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if attempt in self._cut and (current is None or not current.cancelling()):
                return None  # cut by `wind_down`, not this task cancelled
            raise
        finally:
            self._in_hand.discard(attempt)
            self._cut.discard(attempt)

    async def _settle(self, row: Row, attempt: Attempt) -> bool:
        now = self.clock()
        if attempt.outcome is Outcome.DELIVERED:
            await self.end(row, OutboxState.SENT, attempt, now, ())
            return True
        if attempt.outcome is Outcome.RETRY and not self.bounds.reached(row.attempts + 1, row.failing_since, now):
            delay = self.backoff.delay(row.attempts, self.rng)
            if attempt.retry_after is not None:
                delay = max(delay, min(attempt.retry_after, RETRY_AFTER_CAP))
            self.log.info("%s: %s #%s not delivered, tried again later: %s", self.name, row.kind, row.id, attempt.error)
            await self.table.retry_at(row.id, attempt.error, now + timedelta(seconds=delay), now)
            return False
        if attempt.outcome is Outcome.REFUSED:
            state = OutboxState.FAILED
            self.log.warning("%s: %s #%s failed for good: %s", self.name, row.kind, row.id, attempt.error)
        else:
            state = OutboxState.DEAD
            self.log.warning(
                "%s: %s #%s given up after %d tries: %s", self.name, row.kind, row.id, row.attempts + 1, attempt.error
            )
        told = self.notice(row, state, attempt)
        await self.end(row, state, attempt, now, told)
        if told:
            await self.told()
        return True

    # Running beside the bot -----------------------------------------------------------------------------------
    def wake(self) -> None:
        self._wake.set()

    async def run_forever(self) -> None:
        """Act on what is due, then sleep until the next retry or until a new row wakes the worker — at most
        `RECHECK` seconds while another process's lease holds a row, then release the leases of processes gone."""
        recheck = False
        while True:
            self._wake.clear()
            try:
                if recheck:
                    await self.release_leases()
                await self.run_once()
                wake = await self.table.next_wake()
                seconds = IDLE if wake is None else max(0.0, (wake - self.clock()).total_seconds())
                recheck = seconds > RECHECK and await self.table.leased_elsewhere()
                if recheck:
                    seconds = RECHECK
            except Exception:  # the database busy or gone a moment: the rows wait
                self.log.exception("the %s worker failed; trying again shortly", self.name)
                seconds = 5.0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=min(seconds, IDLE) or 0.001)

    async def release_leases(self) -> int:
        """A bot starting or taking over the gateway: the leases of processes that are gone are released, so
        what they were acting on is acted on again at once (on SQLite every lease left is a dead process's); how
        many. A failure is logged, not raised: the leases then run out by themselves."""
        try:
            released = await self.table.release_dead()
        except Exception:
            self.log.exception("the %s could not release a stopped process's leases; they run out", self.name)
            return 0
        if released:
            self.log.info("the %s: %d row(s) a stopped process was acting on are taken up again", self.name, released)
        return released

    def start(self) -> None:
        self._closing = False
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._start_then_run())

    async def _start_then_run(self) -> None:
        await self.release_leases()
        await self.run_forever()

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)

    async def wind_down(self, grace: float) -> None:
        """Stop as a stopping bot does, after its platforms stopped taking input and before they close: no row is
        leased from now on (what falls due meanwhile, or a decision still under way writes, waits for the next
        start); the attempts in hand are let end and their outcome recorded, so what the other side already
        carried out is recorded done and not carried out again; after `grace` seconds those still in hand are
        cut and their rows released untouched (the next start attempts them again: at least once). Then the
        worker stops."""
        self._closing = True
        carriers = set(self._carriers.values())  # each acts on one row at a time
        if carriers:
            self.log.info(
                "%s: stopping with %d row(s) on their way: let end for at most %s s", self.name, len(carriers), grace
            )
            _, late = await asyncio.wait(carriers, timeout=grace)
            if late:
                self.log.warning(
                    "%s: %d row(s) still on their way after %s s: cut, acted on again at the next start",
                    self.name,
                    len(late),
                    grace,
                )
                self._cut.update(self._in_hand)
                for attempt in self._cut:
                    attempt.cancel()
                await asyncio.wait(late)  # each records or releases what it held before the database closes
        await self.stop()
