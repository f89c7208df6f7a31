"""The chat outbox for the players' corrections, Promeni's line, a pending call's copy offered to a referee or
councilor who becomes eligible, and a korekcija's line to the table: one crash test per decision.

Each test plays its act twice. First on a reference club (an SQLite file of its own, no crash): what its members
and its table are told there is what they must be told. Then on the test's backend with the process dead right
after the act's commit: nothing reaches a platform, the act's effects wait as rows (one per message); a new
desk's start delivers exactly the reference's messages, in its order, with its buttons; a second restart
delivers nothing again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import pytest
from test_chat_outbox import crash_after_commit, pending, restart
from test_corrections import PLAYERS, Fall, fake_arbitar, fall_game, feed_next_hand, join, transfer

from bot import chat_outbox as effect
from bot.chat_outbox import SERVER
from bot.config import ArbitarConfig, Config
from bot.console.adapter import ConsoleChat
from bot.desk import Desk
from bot.gameserver.korekcija import korekcija_of
from bot.gameserver.protocol import Event
from bot.messages import Catalogue
from bot.ports import CallPost, Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW, Club, database_for, make_club
from fakes.chat import RecordingChat, Sent, by_place
from rules.gamelog import GameStatus
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.members import Member
from storage.states import CorrectionKind, OutboxState

T = TypeVar("T")
Act = Callable[[Club], Awaitable[object]]
Setup = Callable[[Club], Awaitable[tuple[T, Act]]]


async def reference_club(tmp_path: Path) -> Club:
    """A club like `make_club`'s on an SQLite file of its own, whatever the test's backend."""
    config = Config(arbitar=ArbitarConfig(workers=0))  # as `make_club`: the tests' Arbitar in a thread
    db = await open_database(tmp_path / "reference.db")
    chat = RecordingChat()
    clock = ManualClock(NOW)
    timers = ManualTimers()
    server = LoggingGameServer()
    desk = Desk(db, Chats([chat]), server, clock, config, timers)
    await desk.start()
    return Club(db, desk, chat, clock, timers, server, config)


async def delivered_once_after_a_crash(tmp_path: Path, setup: Setup[T]) -> tuple[list[Sent], Club, T]:
    """What the act tells without a crash; and, the process dead after its commit, that the restart tells exactly
    that, once. Returns the messages, the club after a second restart (still open) and what `setup` made."""
    reference = await reference_club(tmp_path)
    _, act = await setup(reference)
    start = len(reference.chat.sent)
    await act(reference)
    expected = reference.chat.sent[start:]
    await reference.db.close()
    assert expected, "the act tells somebody"

    club = await make_club(tmp_path)
    made, act = await setup(club)
    await crash_after_commit(club)
    start = len(club.chat.sent)
    await act(club)
    assert club.chat.sent[start:] == []  # the crash came first: nobody was told
    # Every message a row of the act's commit (and so is what the game server is told: tests/test_outbox_game_server).
    rows = await ChatOutboxStore(club.db).listing(OutboxState.PENDING)
    assert len([r for r in rows if r.kind != SERVER]) == len(expected)

    after = await restart(club, tmp_path)
    assert by_place(after.chat.sent) == by_place(expected)  # each place's in order, all once
    assert await pending(after) == 0
    assert (await ChatOutboxStore(after.db).counts()).get("failed", 0) == 0
    again = await restart(after, tmp_path)
    assert again.chat.sent == []  # delivered once: a second restart says nothing again
    return expected, again, made


async def as_member(club: Club, nick: str, act: Callable[[Member], Awaitable[object]]) -> object:
    return await act(await club.get(nick))


def shown(sent: list[Sent]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(s.kind, s.where, tuple(b.action for b in s.buttons)) for s in sent]


def seats(fall: Fall, *but: str) -> list[str]:
    """The game's players in seat order, but `but`."""
    return [nick for nick in fall.game.players if nick not in but]


async def corrections_game(club: Club) -> Fall:
    fall = await fall_game(club)
    await join(club, *PLAYERS)
    return fall


async def request_id(club: Club, fall: Fall, kind: str) -> int:
    request = await club.desk.corrections.corrections_store.pending(fall.game.number, fall.hand, kind)
    assert request is not None
    return request.id


# Odlazak u bulu umesto drugog -----------------------------------------------------------------------------------


