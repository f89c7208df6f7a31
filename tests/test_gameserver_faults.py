"""Faults a real game server makes, and how the bot keeps its state right through them, over loopback HTTP: a
second, conflicting `game_started` refused; offers whose events arrive out of order; an event the bot refused does
not use up its `seq` (the reference game server numbers its events as it writes them and gives a refused one's
number to the next)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from linked import SECRET, Linked, live_game, players_linked

from bot.gameserver import feed as feed_module
from bot.gameserver.protocol import encode, signed_headers
from rules.gamelog import GameStatus, format_time, game_to_doc
from storage.chat_outbox import NewEffect
from storage.games import PreparedGame, canonical_log
from storage.gameserver import Effect, EffectRefused, LiveFeedStore, Taken, TakeResult
from storage.sql import IN_CHUNK, SyncConnection, rows_in


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    async with players_linked(tmp_path) as club:
        yield club


async def post(linked: Linked, doc: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    body = encode(doc)
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            linked.ref.events_url, data=body, headers=signed_headers(SECRET, body, linked.clock.now())
        ) as response,
    ):
        return response.status, await response.json()


def started(number: int, **changes: Any) -> dict[str, Any]:
    doc = game_to_doc(live_game(number, ("ana", "marko", "petar"), 3))
    data = {k: doc[k] for k in ("rated", "ai", "bule", "refe_limit", "players", "started_at")}
    return {**data, **changes}


def event(kind: str, data: dict[str, Any], seq: int, game: int, event_id: str | None = None) -> dict[str, Any]:
    return {"v": 1, "id": event_id or f"f-{game}-{seq}", "type": kind, "game": game, "seq": seq, "data": data}


async def test_a_conflicting_second_game_started_is_refused(linked: Linked) -> None:
    table = linked.table(810)
    await table.step()  # game_started (seq 1) and the three seated (2..4)
    again = event("game_started", started(810, rated=False), 5, 810)
    status, answer = await post(linked, again)
    assert (status, answer["field"]) == (409, "type")
    assert "has started already" in answer["error"]
    same = event("game_started", started(810), 5, 810)  # not even the same one again, under a new seq
    assert (await post(linked, same))[0] == 409
    assert await LiveFeedStore(linked.db).last_seq(810) == 4
    stored = await linked.db.games.get(810)
    assert stored is not None
    assert stored.rated


async def test_a_live_feed_beginning_on_an_imported_game_must_match_it(linked: Linked) -> None:
    game = live_game(811, ("ana", "marko", "petar"), 3)
    imported = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=game.hands[:1])
    await linked.db.games.store([PreparedGame.of(imported)], linked.clock.now())
    for field, value in (("ai", True), ("bule", 98), ("refe_limit", 5), ("players", ["ana", "petar", "marko"])):
        status, answer = await post(linked, event("game_started", started(811, **{field: value}), 1, 811))
        assert (status, answer["field"]) == (409, f"data.{field}"), answer
    later = format_time(imported.started_at.replace(minute=(imported.started_at.minute + 1) % 60))
    status, answer = await post(linked, event("game_started", started(811, started_at=later), 1, 811))
    assert (status, answer["field"]) == (409, "data.started_at")
    assert await LiveFeedStore(linked.db).last_seq(811) == 0
    status, answer = await post(linked, event("game_started", started(811), 1, 811))  # the same game: it begins
    assert status == 200, answer
    assert await linked.db.games.get(811) == imported


async def test_offers_are_ordered_a_withdrawal_before_its_offer_voids_it(linked: Linked) -> None:
    feed = LiveFeedStore(linked.db)

    async def offer(kind: str, name: str, n: int) -> None:
        doc = {"v": 1, "id": f"o-{n}", "type": kind, "data": {"nick": "ana", "offer": name}}
        assert (await post(linked, doc))[0] == 200

    await offer("offer_withdrawn", "late", 1)  # overtook its offer_made
    assert await feed.offers("ana") == []
    await offer("offer_made", "late", 2)
    assert await feed.offers("ana") == []  # void: it was withdrawn already
    await offer("offer_made", "late", 3)  # the same offer made again later: open
    assert await feed.offers("ana") == ["late"]
    await offer("offer_withdrawn", "late", 4)
    await offer("offer_made", "late", 5)  # withdrawn while blocked, made again when unblocked
    assert await feed.offers("ana") == ["late"]
    await offer("offer_made", "other", 6)
    assert await feed.offers("ana") == ["late", "other"]


async def test_a_refused_event_does_not_use_up_its_seq(linked: Linked) -> None:
    table = linked.table(812)
    await table.step()
    assert table.seq == 4
    answer = await table.post("player_sat", {"nick": "jelena"})  # not a player of the game: refused
    assert answer["field"] == "data.nick"
    assert table.seq == 4  # numbered on write, and the number given back: the next event takes seq 5
    for _ in range(3):
        assert await table.step()
    assert all(status == 200 for status, _ in linked.ref.answers[-3:]), linked.ref.answers
    assert await LiveFeedStore(linked.db).last_seq(812) == 7 == table.seq
    assert [doc["seq"] for doc in table.sent] == list(range(1, 8))


async def test_a_game_server_that_keeps_a_refused_seq_is_told_the_gap_and_heals(linked: Linked) -> None:
    """The docs' resync (`409` with `last_seq`, then resend after it) ends: the refused event is no part of it."""
    table = linked.table(813)
    await table.step()
    bad = event("player_sat", {"nick": "jelena"}, 5, 813, "bad-5")
    assert (await post(linked, bad))[0] == 422
    status, answer = await post(linked, event("player_stood", {"nick": "ana"}, 6, 813))  # it used 5 up itself
    assert (status, answer["last_seq"]) == (409, 4)
    status, answer = await post(linked, event("player_stood", {"nick": "ana"}, 5, 813))  # renumbered: taken
    assert status == 200, answer
    assert (await linked.get("ana")).seated_game is None


