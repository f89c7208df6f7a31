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
from rules.members import JUDGING_ROLES, OWNER, Member, Office, Role

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
    """Where a command was typed, as its front end says (`Caller.place`): who else sees it there. `bot.registry.run`
    refuses a command typed in a place its declaration does not name."""

    CLUB = "club"  # the club's chat, where the others see what is typed (Telegram's groups; the console's `!club`)
    # The member alone (and the bot): a private chat with the bot, a trial's private space, a Discord command (its
    # answer is his alone and no one else sees that he used it), a page of the club's web site.
    PRIVATE = "private"


class Audience(StrEnum):
    """Who the command is for. `bot.registry.run` refuses whoever is not: an account not linked yet anything but
    ANYONE's, and a member who holds none of `functions`; the use case then checks the rest against the stored
    rows (that the referee judges this very trial, that a councilor may govern this function). It also tells the
    front ends whom to offer the command to."""

    ANYONE = "anyone"  # also an account that is not linked yet
    MEMBER = "member"
    REFEREE = "referee"  # trial controls: whoever judges (a referee; a councilor his appeal's hearing)
    OFFICIAL = "official"  # councilors, moderators and the owner (governance)

    @property
    def functions(self) -> frozenset[Office]:
        """The functions of which a member must hold one (`Lookups.roles_of`: the owner's too); empty: none."""
        return _FUNCTIONS.get(self, frozenset())

    @property
    def refusal_key(self) -> str:
        """What a member holding none of `functions` is told: that he does not judge (as a referee judging another
        trial is told by the use case), that the command is the officials'."""
        return "trial.not_your_trial" if self is Audience.REFEREE else f"command.for_{self.value}"


_FUNCTIONS: dict[Audience, frozenset[Office]] = {
    Audience.REFEREE: JUDGING_ROLES,
    Audience.OFFICIAL: frozenset({Role.COUNCILOR, Role.MODERATOR, OWNER}),
}


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
    """Who typed the command, and where: the platform account, the member it proves to be — None when it is not
    linked (or the member may not act: he left the club), with `refusal` saying why —, the place it came from, and
    the trial whose space (or form) it came from when the front end knows (Discord's trial threads and draft
    forms; a trial control then acts on that trial or is refused)."""

    platform: str
    account: str
    member: Member | None
    place: Place
    refusal: Reply | None = None
    display: str = ""  # the account's display name on the platform (shown to whoever approves a link)
    trial: int | None = None


Run = Callable[["Desk", Caller, Args], Awaitable[Reply]]
#: Before a platform shows a command's form (Discord's modal, which must be the first answer): what the form is for
#: (a draft's trial), or `Refused` (`bot.registry.open_form`). The submitted form is run like the command.
Opens = Callable[["Desk", Caller, Args], Awaitable[int]]


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
    form: Opens | None = None  # platforms with forms (Discord's modals) collect the WORDS and REASON arguments in one

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


def usage_lines(usage: str) -> list[str]:
    """A usage as /pomoc and help show it: each of a command's forms (``/presuda bule … | /presuda bula …``) on a
    line of its own, the later ones indented under the first, and the description (after `` — ``) beside the first,
    so that no usage runs to hundreds of characters."""
    forms, dash, description = usage.partition(" — ")
    first, *others = forms.split(" | /")
    described, *more = description.split("; `/")  # another form described after the first (/korekcija da|ne)
    return [
        first + dash + described + (";" if more else ""),
        *("  | /" + other for other in others),
        *("  `/" + form for form in more),
    ]
