"""The paper's scoring of single hands: every worked example of spec/scoring.md, each a real hand (deal, bids, play).

The helpers at the top build legal hands: a seeded deal, a legal auction for the wanted contract, and a card play
found by seeded random playouts that gives the wanted trick split. Every game built here passes
`rules.validation.validate_game`. Other paper tests import these helpers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest

from rules.cards import DECK, Card, Suit, cards_of, mask_of
from rules.gamelog import Bid, Contract, Decision, Game, GameStatus, Hand, Strain
from rules.paper import compute_paper
from rules.paper_hand import Entry, HandCase
from rules.play import first_leader, legal_mask, replay, stop_point, trick_winner
from rules.validation import validate_game

PLAYERS = ("ana", "bojan", "ceca")
START = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
FIRST_DEALER = 2  # hand 1 is dealt by ceca, so ana is the first hand

FOLLOWS, PASSES, CALLS = Decision.FOLLOWS, Decision.PASSES, Decision.CALLS


def dealer_of(n: int) -> int:
    return (FIRST_DEALER + n - 1) % 3


def auction(dealer: int, declarer: int | None, contract: Contract | None) -> tuple[Bid, ...]:
    """A legal auction: the declarer names his contract's level (or igra) at his turn, the others say dalje."""
    order = [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
    if declarer is None or contract is None:
        return tuple(Bid(seat, "dalje") for seat in order)
    call = "igra" if contract.igra else str(contract.strain.level)
    return tuple(Bid(seat, call if seat == declarer else "dalje") for seat in order)


def _deal(rng: random.Random) -> tuple[tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]], tuple[Card, ...]]:
    cards = list(DECK)
    rng.shuffle(cards)
    return (tuple(sorted(cards[0:10])), tuple(sorted(cards[10:20])), tuple(sorted(cards[20:30]))), tuple(
        sorted(cards[30:32])
    )


def _playout(proto: Hand, rng: random.Random) -> tuple[list[tuple[Card, ...]], list[int]]:
    """One random legal play of all ten tricks: (tricks, winner of each)."""
    assert proto.contract is not None
    assert proto.declarer is not None
    trump = proto.contract.strain.trump
    hold = [mask_of(cards) for cards in proto.deal]
    if not proto.contract.igra:
        hold[proto.declarer] = (hold[proto.declarer] | mask_of(proto.talon)) & ~mask_of(proto.discards)
    leader = first_leader(proto)
    tricks: list[tuple[Card, ...]] = []
    winners: list[int] = []
    for _ in range(10):
        cards: list[Card] = []
        led = None
        for position in range(3):
            seat = (leader + position) % 3
            choice = rng.choice(cards_of(legal_mask(hold[seat], led, trump)))
            hold[seat] &= ~choice.mask
            cards.append(choice)
            if position == 0:
                led = choice.suit
        winner = trick_winner(cards, leader, trump)
        tricks.append(tuple(cards))
        winners.append(winner)
        leader = winner
    return tricks, winners


Split = tuple[int, int, int]


