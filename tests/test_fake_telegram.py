"""Proof that the real python-telegram-bot 22 ``Application`` works against the fake Bot API.

Owns the end-to-end checks of ``tests/fakes/telegram_server.py`` for every path the Telegram adapter
will use: start-up, group commands with arguments, bot commands per language, inline buttons pressed
by two users at once, edits, relaying private messages, users who never started the bot, deep links,
chat member updates, and a restart with old buttons. The handlers here are a minimal stand-in for the
adapter; the fake is what is under test, together with our understanding of PTB's behaviour.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    ChatMember,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from fakes.telegram_server import (
    DEFAULT_ALLOWED_UPDATES,
    SAME_OFFSET_WAIT,
    AnyApplication,
    FakeTelegram,
    parse_html,
    parse_markdown,
    running,
)

Context = ContextTypes.DEFAULT_TYPE


@dataclass
class Desk:
    """What the real adapter keeps in its database; survives an Application restart here."""

    taken: dict[str, int] = field(default_factory=dict)
    commands: list[tuple[str, list[str], int]] = field(default_factory=list)
    presses: list[tuple[str, int, str]] = field(default_factory=list)
    members: list[tuple[int, str, str]] = field(default_factory=list)
    starts: list[tuple[int, list[str]]] = field(default_factory=list)
    relay: dict[int, int] = field(default_factory=dict)
    bot_status: dict[int, str] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)
    errors: list[object] = field(default_factory=list)


def build_application(fake: FakeTelegram, desk: Desk, *, concurrent: bool = False) -> AnyApplication:
    """A minimal application with the handler kinds the adapter uses."""

    async def on_sudija(update: Update, context: Context) -> None:
        message = update.effective_message
        assert message is not None
        assert context.args is not None
        desk.commands.append(("sudija", list(context.args), message.chat_id))
        call_id = str(len(desk.commands))
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Sudi", callback_data=f"sudi:{call_id}")]])
        await message.reply_text(
            f"<b>Poziv #{call_id}</b>: partija {' '.join(context.args)}",
            parse_mode=ParseMode.HTML,
            reply_markup=keyboard,
            link_preview_options=LinkPreviewOptions(is_disabled=True),
        )

    async def on_press(update: Update, context: Context) -> None:
        query = update.callback_query
        assert query is not None
        assert query.data is not None
        call_id = query.data.split(":", 1)[1]
        desk.presses.append((call_id, query.from_user.id, query.id))
        winner = desk.taken.setdefault(call_id, query.from_user.id)  # no await before: atomic
        if winner != query.from_user.id:
            await query.answer("Poziv je već preuzet.", show_alert=True)
            return
        await query.answer("Poziv je tvoj.")
        withdraw = InlineKeyboardMarkup([[InlineKeyboardButton("Povuci", callback_data=f"povuci:{call_id}")]])
        await query.edit_message_text(f"Poziv #{call_id}: sudi {query.from_user.full_name}", reply_markup=withdraw)

    async def on_start(update: Update, context: Context) -> None:
        assert update.effective_user is not None
        assert update.effective_message is not None
        desk.starts.append((update.effective_user.id, list(context.args or [])))
        await update.effective_message.reply_text("Dobro došli u Sudiju.")

    async def on_pozovi(update: Update, context: Context) -> None:
        message = update.effective_message
        assert message is not None
        assert context.args
        user_id = int(context.args[0])
        try:
            await context.bot.send_message(user_id, "Pozvani ste na suđenje.")
        except (Forbidden, BadRequest) as error:
            desk.refusals.append(f"{type(error).__name__}: {error.message}")
            link = f"https://t.me/{context.bot.username}?start=sudjenje_{user_id}"
            await message.reply_text(f"Pokreni bota pa se vrati: {link}")

    async def on_private_text(update: Update, context: Context) -> None:
        message = update.effective_message
        sender = update.effective_user
        assert message is not None
        assert sender is not None
        assert message.text is not None
        partner = desk.relay.get(sender.id)
        if partner is not None:
            await context.bot.send_message(partner, f"{sender.full_name}: {message.text}")

    async def on_member(update: Update, context: Context) -> None:
        change = update.chat_member
        assert change is not None
        member = change.new_chat_member
        desk.members.append((member.user.id, change.old_chat_member.status, member.status))
        if member.status == ChatMember.LEFT:
            await context.bot.send_message(change.chat.id, f"{member.user.full_name} je napustio grupu.")

    async def on_my_member(update: Update, context: Context) -> None:
        change = update.my_chat_member
        assert change is not None
        desk.bot_status[change.chat.id] = change.new_chat_member.status

    async def on_error(update: object, context: Context) -> None:
        desk.errors.append(context.error)

    application = fake.application_builder().concurrent_updates(concurrent).build()
    application.add_handler(CommandHandler("sudija", on_sudija))
    application.add_handler(CommandHandler("start", on_start, filters=filters.ChatType.PRIVATE))
    application.add_handler(CommandHandler("pozovi", on_pozovi, filters=filters.ChatType.GROUPS))
    application.add_handler(CallbackQueryHandler(on_press, pattern=r"^sudi:"))
    application.add_handler(MessageHandler(filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND, on_private_text))
    application.add_handler(ChatMemberHandler(on_member, ChatMemberHandler.CHAT_MEMBER))
    application.add_handler(ChatMemberHandler(on_my_member))  # the default is MY_CHAT_MEMBER only
    application.add_error_handler(on_error)
    return application


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    # httpx (under PTB) honours HTTP(S)_PROXY from the environment, even for 127.0.0.1.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with FakeTelegram() as server:
        yield server
    leaked = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    assert leaked == [], f"leaked tasks: {leaked}"


@pytest.fixture
def desk() -> Desk:
    return Desk()


async def test_startup_is_fully_served_and_remembers_allowed_updates(fake: FakeTelegram, desk: Desk) -> None:
    async with running(build_application(fake, desk)) as application:
        await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
        assert application.bot.username == "sudija_test_bot"
        assert application.bot.id == fake.bot.id
    methods = [r.method for r in fake.requests]
    assert methods[:3] == ["getMe", "deleteWebhook", "getUpdates"]
    assert fake.unknown_calls() == []
    assert all(r.ok for r in fake.calls())
    first_poll = fake.calls("getUpdates")[0].params
    assert "chat_member" in first_poll["allowed_updates"]
    assert first_poll["timeout"] == 1
    assert "chat_member" in fake.allowed_updates
    # PTB's shutdown confirms what it fetched with one last non-blocking getUpdates.
    assert fake.calls("getUpdates")[-1].params["timeout"] == 0
    assert desk.errors == []


async def test_json_and_form_bodies_are_both_accepted(fake: FakeTelegram) -> None:
    group = fake.group("Klub")
    url = f"{fake.base_url}{fake.token}/sendMessage"
    keyboard = {"inline_keyboard": [[{"text": "Sudi", "callback_data": "sudi:1"}]]}
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"chat_id": group.id, "text": "123", "reply_markup": keyboard}) as r:
            assert r.status == 200
            assert (await r.json())["result"]["text"] == "123"
        form = {"chat_id": str(group.id), "text": "456", "reply_markup": json.dumps(keyboard)}
        async with session.post(url, data=form) as r:
            assert r.status == 200
        async with session.post(f"{fake.base_url}wrong:token/getMe") as r:
            assert r.status == 401
    assert [r.encoding for r in fake.calls("sendMessage")] == ["json", "form"]
    texts = [(m.text, m.callback_data()) for m in fake.bot_messages(group)]
    assert texts == [("123", ["sudi:1"]), ("456", ["sudi:1"])]


async def test_group_command_reaches_handler_with_args_and_reply_is_recorded(fake: FakeTelegram, desk: Desk) -> None:
    ana = fake.user("Ana", started=True)
    group = fake.group("Klub", members=[ana])
    async with running(build_application(fake, desk)):
        sent = fake.push_command(group, ana, "sudija", "12", "hitno")
        fake.push_command(group, ana, "sudija", "13", mention=True)
        replies = await fake.wait_for("sendMessage", chat=group, count=2)
    assert desk.commands == [("sudija", ["12", "hitno"], group.id), ("sudija", ["13"], group.id)]
    first = fake.message(group, replies[0].result["message_id"])
    assert first.text == "Poziv #1: partija 12 hitno"
    assert first.entities == [{"type": "bold", "offset": 0, "length": 8}]
    assert first.raw_text == "<b>Poziv #1</b>: partija 12 hitno"
    assert first.reply_to is sent
    assert first.link_preview_options == {"is_disabled": True}
    assert first.button_texts() == ["Sudi"]
    assert first.callback_data() == ["sudi:1"]
    assert replies[0].params["parse_mode"] == "HTML"
    assert desk.errors == []


async def test_set_my_commands_in_two_languages_and_a_scope(fake: FakeTelegram, desk: Desk) -> None:
    serbian = [BotCommand("sudija", "Pozovi sudiju"), BotCommand("dezurstvo", "Dežurstvo uključi/isključi")]
    english = [BotCommand("sudija", "Call a referee"), BotCommand("dezurstvo", "Toggle on-duty")]
    async with running(build_application(fake, desk)) as application:
        assert await application.bot.set_my_commands(serbian, language_code="sr")
        assert await application.bot.set_my_commands(english, language_code="en")
        assert await application.bot.set_my_commands(english[:1], scope=BotCommandScopeAllGroupChats())
        with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
            await application.bot.set_my_commands([BotCommand("dežurstvo", "č is not allowed")])
        assert [c.command for c in await application.bot.get_my_commands(language_code="sr")] == [
            "sudija",
            "dezurstvo",
        ]
    assert fake.commands_for(language_code="sr")[1]["description"] == "Dežurstvo uključi/isključi"
    assert fake.commands_for(language_code="en")[0] == {"command": "sudija", "description": "Call a referee"}
    assert fake.commands_for(scope={"type": "all_group_chats"}) == [
        {"command": "sudija", "description": "Call a referee"}
    ]
    recorded = [(r.params.get("language_code"), r.ok) for r in fake.calls("setMyCommands")]
    assert recorded == [("sr", True), ("en", True), (None, True), (None, False)]


@pytest.mark.parametrize("concurrent", [False, True], ids=["sequential", "concurrent_updates"])
async def test_two_users_press_the_button_at_once(fake: FakeTelegram, desk: Desk, concurrent: bool) -> None:
    ana, boris, caller = fake.user("Ana"), fake.user("Boris"), fake.user("Caca")
    group = fake.group("Sudije", members=[ana, boris, caller])
    async with running(build_application(fake, desk, concurrent=concurrent)):
        fake.push_command(group, caller, "sudija", "7")
        [reply] = await fake.wait_for("sendMessage", chat=group)
        call = fake.message(group, reply.result["message_id"])
        assert len(call.callback_data()[0].encode()) <= 64
        first = fake.push_callback(ana, call, "sudi:1")
        second = fake.push_callback(boris, call, "sudi:1")
        await fake.wait_for("answerCallbackQuery", count=2)
        await fake.wait_for("editMessageText")
    # Both presses travelled in one getUpdates answer, i.e. truly at once.
    batches = [[u.get("callback_query", {}).get("id") for u in r.result] for r in fake.calls("getUpdates") if r.ok]
    assert [first, second] in batches
    assert {(user, query) for _, user, query in desk.presses} == {(ana.id, first), (boris.id, second)}
    assert desk.taken == {"1": ana.id}
    assert fake.answer_of(first) == {"callback_query_id": first, "text": "Poziv je tvoj."}
    assert fake.answer_of(second) == {
        "callback_query_id": second,
        "text": "Poziv je već preuzet.",
        "show_alert": True,
    }
    assert call.text == "Poziv #1: sudi Ana"
    assert call.history == ["Poziv #1: partija 7"]
    assert call.button_texts() == ["Povuci"]
    assert call.callback_data() == ["povuci:1"]
    assert len(fake.calls("editMessageText")) == 1
    assert desk.errors == []


async def test_private_message_is_relayed_to_the_other_party(fake: FakeTelegram, desk: Desk) -> None:
    ana, boris = fake.user("Ana", last_name="Anić", started=True), fake.user("Boris", started=True)
    desk.relay.update({ana.id: boris.id, boris.id: ana.id})
    async with running(build_application(fake, desk)):
        for text in ("Nisam video kartu.", "Igrao sam pik.", "Pa?"):  # one batch, handled in order
            fake.push_message(ana, ana, text)
        await fake.wait_for("sendMessage", chat=fake.private_chat(boris), count=3)
        fake.push_message(boris, boris, "Ja jesam.")
        await fake.wait_for("sendMessage", chat=fake.private_chat(ana))
    assert [m.text for m in fake.messages(boris)] == [
        "Ana Anić: Nisam video kartu.",
        "Ana Anić: Igrao sam pik.",
        "Ana Anić: Pa?",
        "Ja jesam.",
    ]
    assert [m.text for m in fake.bot_messages(ana)] == ["Boris: Ja jesam."]
    assert desk.errors == []


async def test_user_who_never_started_the_bot_is_refused_and_handler_catches_it(fake: FakeTelegram, desk: Desk) -> None:
    caller = fake.user("Caca")
    stranger = fake.user("Dule")  # seen in the group, never pressed Start: 403
    unknown = fake.user("Eva", unstarted_error="chat_not_found")  # never seen at all: 400
    blocker = fake.user("Fića", started=True)
    fake.block(blocker)
    group = fake.group("Klub", members=[caller, stranger, unknown, blocker])
    async with running(build_application(fake, desk)):
        for person in (stranger, unknown, blocker):
            fake.push_command(group, caller, "pozovi", str(person.id))
        replies = await fake.wait_for("sendMessage", chat=group, count=3)
    assert desk.refusals == [
        "Forbidden: Forbidden: bot can't initiate conversation with a user",
        "BadRequest: Chat not found",
        "Forbidden: Forbidden: bot was blocked by the user",
    ]
    failed = [(r.params["chat_id"], r.error_code) for r in fake.calls("sendMessage") if not r.ok]
    assert failed == [(stranger.id, 403), (unknown.id, 400), (blocker.id, 403)]
    link = f"https://t.me/sudija_test_bot?start=sudjenje_{stranger.id}"
    assert fake.message(group, replies[0].result["message_id"]).text.endswith(link)
    assert fake.messages(stranger) == []
    assert desk.errors == []


async def test_deep_link_start_payload_reaches_the_handler(fake: FakeTelegram, desk: Desk) -> None:
    dule = fake.user("Dule")
    assert dule.started is False
    async with running(build_application(fake, desk)):
        fake.open_deep_link(dule, "https://t.me/sudija_test_bot?start=sudjenje_42")
        await fake.wait_for("sendMessage", chat=fake.private_chat(dule))
        assert await fake_bot_can_message(fake, dule.id)
    assert desk.starts == [(dule.id, ["sudjenje_42"])]
    assert fake.users[dule.id].started is True
    with pytest.raises(ValueError, match="start payload"):
        fake.open_deep_link(dule, "https://t.me/sudija_test_bot?start=ne valja")
    assert desk.errors == []


async def fake_bot_can_message(fake: FakeTelegram, chat_id: int) -> bool:
    """Send through the raw HTTP interface (outside PTB) to show the chat is now writable."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{fake.base_url}{fake.token}/sendMessage", json={"chat_id": chat_id, "text": "ok"}) as r,
    ):
        return r.status == 200


