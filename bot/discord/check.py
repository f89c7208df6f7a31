"""`sudija check` on Discord: the server, each configured channel (exists, is a text channel, the bot has every
permission it needs there — computed by discord.py's `permissions_for`, overwrites included), each configured
role (and that the referee and councilor roles can read their channels, and every member the trials channel —
a party who cannot view it cannot see his trial's private thread), the privileged intents (naming each that is
off) and the owner's account. Findings are `bot.setup.Finding` values; nothing here
changes anything on the server.

The trials channel needs the bot's thread permissions: an ``@everyone`` deny of Create Private Threads (which
keeps members from opening threads) also denies the bot unless the bot's role has its own allow there.
"""

from __future__ import annotations

import asyncio
import contextlib

import discord

from bot.config import Config
from bot.setup import Finding
from rules.members import Role
from rules.phrases import Phrase

PLATFORM = "discord"

#: what the bot does in each place, as discord.py's `Permissions` attribute names.
CALLS_NEED = ("view_channel", "send_messages", "read_message_history")
TRIALS_NEED = (
    "view_channel",
    "create_private_threads",
    "send_messages_in_threads",
    "manage_threads",
    "read_message_history",
)
PERMISSION_NAMES = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "read_message_history": "Read Message History",
    "create_private_threads": "Create Private Threads",
    "send_messages_in_threads": "Send Messages in Threads",
    "manage_threads": "Manage Threads",
}


def _listed(names: list[str]) -> str:
    """Discord's names of permissions or intents as a finding shows them: as Discord writes them, in backticks."""
    return ", ".join(f"`{name}`" for name in names)


def _missing(perms: discord.Permissions, needs: tuple[str, ...]) -> list[str]:
    """The needed permissions these lack, as Discord shows them (without View Channel, that alone: it takes the
    rest away with it)."""
    missing = [PERMISSION_NAMES[p] for p in needs if not getattr(perms, p)]
    return ["View Channel"] if "View Channel" in missing else missing


def _role_reads(guild: discord.Guild, setting: str, channel_id: int, role_id: int | None, blind: str) -> list[Finding]:
    """The role the club's officials of this kind hold must read the channel their calls go to."""
    channel = guild.get_channel(channel_id)
    role = guild.get_role(role_id) if role_id else None
    if not isinstance(channel, discord.TextChannel) or role is None:
        return []
    missing = _missing(channel.permissions_for(role), READ_NEED)
    if not missing:
        return []
    return [
        Finding(
            PLATFORM,
            f"[discord] {setting} = {channel.id} (#{channel.name})",
            Phrase.of(blind, role=repr(role.name), missing=_listed(missing)),
            Phrase.of("check.discord.role_fix", channel=channel.name, role=repr(role.name), missing=_listed(missing)),
        )
    ]


def _parties_read(guild: discord.Guild, channel_id: int) -> list[Finding]:
    """Every member may be a party of a trial: each must view the trials channel to see its private threads."""
    channel = guild.get_channel(channel_id)
    if not isinstance(channel, discord.TextChannel):
        return []
    blind = [m for m in guild.members if not m.bot and _missing(channel.permissions_for(m), PARTY_NEED)]
    everyone = _missing(channel.permissions_for(guild.default_role), PARTY_NEED)
    if not blind and not (everyone and not guild.members):
        return []
    first = ", ".join(m.display_name for m in blind[:5])
    names = Phrase.of("check.discord.more", names=first, count=len(blind) - 5) if len(blind) > 5 else first
    missing = _listed(everyone or _missing(channel.permissions_for(blind[0]), PARTY_NEED))
    problem = (
        Phrase.of("check.discord.parties_blind", count=len(blind), names=names, missing=missing)
        if blind
        else Phrase.of("check.discord.everyone_blind", missing=missing)
    )
    return [
        Finding(
            PLATFORM,
            f"[discord] trials_channel_id = {channel.id} (#{channel.name})",
            problem,
            Phrase.of("check.discord.parties_fix", channel=channel.name, missing=missing),
        )
    ]


