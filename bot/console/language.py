"""The console's input language: one line, one action. Reading a line is pure; the runner carries it out.

    @NICK TEXT               member NICK types TEXT (a /command, or a message in his trial), privately
    @NICK !club TEXT         NICK types TEXT in the club's chat (a Telegram group's place: the core refuses there
                             what works only privately; the answer is his alone)
    @NICK !press LABEL       NICK presses the button LABEL on the newest message that shows it to him
    @NICK !online | !offline presence
    @NICK !sit GAME | !stand a seat at a table (what the game server's live feed would say)
    @NICK !attach PATH       a local file goes with NICK's next command (a platform's upload: the table's chat)
    !clock [+5m]             advance the bot's clock (s, m, h, d; several units: +1h30m); bare: show it
    !down +5m                the bot was down that long: the clock moves and no deadline is acted on (presses
                             queued meanwhile come next)
    !who                     who is where
    !close GAME              an administrator closes a game in progress (what the game server would report)
    help                     the instructions
Blank lines and ``#`` comments are nothing. A line that cannot be read raises `LineError`, whose `key` and
`params` name the catalogue message that explains it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.registry.spec import Place
from rules.limits import MAX_INT


class LineError(ValueError):
    """A line the console cannot read (or act on); `key` and `params` make the message shown."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class Say:
    nick: str
    text: str
    place: Place = Place.PRIVATE  # where he typed it: privately, or in the club's chat (`!club`)


@dataclass(frozen=True)
class Press:
    nick: str
    label: str


@dataclass(frozen=True)
class Presence:
    nick: str
    online: bool


@dataclass(frozen=True)
class Sit:
    nick: str
    game: int | None  # None: stands up


@dataclass(frozen=True)
class ClockStep:
    delta: timedelta | None  # None: only show the clock
    wake: bool = True  # False (!down): the bot was down, no timer ran


@dataclass(frozen=True)
class Who:
    pass


@dataclass(frozen=True)
class Close:
    game: int


@dataclass(frozen=True)
class Attach:
    nick: str
    path: str


@dataclass(frozen=True)
class Help:
    pass


Action = Say | Press | Presence | Sit | ClockStep | Who | Help | Close | Attach

_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
_STEP = re.compile(r"\+?((?:\d+[smhd])+)")
_PART = re.compile(r"(\d+)([smhd])")
_ACTION = re.compile(r"!([A-Za-z]+)(?:\s+(.*))?")


MAX_STEP_DAYS = 3660  # one !clock move: at most about ten years
CLOCK_CEILING = datetime(9000, 1, 1, tzinfo=UTC)  # far enough from 9999 for every deadline computed from the clock
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_step(text: str) -> timedelta:
    """``+5m``, ``90s``, ``+1h30m``, ``+2d`` → a timedelta; more than `MAX_STEP_DAYS` in all is refused."""
    match = _STEP.fullmatch(text.strip())
    if match is None:
        raise LineError("console.bad_clock")
    seconds = 0
    for amount, unit in _PART.findall(match.group(1)):
        if len(amount) > 12:
            raise LineError("console.clock_range", days=MAX_STEP_DAYS, year=CLOCK_CEILING.year, step=text.strip()[:40])
        seconds += int(amount) * _SECONDS[unit]
    if seconds > MAX_STEP_DAYS * 86400:
        raise LineError("console.clock_range", days=MAX_STEP_DAYS, year=CLOCK_CEILING.year, step=text.strip()[:40])
    return timedelta(seconds=seconds)


def parse_line(line: str) -> Action | None:
    """One input line → its action; None for a blank line or a comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if text.casefold() in ("help", "!help", "?", "pomoc", "pomoć"):
        return Help()
    if text.startswith("@"):
        return _member_line(text)
    action = _ACTION.fullmatch(text)
    if action is not None:
        name, rest = action.group(1).casefold(), (action.group(2) or "").strip()
        if name == "who":
            _nothing_after(name, rest)
            return Who()
        if name == "clock":
            return ClockStep(parse_step(rest) if rest else None)
        if name == "down":
            return ClockStep(parse_step(rest), wake=False)
        if name == "close":
            if not rest.isdigit() or len(rest) > 16 or int(rest) > MAX_INT:
                raise LineError("console.close_game")
            return Close(int(rest))
        if name in ("press", "online", "offline", "sit", "stand"):
            raise LineError("console.bad_line", line=text)
        raise LineError("console.unknown_action", name=name)
    raise LineError("console.bad_line", line=text)


def _member_line(text: str) -> Action:
    nick, _, rest = text[1:].partition(" ")
    nick, rest = nick.strip(), rest.strip()
    if not nick:
        raise LineError("console.bad_line", line=text)
    if not rest:
        raise LineError("console.no_text", nick=nick)
    action = _ACTION.fullmatch(rest)
    if action is None:
        return Say(nick, rest)
    name, arg = action.group(1).casefold(), (action.group(2) or "").strip()
    if name == "club":
        if not arg:
            raise LineError("console.no_text", nick=nick)
        return Say(nick, arg, Place.CLUB)
    if name == "press":
        if not arg:
            raise LineError("console.press_label")
        return Press(nick, arg)
    if name in ("online", "offline"):
        _nothing_after(name, arg)
        return Presence(nick, name == "online")
    if name == "sit":
        if not arg.isdigit() or len(arg) > 16 or int(arg) > MAX_INT:
            raise LineError("console.sit_game")
        return Sit(nick, int(arg))
    if name == "stand":
        _nothing_after(name, arg)
        return Sit(nick, None)
    if name == "attach":
        if not arg:
            raise LineError("console.attach_path")
        return Attach(nick, arg)
    if name in ("clock", "who", "down", "close"):
        raise LineError("console.bad_line", line=text)
    raise LineError("console.unknown_action", name=name)


def _nothing_after(name: str, rest: str) -> None:
    if rest:
        raise LineError("console.no_argument", name=name)