async def test_an_odlazak_committed_then_a_crash_tells_the_players_and_the_table_after_the_restart(
    tmp_path: Path,
) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.go_into_bula(m, fall.hand))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    game = fall.game.number
    assert shown(told) == [
        *[
            ("tell", f"dm:{nick}", ("cancel_change",) if nick == fall.fallen else ())
            for nick in seats(fall, fall.other)
        ],
        ("table", f"table:{game}", ()),
    ]
    text = club.desk.t("correction.odlazak_done", nick=fall.other, fallen=fall.fallen, hand=fall.hand, game=game)
    assert {s.text for s in told} == {text}
    change = (await club.db.paper_changes.rows(game))[0]
    assert [b.ref for s in told for b in s.buttons] == [change.id]  # the Poništi button names the change
    await club.db.close()


async def test_the_lapses_an_odlazak_causes_are_written_with_it_and_told_first(tmp_path: Path) -> None:
    """A pending Ispravka of the fallen player lapses in the odlazak's own transaction; its words come first."""

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.propose_ispravka(await club.get(fall.fallen), fall.hand)).ok
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.go_into_bula(m, fall.hand))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    n, game = fall.hand, fall.game.number
    why = club.desk.t("correction.lapsed_moved", hand=n)
    lapsed = club.desk.t("correction.ispravka_lapsed", hand=n, why=why)
    done = club.desk.t("correction.odlazak_done", nick=fall.other, fallen=fall.fallen, hand=n, game=game)
    assert [s.text for s in told] == [lapsed] * 4 + [done] * 3  # three players and the table, then two and it
    requests = await club.desk.corrections.corrections_store.for_game(game, n)
    assert [(r.kind, r.state) for r in requests] == [(CorrectionKind.ISPRAVKA, "lapsed")]
    await club.db.close()


async def test_a_cancelled_odlazak_committed_then_a_crash_is_told_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.go_into_bula(await club.get(fall.other), fall.hand)).ok
        return fall, lambda c: as_member(c, fall.fallen, lambda m: c.desk.corrections.cancel(m, fall.hand))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    game = fall.game.number
    assert shown(told) == [
        *[("tell", f"dm:{nick}", ()) for nick in seats(fall, fall.fallen)],
        ("table", f"table:{game}", ()),
    ]
    cancelled = club.desk.t("correction.odlazak_cancelled", nick=fall.fallen, hand=fall.hand, game=game)
    assert {s.text for s in told} == {cancelled}
    assert await club.db.paper_changes.for_game(game) == []
    await club.db.close()


# The Arbitar ------------------------------------------------------------------------------------------------------


async def test_an_arbitar_offer_committed_then_a_crash_asks_the_other_defender_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        return fall, lambda c: as_member(c, fall.fallen, lambda m: c.desk.corrections.offer_arbitar(m, fall.hand))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    assert shown(told) == [
        *[
            ("tell", f"dm:{nick}", ("consent", "decline") if nick == fall.other else ())
            for nick in seats(fall, fall.fallen)
        ],
        ("table", f"table:{fall.game.number}", ()),
    ]
    request = (await club.desk.corrections.corrections_store.for_game(fall.game.number))[0]
    assert {b.ref for s in told for b in s.buttons} == {request.id}
    await club.db.close()


async def test_an_arbitar_refusal_committed_then_a_crash_tells_the_offerer_with_the_hint_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.offer_arbitar(await club.get(fall.fallen), fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ARBITAR)
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.answer(m, request, False))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    refused = club.desk.t("correction.arbitar_refused", nick=fall.other, hand=fall.hand)
    hint = club.desk.t("correction.may_call_referee", game=fall.game.number)
    assert [(s.where, s.text) for s in told] == [
        (f"dm:{fall.declarer}", refused),
        (f"table:{fall.game.number}", refused),
        (f"dm:{fall.fallen}", refused + "\n" + hint),
    ]
    # His no and the refusal it makes were one write: both stand after the crash.
    request = (await club.desk.corrections.corrections_store.for_game(fall.game.number))[0]
    assert request.state == "refused"
    assert [(a.seat, a.answer) for a in request.answers] == [(fall.game.seat_of(fall.other), "no")]
    await club.db.close()


async def test_an_arbitar_verdict_committed_then_a_crash_is_announced_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.offer_arbitar(await club.get(fall.fallen), fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ARBITAR)
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.answer(m, request, True))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    # The one who accepted reads the verdict in his answer; the others and the table are told.
    assert shown(told) == [
        *[("tell", f"dm:{nick}", ()) for nick in seats(fall, fall.other)],
        ("table", f"table:{fall.game.number}", ()),
    ]
    assert all("KS" in s.text for s in told)
    assert (await club.db.paper_changes.rows(fall.game.number))[0].data["arbitar"] is True
    await club.db.close()


