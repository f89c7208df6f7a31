"""The opening lead (polaz) is the referee's to judge, not the Arbitar's: "Sve što pravila ostavljaju proceni
sudije (… polaz …) Arbitar ne presuđuje: tada odgovara „nije očigledna greška“, pad ostaje". Each hand here was
found by judging the opening lead like any other card, and its verdict changed at exactly that point."""

from __future__ import annotations

import random

import pytest

import rules.arbitar.procedure as procedure
from rules.arbitar.procedure import NOT_OBVIOUS, STAYS, arbitrate
from rules.gamelog import Game
from rules.generator import generate_game


def _game(number: int) -> Game:
    return generate_game(random.Random(number - 1), number, hands=30)


def test_the_fallen_players_own_polaz_leaves_a_fall_that_would_move_with_him_not_obvious() -> None:
    game = _game(5)
    verdict = arbitrate(game, 4, 0)
    assert (verdict.decision, verdict.step, verdict.reason) == (STAYS, None, NOT_OBVIOUS)
    assert (verdict.evidence["lead_player"], verdict.evidence["lead_trick"], verdict.evidence["lead_card"]) == (
        "jelena",
        1,
        "A♦",
    )


def test_the_other_defenders_polaz_never_moves_a_fall() -> None:
    verdict = arbitrate(_game(5), 14, 2)
    assert verdict.decision == STAYS
    assert verdict.reason == NOT_OBVIOUS
    assert verdict.evidence.get("trick") != 1


@pytest.mark.parametrize(("number", "hand", "fallen"), [(5, 4, 0), (5, 14, 2)])
def test_judged_like_any_card_the_polaz_would_have_decided(
    monkeypatch: pytest.MonkeyPatch, number: int, hand: int, fallen: int
) -> None:
    """The boundary: with the opening lead judged as an ordinary card these verdicts differ."""
    ruled = arbitrate(_game(number), hand, fallen)
    monkeypatch.setattr(procedure, "is_opening_lead", lambda moment: False)
    as_any_card = arbitrate(_game(number), hand, fallen)
    assert as_any_card.evidence.get("trick") == 1
    assert (as_any_card.decision, as_any_card.step) != (ruled.decision, ruled.step)
