"""A club member as the rules and every layer see him: his nickname, functions, duty, presence and seat. The
repositories (`storage.members`) build these; the desk decides with them; the chat ports show them.

Who sees a trial's record is decided here, once, for `/presude`, `/zapisnik` and every export of them
(decisions.md, "Trials"): the transcript to the trial's parties, the game's players and the club's officials
(`OFFICIALS`: every function and the owner — a referee may judge a later call about the same game, so he reads
what was said before); the names of the referee and the councilors only to the offices in
`referee_names_visible_to` (`sees_names`)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TypeAlias


class Role(StrEnum):
    """A club function (the SQL CHECK on `roles.role` allows exactly these). The owner is configuration."""

    REFEREE = "referee"  # sudija
    COUNCILOR = "councilor"  # većnik
    MODERATOR = "moderator"


ROLES: tuple[Role, ...] = tuple(Role)


class Owner(StrEnum):
    """The club's owner where the rules name him beside the functions (`referee_names_visible_to`, `OFFICIALS`):
    configuration (`club.owner` and his accounts), never a stored role."""

    OWNER = "owner"


OWNER = Owner.OWNER

#: What a member is to the club's rules of who sees and does what: his functions and, for the owner, `OWNER`.
Office: TypeAlias = Role | Owner


def office_of(word: str) -> Office:
    """The office a configuration word names (``referee``, ``councilor``, ``moderator``, ``owner``)."""
    return OWNER if word == OWNER.value else Role(word)


#: The club's officials: they see every trial's transcript (its speakers' names only as `sees_names` allows).
OFFICIALS: frozenset[Office] = frozenset({*Role, OWNER})

#: The functions that judge (a referee a trial, a councilor an appeal's hearing): they go on duty and are called.
JUDGING_ROLES: frozenset[Role] = frozenset({Role.REFEREE, Role.COUNCILOR})

#: The functions a councilors' vote appoints or dismisses (the SQL CHECK on `votes.role` allows exactly these).
VOTED_ROLES: frozenset[Role] = frozenset({Role.REFEREE, Role.COUNCILOR})


class PartyRole(StrEnum):
    """What a member is in a trial (the SQL CHECK on `trial_participants.role` allows exactly these)."""

    CALLER = "caller"
    PLAYER = "player"  # in game: the table's other players
    REFEREE = "referee"
    COUNCILOR = "councilor"


MAX_NICK = 32  # the longest club nickname, in characters


@dataclass(frozen=True, slots=True)
class Member:
    id: int
    nick: str
    roles: frozenset[Role]
    on_duty: bool
    online: bool
    in_club: bool
    presence_changed_at: datetime | None
    seated_game: int | None
    accounts: frozenset[str] = frozenset()  # proven links, as 'platform:account' (the platform's user id)

    @property
    def is_referee(self) -> bool:
        return Role.REFEREE in self.roles

    def account(self, platform: str) -> str | None:
        """His user id on `platform`, if he is linked there."""
        prefix = f"{platform}:"
        return next((a.removeprefix(prefix) for a in sorted(self.accounts) if a.startswith(prefix)), None)


def sees_transcript(offices: Set[Office], party: bool, player: bool) -> bool:
    """May a member read a trial's transcript (in `/presude`, `/zapisnik`, their exports)? A party of the trial,
    a player of its game, or one of the club's officials."""
    return party or player or not OFFICIALS.isdisjoint(offices)


def sees_names(offices: Set[Office], visible_to: Set[Office]) -> bool:
    """Does he see who judged (the referee's and the councilors' names) rather than their functions?"""
    return not visible_to.isdisjoint(offices)


#: Who sits at the council's desk (the appeals waiting, the votes open, the council's figures): the councilors
#: and the owner — as `/zalbe` and `/statistika` answer them.
COUNCIL: frozenset[Office] = frozenset({Role.COUNCILOR, OWNER})


def sees_every_game(offices: Set[Office]) -> bool:
    """Does the club's list of games (Partije) show him every game, rather than the games he played? The
    officials, who review games they did not play."""
    return not OFFICIALS.isdisjoint(offices)


def sees_hands(offices: Set[Office], player: bool, judging: bool, in_progress: bool) -> bool:
    """May he see every card of a game's hands (Prikaz ruke, the Arbitar's analyses)? Whoever judges a trial of
    the game now (a referee, a councilor joined) — also while it is played, as the trial's Prikaz ruke shows it;
    once the game is over, its players and the club's officials. Nobody else sees the cards of a table still
    playing."""
    if judging:
        return True
    return not in_progress and (player or not OFFICIALS.isdisjoint(offices))


def sees_member_record(offices: Set[Office], himself: bool) -> bool:
    """May he read a member's whole record (his verdicts, penalties, league months, right to call)? The member
    himself and the club's officials."""
    return himself or not OFFICIALS.isdisjoint(offices)


def sits_at_council(offices: Set[Office]) -> bool:
    """Does he sit at the council's desk?"""
    return not COUNCIL.isdisjoint(offices)
