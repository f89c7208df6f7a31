"""Card play of one hand: who leads, which cards are legal, who wins each trick, and where play may stop.

Play goes in seat order (seat k, then k+1 mod 3). The first hand (the seat after the dealer) leads the first
trick, except in sans, which is led *through* the declarer: the seat before him leads, so he plays second.
A player must follow the led suit, else trump when he holds a trump, else play anything. Every hand with a
declarer is played with three cards a trick, also when one defender does not follow (his partner plays his
cards). Play may stop once the result is certain for a fall: after the defence's fifth trick in a trump or
sans contract, after the declarer's first trick in betl; tricks a log records after that point do not count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.cards import Card, Suit, mask_of, suit_mask
from rules.gamelog import Hand, Strain
from rules.phrases import Phrase
from rules.problems import Key, Place, Problem


def next_seat(seat: int, step: int = 1) -> int:
    return (seat + step) % 3


def first_leader(hand: Hand) -> int:
    """Who leads the first trick of a played hand."""
    if hand.contract is not None and hand.declarer is not None and hand.contract.strain is Strain.SANS:
        return next_seat(hand.declarer, 2)
    return next_seat(hand.dealer)


def trick_winner(cards: Sequence[Card], leader: int, trump: Suit | None) -> int:
    """The seat that wins a full trick whose first card was played by `leader`."""
    best = 0
    for i in range(1, len(cards)):
        card, top = cards[i], cards[best]
        if card.suit == top.suit:
            if card.rank > top.rank:
                best = i
        elif trump is not None and card.suit == trump:
            best = i
    return next_seat(leader, best)


def legal_mask(hand_mask: int, led: Suit | None, trump: Suit | None) -> int:
    """The cards of `hand_mask` that may be played to a trick led in `led` (None when leading)."""
    if led is None:
        return hand_mask
    same = hand_mask & suit_mask(led)
    if same:
        return same
    if trump is not None:
        trumps = hand_mask & suit_mask(trump)
        if trumps:
            return trumps
    return hand_mask


@dataclass(frozen=True, slots=True)
class TrickPlay:
    number: int  # 1-based
    leader: int
    cards: tuple[Card, ...]  # in play order, the leader's first
    winner: int

    def seat_of(self, position: int) -> int:
        return next_seat(self.leader, position)


@dataclass(frozen=True, slots=True)
class PlayResult:
    """The replay of a hand's tricks. `problems` (`rules.problems`) is empty for a legal play."""

    tricks: tuple[TrickPlay, ...]
    problems: tuple[Problem, ...]

    def won(self, seat: int, upto: int | None = None) -> int:
        """Tricks won by `seat` among the first `upto` tricks (all when None)."""
        return sum(1 for t in self.tricks[:upto] if t.winner == seat)


def playing_hands(hand: Hand) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """Each seat's cards as play begins: the deal, the declarer's with the talon taken and his two discards put
    away (unless he declared igra, without the talon)."""
    held = [tuple(sorted(cards)) for cards in hand.deal]
    if hand.declarer is not None and hand.contract is not None and not hand.contract.igra:
        taken = set(hand.deal[hand.declarer]) | set(hand.talon)
        held[hand.declarer] = tuple(sorted(taken - set(hand.discards)))
    return held[0], held[1], held[2]


def replay(hand: Hand) -> PlayResult:
    """Walk the recorded tricks, checking each card against its owner's hand and the follow rules."""
    if hand.declarer is None or hand.contract is None or not hand.tricks:
        return PlayResult((), ())
    trump = hand.contract.strain.trump
    holdings = [mask_of(cards) for cards in hand.deal]
    if not hand.contract.igra:
        # The declarer took the talon and discarded two cards (`playing_hands`, as masks).
        holdings[hand.declarer] = (holdings[hand.declarer] | mask_of(hand.talon)) & ~mask_of(hand.discards)
    leader = first_leader(hand)
    plays: list[TrickPlay] = []
    problems: list[Problem] = []
    for number, cards in enumerate(hand.tricks, start=1):
        where = Place(trick=number)
        if len(cards) != 3:
            problems.append(Problem.of(Key.TRICK_SIZE, where, count=len(cards)))
            break
        led: Suit | None = None
        broken = False
        for position, card in enumerate(cards):
            seat = next_seat(leader, position)
            if not holdings[seat] & card.mask:
                owner = next((s for s in range(3) if holdings[s] & card.mask), None)
                shown = card.display()
                problems.append(
                    Problem.of(Key.SEAT_NOBODY_HOLDS, where, seat=seat + 1, card=shown)
                    if owner is None
                    else Problem.of(Key.SEAT_NOT_HELD, where, seat=seat + 1, card=shown, owner=owner + 1)
                )
                broken = True
                break
            allowed = legal_mask(holdings[seat], led, trump)
            if not allowed & card.mask:
                problems.append(_rule_broken(holdings[seat], led, trump, where, seat, card))
                broken = True
                break
            holdings[seat] &= ~card.mask
            if led is None:
                led = card.suit
        if broken:
            break
        winner = trick_winner(cards, leader, trump)
        plays.append(TrickPlay(number, leader, cards, winner))
        leader = winner
    return PlayResult(tuple(plays), tuple(problems))


def _rule_broken(holding: int, led: Suit | None, trump: Suit | None, where: Place, seat: int, card: Card) -> Problem:
    assert led is not None
    suit = Phrase(f"term.{led.serbian}")
    if holding & suit_mask(led):
        return Problem.of(Key.SEAT_FOLLOW_SUIT, where, seat=seat + 1, card=card.display(), suit=suit, symbol=led.symbol)
    assert trump is not None
    trumps = Phrase(f"term.{trump.serbian}")
    return Problem.of(
        Key.SEAT_TRUMP, where, seat=seat + 1, card=card.display(), led=suit, trump=trumps, symbol=trump.symbol
    )


def stop_point(hand: Hand, result: PlayResult) -> int:
    """How many of the played tricks count: play stops once a fall is certain (see the module docstring)."""
    assert hand.contract is not None
    assert hand.declarer is not None
    declarer_tricks = 0
    defence_tricks = 0
    for i, trick in enumerate(result.tricks, start=1):
        if trick.winner == hand.declarer:
            declarer_tricks += 1
        else:
            defence_tricks += 1
        if hand.contract.strain is Strain.BETL and declarer_tricks == 1:
            return i
        if hand.contract.strain is not Strain.BETL and defence_tricks == 5:
            return i
    return len(result.tricks)


def play_complete(hand: Hand, result: PlayResult) -> bool:
    """True when the recorded play reached ten tricks or a legitimate stop."""
    count = len(result.tricks)
    if count == 10:
        return True
    if not count or stop_point(hand, result) != count:
        return False
    # stop_point is also `count` when play has not stopped at all: the last trick must be the deciding one.
    assert hand.contract is not None
    assert hand.declarer is not None
    declarer_tricks = result.won(hand.declarer)
    if hand.contract.strain is Strain.BETL:
        return declarer_tricks == 1 and result.tricks[-1].winner == hand.declarer
    return count - declarer_tricks == 5 and result.tricks[-1].winner != hand.declarer
