"""The councilors' vote as a pure rule: who may vote, how many ayes carry a proposal, and when its outcome is
certain before the deadline.

Decisions (Trials: governance): a proposal to admit or dismiss a referee or councilor is a vote of all councilors,
carried by more than the configured share of all of them (`governance.majority`, default 1/2: a strict majority;
a tie does not carry). The proposal's subject does not vote on himself and is not counted among the electorate; a
councilor who stops being one (resigns, is dismissed) leaves the electorate and his ballot no longer counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from rules.limits import MIN_AYES


class Outcome(StrEnum):
    UNDECIDED = "undecided"
    CARRIED = "carried"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Tally:
    yes: int
    no: int
    electorate: int  # every councilor entitled to vote now
    needed: int  # ayes that carry the proposal

    @property
    def missing(self) -> int:
        """Councilors who have not voted yet."""
        return self.electorate - self.yes - self.no


def needed_ayes(electorate: int, majority: Fraction) -> int:
    """More than `majority` of all `electorate` councilors, and never fewer than two: a single councilor never
    appoints or dismisses anyone ("dogovorom")."""
    return max(MIN_AYES, (electorate * majority.numerator) // majority.denominator + 1)


def tally(ballots: Mapping[int, bool], councilors: Set[int], subject: int, majority: Fraction) -> Tally:
    """The ballots that count: those of the current councilors, the subject excepted."""
    electorate = set(councilors) - {subject}
    counted = {m: yes for m, yes in ballots.items() if m in electorate}
    yes = sum(1 for v in counted.values() if v)
    return Tally(yes, len(counted) - yes, len(electorate), needed_ayes(len(electorate), majority))


def outcome(t: Tally, deadline_passed: bool) -> Outcome:
    """Carried as soon as enough ayes stand; failed as soon as the ayes cannot reach it even with every missing
    ballot; at the deadline, whatever stands."""
    if t.yes >= t.needed:
        return Outcome.CARRIED
    if deadline_passed or t.yes + t.missing < t.needed:
        return Outcome.FAILED
    return Outcome.UNDECIDED


def parse_majority(text: str) -> Fraction:
    """A share like "1/2" or "2/3", at least 0 and below 1; ValueError otherwise."""
    share = Fraction(text)
    if not 0 <= share < 1:
        raise ValueError(text)
    return share
