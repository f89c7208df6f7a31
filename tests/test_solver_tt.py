"""The native table in betl: its buckets are chosen by the shape and by who holds each suit's top card, and that
choice only decides where an entry can be found, never what it answers. Tables kept from position to position,
with the top cards moving between hands and tiny tables where many shapes share a bucket, agree with the
reference; a position solved again finds the entries its first search stored."""

from __future__ import annotations

import random

from test_solver_order import deal

import golden
from rules.arbitar import dds_reference as ref
from rules.arbitar._dds import Solver


def move_a_top_card(rng: random.Random, hands: list[int]) -> list[int]:
    """The top card of a suit in play changes hands with a card of another hand: the position's top-card owners
    change (so its bucket does), its shape stays."""
    allcards = hands[0] | hands[1] | hands[2]
    suits = [s for s in range(4) if allcards >> (8 * s) & 0xFF]
    s = rng.choice(suits)
    top = max(card for card in range(8 * s, 8 * s + 8) if allcards >> card & 1)
    a = next(k for k in range(3) if hands[k] >> top & 1)
    b = rng.choice([k for k in range(3) if k != a and hands[k]])
    cb = rng.choice([card for card in range(32) if hands[b] >> card & 1])
    out = list(hands)
    out[a] = out[a] & ~(1 << top) | 1 << cb
    out[b] = out[b] & ~(1 << cb) | 1 << top
    return out


def test_kept_betl_tables_agree_with_the_reference_as_top_cards_move() -> None:
    """Chains of 4- and 5-card betl positions through one kept tiny table (16 buckets): each step moves a top
    card to another hand, so entries stored under one top-card layout meet positions of another in the same
    bucket (and of other shapes); every legal card's value equals the reference's."""
    rng = random.Random(20261201)
    native = Solver(8)
    compared = 0
    for declarer in range(3):
        for size in (4, 5):
            hands = deal(rng, size)
            for _ in range(8):
                hands = move_a_top_card(rng, hands)
                leader = rng.randrange(3)
                position = (hands[0], hands[1], hands[2])
                expected = golden.solve(position, None, True, declarer, leader)
                got = dict(native.solve(position, -1, True, declarer, leader))
                assert got == expected, (position, declarer, leader)
                compared += 1
    assert compared == 3 * 2 * 8


def test_betl_mid_trick_positions_agree_with_the_reference_in_a_kept_table() -> None:
    """Random betl positions with 0-2 cards of the trick played, one kept table of 64 buckets."""
    rng = random.Random(14)
    native = Solver(10)
    for _ in range(60):
        size, leader, played = rng.randint(2, 5), rng.randrange(3), rng.randrange(3)
        hands = deal(rng, size)
        trick: list[int] = []
        for k in range(played):
            seat = (leader + k) % 3
            card = rng.choice(ref.legal_cards(hands[seat], trick[0] // 8 if trick else None, None))
            hands[seat] &= ~(1 << card)
            trick.append(card)
        position = (hands[0], hands[1], hands[2])
        to_move = (leader + played) % 3
        expected = golden.solve(position, None, True, 0, to_move, tuple(trick), leader)
        got = dict(native.solve(position, -1, True, 0, to_move, tuple(trick), leader))
        assert got == expected, (position, to_move, trick, leader)


def test_a_betl_deal_solved_again_finds_what_its_first_search_stored() -> None:
    """The probe and the store of a node use the same bucket: the same 8-card betl deal solved a second time in
    the kept table takes a small fraction of the first search's nodes (a store in a bucket the probe never
    reads would make the second search as long as the first)."""
    rng = random.Random(3)
    native = Solver(16)
    dealt = deal(rng, 8)
    hands = (dealt[0], dealt[1], dealt[2])
    first = dict(native.solve(hands, -1, True, 0, 0))
    after_first = native.stats()["nodes"]
    again = dict(native.solve(hands, -1, True, 0, 0))
    second = native.stats()["nodes"] - after_first
    assert again == first
    assert second * 5 < after_first, (after_first, second)
