"""The councilors' votes on admitting and dismissing referees and councilors (issue 19), through the desk, its
Da / Ne buttons and the typed commands: a majority reached early, a tie, a changed ballot, a councilor who resigns
mid-vote, the subject who may not vote on himself, the deadline acted on by run_due, and /akti listing it all."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.commands import Commands
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualTimers
from club import Club
from storage.states import VoteState


async def council(club: Club, count: int) -> list[str]:
    club.desk.config = replace(club.config, owner="vlasnik", owner_accounts=("test:vlasnik",))
    await club.member("vlasnik")
    await club.member("ana", "referee")
    await club.member("petar")
    nicks = [f"v{i}" for i in range(1, count + 1)]
    for nick in nicks:
        await club.member(nick, "councilor")
    return nicks


async def test_a_majority_reached_early_carries_the_dismissal_at_once(club: Club) -> None:
    await council(club, 5)  # 5 councilors: 3 ayes carry
    desk = club.desk
    opened = await desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna mesecima")
    assert opened.ok
    assert "3 glasa za od 5" in opened.text
    assert (await club.get("ana")).is_referee  # a proposal, not a dismissal
    post = [s for s in club.chat.of("post") if s.where == "#referees"][-1]
    assert [b.action for b in post.buttons] == ["vote_yes", "vote_no"]
    assert set(post.mention) == {"v1", "v2", "v3", "v4", "v5"}
    vote = (await club.db.votes.open_votes())[0]
    assert (await desk.press(await club.get("v2"), "vote_yes", vote.id)).ok
    assert (await club.get("ana")).is_referee
    third = await desk.press(await club.get("v3"), "vote_yes", vote.id)
    assert third.ok
    assert "usvojeno" in third.text
    assert not (await club.get("ana")).is_referee  # carried before the deadline, by 3 of 5
    assert (await club.db.votes.get(vote.id)).state is VoteState.CARRIED  # type: ignore[union-attr]
    late = await desk.press(await club.get("v4"), "vote_no", vote.id)
    assert not late.ok
    assert "završeno" in late.text
    assert any(f"Glasanje #{vote.id} je usvojeno" in shown for shown in club.chat.notices.values())  # edited


async def test_a_tie_does_not_carry(club: Club) -> None:
    await council(club, 4)  # 4 councilors: 3 ayes needed; 2 : 2 can no longer reach it
    desk = club.desk
    assert (await desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    await desk.press(await club.get("v2"), "vote_yes", vote.id)
    await desk.press(await club.get("v3"), "vote_no", vote.id)
    last = await desk.press(await club.get("v4"), "vote_no", vote.id)
    assert "nije usvojeno" in last.text
    assert "za 2, protiv 2 od 4" in last.text
    assert not (await club.get("petar")).is_referee
    assert (await club.db.votes.get(vote.id)).state is VoteState.FAILED  # type: ignore[union-attr]


async def test_a_ballot_changes_until_the_vote_closes_and_the_deadline_closes_it(club: Club) -> None:
    await council(club, 5)
    desk, commands = club.desk, Commands(club.desk)
    assert (await desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    v2 = await club.get("v2")
    first = await commands.handle(v2, f"/glasaj {vote.id} da")
    assert first is not None
    assert "Za 2, protiv 0" in first.text
    changed = await commands.handle(v2, f"/glasaj {vote.id} ne")
    assert changed is not None
    assert "Za 1, protiv 1" in changed.text
    await club.advance(timedelta(days=6, hours=23))
    assert (await club.db.votes.get(vote.id)).is_open  # type: ignore[union-attr]
    await club.advance(timedelta(hours=2))  # the deadline: run_due closes it with what stands (1 aye of 5)
    assert (await club.db.votes.get(vote.id)).state is VoteState.FAILED  # type: ignore[union-attr]
    assert not (await club.get("petar")).is_referee
    assert any("nije usvojeno" in s.text for s in club.chat.to("dm:v1"))


async def test_a_councilor_who_resigns_mid_vote_leaves_the_electorate(club: Club) -> None:
    await council(club, 4)  # 3 ayes needed of 4
    desk = club.desk
    assert (await desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    await desk.press(await club.get("v2"), "vote_yes", vote.id)
    assert (await club.db.votes.get(vote.id)).is_open  # type: ignore[union-attr]  # 2 of 3 needed
    # v4 resigns: 3 councilors remain, 2 ayes (more than half of 3) carry — his absence decides it
    assert (await desk.votes.resign(await club.get("v4"), "councilor")).ok
    assert (await club.db.votes.get(vote.id)).state is VoteState.CARRIED  # type: ignore[union-attr]
    assert (await club.get("petar")).is_referee


async def test_a_resigned_councilors_ballot_no_longer_counts(club: Club) -> None:
    await council(club, 5)
    desk = club.desk
    assert (await desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    await desk.press(await club.get("v2"), "vote_yes", vote.id)
    assert (await desk.votes.resign(await club.get("v2"), "councilor")).ok
    await desk.press(await club.get("v3"), "vote_yes", vote.id)  # 2 ayes of 4 (v2's no longer counts): 3 needed
    assert (await club.db.votes.get(vote.id)).is_open  # type: ignore[union-attr]
    refused = await desk.press(await club.get("v2"), "vote_yes", vote.id)
    assert not refused.ok
    assert "Glasaju samo većnici" in refused.text


async def test_the_subject_may_not_vote_on_himself_nor_count(club: Club) -> None:
    await council(club, 4)
    desk = club.desk
    opened = await desk.votes.dismiss(await club.get("v1"), "v4", "councilor", "ne dolazi")
    assert opened.ok
    assert "od 3" in opened.text
    vote = (await club.db.votes.open_votes())[0]
    refused = await desk.press(await club.get("v4"), "vote_no", vote.id)
    assert not refused.ok
    assert "O sebi ne glasate" in refused.text
    assert not any(s.where == "dm:v4" and s.buttons for s in club.chat.sent)  # nor offered the buttons
    assert (await desk.press(await club.get("v2"), "vote_yes", vote.id)).ok
    assert "councilor" not in (await club.get("v4")).roles


async def test_one_councilor_never_decides_and_the_owner_dismisses_alone_for_a_grave_violation(club: Club) -> None:
    await council(club, 1)
    desk = club.desk
    alone = await desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna")
    assert not alone.ok
    assert (await club.get("ana")).is_referee
    # the owner alone: only on the ground chosen explicitly (not any reason), and the councilors are told
    assert not (await desk.votes.dismiss(await club.get("vlasnik"), "ana", "referee", "ne sviđa mi se")).ok
    assert (await club.get("ana")).is_referee
    owner = await desk.votes.dismiss(
        await club.get("vlasnik"), "ana", "referee", "varanje u partiji 17", "teze_krsenje"
    )
    assert owner.ok
    assert "težeg kršenja" in owner.text
    assert not (await club.get("ana")).is_referee
    assert not (await desk.votes.dismiss(await club.get("vlasnik"), "v1", "councilor", "", "teze_krsenje")).ok  # stated
    told = [s for s in club.chat.sent if s.where == "dm:v1" and "varanje u partiji 17" in s.text]
    assert len(told) == 1
    assert "težeg kršenja pravila" in told[0].text


async def test_every_ballot_and_vote_is_in_the_acts(club: Club) -> None:
    await council(club, 3)
    desk = club.desk
    assert (await desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    await desk.press(await club.get("v2"), "vote_no", vote.id)
    await desk.press(await club.get("v2"), "vote_yes", vote.id)
    acts = await desk.governance.acts(await club.get("v3"))
    text = acts.text
    assert f"v1 predlaže glasanje #{vote.id} (prijem: petar, sudija)" in text
    assert f"v2 glasa protiv u glasanju #{vote.id} o petar" in text
    assert f"v2 glasa za u glasanju #{vote.id} o petar" in text
    assert f"glasanje #{vote.id} (prijem: petar, sudija): usvojeno; za 2, protiv 0 od 3" in text
    assert "petar postaje sudija (odluka: v1)" in text


async def test_the_deadline_survives_a_restart(club: Club) -> None:
    await council(club, 3)
    assert (await club.desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    assert vote.deadline in await club.desk.open_deadlines()
    club.clock.advance(timedelta(days=8))  # the bot was down past the deadline
    await club.desk.start()
    assert (await club.db.votes.get(vote.id)).state is VoteState.FAILED  # type: ignore[union-attr]


async def test_a_desk_without_platforms_expires_calls_but_leaves_a_vote_to_the_process_holding_them(
    club: Club,
) -> None:
    """On PostgreSQL a process waiting for the club's gateway has no platforms: a vote's end tells members
    directly, so it is left to the process that holds them; a call's expiry goes through the chat outbox."""
    await council(club, 3)
    assert (await club.desk.votes.appoint(await club.get("v1"), "petar", "referee", "iskusan")).ok
    vote = (await club.db.votes.open_votes())[0]
    await club.game(500)
    assert (await club.desk.calls.call(await club.get("ana"), 500)).ok
    club.clock.advance(timedelta(days=8))
    waiting = Desk(club.db, Chats([]), LoggingGameServer(), club.clock, club.desk.config, ManualTimers())
    await waiting.run_due()
    assert [c.state for c in await club.db.calls.for_game(500)] == ["expired"]
    assert (await club.db.votes.get(vote.id)).is_open  # type: ignore[union-attr]
    await club.desk.run_due()  # the process with the platforms
    assert (await club.db.votes.get(vote.id)).state is VoteState.FAILED  # type: ignore[union-attr]
    assert any("nije usvojeno" in s.text for s in club.chat.to("dm:v1"))


