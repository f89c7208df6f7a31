"""The Telegram bot's HTTP client (bot/telegram/transport.py): python-telegram-bot's requests carried by aiohttp,
against the fake Bot API over loopback — plain calls and file uploads arrive as PTB's own client sends them,
Telegram's errors stay PTB's errors, a dead or closing server is a `NetworkError`, the environment's proxy is
honoured (read once per host), and the adapter uses it for its requests and its long polling."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import BadRequest, NetworkError
from yarl import URL

from bot.config import TelegramConfig
from bot.telegram import TelegramAdapter
from bot.telegram.transport import AiohttpRequest
from club import Club
from fakes.telegram_server import FakeTelegram


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, base_url=fake.base_url, request=AiohttpRequest()) as made:
        yield made


async def test_a_message_and_its_parameters_reach_telegram(fake: FakeTelegram, bot: Bot) -> None:
    user = fake.user("Ana", started=True)
    sent = await bot.send_message(user.id, "<b>Sudija</b> je tu", parse_mode="HTML")
    [request] = fake.calls("sendMessage")
    assert request.encoding == "form"  # url-encoded, as PTB's own client sends it
    stored = fake.message(user, sent.message_id)
    assert stored.text == "Sudija je tu"
    assert stored.entities == [{"type": "bold", "offset": 0, "length": 6}]


async def test_a_file_is_uploaded_with_its_name_type_and_bytes(fake: FakeTelegram, bot: Bot) -> None:
    user = fake.user("Ana", started=True)
    sent = await bot.send_document(user.id, b"hand 1\nhand 2\n", filename="partija.txt", caption="Zapisnik")
    [request] = fake.calls("sendDocument")
    assert request.encoding == "multipart"
    assert sent.document is not None
    assert sent.document.file_name == "partija.txt"
    assert sent.document.mime_type == "text/plain"
    assert fake.files[sent.document.file_id] == b"hand 1\nhand 2\n"
    assert sent.caption == "Zapisnik"


async def test_telegrams_refusals_stay_ptbs_errors(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(999_999, "niko")


async def test_nobody_listening_is_a_network_error() -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with AiohttpRequest() as request:
        with pytest.raises(NetworkError, match="aiohttp"):
            await request.post(f"http://127.0.0.1:{port}/botTOKEN/getMe")


async def test_a_server_that_hangs_up_is_a_network_error() -> None:
    async def hang_up(request: web.Request) -> web.StreamResponse:
        assert request.transport is not None
        request.transport.close()
        return web.Response()

    app = web.Application()
    app.router.add_post("/{tail:.*}", hang_up)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with AiohttpRequest() as request:
            with pytest.raises(NetworkError, match="aiohttp"):
                await request.post(f"http://127.0.0.1:{port}/botTOKEN/getMe")
    finally:
        await runner.cleanup()


async def test_a_request_before_initialize_is_refused() -> None:
    with pytest.raises(NetworkError, match="not initialized"):  # PTB wraps the client's error
        await AiohttpRequest().post("http://127.0.0.1:9/botTOKEN/getMe")


def test_the_environments_proxy_is_honoured_once_per_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    request = AiohttpRequest()
    assert request.proxy_for("https://api.telegram.org/botTOKEN/getMe") == (URL("http://proxy.example:3128"), None)
    assert request.proxy_for("http://127.0.0.1:8081/botTOKEN/getMe") == (None, None)
    monkeypatch.delenv("HTTPS_PROXY")  # read once: the process's environment does not change under a bot
    assert request.proxy_for("https://api.telegram.org/botTOKEN/sendMessage")[0] == URL("http://proxy.example:3128")


async def test_the_adapter_sends_and_polls_through_it(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch, club: Club
) -> None:
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", fake.token)
    adapter = TelegramAdapter(club.desk, TelegramConfig(base_url=fake.base_url), poll_timeout=0.0)
    assert isinstance(adapter.application.bot.request, AiohttpRequest)
    assert isinstance(adapter.application.bot._request[0], AiohttpRequest)  # getUpdates' own client
    async with adapter:
        user = fake.user("Ana", started=True)
        fake.push_message(user, user, "zdravo")  # no trial: the hint comes back over the same client
        await fake.wait_for("sendMessage", chat=user)
    assert not fake.unknown_calls()
