"""Proven identity as slash commands (`bot.desk.links`): ``/povezi [nadimak odluka] [razlog]`` lists the link
requests with their Approve / Deny buttons (pressed through `Desk.press`, re-checked there) or decides one, and
``/odvezi clan [platforma] [razlog]`` removes a link. ``/nadimak`` itself is in `bot.discord.commands`. The desk
decides who may do what."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.desk.links import PLATFORMS
from bot.discord.commands import name, text

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot


def register(bot: SudijaBot) -> None:
    tree = bot.tree
    guild = discord.Object(bot.config.discord.guild_id)
    desk = bot.desk
    decisions = [app_commands.Choice(name=text("button.link_approve"), value="odobri"),
                 app_commands.Choice(name=text("button.link_deny"), value="odbij")]
    platforms = [app_commands.Choice(name=p, value=p) for p in PLATFORMS if p != "console"]

    @tree.command(name=name("povezi"), description=text("discord.cmd.povezi"), guild=guild)
    @app_commands.rename(nadimak=name("nadimak"), odluka=name("odluka"), razlog=name("razlog"))
    @app_commands.describe(nadimak=text("discord.opt.nadimak_request"), odluka=text("discord.opt.odluka"),
                           razlog=text("discord.opt.razlog"))
    @app_commands.choices(odluka=decisions)
    async def povezi(interaction: discord.Interaction[Any], nadimak: app_commands.Range[str, 1, 100] | None = None,
                     odluka: app_commands.Choice[str] | None = None, razlog: str = "") -> None:
        if nadimak is None or odluka is None:
            await bot.answer(interaction, lambda m: desk.link_requests(m))
            return
        approve = odluka.value == "odobri"
        await bot.answer(interaction, lambda m: desk.decide_link_by_nick(m, nadimak.strip(), approve, razlog))

    @tree.command(name=name("odvezi"), description=text("discord.cmd.odvezi"), guild=guild)
    @app_commands.rename(clan=name("clan"), platforma=name("platforma"), razlog=name("razlog"))
    @app_commands.describe(clan=text("discord.opt.clan"), platforma=text("discord.opt.platforma"),
                           razlog=text("discord.opt.razlog"))
    @app_commands.choices(platforma=platforms)
    async def odvezi(interaction: discord.Interaction[Any], clan: app_commands.Range[str, 1, 100],
                     platforma: app_commands.Choice[str] | None = None, razlog: str = "") -> None:
        chosen = platforma.value if platforma else None
        await bot.answer(interaction, lambda m: desk.unlink(m, clan.strip(), chosen, razlog))
