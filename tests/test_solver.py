"""The double-dummy solvers: the reference on hand-made endings, the native solver against the reference."""

from __future__ import annotations

import itertools
import math
import random
from array import array
from collections.abc import Callable
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import golden
from rules.arbitar import _dds, solver
from rules.arbitar import dds_reference as ref
from rules.arbitar._dds import Solver
from rules.cards import Card, parse_cards

Strain = tuple[int | None, bool]  # (trump, betl)
STRAINS: list[Strain] = [(None, False), (0, False), (1, False), (2, False), (3, False), (None, True)]


def m(text: str) -> int:
    mask = 0
    for card in parse_cards(text):
        mask |= card.mask
    return mask


def c(text: str) -> int:
    return Card.parse(text).index


SolveFn = Callable[..., dict[int, int]]
BOTH: list[SolveFn] = [ref.solve, solver.solve]


# --- hand-made endings with known answers -----------------------------------------------------------------


@pytest.mark.parametrize("solve", BOTH)
def test_last_trick(solve: SolveFn) -> None:
    assert solve((m("AS"), m("7S"), m("8S")), None, False, 0, 0) == {c("AS"): 1}
    assert solve((m("AS"), m("7S"), m("8S")), None, False, 1, 0) == {c("AS"): 0}


@pytest.mark.parametrize("solve", BOTH)
def test_cashing_top_cards_in_sans(solve: SolveFn) -> None:
    hands = (m("AS KS"), m("QS JS"), m("7D 8D"))
    assert solve(hands, None, False, 0, 0) == {c("AS"): 2, c("KS"): 2}


@pytest.mark.parametrize("solve", BOTH)
def test_void_player_must_trump(solve: SolveFn) -> None:
    hands = (m("7S AD"), m("AH KH"), m("8H 9D"))
    # Trump pik: the declarer, void in herc, must ruff the ace and then cashes his AD.
    assert solve(hands, 0, False, 0, 1) == {c("AH"): 2, c("KH"): 2}
    # Sans: he cannot ruff and the defender takes both herc tricks.
    assert solve(hands, None, False, 0, 1) == {c("AH"): 0, c("KH"): 0}


def test_legal_cards_follow_then_trump_then_anything() -> None:
    hand = m("7S 9D AC")
    assert ref.legal_cards(hand, 2, 0) == [c("9D")]  # follow karo
    assert ref.legal_cards(hand, 1, 0) == [c("7S")]  # void in herc: must trump pik
    assert ref.legal_cards(hand, 1, None) == sorted([c("7S"), c("9D"), c("AC")])  # sans: anything
    assert ref.legal_cards(m("9D AC"), 1, 0) == sorted([c("9D"), c("AC")])  # no trump to play


def test_trick_winner() -> None:
    assert ref.trick_winner((c("KH"), c("AH"), c("7S")), 2, 0) == 1  # the pik seven ruffs
    assert ref.trick_winner((c("KH"), c("AH"), c("7S")), 2, None) == 0  # sans: the ace of the led suit
    assert ref.trick_winner((c("KH"), c("AS"), c("QH")), 0, 1) == 0  # a discard never wins


@pytest.mark.parametrize("solve", BOTH)
def test_last_player_chooses_between_winning_and_ducking(solve: SolveFn) -> None:
    # Declarer (seat 0) led QS, seat 1 played 7S; seat 2 wins with KS and then takes the last trick with 8S.
    hands = (m("AD"), m("7D"), m("KS 8S"))
    values = solve(hands, None, False, 0, 2, (c("QS"), c("7S")), 0)
    assert values == {c("KS"): 0, c("8S"): 2}


@pytest.mark.parametrize("solve", BOTH)
def test_betl(solve: SolveFn) -> None:
    # The declarer's low cards lose everything.
    assert solve((m("7S 7D"), m("8S 8D"), m("9S 9D")), None, True, 0, 0) == {c("7S"): 0, c("7D"): 0}
    # AD is a sure trick: the defenders (maximizing in betl) will lead karo to it.
    hands = (m("7S AD"), m("8S 7D"), m("9S 8D"))
    assert solve(hands, None, True, 0, 0) == {c("7S"): 1, c("AD"): 1}
    assert ref.solve_tricks(hands, None, True, 0, 0) == 1


@pytest.mark.parametrize("solve", BOTH)
def test_empty_hands_have_no_moves(solve: SolveFn) -> None:
    assert solve((0, 0, 0), 1, False, 0, 0) == {}


def test_solve_tricks_takes_the_movers_best() -> None:
    hands = (m("AD"), m("7D"), m("KS 8S"))
    trick = (c("QS"), c("7S"))
    assert ref.solve_tricks(hands, None, False, 0, 2, trick, 0) == 0
    assert solver.solve_tricks(hands, None, False, 0, 2, trick, 0) == 0
    # Seat 2 as declarer maximizes his own tricks.
    assert solver.solve_tricks(hands, None, False, 2, 2, trick, 0) == 2


