"""Telegram forum groups (topics on), through python-telegram-bot against the fake Bot API: the club group and the
referees' group may be forums; the bot posts a call in the referees' topic it is configured for (or General),
and what it answers in a group goes to the topic the member asked in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from test_telegram import NOW, Scene, fake, t

from bot.config import Config
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue
from bot.ports import ManualClock
from bot.telegram.check import telegram_findings
from fakes.telegram_server import FakeTelegram

__all__ = ["fake"]  # the fixture, shared with the Telegram tests


@dataclass
class ForumScene(Scene):
    """The Telegram scene with both groups forums: the club's topic where members type, the referees' topic for
    the calls (0: the bot is configured for none, so it posts in General)."""

    asked_in: int = 0
    calls_topic: int = 0

    def config(self) -> Config:
        base = super().config()
        return replace(base, telegram=replace(base.telegram, referees_topic_id=self.calls_topic))


async def forum_scene(fake: FakeTelegram, tmp_path: Path, *, configured: bool) -> ForumScene:
    users = {nick: fake.user(nick.title(), started=nick != "jelena") for nick in ("ana", "mira", "zoran", "jelena")}
    club = fake.group("Klub", members=users.values(), forum=True)
    referees = fake.group("Sudije", members=[users["mira"], users["zoran"]], forum=True)
    fake.topic(referees, "Razgovor")
    calls = fake.topic(referees, "Pozivi")
    fake.topic(club, "Opšte stvari")
    asked_in = fake.topic(club, "Partije")
    made = ForumScene(
        fake,
        tmp_path,
        ManualClock(NOW),
        club,
        referees,
        users,
        asked_in=asked_in,
        calls_topic=calls if configured else 0,
    )
    fake.clock = lambda: made.fake_now
    await made.open()
    await made.link("mira", "referee")
    await made.link("zoran", "referee")
    await made.link("ana")
    await made.link("jelena")
    await made.game(100)
    return made


@pytest.fixture
async def forums(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[ForumScene]:
    made = await forum_scene(fake, tmp_path, configured=True)
    yield made
    await made.a.close()


async def test_a_call_goes_to_the_configured_topic_and_is_taken_there(forums: ForumScene) -> None:
    fake = forums.fake
    async with forums.running():
        mark = fake.mark()
        fake.push_command(forums.club, forums.u("ana"), "sudija", "100", topic=forums.asked_in)
        [posted] = await fake.wait_for("sendMessage", chat=forums.referees, since=mark)
        notice = fake.message(forums.referees, posted.result["message_id"])
        assert notice.topic == forums.calls_topic
        assert posted.params["message_thread_id"] == forums.calls_topic
        assert notice.button_texts() == ["Sudi"]
        await forums.got("ana", lambda x: x == t("call.ok", game=100, minutes=5))
        query = fake.push_press(forums.u("mira"), notice, "Sudi")
        await forums.pressed("mira", query, lambda x: x.startswith("Sudite"))
        await fake.wait_until(lambda: notice.keyboard == [])
    assert fake.messages(forums.club) == []  # the command deleted; nothing of the call in the club group


async def test_an_answer_in_a_group_goes_to_the_topic_it_was_asked_in(forums: ForumScene) -> None:
    """Jelena never started the bot: her answer waits for /start, and the group gets one neutral line with the
    deep link — in the topic where she typed, as a reply to her."""
    fake = forums.fake
    async with forums.running():
        mark = fake.mark()
        typed = fake.push_command(forums.club, forums.u("jelena"), "sudija", "100", topic=forums.asked_in)
        [line] = await fake.wait_for("sendMessage", chat=forums.club, since=mark)
    shown = fake.message(forums.club, line.result["message_id"])
    assert shown.topic == forums.asked_in
    assert shown.reply_to is typed
    assert [e["type"] for e in shown.entities] == ["text_mention"]
    assert "t.me/" in shown.text


async def test_without_a_configured_topic_a_call_goes_to_general(fake: FakeTelegram, tmp_path: Path) -> None:
    scene = await forum_scene(fake, tmp_path, configured=False)
    try:
        async with scene.running():
            mark = fake.mark()
            fake.push_command(scene.club, scene.u("ana"), "sudija", "100", topic=scene.asked_in)
            [posted] = await fake.wait_for("sendMessage", chat=scene.referees, since=mark)
        assert "message_thread_id" not in posted.params
        assert fake.message(scene.referees, posted.result["message_id"]).topic is None
    finally:
        await scene.a.close()


async def test_a_topic_set_for_a_group_without_topics_is_found_by_the_check(fake: FakeTelegram, tmp_path: Path) -> None:
    scene = await forum_scene(fake, tmp_path, configured=True)
    try:
        plain = fake.group("Sudije bez tema")
        config = scene.config()
        config = replace(config, telegram=replace(config.telegram, referees_group_id=plain.id))
        async with scene.running() as adapter:
            found = await telegram_findings(adapter.application.bot, config)
            right = await telegram_findings(adapter.application.bot, scene.config())
        assert right == []
        [finding] = [f for f in found if "topic" in f.where]
        assert finding.where == f"[telegram] referees_topic_id = {scene.calls_topic}"
        assert finding.fatal
        assert "not a forum" in phrase_text(finding.problem, Catalogue("en").t)
    finally:
        await scene.a.close()
