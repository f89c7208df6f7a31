"""`sudija run`'s serve loop against the fake Bot API: one bot per SQLite database (a second process is refused and
told who holds the lock), several on PostgreSQL (one polls, another takes over when it stops), and a stop (what
SIGTERM and SIGINT set) ends it cleanly, the fetched updates confirmed, and what was on its way to Telegram
recorded as it ended (within `[outbox] stop_grace_seconds`) instead of being sent again after the restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from test_discord import World, make_world

from bot.app import App
from bot.cli.run import serve
from bot.config import Config, ConfigError, GameServerConfig, HttpConfig, OutboxConfig, TelegramConfig
from bot.dblock import DatabaseLock
from bot.discord.port import DiscordChat
from bot.http import Endpoint
from fakes.discord_server import Perm
from fakes.telegram_server import FakeTelegram
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.outbox import OutboxStore
from storage.states import DeliveryState, OutboxState


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123456789:TEST-fake-bot-token")
    async with FakeTelegram() as server:
        yield server


def config(fake: FakeTelegram, tmp_path: Path) -> Config:
    club = fake.group("Klub")
    return Config(
        database=str(tmp_path / "club.db"),
        owner="vesna",
        owner_accounts=("telegram:9001",),
        telegram=TelegramConfig(club_group_id=club.id, base_url=fake.base_url),
    )


async def test_one_bot_per_database_and_a_clean_stop(fake: FakeTelegram, tmp_path: Path) -> None:
    settings = config(fake, tmp_path)
    stop = asyncio.Event()
    running = asyncio.create_task(serve(settings, stop=stop))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    with pytest.raises(ConfigError, match=r"in use by another Sudija \(pid \d+ on .+, since .+\)"):
        DatabaseLock(settings.database).acquire()
    with pytest.raises(ConfigError, match="one bot per database"):
        await serve(settings, stop=asyncio.Event())
    stop.set()
    await asyncio.wait_for(running, 10)
    assert not fake.unconfirmed()
    assert not fake.conflicts()
    with DatabaseLock(settings.database):  # released: the next bot may start
        pass


async def test_sigterm_stops_the_bot_cleanly(fake: FakeTelegram, tmp_path: Path) -> None:
    import os  # noqa: PLC0415 (imported where the test needs it)
    import signal  # noqa: PLC0415 (imported where the test needs it)

    settings = config(fake, tmp_path)
    running = asyncio.create_task(serve(settings))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    os.kill(os.getpid(), signal.SIGTERM)  # what systemd or docker stop sends
    await asyncio.wait_for(running, 10)
    assert not fake.unconfirmed()
    assert not fake.conflicts()
    with DatabaseLock(settings.database):
        pass


async def test_on_postgresql_two_bots_serve_at_once_and_one_polls_until_it_stops_then_the_other_does(
    fake: FakeTelegram, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = replace(config(fake, tmp_path), database=pg_url)
    caplog.set_level(logging.INFO)
    first_stop, second_stop = asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(serve(settings, stop=first_stop))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    second = asyncio.create_task(serve(settings, stop=second_stop))  # not refused: it serves beside the first
    await fake.wait_until(lambda: "standing by for the gateway: server process" in caplog.text)
    assert not second.done()
    first_stop.set()
    await asyncio.wait_for(first, 10)
    handed_over = len(fake.calls("getUpdates"))
    assert not fake.unconfirmed()  # the first confirmed what it read
    await fake.wait_until(lambda: len(fake.calls("getUpdates")) > handed_over)  # the second polls now
    assert "holding the gateway" in caplog.text
    second_stop.set()
    await asyncio.wait_for(second, 10)
    # While both served, one polled: no poll was cut short by another's (409 Conflict). The first's long poll cut
    # by its stop stays held at Telegram until the second's first one ends it: that 409 reaches nobody.
    assert all(r.error_code is None for r in fake.calls("getUpdates")[:handed_over] if r.heard)
    assert not fake.conflicts()


@pytest.fixture
async def still(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    """The fake Bot API on a clock that stands still: a poll is held until an update comes or the test times it
    out (`time_out_polls`), so the test chooses the moment a stop lands in it."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123456789:TEST-fake-bot-token")
    now = [1_000_000.0]

    def time_out_polls(seconds: float) -> None:
        now[0] += seconds
        server.wake_polls()

    async with FakeTelegram(clock=lambda: now[0], poll_clock=lambda: now[0], max_long_poll=60) as server:
        server.time_out_polls = time_out_polls  # type: ignore[attr-defined]
        yield server


