"""A fake Telegram Bot API on 127.0.0.1 for end-to-end tests of the Telegram adapter.

This module owns the fake: an aiohttp server that answers ``/bot<token>/<method>`` the way
api.telegram.org does for the methods the adapter uses, keeps the state those methods change
(users, chats, messages with their inline keyboards, callback queries and their answers, bot
commands per scope and language, the pending update queue), and records every request in order.
The real python-telegram-bot ``Application`` talks HTTP to it; nothing leaves the loopback.

Usage::

    async with FakeTelegram() as fake:
        group = fake.group("Klub")
        ana = fake.user("Ana", started=True)
        app = fake.application_builder().build()
        app.add_handler(CommandHandler("sudija", on_sudija))
        async with running(app):                 # start_polling + start ... stop + shutdown
            fake.push_command(group, ana, "sudija", "12")
            [reply] = await fake.wait_for("sendMessage", chat=group)
            msg = fake.message(group.id, reply.result["message_id"])
            query_id = fake.push_callback(ana, msg, msg.callback_data()[0])
            await fake.wait_for("answerCallbackQuery", where=lambda p: p["callback_query_id"] == query_id)

Behaviour modelled on the real Bot API, because the adapter must cope with it:

* ``getUpdates`` long-polls; updates stay queued until a later call confirms them with ``offset``;
  ``allowed_updates`` is remembered across calls (and restarts) and by default excludes
  ``chat_member``; a ``getUpdates`` that finds nothing and waits (a long poll) ends the one waiting before
  with 409 Conflict, one answered at once ends none; a long poll whose client went away stays held until an
  update, its timeout or the next long poll (its answer then ``heard`` by nobody); a call with the previous
  one's offset within 3 s of its start (on ``clock``) waits 3 s even with ``timeout`` 0, and within 0.5 s gets
  one update at most (``FakeTelegram._get_updates`` cites Telegram's server). Not modelled: Telegram answers
  a second 409 within 3 s of the first 3 s late.
* ``editMessageText`` without ``reply_markup`` removes the inline keyboard; an edit that changes
  nothing fails with "message is not modified".
* ``callback_data`` must be 1-64 bytes; HTML / MarkdownV2 must parse (unescaped ``<``, ``&`` or
  MarkdownV2 reserved characters fail with "can't parse entities").
* A user who never started the bot cannot be messaged (403 "bot can't initiate conversation",
  or 400 "chat not found" when so configured); a user who blocked it gives 403 "bot was blocked".
* ``getChatMember`` of a group the bot is not in (left, or kicked) is refused as a post there is (403).
* ``chat_member`` updates exist only where the bot is an administrator; in groups where the bot is a
  plain member with privacy mode on, only commands and replies to the bot are delivered.
* Bot command names must match ``[a-z0-9_]{1,32}`` (so no ``č``/``ž`` in command names).
* A message keeps at most 100 entities: those past the 100th are ignored, as Telegram ignores them (a mention
  past them pings nobody).

python-telegram-bot 22 notes (proven in tests/test_fake_telegram.py):

* Point it here with ``Application.builder().token(fake.token).base_url(fake.base_url)``; the base
  URL ends in ``/bot`` and PTB appends the token (or fills a ``{token}`` placeholder).
* Inside a running loop use :func:`running` (initialize, ``updater.start_polling``, ``start`` ... then
  ``updater.stop``, ``stop``, ``shutdown``); ``run_polling`` owns the loop and is for ``main`` only, and
  ``post_init``/``post_stop``/``post_shutdown`` run only under ``run_polling``.
* ``start_polling`` sends ``allowed_updates`` only when given; pass ``Update.ALL_TYPES`` (as
  :func:`running` does) or ``chat_member`` never arrives. ``ChatMemberHandler`` defaults to
  ``MY_CHAT_MEMBER``; pass ``ChatMemberHandler.CHAT_MEMBER`` for other members.
* httpx honours ``HTTP(S)_PROXY`` even for 127.0.0.1: set ``NO_PROXY=127.0.0.1`` in tests.

Media: ``sendPhoto`` and ``sendMediaGroup`` (albums of 2-10 photos; PNG or JPEG uploads, checked against
Telegram's 10 MB and dimension limits; each message carries its sizes and caption) and ``sendDocument`` (up to
50 MB); the bytes are kept in ``files``.

* A callback query must be answered within ``callback_answer_timeout`` seconds (15 by default) of the
  press, on the fake's ``clock``; later ``answerCallbackQuery`` fails with "query is too old".
* Flood control: :meth:`FakeTelegram.flood` makes every method (``getUpdates`` too unless excluded) fail
  with 429 and ``parameters.retry_after`` until the fake's clock reaches its end, or (``chat=``) only the
  requests for one chat, as Telegram's per-chat flood control does; :meth:`FakeTelegram.fail_next` fails the
  next calls of one method. ``FakeTelegram(limits=True)`` refuses with 429 every message past Telegram's
  documented rates (a few a second in one chat, 20 a minute in a group, 30 a second for the bot), and every
  lookup (getChatMember and the like) past 30 a second for the bot.
* Telegram keeps an update for 24 hours: one pushed longer ago than that (on the fake's clock) is dropped
  instead of delivered (``dropped_updates``).
* ``deleteMessage`` of another's message in a group needs the bot to be an administrator with
  ``can_delete_messages`` (``group(..., bot_status="member")`` or ``can_delete=False`` refuses it).

Forum groups (``group(..., forum=True)``, topics made with ``topic``): a message goes to the topic its
``message_thread_id`` names (a forum's topic, else 400 "message thread not found"), to the General topic without
one; a member's message in a topic carries ``message_thread_id`` and ``is_topic_message``; a reply finds only a
message of its own topic.

Not modelled: other media (video, voice), inline mode and inline messages, webhooks.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import html
import itertools
import json
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web
from telegram import Update
from telegram.ext import Application, ApplicationBuilder

JSON = dict[str, Any]
AnyApplication = Application[Any, Any, Any, Any, Any, Any]
AnyApplicationBuilder = ApplicationBuilder[Any, Any, Any, Any, Any, Any]

DEFAULT_TOKEN = "123456789:TEST-fake-bot-token"

#: Update types Telegram sends when ``allowed_updates`` was never set (or set to ``[]``).
DEFAULT_ALLOWED_UPDATES: frozenset[str] = frozenset(Update.ALL_TYPES) - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}

# Parameters that are text even when they look like numbers or JSON; every other form-encoded
# value is decoded as JSON when it parses (python-telegram-bot sends ints, bools, lists and dicts
# JSON-encoded inside application/x-www-form-urlencoded bodies).
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "language_code",
        "url",
        "inline_message_id",
        "description",
        "short_description",
        "title",
        "name",
        "action",
        "business_connection_id",
        "message_effect_id",
        "secret_token",
    }
)

_MEMBER_STATUSES = ("creator", "administrator", "member", "restricted", "left", "kicked")
_PRESENT_STATUSES = frozenset({"creator", "administrator", "member", "restricted"})
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")
_LEADING_COMMAND = re.compile(r"/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{3,}))?(?=\s|$)")
_DEEP_LINK_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
#: Telegram's documented rates (Bots FAQ), as the fake enforces them with ``limits=True``: a chat takes a short
#: burst but about a message a second, a group 20 messages a minute, the whole bot about 30 a second.
ENTITY_LIMIT = 100  # entities of one message Telegram keeps (the rest are ignored: no mention, no ping)
BOT_DOWNLOAD_LIMIT = 20 * 1024 * 1024  # getFile: a bot downloads files of at most 20 MB
LIMIT_CHAT_PER_SECOND = 4
LIMIT_GROUP_PER_MINUTE = 20
LIMIT_BOT_PER_SECOND = 30
#: Lookups (getChatMember and the like): Telegram documents no figure, but answers a bot that floods them with 429
#: and retry_after as it answers one flooding messages; the fake holds them to the bot's messages' rate.
LIMIT_LOOKUPS_PER_SECOND = 30
#: Telegram's getUpdates (tdlib/telegram-bot-api, `Client::process_get_updates_query`): a call with the previous
#: call's offset within SAME_OFFSET_WAIT seconds of that call's start waits that long though it asked for less,
#: and within SAME_OFFSET_ONE_UPDATE seconds gets one update at most; an update is kept UPDATE_KEPT seconds.
SAME_OFFSET_WAIT = 3.0
SAME_OFFSET_ONE_UPDATE = 0.5
UPDATE_KEPT = 24 * 3600
_LOOKUP_METHODS = frozenset({"getchatmember", "getchat", "getchatadministrators", "getchatmembercount"})


def _is_message_method(method: str) -> bool:
    name = method.lower()
    return name.startswith(("send", "edit", "copymessage", "forwardmessage")) and name != "sendchataction"


_QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class BotApiError(Exception):
    """An error answer of the Bot API: HTTP status ``code`` and Telegram's ``description``."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description
        self.parameters = parameters


