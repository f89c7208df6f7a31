"""The crash windows between an appeal's or a vote's two steps (issue 22): the process dies right after the first
commit, before anything else runs, and after the restart the club is as without the crash, every member told once.

- A hearing's end and its appeal's decision (upheld, rejected) or its putting back (the hearing left) are one
  transaction: dead right after `TrialStore.finish`, the appeal is decided (or waits again) all the same — before,
  it stayed taken with its hearing closed, and /resi refused it for good.
- A carried vote's aftermath (the appointed member offered the calls waiting, the dismissed councilor's hearing
  ended) runs after the closing's commit; dead right after `VoteStore.close`, the start does it, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_appeals import setup
from test_outbox_appeals_votes import crash, dms, of, pending, restart, said_nothing_again, taken, told
from test_votes import council

from bot.commands import Commands
from club import make_club
from rules.appeals import AppealKind, AppealRules
from rules.verdicts import Draft, Nobody
from storage.states import AppealState, TrialOutcome, VoteState


class Died(BaseException):
    """The process killed (nothing in the desk catches it, as nothing survives a kill -9)."""


def dies_after(store: object, name: str) -> None:
    """The process dies right after `store.name` returns: its transaction committed, nothing after it runs."""
    real = getattr(store, name)

    async def then_dead(*args: Any, **kwargs: Any) -> Any:
        await real(*args, **kwargs)
        raise Died

    setattr(store, name, then_dead)


# The hearing's end and the appeal's decision ----------------------------------------------------------------
async def test_dead_right_after_a_rejected_hearing_ends_the_appeal_is_decided_and_told_once(tmp_path: Path) -> None:
    rules = AppealRules(
        kinds=(AppealKind("zalba", 30),),
        rejected_restriction_days=30,
        inadmissible_restriction_days=30,
        restriction_min_days=30,
        restriction_max_days=365,
    )
    club, hearing = await taken(tmp_path, rules)
    await crash(club)
    dies_after(club.db.trials, "finish")
    with pytest.raises(Died):
        await club.desk.appeals.decide_appeal(await club.get("v1"), 1, "odbijena", 60, "neosnovana")

    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.REJECTED
    assert appeal.restriction_days == 60
    ban = await after.db.appeals.ban((await after.get("petar")).id)
    assert ban is not None
    ended = await after.db.trials.get(hearing)
    assert ended is not None
    assert ended.outcome is TrialOutcome.NO_VERDICT
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    (decision,) = told(after, "petar")
    assert "neosnovana" in decision
    assert "60 dana" in decision
    rejected = after.desk.t("appeal.notice_decided", appeal=1, trial=1, state=after.desk.t("appeal.state_rejected"))
    assert {e.text for e in of(after.chat, "edit")} == {rejected}
    again = await after.desk.appeals.decide_appeal(await after.get("v1"), 1, "odbijena", 60, "neosnovana")
    assert not again.ok  # decided once; nothing waits for a decision
    assert await after.db.appeals.undecided() == []
    await said_nothing_again(after, tmp_path)


async def test_dead_right_after_an_upheld_hearing_ends_the_appeal_is_upheld_and_told_once(tmp_path: Path) -> None:
    club, hearing = await taken(tmp_path)
    v1 = await club.get("v1")
    assert (await club.desk.draft(v1, Draft(Nobody(), "kažnjen je nevin igrač"))).ok
    await crash(club)
    dies_after(club.db.trials, "finish")
    with pytest.raises(Died):
        await Commands(club.desk).handle(v1, "/resi 1 usvojena")

    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.UPHELD
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    (decision,) = [t for t in told(after, "petar") if "usvojena" in t]
    assert "Nova presuda" in decision
    upheld = after.desk.t("appeal.notice_decided", appeal=1, trial=1, state=after.desk.t("appeal.state_upheld"))
    assert {e.text for e in of(after.chat, "edit")} == {upheld}
    await said_nothing_again(after, tmp_path)


async def test_dead_right_after_a_hearing_is_left_the_appeal_waits_again_and_is_posted_once(tmp_path: Path) -> None:
    club, hearing = await taken(tmp_path)
    await crash(club)
    dies_after(club.db.trials, "finish")
    with pytest.raises(Died):
        await club.desk.trials.leave(await club.get("v1"))

    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED
    assert appeal.hearing is None
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    posts = [s for s in of(after.chat, "post") if "Žalba #1" in s.text]
    assert len(posts) == 1
    assert [b.action for b in posts[0].buttons] == ["appeal_take"]
    assert "v1" in posts[0].mention  # he left the hearing, not the lobby: he may take it again
    assert await pending(after) == 0
    assert (await after.desk.press(await after.get("v2"), "appeal_take", 1)).ok  # Preuzmi works again
    await after.db.close()


# A carried vote's aftermath -----------------------------------------------------------------------------------
async def test_dead_right_after_an_appointing_vote_closes_the_new_referee_is_offered_the_waiting_call_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    await council(club, 5)
    for nick in ("marko", "jelena"):
        await club.member(nick)
    await club.game(100, ("ana", "marko", "jelena"))
    assert (await club.desk.calls.call(await club.get("marko"), 100)).ok  # ana plays: no referee may take it
    assert (await club.desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    (vote,) = await club.db.votes.open_votes()
    assert (await club.desk.press(await club.get("v2"), "vote_yes", vote.id)).ok
    await crash(club)
    dies_after(club.db.votes, "close")
    with pytest.raises(Died):
        await club.desk.press(await club.get("v3"), "vote_yes", vote.id)  # the third aye of five carries it
    assert (await club.get("petar")).is_referee
    (call,) = await club.db.calls.pending()
    assert (await club.get("petar")).id not in await club.db.calls.pinged(call.id)  # not offered yet

    after = await restart(club, tmp_path)
    closed = await after.db.votes.get(vote.id)
    assert closed is not None
    assert closed.state is VoteState.CARRIED
    offers = [s for s in dms(after, "petar") if [b.action for b in s.buttons] == ["take"]]
    assert len(offers) == 1
    assert "100" in offers[0].text
    why = after.desk.t("vote.act_reason", vote=vote.id, reason="iskusan")
    appointed = after.desk.t("gov.told_appointed", role=after.desk.t("role.referee"), reason=why)
    assert told(after, "petar") == [appointed, offers[0].text]  # the act's word, then the copy of the call
    await said_nothing_again(after, tmp_path)


async def test_dead_right_after_a_dismissing_vote_closes_the_councilors_hearing_ends_and_the_appeal_waits_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    trial = await setup(club, councilors=4)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    assert (await club.desk.press(await club.get("v1"), "appeal_take", 1)).ok
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    hearing = appeal.hearing
    assert (await club.desk.votes.dismiss(await club.get("v2"), "v1", "councilor", "pristrasan")).ok
    (vote,) = await club.db.votes.open_votes()
    assert (await club.desk.press(await club.get("v3"), "vote_yes", vote.id)).ok
    await crash(club)
    dies_after(club.db.votes, "close")
    with pytest.raises(Died):
        await club.desk.press(await club.get("vecnik0"), "vote_yes", vote.id)  # 3 ayes of 4 carry it
    assert "councilor" not in (await club.get("v1")).roles
    still = await club.db.appeals.get(1)
    assert still is not None
    assert still.state is AppealState.TAKEN  # the window: dismissed, yet still hearing it

    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED
    assert await after.db.trials.judging((await after.get("v1")).id) is None
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    posts = [s for s in of(after.chat, "post") if "Žalba #1" in s.text]
    assert len(posts) == 1
    assert "v1" not in posts[0].mention  # no longer a councilor
    why = after.desk.t("vote.act_reason", vote=vote.id, reason="pristrasan")
    assert told(after, "v1") == [after.desk.t("gov.told_dismissed", role=after.desk.t("role.councilor"), reason=why)]
    assert (await after.desk.press(await after.get("v3"), "appeal_take", 1)).ok  # Preuzmi works again
    await said_nothing_again(after, tmp_path)
