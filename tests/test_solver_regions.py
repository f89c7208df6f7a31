"""The regions of the native table's entries (rules/arbitar/_dds.c): the cards an answer depends on, so that an
entry also answers every layout that agrees on them.

- A finished trick (trick_region): its winning card goes into the region only when another card of its suit lies
  in the trick. A trick won by the one trump in it, or by a led card the two others discarded to, leaves the
  winner's rank out.
- The betl bounds: a comparison "every card of X lies above Y's lowest" is certified by X's lowest card and the
  cards above it (the higher card of the two), not by Y's lowest, which also fixed every card in between.

Each pair below: layout B differs from A only in cards the new regions leave out, so A's entry answers B at
once; every answer agrees with the reference."""

from __future__ import annotations

import random
from array import array

import pytest
from test_solver import m, reference_value

import golden
from rules.arbitar._dds import Solver

# (trump, seat on lead, target, layout A, layout B): "does the declarer (seat 0) take >= target tricks?" is no in
# both. B swaps two cards of one suit between two hands, one of them a card that wins a trick of A's proof as the
# only card of its suit in it; the cards above that winner lie elsewhere in B.
PAIRS = [
    pytest.param(
        0,
        1,
        1,
        (m("9S QD"), m("AS JH"), m("8S QS")),
        (m("QS QD"), m("AS JH"), m("8S 9S")),
        # A: the ace of spades draws a trump round, then the jack of hearts is ruffed by the queen of spades, the
        # only trump in that trick; in B the queen lies with the declarer and the nine with the ruffer
        id="trumps: a ruff with the only trump of the trick",
    ),
    pytest.param(
        -1,
        2,
        1,
        (m("8S QS QD"), m("9S AS KD"), m("7S JD AD")),
        (m("8S QS KD"), m("9S AS QD"), m("7S JD AD")),
        # A: the ace of diamonds draws the queen and the king, then the jack is led and wins alone, the others
        # discarding; B swaps the queen and the king
        id="sans: a led card the others discard to",
    ),
]


# Betl, declarer 0, "does he take a trick?": no in both layouts.
BETL_PAIRS = [
    pytest.param(
        0,
        1,
        (m("JH TC"), m("TH QH"), m("KH KC")),
        (m("QH TC"), m("TH JH"), m("KH KC")),
        # his heart is led into the king, the only heart of seat 2: the king certifies it, not his jack, so the
        # queen and jack of hearts may change hands
        id="a lead into a defender's higher cards",
    ),
    pytest.param(
        0,
        1,
        (m("7S 9C AC"), m("TS AS 7C"), m("9S JS QC")),
        (m("7S 7C AC"), m("TS AS 9C"), m("9S JS QC")),
        id="his lowest club and a defender's change places",
    ),
    pytest.param(
        1,
        1,
        (m("7S TS TH"), m("8S AS JH"), m("9S JS 7H")),
        (m("7S TS 7H"), m("8S AS JH"), m("9S JS TH")),
        id="a defender leads; his lowest heart and the other defender's change places",
    ),
]


def one_table_in_turn(
    layouts: tuple[tuple[int, int, int], ...], trump: int, betl: bool, leader: int, target: int
) -> tuple[list[bool], list[int]]:
    """Each layout's native yes/no search for declarer 0 from a trick's start, in turn in one kept table: the
    answers and each search's node count."""
    native = Solver(10)
    answers, nodes = [], []
    for hands in layouts:
        before = native.stats()["nodes"]
        answer = native.reaches(array("I", hands).tobytes(), trump, betl, 0, leader, (), leader, target)
        answers.append(answer == b"\x01")
        nodes.append(native.stats()["nodes"] - before)
    return answers, nodes


@pytest.mark.parametrize(("trump", "leader", "target", "first", "second"), PAIRS)
def test_an_entry_proved_through_a_lone_winner_answers_the_swapped_layout(
    trump: int, leader: int, target: int, first: tuple[int, int, int], second: tuple[int, int, int]
) -> None:
    answers, nodes = one_table_in_turn((first, second), trump, False, leader, target)
    reference_trump = None if trump < 0 else trump
    assert answers == [reference_value(hands, leader, trump=reference_trump) >= target for hands in (first, second)]
    # A is searched; B is answered by A's entry at its first node (with the winner in the region it was searched
    # again: docs/solver-journal.md, "The regions step")
    assert nodes[0] > 1
    assert nodes[1] == 1


@pytest.mark.parametrize(("leader", "target", "first", "second"), BETL_PAIRS)
def test_a_betl_entry_certified_by_the_higher_card_answers_the_swapped_layout(
    leader: int, target: int, first: tuple[int, int, int], second: tuple[int, int, int]
) -> None:
    answers, nodes = one_table_in_turn((first, second), -1, True, leader, target)
    assert answers == [reference_value(hands, leader, betl=True) >= target for hands in (first, second)]
    # with the lower card's closure B was searched again (docs/solver-journal.md, "The regions step")
    assert nodes[0] > 1
    assert nodes[1] == 1


def test_kept_tables_with_frequent_voids_agree_with_the_reference() -> None:
    """Positions dealt from two or three suits only, so that tricks are often won by a lone card of its suit (a
    ruff, or a led card the others discard to); one small table kept per strain; every legal card's value equals
    the reference's, fresh tables included."""
    rng = random.Random(20261202)
    compared = 0
    for trump, betl in ((None, False), (0, False), (2, False), (None, True)):
        kept = Solver(9)
        for _ in range(40):
            suits = rng.sample(range(4), rng.choice((2, 3)))
            if trump is not None and trump not in suits:
                suits[0] = trump
            deck = [8 * s + r for s in suits for r in range(8)]
            rng.shuffle(deck)
            size = rng.randint(2, min(5, len(deck) // 3))
            hands = (
                sum(1 << card for card in deck[:size]),
                sum(1 << card for card in deck[size : 2 * size]),
                sum(1 << card for card in deck[2 * size : 3 * size]),
            )
            leader = rng.randrange(3)
            expected = golden.solve(hands, trump, betl, 1, leader)
            native_trump = -1 if trump is None else trump
            assert dict(kept.solve(hands, native_trump, betl, 1, leader)) == expected, (hands, trump, betl, leader)
            assert dict(Solver(8).solve(hands, native_trump, betl, 1, leader)) == expected
            compared += 1
    assert compared == 4 * 40
