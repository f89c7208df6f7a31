"""Issue 35, item by item, each at the boundary where the desk differed from the clubs' rules: a settlement and
the penalties compose in any order (1); time as the rules measure it — an expired call, councilor call and vote
end at their deadline, however late the bot acts (2); and the smaller points (6)."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from test_corrections import PLAYERS, fall_game, join, say
from test_penalties import judge, settle_case

from bot.commands import Commands
from bot.config import Config, load
from bot.console.language import Attach, Close, LineError, parse_line
from bot.console.runner import run_console
from bot.demo import TABLE
from bot.messages import Catalogue
from bot.ports import Action, ManualClock, Upload
from bot.views import render_verdict
from club import NOW, Club
from rules.gamelog import GameStatus
from rules.verdicts import BulaChange, Draft, Nobody, NoVerdict, Penalty, Settlement
from storage.database import open_database
from storage.states import AppealState, CallState, CouncilorCallState, TrialOutcome, VoteState

SR = Catalogue("sr")


async def settlement_people(club: Club) -> None:
    for nick in ("ana", "bojan", "ceca"):
        await club.member(nick)
    for referee in ("sudija1", "sudija2"):
        await club.member(referee, "referee")


# 1. A settlement and the penalties compose in any order ---------------------------------------------------------

ACTS = {
    "P": Draft(Penalty("ceca", plavac_days=2, league_points=3), "odbila nastavak"),  # a penalty
    "N": Draft(Nobody(), "niko nije kriv"),  # (niko): lifts it
    "L": Draft(Penalty("bojan", league_points=2), "ipak bojan"),  # another penalty: lifts the earlier one
    "S": Draft(Settlement(True), "dogovor"),  # the settlement: lifts nothing
}


@pytest.mark.parametrize("order", ["".join(p) for p in itertools.permutations("PNLS")])
async def test_penalties_niko_lifts_and_a_settlement_compose_in_any_order(club: Club, order: str) -> None:
    """Whatever the order, the penalty standing is the last one of the penalties and (niko) — the settlement
    lifts none and cancels no penalty's points — and the settled game counts nobody as having abandoned it."""
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    callers = itertools.cycle(("ana", "bojan", "ceca"))
    for act in order:
        await judge(club, 500, ACTS[act], caller=next(callers), referee="sudija1")
    last = next(act for act in reversed(order) if act != "S")
    expected = {"P": {"ceca": 3, "bojan": 0}, "L": {"ceca": 0, "bojan": 2}, "N": {"ceca": 0, "bojan": 0}}[last]
    for nick, points in expected.items():
        card = await club.desk.penalties.member_card(await club.get(nick))
        assert card.standing.penalty_points == points, (order, nick)
        assert card.standing.abandon_points == 0
    ceca = await club.desk.penalties.member_card(await club.get("ceca"))
    assert (ceca.plavac_until is not None) is (last == "P"), order
    assert await club.db.penalties.settled(500) is not None
    assert (await club.db.penalties.napustio(500)).counted is None  # type: ignore[union-attr]
    assert [c for c in club.server.calls if c[0] == "close_game"] == [("close_game", 500)]
    for nick in ("ceca", "bojan"):
        assert not any("poništen" in s.text for s in club.chat.to(f"dm:{nick}")), (order, nick)


async def test_a_penalty_with_napustio_then_a_settlement_keeps_the_points_and_says_so(club: Club) -> None:
    """The audit's case: 2 league points and napustio, then svođenje. The player is told the abandoned game no
    longer counts and the referee's penalty stands; his 2 points stay."""
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    await judge(club, 500, Draft(Penalty("ceca", league_points=2, abandoned=True), "napustila"))
    assert (await club.desk.penalties.member_card(await club.get("ceca"))).napustio_total == 1
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    ceca = await club.desk.penalties.member_card(await club.get("ceca"))
    assert (ceca.standing.penalty_points, ceca.napustio_total, ceca.standing.abandon_points) == (2, 0, 0)
    told = [s.text for s in club.chat.to("dm:ceca")]
    assert told[-1] == SR.t("settlement.napustio_cancelled", game=500, league=SR.t("term.league"))