@pytest.mark.parametrize(
    ("hands", "to_move", "trick", "leader"),
    [
        ((m("AS"), m("AS"), m("7S")), 0, (), None),  # a card twice
        ((m("AS KS"), m("7S"), m("8S")), 0, (), None),  # sizes differ
        ((m("AS"), m("7S"), m("8S")), 1, (c("9S"),), None),  # trick without leader
        ((m("AS"), m("7S"), m("8S")), 2, (c("9S"),), 0),  # to_move is not the next seat
        ((m("AS"), m("7S"), m("8S")), 1, (c("AS"),), 0),  # a trick card still in a hand
    ],
    ids=["card twice", "sizes differ", "no leader", "wrong seat", "trick card in a hand"],
)
def test_inconsistent_positions_are_rejected(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int | None
) -> None:
    why = r"card|hand sizes|leader|to_move"
    with pytest.raises(ValueError, match=why):
        ref.solve(hands, None, False, 0, to_move, trick, leader)
    with pytest.raises(ValueError, match=why):
        solver.solve(hands, None, False, 0, to_move, trick, leader)


def test_betl_with_trump_is_rejected() -> None:
    with pytest.raises(ValueError, match="betl is played without trumps"):
        solver.solve((m("AS"), m("7S"), m("8S")), 0, True, 0, 0)


# --- native against reference on random positions ----------------------------------------------------------


def random_position(
    rng: random.Random, size: int, trump: int | None, leader: int, played: int
) -> tuple[tuple[int, int, int], tuple[int, ...], int]:
    """Deal `size` cards each, let `played` legal random cards go to the current trick."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << card for card in deck[k * size : (k + 1) * size]) for k in range(3)]
    trick: list[int] = []
    for k in range(played):
        seat = (leader + k) % 3
        card = rng.choice(ref.legal_cards(hands[seat], trick[0] // 8 if trick else None, trump))
        hands[seat] &= ~(1 << card)
        trick.append(card)
    return (hands[0], hands[1], hands[2]), tuple(trick), (leader + played) % 3


def test_native_matches_reference_on_random_positions() -> None:
    rng = random.Random(20261130)
    compared = 0
    for trump, betl in STRAINS:
        for declarer in range(3):
            for leader in range(3):
                for played in range(3):
                    for _ in range(15):
                        size = rng.randint(1, 5)
                        hands, trick, to_move = random_position(rng, size, trump, leader, played)
                        expected = golden.solve(hands, trump, betl, declarer, to_move, trick, leader)
                        got = solver.solve(hands, trump, betl, declarer, to_move, trick, leader)
                        assert got == expected, (hands, trump, betl, declarer, to_move, trick, leader)
                        compared += 1
    assert compared == 6 * 3 * 3 * 3 * 15


def test_native_matches_reference_with_one_table_kept_across_positions() -> None:
    """Same strain and declarer throughout: the native table is reused from position to position."""
    rng = random.Random(7)
    native = Solver(8)  # a tiny table, so replacement is exercised too
    for trump, betl in STRAINS:
        for _ in range(60):
            leader, played = rng.randrange(3), rng.randrange(3)
            hands, trick, to_move = random_position(rng, rng.randint(2, 5), trump, leader, played)
            expected = golden.solve(hands, trump, betl, 1, to_move, trick, leader)
            got = dict(native.solve(hands, -1 if trump is None else trump, betl, 1, to_move, trick, leader))
            assert got == expected


def test_a_cleared_table_is_not_cleared_again_and_a_used_one_is_on_a_strain_change() -> None:
    """clear() empties the table, so the next call of another strain keeps it as it is (no second clear); a
    table used since is cleared when the strain changes, so no entry of one strain answers for another."""
    rng = random.Random(14)
    native = Solver(8)
    positions = [random_position(rng, 5, None, rng.randrange(3), 0) for _ in range(30)]
    for trump, betl in [(None, True), (None, False), (None, True), (2, False)]:
        if trump == 2:
            native.clear()
        for hands, trick, to_move in positions:
            expected = golden.solve(hands, trump, betl, 1, to_move, trick, to_move)
            got = dict(native.solve(hands, -1 if trump is None else trump, betl, 1, to_move, trick, to_move))
            assert got == expected


def test_native_matches_reference_on_six_card_endings() -> None:
    rng = random.Random(6)
    for k in range(24):
        trump, betl = STRAINS[k % len(STRAINS)]
        leader, played = rng.randrange(3), rng.randrange(3)
        hands, trick, to_move = random_position(rng, 6, trump, leader, played)
        declarer = rng.randrange(3)
        assert solver.solve(hands, trump, betl, declarer, to_move, trick, leader) == golden.solve(
            hands, trump, betl, declarer, to_move, trick, leader
        )


def test_native_matches_reference_in_betl_where_the_declarer_is_forced() -> None:
    """Betl endings where the declarer holds high cards: his forced tricks cut the native search short."""
    # He leads and every suit he holds is above all the others' cards of it: he takes every trick left.
    hands = (m("AS KS AD"), m("7S 8S 7D"), m("9S 7H 8H"))
    assert (
        solver.solve(hands, None, True, 0, 0)
        == ref.solve(hands, None, True, 0, 0)
        == {c("KS"): 3, c("AS"): 3, c("AD"): 3}
    )
    # He follows a led spade with only cards above it and above the last player's spades: he takes the trick.
    hands = (m("KS AS 7D"), m("8S 9D 8C"), m("9S 7H"))
    trick = (c("TS"),)
    assert solver.solve(hands, None, True, 0, 0, trick, 2) == ref.solve(hands, None, True, 0, 0, trick, 2)
    rng = random.Random(20261201)
    for _ in range(120):
        size = rng.randint(2, 5)
        deck = list(range(32))
        rng.shuffle(deck)
        deck.sort(key=lambda card: -(card % 8) - rng.random() * 6)  # high cards first, loosely
        declarer = rng.randrange(3)
        seats = [declarer] * size + [s for s in range(3) if s != declarer for _ in range(size)]
        rest = deck[size:]
        rng.shuffle(rest)
        order = deck[:size] + rest
        hands_list = [0, 0, 0]
        for seat, card in zip(seats, order, strict=False):
            hands_list[seat] |= 1 << card
        leader, played = rng.randrange(3), rng.randrange(3)
        trick_cards: list[int] = []
        for j in range(played):
            seat = (leader + j) % 3
            card = rng.choice(ref.legal_cards(hands_list[seat], trick_cards[0] // 8 if trick_cards else None, None))
            hands_list[seat] &= ~(1 << card)
            trick_cards.append(card)
        position = (hands_list[0], hands_list[1], hands_list[2])
        to_move = (leader + played) % 3
        expected = golden.solve(position, None, True, declarer, to_move, tuple(trick_cards), leader)
        got = solver.solve(position, None, True, declarer, to_move, tuple(trick_cards), leader)
        assert got == expected, (position, declarer, to_move, trick_cards, leader)


def native_reach(
    hands: tuple[int, int, int],
    to_move: int,
    target: int,
    trick: tuple[int, ...] = (),
    leader: int = -1,
    *,
    trump: int | None = None,
    betl: bool = False,
) -> tuple[bool, int]:
    """One native yes/no search for declarer 0 ("does he take >= target tricks?") from a fresh table, and its node
    count (1: a bound answered at the first node). ``leader`` -1: the trick's leader is the seat to move."""
    native = Solver(8)
    layout = array("I", hands).tobytes()
    native_trump = -1 if trump is None else trump
    answer = native.reaches(layout, native_trump, betl, 0, to_move, trick, to_move if leader < 0 else leader, target)
    return answer == b"\x01", native.stats()["nodes"]


