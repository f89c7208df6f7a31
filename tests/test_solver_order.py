"""The native solver's move ordering (the table's lead first, then the killer lead per seat and tricks left, then
the history of leads) never changes a value: a Solver that keeps what it learnt from earlier positions, where
the killer and history cards may now lie in another hand or be gone, agrees with the reference and with a
Solver that starts empty."""

from __future__ import annotations

import random

import pytest

import golden
from rules.arbitar._dds import Solver

SHAPES = [("trump", 2, False), ("sans", None, False), ("betl", None, True)]


def deal(rng: random.Random, size: int) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << card for card in deck[k * size : (k + 1) * size]) for k in range(3)]


def swap_one_card(rng: random.Random, hands: list[int]) -> list[int]:
    """One card of one hand changes places with one of another hand (as the Arbitar's layouts do): the killer
    lead found for a seat on the previous position may now belong to another seat."""
    a, b = rng.sample(range(3), 2)
    ca = rng.choice([card for card in range(32) if hands[a] >> card & 1])
    cb = rng.choice([card for card in range(32) if hands[b] >> card & 1])
    out = list(hands)
    out[a] = out[a] & ~(1 << ca) | 1 << cb
    out[b] = out[b] & ~(1 << cb) | 1 << ca
    return out


@pytest.mark.parametrize(("trump", "betl"), [(t, b) for _, t, b in SHAPES], ids=[s[0] for s in SHAPES])
def test_kept_killer_and_history_leads_never_change_a_value(trump: int | None, betl: bool) -> None:
    """A chain of 4-card positions, each one card away from the one before, through one kept Solver: every
    legal card's value equals the reference's, whoever leads and whoever declares."""
    rng = random.Random(20261201 + (trump or 0) + 7 * betl)
    native = Solver(10)
    for declarer in range(3):
        hands = deal(rng, 4)
        for _ in range(12):
            hands = swap_one_card(rng, hands)
            leader = rng.randrange(3)
            position = (hands[0], hands[1], hands[2])
            expected = golden.solve(position, trump, betl, declarer, leader)
            got = dict(native.solve(position, -1 if trump is None else trump, betl, declarer, leader))
            assert got == expected, (position, trump, betl, declarer, leader)


@pytest.mark.parametrize(("trump", "betl"), [(t, b) for _, t, b in SHAPES], ids=[s[0] for s in SHAPES])
def test_full_deals_valued_alike_by_a_kept_and_a_fresh_solver(trump: int | None, betl: bool) -> None:
    """Full 10-card deals (where the killer leads cut the most): a Solver that keeps its table, killers and
    history from deal to deal gives the same values as one cleared before each deal."""
    rng = random.Random(14 + (trump or 0) + 3 * betl)
    kept, fresh = Solver(16), Solver(16)
    native_trump = -1 if trump is None else trump
    for _ in range(20):
        hands = deal(rng, 10)
        leader = rng.randrange(3)
        fresh.clear()
        expected = fresh.solve((hands[0], hands[1], hands[2]), native_trump, betl, 0, leader)
        assert kept.solve((hands[0], hands[1], hands[2]), native_trump, betl, 0, leader) == expected