# --------------------------------------------------------------------------------------------
# Text formatting: the parse modes turn marked-up text into plain text plus entities.
# --------------------------------------------------------------------------------------------


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def _parse_error(detail: str) -> BotApiError:
    return BotApiError(400, f"Bad Request: can't parse entities: {detail}")


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


class _EntityBuilder:
    """Accumulates plain text and closes entities at UTF-16 offsets."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.offset = 0
        self.entities: list[JSON] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.offset += utf16_len(text)

    def close(self, kind: str, start: int, **extra: Any) -> None:
        if self.offset > start:
            self.entities.append({"type": kind, "offset": start, "length": self.offset - start, **extra})

    def result(self) -> tuple[str, list[JSON]]:
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), self.entities


_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_HTML_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*>"
)
_HTML_ATTR = re.compile(r"([a-zA-Z-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+)))?")
_HTML_ENTITY = re.compile(r"&(lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")


def parse_html(source: str) -> tuple[str, list[JSON]]:
    """Parse Telegram's HTML subset; raise :class:`BotApiError` where Telegram would refuse it."""
    out = _EntityBuilder()
    stack: list[tuple[str, int, JSON]] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "<":
            match = _HTML_TAG.match(source, i)
            if match is None:
                raise _parse_error(f"Unexpected character at byte offset {_byte_offset(source, i)}")
            closing, name, attr_text = match.group(1), match.group(2).lower(), match.group(3)
            if name not in _HTML_TAGS:
                kind = "end" if closing else "start"
                raise _parse_error(f'Unsupported {kind} tag "{name}" at byte offset {_byte_offset(source, i)}')
            if closing:
                if not stack or stack[-1][0] != name:
                    raise _parse_error(
                        f'Unmatched end tag at byte offset {_byte_offset(source, i)}, expected "</'
                        f'{stack[-1][0] if stack else ""}>", found "</{name}>"'
                    )
                tag, start, attrs = stack.pop()
                _close_html_entity(out, tag, start, attrs)
            else:
                attrs = {
                    m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "")
                    for m in _HTML_ATTR.finditer(attr_text)
                }
                if name == "span" and attrs.get("class") != "tg-spoiler":
                    raise _parse_error(f'Tag "span" must have class "tg-spoiler" at byte offset {i}')
                if name == "a" and not attrs.get("href"):
                    raise _parse_error(f'Tag "a" must have attribute "href" at byte offset {i}')
                stack.append((name, out.offset, attrs))
            i = match.end()
        elif char == "&":
            match = _HTML_ENTITY.match(source, i)
            if match is None:
                raise _parse_error(f"Unsupported HTML entity at byte offset {_byte_offset(source, i)}")
            out.add(html.unescape(match.group(0)))
            i = match.end()
        else:
            j = i
            while j < len(source) and source[j] not in "<&":
                j += 1
            out.add(source[i:j])
            i = j
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    return out.result()


def _close_html_entity(out: _EntityBuilder, tag: str, start: int, attrs: JSON) -> None:
    kind = _HTML_TAGS[tag]
    if kind == "text_link":
        out.close(kind, start, url=attrs["href"])
    elif kind == "custom_emoji":
        out.close(kind, start, custom_emoji_id=attrs.get("emoji-id", ""))
    elif kind == "code" and attrs.get("class", "").startswith("language-"):
        out.close(kind, start)
    else:
        out.close(kind, start)


_MDV2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")
_MDV2_MARKERS = (
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
)
_MD_LEGACY_MARKERS = (("*", "bold"), ("_", "italic"))


def parse_markdown(source: str, *, v2: bool) -> tuple[str, list[JSON]]:
    """Parse MarkdownV2 (``v2=True``) or legacy Markdown the way Telegram does, strictly.

    In MarkdownV2 every reserved character outside its formatting role must be escaped with a
    backslash, otherwise Telegram refuses the message; this parser refuses it the same way.
    """
    out = _EntityBuilder()
    markers = _MDV2_MARKERS if v2 else _MD_LEGACY_MARKERS
    stack: list[tuple[str, int, int]] = []  # marker, start offset, source index
    i = 0
    line_start = True
    quote_start: int | None = None
    while i < len(source):
        char = source[i]
        if char == "\n" and quote_start is not None:
            out.close("blockquote", quote_start)
            quote_start = None
        if char == "\\" and (v2 or (i + 1 < len(source) and source[i + 1] in "_*`[")):
            if i + 1 >= len(source):
                raise _parse_error("Text must not end with a backslash")
            out.add(source[i + 1])
            i += 2
            line_start = False
            continue
        if char == "`":
            i = _markdown_code(source, i, out, v2=v2)
            line_start = False
            continue
        if char == "[":
            i = _markdown_link(source, i, out, v2=v2)
            line_start = False
            continue
        if v2 and char == ">" and line_start:
            quote_start = out.offset
            i += 1
            line_start = False
            continue
        for marker, kind in markers:
            if source.startswith(marker, i):
                open_index = next((n for n, entry in enumerate(stack) if entry[0] == marker), None)
                if open_index is None:
                    stack.append((marker, out.offset, i))
                elif open_index == len(stack) - 1:
                    _, start, _ = stack.pop()
                    out.close(kind, start)
                else:
                    raise _parse_error(
                        f"Can't find end of {kind} entity at byte offset {_byte_offset(source, stack[open_index][2])}"
                    )
                i += len(marker)
                break
        else:
            if v2 and char in _MDV2_RESERVED:
                raise _parse_error(f"Character '{char}' is reserved and must be escaped with the preceding '\\'")
            out.add(char)
            i += 1
        line_start = char == "\n"
    if quote_start is not None:
        out.close("blockquote", quote_start)
    if stack:
        marker, _, index = stack[-1]
        raise _parse_error(f"Can't find end of the entity starting at byte offset {_byte_offset(source, index)}")
    return out.result()


def _markdown_code(source: str, i: int, out: _EntityBuilder, *, v2: bool) -> int:
    fence = "```" if source.startswith("```", i) else "`"
    end = i + len(fence)
    content: list[str] = []
    while end < len(source) and not source.startswith(fence, end):
        if v2 and source[end] == "\\" and end + 1 < len(source):
            content.append(source[end + 1])
            end += 2
        else:
            content.append(source[end])
            end += 1
    if end >= len(source):
        raise _parse_error(f"Can't find end of the entity starting at byte offset {_byte_offset(source, i)}")
    body = "".join(content)
    start = out.offset
    if fence == "```":
        language, newline, rest = body.partition("\n")
        if newline and language and " " not in language:
            out.add(rest)
            out.close("pre", start, language=language)
        else:
            out.add(body)
            out.close("pre", start)
    else:
        out.add(body)
        out.close("code", start)
    return end + len(fence)


def _markdown_link(source: str, i: int, out: _EntityBuilder, *, v2: bool) -> int:
    close = i + 1
    label: list[str] = []
    while close < len(source) and source[close] != "]":
        if source[close] == "\\" and close + 1 < len(source):
            label.append(source[close + 1])
            close += 2
            continue
        if v2 and source[close] in _MDV2_RESERVED:
            raise _parse_error(f"Character '{source[close]}' is reserved and must be escaped with the preceding '\\'")
        label.append(source[close])
        close += 1
    if close >= len(source) or not source.startswith("(", close + 1):
        raise _parse_error(f"Can't find end of the entity starting at byte offset {_byte_offset(source, i)}")
    url_end = source.find(")", close + 2)
    if url_end < 0:
        raise _parse_error(f"Can't find end of a URL at byte offset {_byte_offset(source, close + 1)}")
    url = source[close + 2 : url_end].replace("\\)", ")").replace("\\\\", "\\")
    start = out.offset
    out.add("".join(label))
    out.close("text_link", start, url=url)
    return url_end + 1


