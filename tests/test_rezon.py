"""Rezon counting (rules/arbitar/rezon.py): the club text's three examples and each rule case by case."""

from __future__ import annotations

import pytest

from rules.arbitar.rezon import (
    Position,
    count_rezons,
    count_rezons_cards,
    parse_mask,
    side_suit_rezon,
    trump_tricks,
)

S, H, D, C = 0, 1, 2, 3


def hearts(ranks: str) -> int:
    return parse_mask([r + "H" for r in ranks.split()])


# --- the three examples of "Kako Arbitar odlučuje": all in herc, second seat, the first followed ------------


def test_example_one_rezon_is_obviously_bad() -> None:
    r = count_rezons_cards("AS 9S 7S JD QH 10H JC 10C 9C 7C", "H", position="second", first_followed=True)
    assert r.rezons == 1
    assert r.trump_tricks == 0
    assert r.aces == 1
    assert r.obviously_bad
    assert not r.meets_rules


def test_example_two_rezons_below_rules_not_obvious() -> None:
    r = count_rezons_cards("KS 9S 8S 9D 8D 7D AH 7H 10C 9C", "H", position="second", first_followed=True)
    assert r.rezons == 2
    assert r.trump_tricks == 1
    assert r.suit_rezons == (1.0, 0.0, 0.0, 0.0)
    assert not r.obviously_bad
    assert not r.meets_rules


def test_example_no_trump_one_ace_is_obviously_bad_whatever_the_kings() -> None:
    r = count_rezons_cards("AS 9S KD 8D 7D KC 10C 9C 8C 7C", "H", position="second", first_followed=True)
    assert r.trump_tricks == 0
    assert r.aces == 1
    assert r.rezons == 2.5  # pik A, karo K87, tref K10987 (half: longer than 3)
    assert r.obviously_bad
    assert not r.meets_rules


# --- trump tricks ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "tricks"),
    [
        ("A", 1),
        ("K", 0),
        ("K 7", 1),
        ("Q 8", 0),
        ("Q 8 7", 1),
        ("J 9 8", 0),
        ("J 9 8 7", 1),
        ("K Q", 1),
        ("K Q 8", 2),
        ("A Q", 1),
        ("A K", 2),
        ("Q J T", 1),
        ("Q J T 9", 2),
        ("K Q J T 7", 4),
        ("7", 0),
        ("A K Q J T 9 8 7", 8),
        ("", 0),
    ],
)
def test_trump_tricks(ranks: str, tricks: int) -> None:
    assert trump_tricks(hearts(ranks) if ranks else 0, H) == tricks


def test_no_trump_tricks_in_sans() -> None:
    assert trump_tricks(hearts("A K Q"), None) == 0


# --- side-suit rezons --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "talon", "value"),
    [
        ("AS", "", 1.0),
        ("KS", "", 0.0),
        ("KS 7S", "", 1.0),
        ("QS JS 9S", "", 0.0),
        ("AS KS", "", 1.0),  # one rezon per suit
        ("AS 9S 8S", "", 1.0),
        ("AS 9S 8S 7S", "", 0.5),  # longer than 3: half
        ("AS 9S 8S 7S", "10S 7D", 1.0),  # the declarer bought a lower card of the suit
        ("KS 9S 8S 7S", "AS 7D", 0.5),  # the bought card is higher than his K
        ("KS 10S 9S 7S", "8S 7D", 1.0),
        ("AS 9S 8S 7S", "7D 8D", 0.5),  # bought cards in another suit do not help
    ],
)
def test_side_suit_rezon(cards: str, talon: str, value: float) -> None:
    assert side_suit_rezon(parse_mask(cards), S, parse_mask(talon)) == value


def test_trump_suit_gives_trump_tricks_not_side_rezon() -> None:
    r = count_rezons_cards("AH KH", "H")
    assert r.trump_tricks == 2
    assert r.suit_rezons[H] == 0
    assert r.rezons == 2


# --- first defender: 2 rezons -----------------------------------------------------------------------------


def test_first_defender_two_rezons_meets() -> None:
    r = count_rezons_cards("AS 8S KD 9D 8H 7H 9C 8C 7C 10C", "H", position=Position.FIRST)
    assert r.rezons == 2
    assert r.meets_rules
    assert not r.obviously_bad
    assert r.requirement == "first"


def test_first_defender_one_and_a_half_is_below_but_not_obvious() -> None:
    r = count_rezons_cards("AS 9S 8S 7S KD 9D 8H 9C 8C 7C", "H", position="first")
    assert r.rezons == 1.5
    assert not r.meets_rules
    assert not r.obviously_bad


