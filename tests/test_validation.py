"""Legality of game logs through the public face: `check_game`, `validate_game` and the auction rules.

Valid logs come from the generator; the corruptions are applied to the JSON document a club admin would import,
and each must be refused with a message that names the game, the hand (and trick or bid) and the problem.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from log_words import english, refused_with

from rules.auction import Auction, AuctionError, run_auction, seats_for
from rules.cards import Card, mask_of, suit_mask
from rules.gamelog import Contract, Decision, Game, GameStatus, Hand, LogError, Strain, game_to_doc, parse_game
from rules.generator import make_game, make_hand
from rules.play import legal_mask
from rules.problems import Problem
from rules.validation import check_game
from rules.validation import validate_game as problems_of_game
from rules.validation import validate_hand as problems_of_hand

PLAYERS = ("ana", "marko", "petar")
# Seat 0 (ana) holds the top spades and hearts; a pik or herc declarer's dream.
STRONG = ["AS KS QS JS TS AH KH AD KD AC", "9S 8S 7S QH JH QD JD QC JC TC", "TH 9H 8H 7H TD 9D 8D 7D 9C 8C"]


def _game(seed: int = 7, hands: int = 12, status: GameStatus = GameStatus.FINISHED) -> Game:
    from rules.generator import generate_game  # noqa: PLC0415 (imported where the test needs it)

    return generate_game(random.Random(seed), 1847258, hands=hands, status=status, players=PLAYERS)


def _doc(game: Game) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(game_to_doc(game)))
    return doc


def _refused(doc: object) -> list[str]:
    with pytest.raises(LogError) as caught:
        check_game(doc)
    assert caught.value.problems
    return english(caught.value.problems)


def validate_game(game: Game) -> list[str]:
    """`rules.validation.validate_game`'s problems as `sudija import --lang en` writes them."""
    return english(problems_of_game(game))


def validate_hand(hand: Hand, players: tuple[str, ...]) -> list[str]:
    return english(problems_of_hand(hand, players))


def _said(problem: Problem | None) -> str:
    return "" if problem is None else english([problem])[0]


# --- the auction ---------------------------------------------------------------------------------------------


def test_first_hand_speaks_first_and_turns_skip_players_out() -> None:
    # dealer seat 2: first hand 0, second 1.
    assert seats_for(2, ["2", "3", "dalje", "mogu", "4", "dalje"]) == [
        (0, "2"),
        (1, "3"),
        (2, "dalje"),
        (0, "mogu"),
        (1, "4"),
        (0, "dalje"),
    ]
    auction = Auction(2)
    for seat, call in seats_for(2, ["2", "3", "dalje", "mogu", "4", "dalje"]):
        auction.call(seat, call)
    assert auction.over
    assert auction.declarer == 1
    assert auction.level == 4
    assert not auction.igra


def test_mogu_needs_priority_over_the_bidder() -> None:
    auction = Auction(0)  # first hand 1, second 2, dealer 0
    auction.call(1, "2")
    assert "mogu" not in auction.legal_calls()  # seat 2 has no priority over the first hand
    assert "without priority" in _said(auction.problem(2, "mogu", PLAYERS))
    auction.call(2, "3")
    auction.call(0, "dalje")
    assert auction.legal_calls() == ["dalje", "mogu", "4", "5", "6", "7"]
    auction.call(1, "mogu")
    assert auction.turn == 2
    assert "mogu" not in auction.legal_calls()
    auction.call(2, "dalje")
    assert auction.over
    assert auction.declarer == 1
    assert auction.level == 3


def test_igra_only_as_first_call_and_then_only_dalje() -> None:
    auction = Auction(0)
    auction.call(1, "2")
    auction.call(2, "igra")
    assert auction.legal_calls() == ["dalje"]
    with refused_with("may only say `dalje`", AuctionError):
        auction.call(0, "3")
    auction.call(0, "dalje")
    auction.call(1, "dalje")
    assert auction.over
    assert auction.declarer == 2
    assert auction.igra
    assert auction.min_level() == 2
    again = Auction(0)
    again.call(1, "2")
    again.call(2, "dalje")
    again.call(0, "3")
    assert "igra is allowed only as a player's first call" in _said(again.problem(1, "igra", PLAYERS))


def test_all_pass_and_the_last_player_must_still_speak() -> None:
    auction = Auction(0)
    auction.call(1, "dalje")
    auction.call(2, "dalje")
    assert not auction.over
    assert auction.turn == 0
    auction.call(0, "dalje")
    assert auction.over
    assert auction.declarer is None


