"""Who may cancel what of a hand's corrections (rules.cancelling), decided without the desk or storage."""

from __future__ import annotations

import pytest

from rules.cancelling import Cancel, Cancellable, CancelRefused, what_to_cancel


def refusal(hand: Cancellable, seat: int, what: Cancel | None = None) -> tuple[str, dict[str, object]]:
    with pytest.raises(CancelRefused) as raised:
        what_to_cancel(hand, seat, what)
    return raised.value.key, raised.value.params


def test_each_correction_is_cancelled_by_its_own_player_only() -> None:
    assert what_to_cancel(Cancellable(odlazak=1), 1) is Cancel.BULA
    assert what_to_cancel(Cancellable(ispravka=2), 2) is Cancel.ISPRAVKA
    assert what_to_cancel(Cancellable(proposal=0), 0) is Cancel.PROPOSAL
    assert what_to_cancel(Cancellable(offer=1), 1) is Cancel.ARBITAR
    assert refusal(Cancellable(odlazak=1, ispravka=2, offer=0), 1, Cancel.ISPRAVKA) == (
        "correction.nothing_to_cancel",
        {},
    )
    assert refusal(Cancellable(), 0) == ("correction.nothing_to_cancel", {})


def test_a_player_who_may_cancel_two_names_which() -> None:
    both = Cancellable(odlazak=1, offer=1)
    assert refusal(both, 1) == ("correction.which_cancel", {"options": "bula, arbitar"})
    assert what_to_cancel(both, 1, Cancel.ARBITAR) is Cancel.ARBITAR


def test_an_odlazak_imposed_by_a_referee_or_the_arbitar_is_never_cancelled() -> None:
    assert refusal(Cancellable(odlazak=1, odlazak_by_referee=True), 1) == ("correction.referee_imposed", {})
    assert refusal(Cancellable(odlazak=1, odlazak_by_arbitar=True), 1) == ("correction.arbitar_imposed", {})
    assert what_to_cancel(Cancellable(odlazak=1, odlazak_by_arbitar=True, offer=1), 1, Cancel.ARBITAR) is Cancel.ARBITAR