async def test_member_leaving_the_group_reaches_chat_member_handler(fake: FakeTelegram, desk: Desk) -> None:
    ana = fake.user("Ana")
    group = fake.group("Klub", members=[ana])
    async with running(build_application(fake, desk)):
        fake.push_chat_member(group, ana, "member", "left")
        await fake.wait_for("sendMessage", chat=group)
    assert desk.members == [(ana.id, "member", "left")]
    assert group.members[ana.id] == "left"
    assert fake.bot_messages(group)[0].text == "Ana je napustio grupu."
    with pytest.raises(ValueError, match="cannot write"):
        fake.push_message(group, ana, "zdravo")
    assert desk.errors == []


async def test_chat_member_updates_need_allowed_updates(fake: FakeTelegram, desk: Desk) -> None:
    ana, caller = fake.user("Ana"), fake.user("Caca")
    group = fake.group("Klub", members=[ana, caller])
    async with running(build_application(fake, desk), allowed_updates=None):
        fake.push_chat_member(group, ana, "member", "left")
        fake.push_command(group, caller, "sudija", "1")  # processed after the member update would be
        await fake.wait_for("sendMessage", chat=group)
    assert fake.allowed_updates == DEFAULT_ALLOWED_UPDATES
    assert desk.members == []
    assert [next(k for k in u if k != "update_id") for u in fake.dropped_updates] == ["chat_member"]