async def test_a_batch_of_moves_lapses_each_game_s_open_korekcija_once(linked: Linked) -> None:
    """The moves of a batch are written together, after its other events: each game's open korekcija request
    lapses (it is no longer about the last move) and only its parties are told; an event after a move of its own
    game in one batch (a korekcija done) finds that move written."""
    store = LiveFeedStore(linked.db)
    now = linked.clock.now()
    ana = (await linked.get("ana")).id
    tell = NewEffect("korekcija:991", "tell", {"member": ana, "text": "lapsed", "buttons": []})

    def move(event_id: str, game: int, seq: int, n: int, told: Any = None) -> Any:
        return (event_id, "move_played", game, seq, "{}", LiveFeedStore.move(game, 1, n, "ana", "x", now, told))

    assert await store.take_many([move("m1", 991, 1, 1), move("m2", 992, 1, 1), move("m3", 993, 1, 1)], now)
    requests = {}
    for game in (991, 992, 993):
        last = await store.last_move(game)
        assert last is not None
        requests[game] = await store.request_korekcija(last, ana, now)
    before = await outbox_rows(linked)
    results = await store.take_many(
        [
            move("m4", 991, 2, 2, {requests[991]: [tell]}),
            move("m5", 992, 2, 2),
            move("m6", 993, 2, 2),
            ("d7", "korekcija_done", 993, 3, "{}", LiveFeedStore.undone(993, 1, 2, now)),  # the move just taken
        ],
        now,
    )
    assert [r.taken for r in results if isinstance(r, TakeResult)] == [Taken.ACCEPTED] * 4
    states = {game: (await store.korekcija(request)) for game, request in requests.items() if request}
    assert {game: k.state.value for game, k in states.items() if k} == {991: "lapsed", 992: "lapsed", 993: "lapsed"}
    assert await outbox_rows(linked) == before + 1  # the one request told of gets its one message
    last = await store.last_move(993)
    assert last is not None
    assert last.move == 1  # move 2 was written, then taken back


async def outbox_rows(linked: Linked) -> int:
    rows = await linked.db.connection.execute_fetchall("SELECT count(*) FROM chat_outbox", ())
    return int(next(iter(rows))[0])


