"""The call (/sudija), withdrawal, notification, Sudi and expiry, played through the desk."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualTimers
from club import Club, make_club
from rules.gamelog import GameStatus
from storage.calls import AlreadyPending


async def setup_basic(club: Club) -> None:
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("sudija2", "referee")


async def test_call_names_the_game_and_pings_referees_in_the_lobby(club: Club) -> None:
    await setup_basic(club)
    await club.game(100)
    reply = await club.desk.calls.call(await club.get("ana"), 100)
    assert reply.ok
    assert "100" in reply.text
    assert [b.action for b in reply.buttons] == ["withdraw"]
    posts = club.chat.of("post")
    assert len(posts) == 1
    assert posts[0].where == "#referees"
    assert set(posts[0].mention) == {"sudija1", "sudija2"}
    assert posts[0].buttons[0].action == "take"
    # Other members learn nothing.
    assert not [s for s in club.chat.sent if s.where in ("dm:marko", "dm:petar", "dm:jelena")]


async def test_call_without_number_takes_the_last_eligible_game_skipping_unrated_and_ai(club: Club) -> None:
    await setup_basic(club)
    await club.game(100, ended_ago=timedelta(days=2))
    await club.game(101, ended_ago=timedelta(hours=3), rated=False)
    await club.game(102, ("ana", "marko", "AI"), ended_ago=timedelta(hours=2), ai=True)
    reply = await club.desk.calls.call(await club.get("ana"), None)
    assert reply.ok
    assert "100" in reply.text


async def test_call_without_number_at_a_table_is_for_that_table(club: Club) -> None:
    await setup_basic(club)
    await club.game(100)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None)
    ana = await club.get("ana")
    await club.desk.seat(ana, 200)
    reply = await club.desk.calls.call(await club.get("ana"), None)
    assert reply.ok
    assert "200" in reply.text
    assert club.chat.to("table:200")


async def test_every_refusal_says_why(club: Club) -> None:
    await setup_basic(club)
    await club.game(100)
    await club.game(101, rated=False)
    await club.game(102, ("ana", "marko", "AI"), ai=True)
    await club.game(103, ended_ago=timedelta(days=7, minutes=1))
    await club.game(104, ("marko", "petar", "jelena"))
    await club.game(105)
    ana = await club.get("ana")
    expectations = {
        999: "999 ne postoji",
        104: "niste igrali",
        101: "bez rejtinga",
        102: "AI",
        103: "zastarelo",
    }
    for number, words in expectations.items():
        reply = await club.desk.calls.call(ana, number)
        assert not reply.ok, (number, reply.text)
        assert words in reply.text, (number, reply.text)
    too_old = await club.desk.calls.call(ana, 103)
    assert "7 dana 1 minut" in too_old.text
    assert "23.11.2026. 12:59" in too_old.text
    assert (await club.desk.calls.call(ana, 100)).ok
    # A call already pending for the game (from another player), and the caller's own pending call.
    assert "već čeka" in (await club.desk.calls.call(await club.get("marko"), 100)).text
    assert "Već imate poziv" in (await club.desk.calls.call(ana, 105)).text
    assert not club.chat.of("post")[1:]  # no second notification went out


async def test_nothing_eligible_and_denied_right(club: Club) -> None:
    await setup_basic(club)
    jelena = await club.get("jelena")
    assert "Nema partije" in (await club.desk.calls.call(jelena, None)).text
    await club.game(100)
    ana = await club.get("ana")
    until = club.clock.now() + timedelta(days=3)
    await club.db.members.set_call_ban(ana.id, until, None, "često neopravdano zvanje", club.clock.now())
    reply = await club.desk.calls.call(ana, 100)
    assert not reply.ok
    assert "uskraćeno do 3.12.2026. 13:00" in reply.text
    await club.db.members.set_call_ban(ana.id, None, None, "", club.clock.now())
    assert "dok ga većnici" in (await club.desk.calls.call(ana, 100)).text
    await club.advance(timedelta(days=4))
    await club.db.members.lift_call_ban(ana.id, None, "", club.clock.now())


async def test_the_seven_days_do_not_run_while_a_call_is_pending_or_a_trial_is_on(club: Club) -> None:
    await setup_basic(club)
    await club.game(100, ended_ago=timedelta(days=6, hours=23, minutes=58))
    ana = await club.get("ana")
    call = await club.desk.calls.call(ana, 100)
    assert call.ok
    await club.advance(timedelta(minutes=5))  # expires: 5 pending minutes do not count
    assert "Nijedan sudija" in club.chat.to("dm:ana")[-1].text
    # 7 d - 2 min + 5 min of wall time have passed, but only 6 d 23 h 58 min are consumed.
    reply = await club.desk.calls.call(ana, 100)
    assert reply.ok, reply.text
    call_id = (await club.db.calls.pending_by_caller(ana.id)).id  # type: ignore[union-attr]
    taken = await club.desk.trials.take(await club.get("sudija1"), call_id)
    assert taken.ok
    await club.advance(timedelta(hours=5))
    await club.desk.trials.leave(await club.get("sudija1"))
    # The trial lasted 5 hours; the window still has 2 minutes left.
    assert (await club.desk.calls.call(ana, 100)).ok


async def test_withdraw_only_by_the_caller_while_pending(club: Club) -> None:
    await setup_basic(club)
    await club.game(100)
    ana, marko = await club.get("ana"), await club.get("marko")
    await club.desk.calls.call(ana, 100)
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    assert (
        "nije vaš" in (await club.desk.calls.withdraw(marko, call.id)).text.lower()
        or "To nije vaš poziv" in (await club.desk.calls.withdraw(marko, call.id)).text
    )
    assert (await club.desk.calls.withdraw(ana, call.id)).ok
    assert "povučen" in club.chat.notices["m1"]
    assert "već povučen" in (await club.desk.calls.withdraw(ana, call.id)).text
    # The referee who presses later is told the call was withdrawn.
    assert "povučen" in (await club.desk.trials.take(await club.get("sudija1"), call.id)).text


async def test_expiry_tells_the_caller_and_updates_every_copy(club: Club) -> None:
    await setup_basic(club)
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    await club.advance(timedelta(minutes=4, seconds=59))
    assert (await club.db.calls.pending_for_game(100)) is not None
    await club.advance(timedelta(seconds=1))
    assert (await club.db.calls.pending_for_game(100)) is None
    assert "istekao" in club.chat.notices["m1"]
    assert "Nijedan sudija" in club.chat.to("dm:ana")[-1].text
    await club.desk.run_due()  # idempotent
    assert len(club.chat.to("dm:ana")) == 1


async def test_a_referee_who_arrives_during_the_call_gets_it_and_a_judging_one_does_not(club: Club) -> None:
    await setup_basic(club)
    late = await club.member("kasni", "referee", online=False)
    await club.game(100)
    await club.game(101, ("marko", "petar", "jelena"))
    await club.desk.calls.call(await club.get("ana"), 100)
    call_a = await club.db.calls.pending_for_game(100)
    assert call_a is not None
    assert "kasni" not in club.chat.of("post")[0].mention
    await club.desk.trials.take(await club.get("sudija1"), call_a.id)
    # A second call: sudija1 is judging and gets nothing.
    await club.desk.calls.call(await club.get("jelena"), 101)
    assert club.chat.of("post")[-1].mention == ("sudija2",)
    await club.desk.presence(late, True)
    pings = club.chat.to("dm:kasni")
    assert len(pings) == 1
    assert "101" in pings[0].text
    assert pings[0].buttons[0].action == "take"
    await club.desk.presence(await club.get("kasni"), False)
    await club.desk.presence(await club.get("kasni"), True)
    assert len(club.chat.to("dm:kasni")) == 1  # only once per call


async def test_a_referee_who_played_is_not_offered_the_call_and_is_refused(club: Club) -> None:
    await setup_basic(club)
    await club.member("igrac", "referee")
    await club.game(100, ("ana", "igrac", "petar"))
    await club.desk.calls.call(await club.get("ana"), 100)
    assert "igrac" not in club.chat.of("post")[0].mention
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    reply = await club.desk.trials.take(await club.get("igrac"), call.id)
    assert not reply.ok
    assert "učestvovao" in reply.text
    reply = await club.desk.trials.take(await club.get("marko"), call.id)
    assert not reply.ok
    assert "Samo sudije" in reply.text


async def test_fifty_concurrent_presses_make_exactly_one_winner(club: Club) -> None:
    await club.member("ana")
    referees = [await club.member(f"s{i:02d}", "referee") for i in range(50)]
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    replies = await asyncio.gather(*(club.desk.trials.take(r, call.id) for r in referees))
    winners = [r for r in replies if r.ok]
    assert len(winners) == 1
    trials = await club.db.trials.for_game(100)
    assert len(trials) == 1
    winner = await club.db.members.get(trials[0].referee)
    assert winner is not None
    for reply in replies:
        if not reply.ok:
            assert winner.nick in reply.text
    assert winner.nick in club.chat.notices["m1"]


async def test_restart_with_pending_calls_due_and_not_yet_due(tmp_path: Path) -> None:
    first = await make_club(tmp_path)
    await setup_basic(first)
    await first.game(100)
    await first.game(101, ("marko", "petar", "jelena"))
    await first.desk.calls.call(await first.get("ana"), 100)
    first.clock.advance(timedelta(minutes=3))
    await first.desk.calls.call(await first.get("jelena"), 101)
    await first.db.close()  # the bot dies; nothing in memory survives
    second = await make_club(tmp_path)
    second.clock.set(first.clock.now() + timedelta(minutes=2, seconds=30))
    await second.desk.start()
    assert await second.db.calls.pending_for_game(100) is None  # fell due while down: expired at once
    pending = await second.db.calls.pending_for_game(101)
    assert pending is not None
    assert pending.deadline in second.timers.armed
    assert "Nijedan sudija" in second.chat.to("dm:ana")[-1].text
    # The surviving call can still be taken after the restart.
    assert (await second.desk.trials.take(await second.get("sudija1"), pending.id)).ok
    await second.db.close()


async def test_two_bot_processes_on_one_database_still_make_one_winner(tmp_path: Path) -> None:
    """The winner is decided by SQLite, not by memory: two desks (two connections) press at once."""
    first = await make_club(tmp_path)
    await first.member("ana")
    a = await first.member("sudija1", "referee")
    b = await first.member("sudija2", "referee")
    await first.game(100)
    await first.desk.calls.call(await first.get("ana"), 100)
    call = await first.db.calls.pending_for_game(100)
    assert call is not None
    second = await make_club(tmp_path)
    replies = await asyncio.gather(first.desk.trials.take(a, call.id), second.desk.trials.take(b, call.id))
    assert sorted(r.ok for r in replies) == [False, True]
    assert len(await first.db.trials.for_game(100)) == 1
    await second.db.close()
    await first.db.close()


async def test_a_referee_seated_at_a_table_in_progress_is_not_in_the_lobby(club: Club) -> None:
    await setup_basic(club)
    await club.member("zauzet", "referee")
    await club.game(100)
    await club.game(300, ("zauzet", "marko", "petar"), status=GameStatus.IN_PROGRESS, ended_ago=None)
    await club.desk.calls.call(await club.get("ana"), 100)
    assert "zauzet" not in club.chat.of("post")[0].mention
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    assert "Sedite za stolom" in (await club.desk.trials.take(await club.get("zauzet"), call.id)).text


async def test_a_referee_freed_in_a_process_without_platforms_is_offered_the_call_by_the_one_with_them(
    club: Club,
) -> None:
    """Several processes on PostgreSQL: the private copy goes through the chat outbox, so whichever process saw
    him arrive, the process holding the platforms shows it (once), and it is edited with the channel's notice."""
    await setup_basic(club)
    late = await club.member("kasni", "referee", online=False)
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    elsewhere = Desk(club.db, Chats([]), LoggingGameServer(), club.clock, club.desk.config, ManualTimers())
    await elsewhere.presence(late, True)  # seen by a process waiting for the gateway: nothing shown there
    await elsewhere.presence(await club.get("kasni"), True)
    assert club.chat.to("dm:kasni") == []
    await club.desk.delivery.deliver_effects()  # the process holding the platforms, woken by the commit
    offered = club.chat.to("dm:kasni")
    assert len(offered) == 1
    assert "100" in offered[0].text
    assert offered[0].buttons[0].action == "take"
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("kasni"), call.id)).ok
    assert [s.where for s in club.chat.of("edit")].count("dm:kasni") == 1  # his copy edited with the others


