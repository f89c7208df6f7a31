"""How the desk's texts and buttons become Telegram messages: inline keyboards and their callback data, text split
to Telegram's limits, mentions as entities, and defusing text typed by members before it reaches a group.

Nothing here sends anything; every message goes out with no ``parse_mode`` (plain text), so no text a member
typed can inject formatting, and the only entities are the mentions this module builds itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, User

from bot.ports import Action, Button
from bot.text_split import split_lines

TEXT_LIMIT = 4096  # UTF-16 code units in one message
#: Mentions in one message: Telegram ignores entities past the 100th and notifies from far fewer; 50 stay safe.
MENTIONS_PER_MESSAGE = 50
#: Messages a call may take in a group (its notice and the further mention lines, within a group's 20 a minute);
#: a referee past them gets the call privately instead.
MENTION_MESSAGES = 8
CALLBACK_DATA_LIMIT = 64  # bytes of callback_data
ANSWER_LIMIT = 200  # characters of an answerCallbackQuery text
TOAST_LIMIT = 64  # longer answers are shown as an alert the presser must close
BUTTONS_PER_ROW = 2
START_PREFIX = "sudjenje_"  # deep-link payload: t.me/<bot>?start=sudjenje_<trial id>

_CALLBACK = re.compile(r"([a-z_]{1,20}):(-?[0-9]{1,18})")
_AT = re.compile(r"@(?=\w)")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's limits and entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def callback_data(button: Button) -> str:
    """``action:ref`` — only the action and the id; the desk re-checks both when the button comes back."""
    data = f"{button.action}:{button.ref}"
    if len(data.encode("utf-8")) > CALLBACK_DATA_LIMIT:
        raise ValueError(f"callback data {data!r} is longer than {CALLBACK_DATA_LIMIT} bytes")
    return data


def parse_callback(data: str | None) -> tuple[Action, int] | None:
    """The action and id of a pressed button, or None when the data is not ours (a forged or foreign press, or an
    action the desk has none of)."""
    match = _CALLBACK.fullmatch(data or "")
    action = Action.parse(match.group(1)) if match is not None else None
    if match is None or action is None:
        return None
    return action, int(match.group(2))


def keyboard(buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
    """The desk's buttons as an inline keyboard, two to a row; None when there are none."""
    if not buttons:
        return None
    keys = [InlineKeyboardButton(b.label, callback_data=callback_data(b)) for b in buttons]
    return InlineKeyboardMarkup([keys[i : i + BUTTONS_PER_ROW] for i in range(0, len(keys), BUTTONS_PER_ROW)])


def defuse(text: str) -> str:
    """Text bound for a group: an ``@name`` in it must not become a mention that pings someone, so a word joiner
    (U+2060, invisible) follows every ``@``. Private chats need no defusing: a mention there notifies no one."""
    return _AT.sub("@\u2060", text)


def split_text(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """Cut a long text into messages of at most `limit` UTF-16 units, at line ends where possible."""
    if utf16_len(text) <= limit:
        return [text]
    return [c for c in split_lines(text, limit, utf16_len) if c.strip()]


def shorten(text: str, limit: int = ANSWER_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def with_mention(template: str, nick: str, user_id: int) -> tuple[str, list[MessageEntity]]:
    """Fill the ``\\x00`` placeholder of `template` with `nick`, as a mention of the Telegram user `user_id`
    (a text_mention entity: it pings him without any markup in the text)."""
    before, _, after = template.partition("\x00")
    entity = MessageEntity(
        MessageEntity.TEXT_MENTION, utf16_len(before), utf16_len(nick), user=User(user_id, nick, is_bot=False)
    )
    return before + nick + after, [entity]


def mention_line(text: str, people: Sequence[tuple[str, int]]) -> tuple[str, list[MessageEntity]]:
    """`text`, then a line naming `people` (nick, Telegram user id), each a mention that pings him (with no text,
    the line alone)."""
    if not people:
        return text, []
    out = text + "\n" if text else ""
    entities: list[MessageEntity] = []
    for index, (nick, user_id) in enumerate(people):
        if index:
            out += ", "
        entities.append(
            MessageEntity(
                MessageEntity.TEXT_MENTION, utf16_len(out), utf16_len(nick), user=User(user_id, nick, is_bot=False)
            )
        )
        out += nick
    return out, entities


@dataclass(frozen=True)
class Mentioning:
    """One message of a call in a group: its text, its mention entities, and whom it mentions."""

    text: str
    entities: list[MessageEntity]
    people: list[tuple[str, int]]


def call_messages(
    text: str,
    people: Sequence[tuple[str, int]],
    *,
    limit: int = TEXT_LIMIT,
    most: int = MENTIONS_PER_MESSAGE,
    messages: int = MENTION_MESSAGES,
) -> tuple[list[Mentioning], list[tuple[str, int]]]:
    """A call's notice and the people (nick, user id) it pings, as at most `messages` messages of at most `limit`
    UTF-16 units and `most` mentions each: the notice with as many mentions as fit on its next line, the rest in
    further messages, in order. Returns the messages and whoever they could not mention (for a private copy)."""
    left = list(people)
    out: list[Mentioning] = []
    head = text
    while len(out) < messages and (left or not out):
        size = utf16_len(head) + (1 if head else 0)
        named: list[tuple[str, int]] = []
        for person in left:
            cost = utf16_len(person[0]) + (2 if named else 0)
            if len(named) >= most or size + cost > limit:
                break
            named.append(person)
            size += cost
        if not named and not head:
            break  # a nick longer than a message: nobody more can be mentioned
        del left[: len(named)]
        line, entities = mention_line(head, named)
        out.append(Mentioning(line, entities, named))
        head = ""
    return out, left