async def test_a_settlement_then_the_same_penalty_stands_as_well(club: Club) -> None:
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    await judge(club, 500, Draft(Penalty("ceca", league_points=2), "vređala"))
    assert (await club.desk.penalties.member_card(await club.get("ceca"))).standing.penalty_points == 2


LIFTING = {
    "P": Draft(Penalty("ceca", plavac_days=2, league_points=3), "odbila nastavak"),
    "L": Draft(Penalty("bojan", league_points=2), "ipak bojan"),
    "S": Draft(Settlement(True), "dogovor"),
}


def lift_orders() -> list[str]:
    """Every order of two penalties, an upheld appeal (A: it lifts the penalty that stands, against the trial that
    gave it) and the settlement, where something stands to appeal against when the appeal comes."""
    orders = ("".join(p) for p in itertools.permutations("PLAS"))
    return [o for o in orders if {"P", "L"} & set(o[: o.index("A")])]


@pytest.mark.parametrize("order", lift_orders())
async def test_an_appeals_lift_and_a_settlement_compose_in_any_order(club: Club, order: str) -> None:
    """The first club's only change to a verdict, "ukidanje kazne … samo u slučaju da je sudija greškom kaznio
    nevinog igrača": an upheld appeal's (niko) lifts the penalty standing, whether the game was settled before or
    after; the settlement lifts nothing, and a penalty after the lift stands."""
    await settlement_people(club)
    for nick in ("v1", "v2"):
        await club.member(nick, "councilor")
    await settle_case(club, minutes=120, left=40)
    callers = itertools.cycle(("ana", "bojan", "ceca"))
    culprit_of = {"P": "ceca", "L": "bojan"}
    last_penalty: tuple[str, int] | None = None
    for act in order:
        if act != "A":
            await judge(club, 500, LIFTING[act], caller=next(callers), referee="sudija1")
            if act in culprit_of:
                last_penalty = (culprit_of[act], (await club.db.trials.for_game(500))[-1].id)
            continue
        assert last_penalty is not None
        culprit, trial = last_penalty
        filed = await club.desk.appeals.file_appeal(await club.get(culprit), trial, None, "nisam kriv")
        assert filed.ok, (order, filed.text)
        [appeal] = [a for a in await club.db.appeals.undecided() if a.trial == trial]
        v1 = await club.get("v1")
        assert (await club.desk.press(v1, "appeal_take", appeal.id)).ok
        assert (await club.desk.draft(v1, Draft(Nobody(), "kažnjen je nevin igrač"))).ok
        assert (await club.desk.appeals.decide_appeal(v1, appeal.id, "usvojena", None, "")).ok, order
    last = next(act for act in reversed(order) if act != "S")
    expected = {"P": {"ceca": 3, "bojan": 0}, "L": {"ceca": 0, "bojan": 2}, "A": {"ceca": 0, "bojan": 0}}[last]
    for nick, points in expected.items():
        card = await club.desk.penalties.member_card(await club.get(nick))
        assert card.standing.penalty_points == points, (order, nick)
        assert card.standing.abandon_points == 0
    ceca = await club.desk.penalties.member_card(await club.get("ceca"))
    assert (ceca.plavac_until is not None) is (last == "P"), order
    assert await club.db.penalties.settled(500) is not None
    assert [c for c in club.server.calls if c[0] == "close_game"] == [("close_game", 500)]


# 2. Time as the rules measure it -----------------------------------------------------------------------------------


async def call_people(club: Club) -> None:
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")