def test_first_defender_one_rezon_is_obviously_bad() -> None:
    r = count_rezons_cards("AS 9S 8S KH 7D 8D 9D 9C 8C 7C", "H", position="first")
    assert r.rezons == 1  # pik A; herc K alone is no trump trick
    assert r.obviously_bad


def test_first_defender_trump_trick_and_side_rezon() -> None:
    r = count_rezons_cards("KH 7H KS 9S 7D 8D 9D 9C 8C 7C", "H", position="first")
    assert (r.trump_tricks, r.rezons) == (1, 2)
    assert r.meets_rules


# --- second defender after the first followed ------------------------------------------------------------


def test_second_three_rezons_meets() -> None:
    r = count_rezons_cards("AS 9S 8S KD 9D 7D KC 7C 9C 8H", "H", position="second")
    assert r.rezons == 3
    assert r.trump_tricks == 0
    assert r.meets_rules


def test_second_two_trump_tricks_alone_meet() -> None:
    r = count_rezons_cards("AH KH 9S 8S 7S 9D 8D 7D 9C 8C", "H", position="second")
    assert (r.trump_tricks, r.rezons) == (2, 2)
    assert r.meets_rules


def test_second_trump_trick_and_rezon_with_ace_meets() -> None:
    r = count_rezons_cards("AH 7H AS 9S 8S 9D 8D 7D 9C 8C", "H", position="second")
    assert r.rezons == 2
    assert r.meets_rules


def test_second_trump_trick_and_king_rezon_does_not_meet() -> None:
    r = count_rezons_cards("AH 7H KS 9S 8S 9D 8D 7D 9C 8C", "H", position="second")
    assert r.rezons == 2
    assert not r.meets_rules
    assert not r.obviously_bad


def test_second_trump_trick_and_two_more_rezons_meets() -> None:
    r = count_rezons_cards("KH 7H KS 9S KD 8D 7D 10C 9C 8C", "H", position="second")
    assert (r.trump_tricks, r.rezons) == (1, 3)
    assert r.meets_rules


def test_second_two_short_aces_with_a_bought_card_meet() -> None:
    hand = "AS 9S 8S 7S AD 9D 8H 9C 8C 7C"  # pik A (4 cards: half), karo A, trump 8
    r = count_rezons_cards(hand, "H", talon="7D QH", position="second")
    assert r.trump_tricks == 0
    assert r.aces == 2
    assert r.rezons == 1.5
    assert r.meets_rules


def test_second_two_short_aces_without_a_bought_card_do_not_meet() -> None:
    r = count_rezons_cards("AS 9S 8S 7S AD 9D 8H 9C 8C 7C", "H", talon="QH JC", position="second")
    assert not r.meets_rules
    assert not r.obviously_bad


def test_second_two_aces_one_in_a_long_suit_do_not_meet() -> None:
    r = count_rezons_cards("AS 10S 9S 8S 7S AD 8H 9C 8C 7C", "H", talon="JS QH", position="second")
    assert not r.meets_rules


def test_second_after_first_passed_may_follow_on_anything() -> None:
    r = count_rezons_cards("9S 8S 7S 9D 8D 7D 10C 9C 8C 7C", "H", position="second", first_followed=False)
    assert r.rezons == 0
    assert r.meets_rules
    assert not r.obviously_bad
    assert r.requirement == "second-after-pass"


def test_first_followed_flag_does_not_change_the_first_defender() -> None:
    r = count_rezons_cards("9S 8S 7S 9D 8D 7D 10C 9C 8C 7C", "H", position="first", first_followed=False)
    assert not r.meets_rules
    assert r.obviously_bad


# --- no trump at all: at least 2 aces at any position ----------------------------------------------------


def test_no_trump_needs_two_aces_even_with_enough_rezons() -> None:
    r = count_rezons_cards("AS 9S 8S KD 8D 7D KC 10C 9C 7C", "H", talon="8C 8H", position="first")
    assert r.rezons == 3
    assert r.aces == 1
    assert not r.meets_rules
    assert r.obviously_bad


def test_no_trump_with_two_aces_and_rezons_meets() -> None:
    r = count_rezons_cards("AS 9S 8S AD 8D 7D KC 10C 9C 7C", "H", talon="8C 8H", position="first")
    assert r.aces == 2
    assert r.rezons == 3
    assert r.meets_rules
    assert not r.obviously_bad


def test_no_trump_two_aces_still_need_the_positional_rezons() -> None:
    r = count_rezons_cards("AS 9S 8S 7S AD 10D 9D 8D 7C 8C", "H", position="first")
    assert r.aces == 2
    assert r.rezons == 1.0
    assert not r.meets_rules
    assert r.obviously_bad