#: What a role needs in a channel to read what the bot posts there (and, in the trials channel, to write in a
#: private thread of it: a party who cannot view the parent channel cannot see the thread at all).
READ_NEED = ("view_channel", "read_message_history")
PARTY_NEED = ("view_channel", "read_message_history", "send_messages_in_threads")
#: The privileged intents the bot asks for, as the Developer Portal names them, with the application flags
#: (discord.py's `ApplicationFlags`) that say each is on: the full flag for a verified bot, the "limited" one for a
#: bot in fewer than 100 servers.
PRIVILEGED = (
    ("Server Members Intent", "gateway_guild_members", "gateway_guild_members_limited"),
    ("Presence Intent", "gateway_presence", "gateway_presence_limited"),
    ("Message Content Intent", "gateway_message_content", "gateway_message_content_limited"),
)


def intents_fix(off: list[str]) -> Phrase:
    return Phrase.of("check.discord.intents_fix", intents=_listed(off))


def _channel(guild: discord.Guild, setting: str, channel_id: int, needs: tuple[str, ...]) -> list[Finding]:
    where = f"[discord] {setting} = {channel_id}"
    channel = guild.get_channel(channel_id)
    if channel is None:
        return [
            Finding(
                PLATFORM,
                where,
                Phrase.of("check.discord.no_channel", server=repr(guild.name)),
                Phrase.of("check.discord.copy_channel"),
            )
        ]
    where += f" (#{channel.name})"
    if not isinstance(channel, discord.TextChannel):
        problem = Phrase.of("check.discord.not_text", kind=str(channel.type))
        return [Finding(PLATFORM, where, problem, Phrase.of("check.discord.name_text"))]
    missing = _missing(channel.permissions_for(guild.me), needs)
    if not missing:
        return []
    top = guild.me.top_role
    role = repr(top.name) if top != guild.default_role else Phrase.of("check.discord.the_bot")
    return [
        Finding(
            PLATFORM,
            where,
            Phrase.of("check.discord.bot_lacks", missing=_listed(missing)),
            Phrase.of("check.discord.bot_lacks_fix", channel=channel.name, role=role, missing=_listed(missing)),
        )
    ]


def discord_findings(client: discord.Client, config: Config) -> list[Finding]:
    """The findings for a connected client whose guild is cached (after ready)."""
    settings = config.discord
    guild = client.get_guild(settings.guild_id)
    if guild is None:
        return [
            Finding(
                PLATFORM,
                f"[discord] guild_id = {settings.guild_id}",
                Phrase.of("check.discord.no_guild"),
                Phrase.of("check.discord.invite"),
            )
        ]
    found: list[Finding] = []
    for setting, needs, required in (
        ("referees_channel_id", CALLS_NEED, True),
        ("councilors_channel_id", CALLS_NEED, False),
        ("trials_channel_id", TRIALS_NEED, True),
    ):
        channel_id = getattr(settings, setting)
        if not channel_id:
            if required:
                put = Phrase.of("check.put_channel")
                found.append(Finding(PLATFORM, f"[discord] {setting}", Phrase.of("check.not_set"), put))
            continue
        found += _channel(guild, setting, channel_id, needs)
    found += _role_reads(
        guild,
        "referees_channel_id",
        settings.referees_channel_id,
        settings.roles.get(Role.REFEREE),
        "check.discord.referees_blind",
    )
    if settings.councilors_channel_id:
        found += _role_reads(
            guild,
            "councilors_channel_id",
            settings.councilors_channel_id,
            settings.roles.get(Role.COUNCILOR),
            "check.discord.councilors_blind",
        )
    found += _parties_read(guild, settings.trials_channel_id)
    referees = guild.get_channel(settings.referees_channel_id)
    if isinstance(referees, discord.TextChannel) and referees.permissions_for(guild.default_role).view_channel:
        found.append(
            Finding(
                PLATFORM,
                f"[discord] referees_channel_id = {referees.id} (#{referees.name})",
                Phrase.of("check.discord.referees_public"),
                Phrase.of("check.discord.referees_public_fix"),
                fatal=False,
            )
        )
    for role, role_id in sorted(settings.roles.items()):
        if guild.get_role(role_id) is None:
            found.append(
                Finding(
                    PLATFORM,
                    f"[discord.roles] {role} = {role_id}",
                    Phrase.of("check.discord.no_role"),
                    Phrase.of("check.discord.copy_role"),
                )
            )
    if settings.roles:
        found.extend(_roles_writable(guild, settings.roles))
    if Role.REFEREE not in settings.roles:
        found.append(
            Finding(
                PLATFORM,
                "[discord.roles] referee",
                Phrase.of("check.discord.no_referee_role"),
                Phrase.of("check.discord.put_referee_role"),
                fatal=False,
            )
        )
    for account in config.owner_accounts:
        name, _, user_id = account.partition(":")
        if name == PLATFORM and user_id.isdigit() and guild.get_member(int(user_id)) is None:
            found.append(
                Finding(
                    PLATFORM,
                    f"[club] owner_accounts: {account}",
                    Phrase.of("check.discord.owner_absent", server=repr(guild.name)),
                    Phrase.of("check.discord.invite_owner"),
                    fatal=False,
                )
            )
    return found


