"""The pictures reach the platforms as attachments through the real libraries: on Discord the paper and the hands
as files shown in embeds under the reply's text (discord.py against the fake Discord, which checks the uploads
against Discord's limits), on Telegram as photos after the text (python-telegram-bot against the fake Bot API,
which checks Telegram's photo limits); a picture the platform refuses leaves the text alone."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from test_discord import NOW, World, link, make_world, store_game
from test_telegram import Scene, fake, scene  # noqa: F401  (fixtures)

import fakes.discord_server as discord_fake
from bot.app import App
from bot.pictures.paper import paper_png
from bot.ports import Picture
from bot.telegram.pictures import fits_as_photo, png_size, send_pictures
from club import Club
from fakes.telegram_server import FakeTelegram
from rules.gamelog import GameStatus
from rules.generator import generate_game
from rules.paper import compute_paper

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


def expected_paper(number: int) -> bytes:
    end = NOW - timedelta(hours=1)
    game = generate_game(
        random.Random(number), number, hands=4, players=("ana", "marko", "petar"), start=end - timedelta(hours=2)
    )
    game = dataclasses.replace(game, ended_at=end)
    return paper_png(game, compute_paper(game))


async def test_discord_papir_has_the_paper_as_an_attachment_in_an_embed(world: World) -> None:
    dc, m = world.fake, world.m
    app = await world.app()
    await store_game(app, 100)
    async with world.running(app):
        await link(app, world, "ceca")
        ix = await dc.slash(m["ceca"].id, "papir", {"partija": 100})
        await dc.wait_for_response(ix.id)
        await dc.wait_until(lambda: any(msg["attachments"] for msg in dc.followups(ix.id)))
        [last] = [msg for msg in dc.followups(ix.id) if msg["attachments"]]
        assert last["content"].startswith("```")
        assert "Papir partije 100" in "".join(msg["content"] for msg in dc.followups(ix.id))
        assert last["flags"] & 64  # only for him, like the text
        [attachment] = last["attachments"]
        assert attachment["filename"] == "papir-100.png"
        assert attachment["content_type"] == "image/png"
        assert (attachment["width"], attachment["height"])[0] == 550
        [embed] = last["embeds"]
        assert embed["title"] == "Papir partije 100"
        assert embed["image"]["url"] == attachment["url"]
        data = dc.uploads[int(attachment["id"])]
        assert data == expected_paper(100)
        assert data.startswith(PNG)


async def test_discord_refusing_the_files_still_shows_the_text(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    dc, m = world.fake, world.m
    monkeypatch.setattr(discord_fake, "ATTACHMENT_SIZE_LIMIT", 1000)  # a paper is larger: Discord says 413
    app = await world.app()
    await link(app, world, "ceca")
    await store_game(app, 100)
    async with world.running(app):
        ix = await dc.slash(m["ceca"].id, "papir", {"partija": 100})
        await dc.wait_for_response(ix.id)
        await dc.wait_until(lambda: any("Papir partije 100" in msg["content"] for msg in dc.followups(ix.id)))
        assert any(r.status == 413 for r in dc.requests)
        assert all(not msg["attachments"] for msg in dc.followups(ix.id))


async def test_telegram_papir_sends_the_paper_as_a_photo_after_the_text(scene: Scene) -> None:  # noqa: F811
    server = scene.fake
    await scene.link("ana")
    async with scene.running():
        server.push_command(scene.club, scene.u("ana"), "papir", "100")
        await server.wait_until(lambda: any(r.ok for r in server.calls("sendPhoto")))
        [photo] = [m for m in server.bot_messages(scene.u("ana")) if m.photo]
        texts = [m for m in server.bot_messages(scene.u("ana")) if not m.photo]
        assert texts
        assert texts[0].text.startswith("Papir partije 100")
        assert texts[-1].message_id < photo.message_id  # the text first, the picture after it
        assert photo.text == "Papir partije 100"  # the caption
        assert photo.photo is not None
        assert photo.photo[-1]["width"] == 550
        data = server.files[photo.photo[-1]["file_id"]]
        assert data.startswith(PNG)
        assert len(data) < 300 * 1024


async def test_telegram_limits_send_a_too_long_picture_as_a_document(fake: FakeTelegram) -> None:  # noqa: F811
    from PIL import Image  # noqa: PLC0415 (imported where the test needs it)

    from bot.pictures.draw import encode  # noqa: PLC0415 (imported where the test needs it)

    user = fake.user("Ana", started=True)
    tall = encode(Image.new("RGB", (100, 2500), (255, 255, 255)))  # sides 25 : 1, Telegram refuses the photo
    small = encode(Image.new("RGB", (200, 100), (255, 255, 255)))
    assert png_size(tall) == (100, 2500)
    assert not fits_as_photo(tall)
    assert fits_as_photo(small)
    bot = fake.application_builder().build().bot
    async with bot:
        sent = await send_pictures(bot, user.id, [Picture("a.png", small, "mala"), Picture("b.png", tall, "duga")])
        assert sent == 2
        # the fake refuses what Telegram refuses: the same tall picture as a photo
        from telegram import InputFile  # noqa: PLC0415 (imported where the test needs it)
        from telegram.error import BadRequest  # noqa: PLC0415 (imported where the test needs it)

        with pytest.raises(BadRequest, match=r"(?i)photo_invalid_dimensions"):
            await bot.send_photo(user.id, InputFile(tall, filename="b.png"))
    [photo, document] = [m for m in fake.bot_messages(user)]
    assert photo.photo is not None
    assert photo.text == "mala"
    assert document.document is not None
    assert document.document["file_name"] == "b.png"
    assert fake.files[document.document["file_id"]] == tall


async def test_telegram_albums_hold_ten_photos_at_most(fake: FakeTelegram) -> None:  # noqa: F811
    from PIL import Image  # noqa: PLC0415 (imported where the test needs it)

    from bot.pictures.draw import encode  # noqa: PLC0415 (imported where the test needs it)

    user = fake.user("Ana", started=True)
    png = encode(Image.new("RGB", (120, 80), (255, 255, 255)))
    tall = encode(Image.new("RGB", (100, 2500), (255, 255, 255)))
    pictures = [Picture(f"{i}.png", png, f"slika {i}") for i in range(12)]
    pictures.insert(5, Picture("tall.png", tall, "duga"))
    bot = fake.application_builder().build().bot
    async with bot:
        assert await send_pictures(bot, user.id, pictures) == 13
    assert [len(r.params["media"]) for r in fake.calls("sendMediaGroup")] == [5, 7]  # the document splits them
    assert [m.text for m in fake.bot_messages(user)] == [p.title for p in pictures]  # in their order
    assert len(fake.calls("sendDocument")) == 1
    async with bot:
        assert await send_pictures(bot, user.id, pictures[:5] + pictures[6:]) == 12
    assert [len(r.params["media"]) for r in fake.calls("sendMediaGroup")][2:] == [10, 2]


async def test_the_console_writes_the_pictures_and_prints_their_paths(tmp_path: Path) -> None:
    from test_console import _run  # noqa: PLC0415 (imported where the test needs it)

    from bot.demo import TABLE  # noqa: PLC0415 (imported where the test needs it)

    status, out, err = await _run(tmp_path / "club.db", f"@marko /papir {TABLE}\n")
    assert (status, err) == (0, "")
    path = tmp_path / "club-slike" / f"papir-{TABLE}.png"
    assert f"  (slika: {path})" in out
    assert f"Papir partije {TABLE}" in out
    assert path.read_bytes().startswith(PNG)


async def test_the_arbitars_verdict_comes_with_its_picture(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_corrections import PLAYERS, fake_arbitar, fall_game, join, say, transfer  # noqa: PLC0415 (imported where the test needs it)

    fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    decided = await say(commands, club, fall.other, "/prihvatam")
    assert decided.ok
    assert "prebacuje" in decided.text
    [picture] = decided.pictures
    assert picture.name == f"arbitar-{fall.game.number}-{fall.hand}.png"
    assert picture.png.startswith(PNG)
    assert picture.title == f"Arbitar · partija {fall.game.number} · ruka {fall.hand}"


async def test_a_picture_that_cannot_be_drawn_leaves_the_reply_without_it(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.pictures.paper  # noqa: PLC0415 (imported where the test needs it)

    def broken(*args: object) -> bytes:
        raise RuntimeError("no fonts")

    monkeypatch.setattr(bot.pictures.paper, "paper_png", broken)
    await club.game(100)
    reply = await club.desk.paper(100)
    assert reply.ok
    assert reply.text.startswith("Papir partije 100")
    assert reply.pictures == ()


async def test_discord_prikaz_ruke_has_every_hand_as_a_file(world: World) -> None:
    from test_discord import open_trial  # noqa: PLC0415 (imported where the test needs it)

    dc, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1")
    await store_game(app, 200, status=GameStatus.IN_PROGRESS)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 200, "marko", "sudija1")
        controls = dc.messages_in(thread.id)[0]
        press = await dc.press(m["sudija1"].id, int(controls["id"]), f"sudija:hands:{trial_id}")
        await dc.wait_for_response(press.id)
        await dc.wait_until(lambda: any(msg["attachments"] for msg in dc.followups(press.id)))
        [shown] = [msg for msg in dc.followups(press.id) if msg["attachments"]]
        names = [a["filename"] for a in shown["attachments"]]
        assert names == [f"ruka-200-{n}.png" for n in range(1, 5)]
        assert [e["title"] for e in shown["embeds"]] == [f"Partija 200 · ruka {n}" for n in range(1, 5)]
        assert all(dc.uploads[int(a["id"])].startswith(PNG) for a in shown["attachments"])
        assert shown["flags"] & 64  # for the referee alone


def test_discord_takes_at_most_ten_files_a_message() -> None:
    from bot.discord.pictures import MAX_FILES, picture_attachments  # noqa: PLC0415 (imported where the test needs it)

    pictures = [Picture(f"p{i}.png", PNG, f"slika {i}") for i in range(12)]
    files, embeds = picture_attachments(pictures)
    assert len(files) == len(embeds) == MAX_FILES == discord_fake.MAX_ATTACHMENTS
    assert [e.image.url for e in embeds] == [f"attachment://p{i}.png" for i in range(10)]


async def test_telegram_prikaz_ruke_sends_the_hands_privately_as_an_album(scene: Scene) -> None:  # noqa: F811
    from test_telegram import call_game  # noqa: PLC0415 (imported where the test needs it)

    server = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        server.push_press(scene.u("mira"), group_msg, "Sudi")
        await server.wait_until(
            lambda: any(b["text"] == "Prikaz ruke" for m in server.bot_messages(scene.u("mira")) for b in m.buttons())
        )
        controls = next(
            m
            for m in reversed(server.bot_messages(scene.u("mira")))
            if any(b["text"] == "Prikaz ruke" for b in m.buttons())
        )
        mark = server.mark()
        server.push_press(scene.u("mira"), controls, "Prikaz ruke")
        game = await scene.a.db.games.get(100)
        assert game is not None
        count = len(game.hands)
        await server.wait_until(lambda: any(r.ok for r in server.calls("sendMediaGroup") if r.index >= mark))
    photos = [m for m in server.bot_messages(scene.u("mira")) if m.photo]
    assert [p.text for p in photos] == [f"Partija 100 · ruka {n}" for n in range(1, count + 1)]
    assert len({p.media_group_id for p in photos}) == 1
    assert photos[0].media_group_id is not None
    assert all(server.files[p.photo[-1]["file_id"]].startswith(PNG) for p in photos if p.photo)


async def finished_trial(app: App, caller: str, referee: str, game: int) -> int:
    """A trial of `game` straight through storage: called, taken, two messages, closed without a verdict."""
    db = app.db
    members = {n: await db.members.by_nick(n) for n in (caller, referee)}
    who = {n: m.id for n, m in members.items() if m is not None}
    call = await db.calls.create(game, who[caller], False, NOW, NOW + timedelta(minutes=5))
    _, trial = await db.trials.take(call.id, who[referee], NOW + timedelta(minutes=1), [(who[caller], "caller")])
    assert trial is not None
    await db.trials.add_message(trial.id, who[caller], "Molim proveru.", NOW + timedelta(minutes=2))
    await db.trials.add_message(trial.id, who[referee], "Nema osnova.", NOW + timedelta(minutes=3))
    verdict = {"kind": "bez", "reason": "nema osnova"}
    assert await db.trials.finish(
        trial.id, "no_verdict", NOW + timedelta(minutes=4), who[referee], verdict=verdict, reason="nema osnova"
    )
    return trial.id


async def test_discord_zapisnik_is_a_file_for_the_caller_alone(world: World) -> None:
    from bot.records.zapisnik import verify_html  # noqa: PLC0415 (imported where the test needs it)

    dc, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial = await finished_trial(app, "marko", "sudija1", 100)
        ix = await dc.slash(m["marko"].id, "zapisnik", {"sudjenje": trial})
        await dc.wait_for_response(ix.id)
        await dc.wait_until(lambda: any(msg["attachments"] for msg in dc.followups(ix.id)))
        [shown] = [msg for msg in dc.followups(ix.id) if msg["attachments"]]
        [attachment] = shown["attachments"]
        assert attachment["filename"] == f"zapisnik-{trial}.html"
        assert shown["embeds"] == []
        assert shown["flags"] & 64
        assert "SHA-256" in shown["content"]
        data = dc.uploads[int(attachment["id"])]
        assert verify_html(data).ok
        assert b"sudija1" not in data
        assert b"Molim proveru." in data


async def test_telegram_documents_go_privately(fake: FakeTelegram) -> None:  # noqa: F811
    from bot.ports import Document, Reply  # noqa: PLC0415 (imported where the test needs it)
    from bot.telegram.pictures import send_attachments  # noqa: PLC0415 (imported where the test needs it)

    user = fake.user("Ana", started=True)
    bot = fake.application_builder().build().bot
    reply = Reply("zapisnik", documents=(Document("zapisnik-1.html", b"<!DOCTYPE html>", "text/html", "Zapisnik 1"),))
    async with bot:
        await send_attachments(bot, user.id, reply)
    [message] = fake.bot_messages(user)
    assert message.document is not None
    assert message.document["file_name"] == "zapisnik-1.html"
    assert message.text == "Zapisnik 1"
    assert fake.files[message.document["file_id"]] == b"<!DOCTYPE html>"


async def test_telegram_never_posts_a_record_in_the_group(scene: Scene) -> None:  # noqa: F811
    server = scene.fake
    trial = await finished_trial(scene.a, "jelena", "mira", 100)
    async with scene.running():
        mark = server.mark()
        server.push_command(scene.club, scene.u("jelena"), "zapisnik", str(trial))  # she never started the bot
        [answer] = await server.wait_for("sendMessage", chat=scene.club, since=mark)
        await server.wait_delivered()
    assert "privatnom" in server.message(scene.club, answer.result["message_id"]).text  # asked in private only
    assert [r for r in server.calls("sendDocument") if r.index >= mark] == []
    assert all(m.document is None for m in server.messages(scene.club))
