"""`validate_next_hand` (the live feed's check of one more hand) reports what `validate_game` reports for the game
with that hand added: nothing for every hand of legal games, and the same problems for broken ones."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.validation import validate_game, validate_next_hand


def games() -> list[Game]:
    return [
        generate_game(random.Random(seed), 4000 + seed, hands=12, status=GameStatus.IN_PROGRESS, open_last=False)
        for seed in range(6)
    ]


def test_every_hand_of_a_legal_game_fits_the_hands_before() -> None:
    for game in games():
        completed = tuple(h for h in game.hands if h.completed)
        for i, hand in enumerate(completed):
            assert validate_next_hand(replace(game, hands=completed[:i]), hand) == [], (game.number, i)


def test_a_broken_hand_gets_the_problems_the_whole_game_check_finds() -> None:
    for game in games():
        completed = tuple(h for h in game.hands if h.completed)
        before, hand = replace(game, hands=completed[:5]), completed[5]
        assert hand.ended_at is not None
        assert completed[4].ended_at is not None
        broken = [
            replace(hand, n=7),
            replace(hand, dealer=(hand.dealer + 1) % 3),
            replace(hand, ended_at=completed[4].ended_at - timedelta(seconds=1)),
            replace(hand, deal=((*hand.deal[0][:-1], hand.talon[0]), hand.deal[1], hand.deal[2])),
        ]
        if len(hand.tricks) > 1:
            broken.append(replace(hand, tricks=hand.tricks[:1]))  # play stops before the result is decided
        for bad in broken:
            found = validate_next_hand(before, bad)
            whole = validate_game(replace(before, hands=(*before.hands, bad)))
            assert found, (found, whole)
            assert found == whole, (found, whole)