async def test_restart_keeps_old_buttons_working(fake: FakeTelegram, desk: Desk) -> None:
    ana, caller = fake.user("Ana"), fake.user("Caca")
    group = fake.group("Sudije", members=[ana, caller])
    async with running(build_application(fake, desk)):
        fake.push_command(group, caller, "sudija", "3")
        [reply] = await fake.wait_for("sendMessage", chat=group)
    call = fake.message(group, reply.result["message_id"])
    assert fake.pending_updates == []  # the old application confirmed what it fetched
    query = fake.push_press(ana, call, "Sudi")  # pressed while the bot is down
    mark = len(fake.requests)
    async with running(build_application(fake, desk)):
        await fake.wait_for("answerCallbackQuery", since=mark)
        await fake.wait_for("editMessageText", since=mark)
    assert desk.commands == [("sudija", ["3"], group.id)]  # not delivered twice
    assert fake.answer_of(query) == {"callback_query_id": query, "text": "Poziv je tvoj."}
    assert call.text == "Poziv #1: sudi Ana"
    assert [r.method for r in fake.requests[mark:]][:2] == ["getMe", "deleteWebhook"]
    assert desk.errors == []


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter with int seconds
async def test_edits_follow_telegram_rules(fake: FakeTelegram) -> None:
    group = fake.group("Klub")
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Sudi", callback_data="sudi:1")]])
    application = fake.application_builder().build()
    async with application:
        bot = application.bot
        sent = await bot.send_message(group.id, "Poziv", reply_markup=keyboard)
        stored = fake.message(group, sent.message_id)
        with pytest.raises(BadRequest, match="not modified"):
            await bot.edit_message_text("Poziv", group.id, sent.message_id, reply_markup=keyboard)
        await bot.edit_message_text("Poziv preuzet", group.id, sent.message_id)
        assert stored.reply_markup is None  # editMessageText without reply_markup drops the keyboard
        await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=keyboard)
        assert stored.callback_data() == ["sudi:1"]
        await bot.edit_message_reply_markup(group.id, sent.message_id)
        assert stored.keyboard == []
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x" * 65)]])
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(group.id, "x", reply_markup=too_long)
        with pytest.raises(BadRequest, match="parse entities"):
            await bot.send_message(group.id, "Ana <3 Boris", parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match="reserved"):
            await bot.send_message(group.id, "Partija 12.", parse_mode=ParseMode.MARKDOWN_V2)
        with pytest.raises(BadRequest, match="to edit not found"):
            await bot.edit_message_text("x", group.id, 999)
        fake.fail_next("sendMessage", 429, "Too Many Requests: retry after 3", retry_after=3)
        with pytest.raises(RetryAfter, match="Retry in 3"):
            await bot.send_message(group.id, "x")
    assert stored.history == ["Poziv"]


