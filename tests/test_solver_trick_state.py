"""The native search's trick state: the card winning the trick so far is found once at the start of a search and
then carried from node to node (not re-derived from the cards on the table), and each strain runs its own
compiled copy of the search. Positions entered mid-trick where the winning card is not the led one (overtaken
or ruffed) are where a stale or wrong winner would show; they are compared with the reference, on one Solver
kept across strains, trump suits and positions so that nothing of a previous search leaks into the next."""

from __future__ import annotations

import random

import golden
from rules.arbitar import dds_reference as ref
from rules.arbitar._dds import Solver

STRAINS: list[tuple[int | None, bool]] = [(None, False), (0, False), (1, False), (2, False), (3, False), (None, True)]


def beats(card: int, winner: int, trump: int | None) -> bool:
    if card // 8 == winner // 8:
        return card > winner
    return trump is not None and card // 8 == trump


def led_into_an_overtake(
    rng: random.Random, size: int, trump: int | None, leader: int
) -> tuple[tuple[int, int, int], int, bool] | None:
    """`size` cards each and a led card that the second player can beat (by a higher card or by ruffing), with
    whether he ruffs; None when he cannot beat it."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[i * size : (i + 1) * size]) for i in range(3)]
    first = rng.choice(ref.legal_cards(hands[leader], None, trump))
    hands[leader] &= ~(1 << first)
    legal = ref.legal_cards(hands[(leader + 1) % 3], first // 8, trump)
    over = [c for c in legal if beats(c, first, trump)]
    if not over:
        return None
    return (hands[0], hands[1], hands[2]), first, over[0] // 8 != first // 8


def test_the_second_card_overtaking_the_led_one_matches_the_reference() -> None:
    # Every legal card of the second player is valued: the search after it starts with two cards on the table,
    # the second winning (it overtook or ruffed) or not.
    rng = random.Random(20261201)
    native = Solver(12)
    compared = ruffed = 0
    while compared < 240:
        trump, betl = STRAINS[compared % len(STRAINS)]
        leader, declarer = rng.randrange(3), rng.randrange(3)
        found = led_into_an_overtake(rng, rng.randint(2, 4), trump, leader)
        if found is None:
            continue
        hands, first, ruffs = found
        ruffed += ruffs
        to_move = (leader + 1) % 3
        expected = golden.solve(hands, trump, betl, declarer, to_move, (first,), leader)
        got = dict(native.solve(hands, -1 if trump is None else trump, betl, declarer, to_move, (first,), leader))
        assert got == expected, (hands, trump, betl, declarer, first, leader)
        compared += 1
    assert ruffed > 0  # both ways of overtaking were met


def test_one_card_on_the_table_and_whole_tricks_match_the_reference_on_a_kept_table() -> None:
    rng = random.Random(20261202)
    native = Solver(12)
    for k in range(180):
        trump, betl = STRAINS[k % len(STRAINS)]
        size, leader, declarer = rng.randint(2, 5), rng.randrange(3), rng.randrange(3)
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[i * size : (i + 1) * size]) for i in range(3)]
        trick: tuple[int, ...] = ()
        if k % 2:
            first = rng.choice(ref.legal_cards(hands[leader], None, trump))
            hands[leader] &= ~(1 << first)
            trick = (first,)
        position = (hands[0], hands[1], hands[2])
        to_move = (leader + len(trick)) % 3
        expected = golden.solve(position, trump, betl, declarer, to_move, trick, leader)
        got = dict(native.solve(position, -1 if trump is None else trump, betl, declarer, to_move, trick, leader))
        assert got == expected, (position, trump, betl, declarer, trick, leader)