def test_sans_needs_two_aces_too() -> None:
    """decisions.md: in sans there is no trump at all, so a follower needs at least 2 aces."""
    r = count_rezons_cards("AS 9S 8S KD 8D 7D KC 10C 9C 7C", None, talon="8C 8H", position="first")
    assert r.aces == 1
    assert r.rezons == 3
    assert not r.meets_rules
    assert r.obviously_bad
    r = count_rezons_cards("AS 9S 8S AD 8D 7D KC 10C 9C 7C", None, talon="8C 8H", position="first")
    assert r.aces == 2
    assert r.meets_rules
    assert not r.obviously_bad
    none = count_rezons_cards("KS 9S 8S KD 8D 7D KC 10C 9C 7C", None, position="second")
    assert none.aces == 0
    assert not none.meets_rules
    assert none.obviously_bad


def test_sans_second_after_a_pass_still_may_follow_on_anything() -> None:
    r = count_rezons_cards("KS 9S 8S KD 8D 7D KC 10C 9C 7C", None, position="second", first_followed=False)
    assert r.meets_rules
    assert not r.obviously_bad


def test_second_trump_trick_and_half_rezon_ace_does_not_meet() -> None:
    """decisions.md: "1 adutski štih i jedan rezon sa A" needs a full rezon; a six-card ace suit counts half."""
    half = count_rezons_cards("AH 7H AS QS 10S 9S 8S 7S 9D 8D", "H", position="second")
    assert half.trump_tricks == 1
    assert half.suit_rezons[0] == 0.5
    assert not half.meets_rules
    bought = count_rezons_cards("AH 7H AS QS 10S 9S 8S 7S 9D 8D", "H", talon="JS 7C", position="second")
    assert bought.suit_rezons[0] == 1.0
    assert bought.meets_rules


# --- AQ in a suit where the declarer bought two cards ------------------------------------------------------


def test_aq_where_declarer_bought_two_cards_allows_following() -> None:
    r = count_rezons_cards("AD QD 9S 8S 7S 10C 9C 8C 7C 8D", "H", talon="7D JD", position="second")
    assert r.rezons == 1
    assert r.aces == 1
    assert r.meets_rules
    assert not r.obviously_bad
    assert r.requirement == "second+aq"


def test_ak_counts_as_at_least_aq() -> None:
    r = count_rezons_cards("AD KD 9S 8S 7S 10C 9C 8C 7C 8D", "H", talon="7D JD", position="first")
    assert r.meets_rules


def test_aq_exception_declarer_last_after_two_passes() -> None:
    r = count_rezons_cards(
        "AD QD 9S 8S 7S 10C 9C 8C 7C 8D", "H", talon="7D JD", position="second", declarer_last_after_passes=True
    )
    assert not r.meets_rules
    assert r.obviously_bad


def test_aq_needs_both_bought_cards_in_the_suit() -> None:
    r = count_rezons_cards("AD QD 9S 8S 7S 10C 9C 8C 7C 8D", "H", talon="7D JS", position="second")
    assert not r.meets_rules


def test_aj_is_not_aq() -> None:
    r = count_rezons_cards("AD JD 9S 8S 7S 10C 9C 8C 7C 8D", "H", talon="7D QD", position="second")
    assert not r.meets_rules


# --- input handling ----------------------------------------------------------------------------------------


def test_card_spellings_and_masks_agree() -> None:
    by_text = count_rezons_cards("AS 10H TD KC 7C", "S")
    by_mask = count_rezons(parse_mask(["AS", "TH", "10D", "KC", "7C"]), S)
    assert by_text == by_mask
    assert count_rezons_cards(["AS"], "none").trump_tricks == 0


def test_explanation_names_the_rezons() -> None:
    r = count_rezons_cards("AS 9S 7S JD QH 10H JC 10C 9C 7C", "H", position="second")
    assert any("♠ A 9 7" in line for line in r.explanation)
    assert any("očigledno" in line for line in r.explanation)


@pytest.mark.parametrize(
    ("hand", "talon"),
    [("AS AS", ""), ("AS 9S", "AS 7D"), ("XS", ""), ("AS", "1D")],
)
def test_bad_input_is_rejected(hand: str, talon: str) -> None:
    with pytest.raises(ValueError, match=r"card given twice|disjoint|not a card"):
        count_rezons_cards(hand, "H", talon=talon)


def test_bad_position_is_rejected() -> None:
    with pytest.raises(ValueError, match="not a valid Position"):
        count_rezons_cards("AS", "H", position="third")