def build_hand(
    n: int,
    declarer: int | None = None,
    contract: Contract | None = None,
    *,
    defense: dict[int, Decision] | None = None,
    kontra: Sequence[int] = (),
    tricks: Split | Callable[[Split, Split], bool] | None = None,
    seed: int = 0,
    deal: tuple[tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]], tuple[Card, ...]] | None = None,
    keep_all: bool = False,
    completed: bool = True,
) -> Hand:
    """A legal hand number `n` (the dealer follows from `n`).

    `tricks` is the wanted split of the *counted* tricks per seat (up to the stop point), or a predicate
    ``(counted, all_ten) -> bool``. The recorded play stops at the stop point unless `keep_all`, when all ten
    tricks are recorded (later ones must not count).
    """
    dealer = dealer_of(n)
    rng = random.Random(seed * 7919 + n)
    ended_at = START + timedelta(minutes=5 * n) if completed else None
    if declarer is None or contract is None:
        the_deal, talon = deal or _deal(rng)
        return Hand(n=n, dealer=dealer, deal=the_deal, talon=talon, bids=auction(dealer, None, None), ended_at=ended_at)
    d1, d2 = (declarer + 1) % 3, (declarer + 2) % 3
    if defense is None:
        defense = {d1: FOLLOWS, d2: FOLLOWS}
    played = (
        contract.strain is Strain.BETL
        or kontra
        or (
            any(d is not PASSES for d in defense.values()) and not (contract.strain is Strain.PIK and not contract.igra)
        )
    )
    for _attempt in range(400):
        the_deal, talon = deal or _deal(rng)
        twelve = list(the_deal[declarer]) + list(talon)
        discards: tuple[Card, ...] = ()
        if not contract.igra:
            discards = tuple(sorted(rng.sample(twelve, 2)))
        proto = Hand(
            n=n,
            dealer=dealer,
            deal=the_deal,
            talon=talon,
            bids=auction(dealer, declarer, contract),
            declarer=declarer,
            contract=contract,
            discards=discards,
            defense=defense,
            kontra=tuple(kontra),
            ended_at=ended_at,
        )
        if not played:
            return proto
        for _ in range(200):
            play, winners = _playout(proto, rng)
            full = [0, 0, 0]
            for w in winners:
                full[w] += 1
            candidate = Hand(**{**_fields(proto), "tricks": tuple(play)})
            result = replay(candidate)
            stop = stop_point(candidate, result)
            counted = [0, 0, 0]
            for w in winners[:stop]:
                counted[w] += 1
            ok = tricks is None or (
                tricks(tuple(counted), tuple(full))
                if callable(tricks)  # type: ignore[arg-type]
                else tuple(counted) == tuple(tricks)
            )
            if ok:
                return candidate if keep_all else Hand(**{**_fields(proto), "tricks": tuple(play[:stop])})
    raise AssertionError(f"no play found for hand {n} with tricks {tricks}")


def _fields(hand: Hand) -> dict[str, object]:
    return {name: getattr(hand, name) for name in Hand.__dataclass_fields__}


def build_game(
    hands: Sequence[Hand],
    *,
    size: int = 60,
    refe_limit: int = 3,
    status: GameStatus = GameStatus.FINISHED,
    number: int = 1847258,
    check: bool = True,
) -> Game:
    last = max((h.ended_at for h in hands if h.ended_at is not None), default=START)
    game = Game(
        number=number,
        rated=True,
        ai=False,
        bule=size,
        refe_limit=refe_limit,
        players=PLAYERS,
        status=status,
        started_at=START,
        ended_at=None if status is GameStatus.IN_PROGRESS else last + timedelta(minutes=1),
        abandoned_by=("bojan",) if status is GameStatus.INTERRUPTED else (),
        hands=tuple(hands),
    )
    if check:
        problems = validate_game(game)
        assert not problems, problems
    return game


def not_followed(n: int, declarer: int, contract: Contract, seed: int = 0) -> Hand:
    """A hand nobody follows (not played): the declarer passes."""
    d1, d2 = (declarer + 1) % 3, (declarer + 2) % 3
    return build_hand(n, declarer, contract, defense={d1: PASSES, d2: PASSES}, seed=seed)


def C(strain: str, igra: bool = False) -> Contract:
    return Contract(Strain.parse(strain), igra)


def entries(game: Game, n: int) -> tuple[Entry, Entry, Entry]:
    paper = compute_paper(game)
    hand = paper.hand(n)
    assert hand is not None
    assert hand.score is not None
    return hand.score.entries


def single(hand: Hand, **kwargs: object) -> tuple[Entry, Entry, Entry]:
    """The entries of a game made of this one hand (played as hand n, the earlier hands all-pass)."""
    earlier = [build_hand(k) for k in range(1, hand.n)]
    game = build_game([*earlier, hand], refe_limit=0, **kwargs)  # type: ignore[arg-type]
    return entries(game, hand.n)


# ------------------------------------------------------------------------------------------ worked examples

ANA, BOJAN, CECA = 0, 1, 2


def test_tref_declarer_six_defenders_two_and_two() -> None:
    # ana declares tref; bojan (her right neighbour) and ceca (her left) take 2 tricks each.
    hand = build_hand(1, ANA, C("tref"), tricks=(6, 2, 2))
    e = single(hand)
    assert e[ANA] == Entry(bule=-10)
    # bojan sits at ana's left (ana is bojan's left neighbour, seat 1+2): his supe go to his left column.
    assert e[BOJAN] == Entry(supe_left=20)
    assert e[CECA] == Entry(supe_right=20)


