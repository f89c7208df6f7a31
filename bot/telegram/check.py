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
from rules.phrases import Phrase

PLATFORM = "telegram"
_PRESENT = (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER, ChatMember.RESTRICTED)


async def _group(bot: Bot, setting: str, chat_id: int, *, club: bool, topic: int = 0) -> list[Finding]:
    where = f"[telegram] {setting} = {chat_id}"
    try:
        chat = await bot.get_chat(chat_id)
    except ChatMigrated as upgraded:
        return [
            Finding(
                PLATFORM,
                where,
                Phrase.of("check.telegram.upgraded"),
                Phrase.of("check.telegram.new_id", setting=setting, new=upgraded.new_chat_id),
            )
        ]
    except (BadRequest, Forbidden) as missing:
        return [
            Finding(
                PLATFORM,
                where,
                Phrase.of("check.telegram.missing", said=repr(missing.message)),
                Phrase.of("check.telegram.add_bot"),
            )
        ]
    name = chat.title or chat.full_name  # a group's title, or the person of a private chat
    if name:
        where += f" ({name})"
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        kind = "check.telegram.channel" if chat.type == ChatType.CHANNEL else "check.telegram.private"
        return [Finding(PLATFORM, where, Phrase.of(kind), Phrase.of("check.telegram.name_group"))]
    me = await bot.get_chat_member(chat_id, bot.id)
    if me.status not in _PRESENT:
        gone = "check.telegram.left" if me.status == ChatMember.LEFT else "check.telegram.kicked"
        return [Finding(PLATFORM, where, Phrase.of(gone), Phrase.of("check.telegram.add_again"))]
    if topic and not chat.is_forum:
        topic_setting = setting.replace("group_id", "topic_id")
        return [
            Finding(
                PLATFORM,
                f"[telegram] {topic_setting} = {topic}",
                Phrase.of("check.telegram.no_topics", title=repr(chat.title)),
                Phrase.of("check.telegram.topics_fix", setting=topic_setting),
            )
        ]
    if not club:
        return []
    if not isinstance(me, ChatMemberAdministrator) and me.status != ChatMember.OWNER:
        return [
            Finding(
                PLATFORM,
                where,
                Phrase.of("check.telegram.not_admin"),
                Phrase.of("check.telegram.admin_fix"),
            )
        ]
    if isinstance(me, ChatMemberAdministrator) and not me.can_delete_messages:
        return [
            Finding(
                PLATFORM,
                where,
                Phrase.of("check.telegram.cannot_delete"),
                Phrase.of("check.telegram.delete_fix"),
                fatal=False,
            )
        ]
    return []


def _apart(config: Config) -> list[Finding]:
    """The referees' and the councilors' groups are not the club's: a call there names the caller and the game to
    the whole club."""
    settings = config.telegram
    found: list[Finding] = []
    for setting, what in (
        ("referees_group_id", "check.telegram.referees_in_club"),
        ("councilors_group_id", "check.telegram.councilors_in_club"),
    ):
        chat_id = getattr(settings, setting)
        if chat_id and chat_id == settings.club_group_id:
            found.append(
                Finding(
                    PLATFORM,
                    f"[telegram] {setting} = {chat_id}",
                    Phrase.of(what),
                    Phrase.of("check.telegram.apart_fix"),
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
                    Finding(
                        PLATFORM,
                        f"[telegram] {setting}",
                        Phrase.of("check.not_set"),
                        Phrase.of("check.put_group"),
                        fatal=False,
                    )
                )
            continue
        try:
            topic = getattr(settings, setting.replace("group_id", "topic_id"))
            found += await _group(bot, setting, chat_id, club=club, topic=topic)
        except TelegramError as failed:
            found.append(
                Finding(
                    PLATFORM,
                    f"[telegram] {setting} = {chat_id}",
                    Phrase.of("check.telegram.unchecked", error=str(failed)),
                    Phrase.of("check.try_again"),
                )
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
                    Phrase.of("check.telegram.owner_absent"),
                    Phrase.of("check.telegram.add_owner"),
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
                Phrase.of("check.token_unset"),
                Phrase.of("check.telegram.token_fix"),
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
                Phrase.of("check.telegram.token_refused"),
                Phrase.of("check.telegram.token_again"),
            )
        ]
