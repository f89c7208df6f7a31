"""Issue 15, item by item, each at the boundary where the desk or the paper differed from the club's rules:
one fall move per hand from every source (1), the window "samo pre kraja naredne ruke" (2), where a verdict is
written (3), nothing after the paper has ended (4), the referee's anonymity on the paper (5), the whole
conversation in /presude (6), /sudija away from a table (7), the call's deadline (8), effects from the trial's
end (9), truthful answers in races (10), napustio on a settled game (11), read commands never write (12) and the
small truths (13)."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_corrections import PLAYERS, Fall, fake_arbitar, fall_game, say, transfer
from test_penalties import judge, settle_case

from bot.cli import main
from bot.commands import Commands
from bot.messages import Catalogue
from bot.ports import LoggingGameServer
from club import NOW, Club
from rules.fall_moves import FallMove, FallSource, fall_move, refuse_fall_move
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.paper import ChangeKind, PaperChange, compute_paper
from rules.verdict_place import is_late, paper_over, verdict_hand, within_window
from rules.verdicts import BulaChange, Draft, FallTransfer, NoVerdict, Penalty
from storage.games import PreparedGame

SR = Catalogue("sr")


async def people(club: Club) -> Commands:
    for nick in (*PLAYERS, "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("mod", "moderator")
    return Commands(club.desk)


async def take(club: Club, number: int, caller: str = "ana", referee: str = "sudija1") -> int:
    reply = await club.desk.calls.call(await club.get(caller), number)
    assert reply.ok, reply.text
    call = await club.db.calls.pending_for_game(number)
    assert call is not None
    taken = await club.desk.trials.take(await club.get(referee), call.id)
    assert taken.ok, taken.text
    trial = await club.db.trials.open_for_game(number)
    assert trial is not None
    return trial.id


async def cli(args: list[str]) -> int:
    """The command line, run off the event loop (it runs its own)."""
    return await asyncio.to_thread(main, args)


async def dump(club: Club) -> list[str]:
    conn = club.db.connection
    rows = await conn.execute_fetchall("SELECT type, name, sql FROM sqlite_master ORDER BY name")
    out = [repr(tuple(r)) for r in rows]
    for (name,) in await conn.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        out += [f"{name}: {tuple(r)!r}" for r in await conn.execute_fetchall(f'SELECT * FROM "{name}"')]
    return out


# 1. One fall move per hand ---------------------------------------------------------------------------------------


def test_the_fall_move_rule_names_the_standing_move_and_whether_it_can_be_cancelled() -> None:
    assert refuse_fall_move([], 3, FallSource.REFEREE) is None
    assert refuse_fall_move([FallMove(2, FallSource.ISPRAVKA)], 3, FallSource.REFEREE) is None  # another hand
    for source, cancellable in (
        (FallSource.ISPRAVKA, True),
        (FallSource.PLAYER, True),
        (FallSource.ARBITAR, False),
        (FallSource.REFEREE, False),
    ):
        for new in FallSource:
            refusal = refuse_fall_move([FallMove(3, source, 7)], 3, new)
            assert refusal is not None
            assert refusal.standing is source
            assert refusal.cancellable is cancellable
            assert refusal.key == f"fall_move.{source.value}"
    # A new ispravka replaces the standing one (with the same consent); nothing else does.
    assert refuse_fall_move([FallMove(3, FallSource.ISPRAVKA, 7)], 3, FallSource.ISPRAVKA, replacing=7) is None
    assert refuse_fall_move([FallMove(3, FallSource.ISPRAVKA, 7)], 3, FallSource.REFEREE, replacing=7) is not None
    assert "ne može poništiti" in SR.t("fall_move.arbitar", hand=3)
    assert "/ponisti 3 ispravka" in SR.t("fall_move.ispravka", hand=3)
    # Reading stored changes: every source, and a late referee's odlazak written as a bula change elsewhere.
    assert fall_move("odlazak_u_bulu", {"player": 1}, None, 1, 3) == FallMove(3, FallSource.PLAYER, 1, 1)
    assert fall_move("odlazak_u_bulu", {"player": 1, "arbitar": True}, None, 2, 3).source is FallSource.ARBITAR  # type: ignore[union-attr]
    assert fall_move("odlazak_u_bulu", {"player": 1}, 4, 3, 3).source is FallSource.REFEREE  # type: ignore[union-attr]
    assert fall_move("ispravka", {"player": 0}, None, 4, 3).source is FallSource.ISPRAVKA  # type: ignore[union-attr]
    assert fall_move("promena_bula", {"bule": [2, 0, 0]}, 4, 5, 5) is None
    assert fall_move("promena_bula", {"bule": [-8, 8, 0], "fall_of": 3}, 4, 6, 5) == FallMove(
        3, FallSource.REFEREE, 6, None
    )


def test_the_paper_applies_one_fall_move_per_hand_in_either_order() -> None:
    game = generate_game(random.Random(5), 5, hands=6, status=GameStatus.IN_PROGRESS, players=PLAYERS)
    for number in range(1, 400):
        game = generate_game(random.Random(number), number, hands=6, status=GameStatus.IN_PROGRESS, players=PLAYERS)
        score = compute_paper(game).hands[4].score
        if (
            score is not None
            and score.declarer is not None
            and len(score.fallen) == 1
            and score.fallen[0] != score.declarer
        ):
            break
    assert score is not None
    assert score.declarer is not None
    fallen = score.fallen[0]
    other = 3 - score.declarer - fallen
    when = NOW
    ispravka = PaperChange(ChangeKind.ISPRAVKA, 5, "x", when, player=fallen)
    odlazak = PaperChange(ChangeKind.ODLAZAK_U_BULU, 5, "y", when, trial=1, player=other)
    plain = compute_paper(game).hands[4].bule_after
    for first, second in ((ispravka, odlazak), (odlazak, ispravka)):
        paper = compute_paper(game, [first, second])
        applied = paper.hands[4].changes
        assert [a.applied for a in applied] == [True, False]
        one = compute_paper(game, [first]).hands[4].bule_after
        assert paper.hands[4].bule_after == one != plain


async def test_an_ispravka_then_a_referees_odlazak_is_refused_naming_the_ispravka(club: Club) -> None:
    fall = await fall_game(club)
    commands = await people(club)
    n = fall.hand
    assert (await say(commands, club, fall.fallen, f"/ispravka {n}")).ok
    for nick in PLAYERS:
        if nick != fall.fallen:
            await say(commands, club, nick, "/prihvatam")
    [row] = await club.db.paper_changes.rows(fall.game.number)
    assert row.kind == "ispravka"
    before = await dump(club)
    await take(club, fall.game.number, caller=fall.declarer)
    referee = await club.get("sudija1")
    refused = await club.desk.draft(referee, Draft(FallTransfer(n, fall.other), "loš dolaz"))
    assert not refused.ok
    assert refused.text == SR.t("fall_move.ispravka", hand=n)
    changes = await club.db.paper_changes.rows(fall.game.number)
    assert [c.kind for c in changes] == ["ispravka"]
    assert before != await dump(club)  # the trial itself was written; the paper was not


async def test_a_referees_odlazak_then_an_ispravka_or_a_players_odlazak_is_refused_and_cannot_be_cancelled(
    club: Club,
) -> None:
    fall = await fall_game(club)
    commands = await people(club)
    n = fall.hand
    await take(club, fall.game.number, caller=fall.declarer)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(FallTransfer(n, fall.other), "loš dolaz"))).ok
    assert (await club.desk.finish(referee)).ok
    before = await dump(club)
    ispravka = await say(commands, club, fall.fallen, f"/ispravka {n}")
    assert not ispravka.ok
    assert ispravka.text == SR.t("fall_move.sudija", hand=n)
    odlazak = await say(commands, club, fall.other, f"/bula {n}")
    assert not odlazak.ok
    assert odlazak.text == SR.t("fall_move.sudija", hand=n)
    assert await dump(club) == before


async def test_an_arbitar_transfer_then_a_referees_odlazak_is_refused_saying_it_cannot_be_cancelled(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await people(club)
    n = fall.hand
    assert (await say(commands, club, fall.fallen, f"/arbitar {n}")).ok
    assert (await say(commands, club, fall.other, "/prihvatam")).ok
    await take(club, fall.game.number, caller=fall.declarer)
    refused = await club.desk.draft(await club.get("sudija1"), Draft(FallTransfer(n, fall.other), "x"))
    assert not refused.ok
    assert "Arbitar" in refused.text
    assert "ne može poništiti" in refused.text
    # A referee's bula change composes with it.
    assert (await club.desk.draft(await club.get("sudija1"), Draft(BulaChange({"ana": 2}, n), "x"))).ok


# 2. The window "samo pre kraja naredne ruke" ------------------------------------------------------------------------


def test_the_window_closes_when_the_next_hand_ends() -> None:
    assert within_window(4, 4)
    assert not is_late(4, 4)
    assert not within_window(4, 5)
    assert is_late(4, 5)
    assert not within_window(5, 4)  # not finished yet
    assert verdict_hand(4, 4) == 4
    assert verdict_hand(None, 7) == 7
    assert verdict_hand(2, 7, True) == 7
    with pytest.raises(ValueError, match="outside its window"):
        verdict_hand(2, 7)


async def test_a_verdict_about_hand_h_is_refused_once_hand_h_plus_one_has_ended(club: Club) -> None:
    await people(club)
    game = await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    completed = sum(1 for h in game.hands if h.completed)
    await take(club, 200)
    referee = await club.get("sudija1")
    in_progress = await club.desk.draft(referee, Draft(BulaChange({"ana": 2}, completed), "x"))
    assert in_progress.ok, in_progress.text  # the hand after it is still in progress
    just_ended = await club.desk.draft(referee, Draft(BulaChange({"ana": 2}, completed - 1), "x"))
    assert not just_ended.ok
    assert just_ended.text == SR.t("verdict.too_late", hand=completed - 1, completed=completed)
    assert (await club.desk.draft(referee, Draft(BulaChange({"ana": 2}, completed - 1, True), "x"))).ok


# 3. Where a verdict is written --------------------------------------------------------------------------------------


async def test_a_justified_late_verdict_is_written_on_the_last_completed_hand(club: Club) -> None:
    await people(club)
    game = await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    completed = sum(1 for h in game.hands if h.completed)
    await take(club, 200)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(BulaChange({"marko": 4}, 1, True), "kasno prijavljeno"))).ok
    assert (await club.desk.finish(referee)).ok
    [change] = await club.db.paper_changes.for_game(200)
    assert (change.hand, change.bule) == (completed, (0, 4, 0))


async def test_a_justified_late_odlazak_moves_the_bule_on_the_last_hand_and_still_counts_for_its_hand(
    club: Club,
) -> None:
    fall = await fall_game(club, back=2)
    commands = await people(club)
    game, n = fall.game, fall.hand
    last = sum(1 for h in game.hands if h.completed)
    assert last == n + 2
    await take(club, game.number, caller=fall.declarer)
    referee = await club.get("sudija1")
    late = await club.desk.draft(referee, Draft(FallTransfer(n, fall.other), "x"))
    assert not late.ok
    assert late.text == SR.t("verdict.too_late", hand=n, completed=last)
    assert (await club.desk.draft(referee, Draft(FallTransfer(n, fall.other, True), "kasno, opravdano"))).ok
    before = compute_paper(game)
    assert (await club.desk.finish(referee)).ok
    [row] = await club.db.paper_changes.rows(game.number)
    seat = {nick: game.seat_of(nick) for nick in PLAYERS}
    expected = [0, 0, 0]
    expected[seat[fall.fallen]] = -fall.value  # type: ignore[index]
    expected[seat[fall.other]] = fall.value  # type: ignore[index]
    assert (row.kind, row.hand, row.data["bule"], row.data["fall_of"]) == ("promena_bula", last, expected, n)
    after = compute_paper(game, await club.db.paper_changes.for_game(game.number))
    assert after.hands[n - 1] == before.hands[n - 1]  # the old hand and the hands after it are not recomputed
    assert [
        b - a for a, b in zip(before.hands[last - 1].bule_after, after.hands[last - 1].bule_after, strict=True)
    ] == expected
    refused = await say(commands, club, fall.fallen, f"/ispravka {n}")
    assert not refused.ok
    assert refused.text == SR.t("fall_move.sudija", hand=n)


# 4. After the paper has ended ----------------------------------------------------------------------------------------


async def ended_on_the_last_hand(club: Club) -> Game:
    """A game still in progress on the server whose paper ended with its last completed hand (10 bule)."""
    game = generate_game(
        random.Random(10),
        700,
        hands=8,
        status=GameStatus.IN_PROGRESS,
        players=PLAYERS,
        start=NOW - timedelta(hours=2),
        bule=10,
        refe_limit=0,
    )
    paper = compute_paper(game)
    assert paper.ended
    assert paper.end_hand == sum(1 for h in game.hands if h.completed)
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    return game


async def test_nothing_attaches_to_the_hands_once_the_paper_has_ended(club: Club) -> None:
    commands = await people(club)
    game = await ended_on_the_last_hand(club)
    end = compute_paper(game).end_hand
    assert end is not None
    assert paper_over(compute_paper(game))
    await take(club, game.number)
    referee = await club.get("sudija1")
    for amounts in ({"ana": 2}, {"ana": -2}):
        refused = await club.desk.draft(referee, Draft(BulaChange(amounts, end), "x"))
        assert not refused.ok
        assert "je završen" in refused.text
        assert f"posle ruke {end}" in refused.text
    whole = await club.desk.draft(referee, Draft(BulaChange({"ana": 2}), "x"))
    assert not whole.ok
    assert "je završen" in whole.text
    score = compute_paper(game).hands[end - 1].score
    assert score is not None
    for nick in PLAYERS:
        seat = game.seat_of(nick)
        if score.declarer is not None and seat in score.fallen:
            assert not (await say(commands, club, nick, f"/ispravka {end}")).ok
    assert await club.db.paper_changes.rows(game.number) == []


# 5. The referee stays anonymous -----------------------------------------------------------------------------------


class CapturingServer(LoggingGameServer):
    def __init__(self) -> None:
        super().__init__()
        self.papers: list[dict[str, Any]] = []

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        self.papers.append(paper)
        await super().paper_changed(game, paper)


async def test_the_paper_shows_the_trial_number_never_the_referees_name(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = await people(club)
    server = CapturingServer()
    club.desk.deps.game_server = server
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    trial = await take(club, 200)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(BulaChange({"petar": 4}, 4), "vređanje"))).ok
    assert (await club.desk.finish(referee)).ok
    member_view = (await say(commands, club, "jelena", "/papir 200")).text
    assert f"(suđenje {trial})" in member_view
    assert "sudija1" not in member_view
    assert f"(sudija1, suđenje {trial})" in (await say(commands, club, "mod", "/papir 200")).text
    assert f"(sudija1, suđenje {trial})" in (await say(commands, club, "sudija1", "/papir 200")).text
    [sent] = server.papers
    [change] = [c for h in sent["hands"] for c in h["changes"]]
    assert (change["who"], change["trial"]) == (None, trial)
    assert "sudija1" not in json.dumps(sent)
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "club.db")
    assert await cli(["papir", "200", "--db", db, "--json", "--as", "jelena"]) == 0
    out = capsys.readouterr().out
    assert "sudija1" not in out
    assert json.loads(out)["hands"][3]["changes"][0]["trial"] == trial
    assert await cli(["papir", "200", "--db", db, "--json", "--as", "mod"]) == 0
    assert json.loads(capsys.readouterr().out)["hands"][3]["changes"][0]["who"] == "sudija1"
    assert await cli(["papir", "200", "--db", db, "--as", "nepoznat"]) == 1
    assert capsys.readouterr().err.strip() == SR.t("cli.unknown_member", nick="nepoznat")


# 6. The whole conversation -----------------------------------------------------------------------------------------


async def test_presude_shows_every_message_labelled_by_function_and_pages_long_ones(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = await people(club)
    await club.member("vecnik", "councilor")
    await club.game(100)
    trial = await take(club, 100)
    ana, referee = await club.get("ana"), await club.get("sudija1")
    await club.desk.trials.say(ana, "Petar je namerno napustio partiju.")
    await club.desk.trials.say(referee, "Kada tačno?")
    for k in range(23):
        await club.desk.trials.say(ana, f"poruka {k}")
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "nema dokaza"))).ok  # Bez presude, with its reason
    assert (await club.desk.finish(referee)).ok
    for_ana = (await say(commands, club, "ana", "/presude 100")).text
    assert "sudija: Kada tačno?" in for_ana
    assert "ana: Petar je namerno" in for_ana
    assert "sudija1" not in for_ana
    assert SR.t("presude.more", more=5, game=100, trial=trial, page=2) in for_ana
    assert "poruka 17" in for_ana
    assert "poruka 18" not in for_ana
    page2 = (await say(commands, club, "ana", f"/presude 100 {trial} 2")).text
    assert page2.startswith(SR.t("presude.page", trial=trial, game=100, first=21, last=25, total=25, page=2, pages=2))
    assert "poruka 22" in page2
    assert "poruka 17" not in page2
    assert not (await say(commands, club, "ana", f"/presude 100 {trial} 3")).ok
    assert not (await say(commands, club, "ana", "/presude 100 99")).ok
    for_mod = (await say(commands, club, "mod", "/presude 100")).text
    assert "sudija1: Kada tačno?" in for_mod
    outsider = (await say(commands, club, "jelena", "/presude 100")).text  # neither a player nor an official
    assert "Kada tačno?" not in outsider
    assert "Bez presude" in outsider
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "club.db")
    assert await cli(["presude", "100", "--db", db, "--json", "--as", "ana"]) == 0
    [shown] = json.loads(capsys.readouterr().out)["trials"]
    assert shown["referee"] is None
    assert len(shown["messages"]) == 25
    assert shown["messages"][1] == {"at": "2026-11-30T12:00:00Z", "author": "sudija", "text": "Kada tačno?"}
    assert await cli(["presude", "100", "--db", db, "--json"]) == 0
    [full] = json.loads(capsys.readouterr().out)["trials"]
    assert full["referee"] == "sudija1"
    assert full["messages"][1]["author"] == "sudija1"
    assert await cli(["presude", "100", "--db", db]) == 0
    assert "poruka 22" in capsys.readouterr().out  # the operator's text has the whole conversation


# 7. /sudija without a number away from a table --------------------------------------------------------------------


async def test_sudija_without_a_number_never_reaches_a_game_in_progress_away_from_the_table(club: Club) -> None:
    await people(club)
    await club.game(300, status=GameStatus.IN_PROGRESS, ended_ago=None)
    await club.desk.seat(await club.get("ana"), None)  # she stood up from the table (the game goes on)
    ana = await club.get("ana")
    refused = await club.desk.calls.call(ana, None)
    assert not refused.ok
    assert refused.text == SR.t("call.nothing_eligible", days=7)
    await club.game(100, ended_ago=timedelta(hours=3))
    called = await club.desk.calls.call(ana, None)
    assert called.ok
    assert "100" in called.text
    await club.desk.calls.withdraw(ana)
    await club.desk.seat(ana, 300)
    at_table = await club.desk.calls.call(await club.get("ana"), None)
    assert at_table.ok
    assert "300" in at_table.text


# 8. The call's deadline is the law --------------------------------------------------------------------------------


async def test_a_sudi_press_one_second_after_the_deadline_with_no_timer_run_is_refused_and_expires_the_call(
    club: Club,
) -> None:
    await people(club)
    await club.game(100)
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    club.clock.advance(call.deadline - club.clock.now() + timedelta(seconds=1))  # no run_due: the timer never ran
    refused = await club.desk.trials.take(await club.get("sudija1"), call.id)
    assert not refused.ok
    assert refused.text == SR.t("take.expired", game=100)
    fresh = await club.db.calls.get(call.id)
    assert fresh is not None
    assert fresh.state == "expired"
    assert await club.db.trials.for_game(100) == []
    assert SR.t("call.expired", game=100, minutes=5) in [s.text for s in club.chat.to("dm:ana")]
    await club.desk.run_due()  # a late timer changes nothing
    assert [s.text for s in club.chat.to("dm:ana")].count(SR.t("call.expired", game=100, minutes=5)) == 1


async def test_a_press_just_before_the_deadline_still_takes_the_call(club: Club) -> None:
    await people(club)
    await club.game(100)
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    club.clock.advance(call.deadline - club.clock.now() - timedelta(seconds=1))
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok


# 9. Effects run from the trial's end ------------------------------------------------------------------------------


async def test_effects_applied_after_a_restart_run_from_the_trials_end_and_count_in_its_month(club: Club) -> None:
    await people(club)
    await club.game(100)
    trial_id = await take(club, 100)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=3, league_points=4), "x"))).ok
    trial = await club.db.trials.get(trial_id)
    assert trial is not None
    # A crash between recording the verdict and its effects: the verdict is recorded, nothing else.
    assert await club.db.trials.finish(
        trial_id, "verdict", club.clock.now(), referee.id, verdict=trial.draft, reason="x", expected_draft=trial.draft
    )
    ended = club.clock.now()
    club.clock.advance(timedelta(days=2))  # the bot comes back in December
    await club.desk.start()
    [penalty] = await club.db.penalties.for_member((await club.get("petar")).id)
    assert penalty.month == "2026-11"
    assert penalty.imposed_at == ended
    plavac = await club.db.penalties.plavac((await club.get("petar")).id)
    assert plavac is not None
    assert plavac.until == ended + timedelta(days=3)
    standing = await club.desk.penalties.standing(await club.get("petar"), "2026-11")
    assert standing.penalty_points == 4


# 10. Truthful answers in races ------------------------------------------------------------------------------------


async def test_a_draft_after_zavrsi_sudjenje_is_answered_that_it_was_not_saved(club: Club) -> None:
    commands = await people(club)
    await club.game(100)
    trial = await take(club, 100)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "bez osnova"))).ok  # what stands before the race
    drafted, finished = await asyncio.gather(
        club.desk.draft(referee, Draft(Penalty("petar", plavac_days=1), "x")), club.desk.finish(referee)
    )
    assert finished.ok
    assert drafted.ok or drafted.text == SR.t("draft.trial_ended", trial=trial)
    late = await say(commands, club, "sudija1", "/presuda kazna petar plavac 2 -- x")
    assert not late.ok
    assert late.text == SR.t("draft.trial_ended", trial=trial)
    stored = await club.db.trials.get(trial)
    assert stored is not None
    assert stored.outcome in ("verdict", "no_verdict")
    assert stored.verdict is not None
    assert stored.verdict["kind"] == "bez" or stored.verdict["plavac_days"] == 1  # never the late draft


async def test_a_draft_whose_trial_ends_between_its_check_and_its_write_is_not_claimed_saved(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    await people(club)
    await club.game(100)
    trial = await take(club, 100)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "bez osnova"))).ok  # what Završi finds meanwhile
    checked = club.desk.steps.checked

    landed: list[bool] = []

    async def finished_meanwhile(*args: Any) -> Any:
        result = await checked(*args)
        if not landed:  # once: Završi suđenje lands first (its own check runs unhindered)
            landed.append(True)
            assert (await club.desk.finish(referee)).ok
        return result

    monkeypatch.setattr(club.desk.steps, "checked", finished_meanwhile)
    reply = await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=1), "x"))
    assert not reply.ok
    assert reply.text == SR.t("draft.trial_ended", trial=trial)
    stored = await club.db.trials.get(trial)
    assert stored is not None
    assert stored.outcome == "no_verdict"
    assert stored.draft == stored.verdict == {"kind": "bez", "reason": "bez osnova"}  # the late draft: not written


async def test_a_draft_naming_a_member_twice_is_refused_whatever_the_letter_case(club: Club) -> None:
    commands = await people(club)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    await take(club, 200)
    for line in ("/presuda bule ruka 4 petar +2 petar +4 -- x", "/presuda bule ruka 4 petar +2 PETAR +4 -- x"):
        refused = await say(commands, club, "sudija1", line)
        assert not refused.ok
        assert "dva puta" in refused.text
    trial = await club.db.trials.open_for_game(200)
    assert trial is not None
    assert trial.draft is None


def test_the_discord_form_refuses_a_member_named_twice_too() -> None:
    from bot.registry.drafts import read_form as build_draft  # noqa: PLC0415 (imported where the test needs it)
    from bot.registry.spec import Usage  # noqa: PLC0415 (imported where the test needs it)
    from rules.verdicts import BulaChange, VerdictKind  # noqa: PLC0415 (imported where the test needs it)

    assert build_draft(VerdictKind.BULE, {"amounts": "ana +2, petar -4"}, SR.t).verdict == BulaChange(
        {"ana": 2, "petar": -4}
    )
    for text in ("ana +2, ana +4", "ana +2 ANA +4"):
        with pytest.raises(Usage) as refused:
            build_draft(VerdictKind.BULE, {"amounts": text}, SR.t)
        assert "dva puta" in str(refused.value)


async def test_two_promeni_in_the_same_instant_give_truthful_answers(club: Club) -> None:
    await people(club)
    await club.game(100)
    await club.game(101)
    trial = await take(club, 100)
    referee = await club.get("sudija1")
    one, two = await asyncio.gather(
        club.desk.trials.change_game(referee, 101), club.desk.trials.change_game(referee, 101)
    )
    assert sorted([one.ok, two.ok]) == [False, True]
    assert (one if not one.ok else two).text == SR.t("promeni.same", game=101)
    stored = await club.db.trials.get(trial)
    assert stored is not None
    assert stored.game == 101


# 11. Settled means finished ----------------------------------------------------------------------------------------


async def test_napustio_on_a_settled_game_is_refused_with_the_reason(club: Club) -> None:
    for nick in ("ana", "bojan", "ceca"):
        await club.member(nick)
    for nick in ("sudija1", "sudija2"):
        await club.member(nick, "referee")
    await settle_case(club, minutes=120, left=40)
    from rules.verdicts import Settlement  # noqa: PLC0415 (imported where the test needs it)

    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    await take(club, 500, caller="ana")
    refused = await club.desk.draft(await club.get("sudija1"), Draft(Penalty("ceca", abandoned=True), "x"))
    assert not refused.ok
    assert refused.text == SR.t("penalty.abandoned_settled", game=500)
    assert (await club.desk.draft(await club.get("sudija1"), Draft(Penalty("ceca", league_points=2), "x"))).ok


# 12. Reading never writes -----------------------------------------------------------------------------------------


async def test_read_commands_leave_the_database_byte_identical(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = await people(club)
    # An interrupted game whose napustio row is not written yet: /clan used to write it.
    game = generate_game(
        random.Random(400),
        400,
        hands=4,
        status=GameStatus.INTERRUPTED,
        players=PLAYERS,
        abandoned_by=("petar",),
        start=NOW - timedelta(hours=4),
    )
    await club.db.games.store([PreparedGame.of(replace(game, ended_at=NOW - timedelta(hours=1)))], NOW)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("marko", league_points=1), "x"))
    assert await club.db.penalties.napustio(400) is None
    for nick, line in (
        ("petar", "/clan"),
        ("ana", "/clan petar"),
        ("mod", "/clan petar"),
        ("ana", "/papir 100"),
        ("ana", "/presude 100"),
        ("mod", "/presude 400"),
        ("ana", "/korekcije 100"),
        ("ana", "/katalog"),
        ("mod", "/akti"),
    ):
        before, changes = await dump(club), club.db.connection.total_changes
        reply = await commands.handle(await club.get(nick), line)
        assert reply is not None
        assert reply.text
        assert (await dump(club), club.db.connection.total_changes) == (before, changes), line
    card = await club.desk.penalties.member_card(await club.get("petar"))
    assert card.napustio_total == 1  # counted, as the log gives it, without writing
    assert await club.db.penalties.napustio(400) is None
    await take(club, 100, caller="marko")  # the referee's own read controls, in an open trial
    for line in ("/ruke", "/sudjenja", "/presude 100 1"):
        before, changes = await dump(club), club.db.connection.total_changes
        reply = await commands.handle(await club.get("sudija1"), line)
        assert reply is not None, line
        assert reply.ok, line
        assert (await dump(club), club.db.connection.total_changes) == (before, changes), line
    path = tmp_path / "club.db"
    await club.db.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    monkeypatch.chdir(tmp_path)
    for args in (
        ["clan", "petar", "--db", str(path)],
        ["clan", "petar", "--db", str(path), "--json"],
        ["papir", "100", "--db", str(path), "--json"],
        ["presude", "100", "--db", str(path), "--json"],
        ["games", "--db", str(path), "--json"],
        ["papir", "100", "--db", str(path), "--as", "ana"],
    ):
        before_bytes, before_dump = path.read_bytes(), await dump(club)
        assert await cli(args) == 0, args
        capsys.readouterr()
        assert path.read_bytes() == before_bytes, args
        assert await dump(club) == before_dump, args


# 13. Small truths ---------------------------------------------------------------------------------------------------


async def test_the_councilor_call_says_when_no_councilor_is_in_the_lobby(club: Club) -> None:
    await people(club)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    trial = await take(club, 200)
    reply = await club.desk.trials.call_councilor(await club.get("sudija1"))
    assert reply.ok
    assert reply.text == SR.t("councilor.ok_none", minutes=5)
    assert club.chat.to(f"trial:{trial}")[-1].text == SR.t("councilor.called_none", minutes=5)
    [ccall] = await club.db.calls.pending_councilor_calls()  # the call still lives its 5 minutes
    await club.member("vecnik", "councilor")  # a councilor who comes to the lobby gets it
    await club.desk.presence(await club.get("vecnik"), True)
    assert (await club.desk.trials.join_as_councilor(await club.get("vecnik"), ccall.id)).ok


async def test_an_arbitar_verdict_reaches_each_member_once(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_arbitar(monkeypatch, transfer)
    players = ("ana", "marko", "robot_mile")
    fall: Fall = await fall_game(
        club, players=players, ai=True, want=lambda f: f.fallen != "robot_mile" and f.other == "robot_mile"
    )
    commands = Commands(club.desk)
    for nick in players[:2]:
        await club.member(nick)
    reply = await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")
    assert reply.ok, reply.text
    assert "Drugi pratilac je odigrao KS" in reply.text, reply.text
    texts = [s.text for s in club.chat.to(f"dm:{fall.fallen}")]
    assert reply.text not in texts  # answered once, in the reply
    for nick in players[:2]:
        if nick != fall.fallen:
            assert [s.text for s in club.chat.to(f"dm:{nick}")].count(reply.text) == 1


async def test_prikaz_ruke_shows_the_changes_attached_to_each_hand(club: Club) -> None:
    fall = await fall_game(club)
    commands = await people(club)
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    await take(club, fall.game.number, caller=fall.declarer)
    shown = (await club.desk.show_hands(await club.get("sudija1"))).text
    assert SR.t("hands.changes", n=fall.hand) in shown
    assert "Odlazak u bulu umesto drugog" in shown
    assert shown.count("+ Odlazak u bulu") == 1