async def test_one_batch_answers_each_event_as_if_taken_one_by_one(linked: Linked) -> None:
    """`LiveFeedStore.take_many` reads the ids taken and the games' last numbers once per batch: an event taken
    earlier in the same batch is a duplicate (or an id reused), the next number of a game follows the events the
    batch took before it, and a refused effect is rolled back alone, leaving its id and its number unused."""
    store = LiveFeedStore(linked.db)
    now = linked.clock.now()

    def refused(conn: SyncConnection) -> None:
        LiveFeedStore.offer("ana", "written-then-refused", True, now).run(conn)
        raise EffectRefused("data", "refused after writing")

    def event(event_id: str, seq: int, effect: Effect | None = None, body: str = "") -> Any:
        return (event_id, "player_sat", 990, seq, body or f'{{"id":"{event_id}"}}', effect)

    results = await store.take_many(
        [
            event("a", 1),
            event("b", 2),  # the same game twice in one batch: after the first
            event("a", 1),  # taken in this batch: a duplicate
            event("a", 1, body='{"id":"a","other":1}'),  # its id with another body
            event("c", 4),  # a gap: the game is at 2
            event("d", 3, refused),  # rolled back alone
            event("e", 3),  # the refused event left 3 unused
            event("d", 4),  # and its id untaken
            ("f", "offer_made", None, None, '{"id":"f"}', LiveFeedStore.offer("ana", "kept", True, now)),
        ],
        now,
    )
    assert [r.taken if isinstance(r, TakeResult) else "refused" for r in results] == [
        Taken.ACCEPTED,
        Taken.ACCEPTED,
        Taken.DUPLICATE,
        Taken.ID_REUSED,
        Taken.GAP,
        "refused",
        Taken.ACCEPTED,
        Taken.ACCEPTED,
        Taken.ACCEPTED,
    ]
    assert [r.last_seq for r in results if isinstance(r, TakeResult)] == [1, 2, 2, 2, 2, 3, 4, 0]
    assert await store.offers("ana") == ["kept"]  # the refused event's write rolled back, the next one's kept
    assert await store.last_seq(990) == 4
    again = await store.take_many([event("b", 2), event("g", 5)], now)  # a later batch reads what this one took
    assert again == [TakeResult(Taken.DUPLICATE, 4), TakeResult(Taken.ACCEPTED, 5)]
    assert await store.event_count() == 6


async def test_a_batch_of_more_keys_than_one_statement_takes_is_read_in_parts(linked: Linked) -> None:
    """`storage.sql.rows_in` (the taken ids, the import's digests and spellings): more keys than one statement
    carries (`IN_CHUNK`), some given twice, are asked in parts and every row is found once."""
    now = linked.clock.now()
    count = IN_CHUNK * 2 + 7
    events = [(f"many-{i}", "offer_made", None, None, f'{{"i":{i}}}', None) for i in range(count)]
    assert {r.taken for r in await LiveFeedStore(linked.db).take_many(events, now) if isinstance(r, TakeResult)} == {
        Taken.ACCEPTED
    }
    keys = [f"many-{i}" for i in range(count)] + ["many-0", "many-1", "not-taken"]
    rows = await linked.db.run_transaction(
        lambda conn: rows_in(conn, "SELECT id, body FROM gs_events WHERE id IN ({marks})", keys)
    )
    assert sorted(str(row[0]) for row in rows) == sorted(f"many-{i}" for i in range(count))


