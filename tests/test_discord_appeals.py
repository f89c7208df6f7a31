"""An appeal on Discord through the real client and the fake (issue 19): /zalba posts to the councilors' channel
with Preuzmi, the councilor's press opens the hearing as a private thread with the appellant."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_discord import World, answer_of, button_ids, link, make_world, store_game

from bot.messages import Catalogue
from rules.appeals import AppealKind, AppealRules
from rules.verdicts import Draft, Penalty

SR = Catalogue("sr")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def test_an_appeal_goes_to_the_councilors_channel_and_preuzmi_opens_the_hearing(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "petar", "sudija1", "vecnik")
    await store_game(app, 100)
    async with world.running(app):
        desk = app.desk
        ana, sudija = (
            await desk.member_for("discord", str(m["ana"].id)),
            await desk.member_for("discord", str(m["sudija1"].id)),
        )
        assert ana is not None
        assert sudija is not None
        assert (await desk.calls.call(ana, 100)).ok
        call = await app.db.calls.pending_for_game(100)
        assert call is not None
        assert (await desk.trials.take(sudija, call.id)).ok
        assert (await desk.draft(sudija, Draft(Penalty("petar", plavac_days=2), "vređanje"))).ok
        assert (await desk.finish(sudija)).ok
        trial = (await app.db.trials.for_game(100))[-1]
        filed = await answer_of(
            fake, await fake.slash(m["petar"].id, "zalba", {"sudjenje": trial.id, "razlog": "@everyone nisam ja"})
        )
        assert filed.startswith("Žalba #1")
        notice = await fake.wait_for_message(world.councilors.id, lambda msg: "sudija:appeal_take:1" in button_ids(msg))
        assert fake.pings[int(notice["id"])].users == {m["vecnik"].id}
        assert not fake.pings[int(notice["id"])].everyone
        taken = await answer_of(fake, await fake.press(m["vecnik"].id, int(notice["id"]), "sudija:appeal_take:1"))
        assert taken.startswith("Preuzeli ste žalbu #1")
        appeal = await app.db.appeals.get(1)
        assert appeal is not None
        assert appeal.hearing is not None
        threads = fake.threads_in(world.trials.id)
        assert len(threads) == 2  # the trial appealed against, then the hearing
        thread = threads[-1]
        assert {m["petar"].id, m["vecnik"].id} <= fake.thread_members(thread.id)


async def test_a_report_with_the_tables_chat_as_an_attachment_option_keeps_the_file(world: World) -> None:
    """Issue 35, item 4 on Discord: /prijava's attachment option carries the table's chat; the bot reads it from
    Discord's CDN after deferring, and the report keeps it; one over the club's limit is never fetched and the
    member is told the limit. The councilor who takes the report gets the file with his answer."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "petar", "vecnik")
    await store_game(app, 100)
    kinds = (AppealKind("apelacija", 30, "", attachment=True),)
    app.desk.config = replace(app.desk.config, appeals=AppealRules(kinds=kinds, reports=True, attachment_max_kb=1))
    async with world.running(app):
        big = ("chat.png", b"x" * 2048, "image/png")
        refused = await answer_of(fake, await fake.slash(m["petar"].id, "prijava", {"partija": 100, "prilog": big}))
        assert refused == SR.t("report.attachment_size", name="chat.png", kb=1)
        assert fake.downloads == []
        chat = b"\x89PNG the table's chat"
        options = {"partija": 100, "osnov": "apelacija", "prilog": ("chat.png", chat, "image/png"), "razlog": "miser"}
        filed = await answer_of(fake, await fake.slash(m["petar"].id, "prijava", options))
        assert filed.startswith("Prijava #1 za partiju 100 (apelacija) je predata")
        # The committee is shown it: the councilor's Preuzmi is answered with the table's chat attached.
        notice = await fake.wait_for_message(world.councilors.id, lambda msg: "sudija:appeal_take:1" in button_ids(msg))
        press = await fake.press(m["vecnik"].id, int(notice["id"]), "sudija:appeal_take:1")
        assert (await answer_of(fake, press)).startswith("Preuzeli ste prijavu #1")
        [shown] = [a for followup in fake.followups(press.id) for a in followup["attachments"]]
        assert shown["filename"] == "chat.png"
        assert fake.uploads[int(shown["id"])] == chat
        assert all(followup["flags"] & 64 for followup in fake.followups(press.id))  # to him alone
    [report] = await app.db.appeals.reports_of_game(100)
    [stored] = await app.db.appeals.files(report.id)
    assert (stored.name, stored.content_type, stored.data) == ("chat.png", "image/png", chat)
    assert len(fake.downloads) == 1
