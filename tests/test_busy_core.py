"""A member's action the database could not take is answered by the core, the same for every front end: a button
(`Desk.press`), a typed line (`Commands.handle_as`, also a line that is no command) and a command
(`bot.registry.run`) that meet another process's write lock say "try again in a moment"; on a database that only
reads they say so. Nothing was written. The adapters add nothing of their own (tests/test_busy_discord.py and
tests/test_busy_telegram.py show it through the platforms)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.commands import Commands
from bot.desk.reported import membership_key
from bot.messages import Catalogue
from bot.metrics import REGISTRY
from bot.ports import Action
from bot.registry import BY_NAME, Args, Caller, Place, run
from club import Club
from rules.notices import Notice
from storage.errors import DatabaseBusy, DatabaseReadOnly

SR = Catalogue("sr")


def failing(error: DatabaseBusy) -> Any:
    async def write(*args: Any, **kwargs: Any) -> Any:
        raise error

    return write


@pytest.mark.parametrize(
    ("error", "key"),
    [(DatabaseBusy("database is locked"), "db.busy"), (DatabaseReadOnly("read only"), "db.read_only")],
)
async def test_a_press_a_line_and_a_command_the_database_could_not_take_are_answered_by_the_core(
    club: Club, monkeypatch: pytest.MonkeyPatch, error: DatabaseBusy, key: str
) -> None:
    ana, referee = await club.member("ana"), await club.member("sudija1", "referee")
    await club.game(100)
    assert (await club.desk.calls.call(ana, 100)).ok
    (call,) = await club.db.calls.pending()
    monkeypatch.setattr(club.desk.trials, "take", failing(error))
    monkeypatch.setattr(club.desk.trials, "say", failing(error))
    monkeypatch.setattr(club.desk.calls, "withdraw", failing(error))

    pressed = await club.desk.press(referee, Action.TAKE, call.id)
    assert (pressed.ok, pressed.text) == (False, SR.t(key))
    said = await Commands(club.desk).handle(ana, "dobar dan")  # no command: his words for his trial
    assert said is not None
    assert (said.ok, said.text) == (False, SR.t(key))
    typed = await Commands(club.desk).handle(ana, "/povuci")
    assert typed is not None
    assert (typed.ok, typed.text) == (False, SR.t(key))
    ran = await run(club.desk, Caller("test", "ana", ana, Place.PRIVATE), BY_NAME["povuci"], Args({}))
    assert (ran.ok, ran.text) == (False, SR.t(key))
    assert [c.id for c in await club.db.calls.pending()] == [call.id]  # nothing changed
    assert await club.db.trials.judging(referee.id) is None


async def test_a_report_the_database_cannot_take_is_held_replaced_by_a_newer_one_and_done_in_order(club: Club) -> None:
    """`desk.reported`: what a platform reports outside any command and the database could not take is held; a newer
    report of the same account replaces it (and goes to the end of the line), the held ones are done again in the
    order they were held once the database frees, and one a read-only database can never take is let go."""
    reported = club.desk.reported
    done: list[str] = []
    locked = True

    async def never(seconds: float) -> None:  # the core's own pause: here the test tries again itself (`round`)
        await asyncio.Event().wait()

    def report(name: str) -> Any:
        async def work() -> None:
            if locked:
                raise DatabaseBusy("database is locked")
            done.append(name)

        return work

    reported.sleep = never
    assert not await reported.take("ana", report("ana left"))
    assert not await reported.take("marko", report("marko acted"))
    assert not await reported.take("ana", report("ana joined"))  # the newer of hers counts
    assert list(reported.held) == ["marko", "ana"]
    assert not await reported.take("petar", failing(DatabaseReadOnly("read only")))
    assert "petar" not in reported.held
    assert not await reported.round()  # still busy: nothing done, nothing lost
    assert (list(reported.held), done) == (["marko", "ana"], [])
    locked = False
    assert await reported.round()
    assert done == ["marko acted", "ana joined"]
    assert await reported.take("ana", report("ana left again"))  # a free database takes it at once
    assert done[-1] == "ana left again"
    await reported.stop()


async def test_the_roll_call_reports_each_account_the_platform_answers_otherwise_unless_a_newer_report_came(
    club: Club,
) -> None:
    """`Reported.roll_call`, a start's (a membership report a restart forgot): each linked account whose platform's
    answer differs from the records is reported — ana is not in the group any more, marko (recorded out) is; what
    agrees with the records (ceca in), what the platform cannot say (petar), an account with a report held (zoran)
    and one reported while the platform was asked about it (jova, who joined again meanwhile) are left to what they
    have."""
    reported = club.desk.reported
    nicks = ("ana", "marko", "ceca", "petar", "zoran", "jova")
    accounts = {nick: str(i) for i, nick in enumerate(nicks, 1)}
    for nick in nicks:
        await club.db.members.link("telegram", accounts[nick], nick, club.clock.now())
    await reported.membership("telegram", accounts["marko"], False)
    await reported.membership("telegram", accounts["jova"], False)

    async def never(seconds: float) -> None:
        await asyncio.Event().wait()

    reported.sleep = never
    assert not await reported.take(membership_key("telegram", accounts["zoran"]), failing(DatabaseBusy("locked")))
    answers = {"ana": False, "marko": True, "ceca": True, "petar": None, "zoran": False, "jova": False}
    asked: list[str] = []

    async def is_in(account: str) -> bool | None:
        nick = nicks[int(account) - 1]
        asked.append(nick)
        if nick == "jova":  # his join, reported while the platform answers as it saw him a moment before
            await reported.membership("telegram", account, True)
        return answers[nick]

    assert await reported.roll_call("telegram", is_in) == 2
    assert asked == ["ana", "marko", "ceca", "petar", "jova"]
    in_club = {nick: (await club.get(nick)).in_club for nick in nicks}
    assert in_club == {"ana": False, "marko": True, "ceca": True, "petar": True, "zoran": True, "jova": True}
    assert list(reported.held) == [membership_key("telegram", accounts["zoran"])]
    assert REGISTRY.get_sample_value("sudija_reports_held", {"club": club.desk.config.club_id}) == 1  # the alert's
    await reported.stop()


async def test_an_accounts_reports_are_done_one_after_the_other_in_the_order_they_came(club: Club) -> None:
    """A leave and a join of one account reported at once (the platforms hand each update to a task of its own: a
    member who left and came back while the bot was away, both in one batch) are done in the order they came, not
    interleaved: ana ends in the club, as the group shows her."""
    account = "77"
    await club.db.members.link("telegram", account, "ana", club.clock.now())
    reported = club.desk.reported
    await asyncio.gather(
        reported.membership("telegram", account, False), reported.membership("telegram", account, True)
    )
    assert (await club.get("ana")).in_club
    assert await club.db.members.accounts_on("telegram") == [(account, True, True)]


async def test_where_a_platform_showed_a_trials_controls_is_kept_once_the_database_frees(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The controls are shown already when the port tells the desk where (`Desk.keep_controls`): a busy database
    does not fail the effect that showed them (its retry would show them twice); the place is kept once it frees."""
    shown = Notice("telegram", "42", "7")
    add_notice = club.db.calls.add_notice
    monkeypatch.setattr(club.db.calls, "add_notice", failing(DatabaseBusy("database is locked")))

    async def never(seconds: float) -> None:
        await asyncio.Event().wait()

    club.desk.reported.sleep = never
    await club.desk.keep_controls(3, shown)  # no error reaches the port
    assert await club.desk.controls_of(3, "telegram") == []
    monkeypatch.setattr(club.db.calls, "add_notice", add_notice)
    assert await club.desk.reported.round()
    assert await club.desk.controls_of(3, "telegram") == [shown]
    await club.desk.reported.stop()
