"""Random legal preferans games and hands, for tests, examples and benchmarks.

Two entry points:

* `generate_game(rng, number, ...)` deals and plays a whole game: a realistic auction driven by a simple
  hand-strength estimate (so declarers usually bid what they can make), defenders who follow when they hold
  something, occasional zovem and kontra chains, igra, betl, sans, all-pass hands, hands nobody follows, bid pik
  with kontra, and card play by a simple heuristic (with a little noise) so declarers usually pass, sometimes
  fall, and defenders sometimes fall. The same seed always gives the same game, and every game passes
  `rules.validation.validate_game`.
* `make_hand(...)` builds one `Hand` from a compact description, for tests that need a particular hand (the
  paper, the Arbitar): give the cards, the calls, the contract, the defense, the kontra and the tricks as short
  strings, and leave out any part you do not care about to have the heuristic fill it in. See its docstring.
  `make_game(hands, ...)` wraps such hands into a `Game`; `generate_hand(rng)` is one random hand.

Internally a hand is four int masks (bit ``suit * 8 + rank`` per card, as in `rules.cards`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from rules.auction import Auction, AuctionError
from rules.cards import DECK, Card, Suit, parse_cards
from rules.gamelog import Bid, Contract, Decision, Game, GameStatus, Hand, LogError, Strain
from rules.play import legal_mask
from rules.problems import Place
from rules.validation import validate_game, validate_hand

CLUB_PLAYERS = (
    "marko",
    "ana",
    "petar",
    "jelena",
    "nikola",
    "milica",
    "dragan",
    "sanja",
    "vesna",
    "bojan",
    "zoran",
    "ivana",
)
AI_PLAYER = "robot_mile"
DEFAULT_START = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)
DEFAULT_HAND_END = datetime(2026, 11, 20, 20, 5, tzinfo=UTC)
NOISE = 0.04  # the chance that a player plays a random legal card instead of the heuristic's choice

_FULL = 0xFFFFFFFF
_TRUMP_OF_LEVEL = {2: 0, 3: 2, 4: 1, 5: 3}  # pik ♠, karo ♦, herc ♥, tref ♣ → suit index
_STRAIN_OF_LEVEL = {s.level: s for s in Strain}


# --- small mask helpers -------------------------------------------------------------------------------------


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _mask(cards: Iterable[Card]) -> int:
    m = 0
    for card in cards:
        m |= 1 << (card.suit * 8 + card.rank)
    return m


def _cards(mask: int) -> tuple[Card, ...]:
    return tuple(DECK[i] for i in _indices(mask))


def _suit_bits(mask: int, suit: int) -> int:
    return (mask >> (suit * 8)) & 0xFF


def _legal(hold: int, led: int, trump: int) -> int:
    """`rules.play.legal_mask` for the generator's suit indices (−1: none)."""
    return legal_mask(hold, None if led < 0 else Suit(led), None if trump < 0 else Suit(trump))


# --- hand strength ------------------------------------------------------------------------------------------


def _trump_suit_tricks(bits: int, n: int) -> float:
    a, k, q, j = bits >> 7 & 1, bits >> 6 & 1, bits >> 5 & 1, bits >> 4 & 1
    t = float(a)
    if k:
        t += 1.0 if a else (0.7 if n >= 2 else 0.2)
    if q:
        t += 1.0 if a and k else (0.5 if n >= 3 else 0.1)
    if j and n >= 4:
        t += 0.4
    t += max(0, n - 3)
    return min(t, float(n))


def _side_tricks(bits: int, n: int) -> float:
    a, k, q = bits >> 7 & 1, bits >> 6 & 1, bits >> 5 & 1
    t = float(a)
    if k:
        t += 0.9 if a else (0.5 if n >= 2 else 0.0)
    if q and a and k and n >= 3:
        t += 0.5
    return min(t, float(n))


def _sans_suit(bits: int) -> float:
    n = bits.bit_count()
    top = 0
    for r in range(7, -1, -1):
        if bits >> r & 1:
            top += 1
        else:
            break
    est = float(top)
    if top >= 3:
        est += n - top
    elif top == 0 and bits >> 6 & 1 and n >= 2:
        est += 0.5
    stopped = top > 0 or (bits >> 6 & 1 and n >= 2) or (bits >> 5 & 1 and n >= 3)
    if not stopped:
        est -= 1.5  # the defence runs this suit
    return est


def _betl_suit_risk(bits: int) -> int:
    risk = 0
    i = 0
    for r in range(8):
        if bits >> r & 1:
            if r > 2 * i:
                risk += 1
            i += 1
    return risk


# Per-suit values of every 8-bit holding, computed once: the estimates below only add them up.
_TRUMP_T = [_trump_suit_tricks(b, b.bit_count()) for b in range(256)]
_SIDE_T = [_side_tricks(b, b.bit_count()) for b in range(256)]
_SANS_T = [_sans_suit(b) for b in range(256)]
_BETL_R = [_betl_suit_risk(b) for b in range(256)]
_LEN = [b.bit_count() for b in range(256)]


