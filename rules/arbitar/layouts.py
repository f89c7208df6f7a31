"""What a defender could see when he played a card: the hand's play as masks, and the layouts of his view.

It owns the definitions of `spec/decisions.md` ("The Arbitar") that the procedure counts over:

- `played_hand(hand)` turns a played `Hand` into masks: the three hands each seat plays with (the declarer's
  ten after the talon and the discards), the talon cards the declarer kept, and every card played with the
  position it was played from (`Moment`: the real hands just before the card, the cards each seat had played,
  the voids each seat had shown, the tricks won so far).
- `view(moment, ...)` is the set of layouts ("rasporedi") seen from the player of that card: the cards of the
  other two players' current hands, except the kept talon cards still in the declarer's hand (the talon was
  shown, so they are known to be his), dealt in every way that fits the hand sizes and the voids shown so far
  (a player who did not follow suit has none of that suit; one who did not trump when void has no trumps).
  The two discarded cards are out of play: they are in nobody's hand in any layout. A void forces the cards
  of that suit to the other player, so a view is always "choose k of the free cards for the declarer"
  (`solver.enumerate_layouts`, combinatorial order). The same view gives the layouts' *starting* hands (cards
  played so far plus the current hands) for the consistency check with the bidding.
- `equivalent(card, other, moment)`: two cards of one suit in the player's hand with no other player's card
  still in play ranked between them (in the hands or on the table) are worth the same in every layout of the
  view, so only one of them needs to be compared.

Masks as in `rules.cards`: card index = suit * 8 + rank, a hand is a 32-bit mask.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from math import comb

from rules.arbitar import solver
from rules.cards import mask_of
from rules.gamelog import Hand, Strain
from rules.play import first_leader

__all__ = ["Moment", "PlayedHand", "View", "equivalent", "played_hand", "view"]

SUIT = (0xFF, 0xFF00, 0xFF0000, 0xFF000000)


@dataclass(frozen=True, slots=True)
class Moment:
    """One card played, with everything about the position just before it."""

    trick: int  # 1-based
    position: int  # 0 = led the trick, 1, 2
    seat: int  # who played it
    card: int  # card index
    leader: int  # who led this trick
    before: tuple[int, ...]  # the cards already played to this trick, the leader's first
    hands: tuple[int, int, int]  # every seat's real hand just before the card (current trick cards removed)
    played: tuple[int, int, int]  # the cards each seat had played before this card (this trick included)
    voids: tuple[int, int, int]  # suits each seat had shown void in (bit s = suit s), before this card
    declarer_tricks: int  # tricks the declarer had won before this trick
    defence_tricks: int  # tricks the defenders had won before this trick

    @property
    def tricks_left(self) -> int:
        """Tricks still to be decided, this one included."""
        return 11 - self.trick


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A played hand as masks: who, what strain, the starting hands, and every card played."""

    declarer: int
    trump: int | None  # suit index, None in sans and betl
    betl: bool
    leader: int  # who led the first trick
    start: tuple[int, int, int]  # the hands each seat played with (the declarer's after the discards)
    kept: int  # the talon cards the declarer kept (shown to everyone, so known to be his); 0 with igra
    moments: tuple[Moment, ...]

    @property
    def target(self) -> int:
        """The declarer's contract in tricks: 6, or 1 in betl meaning "reaches 1" is a fall."""
        return 1 if self.betl else 6


