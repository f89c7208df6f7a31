"""A start that fails fast and clean: a configuration error is found before anything is opened, and `sudija run`
exits non-zero with one line naming the setting and the fix (it used to open the database first, print the error
and hang on the connection's thread); `sudija check` turns a platform it cannot reach into a finding, and fails
when nothing is configured to check."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import discord
import pytest

from bot.cli import main
from bot.cli.check import check_all
from bot.config import Config, DiscordConfig, TelegramConfig
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue

ROOT = Path(__file__).resolve().parent.parent
HANG = 60  # seconds: a bound that fails only on a hang (the process ends within a second or two)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def sudija(tmp_path: Path, env: dict[str, str], *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=HANG,
    )


def linked_club(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[club]\ndatabase = "{tmp_path / "club.db"}"\nowner = "vesna"\nowner_accounts = ["discord:4242"]\n\n'
        '[gameserver]\nurl = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    return config


def test_run_without_the_game_servers_secret_exits_at_once_and_opens_nothing(tmp_path: Path) -> None:
    config = linked_club(tmp_path)
    done = sudija(tmp_path, clean_env(SUDIJA_DISCORD_TOKEN="not-a-real-token"), "run", "--config", str(config))
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()  # one line: the setting and the fix
    assert "gameserver.url" in line
    assert "SUDIJA_GAMESERVER_SECRET" in line
    assert not (tmp_path / "club.db").exists()  # nothing was opened
    assert not (tmp_path / "club.db.lock").exists()


def test_the_console_club_without_the_game_servers_secret_exits_too(tmp_path: Path) -> None:
    """No platform token: `sudija run` starts the console club, which is refused the same way, and ends."""
    config = linked_club(tmp_path)
    done = sudija(tmp_path, clean_env(), "run", "--config", str(config), stdin="!who\n")
    assert done.returncode == 2, done.stderr
    assert "SUDIJA_GAMESERVER_SECRET" in done.stderr.splitlines()[-1]
    assert not (tmp_path / "sudija-demo.db").exists()


def test_run_without_the_owner_exits_before_opening_anything(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[club]\ndatabase = "{tmp_path / "club.db"}"\n', encoding="utf-8")
    done = sudija(tmp_path, clean_env(SUDIJA_TELEGRAM_TOKEN="1:x"), "run", "--config", str(config))
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("[club] owner is not set: put the owner's club nickname there")
    assert not (tmp_path / "club.db").exists()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on: a connection to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def discord_nowhere(closed_port: int) -> Iterator[None]:
    route = discord.http.Route
    old = route.BASE
    route.BASE = f"http://127.0.0.1:{closed_port}/api/v10"
    try:
        yield
    finally:
        route.BASE = old


async def test_check_reports_an_unreachable_discord_as_a_finding(
    discord_nowhere: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", "MTIz.not.real")
    report = await check_all(Config(discord=DiscordConfig(guild_id=1)))
    [finding] = report.findings
    assert finding.fatal
    assert finding.platform == "discord"
    assert phrase_text(finding.problem, Catalogue("en").t).startswith("Discord unreachable: ")
    assert "network" in phrase_text(finding.fix, Catalogue("en").t)
    assert report.checked == ["discord"]


async def test_check_reports_an_unreachable_telegram_as_a_finding(
    closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123:not-real")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    config = Config(telegram=TelegramConfig(base_url=f"http://127.0.0.1:{closed_port}/bot"))
    [finding] = (await check_all(config)).findings
    assert finding.fatal
    assert phrase_text(finding.problem, Catalogue("en").t).startswith("Telegram unreachable: ")


def test_the_check_command_prints_one_line_and_fails_when_unreachable(
    tmp_path: Path, closed_port: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123:not-real")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.delenv("SUDIJA_DISCORD_TOKEN", raising=False)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[club]\nowner = "vesna"\nowner_accounts = ["telegram:9001"]\n\n'
        f'[telegram]\nbase_url = "http://127.0.0.1:{closed_port}/bot"\n',
        encoding="utf-8",
    )
    assert main(["check", "--config", str(config), "--lang", "en"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "checked Telegram: 1 fatal, 0 warnings"
    assert out[1].startswith("FATAL Telegram: the connection: Telegram unreachable: ")
    assert len(out) == 2  # no traceback


def test_check_with_nothing_configured_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SUDIJA_DISCORD_TOKEN", "SUDIJA_TELEGRAM_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--lang", "en"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("nothing to check")
    assert "SUDIJA_DISCORD_TOKEN" in captured.err


def test_check_refuses_a_configuration_run_would_refuse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", "x")
    monkeypatch.delenv("SUDIJA_GAMESERVER_SECRET", raising=False)
    assert main(["check", "--config", str(linked_club(tmp_path))]) == 2


def test_build_app_closes_the_database_when_assembling_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio  # noqa: PLC0415 (imported where the test needs it)

    import bot.app  # noqa: PLC0415 (imported where the test needs it)
    from storage.database import Database  # noqa: PLC0415 (imported where the test needs it)

    closed: list[bool] = []
    real_close = Database.close

    async def watched_close(self: Database) -> None:
        closed.append(True)
        await real_close(self)

    def broken(*_: object) -> None:
        raise RuntimeError("assembling failed")

    monkeypatch.setattr(Database, "close", watched_close)
    monkeypatch.setattr(bot.app, "_assemble", broken)
    config = replace(Config(), database=str(tmp_path / "club.db"))
    with pytest.raises(RuntimeError, match="assembling failed"):
        asyncio.run(bot.app.build_app(config))
    assert closed == [True]