def render_text(text: str, parse_mode: str | None, entities: list[JSON] | None) -> tuple[str, list[JSON]]:
    """Plain text and entities of a message as Telegram would store it."""
    if parse_mode is None:
        return text, list(entities or [])
    mode = parse_mode.lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown(text, v2=True)
    if mode == "markdown":
        return parse_markdown(text, v2=False)
    raise BotApiError(400, f"Bad Request: unsupported parse_mode {parse_mode!r}")


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class FakeUser:
    """A Telegram user (or the bot itself).

    ``started``: he has opened the private chat with the bot, so the bot may message him.
    ``blocked``: he has blocked the bot. ``unstarted_error`` picks how Telegram refuses messages to
    a user who never started the bot: ``"forbidden"`` (403, the bot has seen him in a group) or
    ``"chat_not_found"`` (400, the bot has never seen him).
    """

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    started: bool = False
    blocked: bool = False
    unstarted_error: Literal["forbidden", "chat_not_found"] = "forbidden"

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass(eq=False)
class FakeChat:
    """A chat: ``private`` (id = the user's id), ``group`` or ``supergroup``.

    ``members`` maps user ids to their status (creator, administrator, member, restricted, left,
    kicked); the bot's own status is ``members[bot.id]``.
    """

    id: int
    type: Literal["private", "group", "supergroup"]
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None
    members: dict[int, str] = field(default_factory=dict)
    can_delete: bool = True  # the bot, if an administrator here, may delete others' messages
    is_forum: bool = False  # a supergroup with topics on
    topics: dict[int, str] = field(default_factory=dict)  # a forum's topics: message_thread_id -> name

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "type": self.type}
        if self.is_forum:
            data["is_forum"] = True
        if self.type == "private" and self.user is not None:
            data.update({k: v for k, v in self.user.to_api().items() if k in ("first_name", "last_name", "username")})
        else:
            data["title"] = self.title
            if self.username:
                data["username"] = self.username
        return data

    def full_info(self) -> JSON:
        """The ``ChatFullInfo`` object ``getChat`` returns."""
        return {
            **self.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }


@dataclass(eq=False)
class StoredMessage:
    """A message as the fake holds it now (after any edits): plain ``text`` plus ``entities``;
    ``raw_text`` and ``parse_mode`` are what the bot sent; ``reply_markup`` is the current inline
    keyboard (``None`` once removed)."""

    chat: FakeChat
    message_id: int
    sender: FakeUser
    text: str
    date: int
    entities: list[JSON] = field(default_factory=list)
    raw_text: str = ""
    parse_mode: str | None = None
    reply_markup: JSON | None = None
    link_preview_options: JSON | None = None
    reply_to: StoredMessage | None = None
    forward_origin: JSON | None = None
    edit_date: int | None = None
    deleted: bool = False
    history: list[str] = field(default_factory=list)
    photo: list[JSON] | None = None  # a photo message: its sizes (``text`` then holds the caption)
    document: JSON | None = None  # a document message (``text`` then holds the caption)
    media_group_id: str | None = None  # one photo of an album (sendMediaGroup)
    topic: int | None = None  # the forum topic (message_thread_id) it is in; None: General, or not a forum

    @property
    def keyboard(self) -> list[list[JSON]]:
        """The inline keyboard rows (empty when there is none)."""
        if not self.reply_markup:
            return []
        rows: list[list[JSON]] = self.reply_markup.get("inline_keyboard", [])
        return rows

    def buttons(self) -> list[JSON]:
        return [button for row in self.keyboard for button in row]

    def button_texts(self) -> list[str]:
        return [str(button["text"]) for button in self.buttons()]

    def callback_data(self) -> list[str]:
        return [str(b["callback_data"]) for b in self.buttons() if "callback_data" in b]

    def to_api(self, *, with_reply: bool = True) -> JSON:
        data: JSON = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": self.chat.to_api(),
            "from": self.sender.to_api(),
        }
        media = self.photo is not None or self.document is not None
        if self.photo is not None:
            data["photo"] = self.photo
        if self.document is not None:
            data["document"] = self.document
        if self.media_group_id is not None:
            data["media_group_id"] = self.media_group_id
        if self.topic is not None:
            data["message_thread_id"] = self.topic
            data["is_topic_message"] = True
        if not media:
            data["text"] = self.text
        elif self.text:
            data["caption"] = self.text
        if self.entities:
            data["caption_entities" if media else "entities"] = self.entities
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.link_preview_options is not None:
            data["link_preview_options"] = self.link_preview_options
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.forward_origin is not None:
            data["forward_origin"] = self.forward_origin
        if with_reply and self.reply_to is not None:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        return data


@dataclass(eq=False)
class FakeCallbackQuery:
    """A button press and, once the bot answered it, the ``answerCallbackQuery`` parameters."""

    id: str
    user: FakeUser
    message: StoredMessage
    data: str
    answer: JSON | None = None
    pressed_at: float = 0.0
    late: bool = False  # an answer came after Telegram's deadline (and was refused)


@dataclass(eq=False)
class RecordedRequest:
    """One HTTP request to the fake, in arrival order; the outcome is filled in when answered."""

    index: int
    method: str
    params: JSON
    encoding: str
    ok: bool | None = None
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    heard: bool = True  # False: the client had gone when the answer was written (nobody read it)
    held: bool = False  # a getUpdates that found nothing and waited (a long poll)

    @property
    def done(self) -> bool:
        return self.ok is not None


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


