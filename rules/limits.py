"""The figures and bounds, each defined once: every rule, check, default setting and message takes them from here.

The club's figures come from its rules (Presuda tokom partije, Presuda van partije); the ones a club may change
are the defaults of `bot.config` (`[penalties]`), which takes them from here too.

The input bounds hold every input so that a hostile value is refused by name instead of crashing something: a
game log holds no whole number beyond 2^53 (what every JSON reader keeps exactly, and far below SQLite's 2^63),
no value nested deeper than `MAX_DEPTH` levels (a real log is nested six: the game, its hands, a hand, its
tricks, a trick, a card). `shown` cuts any value to a short readable form for a message, whatever its size or
depth (`reprlib`: never recursive beyond a few levels).
"""

from __future__ import annotations

import reprlib
from datetime import timedelta
from fractions import Fraction
from typing import Any

# The club's figures ------------------------------------------------------------------------------------------
MAX_BULA_CHANGE = 98  # Promena bula: an even number from −98 to 98 per player
MIN_BULE_LEFT = 2  # a change never leaves fewer bule on the paper (it may not end the game)
MAX_PLAVAC_DAYS = 7  # plavac of up to 7 days
MAX_LEAGUE_POINTS = 10  # up to 10 league penalty points
SETTLEMENT_PLAYED_SHARE = Fraction(2, 3)  # ručno svođenje: at least 2/3 of all bule played …
SETTLEMENT_DELAY = timedelta(hours=1)  # … and at least an hour after the interruption
CLAIM_DAYS = 7  # the right to a trial lapses 7 days after the game ended
CALL_MINUTES = 5  # a call lives 5 minutes
VOTE_DAYS = 7  # a councilors' vote runs 7 days (decisions: Trials, governance)
VOTE_MAJORITY = Fraction(1, 2)  # carried by more than half of all councilors
MIN_AYES = 2  # "dogovorom": a single councilor never appoints or dismisses anyone
APPEAL_DAYS = CLAIM_DAYS  # the first club's appeal window (a product decision: as long as the claim)
APPEAL_REVIEW_DAYS = 14  # the councilors decide an appeal within 14 days (a product decision)
APPEAL_REMIND_DAYS = 2  # … and are reminded 2 days before

# Input bounds ------------------------------------------------------------------------------------------------
MAX_INT = 2**53  # the largest whole number a game log may hold (game numbers included)
MAX_DEPTH = 32  # levels of arrays and objects in one game document
MAX_DIGITS = 4300  # Python's int-string conversion limit: a longer number cannot even be read

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel = 3
_SHOWN.maxstring = 40
_SHOWN.maxother = 40
_SHOWN.maxlong = 24
_SHOWN.maxlist = _SHOWN.maxdict = _SHOWN.maxtuple = 4


def shown(value: object) -> str:
    """`value` as a short repr for a message: long text, long numbers and deep or long containers are cut."""
    return _SHOWN.repr(value)


def too_big(value: int) -> bool:
    return not -MAX_INT <= value <= MAX_INT


def too_deep(value: object, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The path to the first array or object nested deeper than `limit` levels in `value`, or None.

    Iterative (a depth of 200,000 costs no recursion) and stopping at the first level past the limit, so its cost
    is bounded by the size of the value.
    """
    if type(value) is not list and type(value) is not dict:
        return None
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        for key, item in items:
            kind = type(item)
            if kind is list or kind is dict:
                if depth + 1 > limit:
                    return [*path, key]
                stack.append((item, depth + 1, (*path, key)))
    return None


def depth_problem(path: list[str | int], limit: int = MAX_DEPTH) -> tuple[int | None, str]:
    """(the hand, numbered from 1, or None; the field) named by a `too_deep` path into a game document."""
    if len(path) >= 2 and path[0] == "hands" and isinstance(path[1], int):
        field = path[2] if len(path) >= 3 else "hands"
        return path[1] + 1, str(field)
    return None, str(path[0])