def trump_estimate(mask: int, trump: int) -> float:
    """Rough tricks a declarer takes with `mask` (10 cards) in a contract with trump suit `trump`."""
    est = 0.0
    short = 0
    trumps = 0
    for s in range(4):
        bits = (mask >> (s * 8)) & 0xFF
        if s == trump:
            est += _TRUMP_T[bits]
            trumps = _LEN[bits]
        else:
            est += _SIDE_T[bits]
            n = _LEN[bits]
            if n < 2:
                short += 2 - n
    est += min(short * 0.5, max(0, trumps - 3) * 0.8)
    return est


def sans_estimate(mask: int) -> float:
    """Rough tricks in sans: top cards, plus the length of suits that run from the ace, less for open suits."""
    return (
        _SANS_T[mask & 0xFF] + _SANS_T[(mask >> 8) & 0xFF] + _SANS_T[(mask >> 16) & 0xFF] + _SANS_T[(mask >> 24) & 0xFF]
    )


def _betl_risk(mask: int) -> int:
    """How many cards break the betl-safety pattern (the i-th lowest card of a suit no higher than 2i)."""
    return (
        _BETL_R[mask & 0xFF] + _BETL_R[(mask >> 8) & 0xFF] + _BETL_R[(mask >> 16) & 0xFF] + _BETL_R[(mask >> 24) & 0xFF]
    )


def betl_estimate(mask: int) -> float:
    """A pseudo trick count for betl so it compares with the others: 7 when safe, lower with each risky card."""
    risk = _betl_risk(mask)
    return 7.0 if risk == 0 else 6.0 - 2 * risk


def contract_estimate(mask: int, level: int) -> float:
    if level == 6:
        return betl_estimate(mask)
    if level == 7:
        return sans_estimate(mask)
    return trump_estimate(mask, _TRUMP_OF_LEVEL[level])


def defence_estimate(mask: int, level: int) -> float:
    """Rough tricks a defender takes with `mask` against a contract of `level` (not betl)."""
    trump = _TRUMP_OF_LEVEL.get(level, -1)
    est = 0.0
    for s in range(4):
        bits = _suit_bits(mask, s)
        n = bits.bit_count()
        a, k, q = bits >> 7 & 1, bits >> 6 & 1, bits >> 5 & 1
        if s == trump:
            est += a + (0.7 if k and n >= 2 else 0) + (0.4 if q and n >= 3 else 0) + (0.6 if n >= 4 else 0)
        else:
            est += a + (0.5 if k and n >= 2 else 0) + (0.3 if k and a else 0)
            if trump < 0 and n >= 5:
                est += 0.5
    return est


# --- the best discards ------------------------------------------------------------------------------------


def best_discards(twelve: int, level: int) -> int:
    """The two cards a declarer with `twelve` cards drops for a contract of `level` (a mask of two bits)."""
    trump = _TRUMP_OF_LEVEL.get(level, -1)
    candidates: list[int] = []
    for s in range(4):
        suit = _indices(twelve & (0xFF << (s * 8)))
        if level == 6:
            candidates.extend(suit[-2:])  # betl: the two highest of each suit may go
        elif s != trump:
            candidates.extend(suit[:2])  # otherwise the two lowest side cards of each suit
    if len(candidates) < 2:
        candidates = _indices(twelve)
    best_pair = (candidates[0], candidates[1])
    best_score = -1e9
    for i, a in enumerate(candidates):
        for b in candidates[i + 1 :]:
            rest = twelve & ~(1 << a) & ~(1 << b)
            if level == 6:
                score = -_betl_risk(rest) * 10.0 + ((a & 7) + (b & 7)) * 0.1
            else:
                score = contract_estimate(rest, level) * 10 - ((a & 7) + (b & 7)) * 0.1
            if score > best_score:
                best_score = score
                best_pair = (a, b)
    return (1 << best_pair[0]) | (1 << best_pair[1])


# --- auction ------------------------------------------------------------------------------------------------


def _bidding_plan(rng: random.Random, mask: int) -> tuple[int, bool]:
    """The highest level a player will bid to, and whether he says igra (his best contract without the talon)."""
    best = 0
    best_no_talon = 0.0
    optimism = rng.gauss(0.4, 0.45)
    for level in range(2, 8):
        est = contract_estimate(mask, level)
        best_no_talon = max(best_no_talon, est if level != 6 else (7.0 if est >= 7 else 0.0))
        talon = 0.0 if level == 6 else 1.0
        if level == 6:
            # With the talon he can drop two risky cards.
            est = 7.0 if _betl_risk(mask) <= 1 else 0.0
        if est + talon + optimism >= 6.0:
            best = level
    igra = best_no_talon + optimism >= 6.6 and rng.random() < 0.4
    return best, igra


