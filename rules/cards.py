"""Cards of the 32-card preferans deck: parsing, display and the bitmask encoding shared with the solver.

A card is a rank (7 8 9 T J Q K A) and a suit (S pik, H herc, D karo, C tref). Its index is
``suit * 8 + rank`` so a hand fits a 32-bit mask; `rules.arbitar` relies on that encoding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from rules.limits import shown as _shown


class Suit(IntEnum):
    """The four suits; the value is the index used in card masks."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def serbian(self) -> str:
        """The Serbian name: pik, herc, karo, tref."""
        return _SUIT_NAMES[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from a letter (S H D C), a symbol (♠ ♥ ♦ ♣) or a Serbian name."""
        key = text.strip()
        found = _SUIT_INPUT.get(key.upper())
        if found is None:  # not `or`: Suit.S is 0, which is falsy
            found = _SUIT_INPUT.get(key.lower())
        if found is None:
            raise ValueError(f"unknown suit {_shown(text)}: use S, H, D, C (♠ ♥ ♦ ♣, or pik, herc, karo, tref)")
        return found


_SUIT_SYMBOLS = {Suit.S: "♠", Suit.H: "♥", Suit.D: "♦", Suit.C: "♣"}
_SUIT_NAMES = {Suit.S: "pik", Suit.H: "herc", Suit.D: "karo", Suit.C: "tref"}
_SUIT_INPUT: dict[str, Suit] = {}
for _suit in Suit:
    _SUIT_INPUT[_suit.name] = _suit
    _SUIT_INPUT[_SUIT_SYMBOLS[_suit]] = _suit
    _SUIT_INPUT[_SUIT_NAMES[_suit]] = _suit
# The white variants of the symbols are accepted too.
_SUIT_INPUT.update({"♤": Suit.S, "♡": Suit.H, "♢": Suit.D, "♧": Suit.C})

RANKS = "789TJQKA"


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card. Ordered by suit, then rank, so sorted hands group by suit."""

    suit: Suit
    rank: int  # 0 = seven ... 7 = ace

    def __post_init__(self) -> None:
        if not 0 <= self.rank < 8:
            raise ValueError(f"rank index out of range: {self.rank}")

    @property
    def index(self) -> int:
        """The card's bit position in a hand mask."""
        return int(self.suit) * 8 + self.rank

    @property
    def mask(self) -> int:
        return 1 << self.index

    @property
    def rank_char(self) -> str:
        return RANKS[self.rank]

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 32:
            raise ValueError(f"card index out of range: {index}")
        return _DECK[index]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AS``, ``10H``, ``TH``, ``Q♦``; rank first, then suit (letter or symbol)."""
        if not isinstance(text, str):
            raise ValueError(f"a card must be text like 'AS' or '10♥', not {_shown(text)}")
        raw = text.strip()
        upper = raw.upper()
        rank_part, suit_part = (upper[:2], raw[2:]) if upper.startswith("10") else (upper[:1], raw[1:])
        if rank_part == "10":
            rank_part = "T"
        if len(rank_part) != 1 or rank_part not in RANKS or not suit_part:
            raise ValueError(f"not a card: {_shown(text)} (write rank then suit, e.g. AS, 10H, Q♦)")
        try:
            suit = Suit.parse(suit_part)
        except ValueError:
            raise ValueError(f"not a card: {_shown(text)} (suit must be S, H, D, C or ♠ ♥ ♦ ♣)") from None
        return cls(suit, RANKS.index(rank_part))

    def __str__(self) -> str:
        """The canonical log spelling, e.g. ``TH``."""
        return self.rank_char + self.suit.name

    def display(self) -> str:
        """For people: ``10♥``, ``A♠``."""
        rank = "10" if self.rank_char == "T" else self.rank_char
        return rank + self.suit.symbol


_DECK: tuple[Card, ...] = tuple(Card(suit, rank) for suit in Suit for rank in range(8))
DECK: tuple[Card, ...] = _DECK


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= card.mask
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, sorted by suit and rank."""
    return [_DECK[i] for i in range(32) if mask >> i & 1]


def suit_mask(suit: Suit) -> int:
    return 0xFF << (int(suit) * 8)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards separated by spaces or commas (or an iterable of card strings)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(item) for item in items]


def display_hand(cards: Iterable[Card]) -> str:
    """A hand grouped by suit for people: ``♠ A 9 7  ♥ Q 10  ...``, highest first."""
    by_suit: dict[Suit, list[Card]] = {}
    for card in sorted(cards, key=lambda c: (c.suit, -c.rank)):
        by_suit.setdefault(card.suit, []).append(card)
    parts = []
    for suit, group in by_suit.items():
        ranks = " ".join("10" if c.rank_char == "T" else c.rank_char for c in group)
        parts.append(f"{suit.symbol} {ranks}")
    return "  ".join(parts) if parts else "—"
