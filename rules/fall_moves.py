"""One fall move per hand: an ispravka, a player's odlazak u bulu, an Arbitar transfer and a referee's odlazak u
bulu exclude each other, whichever order they come in (decisions.md, Trials). A referee's Promena bula is no
fall move and composes with all of them.

`fall_move(kind, data, trial, change_id)` reads a stored change (of `rules.paper.ChangeKind` `kind`) as a
`FallMove` (or None when it moves no fall); `refuse_fall_move(standing, hand, new, replacing)` says whether a new
move of source `new` may be added to hand `hand`: None when it may, else a `FallMoveRefusal` naming the standing
move and whether it can be cancelled (an Arbitar transfer and a referee's verdict cannot). Every path that writes
a fall move asks this rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from rules.paper import ChangeKind

LATE_FALL_KEY = "fall_of"  # a late referee's odlazak written as a bula change on the last hand: the hand it moves


class FallSource(Enum):
    ISPRAVKA = "ispravka"  # the players' correction: the fallen player recorded as passed
    PLAYER = "odlazak"  # a player's odlazak u bulu umesto drugog
    ARBITAR = "arbitar"  # the Arbitar's transfer
    REFEREE = "sudija"  # a referee's verdict (odlazak u bulu, or an ispravka he recorded)

    @property
    def cancellable(self) -> bool:
        """Only the players' own moves can be cancelled; the Arbitar's and a referee's bind."""
        return self in (FallSource.ISPRAVKA, FallSource.PLAYER)


@dataclass(frozen=True, slots=True)
class FallMove:
    """A standing move of hand `hand`'s fall (the hand whose fall it moves, wherever it is written)."""

    hand: int
    source: FallSource
    change_id: int | None = None
    player: int | None = None  # the seat in the change's data (culprit of an odlazak, corrected player of an ispravka)


@dataclass(frozen=True, slots=True)
class FallMoveRefusal:
    """Why a new fall move may not be added: the standing one, and whether it can be cancelled first."""

    hand: int
    standing: FallSource
    cancellable: bool

    @property
    def key(self) -> str:
        """The catalogue message: one per standing source, each saying whether it can be cancelled first."""
        return f"fall_move.{self.standing.value}"


def fall_move(
    kind: ChangeKind, data: Mapping[str, Any], trial: int | None, change_id: int | None = None, hand: int = 0
) -> FallMove | None:
    """The fall move a stored change makes (None for a bula change or a settlement)."""
    player = data.get("player")
    seat = player if isinstance(player, int) else None
    if kind == ChangeKind.ODLAZAK_U_BULU:
        if trial is not None:
            source = FallSource.REFEREE
        elif data.get("arbitar"):
            source = FallSource.ARBITAR
        else:
            source = FallSource.PLAYER
        return FallMove(hand, source, change_id, seat)
    if kind == ChangeKind.ISPRAVKA:
        return FallMove(hand, FallSource.REFEREE if trial is not None else FallSource.ISPRAVKA, change_id, seat)
    if kind == ChangeKind.PROMENA_BULA and isinstance(data.get(LATE_FALL_KEY), int):
        return FallMove(int(data[LATE_FALL_KEY]), FallSource.REFEREE, change_id, seat)
    return None


def refuse_fall_move(
    standing: Iterable[FallMove], hand: int, new: FallSource, replacing: int | None = None
) -> FallMoveRefusal | None:
    """None when a move of source `new` may be added to hand `hand` on top of the `standing` moves (of every hand);
    `replacing` is the id of a standing ispravka a new ispravka replaces (with the same consent), which then does
    not count."""
    for move in standing:
        if move.hand != hand:
            continue
        if (
            replacing is not None
            and move.change_id == replacing
            and new is FallSource.ISPRAVKA
            and move.source is FallSource.ISPRAVKA
        ):
            continue
        return FallMoveRefusal(hand, move.source, move.source.cancellable)
    return None


def moves_per_hand(standing: Iterable[FallMove]) -> dict[int, int]:
    """How many standing fall moves each hand has (at most one, when every path asked `refuse_fall_move`)."""
    counts: dict[int, int] = {}
    for move in standing:
        counts[move.hand] = counts.get(move.hand, 0) + 1
    return counts