async def test_an_arbitar_that_lapsed_on_its_answer_is_told_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.offer_arbitar(await club.get(fall.fallen), fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ARBITAR)
        await feed_next_hand(club, fall.game)  # the next hand ends: the offer has nothing left to decide
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.answer(m, request, True))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    why = club.desk.t("correction.too_late", hand=fall.hand, next=fall.hand + 1)
    lapsed = club.desk.t("correction.arbitar_lapsed", hand=fall.hand, why=why)
    assert [(s.where, s.text) for s in told] == [
        *[(f"dm:{nick}", lapsed) for nick in seats(fall)],
        (f"table:{fall.game.number}", lapsed),
    ]
    await club.db.close()


# Ispravka ---------------------------------------------------------------------------------------------------------


async def test_an_ispravka_proposal_committed_then_a_crash_asks_both_others_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        return fall, lambda c: as_member(
            c, fall.fallen, lambda m: c.desk.corrections.propose_ispravka(m, fall.hand, reason="klik")
        )

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    assert shown(told) == [
        *[("tell", f"dm:{nick}", ("consent", "decline")) for nick in seats(fall, fall.fallen)],
        ("table", f"table:{fall.game.number}", ()),
    ]
    assert all("klik" in s.text for s in told)
    await club.db.close()


async def test_a_consent_noted_then_a_crash_is_told_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.propose_ispravka(await club.get(fall.fallen), fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ISPRAVKA)
        return fall, lambda c: as_member(c, fall.other, lambda m: c.desk.corrections.answer(m, request, True))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    noted = club.desk.t("correction.consent_noted", nick=fall.other, hand=fall.hand, waiting=fall.declarer)
    assert [(s.where, s.text) for s in told] == [
        *[(f"dm:{nick}", noted) for nick in seats(fall, fall.other)],
        (f"table:{fall.game.number}", noted),
    ]
    await club.db.close()


async def test_an_ispravka_applied_then_a_crash_tells_its_lapsed_arbitar_first_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)

    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        fallen = await club.get(fall.fallen)
        assert (await club.desk.corrections.offer_arbitar(fallen, fall.hand)).ok
        assert (await club.desk.corrections.propose_ispravka(fallen, fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ISPRAVKA)
        assert (await club.desk.corrections.answer(await club.get(fall.other), request, True)).ok
        return fall, lambda c: as_member(c, fall.declarer, lambda m: c.desk.corrections.answer(m, request, True))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    n, game = fall.hand, fall.game.number
    why = club.desk.t("correction.lapsed_corrected", hand=n)
    lapsed = club.desk.t("correction.arbitar_lapsed", hand=n, why=why)
    assert [s.text for s in told][:4] == [lapsed] * 4
    assert shown(told)[4:] == [
        *[("tell", f"dm:{nick}", ()) for nick in seats(fall, fall.declarer)],
        ("table", f"table:{game}", ()),
    ]
    assert len({s.text for s in told[4:]}) == 1
    requests = await club.desk.corrections.corrections_store.for_game(game, n)
    assert sorted((r.kind, r.state) for r in requests) == [
        (CorrectionKind.ARBITAR, "lapsed"),
        (CorrectionKind.ISPRAVKA, "applied"),
    ]
    await club.db.close()


async def test_an_ispravka_refused_then_a_crash_is_told_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.propose_ispravka(await club.get(fall.fallen), fall.hand)).ok
        request = await request_id(club, fall, CorrectionKind.ISPRAVKA)
        return fall, lambda c: as_member(c, fall.declarer, lambda m: c.desk.corrections.answer(m, request, False))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    refused = club.desk.t("correction.ispravka_refused", nick=fall.declarer, hand=fall.hand, fallen=fall.fallen)
    assert [(s.where, s.text) for s in told] == [
        *[(f"dm:{nick}", refused) for nick in seats(fall, fall.declarer)],
        (f"table:{fall.game.number}", refused),
    ]
    await club.db.close()


