"""`sudija check` on Discord: the server, each configured channel (exists, is a text channel, the bot has every
permission it needs there — computed by discord.py's `permissions_for`, overwrites included), each configured
role, the privileged intents and the owner's account. Findings are `bot.setup.Finding` values; nothing here
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
_SHOWN = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "read_message_history": "Read Message History",
    "create_private_threads": "Create Private Threads",
    "send_messages_in_threads": "Send Messages in Threads",
    "manage_threads": "Manage Threads",
}
_INTENTS_FIX = (
    "Discord Developer Portal → your application → Bot → Privileged Gateway Intents: turn on Server "
    "Members Intent, Presence Intent and Message Content Intent"
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
    perms = channel.permissions_for(guild.me)
    missing = [_SHOWN[p] for p in needs if not getattr(perms, p)]
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
                    f"the server has no role with this id: at start every {role} would lose the role",
                    "copy the role's id (Server Settings → Roles → right-click the role → Copy Role ID)",
                )
            )
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
        return [Finding(PLATFORM, "privileged intents", "not granted to the bot", _INTENTS_FIX)]
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
