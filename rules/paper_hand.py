"""Scoring one hand for the paper (papir), exactly as ``spec/scoring.md`` fixes it.

What a hand writes depends on the paper only through the refe: whether the declarer plays under an open refe
(×2) and whether an all-pass hand (or a bid pik without kontra) can write a refe. Everything else follows from
the hand itself: the contract, the defenders' answers, the kontra chain and the tricks up to
`rules.play.stop_point`. So `hand_facts` scores a hand once into every outcome it can have, and the running
sheet (`rules.paper`) only picks one. The values (4 6 8 10 12 14, igra two more), the kontra chain (×2 … ×16),
the declarer's pass and fall, the defenders' supe and falls (both follow, one alone, zovem, kontra), betl,
nobody follows and bid pik without kontra all live here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from rules.gamelog import Contract, Decision, Hand, Strain
from rules.play import replay, stop_point


@dataclass(frozen=True, slots=True)
class Entry:
    """What one player gets written for a hand or a change: bule (±) and supe in his two side columns."""

    bule: int = 0
    supe_left: int = 0
    supe_right: int = 0

    def __add__(self, other: Entry) -> Entry:
        return Entry(self.bule + other.bule, self.supe_left + other.supe_left, self.supe_right + other.supe_right)

    @property
    def empty(self) -> bool:
        return not (self.bule or self.supe_left or self.supe_right)


ZERO = Entry()
ZERO_ENTRIES = (ZERO, ZERO, ZERO)


class HandCase(Enum):
    """How a hand was decided."""

    ALL_PASS = "all_pass"  # everyone said dalje: a refe, or nothing
    NOBODY_FOLLOWS = "nobody_follows"  # both defenders passed: not played, the declarer passes with 10 tricks
    PIK_NO_KONTRA = "pik_no_kontra"  # bid pik, a follower but no kontra: not played; refe, or the declarer passes
    PLAYED = "played"
    UNSCORED = "unscored"  # not completed, or a log the paper cannot score (see `HandFacts.note`)


class DefenceShape(Enum):
    """Who carries the defence of a played trump or sans hand (betl has its own rules)."""

    BOTH = "both"  # both follow: each for himself
    ALONE = "alone"  # one follows, the other does not: the follower owns every defence trick
    ZOVEM = "zovem"  # the caller carries both
    KONTRA = "kontra"  # the (sub)kontra giver carries both
    BETL = "betl"


def right_of(seat: int) -> int:
    """Seat s's right neighbour is s+1 (he plays after s)."""
    return (seat + 1) % 3


def left_of(seat: int) -> int:
    return (seat + 2) % 3


def supe_entry(writer: int, declarer: int, amount: int) -> Entry:
    """Supe that `writer` writes against `declarer`: in his right column when the declarer sits at his right."""
    if declarer == right_of(writer):
        return Entry(supe_right=amount)
    return Entry(supe_left=amount)


def multiplier(kontra_count: int, refe: bool) -> int:
    """`m` of spec/scoring.md: 1, 2, 4, 8, 16 for the kontra chain, twice that under an open refe."""
    return (1 << kontra_count) * (2 if refe else 1)


def contract_value(contract: Contract, kontra_count: int = 0, refe: bool = False) -> int:
    """`V = v × m`."""
    return contract.base_value * multiplier(kontra_count, refe)


@dataclass(frozen=True, slots=True)
class HandScore:
    """What one hand writes on the paper, in the outcome the running sheet chose."""

    n: int
    case: HandCase
    entries: tuple[Entry, Entry, Entry]
    declarer: int | None = None
    contract: Contract | None = None
    kontra: int = 0  # length of the kontra chain
    refe_doubled: bool = False  # the declarer played under an open refe
    value: int = 0  # V
    declarer_tricks: int = 0  # credited 10 when nobody follows
    defence_tricks: tuple[int, int, int] = (0, 0, 0)  # tricks counted for each seat (the declarer's is 0)
    passed: bool | None = None  # the declarer's pass; None when no declarer played or passed
    fallen: tuple[int, ...] = ()  # seats that fell (the declarer and/or defenders)
    carrier: int | None = None  # the defender who carries the whole defence (alone, zovem, kontra)
    shape: DefenceShape | None = None
    refe_written: bool = False
    refe_played: bool = False  # one of the declarer's open refe marked played
    counted_tricks: int = 0  # tricks up to the stop point
    recorded_tricks: int = 0
    note: str = ""  # UNSCORED: why (not_finished, no_contract); PLAYED: problems in the recorded play (as codes)
    deltas: tuple[int, int, int] = (0, 0, 0)  # the bule of `entries`, for the running sheet's speed
    supe: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)  # left supe of seats 0-2, then right supe

    @property
    def written(self) -> bool:
        return any(not e.empty for e in self.entries)