def reference_value(
    hands: tuple[int, int, int],
    to_move: int,
    trick: tuple[int, ...] = (),
    leader: int = -1,
    *,
    trump: int | None = None,
    betl: bool = False,
) -> int:
    """The pure-Python reference's value of the position for declarer 0."""
    return golden.solve_tricks(hands, trump, betl, 0, to_move, trick, to_move if leader < 0 else leader)


def assert_answered_at_once(
    expected: bool,
    hands: tuple[int, int, int],
    to_move: int,
    target: int,
    trick: tuple[int, ...] = (),
    leader: int = -1,
    *,
    trump: int | None = None,
    betl: bool = False,
    nodes: int = 1,
) -> None:
    """The reference's answer to "does declarer 0 take >= target?" is ``expected``, and the native search gives it
    at its first node (a bound answered; ``nodes``: at a later one)."""
    assert (reference_value(hands, to_move, trick, leader, trump=trump, betl=betl) >= target) == expected
    assert native_reach(hands, to_move, target, trick, leader, trump=trump, betl=betl) == (expected, nodes)


def assert_searched_on(
    hands: tuple[int, int, int],
    to_move: int,
    target: int,
    trick: tuple[int, ...] = (),
    leader: int = -1,
    *,
    trump: int | None = None,
    betl: bool = False,
) -> None:
    """Just outside a bound: the native search goes past its first node and agrees with the reference."""
    answer, nodes = native_reach(hands, to_move, target, trick, leader, trump=trump, betl=betl)
    assert nodes > 1
    assert answer == (reference_value(hands, to_move, trick, leader, trump=trump, betl=betl) >= target)


def tricks_left(hands: tuple[int, int, int], to_move: int) -> int:
    return bin(hands[to_move]).count("1")


betl_reach = partial(native_reach, betl=True)
betl_value = partial(reference_value, betl=True)


