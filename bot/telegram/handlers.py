"""What members do on Telegram, turned into desk use cases: typed commands (through `bot.commands.Commands`),
button presses (callback queries → `Desk.press`), private messages (a trial's relay, as a typed line), ``/start``
(deliver what waited), ``/nadimak NICK [CODE]`` (asking the desk for a link, `bot.desk.links`; every other
command and press goes through `Desk.actor`, so an unproven account is told how to link) and members joining or
leaving the club group, reported to the core (`desk.reported`, which holds a report while the database is busy);
at the start, the club group's roll call (`roll_call`) finds what a restart forgot.

Where the answer goes: the desk's `Reply` is for the member alone, always in his private chat. A command typed in
a group is answered there privately and the command's message deleted (where the bot has the right), so the
others learn nothing of a call; a member who never started the bot gets one neutral line in the group with a deep
link (no game, no call) and his answer on /start. A press is answered at once with a short line (Telegram drops
a press not answered within seconds), then the desk works and its answer comes as a private message; a press
too old to be answered still gets that message. Updates are handled concurrently; one member's messages keep
their order. Telegram shows no presence: a linked member counts as online here (decisions.md), so linking, any
action and the adapter's start mark him online; the duty toggle (/dezurstvo) alone decides.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    CallbackQuery,
    ChatMember,
    Document,
    Message,
    PhotoSize,
    Update,
)
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ChatMemberHandler, ContextTypes, MessageHandler, filters

from bot.commands import Commands
from bot.desk import Desk
from bot.i18n import TELEGRAM_LANGUAGES
from bot.messages import Catalogue
from bot.ports import WORK_SLOTS, Action, Reply, Upload
from bot.registry import REGISTRY
from bot.registry.spec import Caller, Place
from bot.telegram.format import parse_callback
from bot.telegram.pictures import send_attachments
from bot.telegram.port import PLATFORM, TelegramChat
from rules.members import Member

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE
AnyApplication = Application[Any, Any, Any, Any, Any, Any]

#: The groups' menu: the registry's commands that work in the club's chat; the private chat's menu: all of them.
GROUP_COMMANDS = tuple(c.name for c in REGISTRY if Place.CLUB in c.places)
PRIVATE_COMMANDS = tuple(c.name for c in REGISTRY if Place.PRIVATE in c.places)
ONE_SHOT = frozenset({Action.WITHDRAW})  # a used button of this kind leaves the pressed message
_NOT_FOUND = re.compile(r"user not found|participant_id_invalid", re.IGNORECASE)  # getChatMember of no such user
_COMMAND = re.compile(r"/([^\s@]+)(?:@(\S*))?(?:\s+(.*))?", re.DOTALL)


def _present(status: ChatMember) -> bool:
    if status.status == ChatMember.RESTRICTED:
        return bool(getattr(status, "is_member", False))
    return status.status in (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER)


@dataclass(frozen=True)
class Where:
    """Where a command was typed, to know where its answer goes."""

    user: int
    chat: int
    message: int
    private: bool
    topic: int | None = None  # the forum topic it was typed in (None: not a forum, or its General topic)


def topic_of(message: Message | None) -> int | None:
    """The forum topic a message is in, where its group is a forum (a reply thread elsewhere is no topic)."""
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


class TelegramHandlers:
    def __init__(self, desk: Desk, commands: Commands, port: TelegramChat) -> None:
        self.desk = desk
        self.commands = commands
        self.port = port
        self.work = asyncio.Semaphore(WORK_SLOTS)
        self.order: dict[int, asyncio.Lock] = {}  # per Telegram user: his messages in the order he wrote them

    def install(self, application: AnyApplication) -> None:
        chats = filters.ChatType.PRIVATE | filters.ChatType.GROUPS
        application.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & chats, self.on_message))
        # A file sent with a command as its caption (the table's chat with /prijava): the command, with the file.
        with_file = (filters.Document.ALL | filters.PHOTO) & filters.CaptionRegex(r"^\s*/")
        application.add_handler(MessageHandler(filters.UpdateType.MESSAGE & with_file & chats, self.on_message))
        application.add_handler(CallbackQueryHandler(self.on_callback))
        application.add_handler(ChatMemberHandler(self.on_chat_member, ChatMemberHandler.CHAT_MEMBER))
        application.add_error_handler(self.on_error)

    # Start-up ------------------------------------------------------------------------------------------
    async def register_commands(self) -> None:
        """setMyCommands: a menu per catalogue language Telegram has a code for (Serbian, English, Russian), and
        the club's language for everyone else; the groups' menu holds only the commands that work there."""
        bot = self.port.bot
        for language in (*TELEGRAM_LANGUAGES, ""):
            catalogue = Catalogue(TELEGRAM_LANGUAGES.get(language) or self.desk.config.language)
            private = [BotCommand(n, catalogue.t(f"cmd.{n}")) for n in PRIVATE_COMMANDS]
            group = [BotCommand(n, catalogue.t(f"cmd.{n}")) for n in GROUP_COMMANDS]
            await bot.set_my_commands(private, language_code=language or None)
            await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats(), language_code=language or None)

    async def mark_present(self) -> None:
        """Members known only on Telegram are online (Telegram shows no presence); a member also on Discord
        gets his presence from Discord."""
        for member in await self.desk.members_only_on(PLATFORM, not_on="discord"):
            if not member.online:
                await self.desk.reported.acting(member, PLATFORM)

    async def roll_call(self) -> int:
        """The club group asked, account by account, whether each linked account is in it (getChatMember), for
        the core's roll call (`bot.desk.reported`): a leave or a join a restart forgot, or one older than the day
        Telegram keeps updates, is reported now. An account Telegram says nothing of (not found) is left as
        recorded; any other failure ends the roll call, logged (the next start calls it again). How many were
        reported."""
        club = self.port.config.club_group_id
        if not club:
            return 0

        async def is_in(account: str) -> bool | None:
            if not account.isdigit():
                return None
            try:
                return _present(await self.port.bot.get_chat_member(club, int(account)))
            except BadRequest as unknown:
                if not _NOT_FOUND.search(str(unknown)):
                    raise
                log.info("Telegram knows no member %s of the club group (%s): left as recorded", account, unknown)
                return None

        try:
            return await self.desk.reported.roll_call(PLATFORM, is_in)
        except TelegramError as failed:
            log.warning(
                "the roll call of the Telegram club group stopped (%s: %s): the next start calls it again",
                type(failed).__name__,
                failed,
            )
            return 0

    async def present(self, member: Member) -> Member:
        """He acts on Telegram, so he is online here (online anywhere: online): reported to the core, which holds
        it while the database is busy; the member as stored now."""
        return await self.desk.reported.acting(member, PLATFORM)

    # Messages ------------------------------------------------------------------------------------------
    async def on_message(self, update: Update, context: Context) -> None:
        """One member's messages are handled in the order he wrote them, also with concurrent updates (a
        trial's relay keeps its order); different members' updates do not wait for each other."""
        user = update.effective_user
        lock = self.order.setdefault(user.id if user is not None else 0, asyncio.Lock())
        async with lock:
            await self.message(update)

    async def message(self, update: Update) -> None:
        message, user, chat = update.effective_message, update.effective_user, update.effective_chat
        if message is None or user is None or chat is None or user.is_bot:
            return
        text = message.text if message.text is not None else message.caption
        if text is None:
            return
        private = chat.type == ChatType.PRIVATE
        if not private and not self.port.known_group(chat.id):
            return
        where = Where(user.id, chat.id, message.message_id, private, topic_of(message))
        match = _COMMAND.fullmatch(text.strip()) if text.startswith("/") else None
        if match is None:
            if private:
                await self.private_text(where, text)
            return  # the group's own conversation is not for the bot
        name, target = match.group(1).casefold(), match.group(2)
        if target is not None and target.casefold() != (self.port.bot.username or "").casefold():
            return  # addressed to another bot
        member = await self.desk.member_for(PLATFORM, str(user.id))
        if name == "start" and private:
            await self.start(where, member)
            return
        typed, command, _ = self.commands.find(text)
        if command is None:
            if private:
                async with self.desk.voice.reading(member):
                    await self.show(where, self.desk.voice.refuse("command.unknown", name=typed))
            return
        actor = await self.desk.actor(PLATFORM, str(user.id))
        proven = None if isinstance(actor, Reply) else await self.present(actor)
        caller = Caller(
            PLATFORM,
            str(user.id),
            proven,
            Place.PRIVATE if private else Place.CLUB,  # the core refuses what the command's places do not name
            refusal=actor if isinstance(actor, Reply) else None,
            display=user.full_name,
        )
        reply = await self.commands.handle_as(caller, text, await self.upload_of(message))
        if proven is None and (linked := await self.desk.member_for(PLATFORM, str(user.id))) is not None:
            await self.present(linked)  # the account has just been proven (a code)
        if reply is not None:
            await self.show(where, reply, name=user.full_name)
        if not private:  # the others in the group learn nothing of it (where the bot may delete messages)
            await self.port.delete_command(chat.id, message.message_id)

    async def upload_of(self, message: Message) -> Upload | None:
        """The file sent with the command (a document, or the largest size of a photo), downloaded only within
        the club's limit (a larger one is handed over empty, so the desk answers with the limit; a Telegram bot
        downloads at most 20 MB anyway)."""
        limit = self.desk.config.appeals.attachment_max_kb * 1024
        sent: Document | PhotoSize
        if message.document is not None:
            sent = message.document
            name, content_type = sent.file_name or "prilog", sent.mime_type or "application/octet-stream"
        elif message.photo:
            sent = message.photo[-1]
            name, content_type = f"{sent.file_unique_id}.jpg", "image/jpeg"
        else:
            return None
        if sent.file_size is not None and sent.file_size > limit:
            return Upload(name, content_type, b"")
        found = await sent.get_file()
        data = bytes(await found.download_as_bytearray())
        return Upload(name, content_type, data if len(data) <= limit else b"")

    async def private_text(self, where: Where, text: str) -> None:
        """A private message: a word in the member's trial (relayed by the desk through the port), or a hint."""
        actor = await self.desk.actor(PLATFORM, str(where.user))
        if isinstance(actor, Reply):
            await self.show(where, actor)
            return
        member = await self.present(actor)
        if await self.desk.open_trial_of(member) is None:
            async with self.desk.voice.reading(member):
                await self.show(where, Reply(self.desk.t("telegram.not_in_trial")))
            return
        caller = Caller(PLATFORM, str(where.user), member, Place.PRIVATE)
        reply = await self.commands.handle_as(caller, text)  # his words for his trial: the core answers a busy database
        if reply is not None:
            await self.show(where, reply)

    async def start(self, where: Where, member: Member | None) -> None:
        """/start (also from a deep link): greet, then deliver what waited for him."""
        async with self.desk.voice.reading(member):
            text = self.desk.t("telegram.welcome")
        if member is None:
            text += "\n" + self.desk.t("link.needed")
        else:
            member = await self.present(member)
        await self.port.send(where.chat, text)
        await self.port.deliver(where.user, member)

    async def show(self, where: Where, reply: Reply, *, name: str = "") -> None:
        """The desk's answer to the member alone: in the private chat; from a group, privately too — one who
        never started the bot gets a neutral line with a deep link in the group and the answer on /start."""
        if where.private:
            await self.port.send(where.chat, reply.text, reply.buttons)
            await send_attachments(self.port.bot, where.chat, reply)
            return
        if await self.port.answer_privately(
            where.user, name, reply.text, reply.buttons, group=where.chat, reply_to=where.message, topic=where.topic
        ):
            await send_attachments(self.port.bot, where.user, reply)  # pictures and records: privately only

    # Buttons -------------------------------------------------------------------------------------------
    async def on_callback(self, update: Update, context: Context) -> None:
        """A press is answered at once with a short line (Telegram drops a press not answered within seconds):
        before anything of the desk's work, after one read (the presser's language); then the desk does the work
        and its answer goes to the presser as a private message. A press already too old for Telegram is still
        answered, by that message."""
        query = update.callback_query
        if query is None:
            return
        try:
            async with self.desk.voice.reading_account(PLATFORM, str(query.from_user.id)):  # his language only
                pressed = self.desk.t("telegram.pressed")
            await query.answer(pressed)
        except TelegramError as error:  # too late (query too old) or flood control: the message still follows
            log.info("callback %s not answered in time: %s", query.id, error.message)
        try:
            async with self.work:  # a burst of presses is answered before it is worked
                reply = await self.press(query)
        except Exception:
            log.exception("telegram press %s by %s failed", query.data, query.from_user.id)
            reply = Reply(self.desk.t("telegram.error"), ok=False)
        await self.result(query, reply)

    async def press(self, query: CallbackQuery) -> Reply:
        """The payload names an action and an id; `Desk.press` re-checks both and the presser's roles."""
        actor = await self.desk.actor(PLATFORM, str(query.from_user.id))
        if isinstance(actor, Reply):
            return actor
        parsed = parse_callback(query.data)
        if parsed is None:
            return self.desk.voice.refuse("button.unknown")
        member = await self.present(actor)
        reply = await self.desk.press(member, *parsed, PLATFORM)
        if reply.ok and parsed[0] in ONE_SHOT and isinstance(query.message, Message):
            await self.port.remove_keyboard(query.message.chat.id, query.message.message_id, query.message.reply_markup)
        return reply

    async def result(self, query: CallbackQuery, reply: Reply) -> None:
        message = query.message if isinstance(query.message, Message) else None
        group = message.chat.id if message is not None and message.chat.type != ChatType.PRIVATE else None
        if await self.port.answer_privately(
            query.from_user.id,
            query.from_user.full_name,
            reply.text,
            reply.buttons,
            group=group,
            reply_to=message.message_id if message else None,
            topic=topic_of(message),
        ):
            await send_attachments(self.port.bot, query.from_user.id, reply)

    # Members -------------------------------------------------------------------------------------------
    async def on_chat_member(self, update: Update, context: Context) -> None:
        """Leaving the club group is leaving the club: his out-of-game trial ends (the desk decides)."""
        change = update.chat_member
        club = self.port.config.club_group_id
        if change is None or not club or change.chat.id != club:
            return
        was, now = _present(change.old_chat_member), _present(change.new_chat_member)
        if was != now:  # the core decides what it means, and holds it while the database is busy
            await self.desk.reported.membership(PLATFORM, str(change.new_chat_member.user.id), now)

    async def on_error(self, update: object, context: Context) -> None:
        """Only what nothing else answers reaches here (a busy database is the core's: `bot.desk.reported`,
        `bot.registry.run`, `Desk.press`, `Commands.handle_as`): an unexpected error, logged."""
        log.error("telegram update %s failed", update, exc_info=context.error)
