"""The random game generator and the compact hand builder: legal, deterministic, and realistic enough."""

from __future__ import annotations

import functools
import json
import random
from collections import Counter

from log_words import refused_with

from rules.cards import Card
from rules.gamelog import Contract, Decision, Game, GameStatus, Hand, Strain, game_to_doc, parse_game
from rules.generator import AI_PLAYER, CLUB_PLAYERS, generate_game, generate_hand, make_game, make_hand
from rules.play import play_complete, replay, stop_point
from rules.validation import validate_game, validate_hand

STATUSES = (GameStatus.FINISHED, GameStatus.IN_PROGRESS, GameStatus.INTERRUPTED)


def _many(count: int, hands: int = 12) -> list[Game]:
    return [
        generate_game(
            random.Random(seed),
            10_000 + seed,
            hands=hands,
            status=STATUSES[seed % 3],
            ai=seed % 5 == 0,
            rated=seed % 4 != 0,
        )
        for seed in range(count)
    ]


@functools.cache
def games() -> list[Game]:
    """Three hundred generated games, made when a test first asks (not while the module is collected)."""
    return _many(300)


def test_hundreds_of_generated_games_are_legal() -> None:
    for game in games():
        assert validate_game(game) == [], game.number


def test_generated_play_agrees_with_rules_play() -> None:
    for game in games()[:100]:
        for hand in game.hands:
            result = replay(hand)
            assert result.problems == ()
            if hand.completed and hand.tricks:
                assert play_complete(hand, result)


def test_deterministic_for_a_seed() -> None:
    one = generate_game(random.Random(42), 5, hands=10)
    assert generate_game(random.Random(42), 5, hands=10) == one
    assert generate_game(random.Random(43), 5, hands=10) != one


def test_round_trip_through_json() -> None:
    for game in games()[:60]:
        text = json.dumps(game_to_doc(game), ensure_ascii=False)
        assert parse_game(json.loads(text)) == game


def test_statuses_players_and_times() -> None:
    for game in games():
        assert len(set(game.players)) == 3
        assert (AI_PLAYER in game.players) == game.ai
        assert all(p in CLUB_PLAYERS or p == AI_PLAYER for p in game.players)
        if game.status is GameStatus.FINISHED:
            assert game.ended_at is not None
            assert all(h.completed for h in game.hands)
            assert game.abandoned_by == ()
        elif game.status is GameStatus.IN_PROGRESS:
            assert game.ended_at is None
            assert not game.hands[-1].completed
        else:
            assert game.ended_at is not None
            assert len(game.abandoned_by) == 1
        ends = [h.ended_at for h in game.hands if h.ended_at is not None]
        assert ends == sorted(ends)
        assert all(e > game.started_at for e in ends)


def test_options_are_honoured() -> None:
    game = generate_game(
        random.Random(1),
        77,
        hands=3,
        status=GameStatus.INTERRUPTED,
        players=("a", "b", "c"),
        bule=100,
        refe_limit=4,
        abandoned_by=("c", "a"),
        first_dealer=1,
        open_last=False,
        rated=False,
    )
    assert (game.players, game.bule, game.refe_limit, game.abandoned_by, game.rated) == (
        ("a", "b", "c"),
        100,
        4,
        ("c", "a"),
        False,
    )
    assert [h.dealer for h in game.hands] == [1, 2, 0]
    assert all(h.completed for h in game.hands)
    assert validate_game(game) == []


def _outcomes(hands: list[Hand]) -> Counter[str]:
    seen: Counter[str] = Counter()
    for hand in hands:
        seen["hands"] += 1
        if hand.declarer is None or hand.contract is None:
            seen["refe"] += 1
            continue
        contract = hand.contract
        seen[contract.strain.serbian] += 1
        seen["igra"] += contract.igra
        decisions = list(hand.defense.values())
        seen["zovem"] += Decision.CALLS in decisions
        seen["kontra"] += bool(hand.kontra)
        if all(d is Decision.PASSES for d in decisions):
            seen["nobody follows"] += 1
            continue
        if contract == Contract(Strain.PIK) and hand.kontra:
            seen["bid pik with kontra"] += 1
        if not hand.tricks:
            continue
        seen["played"] += 1
        result = replay(hand)
        upto = stop_point(hand, result)
        mine = result.won(hand.declarer, upto)
        if contract.strain is Strain.BETL:
            seen["declarer falls"] += mine > 0
            continue
        if mine < 6:
            seen["declarer falls"] += 1
            continue
        defenders = [s for s, d in hand.defense.items() if d is not Decision.PASSES]
        together = 10 - mine if upto == 10 else sum(result.won(s, upto) for s in (0, 1, 2) if s != hand.declarer)
        if hand.kontra or Decision.CALLS in decisions:
            seen["defender falls"] += together < (5 if hand.kontra else 4)
        elif len(defenders) == 1:
            seen["defender falls"] += result.won(defenders[0], upto) < 2
        else:
            seen["defender falls"] += together < 4 and any(result.won(s, upto) < 2 for s in defenders)
    return seen


