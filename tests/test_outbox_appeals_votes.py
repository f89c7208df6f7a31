"""Appeals and votes: every chat effect of their decisions is a row of the decision's own transaction (issue 22).

One test per decision — an appeal filed, taken, offered to a councilor who came later, upheld, rejected, its
hearing left, its three deadlines (nobody took it, the reminder, overdue); a vote proposed, closed without a
majority, carried (with its act) — committed, then the process gone before any effect reached a platform: a new
desk's start delivers what the decision said, the same texts to the same members, exactly once (a second start
says nothing again, and nothing is left pending). Then a late councilor's private copy begun but not done when the
process died: the console prints its repeat as an edit of itself.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_appeals import setup
from test_chat_outbox import crash_after_commit, of, pending
from test_penalties import judge
from test_votes import council

from bot.commands import Commands
from bot.config import Config
from bot.console.adapter import ConsoleChat
from bot.desk import Desk
from bot.messages import Catalogue
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW, Club, database_for, make_club
from fakes.chat import RecordingChat, Sent
from rules.appeals import AppealKind, AppealRules
from rules.verdicts import Draft, Nobody, Penalty
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.states import AppealState, DeliveryState, OutboxState, VoteState
from storage.trials import Trial


async def restart(club: Club, tmp_path: Path) -> Club:
    """A new process over the same database (with the club's configuration as the test set it): a platform
    connection that remembers nothing, the desk started."""
    await club.db.close()
    db = await open_database(database_for(tmp_path))
    chat = RecordingChat()
    server = LoggingGameServer()
    desk = Desk(db, Chats([chat]), server, club.clock, club.desk.config, ManualTimers())
    await desk.start()
    return Club(db, desk, chat, club.clock, desk.deps.timers, server, desk.config)  # type: ignore[arg-type]


async def said_nothing_again(club: Club, tmp_path: Path) -> None:
    """Delivered once: yet another start says nothing, and no effect is left."""
    again = await restart(club, tmp_path)
    assert again.chat.sent == []
    assert await pending(again) == 0
    await again.db.close()


async def crash(club: Club) -> None:
    """The process dies right after the next decision's commit (`crash_after_commit`); what was said before is
    forgotten, so the test sees only what comes after."""
    await crash_after_commit(club)
    club.chat.clear()
    club.server.calls.clear()


def dms(club: Club, nick: str) -> list[Sent]:
    """What reached him privately: messages, copies of notices and their edits."""
    return club.chat.to(f"dm:{nick}")


def told(club: Club, nick: str) -> list[str]:
    """What he was told privately (not a copy of a notice, nor its edit)."""
    return [s.text for s in of(club.chat, "tell") if s.where == f"dm:{nick}"]


async def appealed(tmp_path: Path, appeals: AppealRules | None = None) -> Club:
    """Petar's plavac of game 100 (trial 1), appealed by him: appeal #1, its notice delivered."""
    club = await make_club(tmp_path)
    trial = await setup(club, appeals=appeals)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam ja")).ok
    return club


async def taken(tmp_path: Path, appeals: AppealRules | None = None) -> tuple[Club, int]:
    """Appeal #1 taken by v1: the club and the hearing's id."""
    club = await appealed(tmp_path, appeals)
    assert (await club.desk.press(await club.get("v1"), "appeal_take", 1)).ok
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.hearing is not None
    return club, appeal.hearing


# Appeals ----------------------------------------------------------------------------------------------------
async def test_an_appeal_filed_then_a_crash_is_posted_to_the_councilors_after_the_restart_exactly_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    trial = await setup(club)
    await crash(club)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam ja")).ok
    assert [s for s in club.chat.sent if "Žalba #1" in s.text] == []  # the crash came first: nobody pinged
    assert await pending(club) == 1
    pinged = await club.db.connection.execute_fetchall("SELECT member FROM appeal_pings WHERE appeal = 1", ())
    assert len(list(pinged)) == 4  # recorded with the appeal: v1, v2, v3, vecnik0

    after = await restart(club, tmp_path)
    appeal = await after.db.appeals.get(1)
    assert appeal is not None
    posts = [s for s in of(after.chat, "post") if s.where == "#referees"]
    assert [p.text for p in posts] == [await after.desk.appeals.appeal_text(appeal)]
    assert set(posts[0].mention) == {"v1", "v2", "v3", "vecnik0"}
    assert [b.action for b in posts[0].buttons] == ["appeal_take"]
    assert await after.db.calls.notices("councilor:appeal:1") != []  # kept: edited when it is taken
    await said_nothing_again(after, tmp_path)


async def trial_of(club: Club) -> Trial:
    trial = await club.db.trials.get(1)
    assert trial is not None
    return trial


async def test_preuzmi_committed_then_a_crash_opens_the_hearing_after_the_restart_exactly_once(tmp_path: Path) -> None:
    club = await appealed(tmp_path)
    await crash(club)
    assert (await club.desk.press(await club.get("v1"), "appeal_take", 1)).ok
    assert of(club.chat, "open") == []  # a hearing nobody can talk in, until the restart
    assert club.server.calls == []
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.hearing is not None

    after = await restart(club, tmp_path)
    taken_text = after.desk.t("appeal.notice_taken", appeal=1, trial=1, councilor="v1")
    edits = of(after.chat, "edit")
    assert edits != []
    assert {e.text for e in edits} == {taken_text}  # every copy of the notice says who took it
    opened = of(after.chat, "open")
    assert [o.where for o in opened] == [f"trial:{appeal.hearing}"]
    assert opened[0].members == ("petar", "v1")
    assert opened[0].text == after.desk.t(
        "appeal.hearing_opened", appeal=1, trial=1, game=100, appellant="petar", councilor="v1", text="nisam ja"
    )
    assert [b.action for b in opened[0].buttons] == ["hands", "history", "finish", "leave"]
    kinds = [s.kind for s in after.chat.sent]
    assert kinds.index("edit") < kinds.index("open")
    # The effect blocks his offers, and the start's resync of the open hearing again (idempotent).
    assert after.server.calls.count(("block_offers", "petar")) == 2
    await said_nothing_again(after, tmp_path)


async def test_a_councilor_arriving_later_then_a_crash_is_offered_the_appeal_after_the_restart_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    trial = await setup(club)
    await club.desk.presence(await club.get("v3"), False)  # not in the lobby: not pinged at first
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    await crash(club)
    await club.desk.presence(await club.get("v3"), True)
    assert dms(club, "v3") == []

    after = await restart(club, tmp_path)
    offered = dms(after, "v3")
    assert len(offered) == 1
    assert [b.action for b in offered[0].buttons] == ["appeal_take"]
    assert "Žalba #1" in offered[0].text
    assert "dm:v3" in {n.place for n in await after.db.calls.notices("councilor:appeal:1")}  # edited with the rest
    await after.desk.presence(await after.get("v3"), False)
    await after.desk.presence(await after.get("v3"), True)
    assert len(dms(after, "v3")) == 1  # his ping was written with the copy: offered once
    assert (await after.desk.press(await after.get("v1"), "appeal_take", 1)).ok
    taken_text = after.desk.t("appeal.notice_taken", appeal=1, trial=1, councilor="v1")
    assert [e.where for e in of(after.chat, "edit") if e.text == taken_text].count("dm:v3") == 1
    await after.db.close()


async def test_an_upheld_appeal_then_a_crash_is_told_to_the_appellant_after_the_restart_once(tmp_path: Path) -> None:
    club, hearing = await taken(tmp_path)
    v1 = await club.get("v1")
    assert (await club.desk.draft(v1, Draft(Nobody(), "kažnjen je nevin igrač"))).ok
    await crash(club)
    upheld = await Commands(club.desk).handle(v1, "/resi 1 usvojena")
    assert upheld is not None
    assert upheld.ok
    assert told(club, "petar") == []  # the appeal's word and the lifted plavac's (the penalties') both wait
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.UPHELD

    after = await restart(club, tmp_path)
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    (decision,) = [t for t in told(after, "petar") if "usvojena" in t]
    assert "je usvojena" in decision
    assert "Nova presuda" in decision
    decided = after.desk.t("appeal.notice_decided", appeal=1, trial=1, state=after.desk.t("appeal.state_upheld"))
    edits = of(after.chat, "edit")
    assert edits != []
    assert {e.text for e in edits} == {decided}
    kinds = [s.kind for s in after.chat.sent if s.kind != "close"]
    assert kinds.index("tell") < kinds.index("edit")  # the appeal's queue in the order written
    # the hearing's space closes in its call's queue, side by side with the appeal's (another chat)
    assert [s.kind for s in after.chat.sent if s.where == f"trial:{hearing}"][-1] == "close"
    await said_nothing_again(after, tmp_path)


async def test_a_rejected_appeal_then_a_crash_is_told_with_its_restriction_after_the_restart_once(
    tmp_path: Path,
) -> None:
    rules = AppealRules(
        kinds=(AppealKind("zalba", 30),),
        rejected_restriction_days=30,
        inadmissible_restriction_days=30,
        restriction_min_days=30,
        restriction_max_days=365,
    )
    club, hearing = await taken(tmp_path, rules)
    await crash(club)
    assert (await club.desk.appeals.decide_appeal(await club.get("v1"), 1, "odbijena", 60, "neosnovana")).ok
    assert dms(club, "petar") == []

    after = await restart(club, tmp_path)
    closed = of(after.chat, "close")
    assert [s.where for s in closed] == [f"trial:{hearing}"]
    assert closed[0].text == after.desk.t(
        "appeal.hearing_closed", appeal=1, state=after.desk.t("appeal.state_rejected"), reason="neosnovana"
    )
    (decision,) = told(after, "petar")
    assert "neosnovana" in decision
    assert "60 dana" in decision
    rejected = after.desk.t("appeal.notice_decided", appeal=1, trial=1, state=after.desk.t("appeal.state_rejected"))
    assert {e.text for e in of(after.chat, "edit")} == {rejected}
    assert ("unblock_offers", "petar") in after.server.calls
    await said_nothing_again(after, tmp_path)


async def test_a_hearing_left_then_a_crash_posts_the_appeal_again_after_the_restart_once(tmp_path: Path) -> None:
    club, hearing = await taken(tmp_path)
    await crash(club)
    assert (await club.desk.trials.leave(await club.get("v1"))).ok
    assert of(club.chat, "post") == []
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED

    after = await restart(club, tmp_path)
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{hearing}"]
    posts = [s for s in of(after.chat, "post") if "Žalba #1" in s.text]
    assert len(posts) == 1
    assert [b.action for b in posts[0].buttons] == ["appeal_take"]
    assert "v1" in posts[0].mention  # he left the hearing, not the lobby: he may take it again
    await said_nothing_again(after, tmp_path)


async def test_an_appeal_nobody_took_then_a_crash_tells_every_councilor_after_the_restart_once(
    tmp_path: Path,
) -> None:
    club = await appealed(tmp_path)
    await crash(club)
    await club.advance(timedelta(minutes=5))
    waiting = club.desk.t("appeal.waiting", appeal=1, trial=1, minutes=club.desk.config.call_minutes)
    assert [s for s in club.chat.sent if s.text == waiting] == []

    after = await restart(club, tmp_path)
    told = [s for s in of(after.chat, "tell") if s.text == waiting]
    assert sorted(s.where for s in told) == ["dm:v1", "dm:v2", "dm:v3", "dm:vecnik0"]
    assert all([b.action for b in s.buttons] == ["appeal_take"] for s in told)
    await said_nothing_again(after, tmp_path)


async def test_the_review_reminder_then_a_crash_is_posted_after_the_restart_once(tmp_path: Path) -> None:
    club = await appealed(tmp_path)
    await club.advance(timedelta(minutes=5))
    await crash(club)
    await club.advance(timedelta(days=12))  # review 14 days, reminded 2 days before
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.reminded
    reminder = club.desk.t("appeal.reminder", appeal=1, trial=1, until=appeal.review_deadline)
    assert [s for s in club.chat.sent if s.text == reminder] == []

    after = await restart(club, tmp_path)
    posts = [s for s in of(after.chat, "post") if s.text == reminder]
    assert [s.where for s in posts if s.where == "#referees"] == ["#referees"]
    assert set(posts[0].mention) == {"v1", "v2", "v3", "vecnik0"}
    await said_nothing_again(after, tmp_path)


async def test_an_overdue_review_then_a_crash_is_posted_after_the_restart_once(tmp_path: Path) -> None:
    club = await appealed(tmp_path)
    await club.advance(timedelta(days=12, minutes=5))
    await crash(club)
    await club.advance(timedelta(days=2))
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.overdue
    overdue = club.desk.t("appeal.overdue", appeal=1, trial=1, until=appeal.review_deadline)

    after = await restart(club, tmp_path)
    assert [(s.where, s.text) for s in of(after.chat, "post")] == [("#referees", overdue)]
    await said_nothing_again(after, tmp_path)


# Votes ------------------------------------------------------------------------------------------------------
async def test_a_vote_proposed_then_a_crash_is_posted_to_the_councilors_after_the_restart_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    await council(club, 5)
    await crash(club)
    assert (await club.desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna")).ok
    assert of(club.chat, "post") == []
    (vote,) = await club.db.votes.open_votes()

    after = await restart(club, tmp_path)
    posts = [s for s in of(after.chat, "post") if s.where == "#referees"]
    assert [p.text for p in posts] == [
        after.desk.votes.notice_text(vote.id, "v1", "ana", "referee", vote.action, "neaktivna", vote.deadline)
    ]
    assert set(posts[0].mention) == {"v1", "v2", "v3", "v4", "v5"}
    assert [b.action for b in posts[0].buttons] == ["vote_yes", "vote_no"]
    assert sorted(s.where for s in of(after.chat, "post") if s.where != "#referees") == [
        f"dm:v{i}" for i in range(1, 6)
    ]
    assert await after.db.calls.notices(f"councilor:vote:{vote.id}") != []  # kept: edited when it closes
    await said_nothing_again(after, tmp_path)


async def test_a_vote_closed_at_its_deadline_then_a_crash_is_told_after_the_restart_once(tmp_path: Path) -> None:
    club = await make_club(tmp_path)
    await council(club, 5)
    assert (await club.desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna")).ok
    (vote,) = await club.db.votes.open_votes()
    await crash(club)
    await club.advance(timedelta(days=club.desk.config.governance.vote_days))
    closed = await club.db.votes.get(vote.id)
    assert closed is not None
    assert closed.state is VoteState.FAILED
    assert of(club.chat, "edit") == []

    after = await restart(club, tmp_path)
    failed = after.desk.t(
        "vote.closed_failed",
        vote=vote.id,
        nick="ana",
        role=after.desk.t("role.referee"),
        action=after.desk.t(f"vote.action_{vote.action}"),
        yes=1,
        no=0,
        electorate=5,
        needed=3,
    )
    assert {e.text for e in of(after.chat, "edit")} == {failed}
    assert told(after, "v1") == [failed]  # the proposer
    assert dms(after, "ana") == []  # nothing was done to her
    assert (await after.get("ana")).is_referee
    await said_nothing_again(after, tmp_path)


async def test_a_carried_vote_then_a_crash_has_done_its_act_and_tells_of_it_after_the_restart_once(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    await council(club, 5)
    assert (await club.desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna")).ok
    (vote,) = await club.db.votes.open_votes()
    assert (await club.desk.press(await club.get("v2"), "vote_yes", vote.id)).ok
    await crash(club)
    carried = await club.desk.press(await club.get("v3"), "vote_yes", vote.id)
    assert carried.ok
    assert "usvojeno" in carried.text
    assert not (await club.get("ana")).is_referee  # the act is written with the closing, crash or not
    assert of(club.chat, "edit") == []
    assert dms(club, "ana") == []

    after = await restart(club, tmp_path)
    text = after.desk.t(
        "vote.closed_carried",
        vote=vote.id,
        nick="ana",
        role=after.desk.t("role.referee"),
        action=after.desk.t(f"vote.action_{vote.action}"),
        yes=3,
        no=0,
        electorate=5,
        needed=3,
    )
    assert {e.text for e in of(after.chat, "edit")} == {text}
    assert told(after, "v1") == [text]
    why = after.desk.t("vote.act_reason", vote=vote.id, reason="neaktivna")
    dismissed = after.desk.t("gov.told_dismissed", role=after.desk.t("role.referee"), reason=why)
    assert told(after, "ana") == [dismissed]
    tells = [s.where for s in of(after.chat, "tell")]
    assert tells == ["dm:v1", "dm:ana"]  # in the order written: the proposer, then the member it concerns
    kinds = [s.kind for s in after.chat.sent]
    assert kinds.index("edit") < kinds.index("tell")
    await said_nothing_again(after, tmp_path)


async def test_a_vote_carried_after_the_member_resigned_tells_him_nothing(tmp_path: Path) -> None:
    """The act changes nothing (she resigned meanwhile): the closing is told, the act's words are not written."""
    club = await make_club(tmp_path)
    await council(club, 5)
    assert (await club.desk.votes.dismiss(await club.get("v1"), "ana", "referee", "neaktivna")).ok
    (vote,) = await club.db.votes.open_votes()
    assert (await club.desk.press(await club.get("v2"), "vote_yes", vote.id)).ok
    ana = await club.get("ana")
    assert await club.db.members.set_role(ana.id, "referee", False, ana.id, club.clock.now(), "ostavka")
    club.chat.clear()
    assert (await club.desk.press(await club.get("v3"), "vote_yes", vote.id)).ok
    closed = await club.db.votes.get(vote.id)
    assert closed is not None
    assert closed.state is VoteState.CARRIED
    assert told(club, "ana") == []
    assert len(told(club, "v1")) == 1
    assert await pending(club) == 0
    await club.db.close()


async def test_an_offer_begun_but_not_done_is_repeated_on_the_console_as_an_edit_of_itself(tmp_path: Path) -> None:
    """The window between the platform's answer and the commit that says so, for a late councilor's private copy:
    after the restart the console prints it as an edit of what it may have shown, never as a second offer."""

    class Crash(BaseException):
        pass

    config = Config()
    db = await open_database(database_for(tmp_path))
    clock = ManualClock(NOW)
    out: list[str] = []
    desk = Desk(db, Chats([console_of(out, config)]), LoggingGameServer(), clock, config, ManualTimers())
    await desk.start()
    for nick, role in (("ana", ""), ("marko", ""), ("petar", ""), ("sudija1", "referee"), ("v1", "councilor")):
        member = await db.members.link("console", nick, nick, NOW)
        if role:
            await db.members.set_role(member.id, role, True, None, NOW)
        await db.members.set_presence(member.id, True, NOW)
    late = await db.members.link("console", "v3", "v3", NOW)
    await db.members.set_role(late.id, "councilor", True, None, NOW)
    club = Club(db, desk, RecordingChat(), clock, ManualTimers(), LoggingGameServer(), config)
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=3), "vređanje"))
    assert (await desk.appeals.file_appeal(await club.get("petar"), 1, None, "nisam ja")).ok

    async def crash_before_done(*args: Any, **kwargs: Any) -> None:
        raise Crash

    desk.delivery.chat_outbox.store.done = crash_before_done  # type: ignore[method-assign]
    out.clear()
    with pytest.raises(Crash):
        await desk.presence(await club.get("v3"), True)
    offered = [line for line in out if "Žalba #1" in line]
    assert len(offered) == 1
    edited = Catalogue(config.language, config.timezone).t("console.edited")
    assert edited not in offered[0]

    await db.close()
    db = await open_database(database_for(tmp_path))
    out.clear()
    again = Desk(db, Chats([console_of(out, config)]), LoggingGameServer(), clock, config, ManualTimers())
    await again.start()
    repeated = [line for line in out if "Žalba #1" in line]
    assert len(repeated) == 1
    assert repeated[0].startswith("[dm v3]")
    assert edited in repeated[0]  # an edit of the copy it may have shown
    assert "dm:v3" in {n.place for n in await db.calls.notices("councilor:appeal:1")}
    (copy,) = [e for e in await ChatOutboxStore(db).listing() if e.kind == "offer_call"]
    assert copy.state is OutboxState.SENT
    assert copy.deliveries == {"console": DeliveryState.DONE}
    assert set(await ChatOutboxStore(db).counts()) == {"sent"}  # nothing left, nothing failed
    await db.close()


def console_of(out: list[str], config: Config) -> ConsoleChat:
    return ConsoleChat(out.append, Catalogue(config.language, config.timezone))