def test_tref_defenders_three_and_one_nobody_falls() -> None:
    hand = build_hand(1, ANA, C("tref"), tricks=(6, 3, 1))
    e = single(hand)
    assert e[ANA] == Entry(bule=-10)
    assert e[BOJAN] == Entry(supe_left=30)
    assert e[CECA] == Entry(supe_right=10)  # one trick of his own, but together four: no fall


def test_igra_karo_passed_one_defender_fell() -> None:
    hand = build_hand(1, BOJAN, C("karo", igra=True), tricks=(2, 7, 1))
    e = single(hand)
    assert [x.bule for x in e] == [0, -8, 8]
    assert e[ANA] == Entry(supe_right=16)
    assert e[CECA] == Entry(bule=8, supe_left=8)


def test_betl_passed_the_kontra_giver_fell() -> None:
    # ceca declares betl holding the low cards; she is not the first hand, so she never leads and never wins.
    low = tuple(Card(s, r) for s in Suit for r in range(3))  # 7 8 9 of every suit
    high = [c for c in DECK if c not in low]
    deal = ((tuple(high[:10]), tuple(high[10:20]), low[:10]), low[10:])
    hand = build_hand(1, CECA, C("betl"), kontra=(ANA,), deal=deal, tricks=lambda c, f: c[CECA] == 0)
    e = single(hand)
    assert e[CECA] == Entry(bule=-24)
    assert e[ANA] == Entry(bule=24)
    assert e[BOJAN] == Entry()


def test_herc_zovem_caller_writes_all_and_falls() -> None:
    hand = build_hand(1, ANA, C("herc"), defense={BOJAN: CALLS, CECA: PASSES}, tricks=lambda c, f: c[ANA] == 7)
    e = single(hand)
    assert e[ANA] == Entry(bule=-8)
    assert e[BOJAN] == Entry(bule=8, supe_left=24)
    assert e[CECA] == Entry()


def test_igra_tref_with_kontra_falls_and_later_tricks_do_not_count() -> None:
    # The log records all ten tricks, the defence taking 6; play stopped at the defence's fifth.
    hand = build_hand(1, CECA, C("tref", igra=True), kontra=(ANA,), keep_all=True, tricks=lambda c, f: f[CECA] == 4)
    assert len(hand.tricks) == 10
    e = single(hand)
    assert e[CECA] == Entry(bule=24)
    assert e[ANA] == Entry(supe_left=120)  # ceca is ana's left neighbour (0 + 2)
    assert e[BOJAN] == Entry()


def test_igra_pik_rekontra_under_refe_falls() -> None:
    refe = build_hand(1)
    hand = build_hand(
        2,
        BOJAN,
        C("pik", igra=True),
        kontra=(CECA, BOJAN),
        tricks=lambda c, f: c[BOJAN] <= 5 and c[ANA] + c[CECA] == 5,
        seed=3,
    )
    game = build_game([refe, hand])
    paper = compute_paper(game)
    score = paper.hands[1].score
    assert score is not None
    assert score.refe_doubled
    assert score.value == 48
    assert score.entries[CECA] == Entry(supe_left=240)
    assert score.entries[BOJAN] == Entry(bule=48)
    assert score.entries[ANA] == Entry()
    assert [p.refe_open for p in paper.players] == [1, 0, 1]
    assert [p.refe_played for p in paper.players] == [0, 1, 0]


@pytest.mark.parametrize(("igra", "supe", "bule"), [(False, 60, 12), (True, 70, 14)])
def test_betl_falls(igra: bool, supe: int, bule: int) -> None:
    hand = build_hand(1, BOJAN, C("betl", igra=igra), tricks=lambda c, f: c[BOJAN] == 1, seed=igra)
    e = single(hand)
    assert e[BOJAN] == Entry(bule=bule)
    assert e[ANA] == Entry(supe_right=supe)
    assert e[CECA] == Entry(supe_left=supe)


def test_betl_with_kontra_the_giver_writes_both_shares() -> None:
    hand = build_hand(1, BOJAN, C("betl"), kontra=(CECA,), tricks=lambda c, f: c[BOJAN] == 1)
    e = single(hand)
    assert e[BOJAN] == Entry(bule=24)
    assert e[CECA] == Entry(supe_left=240)
    assert e[ANA] == Entry()


