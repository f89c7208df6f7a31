"""`sudija run --club FILE --club FILE`: two clubs in one process on one PostgreSQL database, each with its own
Telegram bot (the fake Bot API, one per token), its own `[club] id` and its own rows, each log line saying whose;
a stop ends both cleanly; and files that would not make two distinct clubs are refused before anything starts."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from bot.cli._clubs import check_clubs, serve_clubs
from bot.config import Config, ConfigError, GameServerConfig, TelegramConfig
from bot.logs import ClubOfTheTask
from fakes.telegram_server import FakeTelegram
from storage.database import open_database

TOKENS = {"beograd": "111111111:TEST-beograd-token", "novisad": "222222222:TEST-novisad-token"}


@pytest.fixture
async def fakes(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[dict[str, FakeTelegram]]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    for club, token in TOKENS.items():
        monkeypatch.setenv(f"TOKEN_{club.upper()}", token)
    async with FakeTelegram(token=TOKENS["beograd"]) as a, FakeTelegram(token=TOKENS["novisad"]) as b:
        yield {"beograd": a, "novisad": b}


def club_config(club: str, fake: FakeTelegram, database: str) -> Config:
    return Config(
        database=database,
        club_id=club,
        owner="vesna",
        owner_accounts=("telegram:9001",),
        telegram=TelegramConfig(
            token_env=f"TOKEN_{club.upper()}", club_group_id=fake.group("Klub").id, base_url=fake.base_url
        ),
    )


class Lines(logging.Handler):
    """The records logged while the clubs run, with the club each names."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[str, str]] = []
        self.addFilter(ClubOfTheTask())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((getattr(record, "club", "?"), record.getMessage()))


async def test_two_clubs_in_one_process_each_answer_their_own_members_into_their_own_rows(
    fakes: dict[str, FakeTelegram], pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    configs = [club_config(club, fake, pg_url) for club, fake in fakes.items()]
    caplog.set_level(logging.INFO)
    lines = Lines()
    logging.getLogger().addHandler(lines)
    stop = asyncio.Event()
    running = asyncio.create_task(serve_clubs(configs, stop=stop))
    try:
        for fake in fakes.values():
            await fake.wait_until(lambda fake=fake: bool(fake.calls("getUpdates")), timeout=20)
        for fake in fakes.values():  # a member of each club asks for the same nickname on his club's bot
            niko = fake.user("Niko", started=True)
            mark = fake.mark()
            fake.push_command(niko, niko, "nadimak", "ana")
            await fake.wait_for("sendMessage", chat=niko, since=mark, timeout=20)
    finally:
        stop.set()
        await asyncio.wait_for(running, 20)
        logging.getLogger().removeHandler(lines)
    assert sorted(club for club, line in lines.lines if line == "stopping") == ["beograd", "novisad"]
    for fake in fakes.values():
        assert not fake.unconfirmed()
        assert not fake.conflicts()
    for club, fake in fakes.items():
        db = await open_database(pg_url, club=club)
        try:
            [request] = await db.links.pending()
            assert request.nick == "ana"
            assert request.account == str(next(u.id for u in fake.users.values() if u.first_name == "Niko"))
        finally:
            await db.close()


def test_files_that_would_not_make_distinct_clubs_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TOKEN_A", "1:a")
    monkeypatch.setenv("TOKEN_B", "2:b")
    pg = "postgresql://sudija@db/sudija"
    a = Config(database=pg, club_id="a", telegram=TelegramConfig(token_env="TOKEN_A"))
    b = Config(database=pg, club_id="b", telegram=TelegramConfig(token_env="TOKEN_B"))
    check_clubs([a, b], ["a.toml", "b.toml"])  # two clubs of one database, each its own bot
    with pytest.raises(ConfigError, match=r"b\.toml and a\.toml both serve the club 'a' of postgresql://"):
        check_clubs([a, replace(b, club_id="a")], ["a.toml", "b.toml"])
    with pytest.raises(ConfigError, match="share one lock key"):  # CRC-32 of both is 1896926875
        check_clubs([replace(a, club_id="yovbq"), replace(b, club_id="iyvqoeu")], ["a.toml", "b.toml"])
    sqlite = [replace(a, database="one.db"), replace(b, database="one.db")]
    with pytest.raises(ConfigError, match=r"the database file one\.db \(a file is one club's\)"):
        check_clubs(sqlite, ["a.toml", "b.toml"])
    with pytest.raises(ConfigError, match="same telegram token"):
        check_clubs([a, replace(b, telegram=a.telegram)], ["a.toml", "b.toml"])
    with pytest.raises(ConfigError, match=r"b\.toml: no Discord or Telegram token"):
        check_clubs([a, replace(b, telegram=TelegramConfig(token_env="TOKEN_NONE"))], ["a.toml", "b.toml"])
    link = GameServerConfig(url="http://gs.example", port=8710)
    with pytest.raises(ConfigError, match=r"127\.0\.0\.1:8710"):
        check_clubs([replace(a, gameserver=link), replace(b, gameserver=link)], ["a.toml", "b.toml"])
    # From the command line: the refusal is a message and exit status 2, before anything opens.
    for name in ("a", "b"):
        text = f'[club]\nid = "x"\ndatabase = "{pg}"\n[telegram]\ntoken_env = "TOKEN_{name.upper()}"\n'
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    files = [str(tmp_path / "a.toml"), str(tmp_path / "b.toml")]
    assert cli_main(["run", "--club", files[0], "--club", files[1]]) == 2
    assert "both serve the club 'x'" in capsys.readouterr().err
    assert cli_main(["--config", files[0], "run", "--club", files[1], "--lang", "en"]) == 2
    assert "give no --config or --db" in capsys.readouterr().err
