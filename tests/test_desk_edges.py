"""Edges of the desk's rules found in review: Promeni and the clock, late arrivals, dismissal, presence,
duplicate names, standing up, restart resync, and numbers too large to mean anything."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.commands import Commands
from club import Club, make_club
from rules.gamelog import GameStatus
from rules.verdicts import BulaChange, Draft, NoVerdict


async def people(club: Club) -> None:
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")


async def take(club: Club, number: int, caller: str = "ana", referee: str = "sudija1") -> int:
    assert (await club.desk.calls.call(await club.get(caller), number)).ok
    call = await club.db.calls.pending_for_game(number)
    assert call is not None
    assert (await club.desk.trials.take(await club.get(referee), call.id)).ok
    return call.id


async def test_after_promeni_the_old_games_clock_runs_again(club: Club) -> None:
    await people(club)
    await club.game(100, ended_ago=timedelta(days=4, hours=6))
    await club.game(101, ended_ago=timedelta(days=1))
    await take(club, 100)
    referee = await club.get("sudija1")
    assert (await club.desk.trials.change_game(referee, 101)).ok
    await club.advance(timedelta(days=3))
    await club.desk.finish(referee)
    refused = await club.desk.calls.call(await club.get("ana"), 100)
    assert not refused.ok
    assert "zastarelo" in refused.text


async def test_a_late_referees_private_copy_is_edited_with_the_others(club: Club) -> None:
    await people(club)
    late = await club.member("kasni", "referee", online=False)
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    await club.desk.presence(late, True)
    private = [mid for mid, text in club.chat.notices.items() if "Poziv sudiji" in text and mid != "m1"]
    assert len(private) == 1
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.trials.take(await club.get("sudija1"), call.id)
    assert "prihvatio sudija sudija1" in club.chat.notices[private[0]]


async def test_a_councilor_who_arrives_during_a_councilor_call_gets_it_once(club: Club) -> None:
    await people(club)
    late = await club.member("vecnik", "councilor", online=False)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None)
    trial_id = await take(club, 200)
    referee = await club.get("sudija1")
    assert (await club.desk.trials.call_councilor(referee)).ok
    await club.desk.presence(late, True)
    await club.desk.presence(await club.get("vecnik"), False)
    await club.desk.presence(await club.get("vecnik"), True)
    offers = [s for s in club.chat.to("dm:vecnik") if s.buttons and s.buttons[0].action == "join"]
    assert len(offers) == 1
    # The trial ends before he answers: the councilor call's copies say so.
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "nema osnova"))).ok
    assert (await club.desk.finish(referee)).ok
    assert any("više ne važi" in text for text in club.chat.notices.values())
    ccall = (await club.db.calls.councilor_calls_for(trial_id))[0]
    assert not (await club.desk.trials.join_as_councilor(await club.get("vecnik"), ccall.id)).ok


async def test_a_dismissed_referee_stops_judging_and_an_offline_one_cannot_take(club: Club) -> None:
    await people(club)
    await club.member("vecnik", "councilor")
    await club.game(100)
    await club.game(101, ("marko", "petar", "jelena"))
    trial_id = await take(club, 100)
    reply = await club.desk.votes.dismiss(None, "sudija1", "referee", "teže kršenje pravila")  # the admin, alone
    assert reply.ok
    trial = await club.db.trials.get(trial_id)
    assert trial is not None
    assert trial.outcome == "interrupted"
    assert trial.end_reason == "referee_dismissed"
    await club.member("sudija2", "referee")
    await club.desk.presence(await club.get("sudija2"), False)
    await club.desk.calls.call(await club.get("jelena"), 101)
    call = await club.db.calls.pending_for_game(101)
    assert call is not None
    refused = await club.desk.trials.take(await club.get("sudija2"), call.id)
    assert not refused.ok
    assert "lobiju" in refused.text


async def test_nobody_appoints_himself(club: Club) -> None:
    await club.member("vecnik", "councilor")
    reply = await club.desk.votes.appoint(await club.get("vecnik"), "vecnik", "referee")
    assert not reply.ok
    assert "Sebi" in reply.text
    assert "referee" not in (await club.get("vecnik")).roles


async def test_a_player_named_twice_in_a_bula_change_is_refused(club: Club) -> None:
    await people(club)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    await take(club, 200)
    reply = await club.desk.draft(await club.get("sudija1"), Draft(BulaChange({"petar": 98, "PETAR": 98}, 4), ""))
    assert not reply.ok
    assert "dva puta" in reply.text


async def test_standing_up_returns_a_referee_from_a_table_in_progress_to_the_lobby(club: Club) -> None:
    await people(club)
    seated = await club.member("zauzet", "referee")
    await club.game(300, ("zauzet", "marko", "petar"), status=GameStatus.IN_PROGRESS, ended_ago=None)
    assert (await club.get("zauzet")).seated_game == 300
    await club.desk.seat(seated, None)
    assert (await club.get("zauzet")).seated_game is None
    await club.game(100)
    await club.desk.calls.call(await club.get("ana"), 100)
    assert "zauzet" in club.chat.of("post")[-1].mention


async def test_numbers_too_large_to_mean_anything_are_answered_not_crashed_on(club: Club) -> None:
    await people(club)
    commands = Commands(club.desk)
    for text in ("/sudija 99999999999999999999", "/presude 99999999999999999999", "/papir -99999999999999"):
        reply = await commands.handle(await club.get("ana"), text)
        assert reply is not None, text
        assert not reply.ok, text
        assert "Upotreba" in reply.text, text


async def test_a_restart_repeats_what_open_trials_need_and_rearms_the_offline_grace(tmp_path: Path) -> None:
    first = await make_club(tmp_path)
    await people(first)
    await first.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None)
    await take(first, 200)
    await first.desk.presence(await first.get("sudija1"), False)
    went_offline = first.clock.now()
    await first.db.close()
    second = await make_club(tmp_path)
    second.clock.set(went_offline + timedelta(seconds=30))
    await second.desk.start()
    assert ("pause_table", 200) in second.server.calls
    assert went_offline + timedelta(seconds=120) in second.timers.armed
    await second.advance(timedelta(seconds=90))
    trial = await second.db.trials.open_for_game(200)
    assert trial is None
    await second.db.close()


async def test_a_crash_between_recording_the_end_and_resuming_the_table_is_mended_at_start(tmp_path: Path) -> None:
    first = await make_club(tmp_path)
    await people(first)
    await first.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None)
    await take(first, 200)
    trial = await first.db.trials.open_for_game(200)
    assert trial is not None
    # The verdict is recorded, then the process dies before the game server hears "resume".
    assert await first.db.trials.finish(trial.id, "no_verdict", first.clock.now(), trial.referee)
    await first.db.close()
    second = await make_club(tmp_path)
    assert ("resume_table", 200) in second.server.calls
    assert ("pause_table", 200) not in second.server.calls
    await second.db.close()


async def test_a_member_in_two_trials_is_heard_in_the_one_he_typed_in(club: Club) -> None:
    await people(club)
    await club.member("sudija2", "referee")
    await club.game(100)
    await club.game(200, ("marko", "petar", "jelena"), status=GameStatus.IN_PROGRESS, ended_ago=None)
    await take(club, 100, caller="marko")  # marko's own call, out of game: trial 1
    await take(club, 200, caller="petar", referee="sudija2")  # his table's trial: trial 2
    marko = await club.get("marko")
    await club.desk.trials.say(marko, "za sto", 2)
    await club.desk.trials.say(marko, "za moj poziv", 1)
    await club.desk.trials.say(marko, "bez oznake")
    assert [m.text for m in await club.db.trials.messages(1)] == ["za moj poziv"]
    assert [m.text for m in await club.db.trials.messages(2)] == ["za sto", "bez oznake"]


async def test_the_game_server_gets_the_paper_after_a_verdict_changes_it(club: Club) -> None:
    await people(club)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    await take(club, 200)
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(BulaChange({"petar": 4}, 4), "vređanje"))).ok
    assert ("paper_changed", 200) not in club.server.calls  # a draft changes nothing
    assert (await club.desk.finish(referee)).ok
    assert ("paper_changed", 200) in club.server.calls
