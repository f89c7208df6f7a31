"""Penalties, governance, links and the briefing write what they tell as chat outbox rows of their decisions.

One test per decision moved (issue 22, build item 1): the decision committed, the process gone before its
effect, a new desk's start delivers it — exactly what a member saw when nothing crashed (the same scenario run
without a crash, on a database of its own, is the reference: the same messages, texts, buttons and order), and
exactly once (a second restart says nothing). Then the link hooks' own case: a platform hook that takes a
decision inside a delivery (as Telegram's marks the member online) has that decision's effects delivered at
once, without waiting on the delivery it runs in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

import pytest
from test_advice import GAME, store_fall_game
from test_chat_outbox import crash_after_commit
from test_desk_trials import open_trial
from test_penalties import judge, settle_case

from bot.config import CatalogueEntry, Config
from bot.desk import Desk
from bot.messages import Catalogue
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW, Club, database_for
from fakes.chat import RecordingChat, Sent, by_place
from rules.members import Member
from rules.verdicts import Draft, FallTransfer, Nobody, Penalty, Settlement
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.languages import set_member_language


@dataclass
class HookedChat(RecordingChat):
    """A platform with the link hooks Discord and Telegram have (`member_linked`, `member_unlinked`)."""

    platform: str = "discord"

    async def member_linked(self, member: Member) -> None:
        self.sent.append(Sent("linked", f"discord:{member.nick}", ""))

    async def member_unlinked(self, member: Member) -> None:
        self.sent.append(Sent("unlinked", f"discord:{member.nick}", ""))


class CodeServer(LoggingGameServer):
    """A game server that delivers link codes (the player reads his in the game)."""

    delivers_link_codes = True

    def __init__(self) -> None:
        super().__init__()
        self.codes: list[tuple[str, str]] = []

    async def deliver_link_code(self, nick: str, code: str) -> None:
        self.codes.append((nick, code))


async def desk_on(
    where: str | Path, chat: RecordingChat, server: LoggingGameServer, clock: ManualClock, config: Config
) -> Club:
    """A process of the club: a desk on the database at `where`, its platform and game server, started."""
    db = await open_database(where)
    timers = ManualTimers()
    desk = Desk(db, Chats([chat]), server, clock, config, timers)
    await desk.start()
    return Club(db, desk, chat, clock, timers, server, config)


async def a_club(where: str | Path, server: LoggingGameServer, config: Config) -> Club:
    club = await desk_on(where, HookedChat(), server, ManualClock(NOW), config)
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    for referee in ("sudija1", "sudija2", "sudija3"):
        await club.member(referee, "referee")
    await club.member("vecnik", "councilor")
    await club.member("mod", "moderator")
    return club


async def restart(club: Club, tmp_path: Path) -> Club:
    """A new process over the same database: a platform that remembers nothing, the desk started."""
    await club.db.close()
    return await desk_on(database_for(tmp_path), HookedChat(), type(club.server)(), club.clock, club.config)


Scenario = Callable[[Club, Callable[[], Awaitable[None]]], Awaitable[None]]


async def delivered_after_a_crash_as_without_one(
    tmp_path: Path, scenario: Scenario, server: type[LoggingGameServer] = LoggingGameServer, **settings: object
) -> list[Sent]:
    """Run `scenario` twice: without a crash (the reference, on an SQLite file of its own) and with the process
    dying right after the decision it marks (`decide`), then restarted. The restart delivers exactly what the
    reference showed from that mark on, once; what it showed is returned."""
    config = Config(**settings)  # type: ignore[arg-type]
    reference = await a_club(tmp_path / "reference.db", server(), config)
    seen = [0]

    async def mark() -> None:
        seen[0] = len(reference.chat.sent)

    await scenario(reference, mark)
    expected = reference.chat.sent[seen[0] :]
    await reference.db.close()
    assert expected, "the decision tells something"

    club = await a_club(database_for(tmp_path), server(), config)

    async def crash() -> None:
        club.chat.clear()
        await crash_after_commit(club)

    await scenario(club, crash)
    assert club.chat.sent == []  # committed, and the process died before anyone was told
    assert (await ChatOutboxStore(club.db).counts()).get("pending", 0) > 0
    after = await restart(club, tmp_path)
    assert by_place(after.chat.sent) == by_place(expected)  # each place's in order, all once
    assert (await ChatOutboxStore(after.db).counts()).get("pending", 0) == 0
    again = await restart(after, tmp_path)
    assert again.chat.sent == []  # delivered once: a second restart says nothing again
    await again.db.close()
    return expected


def told(sent: list[Sent], nick: str) -> list[str]:
    return [s.text for s in sent if s.kind == "tell" and s.where == f"dm:{nick}"]


# Governance ------------------------------------------------------------------------------------------------
async def appoint(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.votes.appoint(None, "marko", "referee", "iskusan igrač")).ok


async def dismiss(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.votes.dismiss(None, "sudija3", "referee", "neaktivan")).ok


async def deny_forever(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.votes.deny_call(None, "petar", None, "zloupotreba")).ok


async def deny_then_restore(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.votes.deny_call(None, "petar", NOW + timedelta(days=7), "zloupotreba")).ok
    assert (await club.desk.governance.restore_call(None, "petar", "oprošteno")).ok


CATALOGUE = Catalogue("sr")  # the club's language (Config's default)


@pytest.mark.parametrize(
    ("scenario", "nick", "texts"),
    [
        (appoint, "marko", [CATALOGUE.t("gov.told_appointed", role="sudija", reason="iskusan igrač")]),
        (dismiss, "sudija3", [CATALOGUE.t("gov.told_dismissed", role="sudija", reason="neaktivan")]),
        (deny_forever, "petar", [CATALOGUE.t("gov.told_denied_forever", reason="zloupotreba")]),
        (
            deny_then_restore,
            "petar",  # denied, then restored: in the order decided (his own queue)
            [
                CATALOGUE.t("gov.told_denied_until", until=NOW + timedelta(days=7), reason="zloupotreba"),
                CATALOGUE.t("gov.told_restored"),
            ],
        ),
    ],
    ids=["appoint", "dismiss", "deny_forever", "deny_until_then_restore"],
)
async def test_a_governance_act_committed_then_a_crash_is_told_after_the_restart_exactly_once(
    tmp_path: Path, scenario: Scenario, nick: str, texts: list[str]
) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, scenario)
    assert told(sent, nick) == texts


# Penalties -------------------------------------------------------------------------------------------------
async def impose(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await club.game(100)
    await set_member_language(club.db, (await club.get("petar")).id, "en", NOW)  # he reads English
    await decide()
    await judge(club, 100, Draft(Penalty("petar", plavac_days=2, league_points=3), "namerno napuštanje"))


async def impose_by_the_catalogue(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    penalties = replace(club.config.penalties, catalogue=(CatalogueEntry("zalba", "neosnovano", deny_call_days=30),))
    club.desk.config = replace(club.config, penalties=penalties)
    await club.game(100)
    await decide()
    await judge(club, 100, Draft(Penalty("ana", offence="zalba"), ""), caller="marko")


async def lift(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=2, league_points=4), "prvo suđenje"))
    await club.advance(timedelta(hours=6))
    await decide()
    await judge(club, 100, Draft(Nobody(), "greška u presudi"), caller="marko", referee="sudija2")


async def settle(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    for nick in ("bojan", "ceca"):
        await club.member(nick)
    await settle_case(club, minutes=120, left=40)
    await judge(club, 500, Draft(Penalty("ceca", league_points=3, abandoned=True), "odbila nastavak"))
    await decide()
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")


async def plavac_runs_out(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=1), ""))
    await decide()
    await club.advance(timedelta(days=1))


async def test_a_penalty_committed_then_a_crash_is_told_to_the_culprit_in_his_language_after_the_restart(
    tmp_path: Path,
) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, impose)
    en = Catalogue("en")
    what = [
        en.t("penalty.part_plavac", name=en.t("term.plavac"), days=2, until=NOW + timedelta(days=2)),
        en.t("penalty.part_league", points=3, league=en.t("term.league")),
    ]
    imposed = en.t("penalty.imposed", game=100, what="; ".join(what), reason="namerno napuštanje")
    assert told(sent, "petar") == [imposed]


async def test_a_catalogue_penalty_denying_the_call_committed_then_a_crash_is_told_after_the_restart(
    tmp_path: Path,
) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, impose_by_the_catalogue)
    denied = CATALOGUE.t("call.denied_until", until=NOW + timedelta(days=30))
    texts = told(sent, "ana")
    assert texts[0] == denied  # the denial first, then the penalty: in the order decided
    assert len(texts) == 2


async def test_a_lifted_penalty_committed_then_a_crash_is_told_after_the_restart_exactly_once(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, lift)
    [lifted] = told(sent, "petar")
    assert "ukinuta" in lifted
    assert "4 kaznena poena su vraćena" in lifted


async def test_a_settlements_cancelled_napustio_committed_then_a_crash_is_told_after_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, settle)
    [cancelled] = told(sent, "ceca")
    assert cancelled == CATALOGUE.t("settlement.napustio_cancelled", game=500, league=CATALOGUE.t("term.league"))


async def test_a_plavac_that_ran_out_committed_then_a_crash_is_told_after_the_restart_exactly_once(
    tmp_path: Path,
) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, plavac_runs_out)
    assert told(sent, "petar") == [CATALOGUE.t("plavac.ended", name=CATALOGUE.t("term.plavac"))]


# Links -----------------------------------------------------------------------------------------------------
async def ask(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.links.ask_link("discord", "500", "Jelena J.", "jovan")).ok


async def ask_for_a_code(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await decide()
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok
    # The code itself is an effect of the request too (delivered after the restart: tests/test_outbox_game_server).


async def approve(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok
    [request] = await club.db.links.pending()
    await decide()
    assert (await club.desk.press(await club.get("mod"), "link_approve", request.id)).ok


async def prove_by_code(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok
    [(_, code)] = club.server.codes  # type: ignore[attr-defined]
    await decide()
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan", code)).ok


async def unlink(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok
    [request] = await club.db.links.pending()
    assert (await club.desk.press(await club.get("mod"), "link_approve", request.id)).ok
    await decide()
    assert (await club.desk.links.unlink(await club.get("mod"), "jovan", None, "zamena naloga")).ok


async def test_a_link_request_committed_then_a_crash_reaches_the_approvers_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, ask)
    [request] = [s for s in sent if s.where == "dm:mod"]
    assert "jovan" in request.text
    assert [b.action for b in request.buttons] == ["link_approve", "link_deny"]


async def test_a_code_request_committed_then_a_crash_reaches_the_approvers_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, ask_for_a_code, CodeServer)
    assert [s.where for s in sent] == ["dm:mod"]


async def test_an_approved_link_committed_then_a_crash_is_synced_and_told_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, approve)
    assert [(s.kind, s.where) for s in sent] == [("linked", "discord:jovan"), ("tell", "dm:jovan")]
    assert sent[1].text == CATALOGUE.t("link.told_approved", nick="jovan")


async def test_a_link_proven_by_code_committed_then_a_crash_is_synced_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, prove_by_code, CodeServer)
    assert [(s.kind, s.where) for s in sent] == [("linked", "discord:jovan")]


async def test_an_unlink_committed_then_a_crash_is_synced_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, unlink)
    assert [(s.kind, s.where) for s in sent] == [("unlinked", "discord:jovan")]


# The briefing ----------------------------------------------------------------------------------------------
async def take_a_judged_game(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "pratio sa jednim rezonom"))).ok
    assert (await club.desk.finish(referee)).ok
    assert (await club.desk.calls.call(await club.get("ana"), GAME)).ok
    call = await club.db.calls.pending_for_game(GAME)
    assert call is not None
    await decide()
    assert (await club.desk.trials.take(await club.get("sudija2"), call.id)).ok


async def join_a_judged_game(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "pratio sa jednim rezonom"))).ok
    assert (await club.desk.finish(referee)).ok
    second = await open_trial(club, GAME, caller="ana", referee="sudija2")
    assert (await club.desk.trials.call_councilor(await club.get("sudija2"), second)).ok
    [ccall] = await club.db.calls.councilor_calls_for(second)
    await decide()
    assert (await club.desk.trials.join_as_councilor(await club.get("vecnik"), ccall.id)).ok


async def test_a_take_committed_then_a_crash_briefs_the_referee_after_the_space_opens(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, take_a_judged_game)
    kinds = [(s.kind, s.where) for s in sent]
    [brief] = [s for s in sent if s.where == "dm:sudija2" and "Pre presude" in s.text]
    assert "⚠ ruka 2 je već presuđena u suđenju" in brief.text
    assert kinds.index(("tell", "dm:sudija2")) > max(i for i, (k, _) in enumerate(kinds) if k == "open")


async def test_a_councilor_joining_committed_then_a_crash_briefs_him_after_the_restart(tmp_path: Path) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, join_a_judged_game)
    [brief] = [s for s in sent if s.kind == "tell" and s.where == "dm:vecnik"]
    assert "⚠ ruka 2 je već presuđena u suđenju" in brief.text
    assert [s.kind for s in sent].index("add") < sent.index(brief)  # he is in the space first


async def move_a_trial_onto_a_judged_game(club: Club, decide: Callable[[], Awaitable[None]]) -> None:
    await club.game(340)
    await club.game(341)
    await open_trial(club, 340, caller="ana")
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=2), "namerno napuštanje"))).ok
    assert (await club.desk.finish(referee)).ok
    await open_trial(club, 341, caller="ana", referee="sudija2")
    await decide()
    assert (await club.desk.trials.change_game(await club.get("sudija2"), 340)).ok


async def test_a_promeni_committed_then_a_crash_briefs_the_referee_on_the_new_game_after_the_restart(
    tmp_path: Path,
) -> None:
    sent = await delivered_after_a_crash_as_without_one(tmp_path, move_a_trial_onto_a_judged_game)
    [brief] = [s for s in sent if s.where == "dm:sudija2" and "Pre presude" in s.text]
    assert "⚠ partija je već presuđena u suđenju" in brief.text
    assert "namerno napuštanje" in brief.text
    said = [i for i, s in enumerate(sent) if s.kind == "say"]
    assert said
    assert said[0] < sent.index(brief)  # the trial hears of the move, then the referee is briefed


# A hook that decides ---------------------------------------------------------------------------------------
@dataclass
class DecidingChat(HookedChat):
    """A platform whose link hook takes a decision of the desk's (as Telegram's marks the member online, and he
    is offered the pending calls), with effects of its own, while the link's effect is being delivered."""

    desk: Desk | None = None

    async def member_linked(self, member: Member) -> None:
        await super().member_linked(member)
        assert self.desk is not None
        await self.desk.votes.deny_call(None, member.nick, None, "proba")


async def test_a_decision_a_hook_takes_inside_a_delivery_is_delivered_at_once_and_waits_on_nothing(
    tmp_path: Path,
) -> None:
    club = await a_club(database_for(tmp_path), LoggingGameServer(), Config())
    chat = DecidingChat(desk=club.desk)
    club.desk.deps.chat.ports[:] = [chat]
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok
    [request] = await club.db.links.pending()
    approved = await asyncio.wait_for(club.desk.press(await club.get("mod"), "link_approve", request.id), 30)
    assert approved.ok
    assert [(s.kind, s.where) for s in chat.sent] == [
        ("tell", "dm:mod"),
        ("linked", "discord:jovan"),
        ("tell", "dm:jovan"),  # approved (written with the link, in his queue before the hook's decision)
        ("tell", "dm:jovan"),  # the hook's decision: denied
    ]
    assert chat.sent[-1].text == CATALOGUE.t("gov.told_denied_forever", reason="proba")
    assert (await ChatOutboxStore(club.db).counts()) == {"sent": 4}
    await club.db.close()
