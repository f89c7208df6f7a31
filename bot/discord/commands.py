"""The slash commands, generated from the command registry (`bot.registry.REGISTRY`): Serbian names with the
catalogue's other languages as localizations, guild-scoped, each argument an option of its declared type and
limits, every answer ephemeral and deferred before the desk's work.

A game option autocompletes the caller's recent games; whatever number comes back is checked by the desk like any
other. Text options that have a form (dates, months) are read by the same reader as typed commands
(`bot.registry.text.read_value`), so a mistake gets the same answer everywhere. A command with a form
(``/presuda``) opens Discord's modal for the chosen kind instead (`bot.discord.components`), when the core says
it may (`bot.registry.open_form`). Every command runs through `bot.registry.run`, which decides who may use it
where: on Discord a command is private (answered to the member alone, its use shown to no one).
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n.catalogues import own_text
from bot.messages import MESSAGES
from bot.registry import REGISTRY
from bot.registry.spec import Arg, ArgKind, Args, Command, Value
from bot.registry.text import read_value
from rules.gamelog import GameStatus

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot

#: The catalogue's languages as Discord's locales (Serbian is the default every other client sees).
LOCALES: dict[str, tuple[discord.Locale, ...]] = {
    "en": (discord.Locale.american_english, discord.Locale.british_english),
    "ru": (discord.Locale.russian,),
}
READ_AS_TEXT = frozenset({ArgKind.DATE, ArgKind.MONTH, ArgKind.NICK, ArgKind.WORD})


class Localizer(app_commands.Translator):
    """The catalogue's other languages for their Discord locales; everything else sees the Serbian defaults."""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        for language, locales in LOCALES.items():
            if locale in locales:
                translated = string.extras.get(language)
                return str(translated) if translated else None
        return None


def localized(key: str, limit: int = 100) -> locale_str:
    """A catalogue text as Discord's default (Serbian) with the languages Discord has a locale for as extras
    (each only where that language has its own text: an untranslated Russian name stays the Serbian default)."""
    extras = {lang: text[:limit] for lang in LOCALES if (text := own_text(lang, key))}
    return locale_str(MESSAGES[key][0][:limit], **extras)


def option_type(arg: Arg) -> Any:
    """The annotation discord.py turns into the option's type and limits."""
    if arg.kind in (ArgKind.GAME, ArgKind.HAND, ArgKind.NUMBER):
        low, high = arg.limits or (1, 1)
        annotation: Any = app_commands.Range[int, low, high]
    elif arg.kind is ArgKind.BOOL:
        annotation = bool
    elif arg.kind is ArgKind.CHOICE:
        annotation = app_commands.Choice[str]
    elif arg.kind is ArgKind.FILE:
        annotation = discord.Attachment
    else:
        annotation = app_commands.Range[str, 1 if arg.required else 0, arg.max_length or 100]
    return annotation if arg.required else annotation | None


def options_of(command: Command) -> tuple[Arg, ...]:
    """The arguments Discord asks for as options: a form collects the draft's words and reason itself."""
    if command.form:
        return tuple(a for a in command.args if a.kind not in (ArgKind.WORDS, ArgKind.REASON))
    return tuple(a for a in command.args if a.kind is not ArgKind.WORDS)


def values_of(command: Command, options: dict[str, Any], t: Any) -> Args:
    """Discord's option values as the command's arguments (text ones read like typed words)."""
    values: dict[str, Value] = {}
    for arg in options_of(command):
        given = options.get(arg.name)
        if isinstance(given, app_commands.Choice):
            given = given.value
        if isinstance(given, discord.Attachment):
            given = None  # read after the interaction is deferred (`attachments`)
        if isinstance(given, str):
            given = given.strip()
            if arg.kind in READ_AS_TEXT:
                given = read_value(arg, given, t) if given else None
        values[arg.name] = given
    return Args(values)


async def declared(tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake) -> list[dict[str, Any]]:
    """The guild's commands as `CommandTree.sync` would send them (translated by the tree's translator)."""
    translator = tree.translator
    payload: list[dict[str, Any]] = []
    for command in tree.get_commands(guild=guild):
        if translator is not None:
            payload.append(await command.get_translated_payload(tree, translator))
        else:
            payload.append(command.to_dict(tree))
    return payload


def digest(payload: list[dict[str, Any]]) -> str:
    """A digest of a command tree's payload: equal exactly when the same tree would be synced."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def register(bot: SudijaBot) -> None:
    """Add every command of the registry to the bot's tree, for its guild."""
    guild = discord.Object(bot.config.discord.guild_id)
    for command in REGISTRY:
        bot.tree.add_command(app_command(bot, command), guild=guild)


def app_command(bot: SudijaBot, command: Command) -> app_commands.Command[Any, ..., None]:
    desk = bot.desk
    options = options_of(command)

    async def callback(interaction: discord.Interaction[Any], **given: Any) -> None:
        if command.form:
            (kind,) = [v.value for v in given.values() if isinstance(v, app_commands.Choice)]
            await bot.open_form(interaction, command, kind, None)
            return
        files = [v for v in given.values() if isinstance(v, discord.Attachment)]
        await bot.run_command(interaction, command, lambda: values_of(command, given, desk.t), files)

    parameters = [
        inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)
    ]
    for arg in options:
        parameters.append(
            inspect.Parameter(
                arg.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=option_type(arg),
                default=inspect.Parameter.empty if arg.required else None,
            )
        )
    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    if options:
        app_commands.rename(**{a.name: localized(f"name.{a.name}", 32) for a in options})(callback)
        app_commands.describe(**{a.name: localized(a.description_key) for a in options})(callback)
    choices = {
        a.name: [app_commands.Choice(name=localized(f"choice.{a.name}.{c}"), value=c) for c in a.choices]
        for a in options
        if a.kind is ArgKind.CHOICE
    }
    if choices:
        app_commands.choices(**choices)(callback)
    games = {a.name: recent_games(bot) for a in options if a.autocomplete}
    if games:
        app_commands.autocomplete(**games)(callback)
    return app_commands.Command(
        name=localized(f"name.{command.name}", 32), description=localized(command.description_key), callback=callback
    )


def recent_games(bot: SudijaBot) -> Any:
    """Autocomplete for a game option: the caller's games in progress and those ended within the claim window."""
    desk = bot.desk

    async def complete(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        member = await desk.member_for("discord", str(interaction.user.id))
        if member is None:
            return []
        choices: list[app_commands.Choice[int]] = []
        for s in await desk.recent_games(member):
            if not str(s.number).startswith(current.strip()) or any(c.value == s.number for c in choices):
                continue
            when = (
                desk.t("hands.in_progress") if s.status is GameStatus.IN_PROGRESS or s.ended_at is None else s.ended_at
            )
            label = desk.t("discord.game_choice", game=s.number, players=", ".join(s.players), when=when)
            choices.append(app_commands.Choice(name=label[:100], value=s.number))
        return choices[:25]

    return complete