def _run_auction(rng: random.Random, dealer: int, masks: Sequence[int]) -> tuple[Auction, list[Bid]]:
    plans = [_bidding_plan(rng, masks[s]) for s in range(3)]
    auction = Auction(dealer)
    bids: list[Bid] = []
    while not auction.over:
        seat = auction.turn
        assert seat is not None
        legal = auction.legal_calls()
        want, igra = plans[seat]
        nxt = str(max(auction.level + 1, 2))
        if igra and "igra" in legal:
            call = "igra"
        elif "mogu" in legal and auction.level <= want:
            call = "mogu"
        elif nxt in legal and int(nxt) <= want:
            call = nxt
        else:
            call = "dalje"
        auction.call(seat, call)
        bids.append(Bid(seat, call))
    return auction, bids


def _auction_calls(dealer: int, calls: Sequence[str]) -> tuple[Auction, list[Bid]]:
    auction = Auction(dealer)
    bids: list[Bid] = []
    for call in calls:
        seat = auction.turn
        if seat is None:
            raise ValueError(f"the auction is over before the call {call!r}")
        try:
            auction.call(seat, call)
        except AuctionError as exc:
            raise AuctionError([problem.within(Place(bid=len(bids) + 1)) for problem in exc.problems]) from None
        bids.append(Bid(seat, call))
    return auction, bids


def _choose_contract(rng: random.Random, auction: Auction, masks: Sequence[int]) -> tuple[Contract, int]:
    """The declarer's contract and discard mask (0 for igra)."""
    declarer = auction.declarer
    assert declarer is not None
    allowed = [c.strain.level for c in auction.allowed_contracts()]
    hand = masks[declarer]
    if auction.igra:
        level = max(allowed, key=lambda lv: (contract_estimate(hand, lv), lv))
        return Contract(_STRAIN_OF_LEVEL[level], True), 0
    twelve = hand | masks[3]
    best: tuple[float, int, int] | None = None
    promising = sorted(allowed, key=lambda lv: -contract_estimate(twelve, lv))[:2]
    for level in sorted(promising):
        discard = best_discards(twelve, level)
        est = contract_estimate(twelve & ~discard, level) + rng.random() * 0.2
        if best is None or est > best[0] + (0.0 if level > best[1] else 0.5):
            best = (est, level, discard)
    assert best is not None
    return Contract(_STRAIN_OF_LEVEL[best[1]], False), best[2]


def _defend(rng: random.Random, declarer: int, contract: Contract, masks: Sequence[int]) -> dict[int, Decision]:
    d1, d2 = (declarer + 1) % 3, (declarer + 2) % 3
    if contract.strain is Strain.BETL:
        return {d1: Decision.FOLLOWS, d2: Decision.FOLLOWS}
    level = contract.strain.level
    e1 = defence_estimate(masks[d1], level) + rng.gauss(0, 0.4)
    e2 = defence_estimate(masks[d2], level) + rng.gauss(0, 0.4)
    first = e1 >= 1.8 or (e1 >= 1.1 and rng.random() < 0.5)
    if first:
        second = e2 >= 1.4 or (e2 >= 0.8 and rng.random() < 0.5)
        if second:
            return {d1: Decision.FOLLOWS, d2: Decision.FOLLOWS}
        if e1 >= 2.8 and rng.random() < 0.5:
            return {d1: Decision.CALLS, d2: Decision.PASSES}
        return {d1: Decision.FOLLOWS, d2: Decision.PASSES}
    if e2 >= 1.8 or (e2 >= 1.1 and rng.random() < 0.4):
        if e2 >= 2.8 and rng.random() < 0.5:
            return {d1: Decision.PASSES, d2: Decision.CALLS}
        return {d1: Decision.PASSES, d2: Decision.FOLLOWS}
    return {d1: Decision.PASSES, d2: Decision.PASSES}


def _kontra(
    rng: random.Random,
    declarer: int,
    contract: Contract,
    defense: Mapping[int, Decision],
    masks: Sequence[int],
    discard: int,
) -> tuple[int, ...]:
    players = [s for s, d in sorted(defense.items()) if d is not Decision.PASSES]
    if not players:
        return ()
    level = contract.strain.level
    bid_pik = contract.strain is Strain.PIK and not contract.igra
    scores = {s: (defence_estimate(masks[s], level) if level != 6 else 0.0) + rng.gauss(0, 0.5) for s in players}
    giver = max(players, key=lambda s: scores[s])
    chance = 0.6 if bid_pik else (0.05 if level == 6 else 0.03 + 0.1 * max(0.0, scores[giver] - 3.0))
    if rng.random() >= chance:
        return ()
    chain = [giver]
    own = masks[declarer] if contract.igra else (masks[declarer] | masks[3]) & ~discard
    strength = contract_estimate(own, level)
    if strength >= 7.5 and rng.random() < 0.4:
        chain.append(declarer)
        if scores[giver] >= 3.5 and rng.random() < 0.4:
            chain.append(giver)
            if strength >= 8.5 and rng.random() < 0.5:
                chain.append(declarer)
    return tuple(chain)


# --- card play ----------------------------------------------------------------------------------------------


def _beats(card: int, best: int, trump: int) -> bool:
    if card >> 3 == best >> 3:
        return (card & 7) > (best & 7)
    return trump >= 0 and card >> 3 == trump


