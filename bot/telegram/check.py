"""`sudija check` on Telegram: the token, each configured group (not the club's group where it must be another —
the referees' and the councilors'; the bot is in it; it is a group, not one upgraded to a supergroup since — then
its new id is named; in the club's group the bot is an administrator — Telegram tells only administrators of
members leaving — with the right to delete messages, so a /sudija line does not stay for everyone to read) and
the owner's account in the club's group. Findings are `bot.setup.Finding` values; nothing here changes anything.
"""

from __future__ import annotations

from telegram import Bot, ChatMember, ChatMemberAdministrator
from telegram.constants import ChatType
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, TelegramError

from bot.config import Config
from bot.setup import Finding

PLATFORM = "telegram"
_PRESENT = (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER, ChatMember.RESTRICTED)
_ADMIN_FIX = (
    "in the group: Manage group → Administrators → Add admin → the bot, with Delete messages (docs/telegram.md)"
)


async def _group(bot: Bot, setting: str, chat_id: int, *, club: bool, topic: int = 0) -> list[Finding]:
    where = f"[telegram] {setting} = {chat_id}"
    try:
        chat = await bot.get_chat(chat_id)
    except ChatMigrated as upgraded:
        return [
            Finding(
                PLATFORM,
                where,
                "this group was upgraded to a supergroup, which has a new id; the old one takes nothing",
                f"use the new id: [telegram] {setting} = {upgraded.new_chat_id}",
            )
        ]
    except (BadRequest, Forbidden) as missing:
        return [
            Finding(
                PLATFORM,
                where,
                f"Telegram says {missing.message!r}: the bot is not in this group or the id is wrong",
                "add the bot to the group, and take the id the bot sees there (a supergroup's id starts with -100)",
            )
        ]
    where += f" ({chat.title or chat.type})"
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return [Finding(PLATFORM, where, f"is a {chat.type} chat, not a group", "name a group here")]
    me = await bot.get_chat_member(chat_id, bot.id)
    if me.status not in _PRESENT:
        return [Finding(PLATFORM, where, f"the bot is {me.status} there", "add the bot to the group again")]
    if topic and not chat.is_forum:
        topic_setting = setting.replace("group_id", "topic_id")
        return [
            Finding(
                PLATFORM,
                f"[telegram] {topic_setting} = {topic}",
                f"names a topic, but the group {chat.title!r} has no topics (it is not a forum): nothing could be "
                "posted there",
                f"set [telegram] {topic_setting} = 0, or turn Topics on in the group's settings",
            )
        ]
    if not club:
        return []
    if not isinstance(me, ChatMemberAdministrator) and me.status != ChatMember.OWNER:
        return [
            Finding(
                PLATFORM,
                where,
                "the bot is not an administrator of the club's group: Telegram does not "
                "tell it of members leaving (leaving the group is leaving the club), and it cannot "
                "delete the /sudija lines",
                _ADMIN_FIX,
            )
        ]
    if isinstance(me, ChatMemberAdministrator) and not me.can_delete_messages:
        return [
            Finding(
                PLATFORM,
                where,
                "the bot may not delete messages: every /sudija line stays for the whole group to read",
                "give the bot the administrator right Delete messages",
                fatal=False,
            )
        ]
    return []


def _apart(config: Config) -> list[Finding]:
    """The referees' and the councilors' groups are not the club's: a call there names the caller and the game to
    the whole club."""
    settings = config.telegram
    found: list[Finding] = []
    for setting, what in (("referees_group_id", "every call"), ("councilors_group_id", "every councilor call")):
        chat_id = getattr(settings, setting)
        if chat_id and chat_id == settings.club_group_id:
            found.append(
                Finding(
                    PLATFORM,
                    f"[telegram] {setting} = {chat_id}",
                    f"is the club's group (club_group_id): {what}, with the caller and the game, would be posted "
                    "to the whole club",
                    "create a group of the referees alone (the councilors alone), add the bot, and put its id "
                    "here (docs/telegram.md)",
                )
            )
    return found


async def telegram_findings(bot: Bot, config: Config) -> list[Finding]:
    """The findings for an initialized `Bot` (its getMe done)."""
    settings = config.telegram
    found: list[Finding] = _apart(config)
    for setting, club in (("club_group_id", True), ("referees_group_id", False), ("councilors_group_id", False)):
        chat_id = getattr(settings, setting)
        if not chat_id:
            if setting != "councilors_group_id":
                found.append(
                    Finding(PLATFORM, f"[telegram] {setting}", "is not set", "put the group's id there", fatal=False)
                )
            continue
        try:
            topic = getattr(settings, setting.replace("group_id", "topic_id"))
            found += await _group(bot, setting, chat_id, club=club, topic=topic)
        except TelegramError as failed:
            found.append(
                Finding(PLATFORM, f"[telegram] {setting} = {chat_id}", f"cannot be checked: {failed}", "try again")
            )
    club_id = settings.club_group_id
    for account in config.owner_accounts:
        name, _, user_id = account.partition(":")
        if name != PLATFORM or not club_id or not user_id.lstrip("-").isdigit():
            continue
        try:
            owner = await bot.get_chat_member(club_id, int(user_id))
            present = owner.status in _PRESENT
        except TelegramError:
            present = False
        if not present:
            found.append(
                Finding(
                    PLATFORM,
                    f"[club] owner_accounts: {account}",
                    "is not in the club's group",
                    "add the owner to the group, or correct his user id",
                    fatal=False,
                )
            )
    return found


async def check_telegram(config: Config) -> list[Finding]:
    """A plain `Bot` with the token: look, and close its connections."""
    settings = config.telegram
    token = settings.token
    if token is None:
        return [
            Finding(
                PLATFORM,
                f"[telegram] token_env = {settings.token_env}",
                "the variable is not set",
                "put the bot token from @BotFather in that environment variable",
            )
        ]
    bot = Bot(token, base_url=settings.base_url) if settings.base_url else Bot(token)
    try:
        async with bot:
            return await telegram_findings(bot, config)
    except InvalidToken:
        return [
            Finding(
                PLATFORM,
                f"[telegram] token_env = {settings.token_env}",
                "Telegram refuses the token",
                "copy the token again from @BotFather",
            )
        ]
