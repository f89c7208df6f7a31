"""Telegram and a busy database: a press or a command that meets another process's write lock is answered
"try again in a moment" (the button's answer, or a private message), never left hanging; nothing changed."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

import pytest
from test_telegram import Scene, call_game, fake, scene, t

from bot.app import build_app
from bot.ports import ManualTimers
from storage.errors import DatabaseBusy

__all__ = ["fake", "scene"]  # the fixtures, shared with the Telegram tests


async def busy(*args: Any, **kwargs: Any) -> Any:
    raise DatabaseBusy("database is locked")


async def test_a_press_and_a_command_meeting_a_busy_database_are_answered_try_again(
    scene: Scene, monkeypatch: Any
) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, call_id = await call_game(scene)
        monkeypatch.setattr(scene.a.desk.trials, "take", busy)
        mark = fake.mark()
        query = fake.push_callback(scene.u("mira"), group_msg, f"take:{call_id}")
        await fake.wait_for("answerCallbackQuery", since=mark)
        answer = fake.answer_of(query)
        assert answer is not None
        assert answer["text"] == t("telegram.pressed")
        await fake.wait_until(lambda: t("db.busy") in scene.texts("mira"))
        monkeypatch.setattr(scene.a.desk.calls, "withdraw", busy)
        mark = fake.mark()
        fake.push_command(scene.club, scene.u("ana"), "povuci")
        await fake.wait_until(lambda: t("db.busy") in scene.texts("ana"))
    assert [c.id for c in await scene.a.db.calls.pending()] == [call_id]  # nothing changed


async def test_leaving_the_group_while_another_process_writes_is_held_by_the_core_and_heals(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    """A report no member is there to repeat — ana leaves the club group — meets another process's write lock
    (a real one, on the club's file): the core holds it, nothing is said in the group or to anyone, and nothing
    is logged as an error; her word in her trial meanwhile is answered "try again" by the core. When the lock is
    released the held leave is done: her call's trial ends (caller_left) and she is out of the club."""
    fake = scene.fake
    await scene.a.close()
    database = str(scene.tmp / "club.db")
    scene.app = await build_app(
        scene.config(), clock=scene.clock, timers=ManualTimers(), database=database, busy_timeout_ms=50
    )
    freed = asyncio.Event()

    async def until_freed(seconds: float) -> None:  # the core's pause before it tries again: until the lock goes
        await freed.wait()

    scene.a.desk.reported.sleep = until_freed
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("zoran"), group_msg, "Sudi")
        await scene.pressed("zoran", query, lambda x: x.startswith("Sudite"))
        other = sqlite3.connect(scene.tmp / "club.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process (an import, the command line) writes
        try:
            mark = fake.mark()
            fake.push_message(scene.u("ana"), scene.u("ana"), "halo")
            assert await scene.said("ana", since=mark) == [t("db.busy")]
            with caplog.at_level(logging.INFO):
                fake.push_chat_member(scene.club, scene.u("ana"), "member", "left")
                await fake.wait_until(lambda: ("membership", "telegram", str(scene.u("ana").id)) in held(scene))
            said = [r.params for r in fake.calls("sendMessage") if r.index >= mark]
            assert [p["chat_id"] for p in said] == [scene.u("ana").id]  # only the core's "try again" for her word
            assert (await scene.member("ana")).in_club  # nothing written yet
        finally:
            other.execute("ROLLBACK")
            other.close()
        with caplog.at_level(logging.INFO):
            freed.set()
            [ended] = await scene.said("zoran", since=mark)
            await fake.wait_until(lambda: not held(scene))
    assert ended == t("trial.interrupted", game=100, why=t("end.caller_left"))
    trial = await scene.a.db.trials.get(1)
    assert trial is not None
    assert (trial.outcome, trial.end_reason) == ("interrupted", "caller_left")
    assert not (await scene.member("ana")).in_club
    assert t("db.busy") not in [m.text for m in fake.messages(scene.club)]  # the group was never told anything
    unhandled = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert unhandled == []
    assert any("held" in r.getMessage() for r in caplog.records if r.name == "bot.desk.reported")


def held(scene: Scene) -> list[object]:
    return list(scene.a.desk.reported.held)


async def test_a_leave_held_when_the_process_stops_is_found_by_the_next_start_s_roll_call(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ana leaves the club group while the database is busy: the core holds her leave, and the process stops
    before the database frees — the held leave is gone with it, and the records still have her in. At the next
    start the club group's roll call asks Telegram, account by account, who of the linked members is in it: she is
    not, so her leave is reported again and done — she is out of the club and her call's trial ends
    (caller_left); the members in the group, and an account Telegram says it does not know, are left as
    recorded. Nothing is logged as an error."""
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        scene.a.desk.reported.sleep = lambda seconds: asyncio.Event().wait()  # the database never frees
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("zoran"), group_msg, "Sudi")
        await scene.pressed("zoran", query, lambda x: x.startswith("Sudite"))
        monkeypatch.setattr(scene.a.db.members, "set_account_present", busy)
        fake.push_chat_member(scene.club, scene.u("ana"), "member", "left")
        await fake.wait_until(lambda: ("membership", "telegram", str(scene.u("ana").id)) in held(scene))
    await scene.a.close()  # the process ends; what it held is gone
    await scene.open()
    assert (await scene.member("ana")).in_club
    await scene.a.db.members.link("telegram", "424242", "niko", scene.clock.now())  # an account Telegram knows not
    mark = fake.mark()
    with caplog.at_level(logging.INFO):
        async with scene.running() as adapter:
            assert adapter.rolled is not None
            assert await adapter.rolled == 1  # ana only: mira, zoran and jelena are in the group, as recorded
            [ended] = await scene.said("zoran", since=mark)
    asked = {p["user_id"] for p in (r.params for r in fake.calls("getChatMember") if r.index >= mark)}
    assert asked == {*(scene.u(n).id for n in ("ana", "mira", "zoran", "jelena")), 424242}
    assert ended == t("trial.interrupted", game=100, why=t("end.caller_left"))
    assert not (await scene.member("ana")).in_club
    assert [(await scene.member(n)).in_club for n in ("mira", "zoran", "jelena", "niko")] == [True] * 4
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
