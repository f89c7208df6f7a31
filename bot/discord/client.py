"""`SudijaBot`, the discord.py client of the desk: gateway events in, interactions answered, the port out.

Inbound it only translates: a slash command, a button or a modal becomes one desk use case for the member the
Discord account proves to be (`Desk.actor`; `/nadimak` asks the desk for a link, `/povezi` and `/odvezi` are
`bot.registry.links`; an unproven account is told how to link); messages typed in a trial thread become
`TrialDesk.say` (the transcript); presence changes `Desk.presence` on this platform; a member leaving the server
is reported to the core (`desk.reported.membership`, held while the database is busy), and so is each member's
sync (`desk.reported.synced`); once the server's whole member list has come, the core's roll call reports every
linked account it lacks (a leave a restart forgot, or one made while the bot was away). The configured role
mapping (`[discord] roles`) is the truth for referee, councilor and moderator: it is copied into the desk's roles
of proven links only — on ready, on every member update and when a link is proven — and taken away when the link
is removed. When Discord rate limits the request for the server's whole member list (a restart within 30 s), the
members it did not send are asked for again and synced as on ready (`bot.member_list` decides when).

discord.py details this relies on: `setup_hook` runs after login and before the gateway connects, so the dynamic
buttons are registered and the guild's commands synced before any interaction can arrive; `ready` comes only
`guild_ready_timeout` seconds after the last GUILD_CREATE; the client's `allowed_mentions` is the default every
send and every interaction answer merges with, so `AllowedMentions.none()` there means nothing the bot sends
pings anyone unless a call names its referees explicitly. discord.py 2.7 has no parser for the gateway's
RATE_LIMITED event (it drops it, and its member request waits out its own chunk timeout): the client adds one to
the connection's parsers, the table the gateway looks each dispatch up in. That table and
`ConnectionState.process_chunk_requests` are discord.py internals with no public counterpart (up to its 2.8
development branch): pyproject.toml pins discord.py below 2.8, and tests/test_discord_internals.py names what
changed if a release moves them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import discord
from discord import app_commands

from bot import registry
from bot.config import ConfigError
from bot.discord import commands
from bot.discord.components import (
    DRAFT_FORM,
    DRAFT_PREFIX,
    LEGACY_DRAFT_KINDS,
    DeskButton,
    DraftModal,
    form_values,
    view_of,
)
from bot.discord.pictures import reply_attachments
from bot.discord.port import PLATFORM, THREAD_ID, DiscordChat, chunks, relaying_from_discord
from bot.i18n import LANGUAGES
from bot.i18n.clock import discord_times
from bot.member_list import MemberList
from bot.ports import WORK_SLOTS, Reply, RolesSeen, Upload
from bot.registry import BY_NAME
from bot.registry.drafts import form_args
from bot.registry.spec import ArgKind, Args, Caller, Command, Place, Usage
from bot.registry.text import with_upload
from rules.members import Member
from rules.verdicts import VerdictKind

if TYPE_CHECKING:
    from bot.app import App

log = logging.getLogger(__name__)
DRAFT_COMMAND = BY_NAME["presuda"]  # the verdict draft: its form's submit runs it
TOKEN_GONE = frozenset({50027, 10015})  # Invalid Webhook Token, Unknown Webhook: the 15 minutes are over


def intents() -> discord.Intents:
    """Guilds, members (privileged: roles and leaving), presences (privileged: the lobby), guild messages and
    message content (privileged: the trial transcript), direct messages."""
    wanted = discord.Intents.default()
    wanted.members = True
    wanted.presences = True
    wanted.message_content = True
    return wanted


P = ParamSpec("P")
R = TypeVar("R")


def member_act(
    handler: Callable[Concatenate[SudijaBot, P], Awaitable[R]],
) -> Callable[Concatenate[SudijaBot, P], Coroutine[Any, Any, R]]:
    """A handler of a member's act (a slash command, a press, a form, a message): while it runs, its task is among
    the bot's `handling`, which a stop lets end (`SudijaBot.finish_handling`) before the client closes."""

    @functools.wraps(handler)
    async def handled(bot: SudijaBot, /, *args: P.args, **kwargs: P.kwargs) -> R:
        task = asyncio.current_task()
        if task is not None:
            bot.handling.add(task)
        try:
            return await handler(bot, *args, **kwargs)
        finally:
            if task is not None:
                bot.handling.discard(task)

    return handled


def is_online(status: discord.Status) -> bool:
    return status is not discord.Status.offline and status is not discord.Status.invisible