def test_contract_must_fit_the_auction() -> None:
    result = run_auction(0, seats_for(0, ["3", "dalje", "dalje"]))
    assert result.over
    assert result.declarer == 1
    assert not result.problems
    assert result.auction.contract_problem(Contract(Strain.PIK)) is not None
    assert result.auction.contract_problem(Contract(Strain.KARO, igra=True)) is not None
    assert result.auction.contract_problem(Contract(Strain.SANS)) is None
    bad = run_auction(0, [(1, "3"), (2, "2")], PLAYERS)
    assert english(bad.problems) == [
        "bid 2: petar bids 2 (spades) but the bid is already 3 (diamonds); a bid must be higher"
    ]


# --- hands built on purpose ----------------------------------------------------------------------------------


def test_a_legal_hand_built_from_a_description() -> None:
    hand = make_hand(
        STRONG, dealer=2, bids="2 dalje dalje", contract="pik", defense="follows passes", kontra=(1,), players=PLAYERS
    )
    assert hand.declarer == 0
    assert hand.contract == Contract(Strain.PIK)
    assert len(hand.tricks) == 10
    assert validate_hand(hand, PLAYERS) == []


def test_follow_suit_message_names_player_card_and_suit() -> None:
    # ana (seat 0) leads A♠; marko holds spades but plays Q♥.
    hand = make_hand(
        STRONG,
        dealer=2,
        bids="2 dalje dalje",
        contract="pik",
        discards="KC 7C",
        defense="follows passes",
        kontra=(1,),
        tricks="AS QH TH",
        players=PLAYERS,
        check=False,
    )
    game = make_game([hand], number=1847258, players=PLAYERS, check=False)
    assert "game 1847258, hand 1, trick 1: marko plays Q♥ but must follow suit in spades ♠" in validate_game(game)


def test_trump_when_void_message() -> None:
    # marko has no clubs but holds trumps (9♥ 8♥) and throws a spade on ana's A♣.
    deal = ["AH KH QH JH TH AS KS AD KD AC", "9S 8S 7S 9H 8H QD JD TD 9D 8D", "QS JS TS 7H 7D KC QC JC TC 9C", "7C 8C"]
    hand = make_hand(
        deal,
        dealer=2,
        bids="4 dalje dalje",
        contract="herc",
        discards="7C 8C",
        defense="follows passes",
        tricks="AC 9S 9C",
        players=PLAYERS,
        check=False,
    )
    assert validate_hand(hand, PLAYERS) == [
        "hand 1, trick 1: marko plays 9♠ but has no clubs and must play a trump (hearts ♥)"
    ]


def test_wrong_leader_and_sans_through_the_declarer() -> None:
    # Sans declared by ana (seat 0): the seat before her (petar, seat 2) leads, whoever dealt.
    hand = make_hand(
        STRONG, dealer=2, bids="7 dalje dalje", contract="sans", defense="follows follows", players=PLAYERS
    )
    assert hand.tricks[0][0] in [Card.parse(c) for c in STRONG[2].split()]
    wrong = replace(hand, tricks=(hand.tricks[0][1:] + hand.tricks[0][:1], *hand.tricks[1:]))
    problems = validate_hand(wrong, PLAYERS)
    assert problems
    assert "but petar must lead (sans is led by the player before the declarer)" in problems[0]


def test_defense_combinations() -> None:
    base = dict(dealer=2, bids="4 dalje dalje", contract="herc", players=PLAYERS)
    for first, second in (
        ("follows", "follows"),
        ("follows", "passes"),
        ("passes", "follows"),
        ("calls", "passes"),
        ("passes", "calls"),
        ("passes", "passes"),
    ):
        make_hand(STRONG, defense=f"{first} {second}", **base)  # type: ignore[arg-type]
    for first, second in (("calls", "follows"), ("follows", "calls"), ("calls", "calls")):
        with refused_with("one may call only a defender who passes"):
            make_hand(STRONG, defense=f"{first} {second}", **base)  # type: ignore[arg-type]
    with refused_with("in betl both defenders play, so marko must follow, not passes"):
        make_hand(STRONG, dealer=2, bids="6 dalje dalje", contract="betl", defense="passes follows", players=PLAYERS)


