"""Out-of-game verdicts taking effect, through the desk: plavac (start, durable expiry, lifting), league points
(live, closed months), napustio following the verdict, one penalty per game, manual settlement with its limits."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_paper import C, build_game, not_followed

from bot.desk import Desk
from bot.messages import Catalogue
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW, Club, make_club
from fakes.chat import RecordingChat
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.paper import ChangeKind, compute_paper
from rules.verdicts import Draft, Nobody, Penalty, Settlement
from storage.changes import NewPaperChange
from storage.games import PreparedGame

SR = Catalogue("sr")


async def people(club: Club, *players: str) -> None:
    for nick in players or ("ana", "marko", "petar"):
        await club.member(nick)
    for referee in ("sudija1", "sudija2", "sudija3"):
        await club.member(referee, "referee")


async def interrupted(
    club: Club,
    number: int,
    leaver: str,
    players: tuple[str, str, str] = ("ana", "marko", "petar"),
    ended_ago: timedelta = timedelta(hours=2),
) -> Game:
    game = generate_game(
        random.Random(number),
        number,
        hands=4,
        status=GameStatus.INTERRUPTED,
        players=players,
        abandoned_by=(leaver,),
        start=club.clock.now() - timedelta(hours=4),
    )
    game = replace(game, ended_at=club.clock.now() - ended_ago)
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    return game


async def judge(club: Club, number: int, draft: Draft, caller: str = "ana", referee: str = "sudija1") -> str:
    """Call, take, draft and finish; the text the referee was answered at Završi suđenje."""
    reply = await club.desk.calls.call(await club.get(caller), number)
    assert reply.ok, reply.text
    call = await club.db.calls.pending_for_game(number)
    assert call is not None
    assert (await club.desk.trials.take(await club.get(referee), call.id)).ok
    drafted = await club.desk.draft(await club.get(referee), draft)
    assert drafted.ok, drafted.text
    done = await club.desk.finish(await club.get(referee))
    assert done.ok, done.text
    return done.text


def plavac_calls(club: Club, nick: str) -> list[datetime | None]:
    return [
        arg[1] for what, arg in club.server.calls if what == "set_plavac" and isinstance(arg, tuple) and arg[0] == nick
    ]


def told(club: Club, nick: str) -> list[str]:
    return [s.text for s in club.chat.to(f"dm:{nick}")]


async def test_plavac_starts_is_shown_and_runs_out_once_through_a_durable_deadline(club: Club) -> None:
    await people(club)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=2, league_points=3), "namerno napuštanje"))
    until = NOW + timedelta(days=2)
    assert plavac_calls(club, "petar") == [until]
    assert any("plavac 2 dana" in text and "3 kaznena poena" in text for text in told(club, "petar"))
    assert until in club.timers.armed
    card = (await club.desk.governance.member_status(await club.get("petar"), None)).text
    assert "plavac do 2.12.2026. 13:00" in card
    assert "kazneni poeni 3" in card
    await club.advance(timedelta(days=2) - timedelta(seconds=1))
    assert plavac_calls(club, "petar") == [until]
    await club.advance(timedelta(seconds=1))
    await club.desk.run_due()  # a second wake-up changes nothing
    assert plavac_calls(club, "petar") == [until, None]
    assert sum("istekla" in text for text in told(club, "petar")) == 1
    assert "plavac: nema" in (await club.desk.governance.member_status(await club.get("petar"), None)).text


async def test_a_plavac_that_ran_out_while_the_bot_was_down_ends_at_start(club: Club) -> None:
    await people(club)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=1), ""))
    clock = ManualClock(NOW + timedelta(days=3))
    server = LoggingGameServer()
    chat = RecordingChat()
    timers = ManualTimers()
    restarted = Desk(club.db, Chats([chat]), server, clock, club.config, timers)
    await restarted.start()
    assert ("set_plavac", ("petar", None)) in server.calls
    assert any("istekla" in s.text for s in chat.to("dm:petar"))


async def test_a_running_plavac_is_rearmed_and_resent_to_the_game_server_at_start(club: Club) -> None:
    await people(club)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=3), ""))
    server = LoggingGameServer()
    timers = ManualTimers()
    restarted = Desk(
        club.db, Chats([RecordingChat()]), server, ManualClock(NOW + timedelta(days=1)), club.config, timers
    )
    await restarted.start()
    assert ("set_plavac", ("petar", NOW + timedelta(days=3))) in server.calls
    assert NOW + timedelta(days=3) in timers.armed


async def test_walk_penalty_then_new_penalty_then_niko(club: Club) -> None:
    await people(club)
    await interrupted(club, 300, leaver="marko")
    referee = await club.get("sudija1")
    # 1. petar: plavac 3 days, 4 league points, and he is counted as having abandoned the game.
    await judge(club, 300, Draft(Penalty("petar", 3, 4, abandoned=True), "odbio nastavak"))
    assert (await club.db.penalties.napustio(300)).counted == "petar"  # type: ignore[union-attr]
    petar = await club.desk.penalties.member_card(await club.get("petar"))
    assert petar.plavac_until == NOW + timedelta(days=3)
    assert petar.standing.penalty_points == 4
    assert petar.napustio_total == 1
    assert petar.standing.abandon_points == club.config.penalties.abandon_league_points
    marko = await club.desk.penalties.member_card(await club.get("marko"))
    assert marko.napustio_total == 0
    assert marko.standing.abandon_points == 0
    # 2. A day later another referee finds ana guilty instead (no napustio): petar's penalty is lifted first.
    await club.advance(timedelta(days=1))
    await judge(club, 300, Draft(Penalty("ana", plavac_days=1), "vređanje"), caller="marko", referee="sudija2")
    assert plavac_calls(club, "petar") == [NOW + timedelta(days=3), None]  # 2 days left − 3: it ends now
    lifted = told(club, "petar")[-1]
    assert "ukinuta" in lifted
    assert "završena je odmah" in lifted
    assert "4 kaznena poena su vraćena" in lifted
    petar = await club.desk.penalties.member_card(await club.get("petar"))
    assert petar.plavac_until is None
    assert petar.standing.penalty_points == 0
    assert petar.napustio_total == 0
    assert (await club.db.penalties.napustio(300)).counted == "marko"  # type: ignore[union-attr]
    assert plavac_calls(club, "ana") == [NOW + timedelta(days=2)]
    # 3. (niko): ana's penalty is lifted, nobody is counted as having abandoned the game.
    await club.advance(timedelta(hours=6))
    await judge(club, 300, Draft(Nobody(), "opravdano napuštanje"), caller="petar", referee="sudija3")
    assert plavac_calls(club, "ana")[-1] is None
    assert "ukinuta" in told(club, "ana")[-1]
    assert (await club.db.penalties.napustio(300)).counted is None  # type: ignore[union-attr]
    for nick in ("ana", "marko", "petar"):
        assert (await club.desk.penalties.member_card(await club.get(nick))).napustio_total == 0
    rows = await club.db.penalties.for_game(300)
    assert [r.active for r in rows] == [False, False]
    assert referee.nick == "sudija1"


async def test_a_plavac_already_over_when_lifted_is_only_reported(club: Club) -> None:
    await people(club)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=1), ""))
    await club.advance(timedelta(days=2))
    assert plavac_calls(club, "petar") == [NOW + timedelta(days=1), None]
    await judge(club, 100, Draft(Nobody(), "greška u presudi"), caller="marko", referee="sudija2")
    assert plavac_calls(club, "petar") == [NOW + timedelta(days=1), None]  # nothing more to tell the server
    assert "već istekla" in told(club, "petar")[-1]


async def test_a_new_plavac_adds_to_a_running_one_and_lifting_shortens_it(club: Club) -> None:
    await people(club)
    await club.game(100)
    await club.game(101)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=2), ""))
    await judge(club, 101, Draft(Penalty("petar", plavac_days=3), ""), caller="marko", referee="sudija2")
    assert plavac_calls(club, "petar")[-1] == NOW + timedelta(days=5)
    await judge(club, 100, Draft(Nobody(), "greška"), caller="ana", referee="sudija3")
    assert plavac_calls(club, "petar")[-1] == NOW + timedelta(days=3)
    assert "traje do 3.12.2026. 13:00" in told(club, "petar")[-1]


async def test_points_of_a_closed_league_month_stay_and_the_message_says_so(club: Club) -> None:
    await people(club)
    await club.member("vlasnik")
    club.desk.config = replace(club.config, owner="vlasnik", owner_accounts=("test:vlasnik",))
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", league_points=5), ""))
    await club.advance(timedelta(days=2))  # 2 December: November is still open (grace 3 days)
    assert await club.desk.penalties.month_is_open("2026-11")
    assert not (await club.desk.governance.close_league(await club.get("ana"), "2026-11")).ok
    closed = await club.desk.governance.close_league(await club.get("vlasnik"), "2026-11", "kraj meseca")
    assert closed.ok
    assert "zatvorena" in closed.text
    assert not (await club.desk.governance.close_league(await club.get("vlasnik"), "2026-11")).ok
    frozen = await club.desk.penalties.standing(await club.get("petar"), "2026-11")
    assert frozen.penalty_points == 5
    await judge(club, 100, Draft(Nobody(), "greška"), caller="marko", referee="sudija2")
    assert "ostaje" in told(club, "petar")[-1]
    assert "zatvorena" in told(club, "petar")[-1]
    assert (await club.desk.penalties.standing(await club.get("petar"), "2026-11")).penalty_points == 5
    rows = await club.db.penalties.for_game(100)
    assert rows[0].lifted_at is not None
    assert rows[0].points_returned is False


async def test_a_month_closes_by_itself_after_the_grace(club: Club) -> None:
    await people(club)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", league_points=2), ""))
    closes = datetime(2026, 12, 4, tzinfo=NOW.tzinfo)  # 1 December + 3 days
    assert closes in club.timers.armed
    club.clock.set(closes - timedelta(seconds=1))
    await club.desk.run_due()
    assert await club.db.league.closed("2026-11") is None
    club.clock.set(closes)
    await club.desk.run_due()
    closed = await club.db.league.closed("2026-11")
    assert closed is not None
    assert closed.how == "grace"
    assert (await club.db.league.frozen("2026-11", (await club.get("petar")).id)).penalty_points == 2


async def test_league_points_come_from_paper_results_of_rated_finished_games(club: Club) -> None:
    await people(club)
    game = await club.game(100, hands=None)  # type: ignore[arg-type]
    await club.game(101, rated=False, hands=None)  # type: ignore[arg-type]
    paper = compute_paper(game)
    assert paper.ended
    for seat, nick in enumerate(game.players):
        standing = await club.desk.penalties.standing(await club.get(nick), "2026-11")
        assert standing.games == 1
        assert standing.game_points == paper.players[seat].result


async def test_napustio_is_the_first_leaver_and_a_penalty_on_a_finished_game_cannot_count_one(club: Club) -> None:
    await people(club)
    await interrupted(club, 300, leaver="marko")
    await club.game(100)
    assert (await club.desk.penalties.member_card(await club.get("marko"))).napustio_total == 1
    reply = await club.desk.calls.call(await club.get("ana"), 100)
    assert reply.ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.trials.take(await club.get("sudija1"), call.id)
    refused = await club.desk.draft(await club.get("sudija1"), Draft(Penalty("petar", abandoned=True), ""))
    assert not refused.ok
    assert "nije prekinuta" in refused.text


# Manual settlement -------------------------------------------------------------------------------------------


async def settle_case(club: Club, minutes: int, left: int) -> Game:
    """An interrupted game of size 60 (180 bule), interrupted `minutes` ago, with `left` bule on the paper."""
    hands = [not_followed(k, k % 3, C("sans", True)) for k in range(1, 10)]
    game = build_game(hands, size=60, refe_limit=0, status=GameStatus.INTERRUPTED, number=500)
    game = replace(game, ended_at=club.clock.now() - timedelta(minutes=minutes))
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    diff = left - compute_paper(game).bule_sum
    assert diff % 2 == 0
    assert abs(diff) <= 98
    if diff:
        await club.db.paper_changes.add(
            NewPaperChange(
                500, 9, ChangeKind.PROMENA_BULA.value, {"bule": [diff, 0, 0]}, None, club.clock.now(), "priprema"
            )
        )
    assert compute_paper(game, await club.db.paper_changes.for_game(500)).bule_sum == left
    return game


async def open_on(club: Club, number: int, caller: str = "ana", referee: str = "sudija1") -> None:
    assert (await club.desk.calls.call(await club.get(caller), number)).ok
    call = await club.db.calls.pending_for_game(number)
    assert call is not None
    assert (await club.desk.trials.take(await club.get(referee), call.id)).ok


async def test_settlement_needs_two_thirds_and_an_hour_and_says_both_figures(club: Club) -> None:
    await people(club, "ana", "bojan", "ceca")
    await settle_case(club, minutes=59, left=60)  # exactly 2/3 played
    await open_on(club, 500)
    referee = await club.get("sudija1")
    early = await club.desk.draft(referee, Draft(Settlement(True), "bojan ne dolazi"))
    assert not early.ok
    assert "odigrano je 120 od 180 bula" in early.text
    assert "najmanje 120 (2/3)" in early.text
    assert "prošlo 59 minuta" in early.text
    assert "najmanje 1 sat" in early.text
    await club.advance(timedelta(minutes=1))  # 60 minutes
    assert (await club.desk.draft(referee, Draft(Settlement(), "bojan ne dolazi"))).ok is False  # not confirmed
    assert (await club.desk.draft(referee, Draft(Settlement(True), "bojan ne dolazi"))).ok


async def test_settlement_with_fewer_than_two_thirds_played_is_refused_with_both_figures(club: Club) -> None:
    await people(club, "ana", "bojan", "ceca")
    await settle_case(club, minutes=120, left=62)
    await open_on(club, 500)
    refused = await club.desk.draft(await club.get("sudija1"), Draft(Settlement(True), "prekid"))
    assert not refused.ok
    assert "odigrano je 118 od 180 bula" in refused.text
    assert "prošlo 2 sata" in refused.text


async def test_settlement_closes_the_game_cancels_napustio_keeps_the_penalty_and_counts_it(club: Club) -> None:
    """ "Ako se partija ručno svede, ti poeni se poništavaju": the game's own league points (its napustio charge);
    a referee's penalty is not the game's points and stands (decisions.md, the other clubs' packs)."""
    await people(club, "ana", "bojan", "ceca")
    game = await settle_case(club, minutes=120, left=40)
    # First ceca is punished as the one who abandoned it, with league points.
    await judge(club, 500, Draft(Penalty("ceca", league_points=3, abandoned=True), "odbila nastavak"))
    assert (await club.desk.penalties.member_card(await club.get("ceca"))).napustio_total == 1
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    changes = await club.db.paper_changes.for_game(500)
    assert changes[-1].kind is ChangeKind.OTPIS
    assert ("close_game", 500) in club.server.calls
    assert (await club.db.penalties.napustio(500)).counted is None  # type: ignore[union-attr]
    ceca = await club.desk.penalties.member_card(await club.get("ceca"))
    assert ceca.napustio_total == 0
    assert ceca.standing.penalty_points == 3  # the referee's penalty stands
    assert ceca.standing.abandon_points == 0
    league = SR.t("term.league")
    assert told(club, "ceca")[-1] == SR.t("settlement.napustio_cancelled", game=500, league=league)
    paper = compute_paper(game, changes)
    assert paper.settled
    for seat, nick in enumerate(game.players):
        standing = await club.desk.penalties.standing(await club.get(nick), "2026-11")
        assert standing.games == 1
        assert standing.game_points == paper.players[seat].result


async def test_a_small_settled_game_does_not_count_as_finished(tmp_path: Path) -> None:
    club = await make_club(tmp_path, settlement_finished_min_bule=61)
    try:
        await people(club, "ana", "bojan", "ceca")
        await settle_case(club, minutes=120, left=40)
        await judge(club, 500, Draft(Settlement(True), "dogovor"))
        assert await club.db.penalties.settled(500) is False
        standing = await club.desk.penalties.standing(await club.get("ana"), "2026-11")
        assert standing.games == 0
        assert standing.game_points == 0
        assert (await club.desk.penalties.member_card(await club.get("bojan"))).napustio_total == 0
    finally:
        await club.db.close()


async def test_a_verdict_recorded_before_a_crash_takes_effect_at_start(club: Club) -> None:
    await people(club)
    await club.game(100)

    async def crash(trial: object, draft: object) -> None:
        raise RuntimeError("crash before the effects")

    original = club.desk.steps.after_verdict
    club.desk.steps.after_verdict = crash  # type: ignore[method-assign, assignment]
    with pytest.raises(RuntimeError):
        await judge(club, 100, Draft(Penalty("petar", plavac_days=2), ""))
    club.desk.steps.after_verdict = original  # type: ignore[method-assign]
    assert await club.db.penalties.for_game(100) == []
    await club.desk.start()
    assert len(await club.db.penalties.for_game(100)) == 1
    assert set(plavac_calls(club, "petar")) == {NOW + timedelta(days=2)}  # applied, then re-sent at start
    assert any("kaznio" in text for text in told(club, "petar"))
    await club.desk.start()
    assert len(await club.db.penalties.for_game(100)) == 1


async def test_another_clubs_settlement_rule_comes_from_the_configuration(club: Club) -> None:
    """Half the bule played and half an hour are enough where the configuration says so."""
    club.desk.config = replace(
        club.config,
        penalties=replace(club.config.penalties, settlement_played_share="1/2", settlement_delay_minutes=30),
    )
    await people(club, "ana", "bojan", "ceca")
    await settle_case(club, minutes=31, left=90)  # 90 of 180 bule played: half, not 2/3; 31 minutes, not 60
    await open_on(club, 500)
    assert (await club.desk.draft(await club.get("sudija1"), Draft(Settlement(True), "dogovor"))).ok
