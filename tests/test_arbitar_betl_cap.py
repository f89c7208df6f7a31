"""Betl's capped query (issue 14): the Arbitar asks only "does the declarer take a trick", never the full count.

Betl stops at the declarer's first trick (decisions.md), so the procedure's real-layout values are capped at one
trick. `solver.solve(..., cap=c)` answers that with searches bounded at ``c`` instead of counting every trick
and capping after; the pure-Python reference gives the same capped answer. These tests show the two paths
agree: value by value on seeded betl positions, and verdict by verdict (the same JSON bytes) on seeded
disputed betl hands with kontra, judged once with the capped query and once with the full count capped after.
"""

from __future__ import annotations

import functools
import json
import random

import pytest

from rules.arbitar import dds_reference as ref
from rules.arbitar import procedure, solver
from rules.arbitar.layouts import Moment, PlayedHand, played_hand
from rules.arbitar.procedure import arbitrate, real_values, value_cap
from rules.cards import cards_of
from rules.gamelog import Game
from rules.generator import best_discards, betl_estimate, make_game, make_hand
from rules.paper_hand import DefenceShape, HandCase, hand_facts


def random_position(rng: random.Random, size: int) -> tuple[tuple[int, int, int], int, tuple[int, ...], int | None]:
    """A random betl position with ``size`` cards in the mover's hand, possibly mid-trick."""
    deck = list(range(32))
    rng.shuffle(deck)
    played = rng.randrange(3)
    leader = rng.randrange(3)
    trick = tuple(deck[:played])
    rest = deck[played:]
    hands = [0, 0, 0]
    at = 0
    for k in range(3):
        seat = (leader + k) % 3
        count = size - 1 if k < played else size
        hands[seat] = sum(1 << c for c in rest[at : at + count])
        at += count
    to_move = (leader + played) % 3
    return (hands[0], hands[1], hands[2]), to_move, trick, leader if trick else None


def full_then_capped(values: dict[int, int], cap: int) -> dict[int, int]:
    return {card: min(value, cap) for card, value in values.items()}


def test_capped_solve_is_the_full_count_capped_on_full_deals() -> None:
    """Full 10-card betl deals, every lead, every declarer seat: cap 0, 1 and 2 are the full count capped."""
    rng = random.Random(1401)
    for _ in range(40):
        hands, to_move, trick, leader = random_position(rng, 10)
        declarer = rng.randrange(3)
        full = solver.solve(hands, None, True, declarer, to_move, trick, leader)
        assert full
        for cap in (0, 1, 2):
            assert solver.solve(hands, None, True, declarer, to_move, trick, leader, cap=cap) == full_then_capped(
                full, cap
            )


def test_capped_solve_matches_the_reference_on_endings() -> None:
    """Small betl (and one trump) endings: native and reference give the same capped answer, the full count
    capped after."""
    rng = random.Random(1402)
    for k in range(60):
        hands, to_move, trick, leader = random_position(rng, 1 + k % 4)
        declarer = rng.randrange(3)
        trump, betl = (None, True) if k % 5 else (rng.randrange(4), False)
        full = ref.solve(hands, trump, betl, declarer, to_move, trick, leader)
        for cap in (0, 1, 3):
            expected = full_then_capped(full, cap)
            assert ref.solve(hands, trump, betl, declarer, to_move, trick, leader, cap=cap) == expected
            assert solver.solve(hands, trump, betl, declarer, to_move, trick, leader, cap=cap) == expected


@pytest.mark.parametrize("cap", [-1, 11])
def test_a_cap_out_of_range_is_refused(cap: int) -> None:
    hands, to_move, trick, leader = random_position(random.Random(3), 3)
    with pytest.raises(ValueError, match="cap"):
        solver.solve(hands, None, True, 0, to_move, trick, leader, cap=cap)
    with pytest.raises(ValueError, match="cap"):
        ref.solve(hands, None, True, 0, to_move, trick, leader, cap=cap)


def _text(mask: int) -> str:
    return " ".join(str(c) for c in cards_of(mask))


