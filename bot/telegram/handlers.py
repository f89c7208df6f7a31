"""What members do on Telegram, turned into desk use cases: typed commands (through `bot.commands.Commands`),
button presses (callback queries → `Desk.press`), private messages (a trial's relay → `Desk.say`), ``/start``
(deliver what waited), ``/nadimak NICK [CODE]`` (asking the desk for a link, `bot.desk.links`; every other
command and press goes through `Desk.actor`, so an unproven account is told how to link) and members leaving
the club group (`Desk.member_left_club` for this platform).

Where the answer goes: the desk's `Reply` is for the member alone. A command typed in a private chat is
answered there; one typed in a group is answered privately, and only if the member has never started the bot,
in the group as a reply to his command (with the public view of /presude, never a referee's). A press is answered
with answerCallbackQuery (seen by the presser only): a toast, an alert when long or a refusal, and a private
message when it does not fit. Telegram shows no presence: a linked member counts as online here (decisions.md),
so linking, any action and the adapter's start mark him online; the duty toggle (/dezurstvo) alone decides.
"""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    CallbackQuery,
    ChatMember,
    Message,
    Update,
)
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, ChatMemberHandler, ContextTypes, MessageHandler, filters

from bot.app import DatabaseBusy
from bot.commands import Commands
from bot.desk import Desk
from bot.i18n import TELEGRAM_LANGUAGES
from bot.messages import Catalogue
from bot.ports import Reply
from bot.registry import REGISTRY
from bot.registry.spec import Caller, Place
from bot.telegram.format import ANSWER_LIMIT, TOAST_LIMIT, parse_callback, shorten
from bot.telegram.pictures import send_attachments, send_pictures
from bot.telegram.port import PLATFORM, TelegramChat
from rules.members import Member

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE
AnyApplication = Application[Any, Any, Any, Any, Any, Any]

#: The groups' menu: the registry's commands that work in the club's chat; the private chat's menu: all of them.
GROUP_COMMANDS = tuple(c.name for c in REGISTRY if Place.CLUB in c.places)
PRIVATE_COMMANDS = tuple(c.name for c in REGISTRY if Place.PRIVATE in c.places)
ONE_SHOT = frozenset({"withdraw"})  # a used button of this kind leaves the pressed message
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


