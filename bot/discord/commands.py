"""The slash commands: Serbian names, English localizations, guild-scoped, every answer ephemeral and deferred
before the desk's work.

``/sudija [partija]``, ``/povuci``, ``/presude partija``, ``/papir partija``, ``/dezurstvo [ukljuceno]``,
``/nadimak nadimak`` and the referee's ``/ruke``, ``/sudjenja``, ``/vecnik``, ``/promeni partija``,
``/presuda vrsta`` (opens the draft modal), ``/zavrsi``, ``/napusti``; the players' corrections ``/bula``,
``/ponisti``, ``/arbitar``, ``/ispravka``, ``/prihvatam``, ``/odbijam``. The ``partija`` options autocomplete the
caller's recent games; whatever number comes back is checked by the desk like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.desk.corrections import CANCEL_CHOICES
from bot.discord.components import DRAFT_KINDS
from bot.messages import MESSAGES
from bot.ports import Reply
from rules.gamelog import GameStatus
from storage.members import Member

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot

ENGLISH = (discord.Locale.american_english, discord.Locale.british_english)
Hand = app_commands.Range[int, 1, 999]

# Serbian name -> English localization
NAMES = {
    "sudija": "referee", "povuci": "withdraw", "presude": "verdicts", "papir": "paper", "dezurstvo": "duty",
    "nadimak": "nickname", "ruke": "hands", "sudjenja": "trials", "vecnik": "councilor", "promeni": "change-game",
    "presuda": "verdict", "zavrsi": "finish", "napusti": "leave",
    "bula": "go-into-bule", "ponisti": "cancel", "arbitar": "arbitar", "ispravka": "correction",
    "prihvatam": "accept", "odbijam": "refuse",
    # options
    "partija": "game", "ukljuceno": "on", "vrsta": "kind", "ruka": "hand", "sta": "what", "razlog": "reason",
    "zahtev": "request", "sudjenje": "trial", "strana": "page",
    # governance (bot/discord/governance.py)
    "postavi": "appoint", "razresi": "dismiss", "ostavka": "resign", "uskrati": "deny-calls",
    "vrati": "restore-calls", "akti": "acts", "clan": "member", "zatvori-ligu": "close-league",
    "funkcija": "function", "dana": "days", "do": "until", "mesec": "month",
}


class Localizer(app_commands.Translator):
    """English names and descriptions for English clients; everything else sees the Serbian defaults."""

    async def translate(self, string: locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        if locale in ENGLISH:
            english = string.extras.get("en")
            return str(english) if english else None
        return None


def name(serbian: str) -> locale_str:
    return locale_str(serbian, en=NAMES[serbian])


def text(key: str) -> locale_str:
    serbian, english = MESSAGES[key]
    return locale_str(serbian[:100], en=english[:100])


def register(bot: SudijaBot) -> None:
    """Add every command to the bot's tree, for its guild."""
    tree = bot.tree
    guild = discord.Object(bot.config.discord.guild_id)
    desk = bot.desk

    async def recent_games(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        member = await desk.member_for("discord", str(interaction.user.id))
        if member is None:
            return []
        summaries = list(await desk.db.games.in_progress_for(member.nick))
        summaries += await desk.db.games.ended_since(member.nick, desk.now() - desk.claim_window)
        choices: list[app_commands.Choice[int]] = []
        for s in summaries:
            if not str(s.number).startswith(current.strip()) or any(c.value == s.number for c in choices):
                continue
            when = desk.t("hands.in_progress") if s.status is GameStatus.IN_PROGRESS or s.ended_at is None \
                else s.ended_at
            label = desk.t("discord.game_choice", game=s.number, players=", ".join(s.players), when=when)
            choices.append(app_commands.Choice(name=label[:100], value=s.number))
        return choices[:25]

    @tree.command(name=name("sudija"), description=text("discord.cmd.sudija"), guild=guild)
    @app_commands.rename(partija=name("partija"))
    @app_commands.describe(partija=text("discord.opt.partija"))
    @app_commands.autocomplete(partija=recent_games)
    async def sudija(interaction: discord.Interaction[Any], partija: int | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.call(m, partija))

    @tree.command(name=name("povuci"), description=text("discord.cmd.povuci"), guild=guild)
    async def povuci(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.withdraw(m, None))

    @tree.command(name=name("presude"), description=text("discord.cmd.presude"), guild=guild)
    @app_commands.rename(partija=name("partija"), sudjenje=name("sudjenje"), strana=name("strana"))
    @app_commands.describe(partija=text("discord.opt.partija"), sudjenje=text("discord.opt.sudjenje"),
                           strana=text("discord.opt.strana"))
    @app_commands.autocomplete(partija=recent_games)
    async def presude(interaction: discord.Interaction[Any], partija: int, sudjenje: int | None = None,
                      strana: app_commands.Range[int, 1, 10_000] = 1) -> None:
        await bot.answer_anyone(interaction, lambda m: desk.verdicts(m, partija, sudjenje, strana))

    @tree.command(name=name("papir"), description=text("discord.cmd.papir"), guild=guild)
    @app_commands.rename(partija=name("partija"))
    @app_commands.describe(partija=text("discord.opt.partija"))
    @app_commands.autocomplete(partija=recent_games)
    async def papir(interaction: discord.Interaction[Any], partija: int) -> None:
        await bot.answer_anyone(interaction, lambda m: bot.desk.paper(partija, m), monospace=True)

    @tree.command(name=name("dezurstvo"), description=text("discord.cmd.dezurstvo"), guild=guild)
    @app_commands.rename(ukljuceno=name("ukljuceno"))
    @app_commands.describe(ukljuceno=text("discord.opt.ukljuceno"))
    async def dezurstvo(interaction: discord.Interaction[Any], ukljuceno: bool | None = None) -> None:
        async def run(m: Member) -> Reply:
            return await desk.set_duty(m, (not m.on_duty) if ukljuceno is None else ukljuceno)

        await bot.answer(interaction, run)

    @tree.command(name=name("nadimak"), description=text("discord.cmd.nadimak"), guild=guild)
    @app_commands.rename(nadimak=name("nadimak"))
    @app_commands.describe(nadimak=text("discord.opt.nadimak"))
    async def nadimak(interaction: discord.Interaction[Any], nadimak: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await bot.reply(interaction, await bot.link(interaction.user, nadimak))

    @tree.command(name=name("ruke"), description=text("discord.cmd.ruke"), guild=guild)
    async def ruke(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.show_hands(m), monospace=True)

    @tree.command(name=name("sudjenja"), description=text("discord.cmd.sudjenja"), guild=guild)
    async def sudjenja(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.history(m))

    @tree.command(name=name("vecnik"), description=text("discord.cmd.vecnik"), guild=guild)
    async def vecnik(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.call_councilor(m))

    @tree.command(name=name("promeni"), description=text("discord.cmd.promeni"), guild=guild)
    @app_commands.rename(partija=name("partija"))
    @app_commands.describe(partija=text("discord.opt.partija"))
    @app_commands.autocomplete(partija=recent_games)
    async def promeni(interaction: discord.Interaction[Any], partija: int) -> None:
        await bot.answer(interaction, lambda m: desk.change_game(m, partija))

    kinds = [app_commands.Choice(name=text(f"discord.draft.{k}"), value=k) for k in DRAFT_KINDS]

    @tree.command(name=name("presuda"), description=text("discord.cmd.presuda"), guild=guild)
    @app_commands.rename(vrsta=name("vrsta"))
    @app_commands.describe(vrsta=text("discord.opt.vrsta"))
    @app_commands.choices(vrsta=kinds)
    async def presuda(interaction: discord.Interaction[Any], vrsta: app_commands.Choice[str]) -> None:
        await bot.open_draft(interaction, vrsta.value, None)

    @tree.command(name=name("zavrsi"), description=text("discord.cmd.zavrsi"), guild=guild)
    async def zavrsi(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.finish(m))

    @tree.command(name=name("napusti"), description=text("discord.cmd.napusti"), guild=guild)
    async def napusti(interaction: discord.Interaction[Any]) -> None:
        await bot.answer(interaction, lambda m: desk.leave(m))

    # The players' corrections under the paper (bot.desk.corrections) ---------------------------------------
    @tree.command(name=name("bula"), description=text("discord.cmd.bula"), guild=guild)
    @app_commands.rename(ruka=name("ruka"), partija=name("partija"))
    @app_commands.describe(ruka=text("discord.opt.ruka"), partija=text("discord.opt.partija"))
    @app_commands.autocomplete(partija=recent_games)
    async def bula(interaction: discord.Interaction[Any], ruka: Hand, partija: int | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.go_into_bula(m, ruka, partija))

    cancels = [app_commands.Choice(name=text(f"discord.cancel.{c}"), value=c) for c in CANCEL_CHOICES]

    @tree.command(name=name("ponisti"), description=text("discord.cmd.ponisti"), guild=guild)
    @app_commands.rename(ruka=name("ruka"), partija=name("partija"), sta=name("sta"))
    @app_commands.describe(ruka=text("discord.opt.ruka"), partija=text("discord.opt.partija"),
                           sta=text("discord.opt.sta"))
    @app_commands.autocomplete(partija=recent_games)
    @app_commands.choices(sta=cancels)
    async def ponisti(interaction: discord.Interaction[Any], ruka: Hand, partija: int | None = None,
                      sta: app_commands.Choice[str] | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.cancel(m, ruka, partija, sta.value if sta else None))

    @tree.command(name=name("arbitar"), description=text("discord.cmd.arbitar"), guild=guild)
    @app_commands.rename(ruka=name("ruka"), partija=name("partija"))
    @app_commands.describe(ruka=text("discord.opt.ruka"), partija=text("discord.opt.partija"))
    @app_commands.autocomplete(partija=recent_games)
    async def arbitar(interaction: discord.Interaction[Any], ruka: Hand, partija: int | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.offer_arbitar(m, ruka, partija))

    @tree.command(name=name("ispravka"), description=text("discord.cmd.ispravka"), guild=guild)
    @app_commands.rename(ruka=name("ruka"), partija=name("partija"), razlog=name("razlog"))
    @app_commands.describe(ruka=text("discord.opt.ruka"), partija=text("discord.opt.partija"),
                           razlog=text("discord.opt.razlog"))
    @app_commands.autocomplete(partija=recent_games)
    async def ispravka(interaction: discord.Interaction[Any], ruka: Hand, partija: int | None = None,
                       razlog: app_commands.Range[str, 0, 500] = "") -> None:
        await bot.answer(interaction, lambda m: desk.propose_ispravka(m, ruka, partija, razlog.strip()))

    for serbian, yes in (("prihvatam", True), ("odbijam", False)):
        register_answer(bot, serbian, yes)


def register_answer(bot: SudijaBot, serbian: str, yes: bool) -> None:
    """/prihvatam and /odbijam [zahtev]: answer the Arbitar or an ispravka."""
    desk = bot.desk

    async def answer(interaction: discord.Interaction[Any], zahtev: int | None = None) -> None:
        await bot.answer(interaction, lambda m: desk.answer(m, zahtev, yes))

    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=name(serbian), description=text(f"discord.cmd.{serbian}"), callback=answer)
    command = app_commands.rename(zahtev=name("zahtev"))(command)
    command = app_commands.describe(zahtev=text("discord.opt.zahtev"))(command)
    bot.tree.add_command(command, guild=discord.Object(bot.config.discord.guild_id))