def _lowest(mask: int) -> int:
    return min(_indices(mask), key=lambda i: (i & 7, i >> 3))


def _highest(mask: int) -> int:
    return max(_indices(mask), key=lambda i: (i & 7, -(i >> 3)))


class _Table:
    """The card play of one hand by the heuristic: every player sees all cards (a double-dummy-ish player)."""

    def __init__(self, rng: random.Random, hold: list[int], declarer: int, strain: Strain, noise: float) -> None:
        self.rng = rng
        self.hold = hold
        self.declarer = declarer
        self.trump = _TRUMP_OF_LEVEL.get(strain.level, -1)
        self.betl = strain is Strain.BETL
        self.noise = noise

    def side(self, seat: int) -> bool:
        return seat == self.declarer

    def is_top(self, card: int) -> bool:
        """No unplayed card of the same suit is higher."""
        suit_cards = _suit_bits(self.hold[0] | self.hold[1] | self.hold[2], card >> 3)
        return suit_cards >> ((card & 7) + 1) == 0

    def pick(self, seat: int, trick: list[int], leader: int) -> int:
        h = self.hold[seat]
        led = trick[0] >> 3 if trick else -1
        legal = _legal(h, led, self.trump)
        if self.rng.random() < self.noise:
            return self.rng.choice(_indices(legal))
        if self.betl:
            return self._pick_betl(seat, trick, leader, legal)
        if not trick:
            return self._lead(seat, legal)
        best_pos = 0
        for pos in range(1, len(trick)):
            if _beats(trick[pos], trick[best_pos], self.trump):
                best_pos = pos
        best = trick[best_pos]
        winner_seat = (leader + best_pos) % 3
        partner_winning = self.side(winner_seat) == self.side(seat)
        beaters = [c for c in _indices(legal) if _beats(c, best, self.trump)]
        if len(trick) == 2:
            if partner_winning or not beaters:
                return self._throw(legal)
            return min(beaters, key=lambda c: (c >> 3 == self.trump, c & 7))
        third = (seat + 1) % 3
        third_partner = self.side(third) == self.side(seat)
        if partner_winning and (
            third_partner
            or not any(_beats(c, best, self.trump) for c in _indices(_legal(self.hold[third], led, self.trump)))
        ):
            return self._throw(legal)
        for c in sorted(beaters, key=lambda c: (c >> 3 == self.trump, c & 7)):
            if third_partner:
                return c
            replies = _indices(_legal(self.hold[third], led, self.trump))
            if not any(_beats(r, c, self.trump) for r in replies):
                return c
        return self._throw(legal)

    def _throw(self, legal: int) -> int:
        """A card that will not win: the lowest, keeping trumps when possible."""
        non_trump = legal & ~(0xFF << (self.trump * 8)) if self.trump >= 0 else legal
        return _lowest(non_trump or legal)

    def _lead(self, seat: int, legal: int) -> int:
        trump = self.trump
        trump_mask = 0xFF << (trump * 8) if trump >= 0 else 0
        others = [(seat + 1) % 3, (seat + 2) % 3]
        opponents = [s for s in others if self.side(s) != self.side(seat)]
        opp = 0
        for s in opponents:
            opp |= self.hold[s]
        if self.side(seat) and trump >= 0 and legal & trump_mask and opp & trump_mask:
            return _highest(legal & trump_mask)
        tops = [c for c in _indices(legal) if self.is_top(c)]
        for c in sorted(tops, key=lambda c: (c >> 3 == trump, -(c & 7))):
            suit = 0xFF << ((c >> 3) * 8)
            ruffable = (
                trump >= 0
                and c >> 3 != trump
                and any(not self.hold[s] & suit and self.hold[s] & trump_mask for s in opponents)
            )
            if not ruffable:
                return c
        side = legal & ~trump_mask or legal
        longest = max(range(4), key=lambda s: (_suit_bits(side, s).bit_count(), -s))
        return _lowest(side & (0xFF << (longest * 8)))

    def _pick_betl(self, seat: int, trick: list[int], leader: int, legal: int) -> int:
        declarer = self.declarer
        dh = self.hold[declarer]
        if not trick:
            if seat == declarer:
                return _lowest(legal)
            # Lead the suit where the declarer's lowest card is highest above ours.
            best_c, best_gap = _lowest(legal), -99
            for s in range(4):
                mine = _suit_bits(legal, s)
                his = _suit_bits(dh, s)
                if mine and his:
                    gap = ((his & -his).bit_length() - 1) - ((mine & -mine).bit_length() - 1)
                    if gap > best_gap:
                        best_gap, best_c = gap, s * 8 + (mine & -mine).bit_length() - 1
            return best_c
        best_pos = 0
        for pos in range(1, len(trick)):
            if _beats(trick[pos], trick[best_pos], -1):
                best_pos = pos
        best = trick[best_pos]
        cards = _indices(legal)
        losers = [c for c in cards if not _beats(c, best, -1)]
        if seat == declarer:
            if losers:
                return max(losers, key=lambda c: (c & 7, c >> 3))
            return _highest(legal) if len(trick) == 2 else _lowest(legal)
        declarer_played = any((leader + pos) % 3 == declarer for pos in range(len(trick)))
        if declarer_played:
            winner = (leader + best_pos) % 3
            if winner == declarer and losers:
                return max(losers, key=lambda c: (c & 7, c >> 3))
            return _highest(legal)
        return _lowest(legal)