def test_realistic_enough() -> None:
    seen = _outcomes([h for g in games() for h in g.hands if h.completed])
    total = seen["hands"]
    assert total > 3000
    assert 0.1 < seen["refe"] / total < 0.45
    for feature in (
        "betl",
        "sans",
        "igra",
        "zovem",
        "kontra",
        "nobody follows",
        "bid pik with kontra",
        "defender falls",
    ):
        assert seen[feature] >= 10, (feature, seen)
    falls = seen["declarer falls"] / seen["played"]
    assert 0.05 < falls < 0.35, seen  # declarers usually make it, and sometimes fall


# --- make_hand / make_game -----------------------------------------------------------------------------------

DEAL = ["AS KS QS JS TS AH KH AD KD AC", "9S 8S 7S QH JH QD JD QC JC TC", "TH 9H 8H 7H TD 9D 8D 7D 9C 8C"]


def test_make_hand_fills_the_gaps_deterministically() -> None:
    hand = make_hand(DEAL, dealer=2, bids="2 dalje dalje", contract="pik", defense="follows passes", kontra=(1,))
    assert hand.talon == (Card.parse("KC"), Card.parse("7C"))[::-1] or set(hand.talon) == {
        Card.parse("KC"),
        Card.parse("7C"),
    }
    assert len(hand.discards) == 2
    assert hand.kontra == (1,)
    assert hand.tricks[0][0] == Card.parse("AS")  # the declarer draws trumps from the top
    assert (
        make_hand(DEAL, dealer=2, bids="2 dalje dalje", contract="pik", defense="follows passes", kontra=(1,)) == hand
    )
    assert replay(hand).won(0) == 10


def test_make_hand_with_given_tricks_and_play_rest() -> None:
    full = make_hand(DEAL, dealer=2, bids="4 dalje dalje", contract="herc", discards="KC 7C", defense="follows follows")
    given = " | ".join(" ".join(str(c) for c in t) for t in full.tricks[:3])
    same = make_hand(
        DEAL,
        dealer=2,
        bids="4 dalje dalje",
        contract="herc",
        discards="KC 7C",
        defense=["follows", "follows"],
        tricks=given,
        play_rest=True,
    )
    assert same.tricks == full.tricks
    only = make_hand(
        DEAL,
        dealer=2,
        bids="4 dalje dalje",
        contract="herc",
        discards="KC 7C",
        defense={1: "follows", 2: "follows"},
        tricks=given,
        ended_at=None,
    )
    assert only.tricks == full.tricks[:3]
    assert not only.completed


def test_make_hand_random_and_heuristic_parts_are_legal() -> None:
    for seed in range(200):
        hand = make_hand(rng=random.Random(seed), dealer=seed % 3, kontra="auto", noise=0.05, stop=seed % 2 == 0)
        assert validate_hand(hand, ("a", "b", "c")) == []


def test_make_hand_refuses_illegal_descriptions() -> None:
    with refused_with("bid 2"):
        make_hand(DEAL, dealer=2, bids="3 2")
    with refused_with("no declarer"):
        make_hand(DEAL, dealer=2, bids="dalje dalje dalje", contract="pik")
    with refused_with("a card is repeated"):
        make_hand(["AS AS", DEAL[1], DEAL[2]], dealer=2, bids="dalje dalje dalje")
    with refused_with("lower than the winning bid"):
        make_hand(DEAL, dealer=2, bids="4 dalje dalje", contract="pik")


def test_make_game_numbers_hands_and_checks_rotation() -> None:
    hands = [make_hand(DEAL, dealer=d, bids="dalje dalje dalje") for d in (0, 1, 2, 0)]
    game = make_game(hands, number=12, status=GameStatus.FINISHED)
    assert [h.n for h in game.hands] == [1, 2, 3, 4]
    assert validate_game(game) == []
    with refused_with("turn to deal"):
        make_game([hands[0], hands[0]])


def test_generate_hand_is_a_random_legal_hand() -> None:
    hands = [generate_hand(random.Random(seed), dealer=seed % 3, n=seed + 1) for seed in range(100)]
    assert all(validate_hand(h, ("a", "b", "c")) == [] for h in hands)
    assert len({h.deal for h in hands}) == 100
    assert generate_hand(random.Random(5), dealer=2) == generate_hand(random.Random(5), dealer=2)


def test_hands_none_plays_until_the_paper_ends_the_game() -> None:
    from rules.paper import compute_paper  # noqa: PLC0415 (imported where the test needs it)

    for seed in range(6):
        finished = generate_game(random.Random(seed), 500 + seed, hands=None, bule=20)
        assert validate_game(finished) == []
        assert compute_paper(finished).end_hand == len(finished.hands)
        running = generate_game(random.Random(seed), 600 + seed, hands=None, bule=20, status=GameStatus.IN_PROGRESS)
        assert validate_game(running) == []
        assert not compute_paper(running).ended
        assert not running.hands[-1].completed
