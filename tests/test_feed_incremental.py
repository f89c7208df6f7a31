"""The live feed checks a finished hand against the stored game (`LiveFeed._next_hand`: the hand read alone and
validated as the next one), not the whole game again: it refuses exactly the hands whose game the whole-game
check (the log read and `rules.validation.validate_game`, what a file import runs) refuses. Random games, a random
hand of each, changed in one or two of the ways a game server gets a hand wrong (`tests/test_validate_next_hand.py`
compares the problems themselves)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.gameserver.feed import LiveFeed
from bot.gameserver.protocol import ProtocolError
from rules.gamelog import GameStatus, LogError, game_to_doc, parse_game
from rules.generator import generate_game
from rules.validation import validate_game

Doc = dict[str, Any]
CALLS = ("dalje", "igra", "2", "3", "4", "5", "6", "7", "betl", "sans")


def _swap_deal(hand: Doc, rng: random.Random) -> None:
    a, b = rng.sample(list(hand["deal"]), 2)
    i, j = rng.randrange(len(hand["deal"][a])), rng.randrange(len(hand["deal"][b]))
    hand["deal"][a][i], hand["deal"][b][j] = hand["deal"][b][j], hand["deal"][a][i]


def _dealer(hand: Doc, rng: random.Random) -> None:
    hand["dealer"] = rng.choice([p for p in hand["deal"] if p not in ("talon", hand["dealer"])])


def _number(hand: Doc, rng: random.Random) -> None:
    hand["n"] += rng.choice((-1, 1, 2))


def _ended_early(hand: Doc, rng: random.Random) -> None:
    hand["ended_at"] = rng.choice(("2026-01-01T00:00:00Z", "2020-06-01T12:00:00Z"))


def _tricks_cut(hand: Doc, rng: random.Random) -> None:
    if hand.get("tricks"):
        hand["tricks"] = hand["tricks"][: rng.randrange(len(hand["tricks"]))]


def _trick_order(hand: Doc, rng: random.Random) -> None:
    if hand.get("tricks"):
        trick = hand["tricks"][rng.randrange(len(hand["tricks"]))]
        trick[0], trick[-1] = trick[-1], trick[0]


def _bid(hand: Doc, rng: random.Random) -> None:
    if hand.get("bids"):
        hand["bids"][rng.randrange(len(hand["bids"]))]["call"] = rng.choice(CALLS)


def _declarer(hand: Doc, rng: random.Random) -> None:
    players = [p for p in hand["deal"] if p != "talon"]
    hand["declarer"] = rng.choice(players)


def _strain(hand: Doc, rng: random.Random) -> None:
    if isinstance(hand.get("contract"), dict):
        hand["contract"]["strain"] = rng.choice(("pik", "karo", "herc", "tref", "betl", "sans"))


def _defense(hand: Doc, rng: random.Random) -> None:
    if isinstance(hand.get("defense"), dict) and hand["defense"]:
        who = rng.choice(list(hand["defense"]))
        hand["defense"][who] = rng.choice(("follows", "passes", "calls"))


def _unchanged(hand: Doc, rng: random.Random) -> None:
    return None


CHANGES: tuple[Callable[[Doc, random.Random], None], ...] = (
    _unchanged,
    _swap_deal,
    _dealer,
    _number,
    _ended_early,
    _tricks_cut,
    _trick_order,
    _bid,
    _declarer,
    _strain,
    _defense,
)


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    at=st.integers(0, 7),
    change=st.sampled_from(CHANGES),
    twice=st.sampled_from(CHANGES),
)
def test_the_feed_refuses_a_hand_exactly_when_the_whole_game_check_does(
    seed: int, at: int, change: Callable[[Doc, random.Random], None], twice: Callable[[Doc, random.Random], None]
) -> None:
    rng = random.Random(seed)
    game = generate_game(rng, 7000 + seed, hands=9, status=GameStatus.IN_PROGRESS, open_last=False)
    completed = tuple(h for h in game.hands if h.completed)
    at = min(at, len(completed) - 1)
    stored = replace(game, hands=completed[:at])
    doc = game_to_doc(replace(game, hands=completed[: at + 1]))
    hand = copy.deepcopy(doc["hands"][at])
    change(hand, rng)
    twice(hand, rng)

    try:
        whole = validate_game(parse_game({**doc, "hands": [*doc["hands"][:at], hand]}))
    except LogError as exc:
        whole = list(exc.problems)
    if whole:
        with pytest.raises(ProtocolError):
            LiveFeed._next_hand(stored, hand)
        return
    grown = LiveFeed._next_hand(stored, hand)  # taken: no ProtocolError
    assert grown.hands[:at] == completed[:at]
    assert len(grown.hands) == at + 1
    assert validate_game(grown) == []
