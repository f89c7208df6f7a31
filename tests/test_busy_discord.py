"""Discord and a busy database: an interaction that meets another process's write lock is answered "try again
in a moment" — not the generic failure, and never a "thinking…" left hanging."""

from __future__ import annotations

import asyncio
import logging

import pytest
from test_discord import NOW, World, answer_of, link, open_trial, settle, store_game, world

from bot.desk.reported import membership_key
from bot.messages import Catalogue
from fakes.discord_server import Perm
from rules.members import Role
from storage.errors import DatabaseBusy

__all__ = ["world"]  # the fixture, shared with the Discord tests


async def test_an_interaction_meeting_a_busy_database_is_answered_try_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ceca")

    async def busy(*args: object) -> None:
        raise DatabaseBusy("database is locked")

    monkeypatch.setattr(app.desk, "verdicts", busy)
    async with world.running(app):
        answer = await answer_of(fake, await fake.slash(m["ceca"].id, "presude", {"partija": 1}))
    assert answer == Catalogue("sr").t("db.busy")


async def test_leaving_the_server_and_going_offline_while_busy_are_held_by_the_core_and_heal(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What Discord reports outside any interaction — sudija1 goes offline, ana leaves the server — meets a busy
    database: discord.py's handlers end without an error (nothing logged as one), the core holds both, and does them
    once the database frees: ana's trial ends (caller_left), she is out of the club, sudija1 is offline."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    freed = asyncio.Event()

    async def until_freed(seconds: float) -> None:  # the core's pause before it tries again: until the lock goes
        await freed.wait()

    app.desk.reported.sleep = until_freed
    healed = asyncio.Event()
    a_round = app.desk.reported.round

    async def told_round() -> bool:  # the core's own retry: the test learns when it has done everything held
        done = await a_round()
        if done:
            healed.set()
        return done

    monkeypatch.setattr(app.desk.reported, "round", told_round)
    members = app.db.members
    written = {name: getattr(members, name) for name in ("set_account_present", "set_account_presence")}
    async with world.running(app) as bot:
        trial_id, _ = await open_trial(world, app, 100, "ana", "sudija1")
        for name in written:
            monkeypatch.setattr(members, name, busy)
        with caplog.at_level(logging.INFO):
            offline = bot.wait_for("presence_update", check=lambda before, after: after.id == m["sudija1"].id)
            await fake.set_presence(m["sudija1"].id, "offline")
            await asyncio.wait_for(offline, timeout=5)
            left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
            await fake.member_leave(m["ana"].id)
            await asyncio.wait_for(left, timeout=5)
            await settle()
            assert len(app.desk.reported.held) == 2
            trial = await app.db.trials.get(trial_id)
            assert trial is not None
            assert trial.outcome == "open"  # nothing written yet
            for name, method in written.items():
                monkeypatch.setattr(members, name, method)
            freed.set()
            await asyncio.wait_for(healed.wait(), timeout=5)
            await settle()
        trial = await app.db.trials.get(trial_id)
        assert trial is not None
        assert (trial.outcome, trial.end_reason) == ("interrupted", "caller_left")
        ana, sudija1 = await members.by_nick("ana"), await members.by_nick("sudija1")
        assert ana is not None
        assert sudija1 is not None
        assert not ana.in_club
        assert not sudija1.online
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


async def busy(*args: object, **kwargs: object) -> bool:
    raise DatabaseBusy("database is locked")


async def test_a_leave_held_at_a_restart_and_a_start_meeting_a_busy_database_heal(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ana leaves the server while the database is busy: the core holds her leave, and the process stops before
    the database frees (the held leave is gone with it). While the bot is down an act makes marko a referee. The
    restarted bot becomes ready with the database still busy: the sync of every member it shows is held by the core
    (nothing is logged as an error, no traceback), and so is ana's leave, which the roll call of the whole member
    list finds (her account is not in it). When the database frees, every held report is done: ana is out of the
    club, marko has the referee role on the server as the acts give it."""
    fake, m = world.fake, world.m
    fake.bot_role.permissions |= Perm.MANAGE_ROLES
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    app = await world.app()
    await link(app, world, "ana", "marko", "sudija1")
    app.desk.reported.sleep = lambda seconds: asyncio.Event().wait()  # the database never frees in this process
    async with world.running(app) as bot:
        monkeypatch.setattr(app.db.members, "set_account_present", busy)
        left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
        await fake.member_leave(m["ana"].id)
        await asyncio.wait_for(left, timeout=5)
        await settle()
        assert list(app.desk.reported.held) == [membership_key("discord", str(m["ana"].id))]
    await app.close()  # the process ends
    world.apps.remove(app)

    restarted = await world.app()
    marko = await restarted.db.members.by_nick("marko")
    assert marko is not None
    await restarted.db.members.set_role(marko.id, Role.REFEREE, True, None, NOW)  # an act while the bot is down
    freed = asyncio.Event()

    async def until_freed(seconds: float) -> None:
        await freed.wait()

    reported = restarted.desk.reported
    reported.sleep = until_freed
    healed = asyncio.Event()
    a_round = reported.round

    async def told_round() -> bool:  # the core's own retry: the test learns when it has done everything held
        done = await a_round()
        if done:
            healed.set()
        return done

    monkeypatch.setattr(reported, "round", told_round)
    members = restarted.db.members
    written = members.set_account_present
    monkeypatch.setattr(members, "set_account_present", busy)
    with caplog.at_level(logging.INFO):
        async with world.running(restarted):
            assert set(reported.held) == {membership_key("discord", str(m[n].id)) for n in ("ana", "marko", "sudija1")}
            assert world.referee_role.id not in fake.members[m["marko"].id].roles
            ana = await members.by_nick("ana")
            assert ana is not None
            assert ana.in_club  # nothing written yet
            monkeypatch.setattr(members, "set_account_present", written)
            freed.set()
            await asyncio.wait_for(healed.wait(), timeout=5)
            await fake.wait_until(lambda: world.referee_role.id in fake.members[m["marko"].id].roles, what="role")
    ana, marko = await members.by_nick("ana"), await members.by_nick("marko")
    assert ana is not None
    assert marko is not None
    assert not ana.in_club
    assert marko.in_club
    assert not reported.held
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