def played_hand(hand: Hand) -> PlayedHand:
    """The masks of a played hand's play; ValueError when the hand has no contract or an illegal play."""
    if hand.declarer is None or hand.contract is None:
        raise ValueError("the hand has no declarer and contract")
    declarer = hand.declarer
    strain = hand.contract.strain
    trump_suit = strain.trump
    trump = None if trump_suit is None else int(trump_suit)
    betl = strain is Strain.BETL
    start = [mask_of(cards) for cards in hand.deal]
    kept = 0
    if not hand.contract.igra:
        talon, discards = mask_of(hand.talon), mask_of(hand.discards)
        start[declarer] = (start[declarer] | talon) & ~discards
        kept = talon & ~discards
    leader = first_leader(hand)
    hands = list(start)
    played = [0, 0, 0]
    voids = [0, 0, 0]
    won = [0, 0]  # declarer, defence
    moments: list[Moment] = []
    for number, cards in enumerate(hand.tricks, start=1):
        if len(cards) != 3:
            raise ValueError(f"trick {number} has {len(cards)} cards")
        before: list[int] = []
        for position, card_obj in enumerate(cards):
            seat = (leader + position) % 3
            card = card_obj.index
            bit = 1 << card
            if not hands[seat] & bit:
                raise ValueError(f"trick {number}: seat {seat + 1} does not hold {card_obj}")
            if before:
                led = before[0] >> 3
                if hands[seat] & SUIT[led] and card >> 3 != led:
                    raise ValueError(f"trick {number}: seat {seat + 1} does not follow suit")
                if card >> 3 != led and trump is not None and card >> 3 != trump and hands[seat] & SUIT[trump]:
                    raise ValueError(f"trick {number}: seat {seat + 1} must trump")
            moments.append(
                Moment(
                    number,
                    position,
                    seat,
                    card,
                    leader,
                    tuple(before),
                    (hands[0], hands[1], hands[2]),
                    (played[0], played[1], played[2]),
                    (voids[0], voids[1], voids[2]),
                    won[0],
                    won[1],
                )
            )
            if before:
                led = before[0] >> 3
                if card >> 3 != led:
                    voids[seat] |= 1 << led
                    if trump is not None and card >> 3 != trump:
                        voids[seat] |= 1 << trump
            hands[seat] &= ~bit
            played[seat] |= bit
            before.append(card)
        winner = _winner(before, leader, trump)
        won[0 if winner == declarer else 1] += 1
        leader = winner
    return PlayedHand(declarer, trump, betl, first_leader(hand), (start[0], start[1], start[2]), kept, tuple(moments))


def _winner(cards: list[int], leader: int, trump: int | None) -> int:
    best = 0
    for i in range(1, len(cards)):
        card, top = cards[i], cards[best]
        if card >> 3 == top >> 3:
            if card > top:
                best = i
        elif trump is not None and card >> 3 == trump:
            best = i
    return (leader + best) % 3


@dataclass(frozen=True, slots=True)
class View:
    """The layouts seen from one card's player: choose ``count`` of ``free`` for ``declarer``, rest to partner."""

    free: int  # the cards dealt in every way
    count: int  # how many of them go to the declarer
    base: tuple[int, int, int]  # what every hand holds for sure (own hand, kept talon cards, voids' forcing)
    start_base: tuple[int, int, int]  # the same plus the cards each seat has played (starting hands)
    declarer: int
    partner: int

    @property
    def size(self) -> int:
        return comb(self.free.bit_count(), self.count)

    def layouts(self) -> array[int]:
        """The current hands of every layout (three masks each), in `solver.enumerate_layouts` order."""
        return solver.enumerate_layouts(self.free, self.count, self.base, self.declarer, self.partner)

    def starting_layouts(self) -> array[int]:
        """The starting hands of the same layouts, in the same order."""
        return solver.enumerate_layouts(self.free, self.count, self.start_base, self.declarer, self.partner)


def view(moment: Moment, declarer: int, kept: int) -> View:
    """The layouts seen from ``moment.seat`` (a defender) just before he plays ``moment.card``."""
    seat = moment.seat
    if seat == declarer:
        raise ValueError("layouts are seen from a defender")
    partner = 3 - seat - declarer
    hands = moment.hands
    known = kept & hands[declarer]
    free = (hands[declarer] & ~known) | hands[partner]
    to_declarer = known
    to_partner = 0
    for suit in range(4):
        cards = free & SUIT[suit]
        if not cards:
            continue
        if moment.voids[declarer] >> suit & 1:
            to_partner |= cards
        elif moment.voids[partner] >> suit & 1:
            to_declarer |= cards
    free &= ~(to_declarer | to_partner)
    count = hands[declarer].bit_count() - to_declarer.bit_count()
    base = [0, 0, 0]
    base[seat] = hands[seat]
    base[declarer] = to_declarer
    base[partner] = to_partner
    start = [base[s] | moment.played[s] for s in range(3)]
    return View(free, count, (base[0], base[1], base[2]), (start[0], start[1], start[2]), declarer, partner)


def equivalent(card: int, other: int, moment: Moment) -> bool:
    """Same suit and no other player's card still in play (hands, this trick) between them: equal in every layout."""
    if card >> 3 != other >> 3:
        return False
    low, high = min(card, other), max(card, other)
    others = (moment.hands[0] | moment.hands[1] | moment.hands[2] | mask_of_cards(moment.before)) & ~moment.hands[
        moment.seat
    ]
    between = others & ((1 << high) - 1) & ~((1 << (low + 1)) - 1)
    return between == 0


def mask_of_cards(cards: tuple[int, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