def test_kontra_chain_rules() -> None:
    base = dict(dealer=2, bids="4 dalje dalje", contract="herc", players=PLAYERS)
    make_hand(STRONG, defense="follows follows", kontra=(1, 0, 2, 0), **base)  # type: ignore[arg-type]
    with refused_with("does not play \\(passes\\)"):
        make_hand(STRONG, defense="follows passes", kontra=(2,), **base)  # type: ignore[arg-type]
    with refused_with("only the declarer ana may"):
        make_hand(STRONG, defense="follows follows", kontra=(1, 2), **base)  # type: ignore[arg-type]
    with refused_with("it ends at mortkontra"):
        make_hand(STRONG, defense="follows follows", kontra=(1, 0, 1, 0, 1), **base)  # type: ignore[arg-type]


def test_hands_not_played() -> None:
    nobody = make_hand(
        STRONG, dealer=2, bids="4 dalje dalje", contract="herc", defense="passes passes", players=PLAYERS
    )
    assert nobody.tricks == ()
    bid_pik = make_hand(
        STRONG, dealer=2, bids="2 dalje dalje", contract="pik", defense="follows follows", players=PLAYERS
    )
    assert bid_pik.tricks == ()
    played = make_hand(
        STRONG, dealer=2, bids="2 dalje dalje", contract="pik", defense="follows follows", kontra=(2,), players=PLAYERS
    )
    with refused_with("spades without kontra are not played"):
        make_hand(
            STRONG,
            dealer=2,
            bids="2 dalje dalje",
            contract="pik",
            defense="follows follows",
            tricks=[" ".join(str(c) for c in t) for t in played.tricks],
            players=PLAYERS,
        )
    refe = make_hand(STRONG, dealer=2, bids="dalje dalje dalje", players=PLAYERS)
    assert refe.declarer is None
    assert validate_hand(replace(refe, contract=Contract(Strain.PIK)), PLAYERS) == [
        "hand 1: all three said `dalje` (refe), so there is no play, yet the hand records a contract"
    ]


def test_igra_keeps_the_talon_out() -> None:
    hand = make_hand(
        STRONG, dealer=2, bids="igra dalje dalje", contract="pik", defense="follows follows", players=PLAYERS
    )
    assert hand.contract == Contract(Strain.PIK, igra=True)
    assert hand.discards == ()
    problems = validate_hand(replace(hand, discards=hand.talon), PLAYERS)
    assert any("plays igra (without the talon), so nothing is discarded" in p for p in problems)
    with refused_with("did not say igra"):
        make_hand(
            STRONG,
            dealer=2,
            bids="2 dalje dalje",
            contract=Contract(Strain.HERC, igra=True),
            defense="follows follows",
            players=PLAYERS,
        )


def test_play_must_end_at_ten_tricks_or_a_certain_fall() -> None:
    hand = make_hand(
        STRONG, dealer=2, bids="4 dalje dalje", contract="herc", defense="follows follows", players=PLAYERS
    )
    short = replace(hand, tricks=hand.tricks[:7])
    problems = validate_hand(short, PLAYERS)
    assert problems == [
        "hand 1: play stops after trick 7, but the result is not yet decided; play goes on to "
        "trick 10 (or stops when the declarer has fallen)"
    ]
    # An unfinished hand may stop after any trick, but a trick is recorded only whole.
    assert validate_hand(replace(short, ended_at=None), PLAYERS) == []
    open_hand = replace(hand, tricks=(*hand.tricks[:3], hand.tricks[3][:2]), ended_at=None)
    assert validate_hand(open_hand, PLAYERS) == ["hand 1, trick 4: the trick has 2 cards; every trick has three"]


# --- the game ------------------------------------------------------------------------------------------------


def test_generated_games_are_legal_and_round_trip() -> None:
    for seed, status in ((1, GameStatus.FINISHED), (2, GameStatus.IN_PROGRESS), (3, GameStatus.INTERRUPTED)):
        game = _game(seed, 15, status)
        assert validate_game(game) == []
        assert check_game(_doc(game)) == game


