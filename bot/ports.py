"""The ports through which the desk reaches the world: the clock, the chat platforms and the game server.

The desk speaks only these interfaces; the console, Discord and Telegram adapters implement `ChatPort`, a
configured game server implements `GameServerPort` (`LoggingGameServer` stands in when none is configured).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from rules.members import Member, PartyRole
from rules.notices import Notice

log = logging.getLogger(__name__)
T = TypeVar("T")

#: True while the chat outbox (`bot.chat_outbox`) delivers an effect again that a platform may have shown already
#: (a crash came after it was begun): a platform that can shows it as an edit of that message, not as a new one.
repeated_delivery: ContextVar[bool] = ContextVar("repeated_delivery", default=False)


@dataclass
class Delivery:
    """One platform's part of a chat outbox effect, carried out now (`delivering`): the effect's id (for a port
    that logs or counts deliveries) and whether the platform has shown anything of it yet. While nothing is shown
    the part may be put off whole: a platform's flood control waits out no hold for it but fails it at once with
    the wait (Telegram: `bot.telegram.limiter`), and the outbox tries the part again after that wait, repeating
    nothing — its queue waits, nobody else does (neither another queue nor the decision that wrote it). Once
    something is shown, the part goes on to its end, waiting out what it must: tried again, it would show that
    twice."""

    effect: int
    shown: bool = False


#: The part of an effect the chat outbox asks a port to carry out now (None: not an outbox delivery).
delivering: ContextVar[Delivery | None] = ContextVar("delivering", default=None)

#: The idempotency key of the game-server command the chat outbox delivers now (a `server` effect's, fixed by the
#: effect): a port that keeps commands (`bot.gameserver.outbox.HttpGameServer`) writes it once under that key, so a
#: delivery repeated after a crash adds nothing, and the game server drops a repeat by it.
command_key: ContextVar[str | None] = ContextVar("command_key", default=None)


def state_key(kind: str, *state: object) -> str:
    """The idempotency key of a command that asserts a state rather than acts: derived from the state asserted
    (`pause:1847320:trial:7`, the table of game 1847320 paused for trial 7), so the command that first asserted
    it and every later re-assertion (at a restart, twice) share one key, and a game server that honours keys
    takes a repeat as the duplicate it is."""
    return ":".join((kind, *(str(part) for part in state)))


@contextmanager
def asserting(key: str) -> Iterator[None]:
    """The game-server calls made inside assert a state under `key` (`command_key` set for them)."""
    token = command_key.set(key)
    try:
        yield
    finally:
        command_key.reset(token)


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told: tests and the console club use it."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        self._now += delta
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment


#: Desk jobs a chat adapter works at once after answering them: a burst of presses is acknowledged before it is
#: worked, and the platform's connection keeps its share of the event loop.
WORK_SLOTS = 8


class Action(StrEnum):
    """What a button does. The value is what its payload carries (Telegram's callback data, Discord's custom_id,
    so it never changes for a button already shown); `label_key` names its label's message."""

    TAKE = "take"
    WITHDRAW = "withdraw"
    JOIN = "join"
    HANDS = "hands"
    HISTORY = "history"
    COUNCILOR = "councilor"
    FINISH = "finish"
    LEAVE = "leave"
    CONSENT = "consent"
    DECLINE = "decline"
    CANCEL_CHANGE = "cancel_change"
    LINK_APPROVE = "link_approve"
    LINK_DENY = "link_deny"
    VOTE_YES = "vote_yes"
    VOTE_NO = "vote_no"
    APPEAL_TAKE = "appeal_take"
    ADVICE = "advice"
    KOREKCIJA_YES = "korekcija_yes"
    KOREKCIJA_NO = "korekcija_no"

    @property
    def label_key(self) -> str:
        return "button.cancel_odlazak" if self is Action.CANCEL_CHANGE else f"button.{self.value}"

    @classmethod
    def parse(cls, text: str) -> Action | None:
        """The action a payload names, or None when it names none of ours (a forged or an old, foreign press)."""
        try:
            return cls(text)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Button:
    """A button shown to members. `action` and `ref` come back through `Desk.press`; they are never trusted."""

    label: str
    action: Action
    ref: int
    style: str = "primary"  # primary, danger, secondary


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture that goes with a reply (`bot.pictures`): PNG bytes, a file name, a short title (its caption).
    The reply's text says the same in words, so a platform that cannot show the picture loses nothing."""

    name: str
    png: bytes
    title: str