class FakeTelegram:
    """The fake Bot API server and its state. Start it inside the test's event loop."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "sudija_test_bot",
        bot_name: str = "Sudija",
        privacy_mode: bool = True,
        max_long_poll: float = 1.0,
        clock: Callable[[], float] = time.time,
        callback_answer_timeout: float = 15.0,
        limits: bool = False,
        poll_clock: Callable[[], float] | None = None,
    ) -> None:
        """``limits``: refuse with 429 what passes Telegram's documented rates (see ``_flood_check``);
        ``poll_clock``: what the long polls' timeouts run on (the loop's time by default; a test's clock that
        stands still holds a poll until an update comes or the test moves it and calls `wake_polls`)."""
        self.token = token
        bot_id = int(token.split(":", 1)[0])
        self.bot = FakeUser(id=bot_id, first_name=bot_name, username=bot_username, is_bot=True)
        self.privacy_mode = privacy_mode
        self.max_long_poll = max_long_poll
        self.clock = clock
        self.poll_clock = poll_clock
        self.callback_answer_timeout = callback_answer_timeout
        self.flood_until = 0.0
        self.flood_retry_after = 0
        self.flood_spares: frozenset[str] = frozenset()
        self.migrated: dict[int, int] = {}  # a basic group's old id -> its supergroup's (``upgrade``)
        self.chat_floods: dict[int, tuple[float, int]] = {}  # chat id -> (flood control until, retry_after)
        self.limits = limits
        self.sent_times: dict[Any, list[float]] = {}  # messages sent per chat, group and bot (with ``limits``)
        self.limit_refusals = 0  # 429s for passing the documented rates
        self.update_times: dict[int, float] = {}
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.requests: list[RecordedRequest] = []
        self.callback_queries: dict[str, FakeCallbackQuery] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self.pending_updates: list[JSON] = []
        self.delivered_update_ids: list[int] = []
        self.dropped_updates: list[JSON] = []
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self.files: dict[str, bytes] = {}  # file_id -> the uploaded bytes (photos and documents)
        self.downloads: list[str] = []  # the file ids the bot downloaded (getFile, then the file path)
        self._next_message_id: dict[int, int] = {}
        self._update_ids = itertools.count(1)
        self._user_ids = itertools.count(1001)
        self._group_ids = itertools.count(1)
        self._query_ids = itertools.count(4_000_000_000_000_001)
        self._failures: dict[str, list[BotApiError]] = {}
        self._held_answers: dict[str, asyncio.Event] = {}
        self._poll_generation = 0  # one more for each poll held: an older one held sees it and ends (409)
        self.held_polls = 0  # getUpdates held now, waiting for an update or their timeout
        self._previous_poll: tuple[int, float] = (0, -math.inf)  # the last getUpdates' offset and start (clock)
        self._wake = asyncio.Event()
        self._changed = asyncio.Condition()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._methods: dict[str, tuple[str, Callable[[JSON], Any]]] = {
            name.lower(): (name, handler)
            for name, handler in (
                ("getMe", self._get_me),
                ("logOut", self._true),
                ("close", self._true),
                ("deleteWebhook", self._delete_webhook),
                ("getWebhookInfo", self._get_webhook_info),
                ("sendMessage", self._send_message),
                ("sendPhoto", self._send_photo),
                ("sendMediaGroup", self._send_media_group),
                ("sendDocument", self._send_document),
                ("editMessageText", self._edit_message_text),
                ("editMessageReplyMarkup", self._edit_message_reply_markup),
                ("deleteMessage", self._delete_message),
                ("forwardMessage", self._forward_message),
                ("copyMessage", self._copy_message),
                ("answerCallbackQuery", self._answer_callback_query),
                ("setMyCommands", self._set_my_commands),
                ("getMyCommands", self._get_my_commands),
                ("deleteMyCommands", self._delete_my_commands),
                ("getChat", self._get_chat),
                ("getChatMember", self._get_chat_member),
                ("sendChatAction", self._send_chat_action),
                ("getFile", self._get_file),
            )
        }

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1 on an ephemeral port (``self.port``)."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("GET", "/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        """Release every pending long poll, then close the server."""
        self._closing = True
        self._pulse()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder.base_url``; python-telegram-bot appends the token itself."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    def application_builder(self) -> AnyApplicationBuilder:
        """An ``ApplicationBuilder`` with token and URLs pointing at this fake."""
        builder = Application.builder().token(self.token)
        return builder.base_url(self.base_url).base_file_url(self.base_file_url)

    # -- setting the scene -------------------------------------------------------------------

    def user(
        self,
        first_name: str,
        *,
        user_id: int | None = None,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "sr",
        started: bool = False,
        unstarted_error: Literal["forbidden", "chat_not_found"] = "forbidden",
    ) -> FakeUser:
        """Register a user; ``started=True`` means he has already pressed Start in a private chat."""
        uid = user_id if user_id is not None else next(self._user_ids)
        person = FakeUser(
            id=uid,
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            started=started,
            unstarted_error=unstarted_error,
        )
        self.users[uid] = person
        return person

    def group(
        self,
        title: str,
        *,
        chat_id: int | None = None,
        kind: Literal["group", "supergroup"] = "supergroup",
        members: Iterable[FakeUser] = (),
        bot_status: str = "administrator",
        can_delete: bool = True,
        forum: bool = False,
    ) -> FakeChat:
        """Register a group with the bot in it (an administrator by default, as chat_member needs); ``forum``:
        a supergroup with topics (add them with `topic`)."""
        if forum and kind != "supergroup":
            raise ValueError("only a supergroup can be a forum")
        number = next(self._group_ids)
        default_id = -1001000000000 - number if kind == "supergroup" else -number
        gid = chat_id if chat_id is not None else default_id
        chat = FakeChat(id=gid, type=kind, title=title, can_delete=can_delete, is_forum=forum)
        chat.members[self.bot.id] = bot_status
        for member in members:
            chat.members[member.id] = "member"
        self.chats[gid] = chat
        return chat

    def topic(self, forum: FakeChat, name: str) -> int:
        """A topic of a forum group, created by its creator: its id (message_thread_id) is the id of the service
        message that created it, as on Telegram."""
        if not forum.is_forum:
            raise ValueError(f"{forum.title!r} is not a forum")
        thread = self._next_message_id.get(forum.id, 1)
        self._next_message_id[forum.id] = thread + 1
        forum.topics[thread] = name
        return thread

    def upgrade(self, group: FakeChat) -> FakeChat:
        """A basic group becomes a supergroup (Telegram does it when a group turns on a feature only supergroups
        have): a new chat with a new ``-100…`` id and the same members; the old id answers every method with 400
        "group chat was upgraded to a supergroup chat" and ``migrate_to_chat_id``."""
        if group.type != "group":
            raise ValueError(f"{group.title!r} is a {group.type}, not a basic group")
        number = next(self._group_ids)
        supergroup = FakeChat(
            -1001000000000 - number,
            "supergroup",
            title=group.title,
            members=dict(group.members),
            can_delete=group.can_delete,
        )
        self.chats[supergroup.id] = supergroup
        del self.chats[group.id]
        self.migrated[group.id] = supergroup.id
        return supergroup

    def private_chat(self, user: FakeUser) -> FakeChat:
        """The private chat between ``user`` and the bot (its id is the user's id)."""
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(id=user.id, type="private", user=user)
            chat.members[user.id] = "member"
            chat.members[self.bot.id] = "member"
            self.chats[user.id] = chat
        return chat

    def block(self, user: FakeUser) -> None:
        """The user blocks the bot: messages to him now fail with 403."""
        user.blocked = True

    def fail_next(
        self, method: str, code: int, description: str, *, retry_after: int | None = None, times: int = 1
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail (e.g. 429 with ``retry_after``)."""
        parameters = {"retry_after": retry_after} if retry_after is not None else None
        bucket = self._failures.setdefault(method.lower(), [])
        bucket.extend(BotApiError(code, description, parameters) for _ in range(times))

    def hold_answers(self, method: str) -> asyncio.Event:
        """Requests of ``method`` are taken as Telegram takes them, but each answer waits until the returned event
        is set: a slow network, where the bot waits for the answer to what Telegram has already done."""
        gate = self._held_answers[method.lower()] = asyncio.Event()
        return gate

    def flood(
        self,
        seconds: float,
        *,
        retry_after: int = 5,
        spare: Iterable[str] = (),
        chat: FakeChat | FakeUser | int | None = None,
    ) -> None:
        """Flood control for ``seconds`` on the fake's clock: every method (but those in ``spare``) answers
        429 "Too Many Requests" with ``retry_after`` (at most the time left) until then. With ``chat``, only
        the requests for that chat (its ``chat_id``) are refused, as Telegram's per-chat flood control does;
        the rest of the bot goes on."""
        if chat is not None:
            chat_id = chat if isinstance(chat, int) else chat.id
            self.chat_floods[chat_id] = (self.clock() + seconds, retry_after)
            return
        self.flood_until = self.clock() + seconds
        self.flood_retry_after = retry_after
        self.flood_spares = frozenset(m.lower() for m in spare)

    def _flood_check(self, method: str, params: JSON) -> None:
        """429 where flood control holds the bot, or the request's chat; and, with ``limits``, where a message
        would pass Telegram's documented rates (then it counts against them)."""
        now = self.clock()
        left = self.flood_until - now
        if left > 0 and method.lower() not in self.flood_spares:
            wait = max(1, min(self.flood_retry_after, int(left + 0.999)))
            raise BotApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        chat_id = params.get("chat_id")
        held = self.chat_floods.get(chat_id) if isinstance(chat_id, int) else None
        if held is not None and held[0] > now and method.lower() != "getupdates":
            wait = max(1, min(held[1], int(held[0] - now + 0.999)))
            raise BotApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        if not self.limits:
            return
        if method.lower() in _LOOKUP_METHODS:
            windows: list[tuple[Any, float, int]] = [("lookups", 1.0, LIMIT_LOOKUPS_PER_SECOND)]
        elif not _is_message_method(method) or not isinstance(chat_id, int):
            return
        else:
            windows = [("bot", 1.0, LIMIT_BOT_PER_SECOND), (chat_id, 1.0, LIMIT_CHAT_PER_SECOND)]
            if chat_id < 0:
                windows.append((("group", chat_id), 60.0, LIMIT_GROUP_PER_MINUTE))
        for key, period, most in windows:
            sent = [t for t in self.sent_times.get(key, []) if t > now - period]
            self.sent_times[key] = sent
            if len(sent) >= most:
                wait = max(1, int(sent[0] + period - now + 0.999))
                self.limit_refusals += 1
                raise BotApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        for key, _, _ in windows:
            self.sent_times[key].append(now)

    # -- feeding updates ---------------------------------------------------------------------

    def push_update(self, kind: str, payload: JSON) -> int:
        """Queue a raw update of type ``kind``; returns its ``update_id``."""
        update_id = next(self._update_ids)
        self.update_times[update_id] = self.clock()
        self.pending_updates.append({"update_id": update_id, kind: payload})
        self._pulse()
        return update_id

    def push_message(
        self,
        chat: FakeChat | FakeUser,
        user: FakeUser,
        text: str,
        *,
        reply_to: StoredMessage | None = None,
        topic: int | None = None,
    ) -> StoredMessage:
        """``user`` writes ``text`` in ``chat`` (a user stands for his private chat with the bot).

        A leading ``/command`` gets its ``bot_command`` entity as Telegram adds it. Returns the
        stored message; ``delivered`` is false when Telegram would not pass it to the bot (privacy
        mode in a group where the bot is not an administrator).
        """
        target = self.private_chat(chat) if isinstance(chat, FakeUser) else chat
        if target.type == "private":
            user.started = True
            user.blocked = False
        else:
            status = target.members.setdefault(user.id, "member")
            if status not in _PRESENT_STATUSES:
                raise ValueError(f"{user.full_name} is {status} in {target.title!r} and cannot write there")
        entities: list[JSON] = []
        command = _LEADING_COMMAND.match(text)
        if command:
            entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(command.group(0))})
        if topic is not None and topic not in target.topics:
            raise ValueError(f"{target.title!r} has no topic {topic}")
        message = self._store(target, user, text, entities=entities, reply_to=reply_to, topic=topic)
        if self._delivers(target, command, reply_to):
            self.push_update("message", message.to_api())
        else:
            self.dropped_updates.append({"message": message.to_api()})
        return message

    def push_document(
        self,
        chat: FakeChat | FakeUser,
        user: FakeUser,
        caption: str,
        name: str,
        data: bytes,
        mime_type: str = "application/octet-stream",
    ) -> StoredMessage:
        """``user`` sends a file to ``chat`` with ``caption`` (a leading ``/command`` gets its entity, as in a
        text); the bot may fetch it with getFile (up to Telegram's 20 MB for bots)."""
        target = self.private_chat(chat) if isinstance(chat, FakeUser) else chat
        if target.type == "private":
            user.started = True
        file_id = f"document-{len(self.files) + 1}"
        self.files[file_id] = data
        entities: list[JSON] = []
        command = _LEADING_COMMAND.match(caption)
        if command:
            entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(command.group(0))})
        message = self._store(target, user, caption, entities=entities)
        message.document = {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "file_name": name,
            "mime_type": mime_type,
            "file_size": len(data),
        }
        self.push_update("message", message.to_api())
        return message

    def push_command(
        self,
        chat: FakeChat | FakeUser,
        user: FakeUser,
        command: str,
        *args: str,
        mention: bool = False,
        topic: int | None = None,
    ) -> StoredMessage:
        """``user`` sends ``/command args`` (``/command@bot`` with ``mention=True``), in a forum's ``topic``."""
        head = f"/{command}@{self.bot.username}" if mention else f"/{command}"
        return self.push_message(chat, user, " ".join((head, *args)), topic=topic)

    def open_deep_link(self, user: FakeUser, url: str) -> StoredMessage:
        """``user`` follows ``https://t.me/<bot>?start=<payload>``: the client sends ``/start payload``."""
        match = re.fullmatch(r"https://t\.me/([A-Za-z0-9_]+)\?start=(.*)", url)
        if match is None or match.group(1).lower() != (self.bot.username or "").lower():
            raise ValueError(f"not a deep link to @{self.bot.username}: {url}")
        payload = match.group(2)
        if not _DEEP_LINK_PAYLOAD.fullmatch(payload):
            raise ValueError(f"a start payload is 1-64 characters of A-Z a-z 0-9 _ -, not {payload!r}")
        return self.push_command(user, user, "start", payload)

    def push_callback(self, user: FakeUser, message: StoredMessage, data: str, *, forged: bool = False) -> str:
        """``user`` presses the button with ``data`` on ``message``; returns the callback query id.

        The button must be on the message's current keyboard unless ``forged=True`` (a modified
        client can send any data, which the adapter must refuse by itself).
        """
        if not forged and data not in message.callback_data():
            raise ValueError(f"no button with callback_data {data!r} on message {message.message_id}")
        query_id = str(next(self._query_ids))
        self.callback_queries[query_id] = FakeCallbackQuery(query_id, user, message, data, pressed_at=self.clock())
        self.push_update(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": message.to_api(),
                "chat_instance": str(abs(message.chat.id) * 7 + 3),
                "data": data,
            },
        )
        return query_id

    def push_press(self, user: FakeUser, message: StoredMessage, button_text: str) -> str:
        """``user`` presses the callback button labelled ``button_text``; returns the query id."""
        for button in message.buttons():
            if button["text"] == button_text and "callback_data" in button:
                return self.push_callback(user, message, str(button["callback_data"]))
        raise ValueError(f"no callback button {button_text!r} on message {message.message_id}")

    def push_chat_member(
        self, chat: FakeChat, user: FakeUser, old_status: str, new_status: str, *, by: FakeUser | None = None
    ) -> int:
        """``user``'s status in ``chat`` changes (e.g. member → left) and the update is queued.

        For another user this is ``chat_member``, which Telegram sends only to bots that administer
        the chat, and only if ``allowed_updates`` asks for it. For the bot itself (``user`` is
        ``fake.bot``) it is ``my_chat_member``, which every bot gets by default.
        """
        kind = "my_chat_member" if user.id == self.bot.id else "chat_member"
        if kind == "chat_member" and chat.members.get(self.bot.id) not in ("administrator", "creator"):
            raise ValueError("Telegram sends chat_member updates only to bots that are administrators")
        chat.members[user.id] = new_status
        return self.push_update(
            kind,
            {
                "chat": chat.to_api(),
                "from": (by or user).to_api(),
                "date": self._now(),
                "old_chat_member": _chat_member(user, old_status),
                "new_chat_member": _chat_member(user, new_status),
            },
        )

    # -- reading state -----------------------------------------------------------------------

    def mark(self) -> int:
        """The index the next request will get; pass it as ``since`` to ``wait_for``."""
        return len(self.requests)

    def messages(self, chat: FakeChat | FakeUser | int) -> list[StoredMessage]:
        """Every message in the chat, oldest first, deleted ones excluded."""
        chat_id = chat if isinstance(chat, int) else chat.id
        return [m for m in self._messages.get(chat_id, {}).values() if not m.deleted]

    def bot_messages(self, chat: FakeChat | FakeUser | int) -> list[StoredMessage]:
        return [m for m in self.messages(chat) if m.sender is self.bot]

    def message(self, chat: FakeChat | FakeUser | int, message_id: int) -> StoredMessage:
        chat_id = chat if isinstance(chat, int) else chat.id
        return self._messages[chat_id][message_id]

    def calls(self, method: str | None = None) -> list[RecordedRequest]:
        """Recorded requests, in order; ``method=None`` means all except ``getUpdates``."""
        if method is None:
            return [r for r in self.requests if r.method != "getUpdates"]
        return [r for r in self.requests if r.method.lower() == method.lower()]

    def unknown_calls(self) -> list[RecordedRequest]:
        known = {*self._methods, "getupdates"}
        return [r for r in self.requests if r.method.lower() not in known]

    def answer_of(self, query_id: str) -> JSON | None:
        return self.callback_queries[query_id].answer

    def commands_for(self, *, language_code: str = "", scope: JSON | None = None) -> list[JSON]:
        return self.commands.get((_scope_key(scope), language_code), [])

    # -- waiting (event driven, bounded by a timeout) ----------------------------------------

    async def wait_for(
        self,
        method: str,
        *,
        where: Callable[[JSON], bool] | None = None,
        chat: FakeChat | FakeUser | None = None,
        count: int = 1,
        since: int = 0,
        timeout: float = 5.0,
    ) -> list[RecordedRequest]:
        """Wait until ``count`` answered requests to ``method`` (from index ``since`` on, matching
        ``chat`` and ``where``) were recorded; return them. Fails with ``TimeoutError``."""

        def matching() -> list[RecordedRequest]:
            found = []
            for request in self.requests[since:]:
                if not request.done or request.method.lower() != method.lower():
                    continue
                if chat is not None and request.params.get("chat_id") != chat.id:
                    continue
                if where is not None and not where(request.params):
                    continue
                found.append(request)
            return found

        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: len(matching()) >= count)
        return matching()[:count]

    async def wait_until(self, predicate: Callable[[], bool], *, timeout: float = 5.0) -> None:
        """Wait until ``predicate()`` holds; it is re-checked after every answered request."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(predicate)

    def unconfirmed(self) -> list[int]:
        """The updates the bot read (a getUpdates answer its client got) that no later offset confirmed: a start
        gets them again."""
        pending = {u["update_id"] for u in self.pending_updates}
        read = (u["update_id"] for r in self.calls("getUpdates") if r.ok and r.heard for u in r.result)
        return sorted(pending.intersection(read))

    def conflicts(self) -> list[RecordedRequest]:
        """The getUpdates ended with 409 Conflict whose client read it (one that had gone heard nothing)."""
        return [r for r in self.calls("getUpdates") if r.error_code == 409 and r.heard]

    async def wait_delivered(self, *, timeout: float = 5.0) -> None:
        """Wait until the bot confirmed (by a later ``getUpdates`` offset) every pushed update."""
        await self.wait_until(lambda: not self.pending_updates, timeout=timeout)

    # -- HTTP --------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        params, encoding = await _read_params(request)
        method = request.match_info["method"]
        record = RecordedRequest(len(self.requests), method, params, encoding)
        self.requests.append(record)
        await self._notify()
        try:
            if request.match_info["token"] != self.token:
                raise BotApiError(401, "Unauthorized")
            failures = self._failures.get(method.lower())
            if failures:
                raise failures.pop(0)
            self._flood_check(method, params)
            if method.lower() == "getupdates":
                record.method = "getUpdates"
                result = await self._get_updates(params, record)
            elif method.lower() in self._methods:
                record.method, handler = self._methods[method.lower()]
                result = handler(params)
            else:
                raise BotApiError(404, "Not Found")
        except BotApiError as error:
            record.heard = request.transport is not None and not request.transport.is_closing()
            record.ok, record.error_code, record.description = False, error.code, error.description
            body: JSON = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
            await self._notify()
            return web.json_response(body, status=error.code)
        record.heard = request.transport is not None and not request.transport.is_closing()
        record.ok, record.result = True, result
        await self._notify()
        gate = self._held_answers.get(method.lower())
        if gate is not None:
            await gate.wait()
            record.heard = request.transport is not None and not request.transport.is_closing()
            await self._notify()
        return web.json_response({"ok": True, "result": result})

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def wake_polls(self) -> None:
        """The held polls look at the clock again (a test that moved its clock ends those whose time is up)."""
        self._pulse()

    def _pulse(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    # -- getUpdates --------------------------------------------------------------------------

    async def _get_updates(self, params: JSON, record: RecordedRequest) -> list[JSON]:
        """Telegram's getUpdates (tdlib/telegram-bot-api, `Client::process_get_updates_query` and
        `do_get_updates`): the offset confirms every update before it as the call arrives; a call with the
        previous one's offset within 3 s of its start waits at least 3 s (one that asked for less too) and within
        0.5 s gets one update at most; a call that finds nothing and may wait is held, and it ends the poll held
        before with 409 Conflict. Only a held poll ends another: one answered at once ends none. A held poll whose
        client went away stays held (until an update, its timeout or the next held poll; its answer is then
        heard by nobody, `RecordedRequest.heard`)."""
        if "allowed_updates" in params:
            wanted = params["allowed_updates"] or []
            self.allowed_updates = frozenset(wanted) if wanted else DEFAULT_ALLOWED_UPDATES
        offset = params.get("offset")
        offset = offset if isinstance(offset, int) else 0
        if offset > 0:
            self.pending_updates = [u for u in self.pending_updates if u["update_id"] >= offset]
            await self._notify()
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        now = self.clock()
        previous_offset, previous_start = self._previous_poll
        if offset == previous_offset and timeout < SAME_OFFSET_WAIT and now < previous_start + SAME_OFFSET_WAIT:
            timeout = SAME_OFFSET_WAIT
        if offset == previous_offset and now < previous_start + SAME_OFFSET_ONE_UPDATE:
            limit = 1
        self._previous_poll = (offset, now)
        timeout = min(timeout, self.max_long_poll)
        poll_clock = self.poll_clock or asyncio.get_running_loop().time
        deadline = poll_clock() + timeout
        generation: int | None = None  # this call's, once it is held
        try:
            while True:
                if generation is not None and generation != self._poll_generation:
                    raise BotApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is"
                        " running",
                    )
                kept = []
                stale = self.clock() - UPDATE_KEPT
                for update in self.pending_updates:
                    kind = next(k for k in update if k != "update_id")
                    if self.update_times.get(update["update_id"], stale) < stale:
                        self.dropped_updates.append(update)  # kept past UPDATE_KEPT: Telegram dropped it
                    elif kind in self.allowed_updates:
                        kept.append(update)
                    else:
                        self.dropped_updates.append(update)
                self.pending_updates = kept
                remaining = deadline - poll_clock()
                if kept or remaining <= 0 or self._closing:
                    batch = kept[:limit]
                    self.delivered_update_ids.extend(u["update_id"] for u in batch)
                    return batch
                if generation is None:  # held from now on: the poll held before ends with 409 Conflict
                    self._poll_generation += 1
                    generation = self._poll_generation
                    self.held_polls += 1
                    record.held = True
                    self._pulse()
                    await self._notify()
                wake = self._wake
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), remaining)
        finally:
            if generation is not None:
                self.held_polls -= 1

    # -- methods -----------------------------------------------------------------------------

    def _true(self, params: JSON) -> bool:
        return True

    def _get_me(self, params: JSON) -> JSON:
        return {
            **self.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
        }

    def _delete_webhook(self, params: JSON) -> bool:
        if params.get("drop_pending_updates"):
            self.dropped_updates.extend(self.pending_updates)
            self.pending_updates = []
        return True

    def _get_webhook_info(self, params: JSON) -> JSON:
        return {"url": "", "has_custom_certificate": False, "pending_update_count": len(self.pending_updates)}

    def _send_message(self, params: JSON) -> JSON:
        chat = self._writable_chat(params.get("chat_id"))
        raw = _text_param(params)
        text, entities = self._render(raw, params)
        markup = _checked_markup(params.get("reply_markup"))
        topic = self._topic(chat, params)
        reply_to = self._reply_target(chat, params, topic)
        message = self._store(
            chat,
            self.bot,
            text,
            entities=entities,
            raw_text=raw,
            parse_mode=params.get("parse_mode"),
            reply_markup=markup,
            link_preview_options=params.get("link_preview_options"),
            reply_to=reply_to,
            topic=topic,
        )
        return message.to_api()

    def _topic(self, chat: FakeChat, params: JSON) -> int | None:
        """The forum topic a message goes to: its ``message_thread_id``, which must name a topic of a forum (none:
        the General topic)."""
        thread = params.get("message_thread_id")
        if thread is None:
            return None
        if not chat.is_forum or int(thread) not in chat.topics:
            raise BotApiError(400, "Bad Request: message thread not found")
        return int(thread)

    def _upload(self, params: JSON, key: str, limit: int) -> tuple[str, bytes, JSON]:
        """An uploaded file of a media method: (file id, bytes, the upload's description); Telegram's errors for
        a missing, empty or too large file. A file id or URL instead of an upload is not modelled."""
        upload = params.get(key)
        if isinstance(upload, str) and upload in self.files:
            return upload, self.files[upload], {"filename": upload}
        if not isinstance(upload, dict) or "data" not in upload:
            raise BotApiError(400, f"Bad Request: there is no {key} in the request")
        data: bytes = upload["data"]
        if not data:
            raise BotApiError(400, "Bad Request: file must be non-empty")
        if len(data) > limit:
            raise BotApiError(400, "Bad Request: file is too big")
        file_id = f"{key}-{len(self.files) + 1}"
        self.files[file_id] = data
        return file_id, data, upload

    def _get_file(self, params: JSON) -> JSON:
        """getFile: the path to download a file from; Telegram refuses bots a file over 20 MB."""
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise BotApiError(400, "Bad Request: invalid file_id")
        data = self.files[file_id]
        if len(data) > BOT_DOWNLOAD_LIMIT:
            raise BotApiError(400, "Bad Request: file is too big")
        return {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "file_size": len(data),
            "file_path": f"documents/{file_id}",
        }

    async def _download(self, request: web.Request) -> web.Response:
        """A file's bytes at its path (``/file/bot<token>/<file_path>``), as the Bot API serves them."""
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        file_id = request.match_info["path"].rsplit("/", 1)[-1]
        if file_id not in self.files:
            return web.Response(status=404)
        self.downloads.append(file_id)
        return web.Response(body=self.files[file_id])

    def _caption(self, params: JSON) -> tuple[str, list[JSON]]:
        raw = params.get("caption") or ""
        if not isinstance(raw, str):
            raise BotApiError(400, "Bad Request: caption must be a string")
        text, entities = render_text(raw, params.get("parse_mode"), params.get("caption_entities"))
        if utf16_len(text) > 1024:
            raise BotApiError(400, "Bad Request: message caption is too long")
        return text, entities

    def _send_photo(self, params: JSON) -> JSON:
        """sendPhoto: at most 10 MB, a PNG or JPEG whose width + height is at most 10000 and whose sides differ
        at most 20 times; the message carries the photo's sizes (scaled so the longest side is at most 1280)."""
        chat = self._writable_chat(params.get("chat_id"))
        caption, entities = self._caption(params)
        file_id, data, _ = self._upload(params, "photo", 10 * 1024 * 1024)
        sizes = self._photo_sizes(file_id, data)
        message = self._store(
            chat,
            self.bot,
            caption,
            entities=entities,
            raw_text=params.get("caption") or "",
            parse_mode=params.get("parse_mode"),
            reply_markup=_checked_markup(params.get("reply_markup")),
            reply_to=self._reply_target(chat, params),
        )
        message.photo = sizes
        return message.to_api()

    def _photo_sizes(self, file_id: str, data: bytes) -> list[JSON]:
        """Telegram's checks of a photo and the sizes it keeps (the longest side scaled to at most 1280)."""
        width, height = _image_size(data)
        if not width or not height:
            raise BotApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        if width + height > 10_000 or max(width, height) > 20 * min(width, height):
            raise BotApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
        sizes = []
        for side in (90, 320, 800, 1280):
            scale = min(1.0, side / max(width, height))
            sizes.append(
                {
                    "file_id": f"{file_id}-{side}",
                    "file_unique_id": f"u{file_id}-{side}",
                    "width": max(1, round(width * scale)),
                    "height": max(1, round(height * scale)),
                    "file_size": len(data),
                }
            )
            if scale == 1.0:
                break
        self.files.update({size["file_id"]: data for size in sizes})
        return sizes

    def _send_media_group(self, params: JSON) -> list[JSON]:
        """sendMediaGroup (an album) of 2-10 photos, each uploaded as ``attach://<name>`` and checked like
        sendPhoto; every message shares the group's ``media_group_id``."""
        chat = self._writable_chat(params.get("chat_id"))
        media = params.get("media")
        if isinstance(media, str):
            media = json.loads(media)
        if not isinstance(media, list) or not 2 <= len(media) <= 10:
            raise BotApiError(400, "Bad Request: wrong number of messages to send")
        group = f"album-{len(self.files) + 1}"
        out = []
        for item in media:
            if not isinstance(item, dict) or item.get("type") != "photo":
                raise BotApiError(400, "Bad Request: the fake models albums of photos only")
            ref = str(item.get("media") or "")
            if not ref.startswith("attach://") or ref.removeprefix("attach://") not in params:
                raise BotApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            file_id, data, _ = self._upload(params, ref.removeprefix("attach://"), 10 * 1024 * 1024)
            sizes = self._photo_sizes(file_id, data)
            caption, entities = self._caption(item)
            message = self._store(
                chat,
                self.bot,
                caption,
                entities=entities,
                raw_text=item.get("caption") or "",
                parse_mode=item.get("parse_mode"),
            )
            message.photo = sizes
            message.media_group_id = group
            out.append(message.to_api())
        return out

    def _send_document(self, params: JSON) -> JSON:
        """sendDocument: any file up to 50 MB, with its name and type."""
        chat = self._writable_chat(params.get("chat_id"))
        caption, entities = self._caption(params)
        file_id, data, upload = self._upload(params, "document", 50 * 1024 * 1024)
        message = self._store(
            chat,
            self.bot,
            caption,
            entities=entities,
            raw_text=params.get("caption") or "",
            parse_mode=params.get("parse_mode"),
            reply_markup=_checked_markup(params.get("reply_markup")),
            reply_to=self._reply_target(chat, params),
        )
        message.document = {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "file_name": upload.get("filename") or "file",
            "mime_type": upload.get("content_type") or "application/octet-stream",
            "file_size": len(data),
        }
        return message.to_api()

    def _edit_message_text(self, params: JSON) -> JSON:
        message = self._editable(params)
        raw = _text_param(params)
        text, entities = self._render(raw, params)
        markup = _checked_markup(params.get("reply_markup"))
        if text == message.text and entities == message.entities and markup == message.reply_markup:
            raise BotApiError(400, _NOT_MODIFIED)
        message.history.append(message.text)
        message.text, message.entities, message.raw_text = text, entities, raw
        message.parse_mode = params.get("parse_mode")
        message.reply_markup = markup  # absent reply_markup removes the keyboard, as on Telegram
        if "link_preview_options" in params:
            message.link_preview_options = params["link_preview_options"]
        message.edit_date = self._now()
        return message.to_api()

    def _edit_message_reply_markup(self, params: JSON) -> JSON:
        message = self._editable(params)
        markup = _checked_markup(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise BotApiError(400, _NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = self._now()
        return message.to_api()

    def _delete_message(self, params: JSON) -> bool:
        chat = self._chat(params.get("chat_id"))
        message = self._messages.get(chat.id, {}).get(_int(params, "message_id"))
        if message is None or message.deleted:
            raise BotApiError(400, "Bad Request: message to delete not found")
        if (
            chat.type != "private"
            and message.sender is not self.bot
            and not (
                chat.members.get(self.bot.id) == "creator"
                or (chat.members.get(self.bot.id) == "administrator" and chat.can_delete)
            )
        ):
            raise BotApiError(400, "Bad Request: message can't be deleted")
        message.deleted = True
        return True

    def _forward_message(self, params: JSON) -> JSON:
        source = self._source_message(params)
        chat = self._writable_chat(params.get("chat_id"))
        origin: JSON = {"type": "user", "sender_user": source.sender.to_api(), "date": source.date}
        message = self._store(chat, self.bot, source.text, entities=list(source.entities))
        message.forward_origin = origin
        return message.to_api()

    def _copy_message(self, params: JSON) -> JSON:
        source = self._source_message(params)
        chat = self._writable_chat(params.get("chat_id"))
        message = self._store(
            chat,
            self.bot,
            source.text,
            entities=list(source.entities),
            raw_text=source.text,
            reply_markup=_checked_markup(params.get("reply_markup")),
        )
        return {"message_id": message.message_id}

    def _answer_callback_query(self, params: JSON) -> bool:
        query = self.callback_queries.get(str(params.get("callback_query_id", "")))
        if query is None or query.answer is not None:
            raise BotApiError(400, _QUERY_INVALID)
        if self.clock() - query.pressed_at > self.callback_answer_timeout:
            query.late = True
            raise BotApiError(400, _QUERY_INVALID)
        if len(str(params.get("text") or "")) > 200:
            raise BotApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query.answer = dict(params)
        return True

    def _set_my_commands(self, params: JSON) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise BotApiError(400, "Bad Request: commands must be a list of at most 100 BotCommand")
        for command in commands:
            if not _COMMAND_NAME.fullmatch(str(command.get("command", ""))):
                raise BotApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise BotApiError(400, "Bad Request: command description must be 1-256 characters")
        language = _language(params)
        self.commands[(_scope_key(params.get("scope")), language)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def _get_my_commands(self, params: JSON) -> list[JSON]:
        return self.commands.get((_scope_key(params.get("scope")), _language(params)), [])

    def _delete_my_commands(self, params: JSON) -> bool:
        self.commands.pop((_scope_key(params.get("scope")), _language(params)), None)
        return True

    def _get_chat(self, params: JSON) -> JSON:
        chat = self._chat(params.get("chat_id"))
        if chat.members.get(self.bot.id) not in _PRESENT_STATUSES:
            raise BotApiError(400, "Bad Request: chat not found")
        return chat.full_info()

    def _get_chat_member(self, params: JSON) -> JSON:
        chat = self._chat(params.get("chat_id"))
        user_id = _int(params, "user_id")
        if chat.type != "private" and user_id != self.bot.id:  # a group the bot is not in (now) tells it nothing
            self._writable_chat(chat.id)
        person = self.bot if user_id == self.bot.id else self.users.get(user_id)
        if person is None:
            raise BotApiError(400, "Bad Request: PARTICIPANT_ID_INVALID")
        return _chat_member(person, chat.members.get(user_id, "left"), can_delete=chat.can_delete)

    def _send_chat_action(self, params: JSON) -> bool:
        self._writable_chat(params.get("chat_id"))
        return True

    # -- helpers -----------------------------------------------------------------------------

    def _now(self) -> int:
        return int(self.clock())

    def _delivers(self, chat: FakeChat, command: re.Match[str] | None, reply_to: StoredMessage | None) -> bool:
        if chat.type == "private" or not self.privacy_mode:
            return True
        if chat.members.get(self.bot.id) in ("administrator", "creator"):
            return True
        if command is not None:
            addressed = command.group(2)
            return addressed is None or addressed.lower() == (self.bot.username or "").lower()
        return reply_to is not None and reply_to.sender is self.bot

    def _store(
        self,
        chat: FakeChat,
        sender: FakeUser,
        text: str,
        *,
        entities: list[JSON] | None = None,
        raw_text: str | None = None,
        parse_mode: str | None = None,
        reply_markup: JSON | None = None,
        link_preview_options: JSON | None = None,
        reply_to: StoredMessage | None = None,
        topic: int | None = None,
    ) -> StoredMessage:
        message_id = self._next_message_id.get(chat.id, 1)
        self._next_message_id[chat.id] = message_id + 1
        message = StoredMessage(
            chat=chat,
            message_id=message_id,
            sender=sender,
            text=text,
            date=self._now(),
            entities=entities or [],
            raw_text=text if raw_text is None else raw_text,
            parse_mode=parse_mode,
            reply_markup=reply_markup,
            link_preview_options=link_preview_options,
            reply_to=reply_to,
            topic=topic,
        )
        self._messages.setdefault(chat.id, {})[message_id] = message
        return message

    def _render(self, raw: str, params: JSON) -> tuple[str, list[JSON]]:
        text, entities = render_text(raw, params.get("parse_mode"), params.get("entities"))
        if not text.strip():
            raise BotApiError(400, "Bad Request: message text is empty")
        if utf16_len(text) > 4096:
            raise BotApiError(400, "Bad Request: message is too long")
        return text, entities[:ENTITY_LIMIT]  # Telegram ignores the entities past the 100th

    def _chat(self, chat_id: Any) -> FakeChat:
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for candidate in self.chats.values():
                if candidate.username and candidate.username.lower() == chat_id[1:].lower():
                    return candidate
            raise BotApiError(400, "Bad Request: chat not found")
        try:
            key = int(chat_id)
        except (TypeError, ValueError):
            raise BotApiError(400, "Bad Request: chat not found") from None
        if key in self.migrated:
            raise BotApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self.migrated[key]},
            )
        chat: FakeChat | None = self.chats.get(key)
        if chat is None and key in self.users:
            person = self.users[key]
            if person.started or person.blocked or person.unstarted_error == "forbidden":
                chat = self.private_chat(person)
        if chat is None:
            raise BotApiError(400, "Bad Request: chat not found")
        return chat

    def _writable_chat(self, chat_id: Any) -> FakeChat:
        """The chat, if the bot may post there now; otherwise Telegram's refusal."""
        chat = self._chat(chat_id)
        if chat.type == "private":
            person = chat.user
            assert person is not None
            if person.blocked:
                raise BotApiError(403, "Forbidden: bot was blocked by the user")
            if not person.started:
                if person.unstarted_error == "chat_not_found":
                    raise BotApiError(400, "Bad Request: chat not found")
                raise BotApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return chat
        status = chat.members.get(self.bot.id, "left")
        if status == "kicked":
            raise BotApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if status not in _PRESENT_STATUSES:
            raise BotApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")
        return chat

    def _editable(self, params: JSON) -> StoredMessage:
        if "inline_message_id" in params:
            raise BotApiError(400, "Bad Request: the fake does not model inline messages")
        chat = self._writable_chat(params.get("chat_id"))
        message = self._messages.get(chat.id, {}).get(_int(params, "message_id"))
        if message is None or message.deleted:
            raise BotApiError(400, "Bad Request: message to edit not found")
        if message.sender is not self.bot:
            raise BotApiError(400, "Bad Request: message can't be edited")
        return message

    def _source_message(self, params: JSON) -> StoredMessage:
        source_chat = self._chat(params.get("from_chat_id"))
        message = self._messages.get(source_chat.id, {}).get(_int(params, "message_id"))
        if message is None or message.deleted:
            raise BotApiError(400, "Bad Request: message to forward not found")
        return message

    def _reply_target(self, chat: FakeChat, params: JSON, topic: int | None = None) -> StoredMessage | None:
        """The message replied to; in a forum only one in the same topic (a message of another topic is not
        found there)."""
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            target_chat = self._chat(reply.get("chat_id", chat.id))
            message = self._messages.get(target_chat.id, {}).get(int(reply.get("message_id", 0)))
            if message is not None and chat.is_forum and message.topic != topic:
                message = None
            if message is None and not reply.get("allow_sending_without_reply"):
                raise BotApiError(400, "Bad Request: message to be replied not found")
            return message
        return None


# --------------------------------------------------------------------------------------------
# Module helpers
# --------------------------------------------------------------------------------------------


async def _read_params(request: web.Request) -> tuple[JSON, str]:
    """Parameters from the query string and a JSON, url-encoded or multipart body."""
    params: JSON = {key: _decode(key, value) for key, value in request.query.items()}
    encoding = "query"
    if request.can_read_body:
        if request.content_type == "application/json":
            body = await request.json()
            if isinstance(body, dict):
                params.update(body)
            encoding = "json"
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, str):
                    params[key] = _decode(key, value)
                elif isinstance(value, web.FileField):
                    data = value.file.read()
                    params[key] = {
                        "filename": value.filename,
                        "content_type": value.content_type,
                        "size": len(data),
                        "data": data,
                    }
                else:
                    params[key] = {"size": len(value)}
            encoding = "form" if request.content_type.endswith("urlencoded") else "multipart"
    if "callback_query_id" in params:
        params["callback_query_id"] = str(params["callback_query_id"])
    return params, encoding


def _image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG or a JPEG (baseline or progressive); (0, 0) for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return 0, 0
            marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2):
                return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
            i += 2 + length
    return 0, 0


