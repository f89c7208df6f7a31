"""`DiscordChat`: the desk's outbound `ChatPort` on Discord. It translates only; every decision is the desk's.

* A call goes to the configured private referees' channel (councilor calls to the councilors' channel), naming
  the eligible referees with allowed_mentions limited to exactly those users; optional DMs, a closed DM
  (403 / 50007) is logged and skipped. Each copy is a `Notice(platform, channel id, message id)`, so every copy
  can be edited (its buttons removed) when the call is taken, withdrawn or expires, also after a restart.
* A trial is a private thread (``invitable=False``) of the trials channel named ``Suđenje #<trial id>``; the
  parties are added explicitly; the controls are dynamic buttons plus the draft buttons; at the end the last
  word is posted first and then the thread is archived and locked in one edit (a locked archived thread takes no
  more messages). Where it was opened is kept in the database (`Desk.keep_space`), so it is found again after a
  restart, archived or not; one opened before that is found by its name among every page of the guild's threads.
* Everything else goes out with the client's default ``AllowedMentions.none()``: text typed by members never
  pings anyone. A member without a Discord account is skipped.
"""

from __future__ import annotations

import contextvars
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.check import PERMISSION_NAMES
from bot.discord.components import draft_buttons, view_of
from bot.ports import Button, CallPost, SpaceFallback, SpaceRefused, TrialSpace, repeated_delivery
from bot.text_split import split_lines
from rules.members import Member, PartyRole
from rules.notices import Notice

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot

log = logging.getLogger(__name__)
PLATFORM = "discord"
LIMIT = 2000
MENTIONS_PER_MESSAGE = 100  # users one message's allowed_mentions may name
#: Messages a call may take in the referees' channel (its notice and the further mention lines, within a channel's
#: five messages in five seconds); a referee past them gets the call by direct message instead.
MENTION_MESSAGES = 5
THREAD_ID = re.compile(r"#(\d+)\s*$")
#: What the bot needs in the trials channel to open a trial's private thread and add its parties, and to lock it.
SPACE_NEEDS = ("view_channel", "create_private_threads", "send_messages_in_threads", "manage_threads")
LOCK_NEEDS = ("view_channel", "manage_threads")

# Set while a member's own thread message is being handed to the desk: the desk's relay of that message
# must not be posted back into the thread where the member already wrote it.
relaying_from_discord: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "relaying_from_discord", default=None
)


def chunks(text: str, limit: int = LIMIT) -> list[str]:
    """Split a long text on line boundaries into messages Discord accepts (never none: "—" for empty text)."""
    return split_lines(text, limit) or ["—"]


def with_mentions(
    text: str, users: Sequence[int], limit: int = LIMIT, most: int = MENTIONS_PER_MESSAGE
) -> list[tuple[str, list[int]]]:
    """A call notice and the referees it names, in messages of at most `limit` characters and `most` mentions
    (Discord's allowed_mentions takes at most 100 users): the notice with as many mentions as fit on its next
    line, the rest in further messages — a cut never drops a mention (a referee past the cut would not be
    pinged). Each part says whom it mentions, for its allowed_mentions."""
    parts: list[tuple[str, list[int]]] = []
    body, named = text[:limit], list[int]()
    for user in users:
        tag = f"<@{user}>"
        glue = ("\n" if body == text[:limit] else " ") if body else ""
        if len(body) + len(glue) + len(tag) > limit or len(named) >= most:
            parts.append((body, named))
            body, named, glue = "", [], ""
        body, named = body + glue + tag, [*named, user]
    parts.append((body, named))
    return parts


