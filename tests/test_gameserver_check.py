"""`sudija gameserver-check`'s conformance check against the reference game server (which passes) and against
deliberately faulty ones, over loopback HTTP: each fault is caught by the check that names it — a command done
twice under one key (found by asking the table's state), answers that are not JSON, an answer that never comes
(with the reason), a game server with no test table (then no command at all is sent), and faulty events."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from linked import SECRET, live_game

from bot.gameserver.check import Check, conformance
from bot.gameserver.protocol import Key, Keyring, ProtocolError, decode, parse_command
from bot.gameserver.reference import TEST_GAME, TEST_PLAYERS, ReferenceGameServer
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue
from bot.ports import SystemClock

REAL_GAME = 42


async def serve(server: ReferenceGameServer) -> TestServer:
    runner = TestServer(server.app(), host="127.0.0.1")
    await runner.start_server()
    return runner


@pytest.fixture
async def reference() -> AsyncIterator[tuple[ReferenceGameServer, TestServer]]:
    ref = ReferenceGameServer("http://127.0.0.1:1", SECRET, SystemClock().now)
    ref.add_table(live_game(REAL_GAME, ("ana", "marko", "petar"), 2))
    server = await serve(ref)
    try:
        yield ref, server
    finally:
        await ref.close()
        await server.close()


async def check(server: TestServer, keys: bytes | Keyring = SECRET, **options: Any) -> list[Check]:
    return await conformance(str(server.make_url("/")), keys, SystemClock().now, **options)


EN = Catalogue("en")


def failed(checks: list[Check]) -> dict[str, str]:
    """The failed checks as an English reader reads them: name → what was found."""
    return {phrase_text(c.name, EN.t): phrase_text(c.detail, EN.t) for c in checks if not c.ok}


async def test_the_reference_server_passes_and_only_its_test_table_is_touched(
    reference: tuple[ReferenceGameServer, TestServer],
) -> None:
    ref, server = reference
    checks = await check(server)
    assert failed(checks) == {}
    assert len(checks) >= 30
    names = {phrase_text(c.name, EN.t) for c in checks}
    for name in (
        "the test table",
        "pause_table done once per idempotency key",
        "block_offers done once per idempotency key",
        "set_plavac done once per idempotency key",
        "events signed",
        "events in seq order, from game_started",
        "hand_in_progress answered",
        "unknown key id refused",
        "an Idempotency-Key that is not the signed id refused",
    ):
        assert name in names, name
    for _, _, data in ref.received:  # never a real table, never a real member
        assert data.get("game", TEST_GAME) == TEST_GAME
        assert data.get("nick", TEST_PLAYERS[0]) == TEST_PLAYERS[0]
    assert not ref.tables[REAL_GAME].started
    assert any(key for key, kind, _ in ref.received if kind == "close_game")  # the test table may be closed
    # Signed with a key id, as the bot signs: the same.
    keyed = Keyring(Key(SECRET, "k1"), (Key(SECRET, "k1"),))
    ref.keyring = keyed
    assert failed(await check(server, keyed)) == {}


class Forgetful(ReferenceGameServer):
    """Does every command it is sent, whatever its key: not idempotent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keys = _Forgets()


class _Forgets(set[str]):
    def __contains__(self, key: object) -> bool:
        return False


async def failed_by(kind: type[ReferenceGameServer]) -> dict[str, str]:
    """The checks a variant of the reference game server fails, by name."""
    ref = kind("http://127.0.0.1:1", SECRET, SystemClock().now)
    server = await serve(ref)
    try:
        return failed(await check(server))
    finally:
        await ref.close()
        await server.close()


async def test_a_game_server_that_acts_twice_under_one_key_fails_naming_the_command() -> None:
    found = await failed_by(Forgetful)
    assert set(found) == {
        "pause_table done once per idempotency key",
        "block_offers done once per idempotency key",
        "set_plavac done once per idempotency key",
    }, found
    assert (
        "pause_table was done twice under one idempotency key (check-"
        in found["pause_table done once per idempotency key"]
    )
    assert "set `paused` to `true` again" in found["pause_table done once per idempotency key"]