async def test_chat_and_member_lookups_parse_in_ptb(fake: FakeTelegram) -> None:
    people = {status: fake.user(status.title()) for status in ("creator", "administrator", "member")}
    people.update({status: fake.user(status.title()) for status in ("restricted", "left", "kicked")})
    group = fake.group("Klub")
    for status, person in people.items():
        group.members[person.id] = status
    expected: dict[str, type[ChatMember]] = {
        "creator": ChatMemberOwner,
        "administrator": ChatMemberAdministrator,
        "member": ChatMemberMember,
        "restricted": ChatMemberRestricted,
        "left": ChatMemberLeft,
        "kicked": ChatMemberBanned,
    }
    application = fake.application_builder().build()
    async with application:
        info = await application.bot.get_chat(group.id)
        assert (info.id, info.title, info.type) == (group.id, "Klub", "supergroup")
        for status, person in people.items():
            member = await application.bot.get_chat_member(group.id, person.id)
            assert type(member) is expected[status]
            assert member.user.id == person.id
        me = await application.bot.get_chat_member(group.id, fake.bot.id)
        assert isinstance(me, ChatMemberAdministrator)
        with pytest.raises(BadRequest, match=r"[Cc]hat not found"):
            await application.bot.get_chat(-42)


def test_formatting_parsers_match_telegram() -> None:
    assert parse_html("<b>Ana</b> &amp; <a href='https://t.me/x'>Boris</a> 🂡<i>!</i>") == (
        "Ana & Boris 🂡!",
        [
            {"type": "bold", "offset": 0, "length": 3},
            {"type": "text_link", "offset": 6, "length": 5, "url": "https://t.me/x"},
            {"type": "italic", "offset": 14, "length": 1},  # 🂡 is two UTF-16 units
        ],
    )
    assert parse_markdown(r"*Ana* \- _x_ [l](https://a.b) \.", v2=True) == (
        "Ana - x l .",
        [
            {"type": "bold", "offset": 0, "length": 3},
            {"type": "italic", "offset": 6, "length": 1},
            {"type": "text_link", "offset": 8, "length": 1, "url": "https://a.b"},
        ],
    )


