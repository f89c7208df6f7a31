"""A club member as the rules and every layer see him: his nickname, functions, duty, presence and seat. The
repositories (`storage.members`) build these; the desk decides with them; the chat ports show them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Role(StrEnum):
    """A club function (the SQL CHECK on `roles.role` allows exactly these). The owner is configuration."""

    REFEREE = "referee"  # sudija
    COUNCILOR = "councilor"  # većnik
    MODERATOR = "moderator"


ROLES: tuple[str, ...] = tuple(Role)

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
    roles: frozenset[str]
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
