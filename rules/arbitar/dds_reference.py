"""The reference double-dummy solver for preferans: a small, obviously correct minimax in pure Python.

It owns nothing but the definition of the game value that the native solver (`rules.arbitar._dds`) must
reproduce; tests compare the two position by position. It is slow (memoized full minimax, no pruning) and
meant for small endings only.

Encoding (shared with `rules.cards`): card index = suit * 8 + rank, suits S H D C = 0..3, ranks 7..A = 0..7;
a hand is a 32-bit mask. Seats 0, 1, 2; play goes seat k -> k + 1 mod 3.

Rules: follow the led suit; when void, trump if holding a trump (``trump`` is None in sans and betl); else any
card. The highest trump wins the trick, otherwise the highest card of the led suit; the winner leads next.
The value of a position is the number of tricks the declarer takes from it to the end, counting the current
trick; the declarer maximizes it (minimizes in betl), both defenders minimize it (maximize in betl).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

SUIT_MASKS: tuple[int, int, int, int] = (0xFF, 0xFF00, 0xFF0000, 0xFF000000)


def legal_cards(hand: int, led_suit: int | None, trump: int | None) -> list[int]:
    """The card indices ``hand`` may play when ``led_suit`` was led (None: he leads)."""
    if led_suit is not None:
        follow = hand & SUIT_MASKS[led_suit]
        if follow:
            hand = follow
        elif trump is not None and hand & SUIT_MASKS[trump]:
            hand = hand & SUIT_MASKS[trump]
    return [i for i in range(32) if hand >> i & 1]


def trick_winner(cards: tuple[int, ...], leader: int, trump: int | None) -> int:
    """The seat that wins a complete trick of three cards played by ``leader``, then the next seats."""
    led = cards[0] // 8
    trumps = [k for k in range(3) if trump is not None and cards[k] // 8 == trump]
    pool = trumps or [k for k in range(3) if cards[k] // 8 == led]
    best = max(pool, key=lambda k: cards[k])
    return (leader + best) % 3


def _check(hands: tuple[int, int, int], to_move: int, trick: tuple[int, ...], trick_leader: int | None) -> int:
    """Validate a position; return the trick leader."""
    if trick and trick_leader is None:
        raise ValueError("a trick in progress needs its leader")
    leader = to_move if not trick else trick_leader
    assert leader is not None
    if len(trick) > 2 or (leader + len(trick)) % 3 != to_move:
        raise ValueError("to_move does not follow the trick leader and the cards already played")
    seen = 0
    for mask in (*hands, *(1 << c for c in trick)):
        if mask & seen or mask >> 32:
            raise ValueError("a card appears twice or is not a card of the deck")
        seen |= mask
    size = hands[to_move].bit_count()
    for k in range(len(trick)):
        if hands[(leader + k) % 3].bit_count() != size - 1:
            raise ValueError("hand sizes do not fit the trick in progress")
    for k in range(len(trick), 3):
        if hands[(leader + k) % 3].bit_count() != size:
            raise ValueError("hand sizes do not fit the trick in progress")
    return leader


def solve(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
    cap: int | None = None,
) -> dict[int, int]:
    """For every legal card of ``to_move``: the declarer's tricks from here to the end after playing it
    (with ``cap``, ``min(tricks, cap)``: the capped answer `rules.arbitar.solver.solve` gives the same way)."""
    if cap is not None and not 0 <= cap <= 10:
        raise ValueError("cap is 0..10 tricks")
    leader = _check(hands, to_move, trick, trick_leader)
    value = _make_value(trump, betl, declarer)
    led = trick[0] // 8 if trick else None
    result: dict[int, int] = {}
    for card in legal_cards(hands[to_move], led, trump):
        after = list(hands)
        after[to_move] &= ~(1 << card)
        tricks = value(after[0], after[1], after[2], leader, (*trick, card))
        result[card] = tricks if cap is None else min(tricks, cap)
    return result


def solve_tricks(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
) -> int:
    """The value of the position: the declarer's tricks from here under optimal play by everyone."""
    values = solve(hands, trump, betl, declarer, to_move, trick, trick_leader).values()
    if not values:
        return 0
    declarer_moves = (to_move == declarer) != betl
    return max(values) if declarer_moves else min(values)


def _make_value(trump: int | None, betl: bool, declarer: int) -> Callable[[int, int, int, int, tuple[int, ...]], int]:
    """A memoized minimax for one strain and declarer (the cache lives as long as one solve call)."""

    @cache
    def value(h0: int, h1: int, h2: int, leader: int, trick: tuple[int, ...]) -> int:
        hands = (h0, h1, h2)
        if len(trick) == 3:
            winner = trick_winner(trick, leader, trump)
            won = 1 if winner == declarer else 0
            if h0 == 0:
                return won
            return won + value(h0, h1, h2, winner, ())
        seat = (leader + len(trick)) % 3
        led = trick[0] // 8 if trick else None
        outcomes = []
        for card in legal_cards(hands[seat], led, trump):
            after = list(hands)
            after[seat] &= ~(1 << card)
            outcomes.append(value(after[0], after[1], after[2], leader, (*trick, card)))
        declarer_moves = (seat == declarer) != betl
        return max(outcomes) if declarer_moves else min(outcomes)

    return value