async def test_a_call_that_expired_unseen_during_an_outage_ended_at_its_deadline(club: Club) -> None:
    """The audit's case: a call expires unseen while the bot is down for 3 days. It ended at its deadline: its
    record says so, and the 7-day window stood still only for its 5 minutes — the game can be called up to 7
    days and 5 minutes after it ended, not 10."""
    await call_people(club)
    game = await club.game(100, ended_ago=timedelta(days=1))
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    club.clock.advance(timedelta(days=3))  # the bot is down: no timer fires
    await club.desk.start()
    ended = await club.db.calls.get(call.id)
    assert ended is not None
    assert (ended.state, ended.closed_at) == (CallState.EXPIRED, call.deadline)
    [event] = [e for e in await club.db.events.listing(("call_expired",))]
    assert event.at == call.deadline
    assert game.ended_at is not None
    boundary = game.ended_at + timedelta(days=7, minutes=5)
    club.clock.set(boundary - timedelta(seconds=1))
    assert (await club.desk.calls.call(await club.get("marko"), 100)).ok  # one second inside the window
    assert (await club.desk.calls.withdraw(await club.get("marko"))).ok
    club.clock.set(boundary)
    late = await club.desk.calls.call(await club.get("petar"), 100)
    assert not late.ok
    assert "7 dana" in late.text


async def test_a_call_pending_past_its_deadline_stops_the_window_only_until_the_deadline(club: Club) -> None:
    """No timer fired at all (the expiry is not recorded yet): the window computation still ends the pending
    call at its deadline."""
    await call_people(club)
    game = await club.game(100, ended_ago=timedelta(days=6))
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    club.clock.advance(timedelta(days=2))
    assert game.ended_at is not None
    paused = await club.db.trials.pause_intervals(100, club.clock.now())
    [(start, end)] = paused
    assert end - start == timedelta(minutes=5)