async def test_bot_added_to_a_group_as_plain_member_sees_commands_only(fake: FakeTelegram, desk: Desk) -> None:
    ana = fake.user("Ana")
    group = fake.group("Novi klub", members=[ana], bot_status="left")
    async with running(build_application(fake, desk)):
        fake.push_chat_member(group, fake.bot, "left", "member", by=ana)
        ignored = fake.push_message(group, ana, "zdravo svima")  # privacy mode: not delivered
        fake.push_message(group, ana, "/sudija@drugi_bot 4")  # another bot's command: not delivered
        fake.push_command(group, ana, "sudija", "5")
        await fake.wait_for("sendMessage", chat=group)
    assert desk.bot_status == {group.id: "member"}
    assert desk.commands == [("sudija", ["5"], group.id)]
    assert [u["message"]["text"] for u in fake.dropped_updates] == [ignored.text, "/sudija@drugi_bot 4"]
    with pytest.raises(ValueError, match="administrators"):
        fake.push_chat_member(group, ana, "member", "left")
    assert desk.errors == []


async def test_long_poll_confirmation_and_conflict() -> None:
    """The getUpdates contract the poller relies on, driven over raw HTTP, on a clock that stands still unless
    the test moves it: every answer proves an event woke the poll, none that its time ran out."""
    now = [1_000_000.0]
    fake = FakeTelegram(max_long_poll=30, clock=lambda: now[0], poll_clock=lambda: now[0])
    async with fake, asyncio.timeout(5), aiohttp.ClientSession() as session:
        ana = fake.user("Ana")
        url = f"{fake.base_url}{fake.token}/getUpdates"

        async def poll(**params: object) -> tuple[int, dict[str, Any]]:
            async with session.post(url, json=params) as response:
                return response.status, await response.json()

        waiting = asyncio.create_task(poll(timeout=30, allowed_updates=[]))
        await fake.wait_until(lambda: len(fake.calls("getUpdates")) == 1)
        fake.push_message(ana, ana, "prva")  # wakes the pending long poll at once
        status, body = await waiting
        assert status == 200
        assert [u["message"]["text"] for u in body["result"]] == ["prva"]
        update_id = body["result"][0]["update_id"]
        assert (await poll(timeout=0))[1]["result"] == body["result"]  # not confirmed: delivered again
        assert (await poll(offset=update_id + 1, timeout=0))[1]["result"] == []
        assert fake.pending_updates == []

        older = asyncio.create_task(poll(offset=update_id + 1, timeout=30))
        await fake.wait_until(lambda: fake.held_polls == 1)
        now[0] += 3  # a call answered at once (nothing to wait for) ends no poll held
        assert await poll(offset=update_id + 1, timeout=0) == (200, {"ok": True, "result": []})
        assert not older.done()
        assert fake.held_polls == 1
        newer = asyncio.create_task(poll(offset=update_id + 1, timeout=30))  # one that waits ends it
        status, body = await older
        assert status == 409
        assert "terminated by other getUpdates" in body["description"]
        # Within SAME_OFFSET_WAIT of the last call's start, one with its offset waits that long though it asked
        # for none: it is held, and so ends the one held before.
        bumped = asyncio.create_task(poll(offset=update_id + 1, timeout=0))
        assert (await newer)[0] == 409
        now[0] += SAME_OFFSET_WAIT
        fake.wake_polls()
        assert await bumped == (200, {"ok": True, "result": []})
        assert [r.held for r in fake.calls("getUpdates")[-4:]] == [True, False, True, True]
    assert fake.allowed_updates == DEFAULT_ALLOWED_UPDATES
