"""What a platform reports outside any command — an account joined or left the club's group or server, an account
acted (so it is present, where the platform shows no presence), where a trial's space or controls were shown
(`Desk.keep_space`, `Desk.keep_controls`) — taken by the core, which decides what it means; the adapter only
reports it.

A member's command, press or message that meets a busy database is answered "try again" (`bot.registry.run`,
`Desk.press`, `Commands.handle_as`): he is there to try again. A report has nobody to try again, so the core holds
one the database cannot take now (another process holds the write lock: `DatabaseBusy`) and does it again itself,
with a growing pause (`bot.outbox_engine.Backoff`), until the database takes it: its effect happens once the
database frees, and nothing of it reaches a member or the log as an unhandled error.

Invariants. A report is held under its key (the kind of report and the account); a later report under the same key
replaces the held one (only the newest presence or membership of an account counts) and goes to the end of the
line. Held reports are done again in the order they were held; a round stops at the first one still busy, so the
order is kept. A database that only reads (`DatabaseReadOnly`) will never take one: it is logged and let go.
Held reports live in the process: a restart before the database frees forgets them, and the platforms' own start
(Discord's member sync, Telegram's presence of its members) brings the presence back.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import replace

from bot.outbox_engine import Backoff
from bot.tasks import cancelled
from storage.database import Database
from storage.errors import DatabaseBusy, DatabaseReadOnly
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
    ) -> None:
        self.db = db
        self.presence = presence
        self.left = left
        self.joined = joined
        self.sleep = sleep
        self.held: dict[Hashable, Work] = {}
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

        await self.take(("membership", platform, account), change)

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
    async def take(self, key: Hashable, work: Work) -> bool:
        """Do `work` now; when the database is busy, hold it under `key` and do it again later. Whether it was
        done now."""
        self.held.pop(key, None)  # a newer report of the same account replaces the held one
        try:
            await work()
        except DatabaseReadOnly as never:
            log.warning("a database that only reads cannot take %s (%s): let go", key, never)
            return False
        except DatabaseBusy as busy:
            log.warning("the database is busy (%s): %s is held and done again when it frees", busy, key)
            self.held[key] = work
            if self._task is None or self._task.done():
                self._task = asyncio.get_running_loop().create_task(self._again(), name="held-reports")
            return False
        return True

    async def round(self) -> bool:
        """Do the held reports again, in order, until one is still busy; whether none is left."""
        for key, work in list(self.held.items()):
            if self.held.get(key) is not work:
                continue  # replaced meanwhile by a newer report, which is held or done
            try:
                await work()
            except DatabaseReadOnly as never:
                log.warning("a database that only reads cannot take %s (%s): let go", key, never)
            except DatabaseBusy:
                return False
            except Exception:  # not the database's state: a bug, which waiting will not mend
                log.exception("the held report %s failed", key)
            if self.held.get(key) is work:
                del self.held[key]
        return not self.held

    async def _again(self) -> None:
        attempts = 0
        while self.held:
            await self.sleep(BACKOFF.delay(attempts, self.rng))
            attempts += 1
            if await self.round():
                log.info("the held reports are done")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)