async def test_povuci_after_the_deadline_expires_the_call(club: Club) -> None:
    await call_people(club)
    await club.game(100)
    ana = await club.get("ana")
    assert (await club.desk.calls.call(ana, 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    club.clock.advance(timedelta(minutes=5))  # exactly at the deadline, no timer run
    late = await club.desk.calls.withdraw(ana)
    assert not late.ok
    assert late.text == SR.t("withdraw.expired", game=100)
    ended = await club.db.calls.get(call.id)
    assert ended is not None
    assert (ended.state, ended.closed_at) == (CallState.EXPIRED, call.deadline)
    assert any(s.text == SR.t("call.expired", game=100, minutes=5) for s in club.chat.to("dm:ana"))


async def test_povuci_a_second_before_the_deadline_withdraws(club: Club) -> None:
    await call_people(club)
    await club.game(100)
    ana = await club.get("ana")
    assert (await club.desk.calls.call(ana, 100)).ok
    club.clock.advance(timedelta(minutes=5) - timedelta(seconds=1))
    assert (await club.desk.calls.withdraw(ana)).ok
    [call] = await club.db.calls.for_game(100)
    assert call.state is CallState.WITHDRAWN


async def test_a_councilor_call_expired_during_an_outage_ended_at_its_deadline(club: Club) -> None:
    await call_people(club)
    await club.member("vecnik", "councilor")
    await club.game(100, status=GameStatus.IN_PROGRESS)  # a councilor is called in game
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
    assert (await club.desk.trials.call_councilor(await club.get("sudija1"))).ok
    [ccall] = await club.db.calls.pending_councilor_calls()
    club.clock.advance(timedelta(hours=5))
    await club.desk.run_due()
    ended = await club.db.calls.councilor_call(ccall.id)
    assert ended is not None
    assert (ended.state, ended.closed_at) == (CouncilorCallState.EXPIRED, ccall.deadline)


async def test_a_councilor_pressing_after_the_deadline_finds_the_call_expired(club: Club) -> None:
    """No timer fired: a councilor's press at the deadline does not join him; the call is expired then and there,
    recorded at its deadline, and the referee is told he decides alone. A second earlier he joins."""
    await call_people(club)
    await club.member("vecnik", "councilor")
    for number in (100, 101):
        await club.game(number, status=GameStatus.IN_PROGRESS)
    for number, late in ((100, True), (101, False)):
        assert (await club.desk.calls.call(await club.get("ana"), number)).ok
        call = await club.db.calls.pending_for_game(number)
        assert call is not None
        assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
        assert (await club.desk.trials.call_councilor(await club.get("sudija1"))).ok
        [ccall] = await club.db.calls.pending_councilor_calls()
        club.clock.set(ccall.deadline - (timedelta(0) if late else timedelta(seconds=1)))
        pressed = await club.desk.press(await club.get("vecnik"), Action.JOIN, ccall.id)
        ended = await club.db.calls.councilor_call(ccall.id)
        assert ended is not None
        if late:
            assert not pressed.ok
            assert pressed.text == SR.t("councilor.notice_expired", game=number)
            assert (ended.state, ended.closed_at, ended.councilor) == (CouncilorCallState.EXPIRED, ccall.deadline, None)
            [trial] = await club.db.trials.for_game(number)
            assert SR.t("councilor.expired") in [s.text for s in club.chat.to(f"trial:{trial.id}")]
            assert (await club.desk.finish(await club.get("sudija1"))).ok is False  # no draft: the trial goes on
            assert (await club.desk.draft(await club.get("sudija1"), Draft(NoVerdict(), "sam odlučujem"))).ok
            assert (await club.desk.finish(await club.get("sudija1"))).ok
        else:
            assert pressed.ok, pressed.text
            assert ended.state is CouncilorCallState.TAKEN


async def test_a_vote_closed_after_an_outage_ended_at_its_deadline(club: Club) -> None:
    club.desk.config = replace(club.config, owner="vlasnik", owner_accounts=("test:vlasnik",))
    for nick in ("vlasnik", "petar"):
        await club.member(nick)
    for nick in ("v1", "v2", "v3"):
        await club.member(nick, "councilor")
    assert (await club.desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    [vote] = await club.db.votes.open_votes()
    club.clock.advance(timedelta(days=10))  # the deadline (7 days) passed three days ago, unseen
    await club.desk.start()
    closed = await club.db.votes.get(vote.id)
    assert closed is not None
    assert (closed.state, closed.closed_at) == (VoteState.FAILED, vote.deadline)
    [event] = await club.db.events.listing(("vote_closed",))
    assert event.at == vote.deadline


# 6. The smaller points -------------------------------------------------------------------------------------------


async def test_the_first_club_refuses_an_appeal_against_a_bula_change_saying_why(club: Club) -> None:
    """`may_change = "lift"`: an upheld appeal may only lift a penalty, so an appeal against a bula change could
    never change anything; against a penalty it is filed."""
    await call_people(club)
    for nick in ("v1", "v2"):
        await club.member(nick, "councilor")
    await club.game(100, status=GameStatus.IN_PROGRESS)
    change = Draft(BulaChange({"ana": 2}), "ometala igru")
    await judge(club, 100, change)
    [trial] = await club.db.trials.for_game(100)
    refused = await club.desk.appeals.file_appeal(await club.get("ana"), trial.id, None, "nije fer")
    assert not refused.ok
    assert refused.text == SR.t("appeal.nothing_to_lift", trial=trial.id, verdict=render_verdict(change, SR))
    assert await club.db.appeals.for_trials([trial.id]) == []
    await club.game(101)
    await judge(club, 101, Draft(Penalty("petar", league_points=2), "vređao"))
    penalty = (await club.db.trials.for_game(101))[-1]
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), penalty.id, None, "nisam ja")).ok


