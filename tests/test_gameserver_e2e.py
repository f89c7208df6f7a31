"""The bot and the reference game server over loopback HTTP: seating feeds the lobby, an in-game trial pauses the
real table, an administrator's close interrupts the trial, offers are cancelled and restored, korekcija, and a
link code delivered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from linked import Linked, make_linked

import rules.paper
from bot.commands import Commands
from club import database_for
from rules.gamelog import GameStatus
from rules.verdicts import Draft, NoVerdict
from storage.gameserver import LiveFeedStore


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        yield club
    finally:
        await club.close()


async def players(club: Linked) -> None:
    for nick in ("ana", "marko", "petar", "jelena", "zoran"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("sudija2", "referee")


async def test_seating_feeds_the_lobby_and_a_seated_referee_gets_no_call(linked: Linked) -> None:
    await players(linked)
    own = linked.table(500, ("sudija1", "jelena", "zoran"))
    await own.step()  # started, the three sat
    assert (await linked.get("sudija1")).seated_game == 500
    table = linked.table(501)
    await table.step()
    for _ in range(4):
        await table.step()
    ana = await linked.get("ana")
    assert ana.seated_game == 501
    reply = await linked.desk.calls.call(ana, None)  # /sudija at a table reaches that table's game
    assert reply.ok, reply.text
    call = await linked.db.calls.pending_for_game(501)
    assert call is not None
    assert call.in_game
    posted = linked.chat.of("post")[-1]
    assert posted.mention == ("sudija2",)  # sudija1 is seated at table 500: no call for him
    while await own.step():  # his game goes to its end; the players stand up
        pass
    assert (await linked.get("sudija1")).seated_game is None
    offered = [s for s in linked.chat.to("dm:sudija1") if any(b.action == "take" for b in s.buttons)]
    assert offered, "a referee who stood up finds the pending call"


async def test_an_in_game_trial_pauses_the_real_table_and_resumes_it(linked: Linked) -> None:
    await players(linked)
    table = linked.table(502)
    for _ in range(3):
        await table.step()
    ana = await linked.get("ana")
    assert (await linked.desk.calls.call(ana, None)).ok
    call = await linked.db.calls.pending_for_game(502)
    assert call is not None
    assert (await linked.desk.trials.take(await linked.get("sudija1"), call.id)).ok
    assert await linked.flush() == 1
    assert table.paused
    assert "[server] pause_table 502" in linked.told
    moves = table.move
    assert not await table.step()
    assert table.move == moves
    bez = Draft(NoVerdict(), "nema osnova")
    assert (await linked.desk.draft(await linked.get("sudija1"), bez)).ok  # Bez presude, with its reason
    assert (await linked.desk.finish(await linked.get("sudija1"))).ok
    await linked.flush()
    assert not table.paused
    assert await table.step()
    assert table.move == moves + 1
    assert [kind for _, kind, _ in linked.ref.received] == ["pause_table", "resume_table"]


async def test_the_administrator_closing_the_game_interrupts_its_trial(linked: Linked) -> None:
    await players(linked)
    table = linked.table(503)
    while table.hand < 1:  # the first hand is played and finished
        await table.step()
    game = await linked.db.games.get(503)
    assert game is not None
    assert len(game.hands) == 1
    assert (await linked.desk.calls.call(await linked.get("marko"), None)).ok
    call = await linked.db.calls.pending_for_game(503)
    assert call is not None
    referee = await linked.get("sudija1")
    assert (await linked.desk.trials.take(referee, call.id)).ok
    await linked.flush()
    from rules.verdicts import BulaChange, Draft  # noqa: PLC0415 (imported where the test needs it)

    drafted = await linked.desk.draft(referee, Draft(BulaChange({"ana": 2}, None), "test"))
    assert drafted.ok, drafted.text
    await table.admin_close()
    trial = (await linked.db.trials.for_game(503))[0]
    assert trial.outcome == "interrupted"
    assert trial.end_reason == "game_closed"
    assert await linked.db.paper_changes.for_game(503) == []  # the draft is dropped, nothing recorded
    assert not (await linked.desk.finish(referee)).ok
    game = await linked.db.games.get(503)
    assert game is not None
    assert game.status.value == "interrupted"
    assert (await linked.get("ana")).seated_game is None


async def test_the_callers_offers_are_cancelled_for_an_out_of_game_trial_and_restored(linked: Linked) -> None:
    await players(linked)
    table = linked.table(504, hands=2)
    while await table.step():
        pass
    feed = LiveFeedStore(linked.db)
    assert await linked.ref.make_offer("ana", "offer-1")
    assert await feed.offers("ana") == ["offer-1"]
    assert (await linked.desk.calls.call(await linked.get("ana"), 504)).ok
    call = await linked.db.calls.pending_for_game(504)
    assert call is not None
    assert not call.in_game
    assert (await linked.desk.trials.take(await linked.get("sudija1"), call.id)).ok
    await linked.flush()
    assert await feed.offers("ana") == []  # withdrawn by the game server, and told back to the bot
    assert not await linked.ref.make_offer("ana", "offer-2")  # blocked meanwhile
    bez = Draft(NoVerdict(), "nema osnova")
    assert (await linked.desk.draft(await linked.get("sudija1"), bez)).ok  # Bez presude, with its reason
    assert (await linked.desk.finish(await linked.get("sudija1"))).ok
    await linked.flush()
    assert await feed.offers("ana") == ["offer-1"]
    assert await linked.ref.make_offer("ana", "offer-2")


async def test_a_link_code_is_delivered_and_an_issued_code_is_used_once(linked: Linked) -> None:
    await linked.desk.deps.game_server.deliver_link_code("ana", "K7Q2PX")
    await linked.flush()
    assert linked.ref.shown_codes["ana"] == "K7Q2PX"
    await linked.ref.issue_link_code("marko", "ZX81AB")
    await linked.ref.issue_link_code("marko", "ZX81AB")  # the same code posted again: still one use
    desk = linked.desk
    # A code the game server issued proves the nickname as a code the bot asked for: no request made first.
    assert not (await desk.links.ask_link("test", "ana-acct", "Ana", "ana", "ZX81AB")).ok  # marko's code, not ana's
    proven = await desk.links.ask_link("test", "marko-acct", "Marko", "marko", "ZX81AB")
    assert proven.ok, proven.text
    marko = await linked.get("marko")
    assert marko.accounts == {"test:marko-acct"}
    # Used once: on another platform the same code proves nothing.
    again = await desk.links.ask_link("telegram", "77", "Marko", "marko", "ZX81AB")
    assert not again.ok
    assert (await linked.get("marko")).accounts == {"test:marko-acct"}
    # It proves for CODE_MINUTES from when the bot took it.
    await linked.ref.issue_link_code("petar", "PQ4455")
    linked.clock.advance(timedelta(minutes=10, seconds=1))
    late = await desk.links.ask_link("test", "petar-acct", "Petar", "petar", "PQ4455")
    assert not late.ok
    assert "istekao" in late.text


async def seated_move(linked: Linked, number: int) -> tuple[Commands, str]:
    """A table where a move was just played; the nickname of whoever played it."""
    table = linked.table(number)
    await table.step()
    await table.step()  # the first move of hand 1
    game = table.game
    last = await LiveFeedStore(linked.db).last_move(number)
    assert last is not None
    assert last.move == 1
    assert last.player in game.players
    return Commands(linked.desk), last.player


async def test_korekcija_with_both_consents_takes_the_move_back(linked: Linked) -> None:
    await players(linked)
    commands, mover = await seated_move(linked, 505)
    table = linked.ref.tables[505]
    others = [n for n in table.game.players if n != mover]
    asked = await commands.handle(await linked.get(mover), "/korekcija")
    assert asked is not None, asked.text
    assert asked.ok, asked.text
    prompt = linked.chat.to(f"dm:{others[0]}")[-1]
    assert {b.action for b in prompt.buttons} == {"korekcija_yes", "korekcija_no"}
    first = await linked.desk.press(await linked.get(others[0]), "korekcija_yes", prompt.buttons[0].ref)
    assert first.ok, first.text
    assert await linked.flush() == 0  # one consent is not enough
    second = await commands.handle(await linked.get(others[1]), "/korekcija da")
    assert second is not None, second.text
    assert second.ok, second.text
    assert await linked.flush() == 1
    assert table.move == 0  # the game server took it back and said so
    assert [kind for _, kind, _ in linked.ref.received] == ["undo_move"]
    assert any("vraćen" in s.text for s in linked.chat.to(f"dm:{mover}"))
    assert await LiveFeedStore(linked.db).last_move(505) is None


async def test_korekcija_refused_asked_twice_too_late_or_without_a_link(linked: Linked, tmp_path: Path) -> None:
    await players(linked)
    commands, mover = await seated_move(linked, 506)
    table = linked.ref.tables[506]
    others = [n for n in table.game.players if n != mover]
    assert (await commands.handle(await linked.get(mover), "/korekcija")).ok  # type: ignore[union-attr]
    refused = await commands.handle(await linked.get(others[0]), "/korekcija ne")
    assert refused is not None
    assert refused.ok
    assert any("ne slaže" in s.text for s in linked.chat.to(f"dm:{mover}"))
    late = await commands.handle(await linked.get(others[1]), "/korekcija da")
    assert late is not None
    assert not late.ok
    again = await commands.handle(await linked.get(mover), "/korekcija")
    assert again is not None
    assert not again.ok
    assert "samo jednom" in again.text
    await table.step()  # the next move
    moved = await LiveFeedStore(linked.db).last_move(506)
    assert moved is not None
    assert moved.player != mover  # the auction's turns go round the table
    after = await commands.handle(await linked.get(mover), "/korekcija")
    assert after is not None
    assert not after.ok
    assert "više nije poslednji" in after.text
    nobody_asked = await commands.handle(await linked.get(mover), "/korekcija da")
    assert nobody_asked is not None
    assert not nobody_asked.ok
    assert await linked.flush() == 0
    assert linked.ref.received == []
    # A request that is pending when the next move comes lapses: the consent then comes too late.
    request = await commands.handle(await linked.get(moved.player), "/korekcija")
    assert request is not None, request.text
    assert request.ok, request.text
    await table.step()
    other = next(n for n in table.game.players if n != moved.player)
    lapsed = await commands.handle(await linked.get(other), "/korekcija da 2")
    assert lapsed is not None
    assert not lapsed.ok
    assert "više ne važi" in lapsed.text
    # The hand over: nothing to take back.
    while table.hand == 0:
        await table.step()
    ended = await commands.handle(await linked.get(mover), "/korekcija")
    assert ended is not None
    assert not ended.ok
    assert "nema ruke u toku" in ended.text.casefold()


async def test_korekcija_without_a_game_server_is_refused(tmp_path: Path) -> None:
    from club import make_club  # noqa: PLC0415 (imported where the test needs it)

    club = await make_club(tmp_path)
    try:
        ana = await club.member("ana")
        await club.game(600, ended_ago=None, status=GameStatus.IN_PROGRESS)
        reply = await Commands(club.desk).handle(ana, "/korekcija 600")
        assert reply is not None
        assert not reply.ok
        assert "nije povezan" in reply.text
    finally:
        await club.db.close()


async def test_the_server_down_then_up_gets_every_command_in_order_per_table(linked: Linked) -> None:
    await players(linked)
    for number in (507, 508):
        table = linked.table(number)
        await table.step()
    await linked.ref_server.runner.cleanup()  # the game server goes down
    server = linked.desk.deps.game_server
    for _ in range(2):
        for number in (507, 508):
            await server.pause_table(number)
            await server.resume_table(number)
    assert await linked.flush() == 0
    pending = await linked.link.worker.store.listing("pending")
    assert len(pending) == 8
    assert all(
        c.attempts == 0
        for c in pending
        if c.queue == "game:507" and c.id != min(p.id for p in pending if p.queue == "game:507")
    )
    due = await linked.link.worker.store.due(linked.clock.now() + timedelta(hours=1))  # each queue in order
    heads = [c for c in due if c.id == min(d.id for d in due if d.queue == c.queue)]
    assert {c.attempts for c in heads} == {1}
    assert len(heads) == 2
    linked.clock.advance(timedelta(milliseconds=400))
    assert await linked.flush() == 0  # backoff not over (at least half of 1 s)
    linked.ref_server = TestServer(linked.ref.app(), host="127.0.0.1", port=linked.ref_server.port)
    await linked.ref_server.start_server()  # up again, on the same port
    linked.clock.advance(timedelta(minutes=10))
    assert await linked.flush() == 8
    for number in (507, 508):
        kinds = [k for _, k, d in linked.ref.received if d.get("game") == number]
        assert kinds == ["pause_table", "resume_table"] * 2
    assert len({key for key, _, _ in linked.ref.received}) == 8


async def test_a_refused_command_is_kept_as_a_failure_and_the_queue_goes_on(
    linked: Linked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = linked.desk.deps.game_server
    await server.pause_table(999)  # no such table on the game server: 404
    linked.table(509)
    await linked.ref.tables[509].step()
    await server.pause_table(509)
    assert await linked.flush() == 2
    failed = await linked.link.worker.store.listing("failed")
    assert [c.kind for c in failed] == ["pause_table"]
    assert failed[0].last_error is not None
    assert failed[0].last_error.startswith("404")
    assert linked.ref.tables[509].paused
    from bot.cli import main  # noqa: PLC0415 (imported where the test needs it)

    assert await asyncio.to_thread(main, ["outbox", "--db", str(database_for(tmp_path)), "--failed"]) == 0
    out = capsys.readouterr().out
    assert "pause_table" in out
    assert "404" in out
    assert "999" in out


async def test_in_a_game_with_ai_the_ai_seat_consents(linked: Linked) -> None:
    await players(linked)
    table = linked.table(511, ("ana", "robot_mile", "marko"), ai=True)
    await table.step()
    feed = LiveFeedStore(linked.db)
    while True:
        await table.step()
        last = await feed.last_move(511)
        if last is not None and last.player != "robot_mile":
            break
    human = "marko" if last.player == "ana" else "ana"
    commands = Commands(linked.desk)
    asked = await commands.handle(await linked.get(last.player), "/korekcija")
    assert asked is not None, asked.text
    assert asked.ok, asked.text
    assert await linked.flush() == 0  # the AI agreed at once; the other player has not yet
    agreed = await commands.handle(await linked.get(human), "/korekcija da")
    assert agreed is not None, agreed.text
    assert agreed.ok, agreed.text
    assert await linked.flush() == 1
    assert [k for _, k, _ in linked.ref.received] == ["undo_move"]


async def test_a_hand_is_cross_checked_against_the_kept_scoring_not_the_whole_game_again(
    linked: Linked, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each finished hand of a live game is cross-checked on the paper (`rules.paper.cross_check`) by scoring that
    hand alone: the hands before it keep the scoring the feed computed for them, so a game's hands cost the bot
    one scoring each, not one per hand finished after them (a 200-hand evening would have cost 20,000)."""
    await players(linked)
    scored: list[int] = []
    score = rules.paper.hand_facts
    monkeypatch.setattr(rules.paper, "hand_facts", lambda hand: scored.append(hand.n) or score(hand))
    hands = 12
    table = linked.table(520, hands=hands)
    while table.hand < hands:
        assert await table.step()
    assert sorted(scored) == list(range(1, hands + 1))  # each hand once
    stored = await linked.db.games.get(520)
    assert stored is not None
    assert len(stored.hands) == hands
    assert stored.status is GameStatus.IN_PROGRESS