@dataclass(frozen=True, slots=True)
class Document:
    """A file that goes with a reply (a trial's record): its bytes, file name, media type and a short title."""

    name: str
    data: bytes
    mime: str
    title: str


@dataclass(frozen=True, slots=True)
class Upload:
    """A file a member sent with a command (Discord's attachment option, a Telegram document or photo with the
    command as its caption, the console's `!attach PATH`): its name, media type and bytes, as the platform
    handed them over. The desk decides whether it is wanted and whether it is too large."""

    name: str
    content_type: str
    data: bytes


@dataclass(frozen=True)
class Reply:
    """What the desk answers the member who acted; shown only to him (ephemeral where the platform can)."""

    text: str
    buttons: tuple[Button, ...] = ()
    ok: bool = True
    pictures: tuple[Picture, ...] = ()
    documents: tuple[Document, ...] = ()


@dataclass(frozen=True, slots=True)
class Party:
    member: Member
    role: PartyRole


@dataclass(frozen=True, slots=True)
class TrialSpace:
    """A trial's private space as a platform must show it: the trial, and who is in it as what."""

    id: int
    game: int
    in_game: bool
    is_open: bool
    parties: tuple[Party, ...]
    #: The platforms that refused to open this space: there the trial goes through the bot's private relay.
    relayed: frozenset[str] = frozenset()

    @property
    def members(self) -> tuple[Member, ...]:
        return tuple(p.member for p in self.parties)

    def role_of(self, member_id: int) -> PartyRole | None:
        return next((p.role for p in self.parties if p.member.id == member_id), None)

    def holding(self, role: PartyRole) -> Member | None:
        """The (first) member in this role: the caller, the referee."""
        return next((p.member for p in self.parties if p.role is role), None)


class SpaceRefused(Exception):
    """A platform refused to open a trial's space, or to lock it (a permission the bot lacks there): `problem`
    says what is missing and where, in the operator's words. The port asks the desk what to do about it."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class SpaceFallback(StrEnum):
    """What the desk decided about a space a platform refused to open: relay the trial privately there, or end
    it as interrupted (`[club] space_refused`)."""

    RELAY = "relay"
    INTERRUPT = "interrupt"


class Channel(StrEnum):
    """Which of the club's channels a post goes to; each platform names its own (Discord's `[discord]
    referees_channel_id` and `councilors_channel_id`, Telegram's `[telegram]` groups, the console's tag)."""

    REFEREES = "referees"  # the referees' (and councilors') channel: calls for a referee
    # A councilor call, an appeal, their reminders: the councilors' channel, else the referees'.
    COUNCILORS = "councilors"
    # A councilors' vote, a role changed by hand on a platform: the councilors' channel only, never the referees',
    # where the member it concerns would read it (without a councilors' channel the councilors get it privately).
    COUNCILORS_ONLY = "councilors_only"

    @property
    def councilors(self) -> bool:
        """Posted in the councilors' channel where the club has one."""
        return self is not Channel.REFEREES


@dataclass(frozen=True)
class CallPost:
    """A notice for one of the club's channels (`channel`): a call, a councilor call, an appeal, a vote. Its copies
    are kept as the notices of `subject` (``call:<id>``, ``councilor:<id>``, ``councilor:appeal:<id>``, …), so
    the later edits reach every copy."""

    subject: str
    text: str
    mention: tuple[Member, ...]
    buttons: tuple[Button, ...]
    direct: tuple[Member, ...] = field(default=())  # also sent privately to these members
    channel: Channel = field(default=Channel.REFEREES, kw_only=True)  # the councilors' posts name theirs

    @property
    def councilors_only(self) -> bool:
        """Never posted in the referees' channel (`Channel.COUNCILORS_ONLY`: a vote, a role changed by hand)."""
        return self.channel is Channel.COUNCILORS_ONLY