async def test_a_players_own_odlazak_is_no_judged_hand_in_the_briefing(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    await club.member("sudija1", "referee")
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    assert (await club.desk.calls.call(await club.get(fall.fallen), fall.game.number)).ok
    call = await club.db.calls.pending_for_game(fall.game.number)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
    [brief] = [
        s.text for s in club.chat.to("dm:sudija1") if s.text.startswith(SR.t("brief.title", game=fall.game.number))
    ]
    assert "· " + SR.t("brief.odlazak", hand=fall.hand, nick=fall.other) in brief.splitlines()
    assert "⚠" not in brief
    assert SR.t("brief.rule") not in brief


async def test_zavrsi_without_a_draft_records_nothing_and_says_what_to_write(club: Club) -> None:
    await call_people(club)
    await club.game(100)
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    referee = await club.get("sudija1")
    assert (await club.desk.trials.take(referee, call.id)).ok
    refused = await club.desk.finish(referee)
    assert not refused.ok
    assert refused.text == SR.t("finish.no_draft", game=100)
    [trial] = await club.db.trials.for_game(100)
    assert trial.is_open
    bez = await club.desk.draft(referee, Draft(NoVerdict(), ""))
    assert not bez.ok  # Bez presude needs its reason, here as everywhere
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "opravdan izlazak"))).ok
    assert (await club.desk.finish(referee)).ok
    [trial] = await club.db.trials.for_game(100)
    assert (trial.outcome, trial.reason) == (TrialOutcome.NO_VERDICT, "opravdan izlazak")


async def test_sudija_again_for_ones_own_pending_call_shows_how_to_withdraw_it(club: Club) -> None:
    await call_people(club)
    await club.game(100)
    ana = await club.get("ana")
    assert (await club.desk.calls.call(ana, 100)).ok
    [call] = await club.db.calls.for_game(100)
    again = await club.desk.calls.call(ana, 100)
    assert not again.ok
    assert again.text == SR.t("call.yours_pending", game=100, until=call.deadline)
    [button] = again.buttons
    assert (button.action, button.ref) == (Action.WITHDRAW, call.id)
    assert (await club.desk.press(ana, button.action, button.ref)).ok
    assert [c.state for c in await club.db.calls.for_game(100)] == [CallState.WITHDRAWN]
    other = await club.desk.calls.call(await club.get("marko"), 100)  # another player's pending call is his own
    assert other.ok
    assert not (await club.desk.calls.call(ana, 100)).buttons


