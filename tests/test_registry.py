"""The command registry is the one command surface: every command it declares exists on every platform that should
have it (the typed language, Telegram's menus, Discord's tree) with the same arguments and limits, and has its
texts in every language. A command added without them fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from test_discord import make_world
from test_telegram import Scene, fake, scene

from bot.commands import Commands
from bot.i18n import TELEGRAM_LANGUAGES
from bot.i18n.catalogues import own_text
from bot.messages import LANGUAGES, MESSAGES
from bot.registry import REGISTRY
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Command, Place, usage_lines
from bot.telegram.handlers import GROUP_COMMANDS, PRIVATE_COMMANDS
from club import Club

__all__ = ["fake", "scene"]  # the Telegram fixtures, used here too

DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")
TELEGRAM_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
DISCORD_TYPES = {ArgKind.GAME: 4, ArgKind.HAND: 4, ArgKind.NUMBER: 4, ArgKind.BOOL: 5, ArgKind.FILE: 11}


def problems_of(commands: tuple[Command, ...]) -> list[str]:
    """What a set of declarations lacks: texts in some language, or names a platform would refuse."""
    found: list[str] = []

    def need(key: str, limit: int | None = None, name: bool = False) -> None:
        texts = MESSAGES.get(key)
        if texts is None or len(texts) != len(LANGUAGES) or not all(texts):
            found.append(f"{key}: missing in some language")
            return
        for language, text in zip(LANGUAGES, texts, strict=True):
            if limit is not None and len(text) > limit:
                found.append(f"{key} [{language}]: longer than {limit}")
            if name and (not DISCORD_NAME.fullmatch(text) or text != text.lower()):
                found.append(f"{key} [{language}]: {text!r} is not a Discord name")

    names: set[str] = set()
    for command in commands:
        if command.name in names:
            found.append(f"{command.name}: declared twice")
        names.add(command.name)
        if not TELEGRAM_NAME.fullmatch(command.name):
            found.append(f"{command.name}: not a Telegram command name")
        need(f"name.{command.name}", name=True)
        need(command.description_key, limit=100)
        need(command.usage_key)
        if command.name not in MESSAGES.get(command.usage_key, ("",))[0]:
            found.append(f"{command.usage_key}: does not show /{command.name}")
        for arg in command.args:
            need(f"name.{arg.name}", name=True)
            need(arg.description_key, limit=100)
            for choice in arg.choices:
                need(f"choice.{arg.name}.{choice}", limit=100)
            if arg.kind is ArgKind.NUMBER or arg.kind is ArgKind.CHOICE or arg.keyword:
                need(f"usage.arg.{arg.name}")
    return found


def test_every_command_has_its_texts_in_every_language_and_valid_names() -> None:
    assert problems_of(REGISTRY) == []


def test_a_command_without_its_translations_is_caught() -> None:
    async def run(desk: Any, caller: Caller, args: Args) -> Any:
        raise AssertionError

    new = Command("novakomanda", run, (Arg("nepoznato", ArgKind.NUMBER),))
    found = problems_of((*REGISTRY, new))
    assert "name.novakomanda: missing in some language" in found
    assert "cmd.novakomanda: missing in some language" in found
    assert "arg.nepoznato: missing in some language" in found
    assert problems_of((REGISTRY[0], REGISTRY[0])) == [f"{REGISTRY[0].name}: declared twice"]


def test_the_catalogue_has_no_key_written_twice() -> None:
    """A dict literal keeps the last of two equal keys silently: one text would never be shown."""
    source = (Path(__file__).resolve().parent.parent / "bot" / "messages.py").read_text("utf-8")
    keys = [
        node.value
        for d in ast.walk(ast.parse(source))
        if isinstance(d, ast.Dict)
        for node in d.keys
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert sorted(k for k in set(keys) if keys.count(k) > 1) == []


async def test_the_typed_language_knows_every_command_and_alias(club: Club) -> None:
    commands = Commands(club.desk)
    for command in REGISTRY:
        for name in (command.name, *command.aliases):
            assert commands.find(f"/{name}")[1] is command, name
    help_text = commands.help_text()
    assert all(line in help_text for c in REGISTRY for line in usage_lines(club.desk.t(c.usage_key)))


async def test_an_unlinked_account_may_use_only_what_is_for_anyone(club: Club) -> None:
    commands = Commands(club.desk)
    stranger = Caller("test", "999", None, Place.PRIVATE)
    for command in REGISTRY:
        reply = await commands.handle_as(stranger, f"/{command.name}")
        assert reply is not None
        if command.audience is not Audience.ANYONE:
            assert reply.text == club.desk.t("link.needed"), command.name


async def test_telegram_menus_are_the_registry(scene: Scene) -> None:
    async with scene.running():
        pass
    assert list(PRIVATE_COMMANDS) == [c.name for c in REGISTRY if Place.PRIVATE in c.places]
    assert list(GROUP_COMMANDS) == [c.name for c in REGISTRY if Place.CLUB in c.places]
    for language in (*TELEGRAM_LANGUAGES, ""):
        private = scene.fake.commands_for(language_code=language)
        assert [c["command"] for c in private] == list(PRIVATE_COMMANDS)
        index = LANGUAGES.index(TELEGRAM_LANGUAGES.get(language, "sr"))
        assert [c["description"] for c in private] == [MESSAGES[f"cmd.{c}"][index] for c in PRIVATE_COMMANDS]
        group = scene.fake.commands_for(language_code=language, scope={"type": "all_group_chats"})
        assert [c["command"] for c in group] == list(GROUP_COMMANDS)


def _expected_option(arg: Arg) -> dict[str, Any]:
    option: dict[str, Any] = {"name": arg.name, "required": arg.required, "type": DISCORD_TYPES.get(arg.kind, 3)}
    limits = arg.limits
    if limits is not None:
        option["min_value"], option["max_value"] = limits
    if arg.max_length is not None and arg.kind is not ArgKind.CHOICE:
        option["max_length"] = arg.max_length
    if arg.choices:
        option["choices"] = list(arg.choices)
    option["autocomplete"] = arg.autocomplete
    option["en"] = MESSAGES[f"name.{arg.name}"][1]
    return option


def _seen_option(option: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, Any] = {
        "name": option["name"],
        "required": bool(option.get("required", False)),
        "type": option["type"],
    }
    for key in ("min_value", "max_value", "max_length"):
        if key in option:
            seen[key] = option[key]
    if option.get("choices"):
        seen["choices"] = [c["value"] for c in option["choices"]]
    seen["autocomplete"] = bool(option.get("autocomplete", False))
    seen["en"] = option.get("name_localizations", {}).get("en-US")
    return seen


@pytest.mark.parametrize("command", REGISTRY, ids=[c.name for c in REGISTRY])
def test_discord_options_follow_the_declaration(command: Command) -> None:
    """The declaration's arguments, as Discord is asked to show them (checked against the synced tree below)."""
    from bot.discord.commands import options_of  # noqa: PLC0415 (imported where the test needs it)

    options = options_of(command)
    assert all(a.kind is not ArgKind.WORDS for a in options)
    if command.form:
        assert [a.kind for a in options] == [ArgKind.CHOICE]


async def test_the_discord_tree_is_the_registry(tmp_path: Path) -> None:
    from bot.discord.commands import options_of  # noqa: PLC0415 (imported where the test needs it)

    async with make_world(tmp_path) as world:
        app = await world.app()
        async with world.running(app):
            synced = world.fake.guild_commands
        assert sorted(synced) == sorted(c.name for c in REGISTRY)
        for command in REGISTRY:
            data = synced[command.name]
            assert data["name_localizations"]["en-US"] == MESSAGES[f"name.{command.name}"][1]
            assert data["description"] == MESSAGES[command.description_key][0]
            russian = own_text("ru", command.description_key)  # Russian clients: the Russian text where written
            assert data.get("description_localizations", {}).get("ru") == russian, command.name
            assert "ru" not in data["name_localizations"] or own_text("ru", f"name.{command.name}")
            expected = sorted((_expected_option(a) for a in options_of(command)), key=lambda o: o["name"])
            seen = sorted((_seen_option(o) for o in data.get("options", [])), key=lambda o: o["name"])
            assert seen == expected, command.name