async def test_an_ispravka_withdrawn_then_a_crash_is_told_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[Fall, Act]:
        fall = await corrections_game(club)
        assert (await club.desk.corrections.propose_ispravka(await club.get(fall.fallen), fall.hand)).ok
        return fall, lambda c: as_member(c, fall.fallen, lambda m: c.desk.corrections.cancel(m, fall.hand))

    told, club, fall = await delivered_once_after_a_crash(tmp_path, setup)
    withdrawn = club.desk.t("correction.ispravka_withdrawn", nick=fall.fallen, hand=fall.hand)
    assert [(s.where, s.text) for s in told] == [
        *[(f"dm:{nick}", withdrawn) for nick in seats(fall, fall.fallen)],
        (f"table:{fall.game.number}", withdrawn),
    ]
    await club.db.close()


# Promeni, the offered copies, korekcija -----------------------------------------------------------------------------


async def test_a_promeni_committed_then_a_crash_is_said_in_the_trial_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[int, Act]:
        ana, judge = await club.member("ana"), await club.member("sudija1", "referee")
        await club.game(500)
        await club.game(501, ended_ago=timedelta(days=1))
        assert (await club.desk.calls.call(ana, 500)).ok
        call = await club.db.calls.pending_by_caller(ana.id)
        assert call is not None
        assert (await club.desk.trials.take(judge, call.id)).ok
        trial = await club.db.trials.open_for_game(500)
        assert trial is not None
        return trial.id, lambda c: as_member(c, "sudija1", lambda m: c.desk.trials.change_game(m, 501))

    told, club, trial_id = await delivered_once_after_a_crash(tmp_path, setup)
    assert [(s.kind, s.where, s.text) for s in told] == [
        ("say", f"trial:{trial_id}", club.desk.t("promeni.done", game=501))
    ]
    trial = await club.db.trials.get(trial_id)
    assert trial is not None
    assert trial.game == 501
    await club.db.close()


async def test_a_call_offered_to_a_referee_who_came_online_then_a_crash_reaches_him_after_the_restart(
    tmp_path: Path,
) -> None:
    async def setup(club: Club) -> tuple[None, Act]:
        ana = await club.member("ana")
        await club.member("sudija1", "referee", online=False)
        await club.game(500)
        assert (await club.desk.calls.call(ana, 500)).ok
        return None, lambda c: as_member(c, "sudija1", lambda m: c.desk.presence(m, True))

    told, club, _ = await delivered_once_after_a_crash(tmp_path, setup)
    call = await club.db.calls.pending_by_caller((await club.get("ana")).id)
    assert call is not None
    assert shown(told) == [("tell", "dm:sudija1", ("take",))]
    assert told[0].text == club.desk.calls.call_text(call, "ana")
    assert await club.db.calls.pinged(call.id) == {(await club.get("sudija1")).id}
    # The copy is kept as a notice of the call: the expiry edits it with the channel's.
    assert [n.place for n in await club.db.calls.notices(f"call:{call.id}")] == ["#referees", "dm:sudija1"]
    await club.advance(timedelta(minutes=6))
    assert [e.where for e in club.chat.of("edit")] == ["#referees", "dm:sudija1"]
    await club.db.close()


async def test_a_councilor_call_offered_to_a_councilor_who_came_online_then_a_crash_reaches_him_after_the_restart(
    tmp_path: Path,
) -> None:
    async def setup(club: Club) -> tuple[None, Act]:
        ana, judge = await club.member("ana"), await club.member("sudija1", "referee")
        await club.member("savetnik", "councilor", online=False)
        await club.game(600, ("ana", "marko", "petar"), status=GameStatus.IN_PROGRESS, ended_ago=None)
        await club.db.members.seat(ana.id, 600, club.clock.now())
        assert (await club.desk.calls.call(await club.get("ana"), 600)).ok
        call = await club.db.calls.pending_by_caller(ana.id)
        assert call is not None
        assert (await club.desk.trials.take(judge, call.id)).ok
        assert (await club.desk.trials.call_councilor(judge)).ok
        return None, lambda c: as_member(c, "savetnik", lambda m: c.desk.presence(m, True))

    told, club, _ = await delivered_once_after_a_crash(tmp_path, setup)
    assert shown(told) == [("tell", "dm:savetnik", ("join",))]
    ccall = (await club.db.calls.pending_councilor_calls())[0]
    assert [b.ref for b in told[0].buttons] == [ccall.id]
    assert "dm:savetnik" in [n.place for n in await club.db.calls.notices(f"councilor:{ccall.id}")]
    assert (await club.desk.press(await club.get("savetnik"), "join", ccall.id)).ok
    assert "dm:savetnik" in [e.where for e in club.chat.of("edit")]  # the copy edited with the others
    await club.db.close()