def betl_kontra_hands(seed: int, count: int) -> list[tuple[Game, int]]:
    """Seeded disputed betl hands with kontra (the only betl where a defender can fall), played by the
    generator's heuristic as `bench/arbitar.py` builds them: (game, fallen seat)."""
    rng = random.Random(seed)
    found: list[tuple[Game, int]] = []
    while len(found) < count:
        deck = list(range(32))
        rng.shuffle(deck)
        masks = [sum(1 << c for c in deck[k * 10 : (k + 1) * 10]) for k in range(3)]
        talon = (1 << deck[30]) | (1 << deck[31])
        play_rng = random.Random(rng.randrange(1 << 30))
        declarer = max(range(3), key=lambda s: betl_estimate(masks[s] | talon))
        if betl_estimate(masks[declarer] | talon) < 6.5:
            continue
        giver = (declarer + 1 + rng.randrange(2)) % 3
        try:
            hand = make_hand(
                [_text(m) for m in (*masks, talon)],
                dealer=(declarer + 2) % 3,
                bids="6 dalje dalje",
                contract="betl",
                discards=_text(best_discards(masks[declarer] | talon, 6)),
                defense="follows follows",
                kontra=(giver,),
                rng=play_rng,
                noise=0.05,
                stop=rng.random() < 0.5,
                n=1,
            )
        except ValueError:
            continue
        facts = hand_facts(hand)
        if facts.case is not HandCase.PLAYED or facts.plain.shape is not DefenceShape.BETL or not hand.kontra:
            continue
        fallen = [seat for seat in facts.plain.fallen if seat != hand.declarer]
        if fallen:
            found.append((make_game([hand], number=20_000 + len(found)), fallen[0]))
    return found


def full_count_real_values(played: PlayedHand, moment: Moment) -> dict[int, int]:
    """The path before the capped query: every trick counted in full, then capped at `value_cap`."""
    values = solver.solve(
        moment.hands,
        played.trump,
        played.betl,
        played.declarer,
        moment.seat,
        moment.before,
        moment.leader if moment.before else None,
    )
    cap = value_cap(played, moment)
    return values if cap is None else full_then_capped(values, cap)


@functools.cache
def seeded() -> list[tuple[Game, int]]:
    """The seeded hands, made when a test first asks (not while the module is collected)."""
    return betl_kontra_hands(1406, 39)


def chosen() -> list[tuple[Game, int]]:
    """Of them: one where no defender card mattered (stays, no step), the fallen player's own error (stays,
    step 1), and two where the other defender's error moved the fall (transfer, step 1); small views keep them
    quick."""
    return [seeded()[k] for k in (0, 19, 20, 38)]


def test_real_values_in_betl_are_the_full_count_capped() -> None:
    """Every defender card of seeded kontra-betl hands: the capped query gives what the full count capped gives,
    and it is capped (0 or 1: the declarer's first trick, 0 once he has it)."""
    moments = 0
    for game, _ in seeded()[:8] + chosen():
        played = played_hand(game.hands[0])
        assert played.betl
        for moment in played.moments:
            if moment.seat == played.declarer:
                continue
            capped = real_values(played, moment)
            assert capped == full_count_real_values(played, moment)
            assert set(capped.values()) <= {0, 1}
            moments += 1
    assert moments > 40


def test_betl_verdicts_are_the_same_bytes_as_with_the_full_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kontra-betl verdicts through `arbitrate`, with the capped query and with the full count capped after:
    the same JSON bytes, over a mix of verdicts (no step; the fallen player's error; a transfer)."""
    capped = []
    for game, fallen in chosen():
        solver.clear_tables()
        capped.append(json.dumps(arbitrate(game, 1, fallen).to_json(game.players), ensure_ascii=False))
    monkeypatch.setattr(procedure, "real_values", full_count_real_values)
    full = []
    for game, fallen in chosen():
        solver.clear_tables()
        full.append(json.dumps(arbitrate(game, 1, fallen).to_json(game.players), ensure_ascii=False))
    assert capped == full
    kinds = sorted((verdict["decision"], verdict["step"] or 0) for verdict in map(json.loads, capped))
    assert kinds == [("stays", 0), ("stays", 1), ("transfer", 1), ("transfer", 1)]