@dataclass(frozen=True, slots=True)
class HandFacts:
    """Every outcome a hand can have on the paper; `rules.paper` picks one by the refe state."""

    n: int
    case: HandCase
    plain: HandScore  # no refe involved (declarer without open refe; all-pass writing nothing)
    doubled: HandScore | None = None  # the declarer under an open refe
    refe: HandScore | None = None  # a refe is written (all-pass, or bid pik without kontra)


def _fallen_units(
    hand: Hand,
    declarer: int,
    contract: Contract,
    tricks: tuple[int, int, int],
) -> tuple[bool, list[int], list[int], int | None, DefenceShape, str]:
    """(passed, bule units per seat, supe units per seat, carrier, shape, note) of a played hand.

    Units are multiples of V: the declarer −1 on a pass and +1 on a fall; a fallen defender +1; supe are the
    tricks (or the betl shares) a defender writes × V.
    """
    d1, d2 = right_of(declarer), left_of(declarer)
    declarer_tricks = tricks[declarer]
    together = tricks[d1] + tricks[d2]
    bule = [0, 0, 0]
    supe = [0, 0, 0]
    note = ""
    carrier: int | None = None
    chain = hand.kontra
    if chain:
        # The defender who gave the kontra carries; a subkontra by the other defender hands it to him.
        carrier = chain[2] if len(chain) >= 3 and chain[2] != declarer else chain[0]
        if carrier == declarer:
            note = "the kontra chain starts with the declarer"
            carrier = d1
    if contract.strain is Strain.BETL:
        passed = declarer_tricks == 0
        bule[declarer] = -1 if passed else 1
        if passed:
            if carrier is not None:
                bule[carrier] = 1
        elif carrier is not None:
            supe[carrier] = 10
        else:
            supe[d1] = supe[d2] = 5
        return passed, bule, supe, carrier, DefenceShape.BETL, note
    passed = declarer_tricks >= 6
    bule[declarer] = -1 if passed else 1
    decisions = (hand.defense.get(d1, Decision.PASSES), hand.defense.get(d2, Decision.PASSES))
    if carrier is not None:
        shape = DefenceShape.KONTRA
        supe[carrier] = together
        if together < 5:
            bule[carrier] = 1
    elif Decision.CALLS in decisions:
        shape = DefenceShape.ZOVEM
        carrier = d1 if decisions[0] is Decision.CALLS else d2
        supe[carrier] = together
        if together < 4:
            bule[carrier] = 1
    elif decisions == (Decision.FOLLOWS, Decision.FOLLOWS):
        shape = DefenceShape.BOTH
        for seat in (d1, d2):
            supe[seat] = tricks[seat]
            if tricks[seat] < 2 and together < 4:
                bule[seat] = 1
    else:
        shape = DefenceShape.ALONE
        carrier = d1 if decisions[0] is Decision.FOLLOWS else d2
        supe[carrier] = together
        if together < 2:
            bule[carrier] = 1
    return passed, bule, supe, carrier, shape, note


def _score(
    common: dict[str, Any], declarer: int, value: int, bule: list[int], supe: list[int], doubled: bool = False
) -> HandScore:
    entries = []
    for seat in range(3):
        entry = Entry(bule=bule[seat] * value)
        if supe[seat]:
            entry = entry + supe_entry(seat, declarer, supe[seat] * value)
        entries.append(entry)
    return HandScore(
        entries=(entries[0], entries[1], entries[2]),
        value=value,
        refe_doubled=doubled,
        refe_played=doubled,
        deltas=(entries[0].bule, entries[1].bule, entries[2].bule),
        supe=(
            entries[0].supe_left,
            entries[1].supe_left,
            entries[2].supe_left,
            entries[0].supe_right,
            entries[1].supe_right,
            entries[2].supe_right,
        ),
        **common,
    )