class DiscordChat:
    platform = PLATFORM

    def __init__(self, bot: SudijaBot) -> None:
        self.bot = bot
        self.config = bot.config.discord
        self.threads: dict[int, int] = {}  # trial id -> thread id
        self.mention_messages = MENTION_MESSAGES  # messages a call may take in the referees' channel

    # Look-ups -------------------------------------------------------------------------------------------
    async def member_linked(self, member: Member) -> None:
        await self.bot.member_linked(member)

    async def member_unlinked(self, member: Member) -> None:
        await self.bot.member_unlinked(member)

    async def member_roles(self, member: Member) -> None:
        await self.bot.member_roles(member)

    async def _ready(self) -> None:
        await self.bot.wait_until_ready()

    @staticmethod
    def account(member: Member) -> int | None:
        account = member.account(PLATFORM)
        return int(account) if account is not None else None

    def _accounts(self, members: Sequence[Member]) -> list[int]:
        return [a for a in (self.account(m) for m in members) if a is not None]

    async def _thread(self, trial_id: int, *, quiet: bool = False) -> discord.Thread | None:
        """The trial's thread: known in memory, else where the database says it was opened (also archived, also
        after a restart), else — a thread opened before its place was kept — searched by its name among the
        guild's active threads and every page of the trials channel's archived private threads."""
        await self._ready()
        known = self.threads.get(trial_id)
        guild = self.bot.get_guild(self.config.guild_id)
        if known is not None:
            cached = guild.get_thread(known) if guild else None
            if cached is not None:
                return cached
            fetched = await self.bot.fetch_channel(known)
            return fetched if isinstance(fetched, discord.Thread) else None
        for place in reversed(await self.bot.desk.spaces_of(trial_id, PLATFORM)):
            thread_id = int(place.message)
            found = guild.get_thread(thread_id) if guild else None
            if found is None:
                try:
                    channel = await self.bot.fetch_channel(thread_id)
                except discord.NotFound:
                    continue  # deleted by a moderator: look for another
                found = channel if isinstance(channel, discord.Thread) else None
            if found is not None:
                self.threads[trial_id] = found.id
                return found
        candidates: list[discord.Thread] = list(guild.threads) if guild else []
        parent = self.bot.get_channel(self.config.trials_channel_id)
        for thread in candidates:
            if self._is_thread_of(thread, trial_id):
                return thread
        if isinstance(parent, discord.TextChannel):
            async for thread in parent.archived_threads(private=True, limit=None):
                if self._is_thread_of(thread, trial_id):
                    return thread
        if not quiet:
            log.warning("no Discord thread for trial %s", trial_id)
        return None

    def _is_thread_of(self, thread: discord.Thread, trial_id: int) -> bool:
        match = THREAD_ID.search(thread.name)
        if thread.parent_id == self.config.trials_channel_id and match and int(match[1]) == trial_id:
            self.threads[trial_id] = thread.id
            return True
        return False

    def trial_of_thread(self, thread_id: int) -> int | None:
        return next((trial for trial, thread in self.threads.items() if thread == thread_id), None)

    async def _send(
        self, where: discord.abc.Messageable, text: str, view: discord.ui.View | None = None, **kwargs: Any
    ) -> discord.Message:
        """Send, split when long; the view goes on the last part. A refusal for a permission the bot lacks in a
        channel of the server is told to the desk (the officials learn of it meanwhile) and raised: the effect
        waits for its retry (at once when the permissions change, `permissions_changed`)."""
        parts = chunks(self.bot.times(text))
        message: discord.Message | None = None
        try:
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                if last and view is not None:
                    message = await where.send(part, view=view, **kwargs)
                else:
                    message = await where.send(part, **kwargs)
        except discord.Forbidden as refused:
            await self._refused(where, refused)
            raise
        assert message is not None
        return message

    async def _refused(self, where: discord.abc.Messageable, refused: discord.Forbidden) -> None:
        """Discord refused the bot a channel of the server (not a member's closed DMs): the desk tells the
        officials meanwhile."""
        if isinstance(where, discord.PartialMessageable) and where.guild_id is None:
            return
        if not isinstance(where, discord.abc.GuildChannel | discord.Thread | discord.PartialMessageable):
            return
        channel = getattr(where, "name", None) or self.bot.get_channel(where.id) or where.id
        problem = self.bot.desk.t("discord.missing", permissions=refused.text, channel=channel)
        await self.bot.desk.platform_refused(PLATFORM, problem)

    # ChatPort ------------------------------------------------------------------------------------------
    async def post_call(self, post: CallPost) -> list[Notice]:
        """The notice with its buttons, naming the eligible referees with allowed_mentions exactly those users;
        mentions past one message in further messages; whoever none could name (past the messages a call may
        take, or a message refused) gets the call by direct message, as do the direct ones. A councilors' vote
        without a councilors' channel goes to its voters privately alone."""
        await self._ready()
        channel_id = self.config.referees_channel_id
        if post.channel.councilors and self.config.councilors_channel_id:
            channel_id = self.config.councilors_channel_id
        elif post.councilors_only:
            channel_id = 0  # a vote is never posted where referees read: its voters get it privately
        accounts = {account: m for m in post.mention if (account := self.account(m)) is not None}
        parts = with_mentions(self.bot.times(post.text), list(accounts)) if channel_id else []
        unnamed = [u for _, named in parts[self.mention_messages :] for u in named]
        notices: list[Notice] = []
        channel = self.bot.get_partial_messageable(channel_id, guild_id=self.config.guild_id)
        view = view_of(post.buttons)
        message: discord.Message | None = None
        for index, (text, named) in enumerate(parts[: self.mention_messages]):
            only_them = discord.AllowedMentions(
                everyone=False, roles=False, replied_user=False, users=[discord.Object(u) for u in named]
            )
            try:
                if index == 0 and view is not None:
                    message = await channel.send(text, view=view, allowed_mentions=only_them)
                    continue
                part = await channel.send(text, allowed_mentions=only_them)
            except discord.HTTPException as refused:
                if index == 0:
                    if isinstance(refused, discord.Forbidden):
                        await self._refused(channel, refused)
                    raise
                log.warning("cannot post the mentions of %s: %s", post.subject, refused)
                unnamed += named
                continue
            message = message or part
        if message is not None:  # the notice (with its buttons) is the copy edited later
            notices.append(Notice(PLATFORM, str(channel_id), str(message.id)))
        direct = list(post.direct)
        if self.config.direct_messages:
            direct += list(accounts.values())
        direct += [accounts[u] for u in unnamed]
        seen: set[int] = set()
        for member in direct:
            if member.id in seen:
                continue
            seen.add(member.id)
            sent = await self._dm(member, post.text, post.buttons)
            if sent is not None:
                notices.append(Notice(PLATFORM, str(sent.channel.id), str(sent.id)))
        return notices

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        await self._ready()
        sent = await self._dm(member, post.text, post.buttons)
        return [] if sent is None else [Notice(PLATFORM, str(sent.channel.id), str(sent.id))]

    async def _dm(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> discord.Message | None:
        account = self.account(member)
        if account is None:
            return None
        return await self.direct(account, text, buttons, member.nick)

    async def direct(
        self, account: int, text: str, buttons: Sequence[Button] = (), nick: str = ""
    ) -> discord.Message | None:
        """A direct message to a Discord account; None when his DMs are closed or the account is gone."""
        member = nick or str(account)
        try:
            user = self.bot.get_user(account) or await self.bot.fetch_user(account)
            return await self._send(user, text, view_of(buttons))
        except discord.Forbidden as closed:  # 50007: the member does not take DMs from the server's members
            log.info("no direct message to %s (%s): %s", member, account, closed.text)
        except discord.NotFound:
            log.info("Discord account %s of %s no longer exists", account, member)
        return None

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        await self._ready()
        text = self.bot.times(text)
        for notice in notices:
            channel = self.bot.get_partial_messageable(int(notice.place))
            try:
                await channel.get_partial_message(int(notice.message)).edit(content=text[:LIMIT], view=None)
            except discord.HTTPException as failed:  # deleted by a moderator, or a DM closed since
                log.info("cannot edit notice %s/%s: %s", notice.place, notice.message, failed)

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        await self._ready()
        await self._dm(member, text, buttons)

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        """Tables live on the game server, which shows its own notices; Discord has no place for a table."""
        log.debug("table %s: %s", game, text)

    # A trial's space: a private thread, or — where Discord refused it — the bot's direct messages ---------
    async def _parent(self) -> discord.TextChannel:
        parent = self.bot.get_channel(self.config.trials_channel_id)
        if not isinstance(parent, discord.TextChannel):
            fetched = await self.bot.fetch_channel(self.config.trials_channel_id)
            assert isinstance(fetched, discord.TextChannel), "trials_channel_id must be a text channel"
            parent = fetched
        return parent

    def missing(self, needs: tuple[str, ...] = SPACE_NEEDS) -> str | None:
        """What the bot lacks in the trials channel to open (or lock) a trial's thread, as Discord's cached
        permissions say (roles and overwrites as the gateway last told them), in the operator's words; None when
        nothing is missing."""
        guild = self.bot.get_guild(self.config.guild_id)
        parent = self.bot.get_channel(self.config.trials_channel_id)
        if guild is None or not isinstance(parent, discord.TextChannel):
            return None  # not known yet: the request itself will say
        perms = parent.permissions_for(guild.me)
        lacking = [PERMISSION_NAMES[p] for p in needs if not getattr(perms, p)]
        if not lacking:
            return None
        return self.bot.desk.t("discord.missing", permissions=", ".join(lacking), channel=parent.name)

    async def _open_thread(self, space: TrialSpace) -> discord.Thread:
        """The trial's thread with every party in it: the one opened before (a repeated delivery, a space opened
        after all), or a new one. `SpaceRefused` when Discord does not let the bot open it or add the parties."""
        problem = self.missing()
        if problem is not None:
            raise SpaceRefused(problem)
        parent = await self._parent()
        known = space.id in self.threads or repeated_delivery.get() or PLATFORM in space.relayed
        thread = await self._thread(space.id, quiet=True) if known else None
        try:
            if thread is None:
                thread = await parent.create_thread(
                    name=self.bot.desk.t("discord.thread_name", trial=space.id),
                    type=discord.ChannelType.private_thread,
                    invitable=False,
                    auto_archive_duration=10080,
                )
            self.threads[space.id] = thread.id
            if not any(int(p.message) == thread.id for p in await self.bot.desk.spaces_of(space.id, PLATFORM)):
                # where it is, for a restart: found at once, also archived
                await self.bot.desk.keep_space(space.id, Notice(PLATFORM, str(parent.id), str(thread.id)))
            for account in self._accounts(space.members):
                await self._add(thread, account, opening=True)
        except discord.Forbidden as refused:  # the cache said yes, Discord no (an overwrite not seen yet)
            raise SpaceRefused(self.missing() or f"{refused.text} (#{parent.name})") from None
        return thread

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        """The trial's private thread with its parties and the controls. Where Discord refuses it, the desk
        decides (`TrialDesk.space_refused`): relayed, the parties get the opening privately and the trial goes on in
        direct messages until the thread can be opened (`reopen_spaces`); interrupted, its end follows."""
        await self._ready()
        try:
            thread = await self._open_thread(space)
        except SpaceRefused as refused:
            if await self.bot.desk.trials.space_refused(space.id, PLATFORM, refused.problem) is SpaceFallback.RELAY:
                await self._relay_open(space, text, buttons)
            return
        extra = draft_buttons(space.id, space.in_game, self.bot.desk.t)
        await self._send(thread, text, view_of(buttons, extra))

    async def _relay_open(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        """The opening, privately to each party; the referee's with his controls (kept, so the end removes them)."""
        hint = self.bot.desk.t("discord.relayed_party")
        for member in space.members:
            referee = space.role_of(member.id) is PartyRole.REFEREE
            await self._relay_to(space, member, f"{text}\n\n{hint}", buttons if referee else ())

    async def _relay_to(self, space: TrialSpace, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        extra = draft_buttons(space.id, space.in_game, self.bot.desk.t) if buttons else ()
        account = self.account(member)
        if account is None:
            return
        try:
            user = self.bot.get_user(account) or await self.bot.fetch_user(account)
            sent = await self._send(user, text, view_of(buttons, extra))
        except discord.Forbidden as closed:
            log.info("trial %s: no direct message to %s: %s", space.id, member.nick, closed.text)
            return
        except discord.NotFound:
            log.info("trial %s: Discord account of %s no longer exists", space.id, member.nick)
            return
        if buttons:
            await self.bot.desk.keep_controls(space.id, Notice(PLATFORM, str(sent.channel.id), str(sent.id)))

    async def reopen_spaces(self) -> int:
        """The trials relayed in direct messages get their thread now that Discord lets the bot open it: the
        parties added, the conversation so far and the referee's controls posted, the parties told (the desk).
        How many opened."""
        if self.missing() is not None:
            return 0
        opened = 0
        for space in await self.bot.desk.trials.relayed_spaces(PLATFORM):
            try:
                thread = await self._open_thread(space)
            except SpaceRefused as refused:
                log.info("trial %s: the thread still cannot be opened: %s", space.id, refused.problem)
                continue
            names = {m.id: m.nick for m in space.members}
            lines = [self.bot.desk.t("discord.reopened", trial=space.id, game=space.game)]
            lines += [
                self.bot.desk.t("discord.relay", nick=names.get(m.member, "—") if m.member else "—", text=m.text)
                for m in await self.bot.desk.messages_of(space.id)
            ]
            extra = draft_buttons(space.id, space.in_game, self.bot.desk.t)
            await self._send(thread, "\n".join(lines), view_of(self.bot.desk.trials.controls(space), extra))
            await self.bot.desk.trials.space_opened(space.id, PLATFORM)
            opened += 1
        return opened

    async def relock_spaces(self) -> int:
        """The ended trials whose thread Discord would not lock: locked now that it lets the bot. How many."""
        if self.missing(LOCK_NEEDS) is not None:
            return 0
        locked = 0
        for space in await self.bot.desk.trials.unlocked_spaces(PLATFORM):
            thread = await self._thread(space.id, quiet=True)
            if thread is not None and await self._lock(space.id, thread):
                locked += 1
        return locked

    async def permissions_changed(self) -> None:
        """Discord told of a change of roles or overwrites: what it refused before is tried again where the bot's
        permissions now allow it."""
        await self.reopen_spaces()
        await self.relock_spaces()
        await self.bot.desk.permissions_mended(PLATFORM)

    async def _lock(self, trial_id: int, thread: discord.Thread) -> bool:
        """Archive and lock the thread in one edit; a refusal is the desk's to report (never told as done)."""
        try:
            await thread.edit(archived=True, locked=True)
        except discord.Forbidden as refused:
            problem = self.missing(LOCK_NEEDS) or f"{refused.text} (#{thread.name})"
            await self.bot.desk.trials.space_unlocked(trial_id, PLATFORM, problem)
            return False
        await self.bot.desk.trials.space_locked(trial_id, PLATFORM)
        return True

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        if PLATFORM in space.relayed:
            for other in space.members:
                if other.id != member.id:
                    await self._relay_to(space, other, text)
            await self._relay_to(space, member, f"{text}\n\n{self.bot.desk.t('discord.relayed_party')}")
            return
        thread = await self._thread(space.id)
        if thread is None:
            return
        account = self.account(member)
        if account is not None:
            await self._add(thread, account)
        await self._send(thread, text)

    async def _add(self, thread: discord.Thread, account: int, *, opening: bool = False) -> None:
        """Add one party; one who cannot be added (he left the server meanwhile) must not stop the others. While
        the space opens, a refusal for a missing permission is the space's (raised: `SpaceRefused` follows)."""
        try:
            await thread.add_user(discord.Object(account))
        except discord.Forbidden as failed:
            if opening:
                raise
            log.warning("cannot add %s to thread %s: %s", account, thread.id, failed)
        except discord.HTTPException as failed:
            log.warning("cannot add %s to thread %s: %s", account, thread.id, failed)

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        if PLATFORM in space.relayed:
            body = self.bot.desk.t("discord.relay", nick=sender.nick, text=text) if sender is not None else text
            for member in space.members:
                if sender is None or member.id != sender.id:
                    referee = space.role_of(member.id) is PartyRole.REFEREE
                    await self._relay_to(space, member, body, buttons if referee else ())
            return
        if sender is not None and relaying_from_discord.get() == sender.id:
            return  # he wrote it in the thread himself: it is there already
        thread = await self._thread(space.id)
        if thread is None:
            return
        shown = self.bot.desk.t("discord.relay", nick=sender.nick, text=text) if sender is not None else text
        await self._send(thread, shown, view_of(buttons))

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        """The last word, then the thread archived and locked (a locked archived thread takes no more messages);
        the controls shown in direct messages removed; a trial relayed privately gets its last word there."""
        for controls in await self.bot.desk.controls_of(space.id, PLATFORM):  # from the database: also after a restart
            channel = self.bot.get_partial_messageable(int(controls.place))
            try:
                await channel.get_partial_message(int(controls.message)).edit(view=None)
            except discord.HTTPException as failed:
                log.info("cannot remove the controls of trial %s: %s", space.id, failed)
        if PLATFORM in space.relayed:
            for member in space.members:
                await self._relay_to(space, member, text)
            return
        thread = await self._thread(space.id)
        if thread is None:
            return
        await self._send(thread, text)  # first: a locked archived thread takes no more messages
        await self._lock(space.id, thread)
        self.threads.pop(space.id, None)
