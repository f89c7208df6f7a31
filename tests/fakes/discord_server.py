"""A fake Discord (REST API + gateway) on 127.0.0.1 that the real discord.py client talks to in tests.

This module owns the loopback stand-in for Discord used by the end-to-end tests of the Discord adapter: an
aiohttp server started inside the test's event loop on an ephemeral port, serving

* the REST routes a bot with application commands uses (login, application info, command sync, channel
  messages with components, allowed_mentions and uploaded files (checked against Discord's attachment
  limits, kept in ``uploads``), interaction callbacks and followup webhooks, private
  threads and their members, DMs with a configurable "closed DMs" error, ...), and
* a gateway websocket (HELLO, IDENTIFY, heartbeats, READY, GUILD_CREATE, member chunks, RESUME with the replay of
  what was dispatched while the connection was down) compressed the
  way the installed discord.py asks for (``zlib-stream``, or ``zstd-stream`` when a zstd module is present),
  through which a test pushes dispatch events: presences, slash commands, autocomplete, button presses,
  modal submits, user messages, thread events, members leaving.

Everything the client does is recorded (``requests``, ``gateway_received``) and kept as state (messages per
channel, edits, ephemeral replies, threads and their members, DM channels, registered commands, pings), so a
test asserts on what a Discord user would see.  The fake is deliberately strict where Discord is strict: each
interaction may be acknowledged once (400, code 40060, on the second callback), within ``ack_deadline``
seconds (404, code 10062, after it); callback types must fit the interaction type; message and component
limits are checked (5 action rows of 5 buttons, 100-character custom_ids, 80-character labels, 2,000
characters); events are only delivered when the client's intents allow them, and message content is blanked
without the MESSAGE_CONTENT intent. The members are delivered as Discord delivers them: GUILD_CREATE carries every
member only to a client with the GUILD_PRESENCES intent in a guild of at most ``large_threshold`` members (the
IDENTIFY's, 50 to 250, default 50); a larger guild ("large": true) sends only those online, with a role or a
nickname, and a client without that intent (or a guild over 75,000) gets only the bot; the rest come by Request
Guild Members (op 8) as GUILD_MEMBERS_CHUNK events of at most 1,000 members each, with ``chunk_index`` and
``chunk_count`` and the request's ``nonce`` (one of at most 32 bytes; a longer one is dropped). The whole list (an
empty query) takes the GUILD_MEMBERS intent, and with limit 0 is answered once per guild in 30 seconds (RATE_LIMITED
after); a prefix query or ``user_ids`` returns at most 100; presences only with the GUILD_PRESENCES intent. A
request Discord leaves unanswered (the whole list without the intent, neither query nor user_ids, a query without a
limit, another guild) gets no answer here either, and is kept in ``unanswered_member_requests``.
The bot's permissions are computed as Discord does (roles, then the channel's
@everyone, role and member overwrites; a thread has its parent's): posting, editing, opening a thread, adding to
it and locking it without the permission answer 403 with 50013 "Missing Permissions" (50001 "Missing Access"
without View Channel) — adding someone to a private thread made with ``invitable=false`` takes Manage Threads,
and a member who cannot view a thread's parent channel cannot read or write in the thread (`can_read`); giving
or taking a member's role needs Manage Roles and a role strictly below the bot's highest role (403 50013,
Discord's role hierarchy). An interaction's token takes followups for 15 minutes (401,
50027, after; ``age_interaction`` moves one into the past). ``rate_limit`` makes matching requests answer 429 with
``retry_after``, the ``X-RateLimit-*`` headers and the ``Via`` header discord.py requires of a real 429.

Point discord.py at a running fake with :func:`pointed_at`; run a client until it is ready (and its guild is
cached) with :func:`run_client`.  Usage::

    async with FakeDiscord() as fake:
        alice = fake.add_member("alice")
        with pointed_at(fake):
            async with run_client(make_bot(), fake) as bot:
                ix = await fake.slash(alice.id, "ping", {"text": "hi"})
                body = await fake.wait_for_response(ix.id)
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import re
import secrets
import sys
import time
import traceback
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

__all__ = [
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeInteraction",
    "FakeMember",
    "FakeRole",
    "FakeUser",
    "GatewayFrame",
    "Intents",
    "Perm",
    "Pings",
    "RecordedRequest",
    "pointed_at",
    "run_client",
    "settle",
]

DISCORD_EPOCH_MS = 1_420_070_400_000
MAX_ATTACHMENTS = 10  # files a message may carry
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # bytes a file may have (a server without boosts)
MEMBERS_PER_CHUNK = 1000  # members in one GUILD_MEMBERS_CHUNK
MEMBERS_PER_QUERY = 100  # members a prefix query or a user_ids request returns at most
NONCE_BYTES = 32  # a Request Guild Members nonce longer than this is ignored (the chunks carry none)
FULL_LIST_EVERY = 30.0  # seconds: the whole member list is answered once per guild in this window
LARGE_THRESHOLD = (50, 250, 50)  # IDENTIFY's large_threshold: its least, its most, its default
GUILD_CREATE_CAP = 75_000  # above this many members GUILD_CREATE carries only the bot
API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway"

T = TypeVar("T")
JSON = Any


class Intents:
    """Gateway intent bits (the ones the fake filters on)."""

    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED: ClassVar[dict[str, int]] = {
        "members": GUILD_MEMBERS,
        "presences": GUILD_PRESENCES,
        "message_content": MESSAGE_CONTENT,
    }


class Perm:
    """Permission bits used to build the default roles."""

    ADMINISTRATOR = 1 << 3
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    MANAGE_ROLES = 1 << 28
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38
    EVERYONE_DEFAULT = VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY | SEND_MESSAGES_IN_THREADS
    BOT_DEFAULT = (
        EVERYONE_DEFAULT | MANAGE_MESSAGES | EMBED_LINKS | MENTION_EVERYONE | MANAGE_THREADS | CREATE_PRIVATE_THREADS
    )


# interaction type -> callback types Discord accepts for it
_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    2: frozenset({4, 5, 9}),  # application command
    3: frozenset({4, 5, 6, 7, 9}),  # message component
    4: frozenset({8}),  # autocomplete
    5: frozenset({4, 5, 6, 7}),  # modal submit (6/7 only when it came from a component)
}
_THREAD_TYPES = frozenset({10, 11, 12})
_TEXTLIKE_TYPES = frozenset({0, 5})
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


class FakeDiscordError(Exception):
    """Raised by the fake's test-side helpers when a test asks for something Discord would not allow."""


@dataclass
class RecordedRequest:
    """One REST request made by the client, with the fake's answer."""

    method: str
    path: str
    query: dict[str, str]
    json: JSON
    status: int = 0
    response: JSON = None


@dataclass
class GatewayFrame:
    """One gateway payload, in either direction, with the connection (session) number it belongs to."""

    connection: int
    payload: dict[str, Any]


@dataclass(frozen=True)
class Pings:
    """Who a created message notified, computed from its content and allowed_mentions as Discord does."""

    users: frozenset[int]
    roles: frozenset[int]
    everyone: bool

    @property
    def nobody(self) -> bool:
        return not self.users and not self.roles and not self.everyone


@dataclass
class FakeUser:
    id: int
    username: str
    bot: bool = False
    global_name: str | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass
class FakeRole:
    id: int
    name: str
    permissions: int = 0
    position: int = 0
    hoist: bool = False
    color: int = 0
    mentionable: bool = False
    managed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "hoist": self.hoist,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }


@dataclass
class FakeMember:
    user: FakeUser
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    status: str = "offline"
    locale: str = "en-US"
    joined_at: str = field(default_factory=_now_iso)

    @property
    def id(self) -> int:
        return self.user.id

    def payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data


@dataclass
class FakeChannel:
    """A guild channel, a thread (type 10/11/12) or a DM channel (type 1)."""

    id: int
    name: str
    type: int = 0
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    permission_overwrites: list[dict[str, Any]] = field(default_factory=list)
    # threads
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    archive_timestamp: str = field(default_factory=_now_iso)
    create_timestamp: str = field(default_factory=_now_iso)
    members: dict[int, str] = field(default_factory=dict)  # user id -> join timestamp
    message_count: int = 0
    # DMs
    recipient_id: int | None = None
    last_message_id: int | None = None

    @property
    def is_thread(self) -> bool:
        return self.type in _THREAD_TYPES


@dataclass
class FakeInteraction:
    """An interaction the fake created and dispatched, with everything the client answered to it."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    payload: dict[str, Any]
    created: float
    message_id: int | None = None  # the message a component is on
    responses: list[dict[str, Any]] = field(default_factory=list)  # accepted callback bodies
    rejected: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (code, body) refused
    response_type: int | None = None
    original_message_id: int | None = None
    loading: bool = False
    followup_ids: list[int] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    expired: bool = False


class _HttpError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            data["errors"] = self.errors
        return data


def _invalid(what: str) -> _HttpError:
    return _HttpError(400, 50035, "Invalid Form Body", {"_fake": {"_errors": [{"message": what}]}})


class _Compressor:
    """Per-connection transport compression, matching discord.utils' decompression contexts."""

    def __init__(self, kind: str | None) -> None:
        self.kind = kind
        self._zlib: Any = None
        self._zstd: Any = None
        if kind == "zlib-stream":
            self._zlib = zlib.compressobj()
        elif kind == "zstd-stream":
            self._zstd = _zstd_compressor()

    def encode(self, text: str) -> bytes | str:
        raw = text.encode("utf-8")
        if self._zlib is not None:
            out: bytes = self._zlib.compress(raw) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
            return out
        if self._zstd is not None:
            compress, flush = self._zstd
            zout: bytes = compress(raw) + flush()
            return zout
        return text


def _zstd_compressor() -> tuple[Callable[[bytes], bytes], Callable[[], bytes]]:
    """A streaming zstd compressor flushed per frame (each websocket message decodes on its own)."""
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        try:
            from compression import zstd  # type: ignore[import-not-found]
        except ImportError as exc:  # pragma: no cover - only when discord.py and the fake disagree
            raise FakeDiscordError("client asked for zstd-stream but no zstd module is installed") from exc
        comp = zstd.ZstdCompressor()
        return comp.compress, lambda: comp.flush(zstd.ZstdCompressor.FLUSH_BLOCK)
    zobj = zstandard.ZstdCompressor().compressobj()
    return zobj.compress, lambda: zobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)


@dataclass
class _Session:
    number: int
    ws: web.WebSocketResponse
    compressor: _Compressor
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    session_id: str | None = None
    intents: int = 0
    large_threshold: int = LARGE_THRESHOLD[2]
    seq: int = 0
    identified: bool = False
    closed: bool = False


_Handler = Callable[[web.Request, dict[str, str], JSON], Awaitable[tuple[int, JSON]]]