async def console(db: Path, script: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(Config(), str(db), True, io.StringIO(script), out, err, ManualClock(NOW))
    return status, out.getvalue(), err.getvalue()


async def test_the_console_plays_an_administrator_closing_a_game(tmp_path: Path) -> None:
    """`!close GAME`: the game server's report that an administrator closed a game, in the console club. The
    in-game trial ends as an interruption (the draft dropped, nothing recorded), the players stand up, and the
    game, interrupted now, can be called for again."""
    script = (
        "@marko /sudija\n"
        "@ana !press Sudi\n"
        "@ana /presuda bez -- nacrt koji se odbacuje\n"
        f"!close {TABLE}\n"
        "!who\n"
        f"@marko /sudija {TABLE}\n"
    )
    status, out, err = await console(tmp_path / "demo.db", script)
    assert (status, err) == (0, "")
    why = SR.t("end.game_closed")
    assert "[trial 1] " + SR.t("trial.interrupted", game=TABLE, why=why) in out
    assert "  (" + SR.t("close.ok", game=TABLE) + ")" in out
    assert SR.t("console.who_seated", game=TABLE) not in out.split(f"> !close {TABLE}")[1]
    assert "[dm marko] " + SR.t("call.ok", game=TABLE, minutes=5) in out.split(f"> @marko /sudija {TABLE}")[1]
    db = await open_database(tmp_path / "demo.db")
    try:
        [trial, *_] = await db.trials.for_game(TABLE)
        assert (trial.outcome, trial.end_reason, trial.verdict) == (TrialOutcome.INTERRUPTED, "game_closed", None)
        summary = await db.games.summary(TABLE)
        assert summary is not None
        assert (summary.status, summary.ended_at) == (GameStatus.INTERRUPTED, NOW)
    finally:
        await db.close()


async def test_the_console_refuses_to_close_a_game_not_in_progress(tmp_path: Path) -> None:
    status, _, err = await console(tmp_path / "demo.db", "!close 1847258\n!close x\n")
    assert status == 1
    assert err == f"line 1: {SR.t('close.not_in_progress', game=1847258)}\n"
    assert parse_line("!close 1847258") == Close(1847258)
    with pytest.raises(LineError) as bad:
        parse_line("!close x")
    assert bad.value.key == "console.close_game"


# 4. Reports as the third club means them -------------------------------------------------------------------------

CHAT = Upload("stol-100.png", "image/png", b"\x89PNG the table's chat")


async def russian(club: Club, tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('[club]\npack = "ruski_sajt"\n', encoding="utf-8")
    club.desk.config = load(config_file)
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    for nick in ("v1", "v2"):
        await club.member(nick, "councilor")
    await club.game(100, ended_ago=timedelta(days=12))  # beyond the 7-day call window: a report still may come


async def test_a_report_is_filed_by_any_player_with_the_tables_chat_heard_and_decided(
    club: Club, tmp_path: Path
) -> None:
    """The third club's "апелляция": marko (a player who called no referee, of a game no trial judged) reports a
    released misère 12 days after the game with the table's chat attached; a councilor who did not play takes it,
    sees the file, and upholds it with the rule's suspension — an effect of its own, told to the game server."""
    await russian(club, tmp_path)
    desk = club.desk
    assert not (await desk.calls.call(await club.get("marko"), 100)).ok  # the call window is over …
    refused = await desk.appeals.file_report(await club.get("jelena"), 100, "apelacija", "", (CHAT,))
    assert refused.text == SR.t("report.not_a_player", game=100)
    bare = await desk.appeals.file_report(await club.get("marko"), 100, "apelacija", "pustio miser")
    assert bare.text == SR.t("report.attachment_needed", kind="apelacija")
    never = await desk.appeals.file_report(await club.get("marko"), 100, "pasovi", "", (CHAT,))
    assert never.text == SR.t("report.not_reviewed", what="igra u pasovima")
    filed = await desk.appeals.file_report(await club.get("marko"), 100, "apelacija", "petar pustio miser", (CHAT,))
    assert filed.ok, filed.text  # … a report is not a call
    [appeal] = await club.db.appeals.reports_of_game(100)
    assert (appeal.trial, appeal.game, appeal.kind) == (None, 100, "apelacija")
    [stored] = await club.db.appeals.files(appeal.id)
    assert (stored.name, stored.content_type, stored.data) == (CHAT.name, CHAT.content_type, CHAT.data)
    assert any("Prijava #1 za partiju 100" in text for text in club.chat.notices.values())
    v1 = await club.get("v1")
    taken = await desk.press(v1, "appeal_take", appeal.id)
    assert taken.ok, taken.text
    [shown] = taken.documents  # the committee sees the table's chat
    assert (shown.name, shown.data) == (CHAT.name, CHAT.data)
    drafted = await desk.draft(v1, Draft(Penalty("petar", offence="pustanje_misera"), "pustio miser"))
    assert drafted.ok, drafted.text
    assert (await desk.finish(v1)).ok
    decided = await club.db.appeals.get(appeal.id)
    assert decided is not None
    assert decided.state is AppealState.UPHELD
    until = NOW + timedelta(days=10)
    assert ("set_suspension", ("petar", until)) in club.server.calls
    assert not [c for c in club.server.calls if c[0] == "set_plavac"]  # never a plavac
    card = await desk.penalties.member_card(await club.get("petar"))
    assert (card.suspended_until, card.plavac_until) == (until, None)
    club.clock.set(until)
    await desk.run_due()
    assert ("set_suspension", ("petar", None)) in club.server.calls
    assert any(s.text == SR.t("suspension.ended") for s in club.chat.to("dm:petar"))
    listing = await desk.verdicts(await club.get("marko"), 100)
    assert "#1" in listing.text


async def test_a_repeat_within_three_months_of_the_suspensions_end_is_fourteen_days(club: Club, tmp_path: Path) -> None:
    await russian(club, tmp_path)
    desk = club.desk
    v1 = await club.get("v1")
    for number, expected in ((100, 10), (101, 14)):
        if number == 101:
            club.clock.advance(timedelta(days=10 + 89))  # three months less a day from the end of the first
            await club.game(101, ended_ago=timedelta(hours=1))
        assert (await desk.appeals.file_report(await club.get("marko"), number, "apelacija", "miser", (CHAT,))).ok
        [appeal] = await club.db.appeals.reports_of_game(number)
        assert (await desk.press(v1, "appeal_take", appeal.id)).ok
        assert (await desk.draft(v1, Draft(Penalty("petar", offence="pustanje_misera"), "miser"))).ok
        assert (await desk.finish(v1)).ok
        [hearing] = [t for t in await club.db.trials.for_game(number) if t.verdict]
        assert hearing.verdict is not None
        assert hearing.verdict["suspension_days"] == expected


async def test_an_unfounded_report_brings_the_peacemaker_which_refuses_reports_and_appeals(
    club: Club, tmp_path: Path
) -> None:
    """ "умиротворитель": 30–365 days at the committee's choice; it refuses reports, appeals and the site's forum
    posts (told to the game server), never play or calls."""
    await russian(club, tmp_path)
    await club.game(101, ended_ago=timedelta(hours=1))
    desk = club.desk
    assert (await desk.appeals.file_report(await club.get("marko"), 100, "sgovor", "", (CHAT,))).ok
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    out_of_range = await desk.appeals.decide_appeal(v1, 1, "odbijena", 400, "apsurdna prijava")
    assert not out_of_range.ok
    assert (await desk.appeals.decide_appeal(v1, 1, "odbijena", 90, "apsurdna prijava")).ok
    refused = await desk.appeals.file_report(await club.get("marko"), 101, "sgovor", "", (CHAT,))
    assert not refused.ok
    assert refused.text == SR.t("appeal.restricted", until=NOW + timedelta(days=90))
    # … and the site's forum and petitions: the game server is told (protocol v1.1, set_restriction).
    assert ("set_restriction", ("marko", NOW + timedelta(days=90))) in club.server.calls
    assert (await desk.calls.call(await club.get("marko"), 101)).ok  # calls and play stay his
    assert (await desk.appeals.file_appeal(await club.get("marko"), 1, None, "")).text == SR.t(
        "appeal.restricted", until=NOW + timedelta(days=90)
    )


async def test_each_club_says_which_of_zalba_and_prijava_is_its_own(club: Club, tmp_path: Path) -> None:
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.game(100)
    commands = Commands(club.desk)
    first = await commands.handle(await club.get("ana"), "/prijava 100 -- miser")
    assert first is not None
    assert first.text == SR.t("report.not_here")
    await russian_club_only(club, tmp_path)
    third = await commands.handle(await club.get("ana"), "/zalba 1 -- nije fer")
    assert third is not None
    assert third.text == SR.t("appeal.reports_here")
    with_file = await commands.handle(await club.get("ana"), "/sudija 100", Upload("a.png", "image/png", b"x"))
    assert with_file is not None
    assert SR.t("usage.no_file") in with_file.text  # a file goes only with a command that takes one


async def russian_club_only(club: Club, tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('[club]\npack = "ruski_sajt"\n', encoding="utf-8")
    club.desk.config = load(config_file)


async def test_the_console_attaches_a_local_file_or_says_why_it_cannot(tmp_path: Path) -> None:
    assert parse_line("@ana !attach cet.txt") == Attach("ana", "cet.txt")
    status, _, err = await console(tmp_path / "demo.db", "@ana !attach nema-ga.txt\n")
    assert status == 1
    assert err.startswith("line 1: " + SR.t("console.attach_unreadable", path="nema-ga.txt", why="").rstrip())


async def test_the_committee_has_ninety_days_for_a_report_reminded_a_week_before(club: Club, tmp_path: Path) -> None:
    """ "Срок рассмотрения апелляций и вынесения решений по ним - до 90 календарных дней": a report filed on day 12
    after the game is due 90 days after it was filed (not after the game); the councilors are reminded once a week
    before (`remind_days = 7`), and told once when the 90 days are over, the report still waiting for them."""
    await russian(club, tmp_path)
    assert (await club.desk.appeals.file_report(await club.get("marko"), 100, "apelacija", "miser", (CHAT,))).ok
    [appeal] = await club.db.appeals.reports_of_game(100)
    due = NOW + timedelta(days=90)
    assert appeal.review_deadline == due
    reminder = SR.t("report.reminder", appeal=appeal.id, game=100, until=due)
    overdue = SR.t("report.overdue", appeal=appeal.id, game=100, until=due)

    def posted(text: str) -> int:
        return len([s for s in club.chat.of("post") if s.text == text and s.where == "#referees"])

    await club.advance(timedelta(days=83) - timedelta(seconds=1))
    assert (posted(reminder), posted(overdue)) == (0, 0)
    await club.advance(timedelta(seconds=1))  # a week before the deadline
    assert (posted(reminder), posted(overdue)) == (1, 0)
    await club.advance(timedelta(days=7) - timedelta(seconds=1))
    assert (posted(reminder), posted(overdue)) == (1, 0)
    await club.advance(timedelta(seconds=1))  # the 90th day
    await club.advance(timedelta(days=1))
    assert (posted(reminder), posted(overdue)) == (1, 1)
    waiting = await club.db.appeals.get(appeal.id)
    assert waiting is not None
    assert (waiting.state, waiting.reminded, waiting.overdue) == (AppealState.FILED, True, True)


async def test_zalbe_lists_a_report_by_its_game_not_as_an_appeal_against_a_trial(club: Club, tmp_path: Path) -> None:
    """/zalbe, the councilors' list of what waits for them: a report names its game (it concerns no trial)."""
    await russian(club, tmp_path)
    assert (await club.desk.appeals.file_report(await club.get("marko"), 100, "apelacija", "miser", (CHAT,))).ok
    listing = await Commands(club.desk).handle(await club.get("v1"), "/zalbe")
    assert listing is not None
    assert listing.text.splitlines()[1:] == [
        SR.t(
            "report.open_line",
            appeal=1,
            game=100,
            kind="apelacija",
            appellant="marko",
            state=SR.t("appeal.state_filed"),
            councilor="—",
            until=NOW + timedelta(days=90),
        )
    ]
    assert "suđenje" not in listing.text


async def test_a_later_niko_lifts_the_suspension_and_the_game_server_is_told(club: Club, tmp_path: Path) -> None:
    """The one-penalty rule holds for the third club's suspension as for the plavac: (niko) in a later trial of
    the game lifts it — the game server is told it ended, the member is told, his card no longer shows it — and
    nothing is left for the deadline to end again."""
    await russian(club, tmp_path)
    await club.game(101, ended_ago=timedelta(hours=1))
    await club.member("sudija1", "referee")
    await judge(club, 101, Draft(Penalty("petar", offence="pustanje_misera"), "pustio miser"), caller="marko")
    until = NOW + timedelta(days=10)
    assert ("set_suspension", ("petar", until)) in club.server.calls
    club.clock.advance(timedelta(days=1))
    assert ("set_suspension", ("petar", None)) not in club.server.calls
    await judge(club, 101, Draft(Nobody(), "nije pustio namerno"), caller="ana")
    assert ("set_suspension", ("petar", None)) in club.server.calls
    assert any(SR.t("lift.suspension_ended", days=10) in s.text for s in club.chat.to("dm:petar"))
    card = await club.desk.penalties.member_card(await club.get("petar"))
    assert card.suspended_until is None
    calls = len(club.server.calls)
    club.clock.set(until)
    await club.desk.run_due()
    assert len(club.server.calls) == calls  # ended already: its deadline tells nothing again
    assert not any(s.text == SR.t("suspension.ended") for s in club.chat.to("dm:petar"))