def hand_facts(hand: Hand) -> HandFacts:
    """Score a hand into each outcome it can have on the paper (see the module docstring)."""
    n = hand.n
    if not hand.completed:
        score = HandScore(n, HandCase.UNSCORED, ZERO_ENTRIES, note="not_finished")
        return HandFacts(n, HandCase.UNSCORED, score)
    if hand.declarer is None:
        return HandFacts(
            n,
            HandCase.ALL_PASS,
            HandScore(n, HandCase.ALL_PASS, ZERO_ENTRIES),
            refe=HandScore(n, HandCase.ALL_PASS, ZERO_ENTRIES, refe_written=True),
        )
    declarer, contract = hand.declarer, hand.contract
    if contract is None:
        score = HandScore(n, HandCase.UNSCORED, ZERO_ENTRIES, declarer=declarer, note="no_contract")
        return HandFacts(n, HandCase.UNSCORED, score)
    chain = len(hand.kontra)
    d1, d2 = right_of(declarer), left_of(declarer)
    both_pass = all(hand.defense.get(s, Decision.PASSES) is Decision.PASSES for s in (d1, d2))
    v = contract.base_value
    common: dict[str, Any] = {
        "n": n,
        "declarer": declarer,
        "contract": contract,
        "kontra": chain,
        "recorded_tricks": len(hand.tricks),
    }
    bule = [0, 0, 0]
    bule[declarer] = -1
    none = [0, 0, 0]
    if contract.strain is not Strain.BETL and not chain and both_pass:
        common.update(case=HandCase.NOBODY_FOLLOWS, declarer_tricks=10, passed=True)
        return HandFacts(
            n,
            HandCase.NOBODY_FOLLOWS,
            _score(common, declarer, v, bule, none),
            doubled=_score(common, declarer, 2 * v, bule, none, doubled=True),
        )
    if contract.strain is Strain.PIK and not contract.igra and not chain:
        refe = HandScore(case=HandCase.PIK_NO_KONTRA, entries=ZERO_ENTRIES, refe_written=True, **common)
        common.update(case=HandCase.PIK_NO_KONTRA, passed=True)
        return HandFacts(
            n,
            HandCase.PIK_NO_KONTRA,
            _score(common, declarer, v, bule, none),
            doubled=_score(common, declarer, 2 * v, bule, none, doubled=True),
            refe=refe,
        )
    result = replay(hand)
    counted = stop_point(hand, result) if result.tricks else 0
    won = [0, 0, 0]
    for trick in result.tricks[:counted]:
        won[trick.winner] += 1
    tricks = (won[0], won[1], won[2])
    passed, bule, supe, carrier, shape, note = _fallen_units(hand, declarer, contract, tricks)
    problems = [str(problem) for problem in result.problems]  # keys and values: a note for a log, never shown
    if note:
        problems.append(note)
    if (
        counted < 10
        and not (contract.strain is Strain.BETL and tricks[declarer] == 1)
        and not (contract.strain is not Strain.BETL and tricks[d1] + tricks[d2] >= 5)
    ):
        problems.append(f"play_incomplete:{len(result.tricks)}/10")
    defence = list(tricks)
    defence[declarer] = 0
    common.update(
        case=HandCase.PLAYED,
        declarer_tricks=tricks[declarer],
        defence_tricks=(defence[0], defence[1], defence[2]),
        passed=passed,
        fallen=tuple(s for s in range(3) if bule[s] > 0),
        carrier=carrier,
        shape=shape,
        counted_tricks=counted,
        note="; ".join(problems),
    )
    value = v << chain
    return HandFacts(
        n,
        HandCase.PLAYED,
        _score(common, declarer, value, bule, supe),
        doubled=_score(common, declarer, 2 * value, bule, supe, doubled=True),
    )
