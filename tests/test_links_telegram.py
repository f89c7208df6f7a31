"""Proven identity on Telegram, end to end: the real python-telegram-bot application against the fake Bot API.

A stranger's /nadimak of the owner, of a referee and of another player gains nothing but a pending request and
is told what proof is needed; a moderator approves with the button in her private chat and the link works at
once; the code path when the game server delivers codes; a moderator's /odvezi silences the account.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_links import CodeServer
from test_telegram import NOW, Scene, t
from test_telegram import fake as fake
from test_telegram import scene as scene

from fakes.telegram_server import FakeTelegram, FakeUser


@pytest.fixture
async def club(scene: Scene, fake: FakeTelegram) -> tuple[Scene, FakeUser, FakeUser]:
    """vesna, the owner, by her configured account; mira, a referee, is also a moderator; a stranger."""
    vesna = fake.user("Vesna", started=True)
    stranger = fake.user("Niko", started=True)
    for user in (vesna, stranger):
        scene.club.members[user.id] = "member"
    config = replace(scene.a.config, owner="vesna", owner_accounts=(f"telegram:{vesna.id}",))
    scene.a.config = scene.a.desk.config = config
    mira = await scene.member("mira")
    await scene.a.db.members.set_role(mira.id, "moderator", True, None, NOW)
    return scene, vesna, stranger


async def private_answer(scene: Scene, user: FakeUser, command: str, *args: str) -> str:
    fake = scene.fake
    mark = fake.mark()
    fake.push_command(user, user, command, *args)
    [sent] = await fake.wait_for("sendMessage", chat=user, since=mark)
    return fake.message(user, sent.result["message_id"]).text


async def test_a_stranger_gets_only_a_request_and_a_moderator_approves_with_the_button(
    club: tuple[Scene, FakeUser, FakeUser],
) -> None:
    scene, vesna, stranger = club
    fake = scene.fake
    async with scene.running():
        assert await scene.a.desk.member_for("telegram", str(vesna.id)) is not None  # linked by configuration
        owner = await private_answer(scene, stranger, "nadimak", "Vesna")
        assert "owner_accounts" in owner
        assert "Ništa nije sačuvano" in owner
        referee = await private_answer(scene, stranger, "nadimak", "mira")
        assert "već povezan sa drugim nalogom" in referee
        assert await scene.a.db.links.pending() == []
        pending = await private_answer(scene, stranger, "nadimak", "ana")
        assert pending == t("link.asked", nick="ana")
        refused = await private_answer(scene, stranger, "sudija", "100")
        assert "nije dokazan" in refused
        assert "/povezi" in refused
        assert await scene.a.db.calls.pending_for_game(100) is None
        hostile = await private_answer(scene, stranger, "nadimak", "ana\u202e")
        assert "U+202E" in hostile
        # mira, a moderator, was told with the buttons; she denies the stranger
        await fake.wait_until(
            lambda: any(m.button_texts() == ["Odobri", "Odbij"] for m in fake.bot_messages(scene.u("mira")))
        )
        told = [m for m in fake.bot_messages(scene.u("mira")) if m.button_texts() == ["Odobri", "Odbij"]][-1]
        mark = fake.mark()
        query = fake.push_press(scene.u("mira"), told, "Odbij")
        await scene.pressed("mira", query, t("link.denied", nick="ana", platform="telegram"), since=mark)
        # ana asks herself; mira approves with the button; the link works at once
        assert await private_answer(scene, scene.u("ana"), "nadimak", "ana") == t("link.asked", nick="ana")
        await fake.wait_until(
            lambda: len([m for m in fake.bot_messages(scene.u("mira")) if m.button_texts() == ["Odobri", "Odbij"]]) == 2
        )
        told = [m for m in fake.bot_messages(scene.u("mira")) if m.button_texts() == ["Odobri", "Odbij"]][-1]
        mark = fake.mark()
        query = fake.push_press(scene.u("mira"), told, "Odobri")
        await scene.pressed("mira", query, t("link.approved", nick="ana", platform="telegram"), since=mark)
        called = await private_answer(scene, scene.u("ana"), "sudija", "100")
        assert called == t("call.ok", game=100, minutes=5)
        acts = await private_answer(scene, vesna, "akti")
        assert "ana (telegram): nalog je povezan (odluka: mira), odobrenjem" in acts
        assert "zahtev je odbijen (odluka: mira)" in acts
        # unlinked by a moderator: the account can do nothing but ask again
        assert await private_answer(scene, scene.u("mira"), "odvezi", "ana") == "Nalog igrača ana je odvezan: telegram."
        assert "/nadimak" in await private_answer(scene, scene.u("ana"), "povuci")


async def test_the_code_path_on_telegram(club: tuple[Scene, FakeUser, FakeUser]) -> None:
    scene, _, stranger = club
    server = CodeServer()
    scene.a.desk.deps.game_server = server  # this club's game server delivers link codes
    async with scene.running():
        sent = await private_answer(scene, scene.u("marko"), "nadimak", "marko")
        assert "jednokratni kod" in sent
        assert server.codes[-1][0] == "marko"
        code = server.last_code("marko")
        assert "nije ispravan" in await private_answer(scene, stranger, "nadimak", "marko", code)  # not his
        assert await private_answer(scene, scene.u("marko"), "nadimak", "marko", code) == t("link.ok", nick="marko")
        assert "već povezan" in await private_answer(scene, stranger, "nadimak", "marko", code)
        marko = await scene.member("marko")
        assert marko.online
        assert marko.accounts == {f"telegram:{scene.u('marko').id}"}
