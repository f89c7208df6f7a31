"""The club's governance as slash commands (`bot.desk.governance`): ``/postavi``, ``/razresi``, ``/ostavka``,
``/uskrati``, ``/vrati``, ``/akti``, ``/clan``, ``/zatvori-ligu``. The desk decides who may do what.

On Discord a function mapped to a Discord role in ``[discord] roles`` is held by whoever has that role (the adapter
copies the roles into the desk); appointing, dismissing or resigning such a function is done with the Discord
role, so those commands answer so for it. A function not mapped to a role is the desk's alone and the commands
act on it as everywhere else.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.discord.commands import name, text
from bot.ports import Reply
from storage.members import ROLES, Member

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot


def register(bot: SudijaBot) -> None:
    tree = bot.tree
    guild = discord.Object(bot.config.discord.guild_id)
    desk = bot.desk
    functions = [app_commands.Choice(name=text(f"discord.function.{r}"), value=r) for r in ROLES]

    def by_discord(role: str) -> Reply | None:
        if role in bot.config.discord.roles:
            return desk.refuse("discord.function_by_role", function=desk.t(f"discord.function.{role}"))
        return None

    @tree.command(name=name("postavi"), description=text("discord.cmd.postavi"), guild=guild)
    @app_commands.rename(clan=name("clan"), funkcija=name("funkcija"), razlog=name("razlog"))
    @app_commands.describe(clan=text("discord.opt.clan"), funkcija=text("discord.opt.funkcija"),
                           razlog=text("discord.opt.razlog"))
    @app_commands.choices(funkcija=functions)
    async def postavi(interaction: discord.Interaction[Any], clan: str, funkcija: app_commands.Choice[str],
                      razlog: str = "") -> None:
        async def run(member: Member) -> Reply:
            return by_discord(funkcija.value) or await desk.appoint(member, clan, funkcija.value, razlog)

        await bot.answer(interaction, run)

    @tree.command(name=name("razresi"), description=text("discord.cmd.razresi"), guild=guild)
    @app_commands.rename(clan=name("clan"), funkcija=name("funkcija"), razlog=name("razlog"))
    @app_commands.describe(clan=text("discord.opt.clan"), funkcija=text("discord.opt.funkcija"),
                           razlog=text("discord.opt.razlog"))
    @app_commands.choices(funkcija=functions)
    async def razresi(interaction: discord.Interaction[Any], clan: str, funkcija: app_commands.Choice[str],
                      razlog: str) -> None:
        async def run(member: Member) -> Reply:
            return by_discord(funkcija.value) or await desk.dismiss(member, clan, funkcija.value, razlog)

        await bot.answer(interaction, run)

    @tree.command(name=name("ostavka"), description=text("discord.cmd.ostavka"), guild=guild)
    @app_commands.rename(funkcija=name("funkcija"), razlog=name("razlog"))
    @app_commands.describe(funkcija=text("discord.opt.funkcija"), razlog=text("discord.opt.razlog"))
    @app_commands.choices(funkcija=functions)
    async def ostavka(interaction: discord.Interaction[Any], funkcija: app_commands.Choice[str],
                      razlog: str = "") -> None:
        async def run(member: Member) -> Reply:
            return by_discord(funkcija.value) or await desk.resign(member, funkcija.value, razlog)

        await bot.answer(interaction, run)

    @tree.command(name=name("uskrati"), description=text("discord.cmd.uskrati"), guild=guild)
    @app_commands.rename(clan=name("clan"), razlog=name("razlog"), dana=name("dana"), do=name("do"))
    @app_commands.describe(clan=text("discord.opt.clan"), razlog=text("discord.opt.razlog"),
                           dana=text("discord.opt.dana"), do=text("discord.opt.do"))
    async def uskrati(interaction: discord.Interaction[Any], clan: str, razlog: str,
                      dana: app_commands.Range[int, 1, 3650] | None = None, do: str | None = None) -> None:
        async def run(member: Member) -> Reply:
            until: datetime | None = None
            if dana is not None and do is not None:
                return desk.refuse("discord.days_and_date")
            if dana is not None:
                until = desk.now() + timedelta(days=dana)
            elif do is not None:
                try:
                    until = datetime.strptime(do.strip(), "%Y-%m-%d").replace(tzinfo=UTC)
                except ValueError:
                    return desk.refuse("usage.date")
            return await desk.deny_call(member, clan, until, razlog)

        await bot.answer(interaction, run)

    @tree.command(name=name("vrati"), description=text("discord.cmd.vrati"), guild=guild)
    @app_commands.rename(clan=name("clan"), razlog=name("razlog"))
    @app_commands.describe(clan=text("discord.opt.clan"), razlog=text("discord.opt.razlog"))
    async def vrati(interaction: discord.Interaction[Any], clan: str, razlog: str = "") -> None:
        await bot.answer(interaction, lambda m: desk.restore_call(m, clan, razlog))

    @tree.command(name=name("akti"), description=text("discord.cmd.akti"), guild=guild)
    @app_commands.rename(clan=name("clan"))
    @app_commands.describe(clan=text("discord.opt.clan"))
    async def akti(interaction: discord.Interaction[Any], clan: str | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.acts(m, clan))

    @tree.command(name=name("clan"), description=text("discord.cmd.clan"), guild=guild)
    @app_commands.rename(clan=name("clan"))
    @app_commands.describe(clan=text("discord.opt.clan"))
    async def clan_card(interaction: discord.Interaction[Any], clan: str | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.member_status(m, clan))

    @tree.command(name=name("zatvori-ligu"), description=text("discord.cmd.zatvori_ligu"), guild=guild)
    @app_commands.rename(mesec=name("mesec"), razlog=name("razlog"))
    @app_commands.describe(mesec=text("discord.opt.mesec"), razlog=text("discord.opt.razlog"))
    async def zatvori_ligu(interaction: discord.Interaction[Any], mesec: str | None = None,
                           razlog: str = "") -> None:
        await bot.answer(interaction, lambda m: desk.close_league(m, mesec, razlog))