def test_one_follows_alone_owns_all_defence_tricks() -> None:
    # ceca does not come; bojan plays both hands and falls with one trick between them.
    hand = build_hand(
        1,
        ANA,
        C("karo"),
        defense={BOJAN: FOLLOWS, CECA: PASSES},
        tricks=lambda c, f: c[BOJAN] + c[CECA] == 1 and c[CECA] == 1,
    )
    e = single(hand)
    assert e[ANA] == Entry(bule=-6)
    assert e[BOJAN] == Entry(bule=6, supe_left=6)
    assert e[CECA] == Entry()


def test_both_follow_both_fall() -> None:
    hand = build_hand(1, ANA, C("sans"), tricks=(8, 1, 1))
    e = single(hand)
    assert e[ANA] == Entry(bule=-14)
    assert e[BOJAN] == Entry(bule=14, supe_left=14)
    assert e[CECA] == Entry(bule=14, supe_right=14)


def test_declarer_falls_nobody_else_does() -> None:
    hand = build_hand(1, ANA, C("herc"), tricks=lambda c, f: c[ANA] == 5 and c[BOJAN] == 4)
    e = single(hand)
    assert e[ANA] == Entry(bule=8)
    assert e[BOJAN] == Entry(supe_left=32)
    assert e[CECA] == Entry(supe_right=8)


def test_subkontra_by_the_other_defender_hands_him_the_defence() -> None:
    hand = build_hand(1, ANA, C("herc"), kontra=(BOJAN, ANA, CECA), tricks=lambda c, f: c[ANA] >= 6)
    paper = compute_paper(build_game([hand], refe_limit=0))
    score = paper.hands[0].score
    assert score is not None
    assert score.carrier == CECA
    assert score.value == 8 * 8
    together = score.defence_tricks[BOJAN] + score.defence_tricks[CECA]
    assert score.entries[ANA] == Entry(bule=-64)
    assert score.entries[CECA] == Entry(bule=64, supe_right=64 * together)  # ana sits at ceca's right (2 + 1)
    assert score.entries[BOJAN] == Entry()


def test_nobody_follows_declarer_passes_with_ten_tricks() -> None:
    hand = not_followed(1, CECA, C("sans"))
    game = build_game([hand], refe_limit=0)
    score = compute_paper(game).hands[0].score
    assert score is not None
    assert score.case is HandCase.NOBODY_FOLLOWS
    assert score.declarer_tricks == 10
    assert score.passed
    assert score.entries == (Entry(), Entry(), Entry(bule=-14))


def test_bid_pik_without_kontra_writes_a_refe() -> None:
    hand = build_hand(1, ANA, C("pik"), defense={BOJAN: FOLLOWS, CECA: PASSES})
    assert not hand.tricks
    paper = compute_paper(build_game([hand], refe_limit=2))
    score = paper.hands[0].score
    assert score is not None
    assert score.case is HandCase.PIK_NO_KONTRA
    assert score.refe_written
    assert score.entries == (Entry(), Entry(), Entry())
    assert [p.refe_open for p in paper.players] == [1, 1, 1]


def test_bid_pik_without_kontra_and_no_refe_left_declarer_passes() -> None:
    hand = build_hand(1, ANA, C("pik"), defense={BOJAN: FOLLOWS, CECA: PASSES})
    paper = compute_paper(build_game([hand], refe_limit=0))
    score = paper.hands[0].score
    assert score is not None
    assert not score.refe_written
    assert score.entries == (Entry(bule=-4), Entry(), Entry())
    assert paper.players[ANA].bule == 56


def test_bid_pik_with_kontra_is_played() -> None:
    hand = build_hand(1, ANA, C("pik"), kontra=(CECA,), tricks=lambda c, f: c[ANA] >= 6)
    e = single(hand)
    assert e[ANA] == Entry(bule=-8)
    assert e[CECA].bule == 8  # the kontra giver falls when together they took fewer than 5


def test_all_pass_hand_writes_a_refe_to_everybody() -> None:
    game = build_game([build_hand(1)], refe_limit=1)
    paper = compute_paper(game)
    assert paper.hands[0].score is not None
    assert paper.hands[0].score.refe_written
    assert paper.refe_rounds == 1
    assert [p.refe_open for p in paper.players] == [1, 1, 1]
    assert all(p.bule == 60 for p in paper.players)
