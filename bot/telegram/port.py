"""`TelegramChat`: the desk's outbound `ChatPort` on Telegram. It translates only; the desk decides.

* Calls go to the referees' group (councilor calls to the councilors' group, if configured) with the desk's
  buttons as an inline keyboard and the eligible members mentioned, and privately to each of them who has
  started the bot. Every copy is a `Notice(platform, chat id, message id)`, stored by the desk, so every copy
  is edited (and its keyboard removed) when the call is taken, withdrawn or expires, even after a restart. A
  trial's controls are kept the same way (`Desk.keep_controls`) and removed at its end, also after a restart.
* A trial is a relay through private chats: each party gets the desk's texts privately, every message one of
  them writes reaches the others as ``nick: text``; the referee's controls are an inline keyboard under his
  opening message (removed when the trial closes).
* A member who has never started the bot cannot be written to. What the desk says to him is kept in an
  outbox (in memory) and delivered when he starts the bot; for a trial he is also invited once in the group
  (club group for players, referees' group for referees and councilors) with a deep link
  ``t.me/<bot>?start=sudjenje_<trial>`` that mentions him. After a restart the outbox is gone, so a party of
  an open trial who starts the bot is given the trial from the database instead: its header and its transcript.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup, LinkPreviewOptions, Message, MessageEntity, ReplyParameters
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.config import TelegramConfig
from bot.desk import Desk
from bot.ports import Button, CallPost, TrialSpace
from bot.telegram.format import (
    MENTION_MESSAGES,
    START_PREFIX,
    call_messages,
    defuse,
    keyboard,
    split_text,
    with_mention,
)
from bot.telegram.limiter import PutOff
from rules.members import Member, PartyRole
from rules.notices import Notice

log = logging.getLogger(__name__)

PLATFORM = "telegram"
OUTBOX_LIMIT = 100  # messages kept per member who has not started the bot
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass(frozen=True)
class Pending:
    """A private message that could not be delivered yet; `trial` tells which trial it belongs to."""

    text: str
    buttons: tuple[Button, ...]
    trial: int | None


def unreachable(error: TelegramError) -> bool:
    """Telegram's refusals for a user who never started the bot (403, or 400 chat not found) or blocked it."""
    return isinstance(error, Forbidden) or (isinstance(error, BadRequest) and "chat not found" in error.message.lower())


