"""Protocol v1 as documented: the schema covers every event and command, what the reference server and the bot
send conforms to it, the worked exchange in docs/game-server.md is valid, the signature example is right, and the
backoff and configuration behave as the page says."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from linked import make_linked
from test_examples import schema_problems

from bot.config import ConfigError, GameServerConfig, from_dict
from bot.gameserver.link import link_secret
from bot.gameserver.outbox import Backoff
from bot.gameserver.protocol import (
    COMMANDS,
    EVENTS,
    Key,
    command_doc,
    parse_command,
    parse_event,
    signature,
    signature_header,
)
from club import database_for
from storage.games import canonical_log
from storage.gameserver import LiveFeedStore

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "game-server.schema.json").read_text(encoding="utf-8"))
PAGE = (ROOT / "docs" / "game-server.md").read_text(encoding="utf-8")


def test_the_schema_has_every_event_and_command_with_its_fields() -> None:
    defs = SCHEMA["$defs"]
    for kind, fields in EVENTS.items():
        data = defs[f"event_{kind}"]["properties"]["data"]
        assert set(data["required"]) == set(fields), kind
        assert f"`{kind}`" in PAGE
    for kind, fields in COMMANDS.items():
        data = defs[f"command_{kind}"]["properties"]["data"]
        assert set(data["required"]) == set(fields), kind
        assert f"`{kind}`" in PAGE
    assert {d["$ref"].rsplit("/", 1)[1] for d in SCHEMA["anyOf"]} == {
        k for k in defs if "_" in k and k.split("_")[0] in ("event", "command")
    }


def test_the_worked_exchange_is_valid_protocol() -> None:
    bodies = [line.split(None, 2)[2] for line in PAGE.splitlines() if line.startswith("POST /v1/events   {")]
    bodies = [b for b in bodies if "…" not in b]
    assert len(bodies) >= 6
    for body in bodies:
        doc = json.loads(body)
        parse_event(doc)
        assert schema_problems(doc, {"$ref": f"#/$defs/event_{doc['type']}", **SCHEMA}) == [], body
    command = re.search(r'(\{"v":1,"id":"sudija-[^\n]*\}\})', PAGE)
    assert command is not None
    parse_command(json.loads(command.group(1)))


def test_the_signature_example_is_right() -> None:
    body = next(line.split(None, 2)[2] for line in PAGE.splitlines() if line.startswith("POST /v1/events   {"))
    shown = re.search(r"X-Sudija-Signature: (sha256=[0-9a-f]{64})", PAGE)
    assert shown is not None
    assert signature(b"demo-secret", "1796155200", body.encode()) == shown.group(1)
    assert '"type":"game_started"' in body  # the event the page says it signs
    named = re.search(r"X-Sudija-Signature: (keyid=2026-12,sha256=[0-9a-f]{64})", PAGE)
    assert named is not None
    assert signature_header(Key(b"demo-secret", "2026-12"), "1796155200", body.encode()) == named.group(1)


async def test_what_the_reference_server_and_the_bot_send_conforms_to_the_schema(tmp_path: Path) -> None:
    linked = await make_linked(tmp_path)
    try:
        for nick in ("ana", "marko", "petar"):
            await linked.member(nick)
        table = linked.table(900, hands=2)
        while await table.step():
            pass
        await linked.ref.make_offer("ana", "o1")
        await linked.ref.issue_link_code("ana", "ABCD12")
        assert all(status == 200 for status, _ in linked.ref.answers), linked.ref.answers
        assert {doc["type"] for doc in table.sent} >= {
            "game_started",
            "player_sat",
            "move_played",
            "hand_finished",
            "game_finished",
            "player_stood",
        }
        stored = await linked.db.games.get(900)
        assert stored == table.game  # the live feed stored exactly the game the table played
        assert await LiveFeedStore(linked.db).digest(900) == canonical_log(stored)[0]  # in its canonical form
        for doc in table.sent:
            assert schema_problems(doc, {"$ref": f"#/$defs/event_{doc['type']}", **SCHEMA}) == [], doc
        port = linked.desk.deps.game_server
        await port.set_plavac("ana", None)
        await port.paper_changed(900, {"game": 900})
        await port.deliver_link_code("ana", "XY12")
        await port.block_offers("ana")
        await port.unblock_offers("ana")
        await port.close_game(900)
        await linked.flush()
        assert len(linked.ref.received) == 6
        for key, kind, data in linked.ref.received:
            doc = command_doc(kind, data, key)
            assert schema_problems(doc, {"$ref": f"#/$defs/command_{kind}", **SCHEMA}) == [], doc
    finally:
        await linked.close()


def test_the_backoff_doubles_up_to_its_cap_with_jitter() -> None:
    backoff = Backoff(1.0, 300.0)
    rng = random.Random(1)
    for attempts in range(12):
        full = min(300.0, 2.0**attempts)
        delays = [backoff.delay(attempts, rng) for _ in range(50)]
        assert all(full / 2 <= d <= full for d in delays)
        assert len(set(delays)) > 1  # jitter: not all the same
    assert backoff.delay(1000, rng) <= 300.0


def test_the_link_configuration_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not GameServerConfig().enabled
    with pytest.raises(ConfigError, match=r"gameserver\.url"):
        from_dict({"gameserver": {"url": "ftp://x"}})
    with pytest.raises(ConfigError, match=r"gameserver\.port"):
        from_dict({"gameserver": {"port": 0}})
    config = from_dict({"gameserver": {"url": "http://127.0.0.1:9", "secret_env": "SUDIJA_TEST_NO_SUCH"}}).gameserver
    monkeypatch.delenv("SUDIJA_TEST_NO_SUCH", raising=False)
    with pytest.raises(ConfigError, match="SUDIJA_TEST_NO_SUCH"):
        link_secret(config)
    monkeypatch.setenv("SUDIJA_TEST_NO_SUCH", "s3cret")
    assert link_secret(config) == b"s3cret"


async def test_a_port_taken_is_a_clear_message(tmp_path: Path) -> None:
    import socket  # noqa: PLC0415 (imported where the test needs it)

    from bot.config import Config  # noqa: PLC0415 (imported where the test needs it)
    from bot.desk import Desk  # noqa: PLC0415 (imported where the test needs it)
    from bot.gameserver.link import GameServerLink  # noqa: PLC0415 (imported where the test needs it)
    from bot.gameserver.outbox import HttpGameServer  # noqa: PLC0415 (imported where the test needs it)
    from bot.ports import Chats, ManualClock, ManualTimers  # noqa: PLC0415 (imported where the test needs it)
    from storage.database import open_database  # noqa: PLC0415 (imported where the test needs it)

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = GameServerConfig(url="http://127.0.0.1:9", host="127.0.0.1", port=port)
        db = await open_database(database_for(tmp_path))
        try:
            clock = ManualClock()
            desk = Desk(db, Chats([]), HttpGameServer(db, clock.now), clock, Config(gameserver=config), ManualTimers())
            link = GameServerLink(desk, config, b"s", clock=clock.now)
            with pytest.raises(ConfigError, match="cannot listen"):
                await link.start()
            await link.stop()
        finally:
            await db.close()


def test_the_live_row_is_the_canonical_log_whatever_the_nicknames() -> None:
    import zlib  # noqa: PLC0415 (imported where the test needs it)
    from datetime import UTC, datetime  # noqa: PLC0415 (imported where the test needs it)

    from bot.gameserver.feed import _texts  # noqa: PLC0415 (imported where the test needs it)
    from rules.generator import generate_game  # noqa: PLC0415 (imported where the test needs it)
    from storage.gameserver import live_row  # noqa: PLC0415 (imported where the test needs it)

    for players in (("ana", "marko", "petar"), ('"hands":[]', "hands", 'x"y\\z')):
        game = generate_game(random.Random(5), 77, hands=6, players=players, start=datetime(2026, 12, 1, tzinfo=UTC))
        head, texts = _texts(game)
        row = live_row(game, None, head, texts)
        digest, blob = canonical_log(game)
        assert row.digest == digest
        assert zlib.decompress(row.blob) == zlib.decompress(blob)