async def test_a_single_councilors_denial_of_the_right_to_call_is_a_vote(club: Club) -> None:
    await council(club, 3)
    await club.game(100, ("ana", "petar", "v3"))
    desk = club.desk
    opened = await desk.votes.deny_call(await club.get("v1"), "petar", club.clock.now() + timedelta(days=5), "vređanje")
    assert opened.ok, opened.text
    assert "uskraćivanje prava poziva sudije" in opened.text
    assert (await club.db.members.call_ban((await club.get("petar")).id)) is None  # only proposed
    [vote] = await club.db.votes.open_votes()
    post = next(s for s in club.chat.of("post") if f"#{vote.id}" in s.text)
    assert "pravo poziva, do 5.12.2026." in post.text
    assert set(post.mention) == {"v1", "v2", "v3"}
    assert (await desk.calls.call(await club.get("petar"), 100)).ok  # he may still call while the vote runs
    await desk.calls.withdraw(await club.get("petar"), None)
    assert (await desk.votes.cast(await club.get("v2"), vote.id, False)).ok
    assert (await desk.votes.cast(await club.get("v3"), vote.id, False)).ok
    failed = await club.db.votes.get(vote.id)
    assert failed is not None
    assert failed.state is VoteState.FAILED
    assert await club.db.members.call_ban((await club.get("petar")).id) is None
    # proposed again and carried: the denial is the act, with the proposer as its author
    again = await desk.votes.deny_call(await club.get("v2"), "petar", None, "ponovljeno vređanje")
    assert again.ok
    [second] = await club.db.votes.open_votes()
    assert (await desk.votes.cast(await club.get("v3"), second.id, True)).ok
    ban = await club.db.members.call_ban((await club.get("petar")).id)
    assert ban is not None
    assert ban.until is None
    assert ban.by == (await club.get("v2")).id
    assert not (await desk.calls.call(await club.get("petar"), 100)).ok
    told = [s.text for s in club.chat.sent if s.where == "dm:petar"]
    assert any("ponovljeno vređanje" in t for t in told)
    # the owner denies alone, at once
    owner = await desk.votes.deny_call(await club.get("vlasnik"), "ana", None, "vređanje sudije")
    assert owner.ok
    assert await club.db.members.call_ban((await club.get("ana")).id) is not None
