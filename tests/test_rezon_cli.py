"""`sudija rezon`: the club text's three examples through the command line, the stable JSON keys, the text
form, and exit status 2 for bad input."""

from __future__ import annotations

import json

import pytest

from bot.cli import main

KEYS = ["rezons", "trump_tricks", "aces", "obviously_bad", "meets_rules", "requirement", "explanation"]


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["rezon", *args, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize(
    ("cards", "rezons", "trump_tricks", "aces", "bad"),
    [
        ("AS 9S 7S JD QH TH JC TC 9C 7C", 1, 0, 1, True),  # one rezon: obviously bad
        ("KS 9S 8S 9D 8D 7D AH 7H TC 9C", 2, 1, 1, False),  # below the rules, not obvious
        ("AS 9S KD 8D 7D KC TC 9C 8C 7C", 2.5, 0, 1, True),  # no trump and one ace: obviously bad
    ],
)
def test_club_examples(
    capsys: pytest.CaptureFixture[str], cards: str, rezons: float, trump_tricks: int, aces: int, bad: bool
) -> None:
    out = run_json(capsys, "--trump", "H", "--cards", cards, "--seat", "second", "--first-followed")
    assert list(out) == KEYS
    assert (out["rezons"], out["trump_tricks"], out["aces"], out["obviously_bad"], out["meets_rules"]) == (
        rezons,
        trump_tricks,
        aces,
        bad,
        False,
    )


def test_whole_numbers_print_as_integers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rezon", "--trump", "H", "--cards", "AS 9S 7S JD QH TH JC TC 9C 7C", "--json"]) == 0
    assert '"rezons": 1,' in capsys.readouterr().out


def test_second_seat_after_a_pass_may_follow_on_anything(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--trump", "none", "--cards", "9S 8S 7S 9D 8D 7D 9H 8H 7H 7C", "--seat", "second")
    assert out["meets_rules"] is True
    assert out["obviously_bad"] is False
    assert out["requirement"] == "second-after-pass"


def test_talon_bought_lower_card_makes_a_long_suit_whole(capsys: pytest.CaptureFixture[str]) -> None:
    cards = "AS KS QS JS 9H 8H 7H 9D 8D 7D"
    without = run_json(capsys, "--trump", "C", "--cards", cards)
    bought = run_json(capsys, "--trump", "C", "--cards", cards, "--talon", "7S 8C")
    assert (without["rezons"], bought["rezons"]) == (0.5, 1)


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "rezon",
                "--trump",
                "H",
                "--cards",
                "KS 9S 8S 9D 8D 7D AH 7H TC 9C",
                "--seat",
                "second",
                "--first-followed",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "rezona: 2, adutskih štihova: 1, asova: 1 — ispod pravila, ali nije očigledno"
    assert "♠ K 9 8: rezon 1" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--trump", "H", "--cards", "AS 9S 7S"],  # not ten cards
        ["--trump", "H", "--cards", "AS AS 7S JD QH TH JC TC 9C 7C"],  # a card twice
        ["--trump", "H", "--cards", "XS 9S 7S JD QH TH JC TC 9C 7C"],  # not a card
        ["--trump", "H", "--cards", "AS 9S 7S JD QH TH JC TC 9C 7C", "--talon", "8D"],  # a talon of one card
        ["--trump", "H", "--cards", "AS 9S 7S JD QH TH JC TC 9C 7C", "--talon", "8D 9D KD"],  # of three
        ["--trump", "H", "--cards", "AS 9S 7S JD QH TH JC TC 9C 7C", "--talon", "8D AS"],  # a card of the hand
    ],
)
def test_bad_cards(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert main(["rezon", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("sudija rezon: ")
    assert captured.out == ""


def test_talon_of_two_or_none(capsys: pytest.CaptureFixture[str]) -> None:
    cards = "AS 9S 7S JD QH TH JC TC 9C 7C"
    assert run_json(capsys, "--trump", "H", "--cards", cards)["rezons"] == 1  # igra: no talon
    assert run_json(capsys, "--trump", "H", "--cards", cards, "--talon", "8D 9D")["rezons"] == 1
    assert main(["rezon", "--trump", "H", "--cards", cards, "--talon", "8D", "--lang", "en"]) == 2
    assert "the talon is two cards" in capsys.readouterr().err


def test_bad_trump_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["rezon", "--trump", "X", "--cards", "AS 9S 7S JD QH TH JC TC 9C 7C", "--lang", "en"])
    assert exit_info.value.code == 2
    assert "trump must be one of" in capsys.readouterr().err