def test_game_level_rules() -> None:
    game = _game(4, 5)
    rotated = replace(game, hands=(game.hands[0], replace(game.hands[1], dealer=game.hands[0].dealer), *game.hands[2:]))
    assert any("hand 2:" in p and "turn to deal" in p for p in validate_game(rotated))
    early = replace(
        game,
        hands=(
            *game.hands[:2],
            replace(game.hands[2], ended_at=game.started_at - timedelta(minutes=1)),
            *game.hands[3:],
        ),
    )
    assert any("hand 3: the hand ends at" in p and "before the game started" in p for p in validate_game(early))
    back = replace(
        game, hands=(*game.hands[:3], replace(game.hands[3], ended_at=game.hands[1].ended_at), *game.hands[4:])
    )
    assert any("hand 4:" in p and "before the previous hand ended" in p for p in validate_game(back))
    late = replace(game, ended_at=game.hands[2].ended_at)
    assert any("after the game ended" in p for p in validate_game(late))
    open_middle = replace(game, hands=(game.hands[0], replace(game.hands[1], ended_at=None), *game.hands[2:]))
    assert any("hand 2:" in p and "only the last hand" in p for p in validate_game(open_middle))
    open_last = replace(game, hands=(*game.hands[:-1], replace(game.hands[-1], ended_at=None)))
    assert any("but the game is finished" in p for p in validate_game(open_last))
    assert validate_game(replace(open_last, status=GameStatus.INTERRUPTED, abandoned_by=("ana",))) == []
    assert any("only an interrupted game" in p for p in validate_game(replace(game, abandoned_by=("ana",))))
    assert any(
        "in progress, so it cannot have an end time" in p
        for p in validate_game(replace(game, status=GameStatus.IN_PROGRESS))
    )
    assert any("needs its end time" in p for p in validate_game(replace(game, ended_at=None)))


def test_check_game_reports_every_problem_at_once() -> None:
    doc = _doc(_game(5, 6))
    doc["hands"][1]["deal"]["ana"][0] = doc["hands"][1]["deal"]["marko"][0]
    doc["hands"][3]["dealer"] = doc["hands"][2]["dealer"]
    problems = _refused(doc)
    assert any(p.startswith("game 1847258, hand 2: the deal has") and "more than once" in p for p in problems)
    assert any(p.startswith("game 1847258, hand 4:") and "turn to deal" in p for p in problems)


# --- hypothesis: corruptions of a valid document are refused with a message naming the problem ----------------


def _played_hands(doc: dict[str, Any]) -> list[int]:
    return [i for i, h in enumerate(doc["hands"]) if h.get("tricks") and len(h["tricks"]) >= 2]


def _illegal_swaps(game: Game, index: int) -> list[tuple[int, int, int, int]]:
    """(trick, position, later trick, position) pairs of the same player whose swap breaks follow/trump."""
    hand = game.hands[index]
    assert hand.contract is not None
    assert hand.declarer is not None
    from rules.play import replay  # noqa: PLC0415 (imported where the test needs it)

    result = replay(hand)
    trump = hand.contract.strain.trump
    hold = [mask_of(cards) for cards in hand.deal]
    if not hand.contract.igra:
        hold[hand.declarer] = (hold[hand.declarer] | mask_of(hand.talon)) & ~mask_of(hand.discards)
    swaps = []
    for t, trick in enumerate(result.tricks):
        led = trick.cards[0].suit
        for pos in (1, 2):
            seat = trick.seat_of(pos)
            allowed = legal_mask(hold[seat], led, trump)
            for later in result.tricks[t + 1 :]:
                for lpos in range(3):
                    if later.seat_of(lpos) == seat and not allowed & later.cards[lpos].mask:
                        swaps.append((t, pos, later.number - 1, lpos))
        for pos in range(3):
            hold[trick.seat_of(pos)] &= ~trick.cards[pos].mask
    return swaps