def _play(
    rng: random.Random,
    hold: list[int],
    dealer: int,
    declarer: int,
    contract: Contract,
    stop: bool | None = None,
    noise: float = NOISE,
    start: Sequence[Sequence[int]] = (),
) -> list[list[int]]:
    """Play the hand's tricks with the heuristic; `start` are tricks already played (card indices).

    Once the declarer's fall is certain (the defence's fifth trick; his first trick in betl) play stops when
    `stop` is True, goes on to trick 10 when False, and stops three times in four when None.
    """
    strain = contract.strain
    table = _Table(rng, hold, declarer, strain, noise)
    leader = (declarer + 2) % 3 if strain is Strain.SANS else (dealer + 1) % 3
    tricks: list[list[int]] = []
    won_declarer = won_defence = 0
    decided = False
    trump = table.trump
    betl = strain is Strain.BETL
    for number in range(1, 11):
        if number <= len(start):
            trick = list(start[number - 1])
        else:
            trick = []
            for pos in range(3):
                trick.append(table.pick((leader + pos) % 3, trick, leader))
        best_pos = 0
        for pos in range(3):
            seat = (leader + pos) % 3
            hold[seat] &= ~(1 << trick[pos])
            if pos and _beats(trick[pos], trick[best_pos], trump):
                best_pos = pos
        tricks.append(trick)
        leader = (leader + best_pos) % 3
        if leader == declarer:
            won_declarer += 1
        else:
            won_defence += 1
        if not decided and ((betl and won_declarer == 1) or (not betl and won_defence == 5)):
            decided = True
            if number >= len(start) and (stop or (stop is None and rng.random() < 0.75)):
                break
    return tricks


# --- building hands -----------------------------------------------------------------------------------------