async def intents_off(client: discord.Client) -> list[str]:
    """The privileged intents the Developer Portal has off for this application (all, when it cannot say)."""
    try:
        flags = (await client.application_info()).flags
    except discord.HTTPException:
        return [name for name, _, _ in PRIVILEGED]
    off = [name for name, full, limited in PRIVILEGED if not (getattr(flags, full) or getattr(flags, limited))]
    return off or [name for name, _, _ in PRIVILEGED]


async def check_discord(config: Config, *, timeout: float = 60.0, guild_ready_timeout: float = 2.0) -> list[Finding]:  # noqa: ASYNC109 (the bound on the wait for ready)
    """Log in with a plain client (the bot's intents, no desk), look, log out."""
    from bot.discord.client import intents  # noqa: PLC0415 (loaded when the check runs)

    token = config.discord.token
    if token is None:
        return [
            Finding(
                PLATFORM,
                f"[discord] token_env = {config.discord.token_env}",
                Phrase.of("check.token_unset"),
                Phrase.of("check.discord.token_fix"),
            )
        ]
    client = discord.Client(intents=intents(), guild_ready_timeout=guild_ready_timeout)
    ready = asyncio.Event()

    @client.event
    async def on_ready() -> None:
        ready.set()

    task = asyncio.create_task(client.start(token), name="sudija-check-discord")
    waiting = asyncio.ensure_future(ready.wait())
    try:
        done, _ = await asyncio.wait({task, waiting}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiting in done:
            return discord_findings(client, config)
        if task in done:
            task.result()
        late = Phrase.of("check.discord.not_ready", seconds=round(timeout))
        return [Finding(PLATFORM, Phrase.of("check.where.gateway"), late, Phrase.of("check.try_again"))]
    except discord.PrivilegedIntentsRequired:
        off = await intents_off(client)
        return [
            Finding(
                PLATFORM,
                Phrase.of("check.where.intents"),
                Phrase.of(
                    "check.discord.intent_off" if len(off) == 1 else "check.discord.intents_off", intents=_listed(off)
                ),
                intents_fix(off),
            )
        ]
    except discord.LoginFailure:
        return [
            Finding(
                PLATFORM,
                f"[discord] token_env = {config.discord.token_env}",
                Phrase.of("check.discord.token_refused"),
                Phrase.of("check.discord.token_again"),
            )
        ]
    finally:
        waiting.cancel()
        await client.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await task


def _roles_writable(guild: discord.Guild, roles: dict[Role, int]) -> list[Finding]:
    """The bot writes the mapped roles from the club's acts: it needs Manage Roles and its highest role above
    every mapped one (Discord's role hierarchy)."""
    me = guild.me
    found = []
    if not me.guild_permissions.manage_roles:
        found.append(
            Finding(
                PLATFORM,
                "[discord.roles]",
                Phrase.of("check.discord.no_manage_roles"),
                Phrase.of("check.discord.manage_roles_fix"),
            )
        )
    top = me.top_role
    for role, role_id in sorted(roles.items()):
        mapped = guild.get_role(role_id)
        if mapped is not None and mapped >= top:
            found.append(
                Finding(
                    PLATFORM,
                    f"[discord.roles] {role} = {role_id} (@{mapped.name})",
                    Phrase.of("check.discord.role_above"),
                    Phrase.of("check.discord.role_above_fix"),
                )
            )
    return found