class RolesSeen(StrEnum):
    """How a platform came to show a member's function roles (`Desk.platform_roles`)."""

    CHANGED = "changed"  # the platform reports a change: by hand, unless it is the bot's own
    SYNC = "sync"  # read at a start, a join or a link
    ECHO = "echo"  # the platform reports the bot's own write
    ACT = "act"  # an act changed the functions: the platform is to show them

    @property
    def by_the_bot(self) -> bool:
        """Nothing to report: the roles differ because of the bot's own act or write."""
        return self in (RolesSeen.ECHO, RolesSeen.ACT)


class ChatPort(Protocol):
    """One chat platform. Members without an account on it are silently skipped by that platform."""

    platform: str

    async def post_call(self, post: CallPost) -> list[Notice]: ...

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        """A private copy of a call for one member (a referee who came to the lobby while it was pending),
        returned as notices so it is edited with the others."""
        ...

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None: ...

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None: ...

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        """Everyone at the game's table (spectators too, where the platform has a table); `players` are the
        table's players who are members."""
        ...

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None: ...

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        """`member` has joined `space` (which lists him already)."""
        ...

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None: ...

    async def close_trial_space(self, space: TrialSpace, text: str) -> None: ...


class Chats:
    """Every configured platform at once: each message goes to all of them; each reaches its own members."""

    def __init__(self, ports: Sequence[ChatPort]) -> None:
        self.ports = list(ports)
        self.platform = "+".join(p.platform for p in self.ports)

    def port(self, platform: str) -> ChatPort | None:
        return next((p for p in self.ports if p.platform == platform), None)

    async def post_call(self, post: CallPost) -> list[Notice]:
        notices: list[Notice] = []
        for port in self.ports:
            notices.extend(await _safely(port.post_call(post), []))
        return notices

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        notices: list[Notice] = []
        for port in self.ports:
            notices.extend(await _safely(port.offer_call(member, post), []))
        return notices

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        for port in self.ports:
            mine = [n for n in notices if n.platform == port.platform]
            if mine:
                await _safely(port.edit_notices(mine, text), None)

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        for port in self.ports:
            await _safely(port.tell(member, text, buttons), None)

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        for port in self.ports:
            await _safely(port.tell_table(game, players, text), None)

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        for port in self.ports:
            await _safely(port.open_trial_space(space, text, buttons), None)

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        for port in self.ports:
            await _safely(port.add_to_trial_space(space, member, text), None)

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        for port in self.ports:
            await _safely(port.say_in_trial(space, text, sender, buttons), None)

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        for port in self.ports:
            await _safely(port.close_trial_space(space, text), None)

    async def linked(self, member: Member, platform: str) -> None:
        """A proven link was written: the platform may sync what it owns (Discord: the mapped roles)."""
        for port in self.ports:
            hook = getattr(port, "member_linked", None)
            if port.platform == platform and hook is not None:
                await _safely(hook(member), None)

    async def unlinked(self, member: Member, platform: str) -> None:
        """A link was removed: what the platform gave the member through that account goes with it."""
        for port in self.ports:
            hook = getattr(port, "member_unlinked", None)
            if port.platform == platform and hook is not None:
                await _safely(hook(member), None)


async def _safely(awaitable: Awaitable[T], fallback: T) -> T:
    """A platform that fails must not stop the desk: the database already holds the truth; log and go on."""
    try:
        return await awaitable
    except Exception:
        log.exception("chat platform call failed")
        return fallback