class TelegramChat:
    platform = PLATFORM

    def __init__(self, bot: Bot, desk: Desk, config: TelegramConfig) -> None:
        self.bot = bot
        self.desk = desk
        self.config = config
        self.outbox: dict[int, list[Pending]] = {}
        self.invited: set[tuple[int, int]] = set()  # (trial, user) already given a deep link in a group
        self.mention_messages = MENTION_MESSAGES  # messages a call may take in a group

    # Look-ups -----------------------------------------------------------------------------------------
    @staticmethod
    def account(member: Member) -> int | None:
        """The member's Telegram user id, or None when he has no Telegram account (then he is skipped)."""
        account = member.account(PLATFORM)
        return int(account) if account is not None else None

    async def member_linked(self, member: Member) -> None:
        """A proven link: Telegram shows no presence, so a member linked here counts as online (decisions.md)."""
        await self.desk.presence(member, True, PLATFORM)

    def start_link(self, payload: str = "") -> str:
        link = f"https://t.me/{self.bot.username}"
        return f"{link}?start={payload}" if payload else link

    def calls_place(self, councilor: bool, *, vote: bool = False) -> tuple[int, int]:
        """The group (and its topic, 0: General) a call goes to: a councilor call to the councilors' group, or
        the referees' (then in the councilors' topic, where one is set); a councilors' vote never where referees
        read (group 0: without a councilors' group its voters get it privately alone)."""
        settings = self.config
        if councilor and settings.councilors_group_id:
            return settings.councilors_group_id, settings.councilors_topic_id
        if vote:
            return 0, 0
        if councilor and settings.councilors_topic_id:
            return settings.referees_group_id, settings.councilors_topic_id
        return settings.referees_group_id, settings.referees_topic_id

    def known_group(self, chat_id: int) -> bool:
        groups = {self.config.club_group_id, self.config.referees_group_id, self.config.councilors_group_id} - {0}
        return not groups or chat_id in groups

    # Sending ------------------------------------------------------------------------------------------
    async def send(
        self,
        chat_id: int,
        text: str,
        buttons: Sequence[Button] = (),
        entities: Sequence[MessageEntity] = (),
        reply_to: int | None = None,
        topic: int | None = None,
    ) -> Message:
        """Send plain text (no parse_mode), split to Telegram's limit; the keyboard goes under the last part.
        Text bound for a group is defused so it cannot ping anyone; in a forum group it goes to the `topic` (its
        message_thread_id; None or 0: the General topic). Returns the last message sent."""
        group = chat_id < 0
        if group and not entities:
            text = defuse(text)
        parts = split_text(text) if not entities else [text]
        markup = keyboard(buttons)
        message: Message | None = None
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to and not index else None
            # Flood control (429 retry_after) is waited out by the application's rate limiter (limiter.py), or, for
            # a chat outbox effect that showed nothing yet, put off whole (`PutOff`, let through to the outbox).
            message = await self.bot.send_message(
                chat_id,
                part,
                entities=list(entities) or None,
                reply_markup=markup if last else None,
                link_preview_options=_NO_PREVIEW,
                reply_parameters=reply,
                message_thread_id=topic or None,
            )
        assert message is not None
        return message

    async def send_private(
        self, user_id: int, text: str, buttons: Sequence[Button] = (), *, trial: int | None = None, keep: bool = True
    ) -> Message | None:
        """Write to a member privately; None when he cannot be reached (then, with `keep`, it waits in his
        outbox until he starts the bot)."""
        try:
            return await self.send(user_id, text, buttons)
        except PutOff:
            raise  # the chat outbox tries the whole part again after the hold
        except TelegramError as error:
            if not unreachable(error):  # flood control or the network: logged; the desk's state is in the DB
                log.warning("cannot write to telegram user %s: %s", user_id, error.message)
                return None
            if keep:
                box = self.outbox.setdefault(user_id, [])
                box.append(Pending(text, tuple(buttons), trial))
                del box[:-OUTBOX_LIMIT]
            log.info(
                "telegram user %s cannot be written to (%s)%s",
                user_id,
                error.message,
                "; kept for later" if keep else "",
            )
            return None

    async def answer_privately(
        self,
        user_id: int,
        name: str,
        text: str,
        buttons: Sequence[Button] = (),
        *,
        group: int | None = None,
        reply_to: int | None = None,
        topic: int | None = None,
    ) -> bool:
        """The desk's answer to one member, privately. One who never started the bot (or blocked it) keeps it
        in his outbox for /start, and the group he acted in gets one neutral line with a deep link, naming
        neither the game nor the call — once, while his outbox waits. True when it was delivered now."""
        waiting = bool(self.outbox.get(user_id))
        if await self.send_private(user_id, text, buttons) is not None:
            return True
        if group is not None and not waiting and user_id in self.outbox:
            line, entities = with_mention(
                self.desk.t("telegram.answer_waiting", nick="\x00", link=self.start_link()),
                defuse(name) or "…",
                user_id,
            )
            try:
                await self.send(group, line, entities=entities, reply_to=reply_to, topic=topic)
            except TelegramError as error:
                log.warning("cannot point %s to the private chat in %s: %s", user_id, group, error.message)
        return False

    async def delete_command(self, chat_id: int, message_id: int) -> bool:
        """Remove a member's command from a group, so the others learn nothing of it (the bot needs the
        administrator right "Delete messages" there; without it the line stays and nothing else happens)."""
        try:
            return await self.bot.delete_message(chat_id, message_id)
        except TelegramError as error:
            log.info("cannot delete command %s in %s: %s", message_id, chat_id, error.message)
            return False

    # ChatPort ------------------------------------------------------------------------------------------
    async def post_call(self, post: CallPost) -> list[Notice]:
        """The notice in the group with its buttons, pinging every eligible member — at most 50 mentions a message
        (`format.call_messages`), the rest in further messages; whoever none of them could mention (past the
        messages a call may take, or a message refused) gets the call privately, as do the direct ones."""
        notices: list[Notice] = []
        group, topic = self.calls_place(post.channel.councilors, vote=post.councilors_only)
        people: dict[int, Member] = {}
        for member in post.mention:
            account = self.account(member)
            if account is not None:
                people[account] = member
        unmentioned: list[Member] = []
        if group:
            named = [(defuse(m.nick), a) for a, m in people.items()]
            messages, left = call_messages(defuse(post.text), named, messages=self.mention_messages)
            unmentioned = [people[a] for _, a in left]
            for index, message in enumerate(messages):
                try:
                    buttons = post.buttons if not index else ()
                    sent = await self.send(group, message.text, buttons, message.entities, topic=topic)
                except PutOff:
                    raise
                except TelegramError:
                    log.exception("cannot post the call %s in group %s", post.subject, group)
                    unmentioned += [people[a] for _, a in message.people]
                    continue
                if not index:  # the notice (with its buttons) is the copy edited later
                    notices.append(Notice(PLATFORM, str(group), str(sent.message_id)))
        direct = list(post.direct)
        if self.config.direct_messages:
            direct += list(people.values())
        direct += unmentioned
        seen: set[int] = set()
        for member in direct:
            account = self.account(member)
            if account is None or member.id in seen:
                continue
            seen.add(member.id)
            sent_private = await self.send_private(account, post.text, post.buttons, keep=False)
            if sent_private is not None:
                notices.append(Notice(PLATFORM, str(account), str(sent_private.message_id)))
        return notices

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        account = self.account(member)
        if account is None:
            return []
        sent = await self.send_private(account, post.text, post.buttons, keep=False)
        return [] if sent is None else [Notice(PLATFORM, str(account), str(sent.message_id))]

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        """Every copy gets the new text; an edit without a keyboard removes the old one (its buttons)."""
        for notice in notices:
            chat_id, message_id = int(notice.place), int(notice.message)
            try:
                await self.bot.edit_message_text(
                    defuse(text) if chat_id < 0 else text, chat_id, message_id, link_preview_options=_NO_PREVIEW
                )
            except BadRequest as error:
                if "not modified" not in error.message:
                    log.warning("cannot edit call notice %s/%s: %s", chat_id, message_id, error.message)
            except PutOff:
                raise
            except TelegramError as error:
                log.warning("cannot edit call notice %s/%s: %s", chat_id, message_id, error.message)

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        account = self.account(member)
        if account is not None:
            await self.send_private(account, text, buttons)

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        """Telegram has no table: the game's players who are members here are told privately (if reachable)."""
        for member in players:
            account = self.account(member)
            if account is not None:
                await self.send_private(account, text, keep=False)

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        for member in space.members:
            await self._welcome(space, member, text, buttons)

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        for other in space.members:
            if other.id != member.id:
                await self._to_party(space, other, text)
        await self._welcome(space, member, text, ())

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        """To every party but the sender, with the sender's nickname; buttons (controls) only to the referee."""
        body = self.desk.t("telegram.relay", nick=sender.nick, text=text) if sender is not None else text
        for member in space.members:
            if sender is None or member.id != sender.id:
                referee = space.role_of(member.id) is PartyRole.REFEREE
                await self._to_party(space, member, body, buttons if referee else ())

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        for controls in await self.desk.controls_of(space.id, PLATFORM):  # from the database: also after a restart
            try:
                await self.bot.edit_message_reply_markup(int(controls.place), int(controls.message), reply_markup=None)
            except PutOff:
                raise
            except TelegramError as error:
                log.info("cannot remove the controls of trial %s: %s", space.id, error.message)
        for member in space.members:
            account = self.account(member)
            if account is not None:
                await self.send_private(account, text, trial=space.id)

    # Trials ---------------------------------------------------------------------------------------------
    async def _welcome(self, space: TrialSpace, member: Member, text: str, buttons: Sequence[Button]) -> None:
        """A party's first message of the trial: the desk's text, how the relay works, and for the referee his
        controls."""
        referee = space.role_of(member.id) is PartyRole.REFEREE
        body = f"{text}\n\n{self.desk.t('telegram.trial_referee' if referee else 'telegram.trial_party')}"
        account = self.account(member)
        if account is None:
            return
        sent = await self.send_private(account, body, buttons if referee else (), trial=space.id)
        if sent is None and account in self.outbox:
            await self._invite(space, member, account)
        elif sent is not None and referee and buttons:
            await self._keep_controls(space.id, account, sent)

    async def _keep_controls(self, trial_id: int, chat_id: int, sent: Message) -> None:
        """A message with the trial's buttons: the desk keeps where it is, so the trial's end removes them."""
        await self.desk.keep_controls(trial_id, Notice(PLATFORM, str(chat_id), str(sent.message_id)))

    async def _to_party(self, space: TrialSpace, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        account = self.account(member)
        if account is None:
            return
        sent = await self.send_private(account, text, buttons, trial=space.id)
        if sent is None and account in self.outbox:
            await self._invite(space, member, account)
        elif sent is not None and buttons:
            await self._keep_controls(space.id, account, sent)

    async def _invite(self, space: TrialSpace, member: Member, account: int) -> None:
        """Once per trial and party: a deep link in the group where he is, mentioning him."""
        if (space.id, account) in self.invited:
            return
        judging = space.role_of(member.id) in (PartyRole.REFEREE, PartyRole.COUNCILOR)
        group, topic = self.calls_place(False) if judging else (self.config.club_group_id, self.config.club_topic_id)
        if not group:
            return
        link = self.start_link(f"{START_PREFIX}{space.id}")
        text, entities = with_mention(
            self.desk.t("telegram.invite", nick="\x00", link=link), defuse(member.nick), account
        )
        try:
            await self.send(group, text, entities=entities, topic=topic)
            self.invited.add((space.id, account))
        except PutOff:
            raise
        except TelegramError:
            log.exception("cannot invite %s to trial %s in group %s", member.nick, space.id, group)

    async def deliver(self, user_id: int, member: Member | None) -> None:
        """He has started the bot: what waited for him, in order; then, if he is a party of an open trial whose
        messages were not waiting (the outbox is lost on restart), the trial from the database."""
        waiting = self.outbox.pop(user_id, [])
        for index, pending in enumerate(waiting):
            sent = await self.send_private(user_id, pending.text, pending.buttons, trial=pending.trial, keep=False)
            if sent is None:  # unreachable again (blocked meanwhile): keep the rest for the next start
                self.outbox[user_id] = waiting[index:] + self.outbox.get(user_id, [])
                return
            space = await self.desk.lookups.trial_space_by_id(pending.trial) if pending.trial is not None else None
            if (
                space is not None
                and space.is_open
                and member is not None
                and pending.buttons
                and space.role_of(member.id) is PartyRole.REFEREE
            ):
                await self._keep_controls(space.id, user_id, sent)
        if member is None:
            return
        trial = await self.desk.open_trial_of(member)
        if trial is None or any(p.trial == trial.id for p in waiting):
            return
        await self.replay(await self.desk.lookups.trial_space(trial), member, user_id)

    async def replay(self, space: TrialSpace, member: Member, user_id: int) -> None:
        """The trial so far, from the database: who called, the transcript, and for the referee his controls."""
        names = {m.id: m.nick for m in space.members}
        caller = space.holding(PartyRole.CALLER)
        lines = [self.desk.t("telegram.replay", game=space.game, caller=caller.nick if caller else "—")]
        for message in await self.desk.messages_of(space.id):
            nick = names.get(message.member, "—") if message.member is not None else "—"
            lines.append(self.desk.t("telegram.relay", nick=nick, text=message.text))
        referee = space.role_of(member.id) is PartyRole.REFEREE
        lines += ["", self.desk.t("telegram.trial_referee" if referee else "telegram.trial_party")]
        controls = self.desk.trials.controls(space) if referee else ()
        sent = await self.send_private(user_id, "\n".join(lines), controls, trial=space.id)
        if sent is not None and controls:
            await self._keep_controls(space.id, user_id, sent)

    async def remove_keyboard(self, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None) -> None:
        """Drop the keyboard of a message whose one-shot button was used (if it still has one)."""
        if markup is None or not markup.inline_keyboard:
            return
        try:
            await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None)
        except TelegramError as error:
            log.info("cannot remove a keyboard: %s", error.message)