class FakeDiscord:
    """A fake Discord for one guild; start it with ``async with FakeDiscord() as fake`` (or start/close)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "Sudija",
        guild_name: str = "Preferans klub",
        heartbeat_interval_ms: int = 41_250,
        ack_deadline: float | None = 3.0,
        privileged_intents: Sequence[str] = ("members", "presences", "message_content"),
        echo_events: bool = True,
        enforce_permissions: bool = True,
        token_lifetime: float = 15 * 60,
    ) -> None:
        self.token = token
        self.enforce_permissions = enforce_permissions
        self.token_lifetime = token_lifetime  # an interaction's token takes followups this long
        self._rate_limits: list[tuple[re.Pattern[str], float, bool]] = []  # (path, retry_after, global)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.ack_deadline = ack_deadline
        self.echo_events = echo_events
        self.portal_intents = 0
        for name in privileged_intents:
            self.portal_intents |= Intents.PRIVILEGED[name]
        self._last_snowflake = 0

        # records
        self.requests: list[RecordedRequest] = []
        self.unknown_requests: list[RecordedRequest] = []
        self.gateway_received: list[GatewayFrame] = []
        self.gateway_sent: list[GatewayFrame] = []
        self.dropped_events: list[tuple[int, str, dict[str, Any]]] = []
        self.errors: list[str] = []
        self.identifies: list[dict[str, Any]] = []
        self.gateway_queries: list[dict[str, str]] = []  # query of every gateway connection (v, encoding, ...)
        self.unanswered_member_requests: list[tuple[dict[str, Any], str]] = []  # (op 8's data, why no answer)
        self._full_list_sent: dict[int, float] = {}  # guild id -> when its whole member list was last answered
        # state
        self.messages: dict[int, dict[str, Any]] = {}
        self._channel_messages: dict[int, list[int]] = {}
        self.ephemeral_owner: dict[int, int] = {}  # ephemeral message id -> the user who sees it
        self.edits: dict[int, list[dict[str, Any]]] = {}
        self.pings: dict[int, Pings] = {}
        self.uploads: dict[int, bytes] = {}  # attachment id -> the uploaded file's bytes
        self.downloads: list[int] = []  # the attachments the bot fetched from the (fake) CDN
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.global_commands: dict[str, dict[str, Any]] = {}
        self.guild_commands: dict[str, dict[str, Any]] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id

        self.application_id = self.snowflake()
        self.bot_user = FakeUser(self.application_id, bot_name, bot=True)
        self.owner_user = FakeUser(self.snowflake(), "club-owner")
        self.guild_id = self.snowflake()
        self.guild_name = guild_name
        self.users: dict[int, FakeUser] = {
            self.bot_user.id: self.bot_user,
            self.owner_user.id: self.owner_user,
        }
        self.roles: dict[int, FakeRole] = {
            self.guild_id: FakeRole(self.guild_id, "@everyone", Perm.EVERYONE_DEFAULT, position=0)
        }
        self.bot_role = self.add_role(bot_name, permissions=Perm.BOT_DEFAULT, managed=True)
        self.members: dict[int, FakeMember] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._add_member(self.bot_user, roles=[self.bot_role.id], status="online")
        self._add_member(self.owner_user, roles=[], status="offline")
        self.general = self.add_text_channel("general")
        self.closed_dms: set[int] = set()

        self._sessions: list[_Session] = []
        self._known_sessions: dict[str, int] = {}  # session_id -> intents, for RESUME
        self._missed: dict[str, list[tuple[str, Any]]] = {}  # session_id -> events dispatched while it was away
        self._connections = 0
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._routes: list[tuple[str, re.Pattern[str], _Handler]] = []
        self._held_answers: list[tuple[str, re.Pattern[str], asyncio.Event]] = []
        self._install_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get(GATEWAY_PATH, self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None)
        assert sockets
        self.port = int(sockets[0].getsockname()[1])

    async def close(self) -> None:
        for session in list(self._sessions):
            session.closed = True
            with contextlib.suppress(Exception):
                await session.ws.close(code=1001, message=b"fake discord shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    # ------------------------------------------------------------------ world building

    def snowflake(self) -> int:
        """A fresh, strictly increasing snowflake with a realistic timestamp."""
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last_snowflake = max(candidate, self._last_snowflake + 1)
        return self._last_snowflake

    def add_role(
        self,
        name: str,
        *,
        permissions: int = 0,
        hoist: bool = False,
        color: int = 0,
        mentionable: bool = False,
        managed: bool = False,
    ) -> FakeRole:
        role = FakeRole(self.snowflake(), name, permissions, len(self.roles), hoist, color, mentionable, managed)
        self.roles[role.id] = role
        return role

    def add_member(
        self,
        username: str,
        *,
        roles: Sequence[int] = (),
        status: str = "online",
        nick: str | None = None,
        locale: str = "en-US",
    ) -> FakeMember:
        """A human member of the guild (include it before the client connects, or use member_join)."""
        user = FakeUser(self.snowflake(), username)
        self.users[user.id] = user
        return self._add_member(user, roles=list(roles), status=status, nick=nick, locale=locale)

    def _add_member(
        self,
        user: FakeUser,
        *,
        roles: list[int],
        status: str,
        nick: str | None = None,
        locale: str = "en-US",
    ) -> FakeMember:
        for role_id in roles:
            if role_id not in self.roles:
                raise FakeDiscordError(f"unknown role {role_id}")
        member = FakeMember(user, roles, nick, status, locale)
        self.members[user.id] = member
        return member

    def add_text_channel(
        self,
        name: str,
        *,
        parent_id: int | None = None,
        topic: str | None = None,
        private_to: Sequence[int] = (),
    ) -> FakeChannel:
        """A text channel; ``private_to`` (role ids) hides it from @everyone and shows it to those roles."""
        overwrites: list[dict[str, Any]] = []
        if private_to:
            overwrites.append({"id": str(self.guild_id), "type": 0, "allow": "0", "deny": str(Perm.VIEW_CHANNEL)})
            for role_id in [self.bot_role.id, *private_to]:
                overwrites.append({"id": str(role_id), "type": 0, "allow": str(Perm.VIEW_CHANNEL), "deny": "0"})
        return self._add_channel(name, 0, parent_id=parent_id, topic=topic, permission_overwrites=overwrites)

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        members: Sequence[int] = (),
        archived_at: dt.datetime | None = None,
    ) -> FakeChannel:
        """A private thread the bot opened earlier (``invitable=false``), with these members; archived at
        ``archived_at`` when given (before the client connects: it is not announced)."""
        thread = FakeChannel(
            self.snowflake(),
            name,
            12,
            guild_id=self.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            invitable=False,
            auto_archive_duration=10080,
        )
        for user_id in (self.bot_user.id, *members):
            thread.members[user_id] = _now_iso()
        if archived_at is not None:
            thread.archived = True
            thread.archive_timestamp = archived_at.isoformat()
        self.channels[thread.id] = thread
        self._channel_messages[thread.id] = []
        return thread

    def add_category(self, name: str) -> FakeChannel:
        return self._add_channel(name, 4)

    def _add_channel(self, name: str, type_: int, **kwargs: Any) -> FakeChannel:
        channel = FakeChannel(
            self.snowflake(), name, type_, guild_id=self.guild_id, position=len(self.channels), **kwargs
        )
        self.channels[channel.id] = channel
        self._channel_messages[channel.id] = []
        return channel

    def close_dms(self, user_id: int) -> None:
        """Messages to this user fail with 403 / 50007 "Cannot send messages to this user"."""
        self.closed_dms.add(user_id)

    def member_permissions(self, user_id: int) -> int:
        member = self.members[user_id]
        perms = self.roles[self.guild_id].permissions
        for role_id in member.roles:
            perms |= self.roles[role_id].permissions
        if perms & Perm.ADMINISTRATOR:
            return (1 << 53) - 1
        return perms

    def channel_permissions(self, user_id: int, channel: FakeChannel) -> int:
        """Discord's computation: the roles' permissions, then the channel's overwrites (@everyone, the roles
        together, the member); a thread has its parent's. Administrator overrides everything."""
        if channel.is_thread and channel.parent_id is not None:
            channel = self.channels[channel.parent_id]
        perms = self.member_permissions(user_id)
        if perms & Perm.ADMINISTRATOR:
            return perms
        overwrites = {int(o["id"]): o for o in channel.permission_overwrites}
        everyone = overwrites.get(self.guild_id)
        if everyone is not None:
            perms = (perms & ~int(everyone["deny"])) | int(everyone["allow"])
        allow = deny = 0
        for role_id in self.members[user_id].roles:
            if role_id in overwrites and overwrites[role_id].get("type", 0) == 0:
                allow |= int(overwrites[role_id]["allow"])
                deny |= int(overwrites[role_id]["deny"])
        perms = (perms & ~deny) | allow
        own = overwrites.get(user_id)
        if own is not None and own.get("type") == 1:
            perms = (perms & ~int(own["deny"])) | int(own["allow"])
        return perms

    def can_read(self, user_id: int, channel: FakeChannel) -> bool:
        """Whether a member sees a channel's messages: View Channel and Read Message History there — for a thread,
        in its parent (a member who cannot view the parent sees none of its threads, private or not, even as a
        member of one)."""
        if user_id not in self.members:
            return False
        perms = self.channel_permissions(user_id, channel)
        return bool(perms & Perm.VIEW_CHANNEL and perms & Perm.READ_MESSAGE_HISTORY)

    def _require(self, channel: FakeChannel, *needed: int) -> None:
        """The bot must have every permission in `needed` in this guild channel or thread: 403 as Discord."""
        if not self.enforce_permissions or channel.guild_id is None:
            return
        perms = self.channel_permissions(self.bot_user.id, channel)
        if not perms & Perm.VIEW_CHANNEL:
            raise _HttpError(403, 50001, "Missing Access")
        if any(not perms & bit for bit in needed):
            raise _HttpError(403, 50013, "Missing Permissions")

    def hold_answers(self, method: str, path: str) -> asyncio.Event:
        """Requests of ``method`` whose path matches the regex ``path`` are carried out as Discord carries them,
        but each answer waits until the returned event is set: a slow network, where the bot waits for the answer
        to what Discord has already done."""
        gate = asyncio.Event()
        self._held_answers.append((method, re.compile(path), gate))
        return gate

    def rate_limit(self, path: str, *, retry_after: float = 0.05, times: int = 1, global_: bool = False) -> None:
        """The next ``times`` requests whose path matches the regex ``path`` get 429 with ``retry_after``
        and the rate-limit headers, as Discord sends them (behind its proxy: a ``Via`` header)."""
        self._rate_limits.extend((re.compile(path), retry_after, global_) for _ in range(times))

    def age_member_requests(self, seconds: float) -> None:
        """Move the last whole-member-list answers ``seconds`` into the past (past 30 s another is answered)."""
        for guild_id in self._full_list_sent:
            self._full_list_sent[guild_id] -= seconds

    def chunks_sent(self, nonce: str | None = None) -> list[dict[str, Any]]:
        """The GUILD_MEMBERS_CHUNK events sent (of one request, by its nonce), in order."""
        return [
            f.payload["d"]
            for f in self.gateway_sent
            if f.payload.get("t") == "GUILD_MEMBERS_CHUNK" and (nonce is None or f.payload["d"].get("nonce") == nonce)
        ]

    def age_interaction(self, interaction_id: int, seconds: float) -> None:
        """Move an interaction ``seconds`` into the past: past 15 minutes its token takes no more followups."""
        self.interactions[interaction_id].created -= seconds

    # ------------------------------------------------------------------ queries for assertions

    def messages_in(self, channel_id: int) -> list[dict[str, Any]]:
        """Non-ephemeral messages in a channel, thread or DM, oldest first, as stored now (edits applied)."""
        return [self.messages[mid] for mid in self._channel_messages.get(channel_id, [])]

    def message(self, message_id: int) -> dict[str, Any]:
        return self.messages[message_id]

    def ephemeral_messages(self, user_id: int | None = None) -> list[dict[str, Any]]:
        return [
            self.messages[mid] for mid, owner in self.ephemeral_owner.items() if user_id is None or owner == user_id
        ]

    def interaction(self, interaction_id: int) -> FakeInteraction:
        return self.interactions[interaction_id]

    def interaction_responses(self, interaction_id: int) -> list[dict[str, Any]]:
        """The callback bodies the client sent for an interaction and the fake accepted, in order."""
        return list(self.interactions[interaction_id].responses)

    def original_response(self, interaction_id: int) -> dict[str, Any] | None:
        ix = self.interactions[interaction_id]
        if ix.original_message_id is None:
            return None
        return self.messages[ix.original_message_id]

    def followups(self, interaction_id: int) -> list[dict[str, Any]]:
        return [self.messages[mid] for mid in self.interactions[interaction_id].followup_ids]

    def threads_in(self, parent_id: int) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.is_thread and c.parent_id == parent_id]

    def thread_members(self, thread_id: int) -> set[int]:
        return set(self.channels[thread_id].members)

    def dm_channel_id(self, user_id: int) -> int | None:
        return self._dm_channels.get(user_id)

    def requests_to(self, method: str, path_pattern: str) -> list[RecordedRequest]:
        """Recorded requests whose method matches and whose path (after /api/v10) fully matches the regex."""
        rx = re.compile(path_pattern)
        return [r for r in self.requests if r.method == method and rx.fullmatch(r.path)]

    def received_ops(self, op: int) -> list[dict[str, Any]]:
        return [f.payload for f in self.gateway_received if f.payload.get("op") == op]

    @property
    def connected(self) -> bool:
        return any(s.identified and not s.closed for s in self._sessions)

    def assert_clean(self) -> None:
        """Fail if the fake hit an internal error or the client called a route the fake does not serve."""
        problems = list(self.errors)
        problems += [f"unknown route {r.method} {r.path}" for r in self.unknown_requests]
        if problems:
            raise AssertionError("fake Discord saw problems:\n" + "\n".join(problems))

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(self, predicate: Callable[[], T | None], *, timeout: float = 5.0, what: str = "") -> T:
        """Wait (on the fake's own state changes, no polling) until predicate() is truthy; return it."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    result = predicate()
                    if result:
                        return result
                    await self._changed.wait()
        except TimeoutError:
            unknown = ", ".join(f"{r.method} {r.path}" for r in self.unknown_requests) or "none"
            raise AssertionError(
                f"timed out after {timeout}s waiting for {what or predicate!r}; "
                f"errors={self.errors!r}; unknown routes: {unknown}"
            ) from None

    async def wait_for_response(
        self, interaction_id: int, *, timeout: float = 5.0, settled: bool = True
    ) -> dict[str, Any]:
        """The first callback body the client sent for this interaction.

        With ``settled`` (the default) it also waits until the client's handler tasks have finished (see
        :func:`settle`), so what the handler does after acknowledging - storing the view or modal it just
        sent, sending followups - is done; pass ``settled=False`` when a handler is meant to stay blocked.
        """
        ix = self.interactions[interaction_id]
        await self.wait_until(lambda: ix.responses, timeout=timeout, what=f"a response to interaction {ix.id}")
        if settled:
            await settle(timeout=timeout)
        return ix.responses[0]

    async def wait_for_client(
        self,
        client: discord.Client,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        what: str = "",
    ) -> T:
        """Wait until predicate() - typically about the client's cache or the bot's own records - is truthy.

        Re-checked after the client's running handlers settle, after each gateway event the client receives
        and after each change in the fake; no polling, no sleeping.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await settle(timeout=max(0.0, deadline - loop.time()))
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate!r}")
            next_event = asyncio.ensure_future(client.wait_for("socket_event_type"))
            fake_change = asyncio.ensure_future(self._changed.wait())
            try:
                await asyncio.wait({next_event, fake_change}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in (next_event, fake_change):
                    waiter.cancel()
                await asyncio.gather(next_event, fake_change, return_exceptions=True)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[dict[str, Any]], bool] = lambda m: True,
        *,
        timeout: float = 5.0,
    ) -> dict[str, Any]:
        def find() -> dict[str, Any] | None:
            return next((m for m in self.messages_in(channel_id) if predicate(m)), None)

        found = await self.wait_until(find, timeout=timeout, what=f"a message in channel {channel_id}")
        assert found is not None
        return found

    async def wait_connected(self, *, timeout: float = 5.0) -> None:
        await self.wait_until(lambda: self.connected, timeout=timeout, what="an identified gateway connection")

    # ------------------------------------------------------------------ payload builders

    def _guild_payload(self, session: _Session) -> dict[str, Any]:
        presences_on = bool(session.intents & Intents.GUILD_PRESENCES)
        large = len(self.members) > session.large_threshold
        members = list(self.members.values())
        if not presences_on or len(members) > GUILD_CREATE_CAP:
            members = [self.members[self.bot_user.id]]
        elif large:  # only those online, with a role or a nickname (and the bot); the rest by op 8
            members = [m for m in members if m.status != "offline" or m.roles or m.nick or m.id == self.bot_user.id]
        presences = [m for m in members if m.status != "offline"] if large else members
        active_threads = [self._channel_payload(c) for c in self.channels.values() if c.is_thread and not c.archived]
        data: dict[str, Any] = {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_user.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": _now_iso(),
            "large": large,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [m.payload() for m in members],
            "channels": [
                self._channel_payload(c) for c in self.channels.values() if c.type not in _THREAD_TYPES and c.type != 1
            ],
            "threads": active_threads,
            "presences": [self._presence_payload(m) for m in presences] if presences_on else [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }
        return data

    def _presence_payload(self, member: FakeMember, activities: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        client_status = {} if member.status == "offline" else {"desktop": member.status}
        return {
            "user": {"id": str(member.id)},
            "guild_id": str(self.guild_id),
            "status": member.status,
            "activities": list(activities),
            "client_status": client_status,
        }

    def _channel_payload(self, c: FakeChannel) -> dict[str, Any]:
        if c.type == 1:
            assert c.recipient_id is not None
            return {
                "id": str(c.id),
                "type": 1,
                "last_message_id": str(c.last_message_id) if c.last_message_id else None,
                "recipients": [self.users[c.recipient_id].payload()],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(c.id),
            "type": c.type,
            "guild_id": str(self.guild_id),
            "name": c.name,
            "position": c.position,
            "permission_overwrites": c.permission_overwrites,
            "parent_id": str(c.parent_id) if c.parent_id else None,
            "flags": 0,
        }
        if c.type in _TEXTLIKE_TYPES:
            data |= {
                "topic": c.topic,
                "nsfw": False,
                "last_message_id": str(c.last_message_id) if c.last_message_id else None,
                "rate_limit_per_user": 0,
                "default_auto_archive_duration": 1440,
            }
        if c.is_thread:
            metadata: dict[str, Any] = {
                "archived": c.archived,
                "auto_archive_duration": c.auto_archive_duration,
                "archive_timestamp": c.archive_timestamp,
                "locked": c.locked,
                "create_timestamp": c.create_timestamp,
            }
            if c.type == 12:
                metadata["invitable"] = c.invitable
            del data["position"], data["permission_overwrites"]
            data |= {
                "owner_id": str(c.owner_id),
                "last_message_id": str(c.last_message_id) if c.last_message_id else None,
                "rate_limit_per_user": 0,
                "message_count": c.message_count,
                "total_message_sent": c.message_count,
                "member_count": len(c.members),
                "thread_metadata": metadata,
            }
        return data

    def _thread_member_payload(self, thread: FakeChannel, user_id: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(thread.id),
            "user_id": str(user_id),
            "join_timestamp": thread.members[user_id],
            "flags": 0,
        }
        if user_id in self.members:
            data["member"] = self.members[user_id].payload()
        return data

    def _application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": False,
            "bot_require_code_grant": False,
            "bot": self.bot_user.payload(),
            "owner": self.owner_user.payload(),
            "summary": "",
            "verify_key": "0" * 64,
            "team": None,
            "guild_id": None,
            "flags": self.application_flags(),
            "tags": [],
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "approximate_guild_count": 1,
        }

    def application_flags(self) -> int:
        """The application's flags as Discord reports them: each privileged intent turned on in the Developer
        Portal is its "limited" flag (a bot in fewer than 100 servers, as a club's is)."""
        flags = 0
        for intent, flag in ((Intents.GUILD_PRESENCES, 1 << 13), (Intents.GUILD_MEMBERS, 1 << 15)):
            if self.portal_intents & intent:
                flags |= flag
        if self.portal_intents & Intents.MESSAGE_CONTENT:
            flags |= 1 << 19
        return flags

    def _command_payload(
        self, body: dict[str, Any], guild_id: int | None, existing: dict[str, Any] | None
    ) -> dict[str, Any]:
        data = dict(body)
        data["id"] = existing["id"] if existing else str(self.snowflake())
        data["application_id"] = str(self.application_id)
        data["version"] = str(self.snowflake())
        data.setdefault("type", 1)
        data.setdefault("description", "")
        data.setdefault("options", [])
        data.setdefault("default_member_permissions", None)
        data.setdefault("nsfw", False)
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return data

    def _user_payload_with_member(self, user_id: int) -> dict[str, Any]:
        data = self.users[user_id].payload()
        if user_id in self.members:
            data["member"] = self.members[user_id].payload(with_user=False)
        return data

    # ------------------------------------------------------------------ message store

    def _compute_pings(self, content: str, allowed: dict[str, Any] | None) -> Pings:
        if allowed is None:
            allowed = {"parse": ["users", "roles", "everyone"]}
        parse = set(allowed.get("parse", []))
        explicit_users = {int(u) for u in allowed.get("users", [])}
        explicit_roles = {int(r) for r in allowed.get("roles", [])}
        in_users = {int(u) for u in _USER_MENTION.findall(content)}
        in_roles = {int(r) for r in _ROLE_MENTION.findall(content)}
        users = {u for u in in_users if ("users" in parse or u in explicit_users) and u in self.users}
        roles = {r for r in in_roles if ("roles" in parse or r in explicit_roles) and r in self.roles}
        everyone = ("@everyone" in content or "@here" in content) and "everyone" in parse
        return Pings(frozenset(users), frozenset(roles), everyone)

    def _validate_message_body(self, body: dict[str, Any], *, partial: bool) -> None:
        content = body.get("content")
        if content is not None and len(str(content)) > 2000:
            raise _invalid("content: must be 2000 or fewer in length")
        if not partial and not (
            content or body.get("embeds") or body.get("components") or body.get("poll") or body.get("_files")
        ):
            raise _HttpError(400, 50006, "Cannot send an empty message")
        self._validate_uploads(body)
        allowed = body.get("allowed_mentions")
        if allowed:
            parse = set(allowed.get("parse", []))
            if "users" in parse and allowed.get("users"):
                raise _invalid("allowed_mentions: parse:[users] and users: [ids] are mutually exclusive")
            if "roles" in parse and allowed.get("roles"):
                raise _invalid("allowed_mentions: parse:[roles] and roles: [ids] are mutually exclusive")
            if len(allowed.get("users", [])) > 100 or len(allowed.get("roles", [])) > 100:
                raise _invalid("allowed_mentions: at most 100 users and 100 roles")
        components = body.get("components")
        if components:
            self._validate_components(components, modal=False)

    def _validate_uploads(self, body: dict[str, Any]) -> None:
        """Discord's limits on files: at most 10 a message, each within the attachment size limit, each named;
        an embed may show only a file uploaded with it (``attachment://name``); at most 10 embeds."""
        files = body.get("_files") or []
        embeds = body.get("embeds") or []
        if len(embeds) > 10:
            raise _invalid("embeds: must be 10 or fewer in length")
        if len(files) > MAX_ATTACHMENTS:
            raise _invalid(f"files: must be {MAX_ATTACHMENTS} or fewer in length")
        names = set()
        for upload in files:
            if not re.fullmatch(r"files\[\d+\]", str(upload["field"])):
                raise _invalid(f"unexpected form field {upload['field']!r}")
            if not upload["filename"]:
                raise _invalid("files: a file must have a name")
            if len(upload["data"]) > ATTACHMENT_SIZE_LIMIT:
                raise _HttpError(413, 40005, "Request entity too large")
            names.add(upload["filename"])
        for embed in embeds:
            url = str((embed.get("image") or {}).get("url") or "")
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names:
                raise _invalid(f"embeds: {url} names no uploaded file")
        for listed in body.get("attachments") or []:
            if "filename" in listed and listed["filename"] not in names and "_files" in body:
                raise _invalid(f"attachments: {listed['filename']} was not uploaded")

    def _uploaded(self, channel_id: int, body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The message's attachments made from its uploads, and its embeds with ``attachment://`` resolved."""
        attachments: list[dict[str, Any]] = []
        urls: dict[str, str] = {}
        for upload in body.get("_files") or []:
            attachment_id = self.snowflake()
            data: bytes = upload["data"]
            url = f"https://cdn.discordapp.com/attachments/{channel_id}/{attachment_id}/{upload['filename']}"
            attachment: dict[str, Any] = {
                "id": str(attachment_id),
                "filename": upload["filename"],
                "size": len(data),
                "url": url,
                "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
                "content_type": upload["content_type"],
            }
            if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:  # Discord sniffs the type and size
                attachment["content_type"] = "image/png"
                attachment["width"] = int.from_bytes(data[16:20], "big")
                attachment["height"] = int.from_bytes(data[20:24], "big")
            self.uploads[attachment_id] = data
            urls[upload["filename"]] = url
            attachments.append(attachment)
        embeds = []
        for embed in body.get("embeds") or []:
            image = embed.get("image") or {}
            url = str(image.get("url") or "")
            if url.startswith("attachment://"):
                embed = {**embed, "image": {**image, "url": urls[url.removeprefix("attachment://")]}}
            embeds.append(embed)
        return attachments, embeds

    def _validate_components(self, components: list[dict[str, Any]], *, modal: bool) -> None:
        if len(components) > (5 if modal else 40):
            raise _invalid("components: too many top-level components")
        seen: set[str] = set()
        for comp in _walk_components(components):
            ctype = comp.get("type")
            custom_id = comp.get("custom_id")
            if custom_id is not None:
                if not 1 <= len(custom_id) <= 100:
                    raise _invalid(f"custom_id {custom_id!r}: must be 1 to 100 characters")
                if custom_id in seen:
                    raise _invalid(f"custom_id {custom_id!r}: component custom id cannot be duplicated")
                seen.add(custom_id)
            if ctype == 1 and len(comp.get("components", [])) > 5:
                raise _invalid("action row: at most 5 components")
            if ctype == 2:
                label = comp.get("label") or ""
                if len(label) > 80:
                    raise _invalid(f"button label {label!r}: must be 80 or fewer in length")
                if comp.get("style") == 5:
                    if not comp.get("url"):
                        raise _invalid("link button without url")
                elif comp.get("style") != 6 and custom_id is None:
                    raise _invalid("button without custom_id")
            if ctype == 4:
                if not modal:
                    raise _invalid("text inputs are only allowed in modals")
                if len(comp.get("label") or "") > 45:
                    raise _invalid("text input label: must be 45 or fewer in length")
            if ctype == 18 and len(comp.get("label") or "") > 45:
                raise _invalid("label: must be 45 or fewer in length")

    def _store_message(
        self,
        channel_id: int,
        author: FakeUser,
        body: dict[str, Any],
        *,
        ephemeral_for: int | None = None,
        interaction: FakeInteraction | None = None,
        extra_flags: int = 0,
        ping: bool = True,
    ) -> dict[str, Any]:
        content = str(body.get("content") or "")
        allowed = body.get("allowed_mentions")
        pings = (
            self._compute_pings(content, allowed)
            if ping and ephemeral_for is None
            else Pings(frozenset(), frozenset(), False)
        )
        msg_id = self.snowflake()
        channel = self.channels[channel_id]
        flags = int(body.get("flags") or 0) | extra_flags
        attachments, embeds = self._uploaded(channel_id, body)
        msg: dict[str, Any] = {
            "id": str(msg_id),
            "channel_id": str(channel_id),
            "type": 0,
            "author": author.payload(),
            "content": content,
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": bool(body.get("tts", False)),
            "mention_everyone": pings.everyone,
            "mentions": [self._user_payload_with_member(u) for u in sorted(pings.users)],
            "mention_roles": [str(r) for r in sorted(pings.roles)],
            "attachments": attachments,
            "embeds": embeds,
            "components": list(body.get("components") or []),
            "pinned": False,
            "flags": flags,
        }
        if channel.type != 1:
            msg["guild_id"] = str(self.guild_id)
            if not author.bot and author.id in self.members:
                msg["member"] = self.members[author.id].payload(with_user=False)
        if allowed is not None:
            msg["_allowed_mentions"] = allowed  # kept for assertions; stripped from what the client sees
        if "message_reference" in body:
            msg["message_reference"] = body["message_reference"]
        if interaction is not None:
            msg["webhook_id"] = str(self.application_id)
            msg["application_id"] = str(self.application_id)
            msg["type"] = 20 if interaction.type == 2 else 0
            msg["interaction_metadata"] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": self.users[interaction.user_id].payload(),
                "authorizing_integration_owners": {"0": str(self.guild_id)},
            }
        self.messages[msg_id] = msg
        if ephemeral_for is not None:
            self.ephemeral_owner[msg_id] = ephemeral_for
        else:
            self._channel_messages.setdefault(channel_id, []).append(msg_id)
            channel.last_message_id = msg_id
            if channel.is_thread:
                channel.message_count += 1
        self.pings[msg_id] = pings
        return msg

    def _apply_edit(self, msg: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        self._validate_message_body(body, partial=True)
        msg_id = int(msg["id"])
        self.edits.setdefault(msg_id, []).append(body)
        if body.get("_files"):
            attachments, embeds = self._uploaded(int(msg["channel_id"]), body)
            body = {k: v for k, v in body.items() if k != "_files"} | {"attachments": attachments, "embeds": embeds}
        for key in ("content", "embeds", "components", "attachments"):
            if key in body:
                value = body[key]
                msg[key] = ("" if value is None else value) if key == "content" else (value or [])
        if "flags" in body and body["flags"] is not None:
            # only SUPPRESS_EMBEDS may change; ephemeral / loading stay as they were
            keep = int(msg["flags"]) & ~(1 << 2)
            msg["flags"] = keep | (int(body["flags"]) & (1 << 2))
        if "allowed_mentions" in body:
            msg["_allowed_mentions"] = body["allowed_mentions"]
        # an edit never notifies anybody, but the message's mention fields follow the new content
        pings = self._compute_pings(str(msg["content"]), msg.get("_allowed_mentions"))
        msg["mentions"] = [self._user_payload_with_member(u) for u in sorted(pings.users)]
        msg["mention_roles"] = [str(r) for r in sorted(pings.roles)]
        msg["mention_everyone"] = pings.everyone
        msg["edited_timestamp"] = _now_iso()
        return msg

    def _visible(self, msg: dict[str, Any], *, content_allowed: bool) -> dict[str, Any]:
        """The message as the bot receives it (content blanked without the MESSAGE_CONTENT intent)."""
        data = {k: v for k, v in msg.items() if not k.startswith("_")}
        if content_allowed:
            return data
        author_id = int(msg["author"]["id"])
        mentioned = any(int(u["id"]) == self.bot_user.id for u in msg["mentions"])
        in_dm = "guild_id" not in msg
        if author_id == self.bot_user.id or mentioned or in_dm:
            return data
        data |= {"content": "", "embeds": [], "attachments": [], "components": []}
        data.pop("poll", None)
        return data

    def _rest_visible(self, msg: dict[str, Any]) -> dict[str, Any]:
        return self._visible(msg, content_allowed=bool(self.portal_intents & Intents.MESSAGE_CONTENT))

    # ------------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return await self._rest(request)
        self.gateway_queries.append(dict(request.query))
        compress = request.query.get("compress")
        encoding = request.query.get("encoding", "json")
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self._connections += 1
        if encoding != "json" or compress not in (None, "zlib-stream", "zstd-stream"):
            self.errors.append(f"gateway: unsupported encoding={encoding} compress={compress}")
            await ws.close(code=4002, message=b"unsupported encoding/compression")
            return ws
        session = _Session(self._connections, ws, _Compressor(compress))
        self._sessions.append(session)
        try:
            await self._send(session, {"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    payload = json.loads(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    payload = json.loads(msg.data.decode("utf-8"))
                else:
                    break
                self.gateway_received.append(GatewayFrame(session.number, payload))
                try:
                    await self._handle_op(session, payload)
                except Exception:
                    self.errors.append("gateway: " + traceback.format_exc())
                self._notify()
        finally:
            session.closed = True
            if session in self._sessions:
                self._sessions.remove(session)
            self._notify()
        return ws

    async def _handle_op(self, session: _Session, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        data: dict[str, Any] = payload.get("d") or {}
        if op == 1:
            await self._send(session, {"op": 11})
        elif op == 2:
            await self._identify(session, data)
        elif op == 6:
            await self._resume(session, data)
        elif op == 8:
            await self._request_members(session, data)
        elif op in (3, 4):
            return  # presence / voice state updates: recorded only
        else:
            self.errors.append(f"gateway: unexpected op {op}: {payload!r}")

    async def _identify(self, session: _Session, data: dict[str, Any]) -> None:
        self.identifies.append(data)
        if data.get("token") != self.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        if "intents" not in data:
            await session.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        intents = int(data["intents"])
        privileged = sum(Intents.PRIVILEGED.values())
        if intents & privileged & ~self.portal_intents:
            await session.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        session.intents = intents
        least, most, default = LARGE_THRESHOLD
        session.large_threshold = min(most, max(least, int(data.get("large_threshold") or default)))
        session.session_id = secrets.token_hex(16)
        self._known_sessions[session.session_id] = intents
        session.identified = True
        ready = {
            "v": 10,
            "user": self.bot_user.payload() | {"verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(self.guild_id), "unavailable": True}],
            "session_id": session.session_id,
            "resume_gateway_url": self.gateway_url,
            "session_type": "normal",
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "application": {"id": str(self.application_id), "flags": 0},
            "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        await self._send_dispatch(session, "READY", ready)
        if intents & Intents.GUILDS:
            await self._send_dispatch(session, "GUILD_CREATE", self._guild_payload(session))

    async def _resume(self, session: _Session, data: dict[str, Any]) -> None:
        sid = data.get("session_id")
        if data.get("token") != self.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        if sid not in self._known_sessions:
            await self._send(session, {"op": 9, "d": False})
            return
        session.session_id = sid
        session.intents = self._known_sessions[sid]
        session.seq = int(data.get("seq") or 0)
        session.identified = True
        await self._send_dispatch(session, "RESUMED", {"_trace": ["fake-discord"]})
        for event, payload in self._missed.pop(sid, []):  # what happened while it was away, in order
            await self._send_dispatch(session, event, payload)

    async def _request_members(self, session: _Session, data: dict[str, Any]) -> None:
        """Request Guild Members (op 8), answered as Discord answers it (see the module's docstring)."""
        guild_id = data.get("guild_id")
        if isinstance(guild_id, list):  # one guild per request: Discord answers the first only
            guild_id = guild_id[0] if guild_id else None
        user_ids = data.get("user_ids")
        query = data.get("query")
        limit = data.get("limit")
        why = None
        if str(guild_id) != str(self.guild_id):
            why = "not the bot's guild"
        elif user_ids is None and query is None:
            why = "neither query nor user_ids"
        elif user_ids is None and not isinstance(limit, int):
            why = "a query without a limit"
        elif user_ids is None and query == "" and not session.intents & Intents.GUILD_MEMBERS:
            why = "the whole member list without the GUILD_MEMBERS intent"
        if why is not None:
            self.unanswered_member_requests.append((data, why))
            return
        nonce = data.get("nonce")
        if not isinstance(nonce, str) or len(nonce.encode()) > NONCE_BYTES:
            nonce = None
        members = list(self.members.values())
        not_found: list[str] = []
        if user_ids is not None:
            wanted = [int(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])]
            members = [self.members[u] for u in wanted if u in self.members][:MEMBERS_PER_QUERY]
            not_found = [str(u) for u in wanted if u not in self.members]
        elif query:
            prefix = str(query).lower()
            members = [m for m in members if m.user.username.lower().startswith(prefix)]
            members = members[: min(int(limit or MEMBERS_PER_QUERY), MEMBERS_PER_QUERY)]
        elif limit:  # an empty query with a limit: the first `limit` members
            members = members[: int(limit)]
        else:  # the whole list: answered once per guild in FULL_LIST_EVERY seconds
            now = time.monotonic()
            last = self._full_list_sent.get(self.guild_id)
            if last is not None and now - last < FULL_LIST_EVERY:
                meta: dict[str, Any] = {"guild_id": str(self.guild_id)}
                if nonce is not None:
                    meta["nonce"] = nonce
                retry = round(FULL_LIST_EVERY - (now - last), 3)
                await self._send_dispatch(session, "RATE_LIMITED", {"opcode": 8, "retry_after": retry, "meta": meta})
                return
            self._full_list_sent[self.guild_id] = now
        presences = bool(data.get("presences")) and bool(session.intents & Intents.GUILD_PRESENCES)
        parts = [members[i : i + MEMBERS_PER_CHUNK] for i in range(0, len(members), MEMBERS_PER_CHUNK)] or [[]]
        for index, part in enumerate(parts):
            chunk: dict[str, Any] = {
                "guild_id": str(self.guild_id),
                "members": [m.payload() for m in part],
                "chunk_index": index,
                "chunk_count": len(parts),
            }
            if not_found and index == 0:
                chunk["not_found"] = not_found
            if presences:
                chunk["presences"] = [self._presence_payload(m) for m in part if m.status != "offline"]
            if nonce is not None:
                chunk["nonce"] = nonce
            await self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send(self, session: _Session, payload: dict[str, Any], *, event: str | None = None) -> bool:
        async with session.lock:
            if session.closed or session.ws.closed:
                return False
            if event is not None:
                session.seq += 1
                payload = {"op": 0, "t": event, "s": session.seq, "d": payload}
            else:
                payload = {"t": None, "s": None} | payload
            encoded = session.compressor.encode(json.dumps(payload))
            try:
                if isinstance(encoded, bytes):
                    await session.ws.send_bytes(encoded)
                else:
                    await session.ws.send_str(encoded)
            except ConnectionError:
                session.closed = True
                return False
            self.gateway_sent.append(GatewayFrame(session.number, payload))
            return True

    async def _send_dispatch(self, session: _Session, event: str, data: Any) -> bool:
        return await self._send(session, data, event=event)

    def _event_allowed(self, session: _Session, event: str, data: Any) -> bool:
        intents = session.intents
        if event in ("INTERACTION_CREATE", "READY", "RESUMED", "GUILD_MEMBERS_CHUNK"):
            return True
        if event.startswith(("GUILD_MEMBER_", "GUILD_MEMBERS")):
            return bool(intents & Intents.GUILD_MEMBERS)
        if event == "THREAD_MEMBERS_UPDATE":
            if intents & Intents.GUILD_MEMBERS:
                return True
            touched = [m.get("user_id") for m in data.get("added_members", [])]
            touched += data.get("removed_member_ids", [])
            return bool(intents & Intents.GUILDS) and str(self.bot_user.id) in [str(t) for t in touched]
        if event == "PRESENCE_UPDATE":
            return bool(intents & Intents.GUILD_PRESENCES)
        if event.startswith("MESSAGE_"):
            in_guild = isinstance(data, dict) and "guild_id" in data
            return bool(intents & (Intents.GUILD_MESSAGES if in_guild else Intents.DIRECT_MESSAGES))
        if event.startswith(("GUILD_", "CHANNEL_", "THREAD_")):
            return bool(intents & Intents.GUILDS)
        return True

    async def dispatch(self, event: str, data: Any) -> int:
        """Send a DISPATCH event to every identified connection whose intents allow it; return how many. A
        session whose connection dropped gets it replayed when it resumes (as Discord replays missed events)."""
        delivered = 0
        live = {s.session_id for s in self._sessions if s.identified and not s.closed}
        for sid, intents in self._known_sessions.items():
            if sid not in live and event not in ("READY", "RESUMED", "INTERACTION_CREATE"):
                away = _Session(0, None, None, intents=intents)  # type: ignore[arg-type]
                if self._event_allowed(away, event, data):
                    payload = data
                    if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and isinstance(data, dict) and "id" in data:
                        payload = self._visible(data, content_allowed=bool(intents & Intents.MESSAGE_CONTENT))
                    self._missed.setdefault(sid, []).append((event, payload))
        for session in list(self._sessions):
            if not session.identified or session.closed:
                continue
            if not self._event_allowed(session, event, data):
                self.dropped_events.append((session.number, event, data))
                continue
            payload = data
            if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and isinstance(data, dict) and "id" in data:
                payload = self._visible(data, content_allowed=bool(session.intents & Intents.MESSAGE_CONTENT))
            if await self._send_dispatch(session, event, payload):
                delivered += 1
        self._notify()
        return delivered

    async def _echo(self, event: str, data: Any) -> None:
        if self.echo_events:
            await self.dispatch(event, data)

    async def disconnect_clients(self, code: int = 4000) -> None:
        """Close every gateway connection from the server side (the client will try to RESUME)."""
        for session in list(self._sessions):
            session.closed = True
            await session.ws.close(code=code, message=b"fake discord disconnect")

    # ------------------------------------------------------------------ test-side drivers

    async def set_presence(self, user_id: int, status: str, activities: Sequence[dict[str, Any]] = ()) -> int:
        """Change a member's status ("online", "idle", "dnd", "offline") and send PRESENCE_UPDATE."""
        member = self.members[user_id]
        member.status = status
        return await self.dispatch("PRESENCE_UPDATE", self._presence_payload(member, activities))

    async def set_roles(self, user_id: int, roles: Sequence[int]) -> int:
        """Replace a member's roles (as an admin would) and send GUILD_MEMBER_UPDATE."""
        member = self.members[user_id]
        for role_id in roles:
            if role_id not in self.roles:
                raise FakeDiscordError(f"unknown role {role_id}")
        member.roles = list(roles)
        return await self.dispatch("GUILD_MEMBER_UPDATE", member.payload() | {"guild_id": str(self.guild_id)})

    async def set_overwrites(self, channel: FakeChannel, overwrites: Sequence[dict[str, Any]]) -> int:
        """Replace a channel's permission overwrites (as an admin would in Edit Channel → Permissions) and send
        CHANNEL_UPDATE, as Discord tells every client of the server."""
        channel.permission_overwrites = [dict(o) for o in overwrites]
        return await self.dispatch("CHANNEL_UPDATE", self._channel_payload(channel))

    async def member_join(self, username: str, *, roles: Sequence[int] = (), status: str = "online") -> FakeMember:
        member = self.add_member(username, roles=roles, status=status)
        await self.dispatch("GUILD_MEMBER_ADD", member.payload() | {"guild_id": str(self.guild_id)})
        return member

    async def member_return(self, user_id: int) -> FakeMember:
        """A user who left comes back to the server (no roles, as Discord gives a new member): GUILD_MEMBER_ADD."""
        if user_id in self.members:
            raise FakeDiscordError(f"user {user_id} is a member already")
        member = self._add_member(self.users[user_id], roles=[], status="online")
        await self.dispatch("GUILD_MEMBER_ADD", member.payload() | {"guild_id": str(self.guild_id)})
        return member

    async def member_leave(self, user_id: int) -> int:
        """The member leaves the server: dropped from the guild and its threads, GUILD_MEMBER_REMOVE sent."""
        self.members.pop(user_id)
        for channel in self.channels.values():
            channel.members.pop(user_id, None)
        return await self.dispatch(
            "GUILD_MEMBER_REMOVE", {"guild_id": str(self.guild_id), "user": self.users[user_id].payload()}
        )

    async def user_message(self, user_id: int, channel_id: int, content: str) -> dict[str, Any]:
        """A member types a message in a channel, thread or DM; stored and sent as MESSAGE_CREATE."""
        channel = self.channels[channel_id]
        if channel.is_thread and channel.type == 12 and user_id not in channel.members:
            raise FakeDiscordError(f"user {user_id} is not a member of private thread {channel_id}")
        if channel.is_thread and not self.can_read(user_id, channel):
            raise FakeDiscordError(f"user {user_id} cannot view the parent channel of thread {channel_id}")
        if channel.is_thread and channel.locked:
            raise FakeDiscordError(f"thread {channel_id} is locked")
        if channel.is_thread and channel.archived:
            channel.archived = False  # a member posting unarchives an unlocked thread
            await self._echo("THREAD_UPDATE", self._channel_payload(channel))
        msg = self._store_message(channel_id, self.users[user_id], {"content": content})
        await self.dispatch("MESSAGE_CREATE", msg)
        return msg

    async def thread_member_leave(self, thread_id: int, user_id: int) -> int:
        """A member leaves a thread by himself; THREAD_MEMBERS_UPDATE with removed_member_ids is sent."""
        thread = self.channels[thread_id]
        if thread.members.pop(user_id, None) is None:
            raise FakeDiscordError(f"user {user_id} is not in thread {thread_id}")
        return await self.dispatch(
            "THREAD_MEMBERS_UPDATE",
            {
                "id": str(thread.id),
                "guild_id": str(self.guild_id),
                "member_count": len(thread.members),
                "removed_member_ids": [str(user_id)],
            },
        )

    def _new_interaction(
        self,
        type_: int,
        user_id: int,
        channel_id: int,
        data: dict[str, Any],
        *,
        message: dict[str, Any] | None = None,
    ) -> FakeInteraction:
        channel = self.channels[channel_id]
        interaction_id = self.snowflake()
        token = "fake-ix-" + secrets.token_urlsafe(24)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": type_,
            "data": data,
            "channel_id": str(channel_id),
            "channel": self._channel_payload(channel),
            "token": token,
            "version": 1,
            "app_permissions": str(self.member_permissions(self.bot_user.id)),
            "locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)} if channel.type != 1 else {},
            "context": 0 if channel.type != 1 else 1,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if channel.type == 1:
            payload["user"] = self.users[user_id].payload()
        else:
            member = self.members.get(user_id)
            if member is None:
                raise FakeDiscordError(f"user {user_id} is not a member of the guild")
            payload["guild_id"] = str(self.guild_id)
            payload["guild"] = {"id": str(self.guild_id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["locale"] = member.locale
            payload["member"] = member.payload() | {"permissions": str(self.member_permissions(user_id))}
        if message is not None:
            payload["message"] = self._visible(message, content_allowed=True)
        ix = FakeInteraction(
            id=interaction_id,
            token=token,
            type=type_,
            user_id=user_id,
            channel_id=channel_id,
            guild_id=self.guild_id if channel.type != 1 else None,
            data=data,
            payload=payload,
            created=asyncio.get_running_loop().time(),
            message_id=int(message["id"]) if message is not None else None,
        )
        self.interactions[ix.id] = ix
        self._interactions_by_token[token] = ix
        return ix

    def _find_command(self, name: str) -> tuple[dict[str, Any], bool]:
        if name in self.guild_commands:
            return self.guild_commands[name], True
        if name in self.global_commands:
            return self.global_commands[name], False
        registered = sorted(set(self.guild_commands) | set(self.global_commands))
        raise FakeDiscordError(f"/{name} is not registered with the fake (registered: {registered})")

    def _command_data(
        self,
        command: str,
        options: Mapping[str, Any] | None,
        *,
        focused: str | None = None,
        validate: bool = True,
    ) -> dict[str, Any]:
        words = command.split()
        schema, in_guild = self._find_command(words[0])
        data: dict[str, Any] = {"id": schema["id"], "name": schema["name"], "type": schema.get("type", 1)}
        if in_guild:
            data["guild_id"] = str(self.guild_id)
        resolved: dict[str, dict[str, Any]] = {}
        leaf_options: list[dict[str, Any]] = []
        container = data
        level = schema
        for word in words[1:]:
            sub = next((o for o in level.get("options", []) if o["name"] == word and o.get("type") in (1, 2)), None)
            if sub is None:
                raise FakeDiscordError(f"/{command}: no subcommand {word!r}")
            node: dict[str, Any] = {"name": word, "type": sub["type"], "options": []}
            container.setdefault("options", []).append(node)
            container = node
            level = sub
        given = dict(options or {})
        for opt in level.get("options", []):
            if opt.get("type") in (1, 2):
                raise FakeDiscordError(f"/{command} needs a subcommand")
            name = opt["name"]
            if name not in given:
                if validate and opt.get("required") and name != focused:
                    raise FakeDiscordError(f"/{command}: required option {name!r} missing")
                continue
            raw = given.pop(name)
            entry: dict[str, Any] = {"name": name, "type": opt["type"]}
            if name == focused:
                entry["value"] = str(raw)
                entry["focused"] = True
                if validate and not opt.get("autocomplete"):
                    raise FakeDiscordError(f"/{command}: option {name!r} has no autocomplete")
            else:
                entry["value"] = self._option_value(opt, raw, resolved, validate=validate)
            leaf_options.append(entry)
        if given:
            raise FakeDiscordError(f"/{command}: unknown options {sorted(given)}")
        container["options"] = leaf_options
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self, opt: dict[str, Any], raw: Any, resolved: dict[str, dict[str, Any]], *, validate: bool
    ) -> Any:
        otype = opt["type"]
        value: Any
        if otype == 3:
            value = str(raw)
        elif otype == 4:
            value = int(raw)
        elif otype == 5:
            value = bool(raw)
        elif otype == 10:
            value = float(raw)
        elif otype in (6, 9) and int(raw) in self.users:
            uid = int(raw)
            resolved.setdefault("users", {})[str(uid)] = self.users[uid].payload()
            if uid in self.members:
                member_payload = self.members[uid].payload(with_user=False)
                member_payload["permissions"] = str(self.member_permissions(uid))
                resolved.setdefault("members", {})[str(uid)] = member_payload
            value = str(uid)
        elif otype in (8, 9) and int(raw) in self.roles:
            resolved.setdefault("roles", {})[str(int(raw))] = self.roles[int(raw)].payload()
            value = str(int(raw))
        elif otype == 11 and isinstance(raw, tuple):
            # An attachment option: (file name, bytes, media type), uploaded by the member; the interaction's
            # `resolved` describes it with a URL the fake serves (Discord's CDN), as the client reads it.
            filename, data, content_type = raw
            attachment_id = self.snowflake()
            self.uploads[attachment_id] = data
            url = f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{filename}"
            resolved.setdefault("attachments", {})[str(attachment_id)] = {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(data),
                "url": url,
                "proxy_url": url,
                "content_type": content_type,
            }
            value = str(attachment_id)
        elif otype == 7 and int(raw) in self.channels:
            channel = self.channels[int(raw)]
            resolved.setdefault("channels", {})[str(channel.id)] = self._channel_payload(channel) | {
                "permissions": str(self.member_permissions(self.bot_user.id))
            }
            value = str(channel.id)
        else:
            raise FakeDiscordError(f"option {opt['name']!r} (type {otype}) cannot take {raw!r}")
        choices = opt.get("choices")
        if validate and choices and value not in [c["value"] for c in choices]:
            raise FakeDiscordError(f"option {opt['name']!r}: {value!r} is not one of the choices")
        return value

    async def slash(
        self,
        user_id: int,
        command: str,
        options: Mapping[str, Any] | None = None,
        *,
        channel_id: int | None = None,
        validate: bool = True,
    ) -> FakeInteraction:
        """A member runs a registered slash command ("name" or "name sub"); INTERACTION_CREATE type 2 is sent.

        Options are given by name; values are coerced to the registered option type (users, roles and
        channels by id, with ``resolved`` filled in).  The command must have been synced by the client.
        """
        data = self._command_data(command, options, validate=validate)
        ix = self._new_interaction(2, user_id, channel_id or self.general.id, data)
        await self.dispatch("INTERACTION_CREATE", ix.payload)
        return ix

    async def autocomplete(
        self,
        user_id: int,
        command: str,
        focused: str,
        typed: str,
        other_options: Mapping[str, Any] | None = None,
        *,
        channel_id: int | None = None,
    ) -> FakeInteraction:
        """A member is typing ``typed`` into option ``focused``; INTERACTION_CREATE type 4 is sent."""
        options = dict(other_options or {})
        options[focused] = typed
        data = self._command_data(command, options, focused=focused, validate=True)
        ix = self._new_interaction(4, user_id, channel_id or self.general.id, data)
        await self.dispatch("INTERACTION_CREATE", ix.payload)
        return ix

    async def press(
        self, user_id: int, message_id: int, custom_id: str, *, values: Sequence[str] | None = None
    ) -> FakeInteraction:
        """A member presses a button (or picks ``values`` in a select) on a stored message."""
        msg = self.messages.get(message_id)
        if msg is None:
            raise FakeDiscordError(f"no message {message_id}")
        owner = self.ephemeral_owner.get(message_id)
        if owner is not None and owner != user_id:
            raise FakeDiscordError(f"user {user_id} cannot see ephemeral message {message_id}")
        channel_id = int(msg["channel_id"])
        channel = self.channels[channel_id]
        if channel.is_thread and channel.type == 12 and user_id not in channel.members and owner is None:
            raise FakeDiscordError(f"user {user_id} cannot see private thread {channel_id}")
        if channel.is_thread and owner is None and not self.can_read(user_id, channel):
            raise FakeDiscordError(f"user {user_id} cannot view the parent channel of thread {channel_id}")
        comp = next((c for c in _walk_components(msg["components"]) if c.get("custom_id") == custom_id), None)
        if comp is None:
            ids = [c.get("custom_id") for c in _walk_components(msg["components"]) if c.get("custom_id")]
            raise FakeDiscordError(f"message {message_id} has no component {custom_id!r} (has {ids})")
        if comp.get("disabled"):
            raise FakeDiscordError(f"component {custom_id!r} on message {message_id} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": comp["type"]}
        if "id" in comp:
            data["id"] = comp["id"]
        if comp["type"] in _SELECT_TYPES:
            data["values"] = list(values or [])
        elif values is not None:
            raise FakeDiscordError("values are only for selects")
        ix = self._new_interaction(3, user_id, channel_id, data, message=msg)
        await self.dispatch("INTERACTION_CREATE", ix.payload)
        return ix

    async def submit_modal(
        self, origin_interaction_id: int, values: Mapping[str, str | Sequence[str]]
    ) -> FakeInteraction:
        """The member who got a modal (callback type 9) fills it in and submits; INTERACTION_CREATE type 5."""
        origin = self.interactions[origin_interaction_id]
        if origin.modal is None:
            raise FakeDiscordError(f"interaction {origin_interaction_id} did not answer with a modal")
        remaining = dict(values)
        components = [c for c in (_submitted(comp, remaining) for comp in origin.modal.get("components", [])) if c]
        if remaining:
            raise FakeDiscordError(f"modal {origin.modal.get('custom_id')!r} has no fields {sorted(remaining)}")
        data = {"custom_id": origin.modal["custom_id"], "components": components}
        message = self.messages.get(origin.message_id) if origin.message_id is not None else None
        ix = self._new_interaction(5, origin.user_id, origin.channel_id, data, message=message)
        await self.dispatch("INTERACTION_CREATE", ix.payload)
        return ix

    def expire_interaction(self, interaction_id: int) -> None:
        """Make the interaction's token stale, as if the 3 s acknowledgement window had passed."""
        self.interactions[interaction_id].expired = True

    # ------------------------------------------------------------------ REST plumbing

    def _route(self, method: str, pattern: str, handler: _Handler) -> None:
        self._routes.append((method, re.compile(pattern), handler))

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        raw_path = request.path
        path = raw_path[len(API_PREFIX) :] if raw_path.startswith(API_PREFIX) else raw_path
        body = await _read_body(request)
        record = RecordedRequest(request.method, path, dict(request.query), body)
        self.requests.append(record)
        status: int
        result: JSON
        if request.method == "GET" and raw_path.startswith("/attachments/"):  # the CDN: an uploaded file's bytes
            attachment_id = int(raw_path.split("/")[2])
            self.downloads.append(attachment_id)
            return (
                web.Response(body=self.uploads[attachment_id])
                if attachment_id in self.uploads
                else web.Response(status=404)
            )
        try:
            handler, params = self._match(request.method, path)
            if handler is None:
                self.unknown_requests.append(record)
                raise _HttpError(404, 0, "404: Not Found")
            if not (path.startswith(("/webhooks/", "/interactions/"))) and (
                request.headers.get("Authorization") != f"Bot {self.token}"
            ):
                raise _HttpError(401, 0, "401: Unauthorized")
            limited = next((i for i, (rx, _, _) in enumerate(self._rate_limits) if rx.search(path)), None)
            if limited is not None:
                _, retry_after, global_ = self._rate_limits.pop(limited)
                return self._too_many(record, retry_after, global_)
            status, result = await handler(request, params, body)
        except _HttpError as err:
            status, result = err.status, err.body()
        except Exception as exc:
            self.errors.append(f"{request.method} {path}: " + traceback.format_exc())
            status, result = 400, {"message": f"fake discord internal error: {exc!r}", "code": 0}
        record.status = status
        record.response = result
        self._notify()
        for method, rx, gate in self._held_answers:
            if method == request.method and rx.search(path):
                await gate.wait()
        if status == 204:
            return web.Response(status=204)
        # exactly "application/json": discord.py only decodes a body whose content-type is that string
        return web.Response(
            body=json.dumps(result).encode("utf-8"),
            status=status,
            headers={"Content-Type": "application/json"},
        )

    def _too_many(self, record: RecordedRequest, retry_after: float, global_: bool) -> web.Response:
        result = {"message": "You are being rate limited.", "retry_after": retry_after, "global": global_, "code": 0}
        record.status, record.response = 429, result
        self._notify()
        headers = {
            "Content-Type": "application/json",
            "Via": "1.1 google",
            "Retry-After": str(int(retry_after) + 1),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": "fakebucket",
            "X-RateLimit-Scope": "global" if global_ else "user",
        }
        if global_:
            headers["X-RateLimit-Global"] = "true"
        return web.Response(body=json.dumps(result).encode("utf-8"), status=429, headers=headers)

    def _match(self, method: str, path: str) -> tuple[_Handler | None, dict[str, str]]:
        for route_method, rx, handler in self._routes:
            if route_method == method:
                m = rx.fullmatch(path)
                if m:
                    return handler, m.groupdict()
        return None, {}

    def _install_routes(self) -> None:
        r = self._route
        app = str(self.application_id)
        r("GET", r"/users/@me", self._get_me)
        r("GET", r"/users/(?P<user_id>\d+)", self._get_user)
        r("GET", r"/oauth2/applications/@me", self._get_application)
        r("GET", r"/applications/@me", self._get_application)
        r("GET", r"/gateway/bot", self._get_gateway_bot)
        r("GET", r"/gateway", self._get_gateway)
        r("PUT", rf"/applications/{app}/commands", self._put_global_commands)
        r("GET", rf"/applications/{app}/commands", self._get_global_commands)
        r("PUT", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", self._put_guild_commands)
        r("GET", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", self._get_guild_commands)
        r("GET", r"/guilds/(?P<guild_id>\d+)", self._get_guild)
        r("GET", r"/guilds/(?P<guild_id>\d+)/channels", self._get_guild_channels)
        r("GET", r"/guilds/(?P<guild_id>\d+)/roles", self._get_guild_roles)
        r("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", self._get_member)
        member_role = r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)/roles/(?P<role_id>\d+)"
        r("PATCH", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", self._patch_member)
        r("PUT", member_role, self._put_member_role)
        r("DELETE", member_role, self._delete_member_role)
        r("GET", r"/guilds/(?P<guild_id>\d+)/threads/active", self._get_active_threads)
        r("GET", r"/channels/(?P<channel_id>\d+)", self._get_channel)
        r("PATCH", r"/channels/(?P<channel_id>\d+)", self._patch_channel)
        r("POST", r"/channels/(?P<channel_id>\d+)/typing", self._typing)
        r("GET", r"/channels/(?P<channel_id>\d+)/messages", self._get_messages)
        r("POST", r"/channels/(?P<channel_id>\d+)/messages", self._post_message)
        r("GET", r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)", self._get_message)
        r("PATCH", r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)", self._patch_message)
        r("DELETE", r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)", self._delete_message)
        r("POST", r"/channels/(?P<channel_id>\d+)/threads", self._post_thread)
        r("POST", r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)/threads", self._post_thread)
        r("GET", r"/channels/(?P<channel_id>\d+)/threads/archived/private", self._get_archived_private)
        r("GET", r"/channels/(?P<channel_id>\d+)/thread-members", self._get_thread_members)
        r(
            "PUT",
            r"/channels/(?P<channel_id>\d+)/thread-members/(?P<user_id>\d+|@me)",
            self._put_thread_member,
        )
        r(
            "DELETE",
            r"/channels/(?P<channel_id>\d+)/thread-members/(?P<user_id>\d+|@me)",
            self._delete_thread_member,
        )
        r("POST", r"/users/@me/channels", self._open_dm)
        r("POST", r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback", self._callback)
        r("POST", r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)", self._post_followup)
        r(
            "GET",
            r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>\d+|@original)",
            self._get_webhook_message,
        )
        r(
            "PATCH",
            r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>\d+|@original)",
            self._patch_webhook_message,
        )
        r(
            "DELETE",
            r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>\d+|@original)",
            self._delete_webhook_message,
        )

    # ------------------------------------------------------------------ REST: identity and application

    async def _get_me(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, self.bot_user.payload() | {"verified": True, "mfa_enabled": False, "flags": 0}

    async def _get_user(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        user = self.users.get(int(p["user_id"]))
        if user is None:
            raise _HttpError(404, 10013, "Unknown User")
        return 200, user.payload()

    async def _get_application(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, self._application_payload()

    async def _get_gateway_bot(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        limit = {"total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1}
        return 200, {"url": self.gateway_url, "shards": 1, "session_start_limit": limit}

    async def _get_gateway(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, {"url": self.gateway_url}

    def _check_guild(self, p: dict[str, str]) -> None:
        if int(p["guild_id"]) != self.guild_id:
            raise _HttpError(404, 10004, "Unknown Guild")

    def _replace_commands(
        self, store: dict[str, dict[str, Any]], body: JSON, guild_id: int | None
    ) -> list[dict[str, Any]]:
        if not isinstance(body, list):
            raise _invalid("expected a list of commands")
        if len(body) > 100:
            raise _invalid("at most 100 commands")
        names: set[tuple[str, int]] = set()
        new: dict[str, dict[str, Any]] = {}
        for cmd in body:
            name = cmd.get("name", "")
            key = (name, int(cmd.get("type", 1)))
            if key in names:
                raise _invalid(f"duplicate command name {name!r}")
            names.add(key)
            if int(cmd.get("type", 1)) == 1 and not re.fullmatch(r"[-_\w]{1,32}", name):
                raise _invalid(f"invalid command name {name!r}")
            if int(cmd.get("type", 1)) == 1 and not 1 <= len(cmd.get("description", "")) <= 100:
                raise _invalid(f"command {name!r}: description must be 1-100 characters")
            new[name] = self._command_payload(cmd, guild_id, store.get(name))
        store.clear()
        store.update(new)
        return list(new.values())

    async def _put_global_commands(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, self._replace_commands(self.global_commands, body, None)

    async def _get_global_commands(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, list(self.global_commands.values())

    async def _put_guild_commands(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        return 200, self._replace_commands(self.guild_commands, body, self.guild_id)

    async def _get_guild_commands(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        return 200, list(self.guild_commands.values())

    # ------------------------------------------------------------------ REST: guild

    async def _get_guild(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        data = {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "icon": None,
            "owner_id": str(self.owner_user.id),
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "system_channel_flags": 0,
        }
        return 200, data

    async def _get_guild_channels(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        return 200, [
            self._channel_payload(c) for c in self.channels.values() if c.type not in _THREAD_TYPES and c.type != 1
        ]

    async def _get_guild_roles(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        return 200, [r.payload() for r in self.roles.values()]

    async def _get_member(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        member = self.members.get(int(p["user_id"]))
        if member is None:
            raise _HttpError(404, 10007, "Unknown Member")
        return 200, member.payload()

    def top_role(self, user_id: int) -> FakeRole:
        """A member's highest role (position, then the older id), @everyone when he has none."""
        held = [self.roles[r] for r in self.members[user_id].roles if r in self.roles]
        return max(held, key=lambda r: (r.position, -r.id), default=self.roles[self.guild_id])

    def _may_manage(self, role: FakeRole) -> None:
        """Discord's rule for giving or taking a role: Manage Roles (or Administrator), and the role strictly
        below the bot's highest role; otherwise 403 50013. Managed roles (a bot's own) are nobody's to give."""
        if not self.enforce_permissions:
            return
        bot_top = self.top_role(self.bot_user.id)
        perms = self.member_permissions(self.bot_user.id)
        if not perms & Perm.MANAGE_ROLES or (role.position, -role.id) >= (bot_top.position, -bot_top.id):
            raise _HttpError(403, 50013, "Missing Permissions")
        if role.managed or role.id == self.guild_id:
            raise _HttpError(400, 50028, "Invalid Role")

    async def _change_member_role(self, p: dict[str, str], *, add: bool) -> tuple[int, JSON]:
        self._check_guild(p)
        member = self.members.get(int(p["user_id"]))
        if member is None:
            raise _HttpError(404, 10007, "Unknown Member")
        role = self.roles.get(int(p["role_id"]))
        if role is None:
            raise _HttpError(404, 10011, "Unknown Role")
        self._may_manage(role)
        held = [r for r in member.roles if r != role.id] + ([role.id] if add else [])
        if held != member.roles:
            member.roles = held
            await self.dispatch("GUILD_MEMBER_UPDATE", member.payload() | {"guild_id": str(self.guild_id)})
        return 204, None

    async def _patch_member(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        """Modify Guild Member, its `roles` only (the whole list at once): every role given or taken must be one the
        bot may manage, as for one role; one GUILD_MEMBER_UPDATE for the change."""
        self._check_guild(p)
        member = self.members.get(int(p["user_id"]))
        if member is None:
            raise _HttpError(404, 10007, "Unknown Member")
        if not isinstance(body, dict) or set(body) - {"roles"}:
            raise _HttpError(400, 50035, "Invalid Form Body: this fake takes only roles")
        wanted = [int(r) for r in body.get("roles", [])]
        for role_id in set(wanted) ^ set(member.roles):
            role = self.roles.get(role_id)
            if role is None:
                raise _HttpError(404, 10011, "Unknown Role")
            self._may_manage(role)
        if sorted(wanted) != sorted(member.roles):
            member.roles = wanted
            await self.dispatch("GUILD_MEMBER_UPDATE", member.payload() | {"guild_id": str(self.guild_id)})
        return 200, member.payload()

    async def _put_member_role(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return await self._change_member_role(p, add=True)

    async def _delete_member_role(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return await self._change_member_role(p, add=False)

    async def _get_active_threads(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._check_guild(p)
        threads = [c for c in self.channels.values() if c.is_thread and not c.archived]
        members = [self._thread_member_payload(t, self.bot_user.id) for t in threads if self.bot_user.id in t.members]
        return 200, {"threads": [self._channel_payload(t) for t in threads], "members": members}

    # ------------------------------------------------------------------ REST: channels and messages

    def _channel(self, p: dict[str, str]) -> FakeChannel:
        channel = self.channels.get(int(p["channel_id"]))
        if channel is None:
            raise _HttpError(404, 10003, "Unknown Channel")
        return channel

    async def _get_channel(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        return 200, self._channel_payload(self._channel(p))

    async def _patch_channel(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        if not isinstance(body, dict):
            raise _invalid("expected an object")
        if channel.is_thread:
            allowed = {
                "name",
                "archived",
                "locked",
                "invitable",
                "auto_archive_duration",
                "rate_limit_per_user",
                "flags",
                "applied_tags",
            }
            unknown = set(body) - allowed
            if unknown:
                raise _invalid(f"thread edit: unsupported fields {sorted(unknown)}")
            if "invitable" in body and channel.type != 12:
                raise _invalid("invitable is only for private threads")
            if "locked" in body or ("archived" in body and channel.owner_id != self.bot_user.id):
                self._require(channel, Perm.MANAGE_THREADS)
            if "name" in body:
                channel.name = str(body["name"])
            if "locked" in body:
                channel.locked = bool(body["locked"])
            if "invitable" in body:
                channel.invitable = bool(body["invitable"])
            if "auto_archive_duration" in body:
                channel.auto_archive_duration = int(body["auto_archive_duration"])
            if "archived" in body and bool(body["archived"]) != channel.archived:
                channel.archived = bool(body["archived"])
                channel.archive_timestamp = _now_iso()
            payload = self._channel_payload(channel)
            await self._echo("THREAD_UPDATE", payload)
            return 200, payload
        for key in ("name", "topic", "position"):
            if key in body:
                setattr(channel, key, body[key])
        payload = self._channel_payload(channel)
        await self._echo("CHANNEL_UPDATE", payload)
        return 200, payload

    async def _typing(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        self._channel(p)
        return 204, None

    async def _get_messages(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        if channel.type == 1 and channel.recipient_id in self.closed_dms:
            raise _HttpError(403, 50001, "Missing Access")
        limit = max(1, min(100, int(request.query.get("limit", "50"))))
        ids = list(self._channel_messages.get(channel.id, []))
        if "before" in request.query:
            before = int(request.query["before"])
            ids = [i for i in ids if i < before][-limit:]
        elif "after" in request.query:
            after = int(request.query["after"])
            ids = [i for i in ids if i > after][:limit]
        elif "around" in request.query:
            around = int(request.query["around"])
            older = [i for i in ids if i <= around][-((limit + 1) // 2) :]
            newer = [i for i in ids if i > around][: limit // 2]
            ids = older + newer
        else:
            ids = ids[-limit:]
        return 200, [self._rest_visible(self.messages[i]) for i in reversed(ids)]

    def _stored_message(self, channel: FakeChannel, message_id: int) -> dict[str, Any]:
        msg = self.messages.get(message_id)
        if msg is None or int(msg["channel_id"]) != channel.id or message_id in self.ephemeral_owner:
            raise _HttpError(404, 10008, "Unknown Message")
        return msg

    async def _get_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        return 200, self._rest_visible(self._stored_message(channel, int(p["message_id"])))

    async def _post_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        if not isinstance(body, dict):
            raise _invalid("expected an object")
        if channel.type == 4:
            raise _HttpError(400, 50008, "Cannot send messages in a non-text channel")
        if channel.type == 1 and channel.recipient_id in self.closed_dms:
            raise _HttpError(403, 50007, "Cannot send messages to this user")
        if channel.is_thread and channel.archived:
            if channel.locked:
                raise _HttpError(400, 50083, "Thread is archived")
            channel.archived = False
            await self._echo("THREAD_UPDATE", self._channel_payload(channel))
        if int(body.get("flags") or 0) & 64:
            raise _invalid("flags: ephemeral is only for interaction responses")
        self._require(channel, Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES)
        self._validate_message_body(body, partial=False)
        msg = self._store_message(channel.id, self.bot_user, body)
        await self._echo("MESSAGE_CREATE", msg)
        return 200, self._visible(msg, content_allowed=True)

    async def _patch_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        msg = self._stored_message(channel, int(p["message_id"]))
        if int(msg["author"]["id"]) != self.bot_user.id:
            raise _HttpError(403, 50005, "Cannot edit a message authored by another user")
        self._require(channel, Perm.READ_MESSAGE_HISTORY)
        if channel.is_thread and channel.archived and channel.locked:
            raise _HttpError(400, 50083, "Thread is archived")
        self._apply_edit(msg, body)
        await self._echo("MESSAGE_UPDATE", msg)
        return 200, self._visible(msg, content_allowed=True)

    async def _delete_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        channel = self._channel(p)
        msg = self._stored_message(channel, int(p["message_id"]))
        self._forget_message(int(msg["id"]))
        await self._echo(
            "MESSAGE_DELETE",
            {"id": msg["id"], "channel_id": msg["channel_id"], "guild_id": str(self.guild_id)},
        )
        return 204, None

    def _forget_message(self, message_id: int) -> None:
        msg = self.messages.pop(message_id)
        self.ephemeral_owner.pop(message_id, None)
        ids = self._channel_messages.get(int(msg["channel_id"]), [])
        if message_id in ids:
            ids.remove(message_id)

    # ------------------------------------------------------------------ REST: threads

    async def _post_thread(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        parent = self._channel(p)
        if parent.type not in _TEXTLIKE_TYPES:
            raise _HttpError(400, 50024, "Cannot execute action on this channel type")
        if not isinstance(body, dict) or not body.get("name"):
            raise _invalid("name: required")
        name = str(body["name"])
        if len(name) > 100:
            raise _invalid("name: must be 100 or fewer in length")
        from_message = "message_id" in p
        if from_message:
            self._stored_message(parent, int(p["message_id"]))
            thread_type = 11
            thread_id = int(p["message_id"])  # a thread started from a message shares its id
            if thread_id in self.channels:
                raise _HttpError(400, 160004, "A thread has already been created for this message")
        else:
            thread_type = int(body.get("type", 12))
            thread_id = self.snowflake()
            if thread_type not in (11, 12):
                raise _invalid("type: must be 11 or 12")
        self._require(
            parent,
            Perm.CREATE_PRIVATE_THREADS if thread_type == 12 else Perm.CREATE_PUBLIC_THREADS,
            Perm.SEND_MESSAGES_IN_THREADS,
        )
        duration = int(body.get("auto_archive_duration", 1440))
        if duration not in (60, 1440, 4320, 10080):
            raise _invalid("auto_archive_duration: must be 60, 1440, 4320 or 10080")
        thread = FakeChannel(
            thread_id,
            name,
            thread_type,
            guild_id=self.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            invitable=bool(body.get("invitable", True)) if thread_type == 12 else True,
            auto_archive_duration=duration,
        )
        thread.members[self.bot_user.id] = _now_iso()
        self.channels[thread.id] = thread
        self._channel_messages[thread.id] = []
        payload = self._channel_payload(thread)
        await self._echo(
            "THREAD_CREATE",
            payload | {"newly_created": True, "member": self._thread_member_payload(thread, self.bot_user.id)},
        )
        return 201, payload

    def _thread(self, p: dict[str, str]) -> FakeChannel:
        thread = self._channel(p)
        if not thread.is_thread:
            raise _HttpError(400, 50024, "Cannot execute action on this channel type")
        return thread

    async def _get_archived_private(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        """Discord's pages of archived private threads: newest archived first, at most ``limit`` (2-100, 50 by
        default) a page, those archived before ``before`` (an ISO 8601 time), and whether more are left."""
        parent = self._channel(p)
        self._require(parent, Perm.READ_MESSAGE_HISTORY, Perm.MANAGE_THREADS)
        limit = max(2, min(100, int(request.query.get("limit", "50"))))
        threads = [t for t in self.threads_in(parent.id) if t.type == 12 and t.archived]
        threads.sort(key=lambda t: dt.datetime.fromisoformat(t.archive_timestamp), reverse=True)
        if "before" in request.query:
            before = dt.datetime.fromisoformat(request.query["before"])
            threads = [t for t in threads if dt.datetime.fromisoformat(t.archive_timestamp) < before]
        page = threads[:limit]
        payload = {"threads": [self._channel_payload(t) for t in page], "members": [], "has_more": len(threads) > limit}
        return 200, payload

    async def _get_thread_members(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        thread = self._thread(p)
        return 200, [self._thread_member_payload(thread, uid) for uid in thread.members]

    def _thread_user(self, p: dict[str, str]) -> int:
        return self.bot_user.id if p["user_id"] == "@me" else int(p["user_id"])

    async def _put_thread_member(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        thread = self._thread(p)
        user_id = self._thread_user(p)
        if thread.archived:
            raise _HttpError(400, 50083, "Thread is archived")
        if user_id not in self.members:
            raise _HttpError(404, 10007, "Unknown Member")
        self._require(thread, Perm.SEND_MESSAGES_IN_THREADS)
        if thread.type == 12 and not thread.invitable and user_id != self.bot_user.id:
            self._require(thread, Perm.MANAGE_THREADS)  # only a moderator adds others to a non-invitable thread
        if user_id in thread.members:
            return 204, None
        thread.members[user_id] = _now_iso()
        await self._echo(
            "THREAD_MEMBERS_UPDATE",
            {
                "id": str(thread.id),
                "guild_id": str(self.guild_id),
                "member_count": len(thread.members),
                "added_members": [self._thread_member_payload(thread, user_id)],
            },
        )
        return 204, None

    async def _delete_thread_member(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        thread = self._thread(p)
        user_id = self._thread_user(p)
        if thread.archived:
            raise _HttpError(400, 50083, "Thread is archived")
        if thread.members.pop(user_id, None) is None:
            raise _HttpError(404, 10007, "Unknown Member")
        await self._echo(
            "THREAD_MEMBERS_UPDATE",
            {
                "id": str(thread.id),
                "guild_id": str(self.guild_id),
                "member_count": len(thread.members),
                "removed_member_ids": [str(user_id)],
            },
        )
        return 204, None

    # ------------------------------------------------------------------ REST: DMs

    async def _open_dm(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        if not isinstance(body, dict) or "recipient_id" not in body:
            raise _invalid("recipient_id: required")
        user_id = int(body["recipient_id"])
        if user_id not in self.users:
            raise _HttpError(400, 50033, "Invalid Recipient(s)")
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            channel = FakeChannel(self.snowflake(), "", 1, recipient_id=user_id)
            self.channels[channel.id] = channel
            self._channel_messages[channel.id] = []
            self._dm_channels[user_id] = channel.id
            channel_id = channel.id
        return 200, self._channel_payload(self.channels[channel_id])

    # ------------------------------------------------------------------ REST: interactions

    def _live_interaction(self, interaction_id: int | None, token: str) -> FakeInteraction:
        ix = self._interactions_by_token.get(token)
        if ix is None or (interaction_id is not None and ix.id != interaction_id):
            raise _HttpError(404, 10062, "Unknown interaction")
        return ix

    async def _callback(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        ix = self._live_interaction(int(p["interaction_id"]), p["token"])
        if not isinstance(body, dict) or "type" not in body:
            raise _invalid("type: required")
        cb_type = int(body["type"])
        data = body.get("data") or {}
        # all checks and the acknowledgement happen before the first await: concurrent callbacks race here
        late = self.ack_deadline is not None and (asyncio.get_running_loop().time() - ix.created > self.ack_deadline)
        if ix.response_type is None and (ix.expired or late):
            ix.rejected.append((10062, body))
            raise _HttpError(404, 10062, "Unknown interaction")
        if ix.response_type is not None:
            ix.rejected.append((40060, body))
            raise _HttpError(400, 40060, "Interaction has already been acknowledged.")
        if cb_type not in _ALLOWED_CALLBACKS[ix.type] or (cb_type in (6, 7) and ix.message_id is None):
            ix.rejected.append((50035, body))
            raise _invalid(f"callback type {cb_type} is not valid for interaction type {ix.type}")
        resource: dict[str, Any] = {"type": cb_type}
        info: dict[str, Any] = {"id": str(ix.id), "type": ix.type}
        echo: list[tuple[str, dict[str, Any]]] = []
        if cb_type == 4:
            self._validate_message_body(data, partial=False)
            ephemeral = bool(int(data.get("flags") or 0) & 64)
            msg = self._store_message(
                ix.channel_id,
                self.bot_user,
                data,
                interaction=ix,
                ephemeral_for=ix.user_id if ephemeral else None,
            )
            ix.original_message_id = int(msg["id"])
            resource["message"] = self._visible(msg, content_allowed=True)
            info |= {
                "response_message_id": msg["id"],
                "response_message_loading": False,
                "response_message_ephemeral": ephemeral,
            }
            if not ephemeral:
                echo.append(("MESSAGE_CREATE", msg))
        elif cb_type == 5:
            ephemeral = bool(int(data.get("flags") or 0) & 64)
            msg = self._store_message(
                ix.channel_id,
                self.bot_user,
                {"content": ""},
                interaction=ix,
                ephemeral_for=ix.user_id if ephemeral else None,
                extra_flags=128 | (64 if ephemeral else 0),
                ping=False,
            )
            ix.original_message_id = int(msg["id"])
            ix.loading = True
            resource["message"] = self._visible(msg, content_allowed=True)
            info |= {
                "response_message_id": msg["id"],
                "response_message_loading": True,
                "response_message_ephemeral": ephemeral,
            }
            if not ephemeral:
                echo.append(("MESSAGE_CREATE", msg))
        elif cb_type == 6:
            pass
        elif cb_type == 7:
            assert ix.message_id is not None
            target = self.messages[ix.message_id]
            self._apply_edit(target, data)
            resource["message"] = self._visible(target, content_allowed=True)
            info |= {
                "response_message_id": target["id"],
                "response_message_loading": False,
                "response_message_ephemeral": ix.message_id in self.ephemeral_owner,
            }
            if ix.message_id not in self.ephemeral_owner:
                echo.append(("MESSAGE_UPDATE", target))
        elif cb_type == 8:
            choices = data.get("choices")
            if not isinstance(choices, list) or len(choices) > 25:
                raise _invalid("choices: a list of at most 25")
            for choice in choices:
                if not 1 <= len(str(choice.get("name", ""))) <= 100:
                    raise _invalid("choice name: must be 1-100 characters")
            ix.choices = choices
        elif cb_type == 9:
            if not data.get("custom_id") or not data.get("title") or not data.get("components"):
                raise _invalid("modal: custom_id, title and components are required")
            if len(data["title"]) > 45:
                raise _invalid("modal title: must be 45 or fewer in length")
            self._validate_components(data["components"], modal=True)
            ix.modal = data
        ix.response_type = cb_type
        ix.responses.append(body)
        for event, msg in echo:
            await self._echo(event, msg)
        return 200, {"interaction": info, "resource": resource}

    def _webhook_interaction(self, p: dict[str, str]) -> FakeInteraction:
        if int(p["app_id"]) != self.application_id:
            raise _HttpError(404, 10015, "Unknown Webhook")
        ix = self._interactions_by_token.get(p["token"])
        if ix is None or asyncio.get_running_loop().time() - ix.created > self.token_lifetime:
            raise _HttpError(401, 50027, "Invalid Webhook Token")
        if ix.response_type is None:
            raise _HttpError(404, 10015, "Unknown Webhook")  # no followups before the interaction is acked
        return ix

    def _webhook_target(self, ix: FakeInteraction, message_id: str) -> dict[str, Any]:
        if message_id == "@original":
            if ix.original_message_id is not None:
                return self.messages[ix.original_message_id]
            if ix.response_type in (6, 7) and ix.message_id is not None:
                return self.messages[ix.message_id]
            raise _HttpError(404, 10008, "Unknown Message")
        mid = int(message_id)
        if mid not in ix.followup_ids and mid != ix.original_message_id:
            raise _HttpError(404, 10008, "Unknown Message")
        return self.messages[mid]

    async def _post_followup(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        ix = self._webhook_interaction(p)
        if not isinstance(body, dict):
            raise _invalid("expected an object")
        if ix.type == 4:
            raise _HttpError(400, 50035, "Invalid Form Body")
        self._validate_message_body(body, partial=False)
        wait = request.query.get("wait", "").lower() in ("1", "true")
        if ix.loading and ix.original_message_id is not None:
            # Discord: the first followup after a "thinking" defer replaces the loading message; it keeps the
            # defer's visibility and notifies nobody (it is an edit)
            msg = self.messages[ix.original_message_id]
            ix.loading = False
            msg["flags"] = int(msg["flags"]) & ~128
            self._apply_edit(msg, {k: v for k, v in body.items() if k != "flags"})
            self.pings[int(msg["id"])] = Pings(frozenset(), frozenset(), False)
            if int(msg["id"]) not in self.ephemeral_owner:
                await self._echo("MESSAGE_UPDATE", msg)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & 64)
            msg = self._store_message(
                ix.channel_id,
                self.bot_user,
                body,
                interaction=ix,
                ephemeral_for=ix.user_id if ephemeral else None,
            )
            if not ephemeral:
                await self._echo("MESSAGE_CREATE", msg)
        ix.followup_ids.append(int(msg["id"]))
        return (200, self._visible(msg, content_allowed=True)) if wait else (204, None)

    async def _get_webhook_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        ix = self._webhook_interaction(p)
        return 200, self._visible(self._webhook_target(ix, p["message_id"]), content_allowed=True)

    async def _patch_webhook_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        ix = self._webhook_interaction(p)
        if not isinstance(body, dict):
            raise _invalid("expected an object")
        msg = self._webhook_target(ix, p["message_id"])
        if p["message_id"] == "@original" and ix.loading and int(msg["id"]) == ix.original_message_id:
            ix.loading = False
            msg["flags"] = int(msg["flags"]) & ~128
        self._apply_edit(msg, body)
        if int(msg["id"]) not in self.ephemeral_owner:
            await self._echo("MESSAGE_UPDATE", msg)
        return 200, self._visible(msg, content_allowed=True)

    async def _delete_webhook_message(self, request: web.Request, p: dict[str, str], body: JSON) -> tuple[int, JSON]:
        ix = self._webhook_interaction(p)
        msg = self._webhook_target(ix, p["message_id"])
        self._forget_message(int(msg["id"]))
        return 204, None


# ---------------------------------------------------------------------- helpers


async def _read_body(request: web.Request) -> JSON:
    if not request.can_read_body:
        return None
    ctype = request.content_type
    if ctype == "application/json":
        return await request.json()
    if ctype.startswith("multipart/"):
        form = await request.post()
        payload = form.get("payload_json")
        files = [
            {"field": key, "filename": value.filename, "content_type": value.content_type, "data": value.file.read()}
            for key, value in form.items()
            if isinstance(value, web.FileField)
        ]
        if isinstance(payload, str):
            data = json.loads(payload)
            if files and isinstance(data, dict):
                data["_files"] = files  # the uploads, kept beside the JSON part (Discord's multipart form)
            return data
        return {"_files": files} if files else None
    text = await request.text()
    return json.loads(text) if text else None


def _walk_components(components: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for comp in components:
        yield comp
        yield from _walk_components(comp.get("components", []) or [])
        if isinstance(comp.get("component"), dict):
            yield from _walk_components([comp["component"]])
        if isinstance(comp.get("accessory"), dict):
            yield from _walk_components([comp["accessory"]])


def _submitted(comp: dict[str, Any], values: dict[str, str | Sequence[str]]) -> dict[str, Any] | None:
    """The submitted form of one modal component, taking its value out of ``values``."""
    ctype = comp.get("type")
    if ctype == 1:
        inner = [c for c in (_submitted(x, values) for x in comp.get("components", [])) if c]
        return {"type": 1, "components": inner}
    if ctype == 18:
        inner_comp = _submitted(comp["component"], values)
        out: dict[str, Any] = {"type": 18, "component": inner_comp}
        if "id" in comp:
            out["id"] = comp["id"]
        return out
    custom_id = comp.get("custom_id")
    if custom_id is None:
        return None
    if ctype == 4:
        value = values.pop(custom_id, comp.get("value") or "")
        if not isinstance(value, str):
            raise FakeDiscordError(f"text input {custom_id!r} takes a string")
        if comp.get("required", True) and not value:
            raise FakeDiscordError(f"text input {custom_id!r} is required")
        if value and not int(comp.get("min_length", 0)) <= len(value) <= int(comp.get("max_length", 4000)):
            raise FakeDiscordError(f"text input {custom_id!r}: length outside min_length..max_length")
        return {"type": 4, "custom_id": custom_id, "value": value}
    if ctype in _SELECT_TYPES:
        picked = values.pop(custom_id, [])
        if isinstance(picked, str):
            picked = [picked]
        return {"type": ctype, "custom_id": custom_id, "values": list(picked)}
    return None


_HANDLER_TASK_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
    "discord-ui-dynamic-item-",
    "discord.py: ",
)


async def settle(*, timeout: float = 5.0) -> None:
    """Wait until every discord.py handler task running now (or started meanwhile) has finished.

    Covers app-command invocations, view / modal / DynamicItem callbacks and ``on_*`` event listeners, by
    their task names in discord.py 2.7.  It awaits the tasks themselves (no polling, no sleeping).  Use it
    before a test acts on state the client sets up *after* its HTTP call returns (e.g. a view is only
    registered once ``send_message`` has returned, so a press sent earlier would be silently discarded).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    current = asyncio.current_task()
    while True:
        busy = [
            t
            for t in asyncio.all_tasks()
            if t is not current and not t.done() and t.get_name().startswith(_HANDLER_TASK_PREFIXES)
        ]
        if not busy:
            return
        remaining = deadline - loop.time()
        if remaining <= 0:
            names = sorted(t.get_name() for t in busy)
            raise AssertionError(f"discord.py handlers still running after {timeout}s: {names}")
        await asyncio.wait(busy, timeout=remaining)


@contextlib.contextmanager
def pointed_at(fake: FakeDiscord) -> Iterator[FakeDiscord]:
    """Point discord.py's REST base and default gateway at the fake for the duration of the block.

    discord.py builds every REST URL (including interaction callbacks and followup webhooks) from
    ``discord.http.Route.BASE``, and a plain ``Client`` connects to ``DiscordWebSocket.DEFAULT_GATEWAY``
    without asking /gateway/bot (only AutoShardedClient asks); resumes use READY's ``resume_gateway_url``,
    which the fake sets to itself.  Both attributes are restored on exit, even on error.
    """
    route_cls = discord.http.Route
    ws_cls = discord.gateway.DiscordWebSocket
    old_base = route_cls.BASE
    old_gateway = ws_cls.DEFAULT_GATEWAY
    route_cls.BASE = fake.api_base
    ws_cls.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield fake
    finally:
        route_cls.BASE = old_base
        ws_cls.DEFAULT_GATEWAY = old_gateway


@contextlib.asynccontextmanager
async def run_client(
    client: discord.Client, fake: FakeDiscord, *, timeout: float = 10.0, reconnect: bool = False
) -> AsyncIterator[discord.Client]:
    """Log ``client`` in to the fake, connect it, and yield once it is ready with the fake's guild cached.

    On exit the client is closed and its connection task awaited, so nothing is left running.  Use inside
    :func:`pointed_at`.  ``reconnect=False`` (the default) makes a dropped connection an error instead of a
    retry with real back-off sleeps; pass True to exercise discord.py's RESUME after ``disconnect_clients``.
    Give the client a small ``guild_ready_timeout`` (e.g. 0.05): discord.py waits that long after the last
    GUILD_CREATE before dispatching ``ready``.
    """
    try:
        await client.login(fake.token)
    except BaseException:
        await client.close()
        raise
    guild_waiter = asyncio.ensure_future(client.wait_for("guild_available", check=lambda g: g.id == fake.guild_id))
    task = asyncio.create_task(client.connect(reconnect=reconnect), name="fake-discord-client-connect")
    ready_waiter = asyncio.ensure_future(client.wait_until_ready())
    both: asyncio.Future[Any] = asyncio.gather(guild_waiter, ready_waiter)
    watched: set[asyncio.Future[Any]] = {task, both}
    try:
        done, _ = await asyncio.wait(watched, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            exc = task.exception()
            raise RuntimeError(f"discord client stopped before it was ready: {exc!r}") from exc
        if both not in done:
            raise TimeoutError(f"discord client not ready within {timeout}s; fake errors: {fake.errors!r}")
        both.result()
        yield client
    finally:
        both.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await both
        await client.close()
        failing = sys.exc_info()[1] is not None
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            if not failing:  # a connection error after ready is a test failure; while failing, keep the first
                raise
