"""Who may use a command where is decided by the core (`bot.registry.run`), for every front end: a command used in
a place its declaration does not name, or by a member holding none of the functions its audience needs, is refused
before its use case runs, with the same answer on the console, on Telegram and on Discord.

Every command declared today works privately, so the club's chat refuses the private-only ones (the trial
controls, `/zapisnik`, `/statistika`, …) where a front end has a club's chat (Telegram's groups, the console's
`!club`). The other way round is shown with `/katalog` declared for the club's chat only (`club_only_katalog`):
typed privately — and every Discord command is private — it is refused the same way everywhere."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_discord import World, answer_of, link, world
from test_telegram import Scene, fake, scene

from bot import registry
from bot.config import Config
from bot.console.language import Say, parse_line
from bot.console.runner import run_console
from bot.discord import commands as discord_commands
from bot.messages import Catalogue
from bot.ports import ManualClock, Reply, Upload
from bot.registry import BY_NAME, REGISTRY, Args, Caller, Command, Place, run
from bot.registry.spec import ArgKind, Audience, Value
from club import Club

__all__ = ["fake", "scene", "world"]  # the platforms' fixtures, used here too

SR = Catalogue("sr")
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PRIVATE_ONLY = SR.t("command.private_only")
CLUB_ONLY = SR.t("command.club_only")


@pytest.fixture
def club_only_katalog(monkeypatch: pytest.MonkeyPatch) -> Command:
    """`/katalog` declared for the club's chat only, in the registry every front end is generated from."""
    katalog = replace(BY_NAME["katalog"], places=frozenset({Place.CLUB}))
    declared = tuple(katalog if c.name == "katalog" else c for c in REGISTRY)
    monkeypatch.setattr(registry, "REGISTRY", declared)
    monkeypatch.setattr(registry, "BY_NAME", {c.name: c for c in declared})
    monkeypatch.setattr(discord_commands, "REGISTRY", declared)
    return katalog


# The core itself ------------------------------------------------------------------------------------------------


def spied(command: Command, ran: list[str]) -> Command:
    async def use_case(desk: object, caller: Caller, args: Args) -> Reply:
        ran.append(command.name)
        return Reply("ran")

    return replace(command, run=use_case)


def valid_args(command: Command) -> Args:
    """Arguments the declaration accepts (the use case may still refuse them; here it is a spy)."""
    values: dict[str, Value] = {}
    for arg in command.args:
        if arg.kind in (ArgKind.GAME, ArgKind.HAND, ArgKind.NUMBER):
            values[arg.name] = (arg.limits or (1, 1))[0]
        elif arg.kind is ArgKind.CHOICE:
            values[arg.name] = arg.choices[0]
        elif arg.kind is ArgKind.BOOL:
            values[arg.name] = True
        elif arg.kind is ArgKind.DATE:
            values[arg.name] = NOW.date()
        elif arg.kind is ArgKind.MONTH:
            values[arg.name] = "2026-11"
        elif arg.kind is ArgKind.WORDS:
            values[arg.name] = ()
        elif arg.kind is ArgKind.FILE:
            values[arg.name] = Upload("stol.png", "image/png", b"\x89PNG")
        else:
            values[arg.name] = "ana"
    return Args(values)


async def test_a_place_the_declaration_does_not_name_is_refused_before_the_use_case(club: Club) -> None:
    ana = await club.member("ana", "referee", "councilor", "moderator")
    for command in REGISTRY:
        ran: list[str] = []
        for place in Place:
            reply = await run(club.desk, Caller("test", "ana", ana, place), spied(command, ran), valid_args(command))
            if place in command.places:
                assert reply.text == "ran", command.name
            else:
                assert not reply.ok, command.name
                assert reply.text == (PRIVATE_ONLY if Place.PRIVATE in command.places else CLUB_ONLY), command.name
        assert ran == [command.name] * len(command.places)
    private_only = {c.name for c in REGISTRY if Place.CLUB not in c.places}
    assert {"ruke", "presuda", "zavrsi", "analiza", "zapisnik", "statistika", "zalbe", "resi"} <= private_only


@pytest.mark.parametrize("audience", [Audience.REFEREE, Audience.OFFICIAL])
async def test_the_referees_and_officials_commands_are_refused_by_the_core_to_whoever_holds_no_function(
    club: Club, audience: Audience
) -> None:
    """The use case never runs for a member without the function; with one of them it does (and decides the rest:
    that he judges this very trial, that he may govern this function)."""
    club.desk.config = replace(club.config, owner="vlasnik", owner_accounts=("test:vlasnik",))
    if audience is Audience.REFEREE:
        holders = [await club.member("sudija", "referee"), await club.member("vecnik", "councilor")]
        outsiders = [await club.member("pera"), await club.member("mod", "moderator")]
    else:
        holders = [await club.member(n, *r) for n, r in (("vecnik", ["councilor"]), ("mod", ["moderator"]))]
        holders.append(await club.member("vlasnik"))  # the owner: the configuration's, no stored role
        outsiders = [await club.member("pera"), await club.member("sudija", "referee")]
    commands = [c for c in REGISTRY if c.audience is audience]
    assert commands
    for command in commands:
        ran: list[str] = []
        for who in outsiders:
            caller = Caller("test", who.nick, who, Place.PRIVATE)
            reply = await run(club.desk, caller, spied(command, ran), valid_args(command))
            assert not reply.ok
            assert reply.text == SR.t(audience.refusal_key), (command.name, who.nick)
        assert ran == []
        for who in holders:
            caller = Caller("test", who.nick, who, Place.PRIVATE)
            assert (await run(club.desk, caller, spied(command, ran), valid_args(command))).text == "ran"
        assert ran == [command.name] * len(holders)