def _deal_masks(rng: random.Random) -> list[int]:
    order = list(range(32))
    rng.shuffle(order)
    masks = [0, 0, 0, 0]
    for i, card in enumerate(order):
        masks[min(i // 10, 3)] |= 1 << card
    return masks


def _hand_from(
    n: int,
    dealer: int,
    masks: Sequence[int],
    bids: Sequence[Bid],
    declarer: int | None,
    contract: Contract | None,
    discard: int,
    defense: Mapping[int, Decision],
    kontra: Sequence[int],
    tricks: Sequence[Sequence[int]],
    ended_at: datetime | None,
) -> Hand:
    return Hand(
        n=n,
        dealer=dealer,
        deal=(_cards(masks[0]), _cards(masks[1]), _cards(masks[2])),
        talon=_cards(masks[3]),
        bids=tuple(bids),
        declarer=declarer,
        contract=contract,
        discards=_cards(discard),
        defense=dict(defense),
        kontra=tuple(kontra),
        tricks=tuple(tuple(DECK[c] for c in t) for t in tricks),
        ended_at=ended_at,
    )


def _played(contract: Contract, defense: Mapping[int, Decision], kontra: Sequence[int]) -> bool:
    if all(d is Decision.PASSES for d in defense.values()):
        return False
    return not (contract.strain is Strain.PIK and not contract.igra and not kontra)


def _random_hand(rng: random.Random, n: int, dealer: int, ended_at: datetime | None) -> Hand:
    masks = _deal_masks(rng)
    auction, bids = _run_auction(rng, dealer, masks)
    if auction.declarer is None:
        return _hand_from(n, dealer, masks, bids, None, None, 0, {}, (), (), ended_at)
    declarer = auction.declarer
    contract, discard = _choose_contract(rng, auction, masks)
    defense = _defend(rng, declarer, contract, masks)
    kontra = _kontra(rng, declarer, contract, defense, masks, discard)
    tricks: list[list[int]] = []
    if _played(contract, defense, kontra):
        hold = [masks[0], masks[1], masks[2]]
        if not contract.igra:
            hold[declarer] = (hold[declarer] | masks[3]) & ~discard
        tricks = _play(rng, hold, dealer, declarer, contract)
    return _hand_from(n, dealer, masks, bids, declarer, contract, discard, defense, kontra, tricks, ended_at)


def _cut(rng: random.Random, hand: Hand) -> Hand:
    """An unfinished copy of `hand`: stopped somewhere in the auction, the declaring, the defense or the play."""
    replace = dataclasses.replace
    bare = replace(hand, declarer=None, contract=None, discards=(), defense={}, kontra=(), tricks=(), ended_at=None)
    options: list[Hand] = [replace(bare, bids=hand.bids[:k]) for k in range(len(hand.bids))]
    if hand.declarer is None:
        options.append(bare)
    else:
        declared = replace(bare, declarer=hand.declarer)
        options.append(declared)
        if hand.discards:
            options.append(replace(declared, discards=hand.discards))
        named = replace(declared, discards=hand.discards, contract=hand.contract)
        options.append(named)
        first = (hand.declarer + 1) % 3
        options.append(replace(named, defense={first: hand.defense[first]}))
        defended = replace(named, defense=hand.defense, kontra=hand.kontra)
        options.append(defended)
        if hand.tricks:
            in_play = [replace(defended, tricks=hand.tricks[:t]) for t in range(len(hand.tricks))]
            in_play.append(replace(hand, ended_at=None))
            if rng.random() < 0.7:
                return rng.choice(in_play)
            options.extend(in_play)
    return rng.choice(options)


def generate_game(
    rng: random.Random,
    number: int,
    *,
    hands: int | None = 20,
    status: GameStatus = GameStatus.FINISHED,
    rated: bool = True,
    ai: bool = False,
    players: Sequence[str] | None = None,
    start: datetime = DEFAULT_START,
    bule: int = 60,
    refe_limit: int = 2,
    abandoned_by: Sequence[str] | None = None,
    first_dealer: int | None = None,
    open_last: bool | None = None,
) -> Game:
    """A random legal game; deterministic for the state of `rng`.

    With ``hands`` a number, the game has exactly that many hands, whatever its size in `bule` (fast; the
    paper may not have ended a "finished" game). With ``hands=None`` hands are dealt until the paper
    (`rules.paper`) ends the game — the sum of the bule reaches zero — so a finished game ends exactly where
    the paper says (a 60-bule game takes some 50–100 hands; choose a small `bule` for short games); a game in
    progress or interrupted stops at a random hand before that.

    `players` defaults to three of `CLUB_PLAYERS` (two and `AI_PLAYER` when `ai`). Hands take 45 s to 5 min
    each from `start`. A game in progress always ends with an unfinished hand; an interrupted one does so when
    `open_last` is True (by default half the time) and names one leaver in `abandoned_by` unless told otherwise.
    """
    if players is None:
        picked = rng.sample(CLUB_PLAYERS, 2 if ai else 3)
        if ai:
            picked.insert(rng.randrange(3), AI_PLAYER)
        names = (picked[0], picked[1], picked[2])
    else:
        if len(players) != 3:
            raise ValueError("a game has exactly three players")
        names = (players[0], players[1], players[2])
    dealer = rng.randrange(3) if first_dealer is None else first_dealer % 3
    moment = start
    made: list[Hand] = []
    target = _MAX_HANDS if hands is None else hands
    while len(made) < target:
        for _ in range(min(10, target - len(made))):
            moment += timedelta(seconds=rng.randint(45, 300))
            made.append(_random_hand(rng, len(made) + 1, dealer, moment))
            dealer = (dealer + 1) % 3
        if hands is None:
            end = _paper_end(number, names, bule, refe_limit, start, made)
            if end is not None:
                made = made[:end]
                if status is not GameStatus.FINISHED and end > 1:
                    made = made[: rng.randint(1, end - 1)]
                break
    if open_last is None:
        open_last = status is GameStatus.IN_PROGRESS or (status is GameStatus.INTERRUPTED and rng.random() < 0.5)
    if status is GameStatus.FINISHED:
        open_last = False
    if open_last and made:
        made[-1] = _cut(rng, made[-1])
    last_end = max((h.ended_at for h in made if h.ended_at is not None), default=start)
    ended_at: datetime | None = None
    if status is GameStatus.FINISHED:
        ended_at = last_end + timedelta(seconds=rng.randint(1, 30))
    elif status is GameStatus.INTERRUPTED:
        ended_at = last_end + timedelta(seconds=rng.randint(30, 900))
    leavers: tuple[str, ...] = ()
    if status is GameStatus.INTERRUPTED:
        leavers = tuple(abandoned_by) if abandoned_by is not None else (rng.choice(names),)
    elif abandoned_by:
        leavers = tuple(abandoned_by)
    return Game(
        number=number,
        rated=rated,
        ai=ai,
        bule=bule,
        refe_limit=refe_limit,
        players=names,
        status=status,
        started_at=start,
        ended_at=ended_at,
        abandoned_by=leavers,
        hands=tuple(made),
    )


_MAX_HANDS = 2000  # a safety net for hands=None: no game this generator deals comes near it


def _paper_end(
    number: int, names: tuple[str, str, str], bule: int, refe_limit: int, start: datetime, hands: Sequence[Hand]
) -> int | None:
    """The hand after which the paper ends a game made of `hands`, or None while it goes on."""
    from rules.paper import compute_paper  # noqa: PLC0415 (not needed for fixed sizes)

    game = Game(
        number=number,
        rated=True,
        ai=False,
        bule=bule,
        refe_limit=refe_limit,
        players=names,
        status=GameStatus.IN_PROGRESS,
        started_at=start,
        ended_at=None,
        abandoned_by=(),
        hands=tuple(hands),
    )
    return compute_paper(game).end_hand


# --- the compact hand builder -------------------------------------------------------------------------------

DEFAULT_PLAYERS = ("ana", "marko", "petar")

CardsText = str | Iterable[str]


def _read_cards(value: CardsText) -> int:
    cards = parse_cards(value)
    m = _mask(cards)
    if m.bit_count() != len(cards):
        raise ValueError(f"a card is repeated in {value!r}")
    return m


def _split_tricks(value: str | Sequence[CardsText]) -> list[list[int]]:
    parts: Sequence[CardsText]
    if isinstance(value, str):
        parts = [p for p in value.replace(";", "|").replace("/", "|").split("|") if p.strip()]
    else:
        parts = value
    return [[c.suit * 8 + c.rank for c in parse_cards(part)] for part in parts]


def _read_contract(value: str | Contract, igra: bool) -> Contract:
    if isinstance(value, Contract):
        return value
    words = value.lower().split()
    explicit_igra = "igra" in words
    rest = [w for w in words if w != "igra"]
    if len(rest) != 1:
        raise ValueError(f"not a contract: {value!r} (say e.g. 'herc', 'igra tref', 'betl', 'sans')")
    return Contract(Strain.parse(rest[0]), explicit_igra or igra)


def _read_defense(
    value: Mapping[int, str | Decision] | Sequence[str | Decision] | str, declarer: int
) -> dict[int, Decision]:
    if isinstance(value, Mapping):
        return {int(seat): Decision(d) for seat, d in value.items()}
    items = value.split() if isinstance(value, str) else list(value)
    if len(items) != 2:
        raise ValueError("give the two defenders' decisions, the one right after the declarer first")
    return {(declarer + 1) % 3: Decision(items[0]), (declarer + 2) % 3: Decision(items[1])}


def make_hand(
    deal: Sequence[CardsText] | None = None,
    *,
    dealer: int = 0,
    bids: str | Sequence[str] | None = None,
    contract: str | Contract | None = None,
    discards: CardsText | None = None,
    defense: Mapping[int, str | Decision] | Sequence[str | Decision] | str | None = None,
    kontra: Sequence[int] | str = (),
    tricks: str | Sequence[CardsText] | None = None,
    play_rest: bool = False,
    stop: bool = True,
    n: int = 1,
    ended_at: datetime | None = DEFAULT_HAND_END,
    rng: random.Random | None = None,
    noise: float = 0.0,
    players: Sequence[str] = DEFAULT_PLAYERS,
    check: bool = True,
) -> Hand:
    """Build one `Hand` from a compact description; every part left as None is filled in by the heuristic.

    Seats are 0, 1, 2 (``players[0..2]``); play goes 0 → 1 → 2. Arguments:

    * ``deal``: the three players' cards in seat order, each a string like ``"AS KS 10H 7D ..."`` (or a list of
      card strings), optionally followed by the talon. With three entries the talon is the two cards left over.
      None: a random deal from ``rng``.
    * ``dealer``: the dealer's seat; the seat after him is the first hand and speaks (and usually leads) first.
    * ``bids``: the calls in the order spoken, e.g. ``"2 3 dalje mogu dalje"`` or ``["igra", "dalje",
      "dalje"]``; whose turn each call is follows from the rules, so no seats are needed. None: the heuristic
      auction (bidding by hand strength).
    * ``contract``: ``"herc"``, ``"igra herc"``, ``"betl"``, ``"sans"`` … (igra follows from the auction anyway)
      or a `Contract`. None: the declarer's best contract by the estimate.
    * ``discards``: the declarer's two discards (without igra), e.g. ``"7D 8C"``. None: the best by the estimate.
    * ``defense``: ``"follows passes"`` (the defender right after the declarer first), a pair like
      ``["passes", "calls"]``, or ``{1: "follows", 2: "follows"}``. None: the heuristic's decisions (in betl both
      follow).
    * ``kontra``: the seats giving kontra, rekontra, … in order, e.g. ``(1, 0)``; ``"auto"`` for the heuristic.
    * ``tricks``: the tricks in play order, each three cards in the order played, e.g.
      ``"AS 7S 8S | KH QH 9H"`` (``|``, ``;`` or ``/`` between tricks) or a list of such strings. None: the hand
      (when it is played) is played out by the heuristic. With ``play_rest`` the heuristic continues after the
      given tricks. ``stop``: the heuristic stops once the declarer's fall is certain (else plays to trick 10).
    * ``n``, ``ended_at``: the hand's number and end time (None makes an unfinished hand).
    * ``rng``, ``noise``: randomness for the random deal and the heuristics (default ``Random(0)``), and the
      chance of a random legal card in heuristic play (default 0: fully deterministic play).
    * ``check``: run `rules.validation.validate_hand` and raise `LogError` (a ValueError) with the problems (turn
      it off to build illegal hands on purpose).

    Example: pik declared by seat 1 with a kontra from seat 2, played out by the heuristic::

        make_hand(["AS KS QS JS TS AH KH AD KD AC", "9S 8S 7S QH JH QD JD QC JC TC",
                   "TH 9H 8H 7H TD 9D 8D 7D 9C 8C"], dealer=0, bids="2 dalje dalje", contract="pik",
                  defense="follows passes", kontra=(2,))
    """
    rng = rng if rng is not None else random.Random(0)
    if deal is None:
        masks = _deal_masks(rng)
    else:
        if len(deal) not in (3, 4):
            raise ValueError("give the three players' cards, optionally followed by the talon")
        masks = [_read_cards(part) for part in deal]
        if len(masks) == 3:
            masks.append(_FULL & ~(masks[0] | masks[1] | masks[2]))
    if bids is None:
        auction, bid_list = _run_auction(rng, dealer, masks)
    else:
        auction, bid_list = _auction_calls(
            dealer, bids.replace(",", " ").split() if isinstance(bids, str) else list(bids)
        )
    declarer = auction.declarer
    if declarer is None or not auction.over:
        if any(part is not None for part in (contract, discards, defense, tricks)) or kontra not in ((), "auto"):
            raise ValueError("the auction has no declarer, so the hand has no contract, defense or play")
        hand = _hand_from(n, dealer, masks, bid_list, None, None, 0, {}, (), (), ended_at)
        return _checked(hand, players, check)
    discard = 0
    if contract is None:
        if discards is not None and not auction.igra:
            discard = _read_cards(discards)
            kept = (masks[declarer] | masks[3]) & ~discard
            level = max(
                (c.strain.level for c in auction.allowed_contracts()), key=lambda lv: (contract_estimate(kept, lv), lv)
            )
            chosen = Contract(_STRAIN_OF_LEVEL[level], False)
        else:
            chosen, discard = _choose_contract(rng, auction, masks)
    else:
        chosen = _read_contract(contract, auction.igra)
        if discards is None and not chosen.igra:
            discard = best_discards(masks[declarer] | masks[3], chosen.strain.level)
    if discards is not None:
        discard = _read_cards(discards)
    decisions = _defend(rng, declarer, chosen, masks) if defense is None else _read_defense(defense, declarer)
    if kontra == "auto":
        chain = _kontra(rng, declarer, chosen, decisions, masks, discard)
    elif isinstance(kontra, str):
        raise ValueError("kontra is a list of seats, or 'auto'")
    else:
        chain = tuple(kontra)
    played: list[list[int]] = []
    if tricks is not None:
        played = _split_tricks(tricks)
    if _played(chosen, decisions, chain) and (tricks is None or play_rest):
        hold = [masks[0], masks[1], masks[2]]
        if not chosen.igra:
            hold[declarer] = (hold[declarer] | masks[3]) & ~discard
        played = _play(rng, hold, dealer, declarer, chosen, stop=stop, noise=noise, start=played)
    hand = _hand_from(n, dealer, masks, bid_list, declarer, chosen, discard, decisions, chain, played, ended_at)
    return _checked(hand, players, check)


def generate_hand(
    rng: random.Random, *, dealer: int = 0, n: int = 1, ended_at: datetime | None = DEFAULT_HAND_END
) -> Hand:
    """One random legal hand, every part by the heuristic (as `generate_game` deals them, kontra included)."""
    return _random_hand(rng, n, dealer, ended_at)


def _checked(hand: Hand, players: Sequence[str], check: bool) -> Hand:
    if check:
        problems = validate_hand(hand, players)
        if problems:
            raise LogError(problems)
    return hand


def make_game(
    hands: Sequence[Hand],
    *,
    number: int = 1,
    players: Sequence[str] = DEFAULT_PLAYERS,
    status: GameStatus = GameStatus.FINISHED,
    rated: bool = True,
    ai: bool = False,
    bule: int = 60,
    refe_limit: int = 2,
    started_at: datetime | None = None,
    ended_at: datetime | None = None,
    abandoned_by: Sequence[str] = (),
    check: bool = True,
) -> Game:
    """Wrap hands (from `make_hand`) into a `Game`, numbering them 1, 2, 3 ….

    The hands' dealers must rotate (0, 1, 2, 0 …). ``started_at`` defaults to five minutes before the first
    hand's end; ``ended_at`` (finished and interrupted games) to the last hand's end. With ``check`` the game is
    validated and `LogError` (a ValueError) carries the problems.
    """
    numbered = tuple(dataclasses.replace(h, n=i + 1) for i, h in enumerate(hands))
    ends = [h.ended_at for h in numbered if h.ended_at is not None]
    if started_at is None:
        started_at = (min(ends) - timedelta(minutes=5)) if ends else DEFAULT_START
    if ended_at is None and status is not GameStatus.IN_PROGRESS:
        ended_at = max(ends, default=started_at)
    game = Game(
        number=number,
        rated=rated,
        ai=ai,
        bule=bule,
        refe_limit=refe_limit,
        players=(players[0], players[1], players[2]),
        status=status,
        started_at=started_at,
        ended_at=ended_at,
        abandoned_by=tuple(abandoned_by),
        hands=numbered,
    )
    if check:
        problems = validate_game(game)
        if problems:
            raise LogError(problems)
    return game
