"""The Discord adapter's parts without a gateway: the draft forms and their reading, message splitting, custom
ids, and `run_discord`'s wiring (the token from the environment variable named in the configuration)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app import build_app
from bot.config import Config, ConfigError, DiscordConfig
from bot.discord import run_discord, start_discord
from bot.discord.components import (
    CUSTOM_ID,
    DRAFT_KINDS,
    DeskButton,
    draft_fields,
)
from bot.discord.port import chunks
from bot.messages import Catalogue
from bot.ports import ManualClock, ManualTimers
from bot.registry.drafts import read_form as build_draft
from bot.registry.spec import Usage
from fakes.discord_server import FakeDiscord, pointed_at
from rules.verdicts import BulaChange, Draft, FallTransfer, Nobody, NoVerdict, Penalty, Settlement, VerdictKind

t = Catalogue("sr").t


@pytest.mark.parametrize("kind", DRAFT_KINDS)
@pytest.mark.parametrize("language", ["sr", "en"])
def test_every_draft_form_fits_a_discord_modal(kind: VerdictKind, language: str) -> None:
    fields = draft_fields(kind, Catalogue(language).t)
    assert 1 <= len(fields) <= 5
    assert all(1 <= len(label) <= 45 for label, _ in fields)
    assert len({f.custom_id for _, f in fields}) == len(fields)
    assert fields[-1][1].custom_id == "reason"
    assert 1 <= len(Catalogue(language).t(f"choice.vrsta.{kind}")) <= 45  # the modal's title and button


def test_drafts_are_read_from_the_forms() -> None:
    assert build_draft(
        VerdictKind.BULE, {"hand": "3", "amounts": "ana +4, petar -2", "late": "da", "reason": " x "}, t
    ) == Draft(BulaChange({"ana": 4, "petar": -2}, 3, True), "x")
    assert build_draft(VerdictKind.BULE, {"hand": "", "amounts": "ana 2"}, t).verdict == BulaChange({"ana": 2})
    assert build_draft(VerdictKind.BULA, {"hand": "2", "culprit": "marko", "reason": "r"}, t) == Draft(
        FallTransfer(2, "marko"), "r"
    )
    assert build_draft(
        VerdictKind.KAZNA, {"culprit": "petar", "plavac": "3", "league": "", "abandoned": "DA"}, t
    ).verdict == Penalty("petar", 3, 0, True)
    assert build_draft(VerdictKind.KAZNA, {"culprit": "petar po kasnjenje"}, t).verdict == Penalty(
        "petar", offence="kasnjenje"
    )
    assert build_draft(VerdictKind.SVODJENJE, {"confirm": "potvrđujem", "reason": "r"}, t).verdict == Settlement(True)
    assert build_draft(VerdictKind.SVODJENJE, {"confirm": "ne", "reason": "r"}, t).verdict == Settlement(False)
    assert build_draft(VerdictKind.NIKO, {"reason": "r"}, t).verdict == Nobody()
    assert build_draft(VerdictKind.BEZ, {"reason": "r"}, t).verdict == NoVerdict()


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        (VerdictKind.BULE, {"amounts": "ana"}),
        (VerdictKind.BULE, {"amounts": "ana četiri"}),
        (VerdictKind.BULE, {"hand": "treća", "amounts": "ana 4"}),
        (VerdictKind.BULA, {"hand": "", "culprit": "ana"}),
        (VerdictKind.KAZNA, {"culprit": "ana", "plavac": "dva"}),
        (VerdictKind.KAZNA, {"culprit": "ana", "league": "x"}),
    ],
)
def test_unreadable_forms_say_what_is_wrong(kind: VerdictKind, values: dict[str, str]) -> None:
    with pytest.raises(Usage) as problem:
        build_draft(kind, values, t)
    assert str(problem.value)


def test_amounts_take_commas_or_spaces() -> None:
    assert build_draft(VerdictKind.BULE, {"amounts": "ana +4 marko -2; petar 2"}, t).verdict.amounts == {
        "ana": 4,
        "marko": -2,
        "petar": 2,
    }  # type: ignore[union-attr]


def test_custom_ids_carry_action_and_id_only() -> None:
    button = DeskButton("take", 42, "Sudi")
    assert button.item.custom_id == "sudija:take:42"
    match = CUSTOM_ID.fullmatch("sudija:nacrt_penalty:7")
    assert match is not None
    assert match["action"] == "nacrt_penalty"
    assert match["ref"] == "7"
    assert CUSTOM_ID.fullmatch("sudija:take:42; drop") is None
    assert len(DeskButton("take", 10**18, "x" * 200).item.label or "") == 80


def test_long_texts_are_split_on_lines_within_the_limit() -> None:
    text = "\n".join(f"red {i} " + "x" * 50 for i in range(100))
    parts = chunks(text)
    assert all(len(p) <= 2000 for p in parts)
    assert "\n".join(parts) == text
    assert chunks("y" * 4500) == ["y" * 2000, "y" * 2000, "y" * 500]
    assert chunks("") == ["—"]


async def test_run_discord_needs_the_token_and_runs_until_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeDiscord() as fake:
        trials = fake.add_text_channel("sudjenja")
        config = Config(
            discord=DiscordConfig(
                token_env="TEST_SUDIJA_DISCORD",
                guild_id=fake.guild_id,
                referees_channel_id=fake.general.id,
                trials_channel_id=trials.id,
            )
        )
        app = await build_app(config, clock=ManualClock(), timers=ManualTimers(), database=str(tmp_path / "c.db"))
        try:
            monkeypatch.delenv("TEST_SUDIJA_DISCORD", raising=False)
            with pytest.raises(ConfigError, match="TEST_SUDIJA_DISCORD"):
                await run_discord(app)
            monkeypatch.setenv("TEST_SUDIJA_DISCORD", fake.token)
            with pointed_at(fake):
                bot, task = await start_discord(app, guild_ready_timeout=0.05)
                assert app.chats.port("discord") is bot.chat
                assert bot.is_ready()
                assert not task.done()
                await app.desk.start()
                assert "sudija" in fake.guild_commands
                await bot.close()
                await asyncio.wait_for(task, timeout=5)
        finally:
            await app.close()
        fake.assert_clean()


async def test_start_discord_refuses_a_server_the_bot_is_not_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeDiscord() as fake:
        config = Config(
            discord=DiscordConfig(
                token_env="TEST_SUDIJA_DISCORD", guild_id=fake.guild_id + 1, referees_channel_id=1, trials_channel_id=2
            )
        )
        monkeypatch.setenv("TEST_SUDIJA_DISCORD", fake.token)
        app = await build_app(config, clock=ManualClock(), timers=ManualTimers(), database=str(tmp_path / "c.db"))
        try:
            with pointed_at(fake), pytest.raises(ConfigError, match="guild_id = "):
                await start_discord(app, guild_ready_timeout=0.05)
            assert not fake.connected
            no_channels = replace(app.config, discord=replace(config.discord, trials_channel_id=0))
            app.config = no_channels
            with pytest.raises(ConfigError, match="trials_channel_id"):
                await start_discord(app)
        finally:
            await app.close()


def test_a_long_call_notice_keeps_every_mention() -> None:
    from bot.discord.port import LIMIT, with_mentions  # noqa: PLC0415 (imported where the test needs it)

    users = [10**17 + i for i in range(120)]  # 120 referees: far more mentions than one message holds
    notice = "Pozvan je sudija za partiju 100. " * 40
    parts = with_mentions(notice, users)
    assert len(parts) > 1
    assert all(len(text) <= LIMIT for text, _ in parts)
    assert parts[0][0].startswith(notice.strip()[:100])
    assert [u for _, named in parts for u in named] == users  # every one named, once, in order
    for text, named in parts:
        assert text.count("<@") == len(named)
        assert all(f"<@{u}>" in text for u in named)
    assert with_mentions("kratko", [1, 2]) == [("kratko\n<@1> <@2>", [1, 2])]
