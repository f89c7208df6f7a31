"""The start's check of every open trial's judge: one who no longer holds the function he judges in (a referee
for a trial, a councilor for a hearing) stops judging, however long the bot was down.

Losing a function and ending one's trial are two steps (a dismissal, a resignation, a carried vote), and a role
may be taken away at the server while the bot is down; either way the trial stayed open, its table paused, until
the judge next acted. Each test kills the process right after the first step, then starts it two days later
(past every start-up window), and the club is as if the second step had run: the trial over, the table running
again, the parties told once.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from test_appeals import setup
from test_crash_hearing_vote import Died, dies_after
from test_outbox_appeals_votes import crash, restart, said_nothing_again
from test_votes import council

from club import Club, make_club
from rules.gamelog import GameStatus
from storage.states import AppealState, EndReason

LATER = timedelta(days=2)


async def judging(tmp_path: Path) -> tuple[Club, int]:
    """Game 100 in progress, sudija1 judging ana's call (the table paused): the club and the trial's id."""
    club = await make_club(tmp_path)
    await council(club, 3)
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.game(100, status=GameStatus.IN_PROGRESS, ended_ago=None)
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
    trial = await club.db.trials.judging((await club.get("sudija1")).id)
    assert trial is not None
    assert trial.in_game
    assert ("pause_table", 100) in club.server.calls
    return club, trial.id


async def ended_for_dismissal(club: Club, trial_id: int) -> None:
    trial = await club.db.trials.get(trial_id)
    assert trial is not None
    assert not trial.is_open
    assert trial.end_reason == EndReason.REFEREE_DISMISSED
    assert ("resume_table", 100) in club.server.calls  # the table plays again


async def test_dead_right_after_a_referee_is_dismissed_his_trial_ends_on_a_start_two_days_later(
    tmp_path: Path,
) -> None:
    club, trial_id = await judging(tmp_path)
    await crash(club)
    dies_after(club.db.members, "set_role")
    with pytest.raises(Died):
        await club.desk.votes.dismiss(None, "sudija1", "referee", "neaktivan")  # the admin at the server acts alone
    assert not (await club.get("sudija1")).is_referee
    still = await club.db.trials.get(trial_id)
    assert still is not None
    assert still.is_open  # the window: no longer a referee, yet judging, the table paused

    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    await ended_for_dismissal(after, trial_id)
    assert [s.where for s in after.chat.sent if s.kind == "close"] == [f"trial:{trial_id}"]
    await said_nothing_again(after, tmp_path)


async def test_dead_right_after_a_referee_resigns_his_trial_ends_on_the_start(tmp_path: Path) -> None:
    club, trial_id = await judging(tmp_path)
    await crash(club)
    dies_after(club.db.members, "set_role")
    with pytest.raises(Died):
        await club.desk.votes.resign(await club.get("sudija1"), "referee")

    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    await ended_for_dismissal(after, trial_id)
    await said_nothing_again(after, tmp_path)


async def test_a_role_taken_away_while_the_bot_was_down_ends_the_trial_on_the_start(tmp_path: Path) -> None:
    club, trial_id = await judging(tmp_path)
    await crash(club)
    sudija = await club.get("sudija1")
    assert await club.db.members.set_role(sudija.id, "referee", False, None, club.clock.now(), "na serveru")

    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    await ended_for_dismissal(after, trial_id)
    await after.db.close()


async def test_a_referee_who_keeps_his_role_keeps_judging_after_the_start(tmp_path: Path) -> None:
    club, trial_id = await judging(tmp_path)
    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    trial = await after.db.trials.get(trial_id)
    assert trial is not None
    assert trial.is_open
    assert ("resume_table", 100) not in after.server.calls
    assert ("pause_table", 100) in after.server.calls  # the start tells the table again that it stays paused
    await after.db.close()


async def test_a_councilor_hears_an_appeal_without_being_a_referee_and_a_start_leaves_the_hearing_open(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    trial = await setup(club, councilors=4)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    assert (await club.desk.press(await club.get("v1"), "appeal_take", 1)).ok  # v1 is a councilor only
    assert not (await club.get("v1")).is_referee

    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.TAKEN
    assert appeal.hearing is not None
    assert await after.db.trials.judging((await after.get("v1")).id) is not None
    await after.db.close()


async def test_a_councilor_dismissed_while_the_bot_was_down_stops_hearing_and_the_appeal_waits_again(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    trial = await setup(club, councilors=4)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    assert (await club.desk.press(await club.get("v1"), "appeal_take", 1)).ok
    await crash(club)
    v1 = await club.get("v1")
    assert await club.db.members.set_role(v1.id, "councilor", False, None, club.clock.now(), "na serveru")

    club.clock.advance(LATER)
    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED  # back for Preuzmi
    assert await after.db.trials.judging(v1.id) is None
    assert (await after.desk.press(await after.get("v2"), "appeal_take", 1)).ok
    await after.db.close()