async def test_a_game_read_for_its_first_event_holds_back_its_own_events_only(
    linked: Linked, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first event of a game the feed has not cached (an imported game, or any after a restart) reads the game
    beside the feed, parsed in a worker thread: the other tables' events are taken meanwhile, and that game's own
    events wait, in order, until it is read."""
    game = live_game(820, ("ana", "marko", "petar"), 3)
    stored = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None)
    assert (await linked.db.games.store([PreparedGame.of(stored)], linked.clock.now())).imported == 1
    feed = linked.link.feed
    assert (await feed.apply(encode(event("game_started", started(820), 1, 820))))[0] == 200
    assert (await feed.apply(encode(event("game_started", started(821), 1, 821))))[0] == 200
    reading, release = threading.Event(), threading.Event()
    real = feed_module.game_document

    def slow(parts: Any) -> Any:
        reading.set()
        assert release.wait(30)
        return real(parts)

    monkeypatch.setattr(feed_module, "game_document", slow)
    first = asyncio.create_task(feed.apply(encode(event("player_sat", {"nick": "ana"}, 2, 820))))
    second = asyncio.create_task(feed.apply(encode(event("player_sat", {"nick": "marko"}, 3, 820))))
    assert await asyncio.to_thread(reading.wait, 30)
    other = await feed.apply(encode(event("player_sat", {"nick": "ana"}, 2, 821)))
    assert other == (200, {"ok": True, "last_seq": 2})  # taken while game 820 is being read
    assert not first.done()
    assert not second.done()
    release.set()
    assert await first == (200, {"ok": True, "last_seq": 2})
    assert await second == (200, {"ok": True, "last_seq": 3})  # after the first, in order
    assert await LiveFeedStore(linked.db).last_seq(820) == 3


async def test_a_long_games_first_events_wait_for_its_head_not_its_hands(
    linked: Linked, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live feed beginning on a long imported game: its game_started is checked against the game's columns (the
    log is not read), its seats and moves against the game's head as soon as that is read beside the feed (while
    its hands are still being parsed), and only its finished hand waits for the hands; the game is read once, and
    the hand stored after it makes the game's canonical log."""
    game = live_game(830, ("ana", "marko", "petar"), 12)
    stored = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=game.hands[:10])
    assert (await linked.db.games.store([PreparedGame.of(stored)], linked.clock.now())).imported == 1
    feed = linked.link.feed
    reads: list[int] = []
    real_parts, real_get = linked.db.games.parts, linked.db.games.get

    async def parts(number: int) -> list[tuple[int, bytes]]:
        reads.append(number)
        return await real_parts(number)

    async def get(number: int) -> Any:
        reads.append(number)
        return await real_get(number)

    monkeypatch.setattr(linked.db.games, "parts", parts)
    monkeypatch.setattr(linked.db.games, "get", get)
    assert await feed.apply(encode(event("game_started", started(830), 1, 830))) == (200, {"ok": True, "last_seq": 1})
    assert reads == []  # the game's columns told what game_started is checked against
    parsing, release = threading.Event(), threading.Event()
    real_parse = feed_module.parse_game

    def slow(doc: Any) -> Any:
        if doc["hands"]:  # the hands parsed (the head is read without them)
            parsing.set()
            assert release.wait(30)
        return real_parse(doc)

    monkeypatch.setattr(feed_module, "parse_game", slow)
    assert (await feed.apply(encode(event("player_sat", {"nick": "ana"}, 2, 830))))[0] == 200
    assert await asyncio.to_thread(parsing.wait, 30)
    moves = [
        event("move_played", {"hand": 11, "move": n, "player": "marko", "what": "pass"}, 2 + n, 830) for n in (1, 2)
    ]
    # answered while the game's hands are being parsed
    assert [(await feed.apply(encode(doc)))[0] for doc in moves] == [200, 200]
    assert not release.is_set()
    doc = game_to_doc(game)["hands"][10]
    hand = asyncio.create_task(feed.apply(encode(event("hand_finished", {"hand": doc}, 5, 830))))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not hand.done()  # the hand waits for the game's hands
    release.set()
    assert await hand == (200, {"ok": True, "last_seq": 5})
    assert reads == [830]  # read once, beside the feed
    grown = await real_get(830)
    assert grown is not None
    assert grown.hands == game.hands[:11]
    expected = canonical_log(replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=game.hands[:11]))[0]
    assert await LiveFeedStore(linked.db).digest(830) == expected
    last = game_to_doc(game)["hands"][11]
    assert await feed.apply(encode(event("hand_finished", {"hand": last}, 6, 830))) == (
        200,
        {"ok": True, "last_seq": 6},
    )
