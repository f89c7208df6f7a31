"""The native solver's trump bounds (rules/arbitar/_dds.c): a trick the declarer surely takes (trump_sure_tricks)
and a defender's top card of a side suit he holds when he needs every trick: where each fires (one node), just
outside (the search goes on), and seeded random trump positions against the pure-Python reference at every
target."""

from __future__ import annotations

import random
from array import array
from functools import partial

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

from rules.arbitar._dds import Solver

Hands = tuple[int, int, int]
SPADES = 0


reach = partial(native_reach, trump=SPADES)
value = partial(reference_value, trump=SPADES)


# (hands of seats 0 = the declarer, 1, 2; seat to move; trick so far; its leader; target), spades trumps: he
# surely takes the trick in progress and then cashes enough quick tricks, so the search says yes at once.
SURE = [
    pytest.param((m("KS AH"), m("7S 8H 9H"), m("8S TH JH")), 1, (c("AS"),), 0, 3, id="his top trump led"),
    pytest.param((m("7S AD"), m("KD"), m("QD")), 0, (c("AH"), c("7H")), 1, 2, id="he trumps last, then his ace"),
    pytest.param(
        (m("AH AD 7S"), m("7D 8D"), m("8H 9H TD")), 2, (c("KH"),), 1, 3, id="he tops the suit, the next follows"
    ),
]
# Just outside: a defender still to play can ruff or overruff, so the search goes on; it agrees with the
# reference.
NOT_SURE = [
    pytest.param((m("AS KS"), m("7S 8D 9D"), m("7H 8H 9H")), 1, (c("AH"),), 0, 3, id="the next one can ruff his ace"),
    pytest.param((m("7S AD"), m("8S KD"), m("QD")), 0, (c("AH"),), 2, 2, id="the last one can overruff"),
    pytest.param((m("AH AD 7S"), m("7D 8D"), m("8S 9D TD")), 2, (c("KH"),), 1, 3, id="the one before him can ruff"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader", "target"), SURE)
def test_trump_sure_tricks_answer_at_once(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int, target: int
) -> None:
    assert_answered_at_once(True, hands, to_move, target, trick, leader, trump=SPADES)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader", "target"), NOT_SURE)
def test_trump_a_possible_ruff_searches_on(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int, target: int
) -> None:
    assert_searched_on(hands, to_move, target, trick, leader, trump=SPADES)


# The declarer must take every trick left but a defender holds the top card of a side suit he holds (not the suit
# led now): "no" at once; just outside, that suit is the one led now, and the search goes on.
LOSES_ONE = [
    pytest.param((m("AS 7H"), m("KS AH"), m("8D 9D")), 0, (), -1, id="he leads, the ace of hearts is a defender's"),
    pytest.param((m("AS 7H"), m("AH"), m("KS 9D")), 2, (c("8D"),), 1, id="he will ruff this trick, not the heart"),
]
KEEPS_ALL = [
    pytest.param((m("AS KH"), m("KS"), m("AH 9D")), 2, (c("8H"),), 1, id="the ace of hearts is in the suit led"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), LOSES_ONE)
def test_trump_a_defenders_top_side_card_denies_every_trick_at_once(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(False, hands, to_move, tricks_left(hands, to_move), trick, leader, trump=SPADES)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), KEEPS_ALL)
def test_trump_no_defenders_top_in_his_other_suits_searches_on(
    hands: Hands, to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, tricks_left(hands, to_move), trick, leader, trump=SPADES)


KEPT = Solver(10)  # one small table across the positions: entries found for one position answer for others


def test_trump_every_target_matches_the_reference_on_random_positions() -> None:
    """Every trump suit, leader and place in the trick (mid-trick mostly: the bound works there), every target
    from 1 to the tricks left, 3 to 5 cards each, from a fresh table and from one kept across positions."""
    rng = random.Random(20261202)
    compared = 0
    for k in range(180):
        size, leader, played, trump = 3 + k % 3, k % 3, 1 + (k // 3) % 2, (k // 6) % 4
        position, trick, to_move = random_position(rng, size, trump, leader, played)
        expected = value(position, to_move, trick, leader, trump=trump)
        for target in range(1, size + 1):
            answer, _ = reach(position, to_move, target, trick, leader, trump=trump)
            assert answer == (expected >= target), (position, to_move, trick, leader, trump, target)
            layout = array("I", position).tobytes()
            kept = KEPT.reaches(layout, trump, False, 0, to_move, trick, leader, target)
            assert kept == bytes([expected >= target]), (position, to_move, trick, leader, trump, target)
            compared += 1
    assert compared == 60 * (3 + 4 + 5)