def server_of(answer: Callable[[str, dict[str, Any], web.Request], Any]) -> web.Application:
    """A hand-made game server: `answer(kind, data, request)` gives the response to each command."""

    async def commands(request: web.Request) -> web.StreamResponse:
        try:
            _, kind, data = parse_command(decode(await request.read()))
        except ProtocolError:
            kind, data = "", {}
        result = answer(kind, data, request)
        return await result if asyncio.iscoroutine(result) else result

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "protocol": 1, "minor": 1})

    app = web.Application()
    app.router.add_post("/v1/commands", commands)
    app.router.add_get("/healthz", healthz)
    return app


async def run_against(app: web.Application, **options: Any) -> dict[str, str]:
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        return failed(await check(server, **options))
    finally:
        await server.close()


async def test_plain_text_answers_fail() -> None:
    def answer(kind: str, data: dict[str, Any], request: web.Request) -> web.Response:
        if kind == "test_table":
            return web.json_response({"ok": True, "game": TEST_GAME, "nick": "t"})
        return web.Response(text="OK", status=200)

    found = await run_against(server_of(answer), events_seconds=0.05)
    assert "the answer is not JSON with 'ok'" in found["pause_table done"]
    assert "wanted 401 as JSON" in found["unsigned command refused"]  # it took an unsigned command, too
    assert "no game_started posted" in found["the test table's game_started arrived"]


async def test_an_answer_that_never_comes_is_told_with_the_reason() -> None:
    never = asyncio.Event()

    async def answer(kind: str, data: dict[str, Any], request: web.Request) -> web.Response:
        if kind == "test_table":
            return web.json_response({"ok": True, "game": TEST_GAME, "nick": "t"})
        if kind == "pause_table":
            await never.wait()
        return web.json_response({"ok": False, "error": "x", "field": "type"}, status=422)

    found = await run_against(server_of(answer), answer_seconds=0.3, events_seconds=0.05)
    assert found["pause_table done"] == "no answer: timed out (--timeout 0.3)"


async def test_a_game_server_without_a_test_table_gets_no_command() -> None:
    seen: list[str] = []

    def answer(kind: str, data: dict[str, Any], request: web.Request) -> web.Response:
        seen.append(kind)
        return web.json_response({"ok": False, "error": "unknown type", "field": "type"}, status=422)

    found = await run_against(server_of(answer))
    assert set(found) == {"the test table"}
    assert "keeps no test table" in found["the test table"]
    assert seen == ["test_table"]  # nothing else: no real table is ever acted on


class Sloppy(ReferenceGameServer):
    """Posts its test table's events badly: with a wrong secret after the first, and skipping a seq."""

    async def test(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        answer = await super().test(kind, data)
        if kind == "test_table":
            table = self.tables[TEST_GAME]
            table.seq += 1  # a number skipped: the check answers 409, as the bot would
            await table.post("player_stood", {"nick": TEST_PLAYERS[0]})
            self.keyring = Keyring.shared(b"another secret")
            await table.post("player_sat", {"nick": TEST_PLAYERS[0]})
            self.keyring = Keyring.shared(SECRET)
        return answer


async def test_faulty_events_are_caught() -> None:
    found = await failed_by(Sloppy)
    assert "came after" in found["events in seq order, from game_started"]
    assert "signature" in found["events signed"]


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
async def test_the_checks_speak_the_language(reference: tuple[ReferenceGameServer, TestServer], language: str) -> None:
    """Every check's name and finding as `sudija gameserver-check` prints them, for the reference game server and
    for one that acts twice under a key, in the language: the protocol's names in backticks, the game server's
    answers (quoted, JSON) and the keys as they are."""
    from test_cli_language import foreign_text  # noqa: PLC0415 (imported where the test needs it)

    _, server = reference
    checks = await check(server)
    forgetful = Forgetful("http://127.0.0.1:1", SECRET, SystemClock().now)
    served = await serve(forgetful)
    try:
        checks += await check(served)
    finally:
        await forgetful.close()
        await served.close()
    words = Catalogue(language)
    lines = [
        f"{words.t('cli.gscheck.ok' if c.ok else 'cli.gscheck.fail')} "
        f"{phrase_text(c.name, words.t)}: {phrase_text(c.detail, words.t)}"
        for c in checks
    ]
    assert sum(1 for c in checks if not c.ok) == 3
    players = "|".join(map(re.escape, TEST_PLAYERS))
    values = re.compile(rf"'[^'\n]*'|check-[0-9a-f]+|\{{.*\}}|{players}")  # answers, keys, test members
    problems = [f"{line}: {p}" for line in lines for p in foreign_text(language, values.sub(" ", line))]
    assert problems == []
