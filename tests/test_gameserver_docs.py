"""docs/game-server.md checked against the code: the reference client recipe runs against the bot over loopback
HTTP (signing with a key id, a refused event giving its seq back, the 409 resync, commands done once per key),
and the page's examples are what the code does (the signature example computed, the hand-in-progress answer
against the schema, the state keys, every event, command and question named)."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from linked import SECRET, Linked, live_game, make_linked
from test_examples import schema_problems

from bot.chat_outbox import plavac_key
from bot.gameserver.outbox import OutboxWorker
from bot.gameserver.protocol import COMMANDS, EVENTS, QUERIES, Key, Keyring, signature, signed_headers, verify
from bot.ports import state_key
from rules.gamelog import format_time, game_to_doc
from storage.gameserver import LiveFeedStore

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "game-server.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "docs" / "game-server.schema.json").read_text(encoding="utf-8"))
KEY = Key(SECRET, "2026-12")


def recipe() -> dict[str, Any]:
    """The page's reference client, run as a reader would paste it."""
    section = PAGE[PAGE.index("## A reference client (Python)") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    names: dict[str, Any] = {}
    exec(compile(code.group(1), "docs/game-server.md", "exec"), names)
    return names


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    club.clock.set(datetime.now(UTC))  # the recipe signs with the real time
    await relinked(club, Keyring(KEY, (KEY,)))
    try:
        for nick in ("ana", "marko", "petar"):
            await club.member(nick)
        yield club
    finally:
        await club.close()


async def relinked(club: Linked, keys: Keyring) -> None:
    from test_gameserver_authenticity import relink  # noqa: PLC0415 (the same restart as there)

    await relink(club, keys)


async def test_the_recipe_posts_events_as_the_bot_takes_them(linked: Linked) -> None:
    names = recipe()
    keys = names["Keys"]((KEY.id, KEY.secret), [(KEY.id, KEY.secret)])
    table = names["Table"](linked.ref.events_url.removesuffix("/v1/events"), keys, 560)
    game = live_game(560, ("ana", "marko", "petar"), 2)
    started = {k: v for k, v in game_to_doc(game).items() if k in EVENTS["game_started"]}
    started["started_at"] = format_time(datetime.now(UTC) - timedelta(hours=1))

    def play() -> list[tuple[int, dict[str, Any]]]:
        answers = [table.post("game_started", started)]
        answers += [table.post("player_sat", {"nick": nick}) for nick in ("ana", "marko")]
        answers.append(table.post("player_sat", {"nick": "jelena"}))  # refused: not a player; its seq given back
        answers.append(table.post("player_sat", {"nick": "petar"}))
        table.log.append({**table.log[-1], "id": "never-sent", "seq": 5})  # an event the bot never got …
        table.log[-1]["type"], table.log[-1]["data"] = "player_stood", {"nick": "ana"}
        answers.append(table.post("player_stood", {"nick": "marko"}))  # … so a 409, the resync, and taken
        return answers

    answers = await asyncio.to_thread(play)
    assert [status for status, _ in answers] == [200, 200, 200, 422, 200, 200], answers
    assert answers[3][1]["field"] == "data.nick"
    assert answers[4][1]["last_seq"] == 4  # the refused event's seq went to petar's
    assert await LiveFeedStore(linked.db).last_seq(560) == 6
    assert (await linked.get("ana")).seated_game is None  # the resent event was taken
    assert (await linked.get("petar")).seated_game == 560


async def test_the_recipe_takes_the_bots_commands_once_per_key(linked: Linked) -> None:
    names = recipe()
    keys = names["Keys"]((KEY.id, KEY.secret), [(KEY.id, KEY.secret)])
    obeyed: list[tuple[str, dict[str, Any]]] = []

    def obey(kind: str, data: dict[str, Any]) -> tuple[int, str, str] | None:
        if data.get("game") == 999:
            return 404, "data.game", "no such table"
        obeyed.append((kind, data))
        return None

    commands = names["Commands"](keys, obey)

    async def endpoint(request: web.Request) -> web.Response:
        status, answer = commands.handle(request.headers, await request.read())
        return web.json_response(answer, status=status)

    app = web.Application()
    app.router.add_post("/v1/commands", endpoint)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        worker = OutboxWorker(linked.db, str(server.make_url("/")), KEY, linked.clock.now, rng=random.Random(1))
        try:
            port = linked.desk.deps.game_server
            await port.pause_table(561)  # type: ignore[attr-defined]
            await port.pause_table(999)  # type: ignore[attr-defined]
            await port.set_plavac("ana", None)  # type: ignore[attr-defined]
            await worker.run_once()
            sent = await worker.store.listing()
            assert sorted((c.kind, c.state.value) for c in sent) == [
                ("pause_table", "failed"),
                ("pause_table", "sent"),
                ("set_plavac", "sent"),
            ]
            again = next(c for c in sent if c.state.value == "sent")  # a delivery repeated after a crash
            assert (await worker.attempt(again)).outcome.value == "delivered"
            assert len(obeyed) == 2  # not done twice
        finally:
            await worker.stop()
    finally:
        await server.close()
    # The recipe's signature is the bot's, with the key id; a key it does not accept is refused.
    body = b'{"v":1}'
    assert keys.verify(signed_headers(KEY, body, datetime.now(UTC)), body)
    assert not keys.verify(signed_headers(Key(b"other", "2026-12"), body, datetime.now(UTC)), body)
    assert not keys.verify(signed_headers(Key(SECRET, "2027-01"), body, datetime.now(UTC)), body)
    assert verify(KEY, keys.headers(body), body, datetime.now(UTC)) == KEY


def test_the_signature_example_is_computed_here() -> None:
    body = next(line.split(None, 2)[2] for line in PAGE.splitlines() if line.startswith("POST /v1/events   {"))
    assert '"type":"game_started"' in body
    assert '"game":1847400' in body
    mac = signature(b"demo-secret", "1796155200", body.encode())
    assert f"X-Sudija-Signature: {mac}`" in PAGE
    assert f"X-Sudija-Signature: keyid=2026-12,{mac}`" in PAGE


def test_the_hand_in_progress_example_fits_the_schema() -> None:
    section = PAGE[PAGE.index("## The hand in progress") :]
    example = re.search(r"```json\n(.*?)```", section, re.S)
    assert example is not None
    answer = json.loads(example.group(1))
    assert schema_problems(answer, {"$ref": "#/$defs/answer_hand_in_progress", "$defs": SCHEMA["$defs"]}) == []


def test_the_state_keys_are_the_codes() -> None:
    assert state_key("pause", 1847320, "trial", 7) == "pause:1847320:trial:7"
    for key in ("pause:1847320:trial:7", "resume:1847320:trial:7", "block:ana:trial:9", "unblock:ana:trial:9"):
        assert f"`{key}`" in PAGE
    until = datetime(2026, 12, 8, 20, 0, tzinfo=UTC)
    assert f"`{plavac_key('Petar', until)}`" in PAGE


def test_every_event_command_and_question_is_on_the_page_and_in_the_schema() -> None:
    for kind in EVENTS:
        assert f"| `{kind}`" in PAGE or f"`{kind}` /" in PAGE or f"/ `{kind}`" in PAGE, kind
        assert f"event_{kind}" in SCHEMA["$defs"]
    for kind in COMMANDS:
        assert f"| `{kind}`" in PAGE, kind
        assert f"command_{kind}" in SCHEMA["$defs"]
    for kind in QUERIES:
        assert f"answer_{kind}" in SCHEMA["$defs"]