CORRUPTIONS = ("duplicate", "follow", "leader", "missing", "mistyped", "range", "out_of_turn", "discards")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(CORRUPTIONS), data=st.data())
def test_corrupted_documents_are_refused(seed: int, kind: str, data: st.DataObject) -> None:
    game = _game(seed, 8)
    doc = _doc(game)
    assert check_game(copy.deepcopy(doc)) == game
    hands = doc["hands"]
    if kind == "duplicate":
        h = data.draw(st.integers(0, len(hands) - 1))
        src, dst = data.draw(st.permutations(["ana", "marko", "petar", "talon"]))[:2]
        card = data.draw(st.sampled_from(hands[h]["deal"][src]))
        pos = data.draw(st.integers(0, len(hands[h]["deal"][dst]) - 1))
        hands[h]["deal"][dst][pos] = card
        expected = [f"game 1847258, hand {h + 1}: the deal has", "more than once"]
    elif kind == "follow":
        candidates = [(i, s) for i in _played_hands(doc) for s in _illegal_swaps(game, i)]
        if not candidates:
            return
        h, (t, pos, lt, lpos) = data.draw(st.sampled_from(candidates))
        tricks = hands[h]["tricks"]
        tricks[t][pos], tricks[lt][lpos] = tricks[lt][lpos], tricks[t][pos]
        expected = [f"game 1847258, hand {h + 1}, trick {t + 1}: ", "must "]
    elif kind == "leader":
        played = _played_hands(doc)
        if not played:
            return
        h = data.draw(st.sampled_from(played))
        t = data.draw(st.integers(0, len(hands[h]["tricks"]) - 1))
        trick = hands[h]["tricks"][t]
        if len(trick) != 3:
            return
        hands[h]["tricks"][t] = trick[1:] + trick[:1]
        expected = [f"game 1847258, hand {h + 1}, trick {t + 1}: ", "must lead"]
    elif kind == "missing":
        where = data.draw(st.sampled_from(["game", "hand"]))
        if where == "game":
            key = data.draw(
                st.sampled_from(
                    ["game", "rated", "ai", "bule", "refe_limit", "players", "status", "started_at", "hands"]
                )
            )
            del doc[key]
            expected = [f"the field '{key}' is missing"]
        else:
            h = data.draw(st.integers(0, len(hands) - 1))
            key = data.draw(st.sampled_from(["n", "deal", "bids", "dealer"]))
            del hands[h][key]
            expected = [
                f"game 1847258, hand {h + 1}: ",
                "the dealer None is not one of the players" if key == "dealer" else f"the field '{key}' is missing",
            ]
    elif kind == "mistyped":
        key, value = data.draw(
            st.sampled_from(
                [
                    ("rated", "yes"),
                    ("ai", 0),
                    ("bule", "60"),
                    ("game", 1.5),
                    ("players", "ana marko petar"),
                    ("hands", {}),
                    ("refe_limit", None),
                    ("status", 3),
                ]
            )
        )
        doc[key] = value
        expected = [f"'{key}'" if key not in ("players", "status") else key]
    elif kind == "range":
        key, value = data.draw(
            st.sampled_from(
                [
                    ("bule", -60),
                    ("bule", 7),
                    ("bule", 100_002),
                    ("refe_limit", 101),
                    ("refe_limit", -1),
                    ("game", 0),
                    ("game", -5),
                ]
            )
        )
        doc[key] = value
        expected = [f"{key}" if key != "game" else "the game number must be positive"]
    elif kind == "out_of_turn":
        h = data.draw(st.integers(0, len(hands) - 1))
        b = data.draw(st.integers(0, len(hands[h]["bids"]) - 1))
        bid = hands[h]["bids"][b]
        bid["player"] = data.draw(st.sampled_from([p for p in PLAYERS if p != bid["player"]]))
        expected = [f"game 1847258, hand {h + 1}, bid {b + 1}: {bid['player']} ", "out of turn"]
    else:  # discards
        with_discards = [i for i, hand in enumerate(hands) if hand.get("discards")]
        if not with_discards:
            return
        h = data.draw(st.sampled_from(with_discards))
        hand = hands[h]
        how = data.draw(st.sampled_from(["more", "fewer", "none"]))
        if how == "more":
            hand["discards"].append(
                hand["deal"]["talon"][0]
                if hand["deal"]["talon"][0] not in hand["discards"]
                else hand["deal"]["talon"][1]
            )
            expected = [f"game 1847258, hand {h + 1}: ", "discards 3 cards", "exactly two"]
        elif how == "fewer":
            hand["discards"].pop()
            expected = [f"game 1847258, hand {h + 1}: ", "discards 1 card (", "exactly two"]
        else:
            del hand["discards"]
            expected = [f"game 1847258, hand {h + 1}: ", "records no discards"]
    problems = _refused(doc)
    assert any(all(part in p for part in expected) for p in problems), (expected, problems)


def test_a_bid_out_of_turn_is_named() -> None:
    doc = _doc(
        make_game(
            [make_hand(STRONG, dealer=2, bids="2 3 dalje dalje", defense="follows follows", players=PLAYERS)],
            number=9,
            players=PLAYERS,
        )
    )
    doc["hands"][0]["bids"][1]["player"] = "petar"
    assert _refused(doc) == ["game 9, hand 1, bid 2: petar says 3 (diamonds) out of turn; it is marko's turn"]