async def test_the_core_holds_every_front_end_to_the_declared_arguments(club: Club) -> None:
    """A front end that builds the arguments itself (Discord's options, a form, a web page) is held to the limits
    the typed line is read by: no argument the command lacks, choices, number ranges, lengths."""
    ana = await club.member("ana")
    caller = Caller("test", "ana", ana, Place.PRIVATE)
    usage = SR.t(BY_NAME["sudija"].usage_key)
    for args in (
        Args({"partija": 0}),
        Args({"partija": 2**40}),
        Args({"partija": True}),
        Args({"partija": "100"}),
        Args({"partija": 100, "tajno": 1}),
    ):
        reply = await run(club.desk, caller, BY_NAME["sudija"], args)
        assert not reply.ok, args
        assert usage in reply.text, args
    assert await club.db.calls.pending() == []
    jezik = await run(club.desk, caller, BY_NAME["jezik"], Args({"jezik": "xx"}))
    assert not jezik.ok
    assert SR.t("usage.arg.jezik") in jezik.text


# The console ------------------------------------------------------------------------------------------------------


def test_the_console_reads_a_line_typed_in_the_club_chat() -> None:
    assert parse_line("@marko !club /zavrsi") == Say("marko", "/zavrsi", Place.CLUB)
    assert parse_line("@marko /zavrsi") == Say("marko", "/zavrsi", Place.PRIVATE)


async def console(tmp_path: Path, script: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(), str(tmp_path / "demo.db"), True, io.StringIO(script), out, err, ManualClock(NOW)
    )
    assert status == 0, err.getvalue()
    return out.getvalue()


async def test_the_console_refuses_by_place_and_by_function_as_every_platform_does(tmp_path: Path) -> None:
    out = await console(
        tmp_path,
        "@marko !club /zavrsi\n@marko !club /zapisnik 1\n@marko !club dobar dan\n@marko /statistika\n@marko /ruke\n",
    )
    assert out.count(f"[dm marko] {PRIVATE_ONLY}") == 2
    assert f"[dm marko] {SR.t('command.for_official')}" in out
    assert f"[dm marko] {SR.t('trial.not_your_trial')}" in out
    assert SR.t("console.unheard", nick="marko") not in out  # the club's own talk is not the bot's


async def test_the_console_refuses_a_club_only_command_typed_privately(
    tmp_path: Path, club_only_katalog: Command
) -> None:
    out = await console(tmp_path, "@marko /katalog\n@marko !club /katalog\n")
    assert out.count(f"[dm marko] {CLUB_ONLY}") == 1
    assert out.count("[dm marko] ") == 2  # the one typed in the club's chat is answered, privately


# Telegram -----------------------------------------------------------------------------------------------------------


async def test_telegram_refuses_by_place_and_by_function_with_the_cores_answers(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        for command in ("zavrsi", "zapisnik"):
            mark = fake.mark()
            typed = fake.push_command(scene.club, scene.u("ana"), command, "1")
            assert await scene.said("ana", since=mark) == [PRIVATE_ONLY]
            await fake.wait_for("deleteMessage", since=mark)
            assert typed.deleted
        for command, key in (("statistika", "command.for_official"), ("ruke", "trial.not_your_trial")):
            mark = fake.mark()
            fake.push_command(scene.u("ana"), scene.u("ana"), command)
            assert await scene.said("ana", since=mark) == [SR.t(key)]
    assert fake.bot_messages(scene.club) == []


async def test_telegram_refuses_a_club_only_command_typed_privately(scene: Scene, club_only_katalog: Command) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        mark = fake.mark()
        fake.push_command(scene.u("ana"), scene.u("ana"), "katalog")
        assert await scene.said("ana", since=mark) == [CLUB_ONLY]
        mark = fake.mark()
        fake.push_command(scene.club, scene.u("ana"), "katalog")
        answered = await scene.said("ana", since=mark)
        assert answered
        assert CLUB_ONLY not in answered


# Discord ------------------------------------------------------------------------------------------------------------


async def test_discord_refuses_by_function_with_the_cores_answers(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana")
    async with world.running(app):
        refused = await answer_of(fake, await fake.slash(m["ana"].id, "statistika", {}))
        assert refused == SR.t("command.for_official")
        refused = await answer_of(fake, await fake.slash(m["ana"].id, "ruke", {}))
        assert refused == SR.t("trial.not_your_trial")


async def test_discord_refuses_a_club_only_command_as_every_platform_does(
    world: World, club_only_katalog: Command
) -> None:
    """A Discord command is private (answered to him alone, its use shown to no one), in a channel or a thread."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana")
    async with world.running(app):
        assert await answer_of(fake, await fake.slash(m["ana"].id, "katalog", {})) == CLUB_ONLY
        in_trials = await fake.slash(m["ana"].id, "katalog", {}, channel_id=world.trials.id)
        assert await answer_of(fake, in_trials) == CLUB_ONLY