def held(fake: FakeTelegram, since: int = 0) -> list[str]:
    """The getUpdates Telegram holds now (from index `since` on), each as the poll it is: "short" or "long"."""
    polls = [r for r in fake.calls("getUpdates") if r.index >= since and r.held and not r.done]
    return ["long" if r.params.get("timeout", 0) >= 3 else "short" for r in polls]


async def next_process_polls(fake: FakeTelegram) -> asyncio.Task[tuple[int, Any]]:
    """The next process's first long poll (another bot with the token), held once this returns."""
    import aiohttp  # noqa: PLC0415 (imported where the test needs it)

    async def poll() -> tuple[int, Any]:
        async with aiohttp.ClientSession() as session:
            url = f"{fake.base_url}{fake.token}/getUpdates"
            async with session.post(url, json={"timeout": 10}) as response:
                return response.status, await response.json()

    mark = fake.mark()
    task = asyncio.ensure_future(poll())
    await fake.wait_until(lambda: bool(held(fake, mark)))
    return task


async def test_a_stop_landing_in_a_long_poll_cuts_it_without_a_conflict_nor_one_for_the_next_process(
    still: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram holds the long poll a stop cuts until its time or the next held poll ends it (409 to nobody);
    it confirmed on arrival every update before its offset. A call after it with its offset within 3 s is held
    3 s though it asks for none (what PTB's stop sent to confirm): the stop waited for it, and the next process's
    first poll ended it with a 409 the stopping bot logged — or it ended the next process's poll. Here the stop
    lands just after the long poll began, with updates handled before it; the stop ends, the next process
    polls, and nobody hears a conflict."""
    fake = still
    niko = fake.user("Niko", started=True)
    bot = Serving(config(fake, tmp_path))
    await fake.wait_until(lambda: bool(held(fake)))
    fake.push_command(niko, niko, "nadimak", "ana")
    await fake.wait_for("sendMessage", chat=niko)  # the update read and handled
    fake.time_out_polls(1)  # what follows the update: a short poll, then the long one
    await fake.wait_until(lambda: held(fake) == ["long"])
    mark = fake.mark()
    bot.stop.set()  # within SAME_OFFSET_WAIT of the long poll's start (the clock stands still)
    waiting = asyncio.ensure_future(fake.wait_until(lambda: bool(held(fake, mark)), timeout=10))
    await asyncio.wait({bot.task, waiting}, return_when=asyncio.FIRST_COMPLETED)  # ended, or waits on Telegram
    waiting.cancel()
    next_poll = await next_process_polls(fake)
    await asyncio.wait_for(bot.task, 10)
    assert not fake.conflicts()  # no poll of either heard a 409
    assert not fake.unconfirmed()  # the update handled is confirmed: not handled again after a restart
    fake.push_message(niko, niko, "posle")
    status, body = await asyncio.wait_for(next_poll, 10)  # the next process's poll was not cut: it gets it
    assert status == 200
    assert [u["message"]["text"] for u in body["result"]] == ["posle"]
    assert [r.error_code for r in fake.calls("getUpdates") if not r.heard] == [409]  # the cut poll's, unheard


async def test_a_stop_landing_in_a_short_poll_lets_it_end_and_leaves_what_it_brings_to_the_next_start(
    still: FakeTelegram, tmp_path: Path
) -> None:
    """The call after updates waits a second at most and carries an offset Telegram may not have yet: a stop
    lets it end rather than cut it, and what it brings once the stop began is neither handled nor confirmed —
    the next start handles it, once."""
    fake = still
    niko = fake.user("Niko", started=True)
    settings = config(fake, tmp_path)
    bot = Serving(settings)
    await fake.wait_until(lambda: held(fake) == ["short"])  # the first poll: Telegram has no offset of it yet
    with logged("bot.telegram.polling", "short poll under way: let end") as letting_end:
        bot.stop.set()
        await letting_end.or_ended(bot.task)
    assert letting_end.seen.is_set()
    assert not bot.task.done()
    fake.push_command(niko, niko, "nadimak", "ana")  # brought by the short poll, after the stop began
    await asyncio.wait_for(bot.task, 10)
    assert not fake.calls("sendMessage")
    assert not fake.conflicts()
    [brought] = fake.unconfirmed()
    again = Serving(settings)
    await fake.wait_for("sendMessage", chat=niko)
    await again.stopped()
    assert brought not in fake.unconfirmed()
    assert not fake.conflicts()
    assert len([r for r in fake.calls("sendMessage") if r.params["chat_id"] == niko.id]) == 1


class Serving:
    """`sudija run` in this process; the app it serves reached as its `/healthz` endpoint reaches it."""

    def __init__(self, settings: Config) -> None:
        self.settings = settings
        self.stop = asyncio.Event()
        self.endpoint = Endpoint(HttpConfig())  # not listening: the test reads the club it serves
        self.task = asyncio.create_task(serve(settings, stop=self.stop, endpoint=self.endpoint))

    async def polling(self, fake: FakeTelegram, since: int) -> App:
        """The app, once it polls Telegram (its desk may still be starting)."""
        await fake.wait_for("getUpdates", since=since)
        return self.endpoint.clubs[self.settings.club_id].app

    async def stopped(self) -> None:
        """Stopped as SIGTERM stops it, and ended (its start, with the delivery of what was pending, is over)."""
        self.stop.set()
        await asyncio.wait_for(self.task, 10)


class Logged(logging.Handler):
    """Sets `seen` once a record says `words` (what an operator reads in the journal)."""

    def __init__(self, words: str) -> None:
        super().__init__(logging.INFO)
        self.words = words
        self.seen = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.seen.set()

    async def or_ended(self, task: asyncio.Task[None]) -> None:
        """Until the words are said, or `task` ended without them."""
        said = asyncio.ensure_future(self.seen.wait())
        await asyncio.wait({task, said}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        said.cancel()


@pytest.fixture
def winding_down() -> Iterator[Logged]:
    """Set once the chat outbox of a stopping bot says it waits for what is on its way."""
    with logged("bot.chat_outbox", "on their way: let end") as handler:
        yield handler


@contextlib.contextmanager
def logged(name: str, words: str) -> Iterator[Logged]:
    """A `Logged` on the logger `name`, at INFO, for the block."""
    handler = Logged(words)
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


async def stop_waiting(bot: Serving, logger: str, words: str) -> None:
    """Tell `bot` to stop, until it logs `words` on `logger` that it waits for something on its way (or ends): it
    must still be running then, not stopped without waiting."""
    with logged(logger, words) as down:
        bot.stop.set()
        await down.or_ended(bot.task)
    assert not bot.task.done(), f"the bot stopped without waiting ({words!r} never logged)"
    assert down.seen.is_set()


async def a_stop_with_an_effect_on_its_way(
    fake: FakeTelegram, tmp_path: Path, grace: float
) -> tuple[Serving, asyncio.Event, asyncio.Future[None]]:
    """A bot serving (`[outbox] stop_grace_seconds = grace`); a private message to mira from a decision no update
    made (a deadline, the game server's feed), which Telegram has taken while its answer is still on the way (held
    by the fake) when the bot is told to stop. Once the bot stopped taking updates: the bot, the gate that lets
    the answer go, and the decision's own delivery."""
    mira = fake.user("Mira", started=True)
    bot = Serving(replace(config(fake, tmp_path), outbox=OutboxConfig(stop_grace_seconds=grace)))
    app = await bot.polling(fake, 0)
    member = await app.db.members.link("telegram", str(mira.id), "mira", app.clock.now())
    gate = fake.hold_answers("sendMessage")
    deciding = asyncio.ensure_future(app.desk.delivery.enqueue_effects([app.desk.delivery.told(member.id, "na putu")]))
    await fake.wait_for("sendMessage", chat=mira)  # Telegram has it (mira sees it); the answer waits
    with logged("bot.telegram.polling", "Telegram: input stopped") as input_stopped:
        bot.stop.set()
        await input_stopped.or_ended(bot.task)  # no new updates
    assert input_stopped.seen.is_set()
    return bot, gate, deciding


async def effects(settings: Config, platform: str = "telegram") -> list[tuple[OutboxState, DeliveryState | None]]:
    """Each chat effect's state and its part's on `platform` (None: not begun), in the order written, as the
    stopped bot left them."""
    db = await open_database(settings.database, read_only=True)
    try:
        listed = sorted(await ChatOutboxStore(db).listing(), key=lambda e: e.id)
        return [(e.state, e.deliveries.get(platform)) for e in listed]
    finally:
        await db.close()


def sent(fake: FakeTelegram) -> Counter[str]:
    """How many times Telegram took each text the bot sent."""
    return Counter(r.params["text"] for r in fake.calls("sendMessage") if r.ok)


async def restarted(fake: FakeTelegram, settings: Config) -> Counter[str]:
    """The next start (its desk delivers what is pending), then a stop: what Telegram was sent in all."""
    again = Serving(settings)
    await again.polling(fake, fake.mark())
    await again.stopped()
    return sent(fake)


async def test_a_stop_lets_a_message_on_its_way_arrive_and_it_is_not_sent_again_after_the_restart(
    fake: FakeTelegram, tmp_path: Path, winding_down: Logged
) -> None:
    """The stop's order: no new updates, then what is on its way to Telegram is let arrive and recorded sent, then
    the client closes. Cut instead (the client closed first), the message would stay pending and mira would get
    it twice after the restart (at least once). What a decision writes once the stop began is not begun: it
    waits in the outbox for the next start."""
    bot, gate, deciding = await a_stop_with_an_effect_on_its_way(fake, tmp_path, grace=60)
    try:
        await winding_down.or_ended(bot.task)
        assert not bot.task.done(), "the bot closed Telegram's client without waiting for the answer on its way"
        assert winding_down.seen.is_set()
        app = bot.endpoint.clubs[bot.settings.club_id].app
        mira = await app.db.members.by_nick("mira")
        assert mira is not None
        await app.desk.delivery.enqueue_effects([app.desk.delivery.told(mira.id, "posle")])  # a deadline's, say
    finally:
        gate.set()
    await bot.stopped()
    await asyncio.wait_for(deciding, 10)  # the decision's delivery ended with the answer
    assert sent(fake) == {"na putu": 1}
    assert await effects(bot.settings) == [(OutboxState.SENT, DeliveryState.DONE), (OutboxState.PENDING, None)]
    assert await restarted(fake, bot.settings) == {"na putu": 1, "posle": 1}
    assert await effects(bot.settings) == [(OutboxState.SENT, DeliveryState.DONE)] * 2


async def test_an_answer_that_does_not_come_within_the_grace_leaves_the_message_to_be_sent_after_the_restart(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The grace bounds the stop: with none (`stop_grace_seconds = 0`) the request on its way is cut at once, its
    effect left pending with its Telegram part begun, and the next start sends it again — at least once, as after
    a crash: mira, whom Telegram had shown it, gets it twice."""
    bot, gate, deciding = await a_stop_with_an_effect_on_its_way(fake, tmp_path, grace=0)
    try:
        await bot.stopped()  # the answer never came
        await asyncio.wait_for(deciding, 10)
    finally:
        gate.set()
    assert "1 row(s) still on their way after 0 s: cut, acted on again at the next start" in caplog.text
    assert await effects(bot.settings) == [(OutboxState.PENDING, DeliveryState.STARTED)]
    assert await restarted(fake, bot.settings) == {"na putu": 2}
    assert await effects(bot.settings) == [(OutboxState.SENT, DeliveryState.DONE)]


async def test_healthz_says_telegram_is_down_once_telegram_refuses_the_token(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A token revoked while the bot runs: Telegram answers getUpdates 401, no update comes any more, and the
    check `/healthz` reads says Telegram is down (the operator's monitoring sees it) instead of running."""
    settings = config(fake, tmp_path)
    with logged("bot.telegram.polling", "the token was refused") as refused:
        fake.fail_next("getUpdates", 401, "Unauthorized")
        bot = Serving(settings)
        await refused.or_ended(bot.task)
    try:
        assert refused.seen.is_set()
        served = bot.endpoint.clubs[settings.club_id]
        assert served.platforms["telegram"]() is False
    finally:
        await bot.stopped()


async def a_stop_with_a_telegram_answer_on_its_way(
    fake: FakeTelegram, tmp_path: Path, grace: float
) -> tuple[Serving, asyncio.Event, Logged]:
    """A bot serving (`[outbox] stop_grace_seconds = grace`) that handles niko's command when it is told to stop:
    Telegram has its answer, whose own answer the fake holds. The bot, the gate that lets that answer go, and
    what the adapter said of the member acts under way."""
    niko = fake.user("Niko", started=True)
    bot = Serving(replace(config(fake, tmp_path), outbox=OutboxConfig(stop_grace_seconds=grace)))
    await bot.polling(fake, 0)
    gate = fake.hold_answers("sendMessage")
    fake.push_command(niko, niko, "nepostojeca")  # answered to him alone, by the handler itself
    await fake.wait_for("sendMessage", chat=niko)
    with logged("bot.telegram.adapter", "member act(s) under way: let end") as down:
        bot.stop.set()
        await down.or_ended(bot.task)
    return bot, gate, down


async def test_on_telegram_a_stop_lets_a_command_being_handled_end_with_its_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A command Telegram delivered before the stop began is handled to its end — its answer arrives — before
    the bot's client closes, within the grace."""
    bot, gate, down = await a_stop_with_a_telegram_answer_on_its_way(fake, tmp_path, grace=60)
    try:
        assert down.seen.is_set()
        assert not bot.task.done(), "the bot stopped while a command was being handled"
    finally:
        gate.set()
    await bot.stopped()
    [answer] = fake.calls("sendMessage")
    assert answer.ok
    assert answer.heard


async def test_on_telegram_a_command_still_handled_at_the_grace_is_cut(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The grace bounds Telegram's handlers as it bounds Discord's and the outboxes: with none
    (`stop_grace_seconds = 0`) the command whose answer has not come back is cut at once, and the bot stops
    while the answer is still held."""
    bot, gate, down = await a_stop_with_a_telegram_answer_on_its_way(fake, tmp_path, grace=0)
    try:
        await bot.stopped()
        assert not gate.is_set()
    finally:
        gate.set()
    assert down.seen.is_set()
    assert "Telegram: 1 member act(s) still under way after 0 s: cut" in caplog.text
    [answer] = fake.calls("sendMessage")
    await fake.wait_until(lambda: not answer.heard)  # Telegram showed it; the bot had gone when its answer came


async def serving_discord(world: World, tmp_path: Path) -> tuple[Serving, App, Config]:
    """`sudija run` serving the fake Discord of `world` (owner ana, a stop's grace of 60 s), once its client is
    ready — what `sudija run` waits for before the desk."""
    fake, ana = world.fake, world.m["ana"]
    fake.bot_role.permissions |= Perm.MANAGE_ROLES  # the setup `sudija run` checks at its start is right
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    club = {"database": str(tmp_path / "club.db"), "owner": "ana", "owner_accounts": (f"discord:{ana.id}",)}
    settings = replace(world.config(club), outbox=OutboxConfig(stop_grace_seconds=60))
    bot = Serving(settings)
    await fake.wait_connected()
    app = bot.endpoint.clubs[settings.club_id].app
    (port,) = app.chats.ports
    assert isinstance(port, DiscordChat)
    await asyncio.wait_for(port.bot.ready_once.wait(), 10)
    return bot, app, settings


async def test_on_discord_a_stop_drops_new_events_and_lets_a_message_on_its_way_arrive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, winding_down: Logged
) -> None:
    """Discord's side of the stop's order: once it begins, a slash command from the gateway reaches no desk (it
    goes unanswered, as while the bot is down), while the direct message Discord has taken and not yet answered
    is let arrive over the HTTP session still open and recorded sent, so the next start does not send it again."""
    async with make_world(tmp_path) as world:
        fake, ana, marko = world.fake, world.m["ana"], world.m["marko"]
        monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", fake.token)
        bot, app, settings = await serving_discord(world, tmp_path)
        member = await app.db.members.link("discord", str(marko.id), "marko", app.clock.now())
        sending = r"/channels/\d+/messages"
        gate = fake.hold_answers("POST", f"^{sending}$")
        told = app.desk.delivery.told(member.id, "na putu")
        deciding = asyncio.ensure_future(app.desk.delivery.enqueue_effects([told]))
        await fake.wait_until(lambda: [r for r in fake.requests_to("POST", sending) if r.status == 200], what="sent")
        try:
            bot.stop.set()
            await winding_down.or_ended(bot.task)
            assert not bot.task.done(), "the bot closed Discord's client without waiting for the answer on its way"
            late = await fake.slash(ana.id, "presude", {"partija": 100})  # after the stop began
        finally:
            gate.set()
        await bot.stopped()
        await asyncio.wait_for(deciding, 10)
        assert fake.interaction_responses(late.id) == []  # no desk heard it
        assert await effects(settings, "discord") == [(OutboxState.SENT, DeliveryState.DONE)]
        dm = fake.dm_channel_id(marko.id)
        assert [m["content"] for m in fake.messages_in(dm or 0)] == ["na putu"]


class SlowGameServer:
    """The game server's commands endpoint on loopback: it takes every command as the game server does (each
    idempotency key once) and holds its answer until `gate` is set — a slow network, where the bot waits for the
    answer to what the game server has already carried out."""

    def __init__(self) -> None:
        self.taken: Counter[str] = Counter()  # idempotency key -> how many times the bot sent it
        self.received = asyncio.Event()
        self.gate = asyncio.Event()
        app = web.Application()
        app.router.add_post("/v1/commands", self.command)
        self.server = TestServer(app, host="127.0.0.1")

    async def command(self, request: web.Request) -> web.Response:
        await request.read()
        self.taken[request.headers["Idempotency-Key"]] += 1
        self.received.set()
        await self.gate.wait()
        return web.json_response({"ok": True})

    @property
    def url(self) -> str:
        return str(self.server.make_url("")).rstrip("/")


async def test_a_stop_lets_a_command_on_its_way_to_the_game_server_end_and_records_it_sent(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game server's outbox is wound down as the chat outbox is: a command the game server has taken, whose
    answer is still on the way when the stop begins, is let end within the grace and recorded sent — not cut, its
    row left pending and sent again after the restart (harmless under its idempotency key, but a command answered
    is done)."""
    monkeypatch.setenv("SUDIJA_GAMESERVER_SECRET", "a-game-server-secret-for-the-test")
    game_server = SlowGameServer()
    await game_server.server.start_server()
    try:
        link = GameServerConfig(url=game_server.url, host="127.0.0.1", port=0)
        settings = replace(config(fake, tmp_path), gameserver=link, outbox=OutboxConfig(stop_grace_seconds=60))
        bot = Serving(settings)
        app = await bot.polling(fake, 0)
        await fake.wait_until(lambda: app.link is not None)
        await app.desk.deps.game_server.pause_table(1847300)
        await asyncio.wait_for(game_server.received.wait(), 10)  # the game server paused the table
        try:
            await stop_waiting(bot, "bot.gameserver.outbox", "game-server outbox: stopping with 1 row(s) on their way")
        finally:
            game_server.gate.set()
        await asyncio.wait_for(bot.task, 10)
        db = await open_database(settings.database, read_only=True)
        try:
            assert await OutboxStore(db).counts() == {"sent": 1}
        finally:
            await db.close()
        again = Serving(settings)
        await again.polling(fake, fake.mark())
        await again.stopped()
        assert list(game_server.taken.values()) == [1]  # not sent again after the restart
    finally:
        await game_server.server.close()


async def test_on_discord_a_stop_lets_a_command_being_handled_end_with_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slash command dispatched before the stop began is handled to its end — the desk's answer follows its
    deferral — before Discord's client closes; cut by the close instead, ana's "thinking…" would hang with no
    answer."""
    async with make_world(tmp_path) as world:
        fake, ana = world.fake, world.m["ana"]
        monkeypatch.setenv("SUDIJA_DISCORD_TOKEN", fake.token)
        bot, _app, _settings = await serving_discord(world, tmp_path)
        callback = r"/interactions/\d+/[^/]+/callback"
        gate = fake.hold_answers("POST", f"^{callback}$")
        pressed = await fake.slash(ana.id, "presude", {"partija": 100})
        await fake.wait_until(lambda: fake.requests_to("POST", callback), what="deferred")
        try:
            await stop_waiting(bot, "bot.discord.client", "member act(s) under way: let end")
        finally:
            gate.set()
        await bot.stopped()
        assert fake.requests_to("POST", r"/webhooks/\d+/[^/]+"), "ana's command was cut before its answer"
        assert fake.interaction_responses(pressed.id) != []
