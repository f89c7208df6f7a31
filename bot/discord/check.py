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


def _missing(perms: discord.Permissions, needs: tuple[str, ...]) -> list[str]:
    """The needed permissions these lack, as Discord shows them (without View Channel, that alone: it takes the
    rest away with it)."""
    missing = [PERMISSION_NAMES[p] for p in needs if not getattr(perms, p)]
    return ["View Channel"] if "View Channel" in missing else missing


def _role_reads(
    guild: discord.Guild, setting: str, channel_id: int, role_key: str, role_id: int | None, what: str
) -> list[Finding]:
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
            f"the {role_key} role {role.name!r} cannot {' or '.join(m.lower() for m in missing)} here: {what}",
            f"#{channel.name} → Edit Channel → Permissions → add the role {role.name!r} and allow "
            f"{', '.join(missing)} (docs/discord.md, section 4)",
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
    names = ", ".join(m.display_name for m in blind[:5]) + (f" and {len(blind) - 5} more" if len(blind) > 5 else "")
    missing = everyone or _missing(channel.permissions_for(blind[0]), PARTY_NEED)
    who = f"{len(blind)} member(s) ({names})" if blind else "@everyone"
    return [
        Finding(
            PLATFORM,
            f"[discord] trials_channel_id = {channel.id} (#{channel.name})",
            f"{who} cannot {' or '.join(m.lower() for m in missing)} here, and a party who cannot view this "
            "channel cannot see his trial's private thread",
            f"#{channel.name} → Edit Channel → Permissions → @everyone (or the members' role): allow "
            f"{', '.join(missing)}; members still cannot open threads there, the bot's threads are private "
            "(docs/discord.md, section 4)",
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


def intents_fix(off: list[str]) -> str:
    return "Discord Developer Portal → your application → Bot → Privileged Gateway Intents: turn on " + " and ".join(
        off
    )


def _channel(guild: discord.Guild, setting: str, channel_id: int, needs: tuple[str, ...]) -> list[Finding]:
    where = f"[discord] {setting} = {channel_id}"
    channel = guild.get_channel(channel_id)
    if channel is None:
        return [
            Finding(
                PLATFORM,
                where,
                f"the server {guild.name!r} has no channel with this id that the bot can see",
                "copy the channel's id (Developer Mode → right-click the channel → Copy Channel "
                "ID), or let the bot's role View Channel there",
            )
        ]
    where += f" (#{channel.name})"
    if not isinstance(channel, discord.TextChannel):
        return [
            Finding(PLATFORM, where, f"is a {channel.type} channel, not a text channel", "name a text channel here")
        ]
    missing = _missing(channel.permissions_for(guild.me), needs)
    if not missing:
        return []
    role = guild.me.top_role.name if guild.me.top_role != guild.default_role else "the bot"
    return [
        Finding(
            PLATFORM,
            where,
            f"the bot lacks {', '.join(missing)} here",
            f"#{channel.name} → Edit Channel → Permissions → add the role {role!r} (or the bot itself) and "
            f"allow {', '.join(missing)}; a deny for @everyone also holds for the bot unless its own "
            f"overwrite allows it (docs/discord.md, section 4)",
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
                "the bot is not a member of this server (or the id is wrong)",
                "invite the bot with the URL of docs/discord.md, section 2, "
                "or copy the server's id (right-click the server → Copy Server ID)",
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
                found.append(Finding(PLATFORM, f"[discord] {setting}", "is not set", "put the channel's id there"))
            continue
        found += _channel(guild, setting, channel_id, needs)
    found += _role_reads(
        guild,
        "referees_channel_id",
        settings.referees_channel_id,
        "referee",
        settings.roles.get(Role.REFEREE),
        "every call would go where no referee can read it",
    )
    if settings.councilors_channel_id:
        found += _role_reads(
            guild,
            "councilors_channel_id",
            settings.councilors_channel_id,
            "councilor",
            settings.roles.get(Role.COUNCILOR),
            "every councilor call and appeal would go where no councilor can read it",
        )
    found += _parties_read(guild, settings.trials_channel_id)
    referees = guild.get_channel(settings.referees_channel_id)
    if isinstance(referees, discord.TextChannel) and referees.permissions_for(guild.default_role).view_channel:
        found.append(
            Finding(
                PLATFORM,
                f"[discord] referees_channel_id = {referees.id} (#{referees.name})",
                "every member can see it, and the calls there name the caller and the referees",
                "deny View Channel to @everyone there and allow it to the referee role and the bot",
                fatal=False,
            )
        )
    for role, role_id in sorted(settings.roles.items()):
        if guild.get_role(role_id) is None:
            found.append(
                Finding(
                    PLATFORM,
                    f"[discord.roles] {role} = {role_id}",
                    f"the server has no role with this id: no {role} would lose the role's function (the club's "
                    "acts keep it), but the bot cannot show it on Discord",
                    "copy the role's id (Server Settings → Roles → right-click the role → Copy Role ID)",
                )
            )
    if settings.roles:
        found.extend(_roles_writable(guild, settings.roles))
    if Role.REFEREE not in settings.roles:
        found.append(
            Finding(
                PLATFORM,
                "[discord.roles] referee",
                "is not set: nobody is a referee on Discord",
                "put the referee role's id there",
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
                    f"is not a member of {guild.name!r}",
                    "invite the owner to the server, or correct his user id",
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
                "the variable is not set",
                "put the bot token in that environment variable",
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
        return [Finding(PLATFORM, "the gateway", f"Discord was not ready within {timeout:.0f} s", "try again")]
    except discord.PrivilegedIntentsRequired:
        off = await intents_off(client)
        return [
            Finding(
                PLATFORM,
                "privileged intents",
                f"not granted to the bot: {', '.join(off)} {'is' if len(off) == 1 else 'are'} off",
                intents_fix(off),
            )
        ]
    except discord.LoginFailure:
        return [
            Finding(
                PLATFORM,
                f"[discord] token_env = {config.discord.token_env}",
                "Discord refuses the token",
                "copy the token again (Developer Portal → Bot → Reset Token)",
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
                "the bot lacks Manage Roles: it cannot write the referees' and councilors' roles from the acts",
                "Server Settings → Roles → the bot's role: turn on Manage Roles",
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
                    "is not below the bot's highest role: Discord lets the bot neither give nor take it",
                    "Server Settings → Roles: drag the bot's role above it",
                )
            )
    return found
