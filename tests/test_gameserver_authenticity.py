"""Protocol v1.1's authenticity, over loopback HTTP: signatures naming their key id, two keys accepted during a
rotation (the new one signing) with nothing lost across it, a secret of its own per direction, an event id reused
with another body refused, the idempotency key bound to the signed body, and an event's times checked against the
bot's clock (a hand dated tomorrow refused, and the next correct one taken)."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from linked import SECRET, Linked, make_linked

from bot.config import ConfigError, GameServerConfig, from_dict
from bot.gameserver.link import GameServerLink, link_keys
from bot.gameserver.protocol import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    Key,
    Keyring,
    ProtocolError,
    command_doc,
    encode,
    signature,
    signature_header,
    signed_headers,
    verify,
)
from rules.gamelog import format_time, game_to_doc
from storage.gameserver import LiveFeedStore

OLD = Key(SECRET, "2026-11")
NEW = Key(b"the-new-secret-of-december", "2026-12")


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        yield club
    finally:
        await club.close()


async def post(linked: Linked, doc: Any, key: bytes | Key = SECRET, **shift: float) -> tuple[int, dict[str, Any]]:
    body = encode(doc)
    headers = signed_headers(key, body, linked.clock.now() + timedelta(**shift))
    async with (
        aiohttp.ClientSession() as session,
        session.post(linked.ref.events_url, data=body, headers=headers) as response,
    ):
        return response.status, await response.json()


def event(kind: str, data: dict[str, Any], seq: int, game: int = 800, **extra: Any) -> dict[str, Any]:
    return {"v": 1, "id": f"a-{game}-{seq}", "type": kind, "game": game, "seq": seq, "data": data, **extra}


def test_a_signature_names_its_key_and_is_checked_with_that_key() -> None:
    from club import NOW  # noqa: PLC0415 (imported where the test needs it)

    body = b'{"v":1}'
    headers = signed_headers(NEW, body, NOW)
    assert headers[SIGNATURE_HEADER] == "keyid=2026-12," + signature(NEW.secret, headers[TIMESTAMP_HEADER], body)
    assert verify(Keyring(NEW, (OLD, NEW)), headers, body, NOW) == NEW
    assert verify((OLD, NEW), signed_headers(SECRET, body, NOW), body, NOW) == OLD  # v1: no id, each key tried
    problems = {
        "unknown id": signed_headers(Key(NEW.secret, "2027-01"), body, NOW),
        "the id of another key": {**headers, SIGNATURE_HEADER: headers[SIGNATURE_HEADER].replace("2026-12", "2026-11")},
        "two macs": {**headers, SIGNATURE_HEADER: headers[SIGNATURE_HEADER] + ",sha256=00"},
        "no mac": {**headers, SIGNATURE_HEADER: "keyid=2026-12"},
        "garbage": {**headers, SIGNATURE_HEADER: "hmac=abc"},
    }
    for name, bad in problems.items():
        with pytest.raises(ProtocolError) as refused:
            verify((OLD, NEW), bad, body, NOW)
        assert (refused.value.status, refused.value.field) == (401, SIGNATURE_HEADER), name
    with pytest.raises(ProtocolError, match="not one the receiver accepts"):
        verify((OLD,), headers, body, NOW)
    with pytest.raises(ValueError, match="key id"):
        Key(b"x", "no spaces allowed")
    assert signature_header(SECRET, "1", body) == signature(SECRET, "1", body)


def test_the_keyring_is_read_from_the_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUDIJA_T_NEW", "new")
    monkeypatch.setenv("SUDIJA_T_OLD", "old")
    monkeypatch.setenv("SUDIJA_T_EVENTS", "events")
    base = {"url": "http://127.0.0.1:9", "secret_env": "SUDIJA_T_NEW", "key_id": "n"}
    keys = link_keys(from_dict({"gameserver": base}).gameserver)
    assert keys == Keyring(Key(b"new", "n"), (Key(b"new", "n"),))
    rotating = {**base, "previous_secret_env": "SUDIJA_T_OLD", "previous_key_id": "o"}
    keys = link_keys(from_dict({"gameserver": rotating}).gameserver)
    assert keys == Keyring(Key(b"new", "n"), (Key(b"new", "n"), Key(b"old", "o")))
    apart = {**base, "events_secret_env": "SUDIJA_T_EVENTS", "events_key_id": "e"}
    keys = link_keys(from_dict({"gameserver": apart}).gameserver)
    assert keys == Keyring(Key(b"new", "n"), (Key(b"events", "e"),))
    monkeypatch.delenv("SUDIJA_T_OLD")
    with pytest.raises(ConfigError, match=r"previous_secret_env names the environment variable SUDIJA_T_OLD"):
        link_keys(from_dict({"gameserver": rotating}).gameserver)
    for wrong, match in (
        ({"key_id": "a b"}, r"gameserver\.key_id"),
        ({"previous_key_id": "n", "previous_secret_env": "X"}, "the new key's id"),
        ({"clock_tolerance_seconds": 0}, "clock_tolerance_seconds"),
        ({"query_timeout_seconds": 0}, "query_timeout_seconds"),
    ):
        with pytest.raises(ConfigError, match=match):
            from_dict({"gameserver": {**base, **wrong}})
    assert GameServerConfig().clock_tolerance_seconds == 300


async def relink(linked: Linked, keys: Keyring) -> None:
    """The bot restarted with another keyring (the operator changed the configuration): a new link over the same
    database, listening where the old one did."""
    port = linked.bot_server.port
    await linked.link.stop()
    await linked.bot_server.close()
    linked.link = GameServerLink(linked.desk, linked.desk.config.gameserver, keys, clock=linked.clock.now)
    linked.desk.deps.game_server.wake = linked.link.worker.wake  # type: ignore[attr-defined]
    linked.bot_server = TestServer(linked.link.app, host="127.0.0.1", port=port)
    await linked.bot_server.start_server()
    await linked.link.feed.resync()  # the link's start, but its worker: the test sends the outbox (`flush`)


async def test_a_secret_rotated_mid_run_loses_nothing(linked: Linked) -> None:
    for nick in ("ana", "marko", "petar"):
        await linked.member(nick)
    linked.ref.keyring = Keyring(OLD, (OLD,))
    await relink(linked, Keyring(OLD, (OLD,)))
    table = linked.table(801)
    server = linked.desk.deps.game_server
    moves = 0

    async def play(steps: int) -> None:
        nonlocal moves
        for _ in range(steps):
            assert await table.step()
            moves += 1

    async def command(number: int) -> None:
        await server.pause_table(801) if number % 2 else await server.resume_table(801)
        await linked.flush()

    await play(3)
    await command(1)
    # 1. The game server accepts the new key beside the old one; it still signs with the old.
    linked.ref.keyring = Keyring(OLD, (OLD, NEW))
    await command(2)
    await play(2)
    # 2. The bot signs with the new key and accepts both (previous_secret_env).
    await relink(linked, Keyring(NEW, (NEW, OLD)))
    await play(2)
    await command(3)
    await command(4)
    # 3. The game server signs with the new key.
    linked.ref.keyring = Keyring(NEW, (OLD, NEW))
    await play(2)
    # 4. Both drop the old key.
    await relink(linked, Keyring(NEW, (NEW,)))
    linked.ref.keyring = Keyring(NEW, (NEW,))
    await play(2)
    await command(5)
    assert all(status == 200 for status, _ in linked.ref.answers), linked.ref.answers
    assert await LiveFeedStore(linked.db).last_seq(801) == table.seq  # every event taken, in order
    assert [kind for _, kind, _ in linked.ref.received] == ["pause_table", "resume_table"] * 2 + ["pause_table"]
    assert not await linked.link.worker.store.listing("pending")
    assert not await linked.link.worker.store.listing("failed")
    # The old key is refused now, by name of its id.
    status, answer = await post(linked, event("player_stood", {"nick": "ana"}, table.seq + 1, game=801), OLD)
    assert (status, answer["field"]) == (401, SIGNATURE_HEADER)
    assert "2026-11" in answer["error"]
    assert moves == 11


async def test_each_direction_may_have_a_secret_of_its_own(linked: Linked) -> None:
    commands, events = Key(b"commands-secret", "c1"), Key(b"events-secret", "e1")
    await relink(linked, Keyring(commands, (events,)))
    linked.ref.keyring = Keyring(events, (commands,))
    for nick in ("ana", "marko", "petar"):
        await linked.member(nick)
    table = linked.table(802)
    await table.step()
    await linked.desk.deps.game_server.pause_table(802)
    assert await linked.flush() == 1
    assert table.paused
    assert all(status == 200 for status, _ in linked.ref.answers)
    # Each secret works in its own direction only.
    status, _ = await post(linked, event("player_stood", {"nick": "ana"}, 5, game=802), commands)
    assert status == 401


async def test_the_idempotency_key_is_the_signed_id(linked: Linked) -> None:
    linked.table(803)
    await linked.ref.tables[803].step()
    doc = command_doc("pause_table", {"game": 803}, "sudija-k1")
    body = encode(doc)
    headers = {**signed_headers(SECRET, body, linked.clock.now()), IDEMPOTENCY_HEADER: "sudija-other"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(str(linked.ref_server.make_url("/v1/commands")), data=body, headers=headers) as response,
    ):
        assert response.status == 422
        assert (await response.json())["field"] == IDEMPOTENCY_HEADER
    assert not linked.ref.tables[803].paused


async def test_event_times_ahead_of_the_bots_clock_are_refused_naming_the_field(linked: Linked) -> None:
    for nick in ("ana", "marko", "petar"):
        await linked.member(nick)
    table = linked.table(804)
    start = game_to_doc(table.game)
    started = {k: start[k] for k in ("rated", "ai", "bule", "refe_limit", "players", "started_at")}
    now = linked.clock.now()
    ahead = format_time(now + timedelta(seconds=301))
    status, answer = await post(linked, event("game_started", {**started, "started_at": ahead}, 1, game=804))
    assert (status, answer["field"]) == (422, "data.started_at")
    assert "ahead of the bot's clock" in answer["error"]
    status, answer = await post(linked, event("game_started", started, 1, game=804, at=ahead))
    assert (status, answer["field"]) == (422, "at")
    within = format_time(now + timedelta(seconds=299))  # clocks differ a little: within the tolerance
    status, answer = await post(linked, event("game_started", started, 1, game=804, at=within))
    assert status == 200, answer
    status, answer = await post(linked, event("game_finished", {"ended_at": ahead}, 2, game=804))
    assert (status, answer["field"]) == (422, "data.ended_at")
    assert await LiveFeedStore(linked.db).last_seq(804) == 1


async def test_a_hand_dated_tomorrow_is_refused_and_the_next_correct_one_accepted(linked: Linked) -> None:
    for nick in ("ana", "marko", "petar"):
        await linked.member(nick)
    table = linked.table(805)
    while table.hand < 1:
        await table.step()
    hands = game_to_doc(table.game)["hands"]
    game = await linked.db.games.get(805)
    assert game is not None
    assert len(game.hands) == 1
    tomorrow = copy.deepcopy(hands[1])
    tomorrow["ended_at"] = format_time(linked.clock.now() + timedelta(days=1))
    seq = table.seq + 1
    status, answer = await post(linked, event("hand_finished", {"hand": tomorrow}, seq, game=805))
    assert (status, answer["field"]) == (422, "data.hand.ended_at")
    # The refused event used up neither its seq nor its id: the correct hand goes under both.
    status, answer = await post(linked, event("hand_finished", {"hand": hands[1]}, seq, game=805))
    assert status == 200, answer
    status, answer = await post(linked, event("hand_finished", {"hand": hands[2]}, seq + 1, game=805))
    assert status == 200, answer
    game = await linked.db.games.get(805)
    assert game is not None
    assert [h.n for h in game.hands] == [1, 2, 3]


async def test_a_401_period_heals_and_loses_no_command(linked: Linked) -> None:
    """The game server took up the new key before the bot did: every command is refused 401 meanwhile, kept and
    tried again after a backoff; once the keys agree again each arrives, once, in order."""
    await relink(linked, Keyring(OLD, (OLD,)))
    linked.ref.keyring = Keyring(NEW, (NEW,))  # the game server's side rotated alone
    linked.table(806)
    await linked.ref.tables[806].step()  # its events are refused too (the bot does not know the new key) …
    assert linked.ref.answers[-1][0] == 401
    server = linked.desk.deps.game_server
    await server.pause_table(806)
    await server.resume_table(806)
    for _ in range(3):
        assert await linked.flush() == 0
        linked.clock.advance(timedelta(minutes=5))
    pending = await linked.link.worker.store.listing("pending")
    assert [c.kind for c in sorted(pending, key=lambda c: c.id)] == ["pause_table", "resume_table"]
    assert pending[-1].last_error is not None
    assert pending[-1].last_error.startswith("401")
    await relink(linked, Keyring(NEW, (NEW, OLD)))  # the operator gives the bot the new key
    linked.clock.advance(timedelta(minutes=10))
    assert await linked.flush() == 2
    assert [kind for _, kind, _ in linked.ref.received] == ["pause_table", "resume_table"]
    assert not await linked.link.worker.store.listing("pending")
    assert not await linked.link.worker.store.listing("dead")
    # … and the game server's events refused meanwhile kept their seq: its next one shows the gap, it resends
    # from the bot's last_seq, and the bot has the whole game.
    table = linked.ref.tables[806]
    assert await table.step()
    assert linked.ref.answers[-1][0] == 200
    assert await LiveFeedStore(linked.db).last_seq(806) == table.seq
    assert (await linked.db.games.get(806)) is not None
