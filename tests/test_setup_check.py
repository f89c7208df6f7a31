"""`sudija check` (and the same check at `sudija run`'s start) against fake servers set up wrongly in each of the
ways a club gets wrong: a mistyped or wrong-kind channel or group, a missing role, the trials channel's thread
permission denied to the bot by an @everyone overwrite, privileged intents not granted, the bot not an
administrator of the club's Telegram group or without the right to delete, the owner's account absent. Each is
reported with where and what to change; the fatal ones stop the start. The findings are read in English
(`english`); tests/test_cli_language.py reads them in the other languages."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from test_discord import World, make_world

from bot.cli.check import check_all
from bot.cli.run import serve
from bot.config import Config, TelegramConfig
from bot.discord.check import check_discord
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue
from bot.setup import Finding, Report, SetupError
from bot.setup.findings import shown
from fakes.discord_server import FakeDiscord, Perm, pointed_at
from fakes.telegram_server import FakeTelegram

TOKEN = "123456789:TEST-fake-bot-token"


EN = Catalogue("en")


@dataclass(frozen=True)
class English:
    """A finding as an English reader reads it."""

    where: str
    problem: str
    fix: str
    fatal: bool


def english(finding: Finding) -> English:
    return English(
        shown(finding.where, EN), phrase_text(finding.problem, EN.t), phrase_text(finding.fix, EN.t), finding.fatal
    )


def by_where(findings: list[Finding]) -> dict[str, English]:
    return {f.where.split(" (")[0]: f for f in map(english, findings)}


# Discord ---------------------------------------------------------------------------------------------------


@pytest.fixture
async def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", made.fake.token)
        yield made


async def test_a_discord_server_set_up_right_has_nothing_to_report(world: World) -> None:
    # the bot writes the function roles from the acts: Manage Roles, and its role above them
    world.fake.bot_role.permissions |= Perm.MANAGE_ROLES
    world.fake.bot_role.position = max(r.position for r in world.fake.roles.values()) + 1
    assert await check_discord(world.config(), guild_ready_timeout=0.05) == []


async def test_a_discord_server_set_up_wrongly_is_reported_setting_by_setting(world: World) -> None:
    fake = world.fake
    category = fake.add_category("Klub")
    # the advice docs/discord.md used to give: deny thread creation to @everyone — which denies the bot too
    world.trials.permission_overwrites.append(
        {
            "id": str(fake.guild_id),
            "type": 0,
            "allow": "0",
            "deny": str(Perm.CREATE_PRIVATE_THREADS | Perm.SEND_MESSAGES),
        }
    )
    config = replace(world.config(), owner="vesna", owner_accounts=("discord:4242",))
    config = replace(
        config,
        discord=replace(
            config.discord,
            referees_channel_id=category.id,
            councilors_channel_id=777,
            roles={"referee": 999, "councilor": world.councilor_role.id},
        ),
    )
    found = by_where(await check_discord(config, guild_ready_timeout=0.05))
    assert set(found) == {
        f"[discord] referees_channel_id = {category.id}",
        "[discord] councilors_channel_id = 777",
        f"[discord] trials_channel_id = {world.trials.id}",
        "[discord.roles] referee = 999",
        "[club] owner_accounts: discord:4242",
        "[discord.roles]",
        f"[discord.roles] councilor = {world.councilor_role.id}",
    }
    assert "Manage Roles" in found["[discord.roles]"].problem
    assert "drag the bot's role above" in found[f"[discord.roles] councilor = {world.councilor_role.id}"].fix
    assert "not a text channel" in found[f"[discord] referees_channel_id = {category.id}"].problem
    assert "no channel with this id" in found["[discord] councilors_channel_id = 777"].problem
    trials = found[f"[discord] trials_channel_id = {world.trials.id}"]
    assert trials.fatal
    assert trials.problem == "the bot lacks `Create Private Threads` here"
    assert "#sudjenja" in trials.fix
    assert "Sudija" in trials.fix
    assert "allow `Create Private Threads`" in trials.fix
    role = found["[discord.roles] referee = 999"]
    assert role.fatal
    assert "lose the role" in role.problem
    assert not found["[club] owner_accounts: discord:4242"].fatal

    # The fix the docs now give: the bot's own role allowed on the trials channel.
    world.trials.permission_overwrites.append(
        {"id": str(fake.bot_role.id), "type": 0, "allow": str(Perm.CREATE_PRIVATE_THREADS), "deny": "0"}
    )
    again = by_where(await check_discord(config, guild_ready_timeout=0.05))
    assert f"[discord] trials_channel_id = {world.trials.id}" not in again


async def test_privileged_intents_not_granted_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with FakeDiscord(privileged_intents=()) as fake:
        monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", fake.token)
        trials = fake.add_text_channel("sudjenja")
        config = Config(
            discord=replace(
                Config().discord,
                guild_id=fake.guild_id,
                referees_channel_id=fake.general.id,
                trials_channel_id=trials.id,
            )
        )
        with pointed_at(fake):
            [found] = await check_discord(config, guild_ready_timeout=0.05)
    finding = english(found)
    assert finding.fatal
    assert finding.where == "privileged intents"
    assert "Message Content Intent" in finding.fix


async def test_a_referee_role_that_cannot_view_the_referees_channel_is_fatal(world: World) -> None:
    fake = world.fake
    # the calls' channel made private to the councilors only: no referee would ever read a call
    elsewhere = fake.add_text_channel("sudije-stari", private_to=[world.councilor_role.id])
    config = world.config()
    config = replace(config, discord=replace(config.discord, referees_channel_id=elsewhere.id))
    found = by_where(await check_discord(config, guild_ready_timeout=0.05))
    finding = found[f"[discord] referees_channel_id = {elsewhere.id}"]
    assert finding.fatal
    assert finding.problem.startswith("the referee role 'Sudija' lacks `View Channel`")
    assert "no referee can read it" in finding.problem
    assert "#sudije-stari" in finding.fix
    assert "add the role 'Sudija' and allow `View Channel`" in finding.fix
    # the fix: the referee role allowed there
    elsewhere.permission_overwrites.append(
        {"id": str(world.referee_role.id), "type": 0, "allow": str(Perm.VIEW_CHANNEL), "deny": "0"}
    )
    again = by_where(await check_discord(config, guild_ready_timeout=0.05))
    assert f"[discord] referees_channel_id = {elsewhere.id}" not in again


async def test_a_trials_channel_hidden_from_the_members_is_fatal(world: World) -> None:
    fake = world.fake
    world.trials.permission_overwrites += [
        {"id": str(fake.guild_id), "type": 0, "allow": "0", "deny": str(Perm.VIEW_CHANNEL)},
        {"id": str(fake.bot_role.id), "type": 0, "allow": str(Perm.VIEW_CHANNEL), "deny": "0"},
    ]
    found = by_where(await check_discord(world.config(), guild_ready_timeout=0.05))
    finding = found[f"[discord] trials_channel_id = {world.trials.id}"]
    assert finding.fatal
    assert finding.problem.startswith(
        "7 members (ana, marko, petar, ceca, sudija1 and 2 more) lack `View Channel` here"
    )
    assert "lack `View Channel`" in finding.problem
    assert "cannot see his trial's private thread" in finding.problem
    assert "@everyone (or the members' role): allow `View Channel`" in finding.fix


async def test_a_privileged_intent_that_is_off_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with FakeDiscord(privileged_intents=("members", "presences")) as fake:
        monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", fake.token)
        trials = fake.add_text_channel("sudjenja")
        settings = replace(
            Config().discord, guild_id=fake.guild_id, referees_channel_id=fake.general.id, trials_channel_id=trials.id
        )
        with pointed_at(fake):
            [found] = await check_discord(Config(discord=settings), guild_ready_timeout=0.05)
    finding = english(found)
    assert finding.where == "privileged intents"
    assert finding.problem == "not granted to the bot: `Message Content Intent` is off"
    assert finding.fix.endswith("turn on `Message Content Intent`")


# Telegram --------------------------------------------------------------------------------------------------


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", TOKEN)
    async with FakeTelegram() as server:
        yield server


def telegram_config(fake: FakeTelegram, tmp_path: Path, **groups: int) -> Config:
    return Config(
        database=str(tmp_path / "club.db"),
        owner="vesna",
        owner_accounts=("telegram:9001",),
        telegram=TelegramConfig(base_url=fake.base_url, **groups),
    )


async def test_telegram_set_up_right_has_nothing_to_report(fake: FakeTelegram, tmp_path: Path) -> None:
    vesna = fake.user("Vesna", user_id=9001)
    club, referees = fake.group("Klub", members=[vesna]), fake.group("Sudije", bot_status="member")
    report = await check_all(telegram_config(fake, tmp_path, club_group_id=club.id, referees_group_id=referees.id))
    assert report.checked == ["telegram"]
    assert report.findings == []
    assert report.text(EN) == "checked Telegram: everything the bot needs is in place"


async def test_telegram_set_up_wrongly_is_reported_and_the_bot_refuses_to_start(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    ana = fake.user("Ana", started=True)
    club = fake.group("Klub", bot_status="member")  # not an administrator
    left = fake.group("Stara grupa", bot_status="left")
    config = telegram_config(
        fake,
        tmp_path,
        club_group_id=club.id,
        referees_group_id=ana.id,  # a private chat
        councilors_group_id=left.id,
    )
    report = await check_all(config)
    found = by_where(report.findings)
    assert set(found) == {
        f"[telegram] club_group_id = {club.id}",
        f"[telegram] referees_group_id = {ana.id}",
        f"[telegram] councilors_group_id = {left.id}",
        "[club] owner_accounts: telegram:9001",
    }
    assert "not an administrator" in found[f"[telegram] club_group_id = {club.id}"].problem
    assert "Administrators" in found[f"[telegram] club_group_id = {club.id}"].fix
    assert "private chat, not a group" in found[f"[telegram] referees_group_id = {ana.id}"].problem
    assert "not in this group" in found[f"[telegram] councilors_group_id = {left.id}"].problem
    assert len(report.fatal) == 3
    assert not found["[club] owner_accounts: telegram:9001"].fatal
    assert report.text(EN).splitlines()[0] == "checked Telegram: 3 fatal, 1 warning"

    refuses = Catalogue(config.language).t("check.refuses")  # the club's language
    with pytest.raises(SetupError, match=re.escape(refuses)) as refused:
        await asyncio.wait_for(serve(config, stop=asyncio.Event()), 20)
    assert len(refused.value.report.fatal) == 3
    assert not fake.unconfirmed()
    assert not fake.conflicts()


async def test_an_administrator_without_the_right_to_delete_is_a_warning(fake: FakeTelegram, tmp_path: Path) -> None:
    club = fake.group("Klub", can_delete=False)
    report = await check_all(telegram_config(fake, tmp_path, club_group_id=club.id))
    found = by_where(report.findings)
    assert not report.fatal
    assert "may not delete messages" in found[f"[telegram] club_group_id = {club.id}"].problem
    assert "[telegram] referees_group_id" in found


async def test_the_referees_group_that_is_the_club_group_is_fatal(fake: FakeTelegram, tmp_path: Path) -> None:
    club = fake.group("Klub")
    report = await check_all(
        telegram_config(fake, tmp_path, club_group_id=club.id, referees_group_id=club.id, councilors_group_id=club.id)
    )
    found = by_where(report.findings)
    for setting in ("referees_group_id", "councilors_group_id"):
        finding = found[f"[telegram] {setting} = {club.id}"]
        assert finding.fatal
        assert "is the club's group" in finding.problem
        assert "posted to the whole club" in finding.problem


async def test_a_group_upgraded_to_a_supergroup_names_its_new_id(fake: FakeTelegram, tmp_path: Path) -> None:
    club = fake.group("Klub", kind="group")
    referees = fake.group("Sudije", kind="group")
    supergroup = fake.upgrade(referees)
    assert supergroup.id != referees.id
    report = await check_all(telegram_config(fake, tmp_path, club_group_id=club.id, referees_group_id=referees.id))
    finding = by_where(report.findings)[f"[telegram] referees_group_id = {referees.id}"]
    assert finding.fatal
    assert "upgraded to a supergroup" in finding.problem
    assert finding.fix == f"use the new id: [telegram] referees_group_id = {supergroup.id}"
    again = await check_all(telegram_config(fake, tmp_path, club_group_id=club.id, referees_group_id=supergroup.id))
    assert [f for f in again.findings if "referees_group_id" in shown(f.where, EN)] == []


def test_a_report_of_nothing_says_so() -> None:
    assert Report().text(EN).startswith("nothing to check")


async def test_the_check_command_prints_what_to_change_and_fails_on_a_fatal_finding(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    import os  # noqa: PLC0415 (imported where the test needs it)
    import sys  # noqa: PLC0415 (imported where the test needs it)

    club = fake.group("Klub", bot_status="member")
    (tmp_path / "config.toml").write_text(
        f'[club]\nowner = "vesna"\nowner_accounts = ["telegram:9001"]\n\n'
        f'[telegram]\nclub_group_id = {club.id}\nreferees_group_id = -1009999\nbase_url = "{fake.base_url}"\n',
        encoding="utf-8",
    )
    root = Path(__file__).resolve().parent.parent  # noqa: ASYNC240 (a test sets up its files)
    env = {**os.environ, "PYTHONPATH": str(root), "SUDIJA_TELEGRAM_TOKEN": TOKEN, "NO_PROXY": "127.0.0.1"}
    env.pop("SUDIJA_DISCORD_TOKEN", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--config",
        str(tmp_path / "config.toml"),
        "check",
        "--lang",
        "en",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    text = out.decode()
    assert process.returncode == 1, err.decode()
    assert text.splitlines()[0] == "checked Telegram: 2 fatal, 1 warning"
    assert f"FATAL Telegram: [telegram] club_group_id = {club.id} (Klub): the bot is not an administrator" in text
    assert "FATAL Telegram: [telegram] referees_group_id = -1009999: Telegram says" in text


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
async def test_the_findings_speak_the_language(world: World, fake: FakeTelegram, tmp_path: Path, language: str) -> None:
    """What `sudija check` prints for a Discord server and a Telegram club set up wrongly in many ways, in the
    language: the settings as they are written, the platforms' own menus and permissions as the platforms name
    them (in backticks), the rest in words of the language."""
    from test_cli_language import foreign_text  # noqa: PLC0415 (imported where the test needs it)

    discord_fake = world.fake
    category = discord_fake.add_category("Klub")
    world.trials.permission_overwrites += [
        {"id": str(discord_fake.guild_id), "type": 0, "allow": "0", "deny": str(Perm.VIEW_CHANNEL)},
        {"id": str(discord_fake.bot_role.id), "type": 0, "allow": str(Perm.VIEW_CHANNEL), "deny": "0"},
    ]
    config = replace(world.config(), owner="vesna", owner_accounts=("discord:4242",))
    config = replace(
        config,
        discord=replace(
            config.discord, referees_channel_id=category.id, councilors_channel_id=777, roles={"referee": 999}
        ),
    )
    report = Report()
    report.add("discord", await check_discord(config, guild_ready_timeout=0.05))
    ana = fake.user("Ana", started=True)
    club = fake.group("Klub", bot_status="member")
    left = fake.group("Stara grupa", bot_status="left")
    groups = {"club_group_id": club.id, "referees_group_id": ana.id, "councilors_group_id": left.id}
    report.add("telegram", (await check_all(telegram_config(fake, tmp_path, **groups))).findings)
    assert len(report.findings) >= 10
    text = report.text(Catalogue(language))
    assert Catalogue(language).t("check.fatal_count", count=len(report.fatal)) in text.splitlines()[0]
    members = world.m.values()
    names = {*world.m, *(m.nick or "" for m in members), *(m.user.global_name or "" for m in members)}
    names |= {m.user.username for m in members} | {"Klub", "Stara grupa", "Ana"}
    # what the platforms hold (names, Telegram's answers) and the accounts as configured (telegram:9001)
    shown_text = re.sub(r"'[^'\n]*'|#\S+|\b(?:discord|telegram):\d+", " ", text)
    for name in sorted(names, key=len, reverse=True):
        if name:
            shown_text = re.sub(rf"\b{re.escape(name)}\b", " ", shown_text)
    problems = [f"{line}: {p}" for line in shown_text.splitlines() for p in foreign_text(language, line)]
    assert problems == []
