"""What a command is: its name, its arguments with their types and limits, who may use it, where, and the use case
it runs. Every front end (the text parser of the console and Telegram, Telegram's menus, Discord's command tree,
the console's help) is generated from these declarations; none keeps a list of its own.

Names and texts are catalogue keys derived from the command's and the argument's name:

- ``name.<word>``: the word in every catalogue language (Serbian is the command as typed; the others localize
  Discord's command and option names);
- ``cmd.<command>``: the one-line description (Discord, Telegram's menu), at most 100 characters;
- ``usage.<command>``: the usage line the console's and Telegram's help show and a mistyped command repeats;
- ``arg.<argument>``: an argument's description.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING

from bot.ports import Reply, Upload
from rules.members import Member

if TYPE_CHECKING:
    from bot.desk import Desk

MAX_NUMBER = 2**31 - 1  # game numbers, hands, amounts: anything larger is a typing error
MAX_HAND = 999
MAX_DAYS = 3_650
MAX_REASON = 1_000
NICK_AS_TYPED = 100  # a typed nickname is read up to this; `rules.nicknames` says what is wrong with a longer one


class ArgKind(StrEnum):
    """The type of an argument; each front end renders it in its own way (a typed word, a Discord option)."""

    GAME = "game"  # a game number, 1 … MAX_NUMBER; Discord autocompletes the caller's recent games
    HAND = "hand"  # a hand number, 1 … MAX_HAND
    NUMBER = "number"  # a whole number within the argument's limits
    NICK = "nick"  # a club nickname, one word
    CHOICE = "choice"  # one of the argument's choices
    BOOL = "bool"  # da / ne
    DATE = "date"  # GGGG-MM-DD
    MONTH = "month"  # GGGG-MM
    REASON = "reason"  # free text after `--` (a Discord text option)
    WORD = "word"  # one word as typed (a link code)
    WORDS = "words"  # the rest of the line before `--`, read by the command itself (a verdict draft)
    FILE = "file"  # a file sent with the command (never typed): Discord's attachment option, a Telegram document


class Place(StrEnum):
    """Where a command may be typed."""

    CLUB = "club"  # the club's public chat (Telegram's groups, Discord's channels)
    PRIVATE = "private"  # a private chat with the bot, or a trial's private space


class Audience(StrEnum):
    """Who the command is for. The desk checks every use against the stored roles; this tells the front ends whom
    to offer it to and whether an account not yet linked to a nickname may use it at all."""

    ANYONE = "anyone"  # also an account that is not linked yet
    MEMBER = "member"
    REFEREE = "referee"  # trial controls
    OFFICIAL = "official"  # councilors, moderators and the owner (governance)


class Usage(ValueError):
    """A command typed wrongly; the message says what is wrong (shown with the command's usage line)."""


@dataclass(frozen=True, slots=True)
class Arg:
    name: str
    kind: ArgKind
    required: bool = True
    low: int = 1
    high: int = MAX_NUMBER
    choices: tuple[str, ...] = ()  # CHOICE: the values (each also a catalogue key `choice.<arg>.<value>`)
    keyword: str | None = None  # typed as `KEYWORD VALUE` (``do 2026-12-31``) instead of by position
    autocomplete: bool = False  # GAME: offer the caller's recent games
    about: str | None = None  # the description's catalogue key when one name means a different thing here

    @property
    def description_key(self) -> str:
        return self.about or f"arg.{self.name}"

    @property
    def limits(self) -> tuple[int, int] | None:
        if self.kind is ArgKind.GAME:
            return 1, MAX_NUMBER
        if self.kind is ArgKind.HAND:
            return 1, MAX_HAND
        if self.kind is ArgKind.NUMBER:
            return self.low, self.high
        return None

    @property
    def max_length(self) -> int | None:
        return {
            ArgKind.NICK: NICK_AS_TYPED,
            ArgKind.REASON: MAX_REASON,
            ArgKind.WORDS: 400,
            ArgKind.DATE: 10,
            ArgKind.MONTH: 7,
            ArgKind.WORD: 20,
        }.get(self.kind)


Value = int | str | bool | date | tuple[str, ...] | Upload | None


@dataclass(frozen=True)
class Args:
    """A command's arguments as read by a front end: name → value (None when an optional one was not given)."""

    values: Mapping[str, Value] = field(default_factory=dict)

    def number(self, name: str) -> int:
        value = self.values[name]
        assert isinstance(value, int), name
        assert not isinstance(value, bool), name
        return value

    def opt_number(self, name: str) -> int | None:
        value = self.values.get(name)
        return None if value is None else self.number(name)

    def text(self, name: str) -> str:
        value = self.values.get(name)
        return "" if value is None else str(value)

    def opt_text(self, name: str) -> str | None:
        value = self.values.get(name)
        return None if value is None else str(value)

    def opt_flag(self, name: str) -> bool | None:
        value = self.values.get(name)
        assert value is None or isinstance(value, bool), name
        return value

    def opt_day(self, name: str) -> date | None:
        value = self.values.get(name)
        assert value is None or isinstance(value, date), name
        return value

    def words(self, name: str) -> tuple[str, ...]:
        value = self.values.get(name)
        return value if isinstance(value, tuple) else ()

    def upload(self, name: str) -> Upload | None:
        value = self.values.get(name)
        return value if isinstance(value, Upload) else None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who typed the command: the platform account, and the member it proves to be — None when it is not linked
    (or the member may not act: he left the club), with `refusal` saying why."""

    platform: str
    account: str
    member: Member | None
    refusal: Reply | None = None
    display: str = ""  # the account's display name on the platform (shown to whoever approves a link)


Run = Callable[["Desk", Caller, Args], Awaitable[Reply]]


@dataclass(frozen=True)
class Command:
    """One command, declared once."""

    name: str  # the Serbian word members type; also the catalogue keys' stem
    run: Run
    args: tuple[Arg, ...] = ()
    audience: Audience = Audience.MEMBER
    places: frozenset[Place] = frozenset({Place.CLUB, Place.PRIVATE})
    aliases: tuple[str, ...] = ()  # other spellings typed as text (with diacritics: ``završi``)
    monospace: bool = False  # the answer is a table (the paper, the hands): shown in a fixed-width font
    form: bool = False  # platforms with forms (Discord's modals) collect the WORDS and REASON arguments in one

    @property
    def reason(self) -> Arg | None:
        return next((a for a in self.args if a.kind is ArgKind.REASON), None)

    @property
    def positional(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.kind not in (ArgKind.REASON, ArgKind.FILE) and a.keyword is None)

    @property
    def file(self) -> Arg | None:
        """The file the command takes, if it takes one (sent with it, never typed)."""
        return next((a for a in self.args if a.kind is ArgKind.FILE), None)

    @property
    def keywords(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.keyword is not None)

    @property
    def usage_key(self) -> str:
        return f"usage.{self.name}"

    @property
    def description_key(self) -> str:
        return f"cmd.{self.name}"


def member_of(caller: Caller) -> Member:
    """The linked member of a command that is not for anyone: `bot.registry.run` lets no other caller reach it."""
    assert caller.member is not None, "bot.registry.run refuses an unlinked account first"
    return caller.member