async def test_a_korekcija_done_then_a_crash_tells_the_players_and_the_table_after_the_restart(tmp_path: Path) -> None:
    async def setup(club: Club) -> tuple[None, Act]:
        for nick in PLAYERS:
            await club.member(nick)
        await club.game(700, PLAYERS, status=GameStatus.IN_PROGRESS, ended_ago=None)
        event = Event("e-1", "korekcija_done", 700, 5, None, {"hand": 2, "move": 9})

        async def done(c: Club) -> None:  # as the feed's take writes them (through the feed: test_outbox_game_server)
            await c.desk.delivery.enqueue_effects(await korekcija_of(c.desk).done_effects(event))

        return None, done

    told, club, _ = await delivered_once_after_a_crash(tmp_path, setup)
    done = club.desk.t("korekcija.done", game=700, hand=2)
    assert [(s.where, s.text) for s in told] == [*[(f"dm:{nick}", done) for nick in PLAYERS], ("table:700", done)]
    await club.db.close()


async def test_no_copy_is_offered_of_a_call_that_ended_before_the_ping(tmp_path: Path) -> None:
    """The call expired between the look-up of pending calls and the ping: a copy written after the expiry's edit
    would keep a live Sudi button for good, so none is written."""
    club = await make_club(tmp_path)
    ana, judge = await club.member("ana"), await club.member("sudija1", "referee", online=False)
    await club.game(500)
    assert (await club.desk.calls.call(ana, 500)).ok
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    await club.advance(timedelta(minutes=6))
    assert (await club.db.calls.get(call.id)).state == "expired"  # type: ignore[union-attr]
    post = CallPost(f"call:{call.id}", "notice", (judge,), ())
    assert not await club.db.calls.add_ping(
        call.id, judge.id, club.clock.now(), [effect.offer_call(call.id, judge.id, post)]
    )
    assert await club.db.calls.pinged(call.id) == set()
    assert await pending(club) == 0
    assert [s.where for s in club.chat.sent if s.kind == "tell"] == ["dm:ana"]  # only the caller's expiry
    await club.db.close()


async def test_an_offered_copy_begun_but_not_done_is_repeated_on_the_console_as_an_edit_of_itself(
    tmp_path: Path,
) -> None:
    """The copy shown, the process dead before the commit that keeps it: the restart shows it again as an edit,
    and keeps it as a notice of the call, so the call's end edits it."""
    config = Config(arbitar=ArbitarConfig(workers=0))  # as `make_club`: the tests' Arbitar in a thread
    db = await open_database(database_for(tmp_path))
    clock = ManualClock(NOW)
    out: list[str] = []
    console = ConsoleChat(out.append, Catalogue(config.language, config.timezone))
    desk = Desk(db, Chats([console]), LoggingGameServer(), clock, config, ManualTimers())
    await desk.start()
    ana = await db.members.link("console", "ana", "ana", NOW)
    judge = await db.members.link("console", "sudija1", "sudija1", NOW)
    await db.members.set_role(judge.id, "referee", True, None, NOW)
    club = Club(db, desk, RecordingChat(), clock, ManualTimers(), LoggingGameServer(), config)
    await club.game(500, ("ana", "marko", "petar"))
    assert (await desk.calls.call(ana, 500)).ok
    call = await db.calls.pending_by_caller(ana.id)
    assert call is not None

    class Crash(BaseException):
        pass

    async def crash_before_done(*args: object, **kwargs: object) -> None:
        raise Crash

    desk.delivery.chat_outbox.store.done = crash_before_done  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await desk.presence(judge, True)
    copies = [line for line in out if line.startswith("[dm sudija1]")]
    assert len(copies) == 1
    assert "(izmena)" not in copies[0]

    await db.close()
    db = await open_database(database_for(tmp_path))
    out2: list[str] = []
    console2 = ConsoleChat(out2.append, Catalogue(config.language, config.timezone))
    desk2 = Desk(db, Chats([console2]), LoggingGameServer(), clock, config, ManualTimers())
    await desk2.start()
    again = [line for line in out2 if line.startswith("[dm sudija1]")]
    assert len(again) == 1
    assert again[0].startswith("[dm sudija1] (izmena) ")  # an edit of the message it may have shown
    referee = await desk2.member_for("console", "sudija1")
    assert referee is not None
    assert console2.find_button(referee, "sudija1", "Sudi") is not None
    assert [n.place for n in await db.calls.notices(f"call:{call.id}")] == ["#sudije", "dm:sudija1"]
    await db.close()
