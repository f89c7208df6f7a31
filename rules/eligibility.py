"""Who may call a referee for which game, and which referees may take a call: the club's rules as functions.

"Suđenje se vrši isključivo na zahtev igrača": a member calls for a rated game without AI that he played in,
that ended or was interrupted less than 7 days before the call (the time a call is pending or a trial is on
does not count), with no call or trial already open for it, while he has no other call pending and his right
to call is not denied. Every refusal is a `Refusal` with its reason and the figures the message needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum

from rules.gamelog import GameStatus
from rules.limits import CLAIM_DAYS

CLAIM_WINDOW = timedelta(days=CLAIM_DAYS)


class RefusalReason(Enum):
    """Why a game may not be judged for this caller (the refusals that depend on the desk's state — a call
    already open, the caller's pending call, a denied right — are the desk's, checked against the database)."""

    UNKNOWN_GAME = "unknown_game"
    NOT_YOUR_GAME = "not_your_game"
    UNRATED = "unrated"
    WITH_AI = "with_ai"
    TOO_OLD = "too_old"


@dataclass(frozen=True)
class Refusal:
    reason: RefusalReason
    params: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the call rules need to know about a game."""

    number: int
    rated: bool
    ai: bool
    status: GameStatus
    players: tuple[str, str, str]
    ended_at: datetime | None

    def played_by(self, nick: str) -> bool:
        folded = nick.casefold()
        return any(p.casefold() == folded for p in self.players)


def merged_length(intervals: Iterable[tuple[datetime, datetime]]) -> timedelta:
    """Total time covered by the intervals, overlaps counted once."""
    total = timedelta()
    current: tuple[datetime, datetime] | None = None
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if current is None or start > current[1]:
            if current is not None:
                total += current[1] - current[0]
            current = (start, end)
        else:
            current = (current[0], max(current[1], end))
    if current is not None:
        total += current[1] - current[0]
    return total


def time_consumed(
    ended_at: datetime,
    now: datetime,
    paused: Iterable[tuple[datetime, datetime]],
) -> timedelta:
    """`call_time − ended_at − (time spent pending or in trial)`, the pauses clipped to that span."""
    clipped = [(max(s, ended_at), min(e, now)) for s, e in paused]
    return (now - ended_at) - merged_length(clipped)


def check_game(
    game: GameFacts | None,
    caller: str,
    now: datetime,
    paused: Sequence[tuple[datetime, datetime]],
    window: timedelta = CLAIM_WINDOW,
    number: int | None = None,
) -> Refusal | None:
    """The game-level rules for a call (or for Promeni…): None when `caller` may have `game` judged."""
    if game is None:
        return Refusal(RefusalReason.UNKNOWN_GAME, {"game": number})
    if not game.played_by(caller):
        return Refusal(RefusalReason.NOT_YOUR_GAME, {"game": game.number})
    if not game.rated:
        return Refusal(RefusalReason.UNRATED, {"game": game.number})
    if game.ai:
        return Refusal(RefusalReason.WITH_AI, {"game": game.number})
    if game.status is not GameStatus.IN_PROGRESS:
        assert game.ended_at is not None
        consumed = time_consumed(game.ended_at, now, paused)
        if consumed >= window:
            return Refusal(
                RefusalReason.TOO_OLD,
                {"game": game.number, "ended_at": game.ended_at, "consumed": consumed, "window": window},
            )
    return None


def within_window(
    game: GameFacts, now: datetime, paused: Sequence[tuple[datetime, datetime]], window: timedelta = CLAIM_WINDOW
) -> bool:
    if game.ended_at is None:
        return game.status is GameStatus.IN_PROGRESS
    return time_consumed(game.ended_at, now, paused) < window


@dataclass(frozen=True, slots=True)
class RefereeFacts:
    """A referee (or councilor) as the notification rules see him."""

    member_id: int
    nick: str
    online: bool
    on_duty: bool
    seated: bool
    judging: bool

    @property
    def in_lobby(self) -> bool:
        return self.online and self.on_duty and not self.seated and not self.judging


def eligible_referees(referees: Iterable[RefereeFacts], game: GameFacts, caller_id: int) -> list[RefereeFacts]:
    """Appointed, in the lobby, not judging, did not play in that game, not the caller."""
    return [r for r in referees if r.in_lobby and r.member_id != caller_id and not game.played_by(r.nick)]


def why_not_referee(referee: RefereeFacts | None, game: GameFacts, caller_id: int) -> str | None:
    """The catalogue key of the reason a presser may not take a call, or None when he may."""
    if referee is None:
        return "take.not_referee"
    if referee.member_id == caller_id:
        return "take.own_call"
    if game.played_by(referee.nick):
        return "take.played"
    if referee.judging:
        return "take.judging"
    if referee.seated:
        return "take.seated"
    if not referee.on_duty:
        return "take.off_duty"
    if not referee.online:
        return "take.offline"
    return None