def _decode(key: str, value: str) -> Any:
    if key in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _int(params: JSON, key: str) -> int:
    try:
        return int(params[key])
    except (KeyError, TypeError, ValueError):
        raise BotApiError(400, f"Bad Request: {key} is required and must be an integer") from None


def _text_param(params: JSON) -> str:
    text = params.get("text")
    if not isinstance(text, str) or not text:
        raise BotApiError(400, "Bad Request: message text is empty")
    return text


def _language(params: JSON) -> str:
    language = str(params.get("language_code") or "")
    if language and not re.fullmatch(r"[a-z]{2}", language):
        raise BotApiError(400, "Bad Request: invalid language code specified")
    return language


def _scope_key(scope: Any) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)


_BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


def _checked_markup(markup: Any) -> JSON | None:
    """Validate an inline keyboard like Telegram; other markups are accepted but not stored."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise BotApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return None
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise BotApiError(400, 'Bad Request: field "inline_keyboard" must be an Array of Arrays')
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not str(button.get("text", "")):
                raise BotApiError(400, "Bad Request: can't parse inline keyboard button: Text must be non-empty")
            actions = [name for name in _BUTTON_ACTIONS if name in button]
            if len(actions) != 1:
                raise BotApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard",
                )
            if "callback_data" in button and not 1 <= len(str(button["callback_data"]).encode("utf-8")) <= 64:
                raise BotApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return {"inline_keyboard": rows}


def _chat_member(user: FakeUser, status: str, *, can_delete: bool = True) -> JSON:
    """A ``ChatMember`` object of the given status, with every field the Bot API requires."""
    if status not in _MEMBER_STATUSES:
        raise ValueError(f"unknown chat member status {status!r}")
    data: JSON = {"status": status, "user": user.to_api()}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=can_delete,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
            can_manage_topics=False,
        )
    elif status == "restricted":
        data.update({name: False for name in _RESTRICTED_PERMISSIONS})
        data.update(is_member=True, until_date=0)
    elif status == "kicked":
        data["until_date"] = 0
    return data


_RESTRICTED_PERMISSIONS = (
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_send_messages",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_manage_topics",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_edit_tag",
    "can_react_to_messages",
)


@contextlib.asynccontextmanager
async def running(
    application: AnyApplication,
    *,
    allowed_updates: Sequence[str] | None = Update.ALL_TYPES,
    poll_timeout: float = 1.0,
    drop_pending_updates: bool = False,
) -> AsyncIterator[AnyApplication]:
    """Run ``application`` inside the current event loop the way ``run_polling`` would, minus the
    loop ownership: initialize, start polling, start; on exit stop the updater, stop, shut down.

    ``post_init``/``post_stop``/``post_shutdown`` are *not* called, exactly as in PTB outside
    ``run_polling``; call them yourself if the application relies on them.
    """
    async with application:
        updater = application.updater
        assert updater is not None, "build the Application with an Updater (the default)"
        await updater.start_polling(
            poll_interval=0.0,
            timeout=dtm.timedelta(seconds=poll_timeout),
            allowed_updates=allowed_updates,
            drop_pending_updates=drop_pending_updates,
        )
        await application.start()
        try:
            yield application
        finally:
            if updater.running:
                await updater.stop()
            if application.running:
                await application.stop()
