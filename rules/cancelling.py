"""Who may cancel what of a hand's corrections (`/ponisti RUKA [bula|ispravka|predlog|arbitar]`), pure.

- An Odlazak u bulu: the fallen player it was made for — never one a referee's verdict or the Arbitar imposed;
- an Ispravka: the player it corrects;
- a pending Ispravka proposal or a pending offer of the Arbitar: the player who made it.

When he may cancel more than one, he names which. The windows (until the end of the next hand for an Odlazak u
bulu, while the game has not finished for an Ispravka) are `rules.verdict_place`'s and the desk's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Cancel(StrEnum):
    """What a player cancels, as he types it."""

    BULA = "bula"
    ISPRAVKA = "ispravka"
    PROPOSAL = "predlog"
    ARBITAR = "arbitar"


class CancelRefused(Exception):
    """Nothing to cancel, a choice to make, or a correction nobody may cancel: `key` names the message."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class Cancellable:
    """A hand's corrections, each with the seat that may cancel it (None: there is none)."""

    odlazak: int | None = None  # the fallen player a standing Odlazak u bulu was made for
    odlazak_by_referee: bool = False
    odlazak_by_arbitar: bool = False
    ispravka: int | None = None  # the player a standing Ispravka corrects
    proposal: int | None = None  # the proposer of a pending Ispravka
    offer: int | None = None  # the player who offered the Arbitar, pending


def what_to_cancel(hand: Cancellable, seat: int, what: Cancel | None = None) -> Cancel:
    """The one correction `seat` cancels (of those he may, the one `what` names); refused otherwise."""
    mine = [
        choice
        for choice, holder in (
            (Cancel.BULA, hand.odlazak),
            (Cancel.ISPRAVKA, hand.ispravka),
            (Cancel.PROPOSAL, hand.proposal),
            (Cancel.ARBITAR, hand.offer),
        )
        if holder == seat and (what is None or choice is what)
    ]
    if not mine:
        raise CancelRefused("correction.nothing_to_cancel")
    if len(mine) > 1:
        raise CancelRefused("correction.which_cancel", options=", ".join(mine))
    choice = mine[0]
    if choice is Cancel.BULA and hand.odlazak_by_referee:
        raise CancelRefused("correction.referee_imposed")
    if choice is Cancel.BULA and hand.odlazak_by_arbitar:
        raise CancelRefused("correction.arbitar_imposed")
    return choice
