"""A member's own language (`/jezik`): his replies, private messages and buttons in it, the club's chat, the
table and a trial's space in the club's; a wrong choice changes nothing; the choice is stored (it survives a
restart); a platform's locale is never taken for a choice."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from test_telegram import Scene, call_game, fake, scene

from bot.commands import Commands
from bot.desk import Desk
from bot.messages import Catalogue
from bot.ports import Chats
from club import Club, database_for, make_club
from fakes.chat import RecordingChat
from rules.gamelog import GameStatus
from storage.database import open_database
from storage.languages import account_language, member_language, set_member_language
from storage.states import Language

__all__ = ["fake", "scene"]  # the Telegram fixtures, used here too

sr, en, ru, cyrl = Catalogue("sr"), Catalogue("en"), Catalogue("ru"), Catalogue("sr-Cyrl")


async def typed(club: Club, nick: str, line: str) -> str:
    reply = await Commands(club.desk).handle(await club.get(nick), line)
    assert reply is not None
    return reply.text


async def setup(club: Club) -> None:
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")


async def test_a_member_who_chooses_english_reads_english_while_the_club_stays_serbian(club: Club) -> None:
    await setup(club)
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None)
    assert await typed(club, "ana", "/jezik en") == en.t("jezik.chosen", language=en.t("language.en"))
    club.chat.clear()
    reply = await Commands(club.desk).handle(await club.get("ana"), "/sudija 200")
    assert reply is not None
    assert reply.text == en.t("call.ok", game=200, minutes=5)
    assert [b.label for b in reply.buttons] == [en.t("button.withdraw")]  # his button too
    [post] = club.chat.of("post")
    assert post.where == "#referees"
    call = await club.db.calls.pending_for_game(200)
    assert call is not None
    assert post.text == sr.t("call.notice_in_game", game=200, caller="ana", until=call.deadline)
    assert [b.label for b in post.buttons] == [sr.t("button.take")]
    assert [s.text for s in club.chat.to("table:200")] == [sr.t("table.called", nick="ana")]
    # The call runs out on a timer: the club's notice says so in Serbian, his private message in English.
    await club.advance(timedelta(minutes=6))
    assert club.chat.to("dm:ana")[-1].text == en.t("call.expired", game=200, minutes=5)
    assert club.chat.of("edit")[-1].text == sr.t("call.notice_expired", game=200, caller="ana")
    assert club.chat.to("table:200")[-1].text == sr.t("table.expired")


async def test_a_press_is_answered_in_the_pressers_language(club: Club) -> None:
    await setup(club)
    await club.game(100)
    await typed(club, "ana", "/jezik ru")
    reply = await club.desk.calls.call(await club.get("ana"), 100)  # a use case called directly: the club's
    assert reply.text == sr.t("call.ok", game=100, minutes=5)
    pressed = await club.desk.press(await club.get("ana"), "withdraw", reply.buttons[0].ref)
    assert pressed.text == ru.t("withdraw.ok", game=100)
    assert club.chat.of("edit")[-1].text == sr.t("call.notice_withdrawn", game=100, caller="ana")


async def test_private_messages_caused_by_another_member_are_in_the_readers_language(tmp_path: Path) -> None:
    club = await make_club(tmp_path, owner="vlasnik", owner_accounts=("test:vlasnik",))
    try:
        await club.member("vlasnik")
        await club.member("ana")
        await typed(club, "ana", "/jezik sr-Cyrl")
        reply = await club.desk.votes.appoint(await club.get("vlasnik"), "ana", "referee", "iskusna")
        assert reply.text == sr.t("gov.appointed", nick="ana", role=sr.t("role.referee"))
        told = club.chat.to("dm:ana")[-1].text
        assert told == cyrl.t("gov.told_appointed", role=cyrl.t("role.referee"), reason="iskusna")
        assert "Постављени" in told
    finally:
        await club.db.close()


async def test_a_wrong_language_is_refused_with_the_choices_and_changes_nothing(club: Club) -> None:
    await setup(club)
    await typed(club, "ana", "/jezik en")
    reply = await Commands(club.desk).handle(await club.get("ana"), "/jezik xx")
    assert reply is not None
    assert not reply.ok
    assert reply.text == en.t("command.usage", problem=en.t("usage.arg.jezik"), usage=en.t("usage.jezik"))
    for code in ("sr", "sr-Cyrl", "en", "ru", "klub"):
        assert code in reply.text
    assert await member_language(club.db, (await club.get("ana")).id) == "en"
    refused = await club.desk.languages.choose_language(
        await club.get("ana"), "xx"
    )  # past the reader (a Discord choice)
    assert not refused.ok
    assert "/jezik sr-Cyrl" in refused.text
    assert await member_language(club.db, (await club.get("ana")).id) == "en"


async def test_without_a_choice_jezik_shows_the_language_and_klub_goes_back_to_the_clubs(club: Club) -> None:
    await setup(club)
    shown = await typed(club, "marko", "/jezik")
    assert shown.startswith(sr.t("jezik.current_club", language=sr.t("language.sr"), choices="")[:30])
    assert "/jezik ru — ruski" in shown
    await typed(club, "marko", "/jezik en")
    assert (await typed(club, "marko", "/jezik")).startswith("The bot answers you in English.")
    back = await typed(club, "marko", "/jezik klub")
    assert back == sr.t("jezik.chosen_club", language=sr.t("language.sr"))
    assert await member_language(club.db, (await club.get("marko")).id) is None
    assert (await typed(club, "marko", "/pomoc")).startswith("/sudija")
    assert sr.t("usage.jezik") in await typed(club, "marko", "/pomoc")


async def test_the_choice_survives_a_restart(tmp_path: Path) -> None:
    club = await make_club(tmp_path)
    await setup(club)
    await typed(club, "petar", "/jezik en")
    await club.db.close()
    db = await open_database(database_for(tmp_path))
    try:
        desk = Desk(db, Chats([RecordingChat()]), club.server, club.clock, club.config, club.timers)
        await desk.start()
        petar = await db.members.by_nick("petar")
        assert petar is not None
        reply = await Commands(desk).handle(petar, "/jezik")
        assert reply is not None
        assert reply.text.startswith("The bot answers you in English.")
    finally:
        await db.close()


async def test_an_accounts_language_is_read_at_once_after_each_change_of_choice_or_link(club: Club) -> None:
    """What a press's first answer reads, in one read (`account_language`): the language chosen by whoever the
    account is linked to, or None (the club's) for one who chose none and for an account linked to nobody; a
    committed change of the choice or of the link is what the next read gives."""
    ana = await club.member("ana")
    now = club.clock.now()
    assert await account_language(club.db, "test", "ana") is None
    await set_member_language(club.db, ana.id, Language.EN, now)
    assert await account_language(club.db, "test", "ana") is Language.EN
    assert await account_language(club.db, "telegram", "ana") is None  # that id on another platform: nobody's
    assert await account_language(club.db, "test", "nobody") is None
    await set_member_language(club.db, ana.id, Language.RU, now)
    assert await account_language(club.db, "test", "ana") is Language.RU
    marko = await club.db.members.link("test", "ana", "marko", now)  # the account now marko's, who chose none
    assert await account_language(club.db, "test", "ana") is None
    await set_member_language(club.db, marko.id, Language.SR_CYRL, now)
    assert await account_language(club.db, "test", "ana") is Language.SR_CYRL
    await set_member_language(club.db, marko.id, None, now)  # back to the club's
    assert await account_language(club.db, "test", "ana") is None
    assert await member_language(club.db, ana.id) is Language.RU  # ana's own choice stays hers


async def test_telegrams_locale_is_not_a_choice(scene: Scene) -> None:
    """Mira's Telegram client is English; until she chooses, the bot answers her in the club's Serbian."""
    fake = scene.fake
    scene.u("mira").language_code = "en"
    async with scene.running():
        mark = fake.mark()
        fake.push_command(scene.u("mira"), scene.u("mira"), "jezik")
        shown = await scene.got("mira", lambda text: text.startswith("Bot vam odgovara"), since=mark)
        assert "/jezik en — engleski" in shown.text
        mark = fake.mark()
        fake.push_command(scene.u("mira"), scene.u("mira"), "jezik", "en")
        await scene.got("mira", en.t("jezik.chosen", language=en.t("language.en")), since=mark)
        mark = fake.mark()
        fake.push_command(scene.u("mira"), scene.u("mira"), "nepostoji")
        await scene.got("mira", lambda text: text.startswith("Unknown command /nepostoji"), since=mark)
        # Ana calls (in Serbian); the referees' group reads the club's Serbian; Mira's press is answered in English,
        # the short line at once and the outcome privately.
        await scene.link("ana")
        group_msg, _ = await call_game(scene)
        assert group_msg.button_texts() == ["Sudi"]
        assert scene.last("ana").text == sr.t("call.ok", game=100, minutes=5)
        mark = fake.mark()
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        await fake.wait_for("answerCallbackQuery", where=lambda p: p["callback_query_id"] == query, since=mark)
        assert fake.answer_of(query) == {"callback_query_id": query, "text": en.t("telegram.pressed")}
        took = await scene.got("mira", lambda text: text.startswith("You are judging game 100"), since=mark)
        trial = await scene.a.db.trials.open_for_game(100)
        assert trial is not None
        assert took.text == en.t("take.ok", game=100, trial=trial.id)


async def test_on_discord_the_clients_locale_is_not_a_choice_and_a_chosen_language_keeps_its_timestamps(
    tmp_path: Path,
) -> None:
    """Every fake Discord client says en-US; Ana reads the club's Serbian until she chooses Russian, and then her
    answers are Russian with the club's times still as Discord timestamps; the referees' channel stays Serbian."""
    from test_discord import answer_of, call_message, link, make_world, pending_call_id, store_game  # noqa: PLC0415

    async with make_world(tmp_path) as world:
        fake, m = world.fake, world.m
        app = await world.app()
        await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
        await store_game(app, 100)
        await store_game(app, 90, ended_ago=timedelta(days=10))
        async with world.running(app):
            shown = await answer_of(fake, await fake.slash(m["ana"].id, "jezik"))
            assert shown.startswith("Bot vam odgovara na jeziku Kluba: srpski (latinica).")
            chosen = await answer_of(fake, await fake.slash(m["ana"].id, "jezik", {"jezik": "ru"}))
            assert chosen == ru.t("jezik.chosen", language=ru.t("language.ru"))
            answer = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
            assert answer.startswith("Судья вызван на партию 100")
            too_old = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 90}))
            ended = int((world.clock.now() - timedelta(days=10)).timestamp())
            assert f"<t:{ended}:f>" in too_old, too_old
            assert too_old.startswith(ru.t("call.too_old", game=90, ended_at="", consumed="", days=7)[:20])
            call = await pending_call_id(app, 100)
            notice = await call_message(world, call)
            until = int((world.clock.now() + timedelta(minutes=5)).timestamp())
            assert f"Važi do <t:{until}:f> (<t:{until}:R>)." in notice["content"]