def test_parse_problems_come_through_check_game() -> None:
    doc = _doc(_game(6, 3))
    doc["hands"][0]["deal"]["ana"][0] = "ZZ"
    problems = _refused(doc)
    assert any("hand 1" in p and "not a card" in p for p in problems)
    assert parse_game(_doc(_game(6, 3))) == _game(6, 3)


def test_unknown_decision_and_kontra_from_a_passing_defender_in_the_document() -> None:
    game = make_game(
        [make_hand(STRONG, dealer=2, bids="4 dalje dalje", contract="herc", defense="follows passes", players=PLAYERS)],
        number=3,
        players=PLAYERS,
    )
    doc = _doc(game)
    doc["hands"][0]["kontra"] = ["petar"]
    assert _refused(doc) == [
        "game 3, hand 1: petar gives kontra, but does not play (passes); only a defender who follows or calls may"
    ]
    assert game.hands[0].defense == {1: Decision.FOLLOWS, 2: Decision.PASSES}


def test_suit_masks_agree_with_play_rules() -> None:
    # A sanity link between the validator's int arithmetic and rules.cards' encoding.
    for card in (Card.parse("AS"), Card.parse("7C"), Card.parse("10♥")):
        assert card.mask == 1 << (card.suit * 8 + card.rank)
        assert suit_mask(card.suit) & card.mask


# --- the validator's mask replay agrees with rules.play ---------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 5_000), data=st.data())
def test_validator_agrees_with_rules_play_on_shuffled_tricks(seed: int, data: st.DataObject) -> None:
    from rules.play import play_complete, replay  # noqa: PLC0415 (imported where the test needs it)

    game = _game(seed, 6)
    played = [h for h in game.hands if h.tricks]
    if not played:
        return
    hand = data.draw(st.sampled_from(played))
    cards = [c for t in hand.tricks for c in t]
    i, j = data.draw(st.integers(0, len(cards) - 1)), data.draw(st.integers(0, len(cards) - 1))
    cards[i], cards[j] = cards[j], cards[i]
    cut = data.draw(st.integers(1, len(hand.tricks)))
    tricks = tuple(tuple(cards[k : k + 3]) for k in range(0, 3 * cut, 3))
    changed = replace(hand, tricks=tricks)
    result = replay(changed)
    problems = validate_hand(changed, PLAYERS)
    trick_problems = [p for p in problems if ", trick " in p]
    if result.problems:
        number = english(result.problems)[0].split(":")[0]  # "trick N"
        assert len(trick_problems) == 1, (result.problems, problems)
        assert trick_problems[0].startswith(f"hand {hand.n}, {number}:"), (result.problems, problems)
    else:
        assert trick_problems == []
        assert (problems == []) == play_complete(changed, result), (problems, len(tricks))


def test_an_unfinished_hand_must_be_a_legal_beginning() -> None:
    full = make_hand(
        STRONG, dealer=2, bids="2 3 dalje dalje", contract="herc", defense="follows follows", players=PLAYERS
    )
    assert full.declarer == 1
    stages = [
        replace(full, bids=full.bids[:2], declarer=None, contract=None, discards=(), defense={}, tricks=()),
        replace(full, contract=None, discards=(), defense={}, tricks=()),
        replace(full, contract=None, defense={}, tricks=()),
        replace(full, defense={2: Decision.FOLLOWS}, tricks=()),
        replace(full, tricks=full.tricks[:4]),
    ]
    for stage in stages:
        assert validate_hand(replace(stage, ended_at=None), PLAYERS) == [], stage
        assert validate_hand(stage, PLAYERS) != []  # the same, marked as ended, is incomplete
    early = replace(full, bids=full.bids[:2], ended_at=None)
    assert validate_hand(early, PLAYERS)[0].startswith("hand 1: the auction is not over, yet the hand records")
    second_first = replace(full, defense={0: Decision.FOLLOWS}, tricks=(), ended_at=None)
    assert validate_hand(second_first, PLAYERS) == [
        "hand 1: ana's defense decision is recorded but petar, who decides first (right after the declarer), has none"
    ]
    no_defense = replace(full, defense={}, ended_at=None)
    assert validate_hand(no_defense, PLAYERS) == [
        "hand 1: the defense decision of petar and ana is missing (follows, passes or calls)"
    ]
