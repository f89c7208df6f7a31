"""Telegram and a busy database: a press or a command that meets another process's write lock is answered
"try again in a moment" (the button's answer, or a private message), never left hanging; nothing changed."""

from __future__ import annotations

from typing import Any

from test_telegram import Scene, call_game, fake, scene, t

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