async def call_statements(club: Club, game: int, caller: str) -> list[str]:
    """The statements one /sudija sends the database (`Database.statements_sent`), the call and its delivery."""
    await club.member(caller)
    await club.game(game, (caller, "marko", "petar"))
    member = await club.get(caller)
    async with club.db.statements_sent() as sent:
        reply = await club.desk.calls.call(member, game)
    assert reply.ok, reply.text
    return list(sent)


async def test_a_call_sends_the_same_few_statements_however_many_referees_it_pings(club: Club, backend: str) -> None:
    """What a /sudija asks of the database does not grow with the lobby: the referees are read in one statement
    and their pings written in one, the call's checks each one statement, its row, event and effects in one
    transaction. On PostgreSQL each statement is a round trip to the server."""
    await setup_basic(club)
    few = await call_statements(club, 100, "prvi")
    for i in range(10):
        await club.member(f"sudija{i + 3}", "referee")
    many = await call_statements(club, 101, "drugi")
    assert len(club.chat.of("post")[-1].mention) == 12
    assert len(many) == len(few), "\n".join(many)
    assert len(many) <= {"sqlite": 24, "postgresql": 23}[backend], "\n".join(many)
    # The call, its event and its effects (the notice, with every referee's ping in it) commit together.
    insert = next(i for i, s in enumerate(many) if s.startswith("INSERT INTO calls"))
    begin = max(i for i, s in enumerate(many[:insert]) if s.startswith("BEGIN"))
    commit = insert + next(i for i, s in enumerate(many[insert:]) if s.rstrip().endswith("COMMIT"))
    written = [s.split("(")[0].strip() for s in many[begin + 1 : commit]]
    assert written == ["INSERT INTO calls", "INSERT INTO events", "INSERT INTO chat_outbox"], written


