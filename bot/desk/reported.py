"""What a platform reports outside any command — an account joined or left the club's group or server, an account
acted (so it is present, where the platform shows no presence), where a trial's space or controls were shown
(`Desk.keep_space`, `Desk.keep_controls`), the platform's own sync of an account it shows in the club (Discord's
member sync) — taken by the core, which decides what it means; the adapter only reports it.

A member's command, press or message that meets a busy database is answered "try again" (`bot.registry.run`,
`Desk.press`, `Commands.handle_as`): he is there to try again. A report has nobody to try again, so the core holds
one the database cannot take now (another process holds the write lock: `DatabaseBusy`) and does it again itself,
with a growing pause (`bot.outbox_engine.Backoff`), until the database takes it: its effect happens once the
database frees, and nothing of it reaches a member or the log as an unhandled error.

Invariants. A report is held under its key (the kind of report and the account); a later report under the same key
replaces the held one (only the newest presence or membership of an account counts) and goes to the end of the
line. One account's reports are done one at a time, in the order they came (a leave and a join handed to two
tasks at once never interleave their reads and writes). A platform's sync of an account joins the line untried
while reports are held (the database was busy at the last try; a start syncs every member one after the other,
and trying each would make each wait out the busy timeout). Held reports are done again in the order they were
held; a round stops at the first one still busy, so the order is kept. A database that only reads
(`DatabaseReadOnly`) will never take one: it is logged and let go.

Across a restart. Held reports live in the process, and cannot be written down where they would outlive it: they
are held because the database would not take a write. What heals a membership report a restart forgot is the
platform itself, the truth of who is in its group or server: at every start the adapter asks it (`roll_call`:
Telegram's getChatMember for each linked account, Discord's whole member list once it came) and the core reports
every account whose answer differs from the records — the same `membership` report, held in turn if the database
is still busy. A member the owner removed from the club is where the records put him while his account is there:
nothing to report (a join of his marks the account present and no more: `TrialDesk.member_joined`). An account
with a report held, or reported while the platform was being asked, is left to that newer report. Presence needs
no roll call: Discord's sync sets it on ready, Telegram's members are marked present at its start. Where a trial's
space or controls were shown is lost with the process if the database never took it before the restart: Discord's
thread is found again by its name (`bot.discord.port`); controls not kept are not removed at the trial's end, and
their presses are refused then, as every press is checked against the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import replace

from bot import metrics
from bot.outbox_engine import Backoff
from bot.tasks import cancelled
from storage.database import Database
from storage.errors import DatabaseBusy, DatabaseReadOnly, StorageError
from storage.members import Member

log = logging.getLogger(__name__)

Work = Callable[[], Awaitable[object]]
#: The pause before each round of held reports: 1 s, doubling, at most a minute (a busy lock is another
#: process's short write: an import, the command line).
BACKOFF = Backoff(initial=1.0, maximum=60.0)


class Reported:
    """The reports of one desk: `membership` and `acting` for the adapters; `take` holds what the database could
    not take and a task of its own does it again."""

    def __init__(
        self,
        db: Database,
        presence: Callable[[Member, bool, str | None], Awaitable[bool]],
        left: Callable[[Member, str], Awaitable[None]],
        joined: Callable[[Member, str], Awaitable[None]],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        *,
        club: str,
    ) -> None:
        self.db = db
        self.held_now = metrics.REPORTS_HELD.labels(club)  # how many are held: an alert when they never heal
        self.presence = presence
        self.left = left
        self.joined = joined
        self.sleep = sleep
        self.held: dict[Hashable, Work] = {}
        self._asking: dict[Hashable, bool] = {}  # accounts the roll call asks about: reported meanwhile?
        self._turns: dict[Hashable, tuple[asyncio.Lock, int]] = {}  # a key's report under way, and how many wait
        self.rng = random.Random()
        self._task: asyncio.Task[None] | None = None

    # What the adapters report -----------------------------------------------------------------------------
    async def membership(self, platform: str, account: str, present: bool) -> None:
        """The account joined (`present`) or left the club's group or server on `platform`: for a linked member,
        his presence in the club as `TrialDesk.member_joined` / `member_left_club` decide."""

        async def change() -> None:
            member = await self.db.members.by_account(platform, account)
            if member is not None:
                await (self.joined if present else self.left)(member, platform)

        await self.take(membership_key(platform, account), change)

    async def synced(self, platform: str, account: str, sync: Work) -> bool:
        """The platform's own sync of an account it shows in the club (Discord's member sync: membership, roles,
        presence), `sync` being the adapter's; held under the account's membership key, so a later membership
        report of the account replaces it. Whether it was done now."""
        return await self.take(membership_key(platform, account), sync, behind=True)

    async def roll_call(self, platform: str, is_in: Callable[[str], Awaitable[bool | None]]) -> int:
        """Every account linked on `platform` asked of the platform (`is_in`: in the club's group or server; None
        when it cannot say); each answer that differs from the records is reported (`membership`). An account
        with a report held, or reported while it was asked, is skipped: that report is newer. How many were
        reported. The database failing on the way (gone, not merely busy: a busy one's report is held) ends the
        roll call, logged: the next start calls it again."""
        reported = 0
        try:
            for account, present, in_club in await self.db.members.accounts_on(platform):
                key = membership_key(platform, account)
                if key in self.held:
                    continue
                self._asking[key] = False
                try:
                    answer = await is_in(account)
                finally:
                    overtaken = self._asking.pop(key, False)
                if answer is None or overtaken or answer == (present and in_club) or (not answer and not present):
                    continue
                log.info("%s says account %s is %s the club: reported", platform, account, "in" if answer else "not in")
                await self.membership(platform, account, answer)
                reported += 1
        except StorageError as failed:
            log.warning(
                "the roll call of %s stopped after %d report(s), the database failing (%s: %s): the next start"
                " calls it again",
                platform,
                reported,
                type(failed).__name__,
                failed,
            )
        return reported

    async def acting(self, member: Member, platform: str) -> Member:
        """He acts on `platform`, which shows no presence (Telegram): he is online there. The member as stored now
        (read again only when that changed him); where the database cannot take it yet, as he will be."""
        return await self.presence_on(member, True, platform)

    async def presence_on(self, member: Member, online: bool, platform: str) -> Member:
        """His presence on `platform` changed (Discord's presence, Telegram's action): `Desk.presence` decides what
        it means. The member as stored now (read again only when that changed him); where the database cannot
        take it yet, online if he came online (offline he is only when no other platform shows him)."""
        changed: list[bool] = []

        async def stored() -> None:
            changed.append(await self.presence(member, online, platform))

        if await self.take(("presence", platform, member.id), stored) and changed[0]:
            return await self.db.members.get(member.id) or member
        return member if member.online or not online else replace(member, online=True)

    # Holding and doing again ------------------------------------------------------------------------------
    async def take(self, key: Hashable, work: Work, *, behind: bool = False) -> bool:
        """Do `work` now; when the database is busy, hold it under `key` and do it again later. `behind`: while
        reports are held, hold it behind them untried. Whether it was done now."""
        if key in self._asking:
            self._asking[key] = True  # newer than what the roll call is being told
        async with self._turn(key):
            self.held.pop(key, None)  # a newer report of the same account replaces the held one
            if behind and self.held:  # the database was busy at the last try
                self._hold(key, work)
                return False
            try:
                await work()
            except DatabaseReadOnly as never:
                log.warning("a database that only reads cannot take %s (%s): let go", key, never)
                return False
            except DatabaseBusy as busy:
                log.warning("the database is busy (%s): %s is held and done again when it frees", busy, key)
                self._hold(key, work)
                return False
            finally:
                self.held_now.set(len(self.held))
            return True

    @contextlib.asynccontextmanager
    async def _turn(self, key: Hashable) -> AsyncIterator[None]:
        """One report of `key` at a time, in the order they came (asyncio's lock is fair): a leave and a join of one
        account never interleave their reads and writes."""
        lock, waiting = self._turns.get(key, (asyncio.Lock(), 0))
        self._turns[key] = (lock, waiting + 1)
        try:
            async with lock:
                yield
        finally:
            lock, waiting = self._turns[key]
            if waiting == 1:
                del self._turns[key]
            else:
                self._turns[key] = (lock, waiting - 1)

    def _hold(self, key: Hashable, work: Work) -> None:
        self.held[key] = work
        self.held_now.set(len(self.held))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._again(), name="held-reports")

    async def round(self) -> bool:
        """Do the held reports again, in order, until one is still busy; whether none is left."""
        try:
            await self._round()
        finally:
            self.held_now.set(len(self.held))
        return not self.held

    async def _round(self) -> None:
        for key, work in list(self.held.items()):
            async with self._turn(key):
                if self.held.get(key) is not work:
                    continue  # replaced meanwhile by a newer report, which is held or done
                try:
                    await work()
                except DatabaseReadOnly as never:
                    log.warning("a database that only reads cannot take %s (%s): let go", key, never)
                except DatabaseBusy:
                    return
                except Exception:  # not the database's state: a bug, which waiting will not mend
                    log.exception("the held report %s failed", key)
                if self.held.get(key) is work:
                    del self.held[key]

    async def _again(self) -> None:
        attempts = 0
        while self.held:
            await self.sleep(BACKOFF.delay(attempts, self.rng))
            attempts += 1
            if await self.round():
                log.info("the held reports are done")

    async def stop(self) -> None:
        """The retry ends; what is held ends with the process (the next start's roll call finds it)."""
        task, self._task = self._task, None
        await cancelled(task)
        self.held_now.set(0)


def membership_key(platform: str, account: str) -> Hashable:
    """The key an account's membership (and its platform's sync of it) is held under."""
    return ("membership", platform, account)
