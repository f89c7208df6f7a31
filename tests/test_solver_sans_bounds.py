"""The native solver's sans bounds from a trick the declarer surely takes (rules/arbitar/_dds.c,
sans_sure_tricks): where each fires (one node), just outside (the search goes on), and seeded random sans
positions against the pure-Python reference at every target."""

from __future__ import annotations

import random
from array import array

import pytest
from test_solver import (
    assert_answered_at_once,
    assert_searched_on,
    c,
    m,
    native_reach,
    random_position,
    reference_value,
    tricks_left,
)

from rules.arbitar import solver
from rules.arbitar._dds import Solver

Hands = tuple[int, int, int]


reach = native_reach  # sans: no trump, not betl
value = reference_value


# (hands of seats 0 = the declarer, 1, 2; seat to move; trick so far; its leader; target): the declarer surely
# takes the trick in progress and then cashes enough top cards, so "does he take >= target?" is yes at once.
SURE = [
    pytest.param(
        (m("AS KS AH"), m("QS 7H 8H"), m("7S 8S 9H")), 1, (), -1, 3, id="a defender leads, he tops both suits"
    ),
    pytest.param(
        (m("AS KS AH"), m("7H 8H"), m("7S 8S 9H")), 2, (c("QS"),), 1, 3, id="he tops the led suit, then cashes"
    ),
    pytest.param((m("KS AH"), m("QS 7H 8H"), m("7S 8S 9H")), 1, (c("AS"),), 0, 3, id="his lead wins, then he cashes"),
    pytest.param(
        (m("AS 7S KH"), m("KS QS 8H"), m("8S 9S 9H")), 1, (), -1, 2, id="the worst lead: his second spade is no top"
    ),
]
# Just outside: one card moved so that the bound falls one short of the target (or does not apply); the search
# goes on and agrees with the reference.
NOT_SURE = [
    pytest.param((m("AS QS AH"), m("KS 7H 8H"), m("7S 8S 9H")), 1, (), -1, 3, id="the king of spades is the leader's"),
    pytest.param(
        (m("AS 7S 9H"), m("7H 8H"), m("8S 9S AH")), 2, (c("QS"),), 1, 2, id="he tops the led suit, then no top"
    ),
    pytest.param((m("9S 9H"), m("QS 7H 8H"), m("7S 8S AH")), 1, (c("AS"),), 0, 2, id="his lead wins, then no top"),
    pytest.param(
        (m("AS 7S KH"), m("KS QS 8H"), m("8S 9S AH")), 1, (), -1, 2, id="the leader's partner holds the ace of hearts"
    ),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader", "target"), SURE)
def test_sans_sure_tricks_answer_at_once(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int, target: int
) -> None:
    assert_answered_at_once(True, hands, to_move, target, trick, leader)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader", "target"), NOT_SURE)
def test_sans_short_of_the_target_searches_on(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int, target: int
) -> None:
    assert_searched_on(hands, to_move, target, trick, leader)


# The declarer must take every trick left (target = the tricks left) but a defender holds the top card of a suit
# he holds (not the suit led now): "no" at once; then just outside (the top card is in the suit led now, or his).
LOSES_ONE = [
    pytest.param((m("AS 7H"), m("KS AH"), m("QS 8H")), 0, (), -1, id="he leads, the ace of hearts is a defender's"),
    pytest.param((m("AS 7H"), m("AH"), m("KS 9D")), 2, (c("8D"),), 1, id="a diamond led, he holds a low heart"),
]
KEEPS_ALL = [
    pytest.param((m("AS KH"), m("KS"), m("QS AH")), 2, (c("8H"),), 1, id="the ace of hearts is in the suit led"),
    pytest.param((m("AS 9S"), m("KS AH"), m("QS TS")), 0, (), -1, id="he holds the top, not the second"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), LOSES_ONE)
def test_sans_a_defenders_top_card_denies_every_trick_at_once(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(False, hands, to_move, tricks_left(hands, to_move), trick, leader)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), KEEPS_ALL)
def test_sans_no_defenders_top_in_his_suits_searches_on(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, tricks_left(hands, to_move), trick, leader)


KEPT = Solver(10)  # one small table across the positions: entries found for one position answer for others


def test_sans_every_target_matches_the_reference_on_random_positions() -> None:
    """Every leader, every place in the trick, every target from 1 to the tricks left, 3 to 5 cards each, from
    a fresh table and from one kept across positions (so that the regions of the entries are put to the test)."""
    rng = random.Random(20261201)
    compared = 0
    for k in range(180):
        size, leader, played = 3 + k % 3, k % 3, (k // 3) % 3
        hands, trick, to_move = random_position(rng, size, None, leader, played)
        expected = value(hands, to_move, trick, leader)
        for target in range(1, size + 1):
            answer, _ = reach(hands, to_move, target, trick, leader)
            assert answer == (expected >= target), (hands, to_move, trick, leader, target)
            kept = KEPT.reaches(array("I", hands).tobytes(), -1, False, 0, to_move, trick, leader, target)
            assert kept == bytes([expected >= target]), (hands, to_move, trick, leader, target)
            compared += 1
    assert compared == 60 * (3 + 4 + 5)


def test_a_sure_trick_bound_depends_on_the_top_cards_it_cashes() -> None:
    """A 7-8 card sans position where the bound's answer must carry the top cards of the runs it counts: a table
    entry without them answers for a class position where a defender holds one of them (found by comparing the
    solver with such a region against the one before, on 30,000 random positions; the values are the
    reference's, computed once, as it takes it several seconds here)."""
    hands = (m("TS AS KH 7D 9D QD QC"), m("QS 7H 8H TH QH JD TC KC"), m("7S 8S 9S JS 9H JH KD"))
    assert solver.solve(hands, None, False, 0, 1, (c("AC"), c("7C")), 2) == {c("TC"): 2, c("KC"): 3}
