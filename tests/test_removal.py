"""A member an officer removed from the club (`sudija clan NICK iskljuci`, `GovernanceDesk.remove_from_club`) stays
out of it until an officer readmits him (`primi`): the start's roll call finding him still in the Telegram group,
Telegram's report of his join, and Discord's sync of him on the server mark his account present there and
nothing more; his commands are refused saying why. A platform's leave and join, by contrast, move him in and out
as ever (decisions.md: in the club while on some platform he is linked on)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_discord import World, answer_of, link, world
from test_telegram import Scene, fake, scene, t

from bot.cli import main
from club import NOW
from storage.database import open_database

__all__ = ["fake", "scene", "world"]  # the fixtures, shared with the Telegram and Discord tests


async def test_on_telegram_a_removal_outlasts_the_roll_call_a_join_and_a_restart(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    removed = await scene.a.desk.governance.remove_from_club(None, "ana", "vređanje članova")
    assert removed.ok, removed.text
    assert not (await scene.member("ana")).in_club
    async with scene.running() as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 0  # ana is in the club group: her account is there, she is not in the club
        assert scene.u("ana").id in [r.params["user_id"] for r in fake.calls("getChatMember") if r.ok]
        assert not (await scene.member("ana")).in_club
        mark = fake.mark()
        fake.push_chat_member(scene.club, scene.u("ana"), "member", "left")
        fake.push_chat_member(scene.club, scene.u("ana"), "left", "member")  # she comes back to the group
        fake.push_command(scene.u("ana"), scene.u("ana"), "sudija", "100")
        await scene.got("ana", t("member.removed"), since=mark)
    assert not (await scene.member("ana")).in_club
    readmitted = await scene.a.desk.governance.readmit(None, "ana")
    assert readmitted.ok, readmitted.text
    assert (await scene.member("ana")).in_club  # her account is in the group: in the club at once
    async with scene.running() as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 0
    assert (await scene.member("ana")).in_club


async def test_a_platform_leave_and_join_still_move_a_member_not_removed(scene: Scene) -> None:
    """Without a removal, the roll call brings back a member whose join the bot missed (what it is for)."""
    await scene.link("ana")
    ana = await scene.member("ana")
    await scene.a.desk.trials.member_left_club(ana, "telegram")
    assert not (await scene.member("ana")).in_club
    async with scene.running() as adapter:
        assert adapter.rolled is not None
        assert await adapter.rolled == 1  # Telegram says she is in the group
    assert (await scene.member("ana")).in_club


async def test_on_discord_a_removal_outlasts_the_sync_of_the_server_s_members(world: World) -> None:
    app = await world.app({"owner": "vesna"})
    await link(app, world, "ana", "marko")
    removed = await app.desk.governance.remove_from_club(None, "ana", "vređanje članova")
    assert removed.ok, removed.text
    async with world.running(app):  # ready: every member of the server synced, the roll call made
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        assert not ana.in_club
        asked = await world.fake.slash(world.m["ana"].id, "presude", {"partija": 100})
        assert await answer_of(world.fake, asked) == t("member.removed")
        readmitted = await app.desk.governance.readmit(None, "ana", "izvinila se")
        assert readmitted.ok, readmitted.text
        member = await app.db.members.by_nick("ana")
        assert member is not None
        assert member.in_club


async def test_only_the_owner_removes_and_readmits(scene: Scene) -> None:
    await scene.link("ana")
    mira = await scene.member("mira")  # a referee
    refused = await scene.a.desk.governance.remove_from_club(mira, "ana", "razlog")
    assert refused == scene.a.desk.voice.refuse("gov.not_allowed_remove")
    assert (await scene.member("ana")).in_club


def test_the_admin_removes_and_readmits_at_the_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sudija clan NICK iskljuci --razlog R` (a reason is required) and `primi`; each once; both in the acts."""
    path = str(tmp_path / "club.db")

    async def prepare() -> None:
        db = await open_database(path)
        try:
            await db.members.link("telegram", "701", "ana", NOW)
        finally:
            await db.close()

    asyncio.run(prepare())
    clan = ["clan", "--db", path]
    assert main([*clan, "ana", "iskljuci"]) == 1
    assert t("gov.reason_required") in capsys.readouterr().err
    assert main([*clan, "ana", "iskljuci", "--razlog", "vređanje članova"]) == 0
    assert t("gov.removed", nick="ana") in capsys.readouterr().out
    assert main([*clan, "ana", "iskljuci", "--razlog", "opet"]) == 1
    assert t("gov.already_removed", nick="ana") in capsys.readouterr().err
    assert main([*clan, "ana", "primi"]) == 0
    assert t("gov.readmitted", nick="ana") in capsys.readouterr().out
    assert main([*clan, "ana", "primi"]) == 1
    assert t("gov.not_removed", nick="ana") in capsys.readouterr().err
    assert main([*clan, "--akti"]) == 0
    acts = capsys.readouterr().out
    assert "član ana je isključen iz Kluba (odluka: administrator). Razlog: vređanje članova" in acts
    assert "član ana je ponovo primljen u Klub" in acts