class GameServerPort(Protocol):
    """What the desk asks of the club's game server."""

    async def pause_table(self, game: int) -> None: ...

    async def resume_table(self, game: int) -> None: ...

    async def block_offers(self, nick: str) -> None: ...

    async def unblock_offers(self, nick: str) -> None: ...

    async def close_game(self, game: int) -> None: ...

    async def set_plavac(self, nick: str, until: datetime | None) -> None: ...

    async def set_suspension(self, nick: str, until: datetime | None) -> None:
        """`nick` is suspended from all the club's tournaments until `until` (None: no longer); another club's
        effect (protocol v1.1, docs/game-server.md), not the plavac."""
        ...

    async def set_restriction(self, nick: str, until: datetime) -> None:
        """`nick` may file no petitions, complaints or forum posts on the site until `until` (the third club's
        "умиротворитель"; protocol v1.1): play and chat stay his."""
        ...

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        """A verdict or a players' correction changed the game's paper: here it is whole (`paper_json`), so the
        game server can show and continue from it (idempotent: the newest paper wins)."""
        ...

    #: Whether `deliver_link_code` reaches the member in the game client; when False (no game server), linking is
    #: proven by a moderator's or the owner's approval alone and codes are not offered.
    delivers_link_codes: bool

    async def deliver_link_code(self, nick: str, code: str) -> None:
        """Show a one-time link code to `nick` in the game client (bot.desk.links)."""
        ...

    async def hand_in_progress(self, game: int) -> HandInProgress:
        """The table's hand in progress, asked of the game server now (for the referee's eyes only; never kept)."""
        ...


class Unavailable(StrEnum):
    """Why the hand in progress cannot be shown; each names its text (`hands.why_<value>`)."""

    NO_LINK = "no_link"  # no game server linked
    UNSUPPORTED = "unsupported"  # the game server speaks v1, which has no hand in progress
    NONE = "none"  # no hand is being played at the table (between hands, or the game is over)
    NO_ANSWER = "no_answer"  # the game server did not answer in time, or failed
    REFUSED = "refused"  # the game server refused the question
    INVALID = "invalid"  # its answer does not fit the stored game


@dataclass(frozen=True, slots=True)
class HandInProgress:
    """The game server's answer: its `answer` JSON (the hand in game-log format v1 without ``ended_at``, the
    trick being played, whether the table saw the talon), or why there is none (`unavailable`, and `detail`)."""

    answer: dict[str, Any] | None
    unavailable: Unavailable | None = None
    detail: str = ""


class LoggingGameServer:
    """No game server configured: the bot records everything itself and these calls are only logged."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    async def _record(self, what: str, arg: object) -> None:
        self.calls.append((what, arg))
        log.info("game server: %s %s", what, arg)

    async def pause_table(self, game: int) -> None:
        await self._record("pause_table", game)

    async def resume_table(self, game: int) -> None:
        await self._record("resume_table", game)

    async def block_offers(self, nick: str) -> None:
        await self._record("block_offers", nick)

    async def unblock_offers(self, nick: str) -> None:
        await self._record("unblock_offers", nick)

    async def close_game(self, game: int) -> None:
        await self._record("close_game", game)

    async def set_plavac(self, nick: str, until: datetime | None) -> None:
        await self._record("set_plavac", (nick, until))

    async def set_suspension(self, nick: str, until: datetime | None) -> None:
        await self._record("set_suspension", (nick, until))

    async def set_restriction(self, nick: str, until: datetime) -> None:
        await self._record("set_restriction", (nick, until))

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        await self._record("paper_changed", game)

    delivers_link_codes = False  # nobody sees a code it would deliver: approval is the proof

    async def deliver_link_code(self, nick: str, code: str) -> None:
        await self._record("deliver_link_code", nick)  # never the code itself: the log is no delivery

    async def hand_in_progress(self, game: int) -> HandInProgress:
        return HandInProgress(None, Unavailable.NO_LINK)


class Timers(Protocol):
    """Wakes the desk at a deadline. The deadlines themselves live in the database."""

    def arm(self, at: datetime) -> None: ...


class ManualTimers:
    """Timers for tests and the console: remembers deadlines; whoever moves the clock calls `Desk.run_due`."""

    def __init__(self) -> None:
        self.armed: list[datetime] = []

    def arm(self, at: datetime) -> None:
        self.armed.append(at)