class TelegramHandlers:
    def __init__(self, desk: Desk, commands: Commands, port: TelegramChat) -> None:
        self.desk = desk
        self.commands = commands
        self.port = port

    def install(self, application: AnyApplication) -> None:
        chats = filters.ChatType.PRIVATE | filters.ChatType.GROUPS
        application.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & chats, self.on_message))
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
                await self.desk.presence(member, True, PLATFORM)

    async def present(self, member: Member) -> Member:
        """He acts on Telegram, so he is online here (online anywhere: online); the member as stored now."""
        await self.desk.presence(member, True, PLATFORM)
        return await self.desk.member(member.id) or member

    # Messages ------------------------------------------------------------------------------------------
    async def on_message(self, update: Update, context: Context) -> None:
        message, user, chat = update.effective_message, update.effective_user, update.effective_chat
        if message is None or user is None or chat is None or message.text is None or user.is_bot:
            return
        private = chat.type == ChatType.PRIVATE
        if not private and not self.port.known_group(chat.id):
            return
        where = Where(user.id, chat.id, message.message_id, private)
        text = message.text
        match = _COMMAND.fullmatch(text.strip()) if text.startswith("/") else None
        if match is None:
            if private:
                await self.private_text(where, text)
            return  # the group's own conversation is not for the bot
        name, target, rest = match.group(1).casefold(), match.group(2), match.group(3) or ""
        if target is not None and target.casefold() != (self.port.bot.username or "").casefold():
            return  # addressed to another bot
        member = await self.desk.member_for(PLATFORM, str(user.id))
        if name == "start" and private:
            await self.start(where, member)
            return
        typed, command, _ = self.commands.find(text)
        if command is None:
            if private:
                await self.show(where, self.desk.refuse("command.unknown", name=typed))
            return
        if not private and Place.CLUB not in command.places:
            await self.port.send(chat.id, self.desk.t("telegram.private_only", link=self.port.start_link()),
                                 reply_to=message.message_id)
            return
        actor = await self.desk.actor(PLATFORM, str(user.id))
        proven = None if isinstance(actor, Reply) else await self.present(actor)
        caller = Caller(PLATFORM, str(user.id), proven, refusal=actor if isinstance(actor, Reply) else None,
                        display=user.full_name)
        try:
            reply = await self.commands.handle_as(caller, text)
        except DatabaseBusy:
            reply = self.desk.refuse("db.busy")
        if proven is None and (linked := await self.desk.member_for(PLATFORM, str(user.id))) is not None:
            await self.present(linked)  # the account has just been proven (a code)
        if reply is not None:
            await self.show(where, reply, name=command.name, rest=rest)

    async def private_text(self, where: Where, text: str) -> None:
        """A private message: a word in the member's trial (relayed by the desk through the port), or a hint."""
        actor = await self.desk.actor(PLATFORM, str(where.user))
        if isinstance(actor, Reply):
            await self.show(where, actor)
            return
        member = await self.present(actor)
        if await self.desk.open_trial_of(member) is None:
            await self.show(where, Reply(self.desk.t("telegram.not_in_trial")))
            return
        reply = await self.desk.say(member, text)
        if reply is not None:
            await self.show(where, reply)

    async def start(self, where: Where, member: Member | None) -> None:
        """/start (also from a deep link): greet, then deliver what waited for him."""
        text = self.desk.t("telegram.welcome")
        if member is None:
            text += "\n" + self.desk.t("link.needed")
        else:
            member = await self.present(member)
        await self.port.send(where.chat, text)
        await self.port.deliver(where.user, member)

    async def show(self, where: Where, reply: Reply, *, name: str = "", rest: str = "") -> None:
        """The desk's answer to the member alone: in the private chat; from a group, privately if he can be
        written to, else in the group with the public view."""
        if where.private:
            await self.port.send(where.chat, reply.text, reply.buttons)
            await send_attachments(self.port.bot, where.chat, reply)
            return
        if await self.port.send_private(where.user, reply.text, reply.buttons, keep=False) is not None:
            await send_attachments(self.port.bot, where.user, reply)
            return
        if name == "presude" and reply.ok:  # the member's view may name referees: the group gets the public one
            reply = await self.desk.verdicts(None, int(rest.split()[0]))
        elif name == "papir" and reply.ok:  # the same for the paper (a verdict's change names its referee)
            reply = await self.desk.paper(int(rest.split()[0]))
        hint = self.desk.t("telegram.start_hint", link=self.port.start_link())
        await self.port.send(where.chat, f"{reply.text}\n{hint}", reply.buttons, reply_to=where.message)
        await send_pictures(self.port.bot, where.chat, reply.pictures)  # a document (a record) never goes to a group

    # Buttons -------------------------------------------------------------------------------------------
    async def on_callback(self, update: Update, context: Context) -> None:
        """Every press is answered exactly once, even when handling it fails."""
        query = update.callback_query
        if query is None:
            return
        answered = False
        try:
            try:
                reply = await self.press(query)
            except DatabaseBusy:  # another process held the write lock past the bound: nothing changed
                reply = self.desk.refuse("db.busy")
            await self.answer(query, reply)
            answered = True
        finally:
            if not answered:
                with contextlib.suppress(TelegramError):
                    await query.answer(self.desk.t("telegram.error"), show_alert=True)

    async def press(self, query: CallbackQuery) -> Reply:
        """The payload names an action and an id; `Desk.press` re-checks both and the presser's roles."""
        actor = await self.desk.actor(PLATFORM, str(query.from_user.id))
        if isinstance(actor, Reply):
            return actor
        parsed = parse_callback(query.data)
        if parsed is None:
            return self.desk.refuse("button.unknown")
        member = await self.present(actor)
        reply = await self.desk.press(member, *parsed)
        if reply.ok and parsed[0] in ONE_SHOT and isinstance(query.message, Message):
            await self.port.remove_keyboard(query.message.chat.id, query.message.message_id,
                                            query.message.reply_markup)
        return reply

    async def answer(self, query: CallbackQuery, reply: Reply) -> None:
        text = reply.text
        if len(text) > ANSWER_LIMIT or reply.buttons or reply.pictures or reply.documents:
            if await self.port.send_private(query.from_user.id, text, reply.buttons, keep=False) is not None:
                await query.answer(self.desk.t("telegram.sent_private"))
                await send_attachments(self.port.bot, query.from_user.id, reply)
                return
            await query.answer(shorten(text), show_alert=True)
            return
        alert = not reply.ok or len(text) > TOAST_LIMIT
        await query.answer(text, show_alert=True if alert else None)

    # Members -------------------------------------------------------------------------------------------
    async def on_chat_member(self, update: Update, context: Context) -> None:
        """Leaving the club group is leaving the club: his out-of-game trial ends (the desk decides)."""
        change = update.chat_member
        club = self.port.config.club_group_id
        if change is None or not club or change.chat.id != club:
            return
        was, now = _present(change.old_chat_member), _present(change.new_chat_member)
        if was == now:
            return
        member = await self.desk.member_for(PLATFORM, str(change.new_chat_member.user.id))
        if member is None:
            return
        if was:
            await self.desk.member_left_club(member, PLATFORM)
        else:
            await self.desk.member_joined(member, PLATFORM)

    async def on_error(self, update: object, context: Context) -> None:
        if isinstance(context.error, DatabaseBusy) and isinstance(update, Update) and update.effective_chat:
            log.warning("telegram update %s met a busy database: %s", update.update_id, context.error)
            with contextlib.suppress(TelegramError):  # nothing changed: the member is told to try again
                await self.port.send(update.effective_chat.id, self.desk.t("db.busy"))
            return
        log.error("telegram update %s failed", update, exc_info=context.error)