async def test_what_stands_in_a_calls_way_is_read_in_one_statement_and_checked_again_by_its_insert(
    club: Club,
) -> None:
    """`CallStore.in_the_way` reads the game's pending call, its open trial and the caller's pending call at once;
    the call's insert itself refuses a game whose trial opened after those checks, writing nothing."""
    await setup_basic(club)
    await club.game(100)
    await club.game(101, ("jelena", "marko", "petar"))
    ana, jelena, marko = await club.get("ana"), await club.get("jelena"), await club.get("marko")
    assert (await club.desk.calls.call(ana, 100)).ok
    assert (await club.desk.calls.call(jelena, 101)).ok
    first = await club.db.calls.pending_for_game(100)
    second = await club.db.calls.pending_for_game(101)
    assert first is not None
    assert second is not None
    async with club.db.statements_sent() as sent:
        seen = await club.db.calls.in_the_way(100, jelena.id)
    assert len(sent) == 1
    assert (seen.game_call, seen.trial_open, seen.callers_call) == (first, False, second)
    assert (await club.desk.trials.take(await club.get("sudija1"), first.id)).ok
    seen = await club.db.calls.in_the_way(100, marko.id)
    assert (seen.game_call, seen.trial_open, seen.callers_call) == (None, True, None)
    effects = await club.db.connection.execute_fetchall("SELECT count(*) FROM chat_outbox")
    with pytest.raises(AlreadyPending):
        await club.db.calls.create(100, marko.id, False, club.clock.now(), club.clock.now() + timedelta(minutes=5))
    assert [c.id for c in await club.db.calls.for_game(100)] == [first.id]
    assert await club.db.connection.execute_fetchall("SELECT count(*) FROM chat_outbox") == effects
