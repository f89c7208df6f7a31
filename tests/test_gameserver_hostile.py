"""Hostile and broken requests to the bot's events endpoint, over loopback HTTP: each is answered with a JSON error
naming the field (or, for a replay, acknowledged) and nothing is stored."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from linked import SECRET, Linked, make_linked

from bot.gameserver.protocol import SIGNATURE_HEADER, TIMESTAMP_HEADER, encode, signed_headers
from rules.gamelog import game_to_doc
from storage.gameserver import LiveFeedStore


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        yield club
    finally:
        await club.close()


async def post(linked: Linked, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    if headers is None:
        headers = signed_headers(SECRET, body, linked.clock.now())
    async with (
        aiohttp.ClientSession() as session,
        session.post(linked.ref.events_url, data=body, headers=headers) as response,
    ):
        return response.status, await response.json()


async def state(linked: Linked) -> tuple[int, str | None, list[Any]]:
    store = LiveFeedStore(linked.db)
    rows = await linked.db.connection.execute_fetchall("SELECT * FROM seating ORDER BY member")
    return await store.event_count(), await store.digest(700), [tuple(r) for r in rows]


def event(kind: str, data: dict[str, Any], seq: int, game: int = 700, event_id: str | None = None) -> dict[str, Any]:
    return {"v": 1, "id": event_id or f"h-{game}-{seq}", "type": kind, "game": game, "seq": seq, "data": data}


@pytest.fixture
async def started(linked: Linked) -> Linked:
    for nick in ("ana", "marko", "petar"):
        await linked.member(nick)
    table = linked.table(700)
    await table.step()  # game_started and three player_sat: seq 1..4
    return linked


async def test_healthz(linked: Linked) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(linked.ref.events_url.replace("/v1/events", "/healthz")) as response,
    ):
        assert response.status == 200
        assert (await response.json()) == {"ok": True, "protocol": 1, "minor": 1}  # v1.1, additive to v1


async def test_unsigned_wrongly_signed_and_stale_requests_are_refused(started: Linked) -> None:
    linked = started
    before = await state(linked)
    body = encode(event("player_stood", {"nick": "ana"}, 5))
    good = signed_headers(SECRET, body, linked.clock.now())
    cases = {
        "no signature": ({TIMESTAMP_HEADER: good[TIMESTAMP_HEADER]}, SIGNATURE_HEADER),
        "no timestamp": ({SIGNATURE_HEADER: good[SIGNATURE_HEADER]}, TIMESTAMP_HEADER),
        "wrong secret": (signed_headers(b"another secret", body, linked.clock.now()), SIGNATURE_HEADER),
        "another body": (signed_headers(SECRET, body + b" ", linked.clock.now()), SIGNATURE_HEADER),
        "old": (signed_headers(SECRET, body, linked.clock.now() - timedelta(seconds=301)), TIMESTAMP_HEADER),
        "future": (signed_headers(SECRET, body, linked.clock.now() + timedelta(seconds=301)), TIMESTAMP_HEADER),
        "not a number": ({**good, TIMESTAMP_HEADER: "soon"}, TIMESTAMP_HEADER),
    }
    for name, (headers, field) in cases.items():
        status, answer = await post(linked, body, headers)
        assert status == 401, name
        assert answer["field"] == field, name
        assert not answer["ok"], name
    assert await state(linked) == before
    status, answer = await post(linked, body)  # the same event, properly signed, is taken
    assert status == 200
    assert answer == {"ok": True, "last_seq": 5}
    assert await state(linked) != before


async def test_a_replayed_id_is_acknowledged_and_ignored(started: Linked) -> None:
    linked = started
    doc = event("player_stood", {"nick": "ana"}, 5)
    assert (await post(linked, encode(doc)))[0] == 200
    after = await state(linked)
    status, answer = await post(linked, encode(doc))
    assert status == 200
    assert answer["duplicate"]
    assert answer["last_seq"] == 5
    # The same event serialised otherwise (keys in another order, spaces) is the same event.
    respaced = json.dumps(dict(reversed(list(doc.items()))), indent=2).encode()
    status, answer = await post(linked, respaced)
    assert (status, answer["duplicate"]) == (200, True)
    replay = copy.deepcopy(doc)
    replay["data"]["nick"] = "marko"  # the same id cannot smuggle in another event: refused, naming the id
    status, answer = await post(linked, encode(replay))
    assert status == 409
    assert answer["field"] == "id"
    assert "another body" in answer["error"]
    assert answer["last_seq"] == 5
    assert await state(linked) == after
    assert (await linked.get("marko")).seated_game == 700


async def test_a_gap_is_answered_with_the_last_sequence_seen_and_the_server_resends(started: Linked) -> None:
    linked = started
    before = await state(linked)
    status, answer = await post(linked, encode(event("player_stood", {"nick": "ana"}, 7)))
    assert status == 409
    assert answer["field"] == "seq"
    assert answer["last_seq"] == 4
    status, answer = await post(linked, encode(event("player_stood", {"nick": "ana"}, 3, event_id="other")))
    assert status == 409
    assert answer["last_seq"] == 4
    assert await state(linked) == before
    table = linked.ref.tables[700]
    table.seq += 2  # the game server "lost" two events: the next one shows a gap and it resends from 5
    table.sent += [
        event(
            "move_played",
            {"hand": 1, "move": 1, "player": table.game.players[(table.game.hands[0].dealer + 1) % 3], "what": "bid x"},
            5,
            event_id="resent-5",
        ),
        event("player_stood", {"nick": "petar"}, 6, event_id="resent-6"),
    ]
    await table.post("player_sat", {"nick": "petar"})
    assert linked.ref.answers[-1] == (200, {"ok": True, "last_seq": 7})
    assert (await linked.get("petar")).seated_game == 700


async def test_malformed_requests_name_the_field_and_change_nothing(started: Linked) -> None:
    linked = started
    before = await state(linked)
    cases: list[tuple[bytes, int, str]] = [
        (b"{not json", 400, "body"),
        (b"\xff\xfe", 400, "body"),
        (encode([1, 2]), 422, "body"),
        (encode({**event("player_stood", {"nick": "ana"}, 5), "v": 2}), 422, "v"),
        (encode({**event("player_stood", {"nick": "ana"}, 5), "type": "dance"}), 422, "type"),
        (encode({k: v for k, v in event("player_stood", {"nick": "ana"}, 5).items() if k != "id"}), 422, "id"),
        (encode(event("player_stood", {}, 5)), 422, "data.nick"),
        (encode(event("player_stood", {"nick": 7}, 5)), 422, "data.nick"),
        (encode(event("player_stood", {"nick": "ana"}, 0)), 422, "seq"),
        (encode(event("player_stood", {"nick": "jelena"}, 5)), 422, "data.nick"),  # not a player of the game
        (encode(event("player_stood", {"nick": "ana"}, 1, game=9999)), 404, "game"),  # an unknown game
        (encode(event("move_played", {"hand": 3, "move": 1, "player": "ana", "what": "x"}, 5)), 422, "data.hand"),
    ]
    for body, status, field in cases:
        got, answer = await post(linked, body)
        assert (got, answer["field"]) == (status, field), (body, answer)
        assert answer["ok"] is False
        assert answer["error"]
    assert await state(linked) == before


async def test_a_hand_that_does_not_fit_the_stored_game_is_refused(started: Linked) -> None:
    linked = started
    table = linked.ref.tables[700]
    hands = game_to_doc(table.game)["hands"]
    before = await state(linked)
    second = copy.deepcopy(hands[1])  # hand 2 before hand 1
    broken = copy.deepcopy(hands[0])
    seat = broken["dealer"]
    broken["deal"][seat] = [*broken["deal"][seat][:-1], broken["deal"]["talon"][0]]  # a card twice
    unfinished = {k: v for k, v in hands[0].items() if k != "ended_at"}
    for hand, field in (
        (second, "data.hand"),
        (broken, "data.hand"),
        (unfinished, "data.hand.ended_at"),
        ("not a hand", "data.hand"),
    ):
        status, answer = await post(linked, encode(event("hand_finished", {"hand": hand}, 5)))
        assert status == 422, answer
        assert answer["field"] == field, answer
    assert await state(linked) == before
    status, answer = await post(linked, encode(event("hand_finished", {"hand": hands[0]}, 5)))
    assert status == 200, answer
    game = await linked.db.games.get(700)
    assert game is not None
    assert len(game.hands) == 1
    assert game.hands[0] == table.game.hands[0]
    again = json.loads(encode(event("hand_finished", {"hand": hands[0]}, 6)))  # the same hand again: hand 2?
    status, answer = await post(linked, encode(again))
    assert status == 422
    assert answer["field"] == "data.hand"


async def test_events_arriving_together_are_taken_together_and_one_refused_spoils_none(started: Linked) -> None:
    linked = started
    other = linked.table(701, ("jelena", "zoran", "ivana"))
    await other.step()
    before = await LiveFeedStore(linked.db).event_count()
    bodies = [
        encode(event("player_stood", {"nick": "ana"}, 5)),
        encode(event("player_sat", {"nick": "ana"}, 6)),  # the same game: waits for the one before
        encode(event("korekcija_done", {"hand": 1, "move": 9}, 5, game=701)),  # no such move: refused alone
        encode(event("player_stood", {"nick": "zoran"}, 5, game=701, event_id="z5")),
        encode({"v": 1, "id": "free-1", "type": "offer_made", "data": {"nick": "ana", "offer": "o9"}}),
    ]
    answers = await asyncio.gather(*(post(linked, body) for body in bodies))
    assert [status for status, _ in answers] == [200, 200, 409, 200, 200], answers
    assert answers[2][1]["field"] == "data.move"
    assert await LiveFeedStore(linked.db).event_count() == before + 4
    assert (await linked.get("ana")).seated_game == 700
    assert await LiveFeedStore(linked.db).offers("ana") == ["o9"]
    assert await LiveFeedStore(linked.db).last_seq(701) == 5


async def test_a_body_too_large_is_refused_unread(started: Linked) -> None:
    linked = started
    before = await state(linked)
    body = encode(event("player_stood", {"nick": "ana" + " " * (1 << 20)}, 5))
    status, answer = await post(linked, body)
    assert status == 413
    assert answer["field"] == "body"
    assert await state(linked) == before