# (hands of seats 0 = the declarer, 1, 2; seat to move; trick so far; its leader): the declarer surely loses the
# trick in progress, so "does he take every trick left?" is answered no at the first node.
BETL_DUCKS = [
    pytest.param((m("7S KH"), m("8S 9D"), m("9H TD")), 0, (), -1, id="he leads under a defender's only spades"),
    pytest.param((m("7S AD"), m("8S KS"), m("9H TH")), 1, (), -1, id="a defender leads, he holds a lower one"),
    pytest.param((m("7S AD"), m("9D TD"), m("KH")), 0, (c("8S"),), 2, id="he follows under the winning card"),
    pytest.param((m("AD"), m("9S TD"), m("7S 8D")), 1, (c("8S"),), 0, id="the next one must go over his lead"),
    pytest.param((m("8S 9H"), m("TD"), m("KS AS")), 2, (c("7S"),), 1, id="the one before him must go over"),
    pytest.param((m("8S 9H"), m("7S TD"), m("9S KD")), 1, (), -1, id="a defender leads, the other must go over"),
    pytest.param((m("8S 7D"), m("9S 8D"), m("AD")), 0, (c("7S"),), 2, id="the one after him must go over"),
    # he takes this trick, then leads a heart under a defender's only hearts, which that defender keeps
    pytest.param((m("8S 7H"), m("7S 9H"), m("TD JD")), 1, (), -1, id="the leader keeps his heart for later"),
    pytest.param((m("8S 7H"), m("9H TH"), m("JD")), 0, (c("7S"),), 2, id="two hearts, one may be discarded"),
    pytest.param((m("7H"), m("7S 9H"), m("TH JD")), 1, (c("8S"),), 0, id="he follows, so keeps his heart"),
]
# The same, just outside: the declarer cannot lose this trick for sure (a defender can stay under him, or he
# must go over), so the search goes on; the answers still agree with the reference.
BETL_NO_DUCKS = [
    pytest.param((m("8S KH"), m("7S 9S"), m("9H TD")), 0, (), -1, id="a defender has a spade under his"),
    pytest.param((m("8S AD"), m("7S KD"), m("9H TH")), 1, (), -1, id="the leader has a spade under his"),
    pytest.param((m("9S AD"), m("9D TD"), m("KH")), 0, (c("8S"),), 2, id="he must go over the winning card"),
    pytest.param((m("AD"), m("7S TD"), m("8D 9D")), 1, (c("8S"),), 0, id="both can stay under his lead"),
    pytest.param((m("8S 9H"), m("TD"), m("9D KD")), 2, (c("7S"),), 1, id="he must go over the led card"),
    pytest.param((m("8S 9H"), m("7S TD"), m("KD AD")), 1, (), -1, id="a defender leads, the other can discard"),
    pytest.param(
        (m("8S 7D"), m("9H 8D"), m("AH")), 0, (c("7S"),), 2, id="the one after him can discard"
    ),  # the one heart above his may be discarded on this trick, and then his seven takes the next
    pytest.param((m("8S 7H"), m("7S TD"), m("9H JD")), 1, (), -1, id="the other may discard his heart"),
    pytest.param((m("8S 7H"), m("9H TD"), m("JD")), 0, (c("7S"),), 2, id="one heart, which may be discarded"),
    pytest.param((m("7H"), m("9H TD"), m("7S JD")), 1, (c("8S"),), 0, id="void, he may discard his heart"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_DUCKS)
def test_betl_a_trick_he_can_surely_lose_answers_at_once(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(False, hands, to_move, tricks_left(hands, to_move), trick, leader, betl=True)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_NO_DUCKS)
def test_betl_no_sure_loss_searches_on(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, tricks_left(hands, to_move), trick, leader, betl=True)


# (hands of seats 0 = the declarer, 1, 2; seat to move; trick so far; its leader): the declarer can surely lose
# two of the next three tricks (the first one, then a heart, or a second spade, led into a defender who holds
# only higher ones and enough of them to keep one), so "does he take all tricks left but one?" is answered no at
# the first node.
BETL_LOSES_TWO = [
    pytest.param((m("7S 7H KD"), m("9S 8H 9H"), m("TD JD")), 0, (c("8S"),), 2, id="he ducks, two hearts over his"),
    pytest.param(
        (m("7S 7H KD"), m("8H 9H TH"), m("TD JD")), 0, (c("8S"),), 2, id="the next may discard a heart, holds three"
    ),
    pytest.param((m("7S 7H KD"), m("8S 8H 9H"), m("9D TD JD")), 0, (), -1, id="he leads a spade, then a heart"),
    pytest.param((m("7S 8S KD"), m("9S TS JS"), m("9D TD JD")), 0, (), -1, id="he leads his two spades in turn"),
]
# At a trick's last card the rule is not asked: the trick ends with each move, and the next trick's own checks
# answer at its first node (one node more).
BETL_LOSES_TWO_LAST = [
    pytest.param((m("7H KD"), m("JD QD"), m("TS 8H 9H")), 2, (c("8S"), c("9S")), 0, id="he is beaten already"),
]
# Just outside: a defender may run out of the hearts (or spades) over his before he leads them, so the search
# goes on; the answers still agree with the reference.
BETL_NOT_TWO = [
    pytest.param((m("7S 7H KD"), m("9S 8H TD"), m("9H JD")), 0, (c("8S"),), 2, id="one heart over his"),
    pytest.param((m("7S 7H KD"), m("8H 9H TD"), m("TH JD")), 0, (c("8S"),), 2, id="void, two hearts only"),
    pytest.param((m("7H KD"), m("JD QD"), m("TS 8H 9D")), 2, (c("8S"), c("9S")), 0, id="beaten, one heart"),
    pytest.param((m("7S 7H KD"), m("8S 8H 9D"), m("9H TD JD")), 0, (), -1, id="he leads, one heart each"),
    pytest.param((m("7S 8S KD"), m("9S TS QD"), m("9D TD JD")), 0, (), -1, id="he leads, two spades over his"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_LOSES_TWO)
def test_betl_two_tricks_he_can_surely_lose_answer_at_once(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(False, hands, to_move, tricks_left(hands, to_move) - 1, trick, leader, betl=True)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_LOSES_TWO_LAST)
def test_betl_two_sure_losses_at_a_tricks_last_card_answer_at_the_next_trick(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    target = tricks_left(hands, to_move) - 1
    assert_answered_at_once(False, hands, to_move, target, trick, leader, betl=True, nodes=2)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_NOT_TWO)
def test_betl_no_two_sure_losses_searches_on(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, tricks_left(hands, to_move) - 1, trick, leader, betl=True)


# (hands of seats 0 = the declarer, 1, 2; seat to move at a trick's start; target): the declarer surely ducks
# the next k tricks (every card of his is low enough against the defenders' lowest, or a partner must go over
# him, for k tricks whatever is discarded), so "does he take >= target?" is no at the first node once
# n - k < target. The second: k is 2 of 4 (the spades: two of his under the leader's lowest, the partner's two
# over all of his), so target 3 is answered at once; with target 2 (further down) the order of the spades in
# turn answers it.
BETL_DUCKS_ON = [
    pytest.param((m("7S 8S 7H"), m("9S TS 8H"), m("JS 9H TH")), 1, 2, id="a defender leads, all his cards low"),
    pytest.param((m("7S 8S TS 7H"), m("9S JS 8H 9H"), m("QS KS TH JH")), 1, 3, id="two ducks, all but one"),
    pytest.param((m("7S 7H 8H 7D"), m("8S 9H TH 8D"), m("9S JH QH 9D")), 0, 2, id="he leads under, then ducks"),
    # his ace of spades is above the queen, the defenders' only spade: one round of spades at most, his seven
    # goes under it
    pytest.param((m("AS 7S 7H"), m("QS 8H 9H"), m("TH 7D 8D")), 1, 1, id="no second round of spades"),
    # in rising order his spades J 7 lie under the defenders' 8 Q K one by one, his diamonds J 9 7 under 8 T Q K A
    pytest.param(
        (m("JS 7S JD 9D 7D"), m("8S JH KD 8D 7C"), m("KS QS AD QD TD")), 1, 1, id="each of his under theirs in turn"
    ),
    # the same order: a defender's card under his second card of a suit no longer ends the run when each of his
    # cards lies under the defenders' card of the same place
    pytest.param((m("7S 9S 7H"), m("8S TS 8H"), m("JS 9H TH")), 1, 2, id="the leader's eight under his nine"),
    pytest.param((m("7S 8S TS 7H"), m("9S JS 8H 9H"), m("QS KS TH JH")), 1, 2, id="two ducks, all but two"),
    pytest.param((m("7S 9S TS 7H"), m("8S JS 8H 9H"), m("QS TH JH AD")), 1, 3, id="one spade over his"),
    pytest.param((m("7S 7H 9H 7D"), m("8S TH JH 8D"), m("9S 8H QH 9D")), 0, 2, id="he leads, an eight under"),
]
# Just outside: in rising order one of his cards of a suit lies over the defenders' card of the same place (so the
# suit may end the run), and a defender holds a card under his second card of it (and the partner too few over
# it).
BETL_DUCKS_OFF = [
    pytest.param((m("7S TS 7H"), m("8S 9S 8H"), m("JS 9H TH")), 1, 2, id="his ten over their nine"),
    pytest.param((m("7S TS JS 7H"), m("8S 9S 8H 9H"), m("QS KS TH JH")), 1, 2, id="two ducks, his ten over a nine"),
    pytest.param((m("7S TS JS 7H"), m("8S 9S 8H 9H"), m("QS TH JH AD")), 1, 3, id="one spade over his, a nine"),
    pytest.param((m("7S 8H 9H 7D"), m("8S TH JH 8D"), m("9S 7H QH 9D")), 0, 2, id="he leads, a heart under his"),
]


@pytest.mark.parametrize(("hands", "to_move", "target"), BETL_DUCKS_ON)
def test_betl_tricks_he_surely_ducks_answer_at_once(hands: tuple[int, int, int], to_move: int, target: int) -> None:
    assert_answered_at_once(False, hands, to_move, target, betl=True)


@pytest.mark.parametrize(("hands", "to_move", "target"), BETL_DUCKS_OFF)
def test_betl_too_few_sure_ducks_search_on(hands: tuple[int, int, int], to_move: int, target: int) -> None:
    assert_searched_on(hands, to_move, target, betl=True)


def test_betl_every_target_matches_the_reference_at_a_tricks_start() -> None:
    """Seeded betl positions of 3-6 cards in two to four suits (low cards often, so the sure ducks apply):
    each yes/no search from a trick's start, every target, against the reference's value."""
    rng = random.Random(20261214)
    answered_at_once = 0
    for _ in range(60):
        size, suits = rng.randint(3, 6), rng.randint(2, 4)
        deck = [card for card in range(32) if card // 8 < suits]
        rng.shuffle(deck)
        if len(deck) < 3 * size:
            continue
        hands = (
            sum(1 << card for card in deck[:size]),
            sum(1 << card for card in deck[size : 2 * size]),
            sum(1 << card for card in deck[2 * size : 3 * size]),
        )
        leader = rng.randrange(3)
        value = betl_value(hands, leader)
        for target in range(1, size + 1):
            answer, nodes = betl_reach(hands, leader, target)
            assert answer == (value >= target), (hands, leader, target)
            answered_at_once += nodes == 1 and not answer
    assert answered_at_once > 0


# The declarer (seat 0) must take the trick in progress if the defenders let him (they stay under his card or
# discard), so "does he take a trick?" is answered yes at the first node; then just outside.
BETL_FORCED = [
    pytest.param((m("8S 9H"), m("7S AS"), m("7H TD")), 0, (), -1, id="he leads, both can stay under"),
    pytest.param((m("8S AS"), m("7S KS"), m("9H TH")), 1, (), -1, id="a defender leads under him"),
    pytest.param((m("9S JS"), m("8S AS"), m("TD")), 0, (c("7S"),), 2, id="he must go over, the next stays under"),
    pytest.param((m("9S AH"), m("KH"), m("8S KD")), 2, (c("7S"),), 1, id="both before him stay under his cards"),
    pytest.param((m("AH"), m("8S KD"), m("7H QD")), 1, (c("9S"),), 0, id="his lead is winning, both stay under"),
]
BETL_NOT_FORCED = [
    pytest.param((m("8S 9H"), m("7S AS"), m("TH TD")), 0, (), -1, id="a defender must go over his heart"),
    pytest.param((m("8S AS"), m("7S KD"), m("9S TH")), 1, (), -1, id="the other defender must go over"),
    pytest.param((m("9S JS"), m("TS AS"), m("TD")), 0, (c("7S"),), 2, id="the next must go over his nine"),
    pytest.param((m("9S AH"), m("KH"), m("TS KD")), 2, (c("7S"),), 1, id="the one to move must go over him"),
    pytest.param((m("AH"), m("8S KD"), m("TS QD")), 1, (c("9S"),), 0, id="the last must go over his lead"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_FORCED)
def test_betl_a_trick_the_defenders_can_give_him_answers_at_once(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(True, hands, to_move, 1, trick, leader, betl=True)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), BETL_NOT_FORCED)
def test_betl_no_forced_trick_searches_on(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, 1, trick, leader, betl=True)


# Sans: the declarer (seat 0) surely takes the trick in progress, so "does he take a trick?" is yes at the first
# node; then just outside (a defender can beat him or lead a suit he does not top), where the search goes on.
SANS_SURE = [
    pytest.param((m("AS 7H"), m("KS QS"), m("9H 9D")), 1, (), -1, id="a defender leads, he tops every suit"),
    pytest.param((m("KS 7H"), m("8H 9H"), m("9D")), 0, (c("TS"),), 2, id="he beats the led card and the rest"),
    pytest.param((m("7H"), m("8S 8H"), m("9D TD")), 1, (c("QS"),), 0, id="his lead wins, the rest are lower"),
]
SANS_NOT_SURE = [
    pytest.param((m("AS 7H"), m("KS 8H"), m("QS 9D")), 1, (), -1, id="the leader holds a heart he does not top"),
    pytest.param((m("KS 7H"), m("AS 9H"), m("9D")), 0, (c("TS"),), 2, id="the next one holds the ace"),
    pytest.param((m("7H"), m("KS 8H"), m("9D TD")), 1, (c("QS"),), 0, id="the next one can go over his lead"),
]


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), SANS_SURE)
def test_sans_a_trick_he_surely_takes_answers_at_once(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_answered_at_once(True, hands, to_move, 1, trick, leader)


@pytest.mark.parametrize(("hands", "to_move", "trick", "leader"), SANS_NOT_SURE)
def test_sans_no_sure_trick_searches_on(
    hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], leader: int
) -> None:
    assert_searched_on(hands, to_move, 1, trick, leader)


# --- many layouts in one call --------------------------------------------------------------------------------


def test_solve_layouts_matches_solve_on_full_deals() -> None:
    rng = random.Random(11)
    deck = list(range(32))
    rng.shuffle(deck)
    mover = sum(1 << card for card in deck[:10])
    unseen = deck[10:30]
    cards = tuple(i for i in range(32) if mover >> i & 1)[:2]
    layouts = []
    for _ in range(40):
        rng.shuffle(unseen)
        first = sum(1 << card for card in unseen[:10])
        layouts.append((first, mover, sum(1 << card for card in unseen[10:])))
    for trump in (0, None):
        values = solver.solve_layouts(layouts, trump, False, 0, 1, (), None, cards, threads=2)
        assert len(values) == len(layouts) * len(cards)
        for k, hands in enumerate(layouts):
            full = solver.solve(hands, trump, False, 0, 1)
            assert [values[k * 2], values[k * 2 + 1]] == [full[cards[0]], full[cards[1]]]
        assert (
            solver.solve_layouts(
                array("I", [x for h in layouts for x in h]), trump, False, 0, 1, (), None, cards, threads=1
            )
            == values
        )


def test_solve_layouts_mid_trick_and_illegal_cards() -> None:
    rng = random.Random(3)
    checked = 0
    for _ in range(30):
        trump = rng.choice([None, 2])
        hands, trick, to_move = random_position(rng, 4, trump, 0, 1)
        mover = [i for i in range(32) if hands[to_move] >> i & 1]
        values = solver.solve_layouts([hands], trump, False, 2, to_move, trick, 0, tuple(mover))
        expected = golden.solve(hands, trump, False, 2, to_move, trick, 0)
        for card, value in zip(mover, values, strict=True):
            assert value == expected.get(card, solver.ILLEGAL)
            checked += value == solver.ILLEGAL
    assert checked > 0  # some cards were illegal (must follow suit) and were reported so


def test_solve_layouts_rejects_a_bad_layout() -> None:
    with pytest.raises(ValueError, match="a card appears in two hands"):
        solver.solve_layouts([(m("AS"), m("AS"), m("7S"))], None, False, 0, 0, (), None, (c("AS"),))


def test_native_module_level_solve() -> None:
    hands = (m("AD"), m("7D"), m("KS 8S"))
    assert dict(_dds.solve(hands, -1, False, 0, 2, (c("QS"), c("7S")), 0)) == {c("KS"): 0, c("8S"): 2}


def test_native_solver_table_limits() -> None:
    with pytest.raises(ValueError, match="tt_bits must be between 8 and 22"):
        Solver(30)
    stats = Solver(10).stats()
    assert stats["tt_entries"] == 1024
    assert stats["tt_bytes"] == 24 * 1024


def test_enumerate_layouts_revolving_door() -> None:
    rng = random.Random(5)
    deck = list(range(32))
    rng.shuffle(deck)
    known = sum(1 << card for card in deck[:8])
    kept = 1 << deck[8]  # e.g. a talon card known to be in seat 0
    free = sum(1 << card for card in deck[9:21])
    packed = solver.enumerate_layouts(free, 5, (kept, known, 0), 0, 2)
    layouts = [tuple(packed[i : i + 3]) for i in range(0, len(packed), 3)]
    assert len(layouts) == math.comb(12, 5)
    assert len(set(layouts)) == len(layouts)
    for first, mover, second in layouts:
        assert mover == known
        assert first & kept
        assert first & second == 0
        assert (first & ~kept) | second == free
        assert (first & ~kept).bit_count() == 5
    for (a, _, _), (b, _, _) in itertools.pairwise(layouts):
        assert (a ^ b).bit_count() == 2  # one card changed hands
    with pytest.raises(ValueError, match="count_a must be between"):
        solver.enumerate_layouts(free, 13, (kept, known, 0), 0, 2)
    with pytest.raises(ValueError, match="free cards must be distinct"):
        solver.enumerate_layouts(free | kept, 5, (kept, known, 0), 0, 2)


def test_layouts_reach_agrees_with_the_value() -> None:
    rng = random.Random(9)
    for trump, betl in STRAINS:
        for _ in range(4):
            hands, trick, to_move = random_position(rng, 6, trump, 2, rng.randrange(3))
            mover = hands[to_move]
            others = hands[(to_move + 1) % 3] | hands[(to_move + 2) % 3]
            count_a = hands[(to_move + 1) % 3].bit_count()
            base = [0, 0, 0]
            base[to_move] = mover
            layouts = solver.enumerate_layouts(
                others, count_a, (base[0], base[1], base[2]), (to_move + 1) % 3, (to_move + 2) % 3
            )
            rows = [(layouts[i], layouts[i + 1], layouts[i + 2]) for i in range(0, len(layouts), 3)][:40]
            values = [solver.solve_tricks(h, trump, betl, 0, to_move, trick, 2) for h in rows]
            for target in (1, 2, 3, 4):
                got = solver.layouts_reach(rows, trump, betl, 0, to_move, trick, 2, target)
                assert got == bytes(1 if v >= target else 0 for v in values)


def test_layout_batches_match_the_reference() -> None:
    """Neighbouring layouts share table entries for classes of positions: every value is still exact."""
    rng = random.Random(17)
    for trump, betl in STRAINS:
        deck = list(range(32))
        rng.shuffle(deck)
        mover = sum(1 << card for card in deck[:5])
        led = deck[5]  # seat 0 led this card; seat 1 (the mover) plays next, seat 2 last
        free = sum(1 << card for card in deck[6:15])
        layouts = solver.enumerate_layouts(free, 4, (0, mover, 0), 0, 2)
        rows = [(layouts[i], layouts[i + 1], layouts[i + 2]) for i in range(0, len(layouts), 3)][:60]
        cards = tuple(i for i in range(32) if mover >> i & 1)
        values = solver.solve_layouts(rows, trump, betl, 2, 1, (led,), 0, cards, threads=1)
        for k, hands in enumerate(rows):
            expected = golden.solve(hands, trump, betl, 2, 1, (led,), 0)
            got = {
                card: values[k * len(cards) + j]
                for j, card in enumerate(cards)
                if values[k * len(cards) + j] != solver.ILLEGAL
            }
            assert got == expected


# --- input checked before the table is taken; bounded tables ------------------------------------------------


def full_deal_layouts(seed: int, count: int) -> array[int]:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    mover = sum(1 << card for card in deck[:10])
    unseen = sum(1 << card for card in deck[10:30])
    return solver.enumerate_layouts(unseen, 10, (0, mover, 0), 0, 2)[: 3 * count]


def test_a_refused_call_from_another_thread_does_not_disturb_a_running_search() -> None:
    import threading  # noqa: PLC0415 (imported where the test needs it)

    layouts = full_deal_layouts(21, 4000)
    cards = tuple(card for card in range(32) if layouts[1] >> card & 1)[:2]
    native = Solver(16)
    results: list[bytes] = []
    worker = threading.Thread(target=lambda: results.append(native.batch(layouts, 0, False, 0, 1, (), -1, cards)))
    refused = 0
    worker.start()
    while worker.is_alive():
        # Another strain and declarer (the old code switched the running search's context before refusing) ...
        with pytest.raises((RuntimeError, ValueError)) as caught:
            native.batch(layouts[:3], 2, False, 1, 1, (), -1, (40,))  # ... and a bad card index
        refused += caught.type is ValueError
        try:
            native.batch(layouts[:3], 2, False, 1, 1, (), -1, (3,))
        except RuntimeError:
            refused += 1
    worker.join()
    assert refused > 0
    fresh = Solver(16).batch(layouts, 0, False, 0, 1, (), -1, cards)
    assert results == [fresh]


def test_a_bad_layout_is_refused_before_any_search() -> None:
    native = Solver(10)
    good = full_deal_layouts(3, 5)
    bad = array("I", good)
    bad[3 * 4] |= bad[3 * 4 + 1]  # the last layout gives the mover's cards to seat 0 too
    with pytest.raises(ValueError, match="layout 4"):
        native.batch(bad, 0, False, 0, 1, (), -1, (3,))
    assert native.stats()["nodes"] == 0  # nothing was searched
    with pytest.raises(ValueError, match="cap"):
        native.batch(good, 0, False, 0, 1, (), -1, (3,), 11)


def test_capped_values() -> None:
    layouts = full_deal_layouts(8, 30)
    cards = tuple(card for card in range(32) if layouts[1] >> card & 1)[:3]
    full = solver.solve_layouts(layouts, None, True, 0, 1, (), None, cards, threads=1)
    capped = solver.solve_layouts(layouts, None, True, 0, 1, (), None, cards, threads=1, cap=1)
    assert capped == bytes(v if v == solver.ILLEGAL else min(v, 1) for v in full)
    assert any(v not in (0, 1, solver.ILLEGAL) for v in full)  # the cap did cap something


def test_all_tables_together_are_bounded() -> None:
    solver.clear_tables()
    import gc  # noqa: PLC0415 (imported where the test needs it)

    gc.collect()
    held = []
    with pytest.raises(MemoryError):  # noqa: PT012 (the setup belongs to the case)
        for _ in range(8):
            held.append(Solver(21))  # 48 MB each
    assert held
    assert held[0].stats()["all_tables_bytes"] <= _dds.MAX_TOTAL_TT_BYTES
    held.clear()


def test_the_table_pools_are_bounded() -> None:
    tables = solver._Tables(8, 2)
    first, second = tables.take(), tables.take()
    assert not tables._permits.acquire(blocking=False)  # a third caller would wait for one to come back
    tables.give_back(first)
    assert tables.take() is first  # the table kept is handed out again, no new one made
    tables.give_back(first)
    tables.give_back(second)


def test_relative_values_compare_as_the_exact_ones() -> None:
    layouts = full_deal_layouts(12, 40)
    cards = tuple(card for card in range(32) if layouts[1] >> card & 1)[:4]
    for trump, betl, cap in ((0, False, None), (None, False, None), (None, True, 1)):
        exact = solver.solve_layouts(layouts, trump, betl, 0, 1, (), None, cards, threads=1, cap=cap)
        rel = solver.solve_layouts(layouts, trump, betl, 0, 1, (), None, cards, threads=1, cap=cap, relative=True)
        assert rel[0::4] == exact[0::4]  # the first card: exact
        for k in range(1, 4):
            for first, a, b in zip(exact[0::4], exact[k::4], rel[k::4], strict=True):
                assert (a > first) - (a < first) == (b > first) - (b < first)
                assert abs(b - first) <= 1


# --- property: native against reference on drawn positions of every shape -------------------------------------

Shape = tuple[str, int | None, bool]
SHAPES: list[Shape] = [("trump", 1, False), ("sans", None, False), ("betl", None, True)]
# The live reference on freshly drawn positions: the sample that changes from run to run, beside the thousands of
# seeded ones whose answers are recorded (tests/golden.py); each example costs the reference's full minimax.
PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def drawn_positions(draw: st.DrawFn, shape: Shape) -> tuple[tuple[int, int, int], int, int, tuple[int, ...], int]:
    """A deal of 4 or 5 cards each (enough for the table to matter), a declarer, a leader and 0-2 legal cards
    of the current trick."""
    _, trump, _ = shape
    size = draw(st.integers(4, 5))
    deck = draw(st.permutations(range(32)))
    hands = [sum(1 << card for card in deck[k * size : (k + 1) * size]) for k in range(3)]
    leader = draw(st.integers(0, 2))
    trick: list[int] = []
    for k in range(draw(st.integers(0, 2))):
        seat = (leader + k) % 3
        card = draw(st.sampled_from(ref.legal_cards(hands[seat], trick[0] // 8 if trick else None, trump)))
        hands[seat] &= ~(1 << card)
        trick.append(card)
    return (hands[0], hands[1], hands[2]), draw(st.integers(0, 2)), (leader + len(trick)) % 3, tuple(trick), leader


KEPT = Solver(10)  # one small table across the examples: entries and the lead history carry over, as in use


@pytest.mark.parametrize("shape", SHAPES, ids=[shape[0] for shape in SHAPES])
@PROPS
@given(data=st.data())
def test_property_native_matches_reference_on_every_shape(shape: Shape, data: st.DataObject) -> None:
    """Every legal card's value, from a fresh table and from one kept across positions, and betl capped at one
    trick (what the Arbitar asks in betl), equal the pure-Python reference's."""
    _, trump, betl = shape
    hands, declarer, to_move, trick, leader = data.draw(drawn_positions(shape))
    expected = ref.solve(hands, trump, betl, declarer, to_move, trick, leader)
    assert solver.solve(hands, trump, betl, declarer, to_move, trick, leader) == expected
    native_trump = -1 if trump is None else trump
    kept = dict(KEPT.solve(hands, native_trump, betl, declarer, to_move, trick, leader if trick else -1))
    assert kept == expected
    if betl and expected:
        cards = tuple(sorted(expected))
        capped = solver.solve_layouts([hands], None, True, declarer, to_move, trick, leader, cards, 1, cap=1)
        assert list(capped) == [min(expected[card], 1) for card in cards]