class SudijaBot(discord.Client):
    def __init__(self, app: App, *, guild_ready_timeout: float = 2.0) -> None:
        super().__init__(
            intents=intents(), allowed_mentions=discord.AllowedMentions.none(), guild_ready_timeout=guild_ready_timeout
        )
        self.app = app
        self.desk = app.desk
        self.config = app.config
        self.tree = app_commands.CommandTree(self)
        self.chat = DiscordChat(self)
        self.ready_once = asyncio.Event()  # set when the first ready has been handled
        self.problem: str | None = None  # why the bot cannot serve the club, found when ready
        self._written: dict[int, frozenset[int]] = {}  # each account's mapped roles as the bot last wrote them
        self.work = asyncio.Semaphore(WORK_SLOTS)  # the gateway and the answers keep their share of the loop
        self.handling: set[asyncio.Task[Any]] = set()  # the members' acts under way (`member_act`)
        self.member_list = MemberList(self.config.club_id, PLATFORM, self.request_members, self.sync_members)
        self._connection.parsers["RATE_LIMITED"] = self.parse_rate_limited
        commands.register(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(DeskButton)
        await self.tree.set_translator(commands.Localizer())
        guild_id = self.config.discord.guild_id
        try:
            await self.sync_commands(discord.Object(guild_id))
        except (discord.NotFound, discord.Forbidden) as failed:
            raise ConfigError(
                f"cannot register the commands on the server [discord] guild_id = {guild_id}; is the "
                f"bot a member of it, invited with the applications.commands scope? ({failed})"
            ) from None

    async def sync_commands(self, guild: discord.Object) -> bool:
        """Sync the guild's commands only when the declared tree differs from the one last synced (Discord caps the
        commands an application creates a day): the digest of the synced tree is kept in the database, and the
        names Discord holds are checked too (commands deleted by hand are synced again). True when it synced."""
        payload = await commands.declared(self.tree, guild)
        digest = commands.digest(payload)
        what = f"commands:{self.application_id}:{guild.id}"
        if await self.desk.synced(PLATFORM, what) == digest:
            held = {c.name for c in await self.tree.fetch_commands(guild=guild)}
            if held == {str(p["name"]) for p in payload}:
                log.info("the Discord commands are the ones synced: not synced again")
                return False
        await self.tree.sync(guild=guild)
        await self.desk.record_synced(PLATFORM, what, digest)
        return True

    def stop_events(self) -> None:
        """No new gateway events reach the desk: the connection's table of parsers (the one the gateway looks
        each dispatch up in) is emptied, so every event from now on is dropped as unknown — a slash command, a
        press, a message alike — while the connection keeps its heartbeat and the HTTP session stays open for the
        answers and deliveries under way. The first step of a stop (bot/cli/run.py); `close` ends the rest."""
        self._connection.parsers.clear()

    async def finish_handling(self, grace: float) -> None:
        """The second step of a stop, after `stop_events` (bot/cli/run.py): the members' acts dispatched before it
        are let end — the desk's transaction and the answer that follows it — for at most `grace` seconds, as the
        outboxes' rows on their way are; one still under way then is cut (what its transaction wrote stands, the
        answer that would follow is lost, as in a crash)."""
        under_way = {task for task in self.handling if not task.done() and task is not asyncio.current_task()}
        if not under_way:
            return
        log.info("Discord: stopping with %d member act(s) under way: let end for at most %s s", len(under_way), grace)
        _, late = await asyncio.wait(under_way, timeout=grace)
        if late:
            log.warning("Discord: %d member act(s) still under way after %s s: cut", len(late), grace)
            for task in late:
                task.cancel()
            await asyncio.wait(late)

    async def close(self) -> None:
        await self.member_list.stop()
        await super().close()

    def times(self, text: str) -> str:
        """The club's times in a text as Discord timestamps: each member's client shows them in his own time. The
        text may be in any catalogue language (a member reads his own, /jezik); their date formats differ."""
        now = self.desk.now()
        for language in LANGUAGES:
            text = discord_times(text, language, self.config.timezone, now)
        return text

    # Answering interactions ---------------------------------------------------------------------------------
    async def reply(self, interaction: discord.Interaction[Any], reply: Reply, *, monospace: bool = False) -> None:
        """The desk's answer, to the member alone; long texts in several messages, the buttons on the last.
        `monospace` (a paper, the hands) keeps columns aligned; a refusal is plain text."""
        monospace = monospace and reply.ok
        parts = chunks(self.times(reply.text), 1990 if monospace else 2000)
        for i, part in enumerate(parts):
            body = f"```\n{part}\n```" if monospace else part
            last = i == len(parts) - 1
            view = view_of(reply.buttons) if last else None
            extra: dict[str, Any] = {} if view is None else {"view": view}
            try:
                if last and (reply.pictures or reply.documents) and reply.ok:
                    files, embeds = reply_attachments(reply)
                    try:  # the pictures in embeds under the last part; if Discord refuses them, the text says it all
                        await interaction.followup.send(body, ephemeral=True, files=files, embeds=embeds, **extra)
                        continue
                    except discord.HTTPException as failed:
                        if failed.code in TOKEN_GONE:
                            raise
                        log.warning("Discord refused the pictures of interaction %s: %s", interaction.id, failed)
                await interaction.followup.send(body, ephemeral=True, **extra)
            except discord.HTTPException as stale:
                if stale.code not in TOKEN_GONE:
                    raise
                # the work outlasted the interaction's 15-minute token: the answer goes by direct message
                log.warning("interaction %s expired before its answer; sending it by DM", interaction.id)
                await self.chat.direct(interaction.user.id, reply.text, reply.buttons)
                return

    async def member_of(self, user: discord.abc.User) -> Member | None:
        return await self.desk.member_for(PLATFORM, str(user.id))

    @member_act
    async def answer(
        self,
        interaction: discord.Interaction[Any],
        run: Callable[[Member], Awaitable[Reply]],
        *,
        monospace: bool = False,
    ) -> None:
        """Defer first (the desk may be slow), then run the use case for the member the account proves to be;
        an unproven account (or a member who left) gets the desk's refusal. A failure is logged and the member
        told, so his "thinking…" answer never hangs."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            async with self.work:
                actor = await self.desk.actor(PLATFORM, str(interaction.user.id))
                async with self.desk.voice.reading(None if isinstance(actor, Reply) else actor):  # his /jezik
                    reply = actor if isinstance(actor, Reply) else await run(actor)
        except Exception:
            log.exception("Discord interaction %s by %s failed", interaction.id, interaction.user.id)
            reply = self.desk.voice.refuse("discord.failed")
        await self.reply(interaction, reply, monospace=monospace)

    async def on_button(self, interaction: discord.Interaction[Any], action: str, ref: int) -> None:
        if action.startswith(DRAFT_PREFIX):
            kind = action.removeprefix(DRAFT_PREFIX)
            await self.open_form(interaction, DRAFT_COMMAND, LEGACY_DRAFT_KINDS.get(kind, kind), ref)
            return
        await self.answer(interaction, lambda m: self.desk.press(m, action, ref, PLATFORM))

    async def caller(self, interaction: discord.Interaction[Any], trial: int | None = None) -> Caller:
        """Who runs a command, and where: a Discord command is answered to him alone and no one else sees that he
        used it (private), in the trial whose thread (or form, `trial`) it came from, if any."""
        actor = await self.desk.actor(PLATFORM, str(interaction.user.id))
        if trial is None and interaction.channel_id is not None:
            trial = self.chat.trial_of_thread(interaction.channel_id)
        return Caller(
            PLATFORM,
            str(interaction.user.id),
            None if isinstance(actor, Reply) else actor,
            Place.PRIVATE,
            refusal=actor if isinstance(actor, Reply) else None,
            display=interaction.user.display_name,
            trial=trial,
        )

    @member_act
    async def open_form(
        self, interaction: discord.Interaction[Any], command: Command, kind: str, trial: int | None
    ) -> None:
        """A modal must be the first answer (no deferring): the core says at once whether the form may be shown
        (`bot.registry.open_form`: who, where, and the trial it is for); the submit is run in full."""
        caller = await self.caller(interaction, trial)
        choice = next(a.name for a in command.args if a.kind is ArgKind.CHOICE)
        opened = await registry.open_form(self.desk, caller, command, Args({choice: kind}))
        if isinstance(opened, Reply):
            await interaction.response.send_message(opened.text, ephemeral=True)
            return
        async with self.desk.voice.reading(caller.member):  # the form in his language (/jezik)
            await interaction.response.send_modal(DraftModal(VerdictKind(kind), opened, self.desk.t))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A draft form's submit, read from the interaction itself: also a form opened before a restart (no
        modal object lives for it then) is answered."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: Any = interaction.data or {}
        match = DRAFT_FORM.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        kind = LEGACY_DRAFT_KINDS.get(match["kind"], match["kind"])
        await self.on_draft(interaction, kind, form_values(data.get("components")), int(match["trial"]))

    async def on_draft(
        self, interaction: discord.Interaction[Any], kind: str, values: dict[str, str], trial_id: int
    ) -> None:
        """A submitted draft form: ``/presuda`` with the form's fields as the draft's words, for the form's trial."""
        await self.run_command(interaction, DRAFT_COMMAND, lambda: form_args(kind, values), trial=trial_id)

    @member_act
    async def run_command(
        self,
        interaction: discord.Interaction[Any],
        command: Command,
        values: Callable[[], Args],
        files: Sequence[discord.Attachment] = (),
        trial: int | None = None,
    ) -> None:
        """A registry command: defer first (the desk may be slow), then run it through `bot.registry.run` for whoever
        the account proves to be, which decides who may use it where. An attachment is read after the deferral, and
        only within the club's size limit (a larger one is handed over empty, so the desk answers with the limit)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            async with self.work:
                caller = await self.caller(interaction, trial)
                async with self.desk.voice.reading(caller.member):
                    try:
                        args = with_upload(command, values(), await self.upload_of(files), self.desk.t)
                    except Usage as problem:  # an option read by the typed reader (a date): said as for a typed one
                        reply = self.desk.voice.refuse(
                            "command.usage", problem=str(problem), usage=self.desk.t(command.usage_key)
                        )
                    else:
                        reply = await registry.run(self.desk, caller, command, args)
        except Exception:
            log.exception("Discord interaction %s by %s failed", interaction.id, interaction.user.id)
            reply = self.desk.voice.refuse("discord.failed")
        await self.reply(interaction, reply, monospace=command.monospace)

    async def upload_of(self, files: Sequence[discord.Attachment]) -> Upload | None:
        """The first attachment as an `Upload` (Discord's one attachment option per command)."""
        if not files:
            return None
        attachment = files[0]
        limit = self.desk.config.appeals.attachment_max_kb * 1024
        data = await attachment.read() if attachment.size <= limit else b""
        return Upload(attachment.filename, attachment.content_type or "application/octet-stream", data)

    # Keeping the desk's view of members current -------------------------------------------------------
    async def show_acts(self, discord_member: discord.Member, member: Member, seen: RolesSeen) -> None:
        """The mapped roles of the member's account made to show his functions as the acts give them (the desk
        decides: a role changed by hand is reported to the councilors and put back, or left as configured).
        Discord refuses without Manage Roles and a role above the mapped ones: `sudija check` says so."""
        mapping = self.config.discord.roles
        held = {r.id for r in discord_member.roles}
        mapped = frozenset(held & set(mapping.values()))
        if seen is RolesSeen.CHANGED and self._written.get(discord_member.id) == mapped:
            seen = RolesSeen.ECHO  # the bot's own write coming back (perhaps after a later act): no hand change
        add, remove = await self.desk.platform_roles(
            member, {role: role_id in held for role, role_id in mapping.items()}, PLATFORM, seen
        )
        if not add and not remove:
            return
        given = {mapping[role] for role in add}
        dropped = {mapping[role] for role in remove}
        roles = [discord.Object(r.id) for r in discord_member.roles if not r.is_default() and r.id not in dropped]
        roles += [discord.Object(role_id) for role_id in sorted(given - held)]
        self._written[discord_member.id] = frozenset((mapped - dropped) | given)
        try:  # one request: one change for Discord to report back, never a half-written state
            await discord_member.edit(roles=roles, reason="Sudija: the club's acts")
        except discord.HTTPException as exc:
            log.error("cannot write the roles of %s as the acts give them: %s", member.nick, exc)

    async def member_roles(self, member: Member) -> None:
        """An act changed the member's functions: his account's roles show them."""
        discord_member = self._discord_member(member)
        if discord_member is not None:
            await self.show_acts(discord_member, member, RolesSeen.ACT)

    def _discord_member(self, member: Member) -> discord.Member | None:
        account = member.account(PLATFORM)
        guild = self.get_guild(self.config.discord.guild_id)
        return guild.get_member(int(account)) if guild is not None and account and account.isdigit() else None

    async def sync_member(self, discord_member: discord.Member) -> None:
        """Roles, membership and presence of a proven link only: a request moves nothing. Reported to the core,
        which holds it while the database is busy and does it again with the account as the server shows it
        then."""
        linked = await self.member_of(discord_member)  # a read: an account of no member is not held
        if linked is None:
            return
        account, read = discord_member.id, [linked]

        async def sync() -> None:  # the account as the server shows it when done (again), the member as stored
            current = self._in_guild(account)
            if current is None:
                return  # gone from the server meanwhile: his leave, reported after, is the newer word
            member = read.pop() if read else await self.member_of(current)
            if member is not None:
                await self._sync_member(current, member)

        await self.desk.reported.synced(PLATFORM, str(account), sync)

    def _in_guild(self, account: int) -> discord.Member | None:
        guild = self.get_guild(self.config.discord.guild_id)
        return guild.get_member(account) if guild is not None else None

    async def _sync_member(self, discord_member: discord.Member, member: Member) -> None:
        await self.desk.trials.member_joined(member, PLATFORM)
        await self.show_acts(discord_member, member, RolesSeen.SYNC)
        fresh = await self.desk.member(member.id)
        if fresh is not None:
            await self.desk.presence(fresh, is_online(discord_member.status), PLATFORM)

    async def member_linked(self, member: Member) -> None:
        """A link was proven: the account's Discord roles now speak for this member (and for no other)."""
        account = next((a for a in member.accounts if a.startswith(f"{PLATFORM}:")), None)
        guild = self.get_guild(self.config.discord.guild_id)
        discord_member = guild.get_member(int(account.split(":", 1)[1])) if guild and account else None
        if discord_member is not None:
            await self.sync_member(discord_member)

    async def member_unlinked(self, member: Member) -> None:
        """An unlinked account speaks for nobody: its mapped roles grant nothing (the acts are the truth), so the
        member's functions stay his; the account is no longer his to write roles to."""

    def _ours(self, guild: discord.Guild | None) -> bool:
        return guild is not None and guild.id == self.config.discord.guild_id

    async def on_ready(self) -> None:
        guild = self.get_guild(self.config.discord.guild_id)
        if guild is None:
            self.problem = f"the bot is not a member of the server [discord] guild_id = {self.config.discord.guild_id}"
            log.error(self.problem)
            self.ready_once.set()
            return
        for thread in guild.threads:
            match = THREAD_ID.search(thread.name)
            if thread.parent_id == self.config.discord.trials_channel_id and match:
                self.chat.threads.setdefault(int(match[1]), thread.id)
        await self.sync_members()
        await self.chat.permissions_changed()  # what was refused before a restart, where it is allowed now
        self.ready_once.set()
        log.info("Discord ready in %s as %s", guild.name, self.user)

    async def sync_members(self) -> None:
        """Every member of the server the bot knows, synced (`sync_member`): on ready, and when the rest of a member
        list Discord rate limited has come. Once the list is whole (`Guild.chunked`: as many members known as the
        server counts), every linked account it lacks has left: the core's roll call reports it (a leave a restart
        forgot, or one that came while the bot was away)."""
        guild = self.get_guild(self.config.discord.guild_id)
        if guild is None:
            return
        for discord_member in guild.members:
            if not discord_member.bot:
                await self.sync_member(discord_member)
        if guild.chunked:
            await self.desk.reported.roll_call(PLATFORM, self._is_in)

    async def _is_in(self, account: str) -> bool | None:
        return self._in_guild(int(account)) is not None if account.isdigit() else None

    def parse_rate_limited(self, data: dict[str, Any]) -> None:
        """Discord's RATE_LIMITED event. For the server's whole member list: `MemberList` asks again when Discord
        allows, and discord.py's own request, which no chunk will answer, ends now with what it has (so ready is
        not held back by it, and the next request is a new one)."""
        meta = data.get("meta") or {}
        if data.get("opcode") != 8 or str(meta.get("guild_id")) != str(self.config.discord.guild_id):
            log.warning("Discord rate limited the gateway request %s: %s", data.get("opcode"), data)
            return
        self.member_list.rate_limited(float(data.get("retry_after") or 0.0))
        self._connection.process_chunk_requests(int(meta["guild_id"]), meta.get("nonce"), [], True)

    async def request_members(self) -> None:
        """The server's whole member list asked for (op 8): returns once it came, or once it was rate limited."""
        guild = self.get_guild(self.config.discord.guild_id)
        if guild is not None:
            await guild.chunk()

    async def on_member_join(self, discord_member: discord.Member) -> None:
        if self._ours(discord_member.guild):
            await self.sync_member(discord_member)

    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        if self._ours(after.guild) and self.user is not None and after.id == self.user.id:
            if before.roles != after.roles:  # the bot's own roles: its permissions changed
                await self.chat.permissions_changed()
            return
        if self._ours(after.guild) and before.roles != after.roles:
            member = await self.member_of(after)
            if member is not None:
                await self.show_acts(after, member, RolesSeen.CHANGED)

    async def on_guild_channel_update(self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel) -> None:
        """The trials channel's overwrites changed: what Discord refused the bot there may be allowed now."""
        if self._ours(after.guild) and after.id == self.config.discord.trials_channel_id:
            await self.chat.permissions_changed()

    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        if self._ours(after.guild) and before.permissions != after.permissions:
            await self.chat.permissions_changed()

    async def on_presence_update(self, before: discord.Member, after: discord.Member) -> None:
        if not self._ours(after.guild) or is_online(before.status) == is_online(after.status):
            return
        member = await self.member_of(after)
        if member is not None:  # the core decides; it holds it while the database is busy
            await self.desk.reported.presence_on(member, is_online(after.status), PLATFORM)

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        if payload.guild_id == self.config.discord.guild_id:  # the core decides; it holds it while the database is busy
            await self.desk.reported.membership(PLATFORM, str(payload.user.id), False)

    @member_act
    async def on_message(self, message: discord.Message) -> None:
        """A member's message in a trial thread is the trial's transcript (it is in the thread already); in a
        direct message, a party's word in his trial where Discord refused its thread (relayed to the others)."""
        channel = message.channel
        if not message.author.bot and isinstance(channel, discord.DMChannel) and message.content:
            await self.relayed(message)
            return
        if message.author.bot or not isinstance(channel, discord.Thread):
            return
        if channel.parent_id != self.config.discord.trials_channel_id or not message.content:
            return
        member = await self.desk.actor(PLATFORM, str(message.author.id))
        if isinstance(member, Reply):
            return
        token = relaying_from_discord.set(member.id)
        try:
            await self.desk.trials.say(member, message.content, self.chat.trial_of_thread(channel.id))
        finally:
            relaying_from_discord.reset(token)

    async def relayed(self, message: discord.Message) -> None:
        member = await self.desk.actor(PLATFORM, str(message.author.id))
        if isinstance(member, Reply):
            return
        trial = await self.desk.open_trial_of(member)
        if trial is None or PLATFORM not in (await self.desk.lookups.trial_space(trial)).relayed:
            return  # a direct message outside a relayed trial is not for the bot
        await self.desk.trials.say(member, message.content, trial.id)


def attach_discord(app: App, *, guild_ready_timeout: float = 2.0) -> SudijaBot:
    """Build the client and attach its port to the desk's chats. Then start the desk, then `run_discord`."""
    bot = SudijaBot(app, guild_ready_timeout=guild_ready_timeout)
    app.attach(bot.chat)
    return bot


def check_config(app: App) -> str:
    """The token, once the settings Discord cannot run without are there; else `ConfigError` saying which."""
    settings = app.config.discord
    token = settings.token
    if token is None:
        raise ConfigError(f"set the Discord bot token in the environment variable {settings.token_env}")
    for name in ("guild_id", "referees_channel_id", "trials_channel_id"):
        if not getattr(settings, name):
            raise ConfigError(f"[discord] {name} is required (see docs/discord.md)")
    return token


async def run_discord(app: App, bot: SudijaBot | None = None) -> None:
    """Log in with the token named in `[discord] token_env` and run until the client is closed."""
    token = check_config(app)
    client = bot or attach_discord(app)
    async with client:
        await client.start(token)


async def start_discord(
    app: App,
    *,
    timeout: float = 60.0,  # noqa: ASYNC109 (the bound on the wait for ready)
    guild_ready_timeout: float = 2.0,
) -> tuple[SudijaBot, asyncio.Task[None]]:
    """Attach, connect and return once the bot is ready (its guild cached, members synced), with the task that
    runs it. Start the desk after this, so what fell due while the bot was down is edited on Discord at once."""
    check_config(app)
    bot = attach_discord(app, guild_ready_timeout=guild_ready_timeout)
    task = asyncio.create_task(run_discord(app, bot), name="sudija-discord")
    ready = asyncio.ensure_future(bot.ready_once.wait())
    done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        if task in done:
            task.result()  # raises why it stopped (bad token, intents not enabled, …)
        await bot.close()
        await asyncio.gather(task, return_exceptions=True)
        raise TimeoutError(f"Discord was not ready within {timeout} s")
    if bot.problem is not None:
        await bot.close()
        await asyncio.gather(task, return_exceptions=True)
        raise ConfigError(bot.problem)
    return bot, task
