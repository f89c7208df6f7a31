"""Rezon counting: does a defender's hand justify following (pratiti)? Step 2 of the Arbitar, and `sudija rezon`.

It owns the club text "Šta je dovoljan rezon za praćenje" and the counting rules of "Kako Arbitar odlučuje",
computed from the follower's ten cards before play and the talon the declarer bought (shown to everyone);
tricks actually taken play no part. Only the strict, mechanical rules are here; everything the club text leaves
to a referee's judgement (a 4-valued pik not on refe, "justified" reasons outside the rules, the kontra
responsibility) is not, so a hand that fails `meets_rules` without being `obviously_bad` is "below the rules but
not obvious" and the Arbitar leaves it alone.

Counting (club text, with the interpretations this module makes written out):

- Trump tricks: a trump card counts when he holds at least as many lower trumps as there are higher trumps he
  does not hold ("as, kralj sa još jednom kartom, dama sa još dve, žandar sa još tri, i tako dalje"). Every
  trump card is judged on its own against the whole suit (all eight cards; cards in the talon or discarded are
  still "trumps he lacks"), so K Q 8 makes two tricks and Q J T one.
- Side-suit rezon: a non-trump suit carries one rezon when it holds the A, or the K and at least one more card.
  In a suit of more than 3 cards it is half a rezon, unless the declarer bought (took from the talon) a card
  of that suit lower than the follower's top card there (his A or K). At most one rezon per suit.
- Rezons = trump tricks + side-suit rezons, in halves. Aces = all aces in the hand, the trump ace included.
- "No trump at all" (at least 2 aces) applies to a follower without a trump card, and in sans to everyone (there
  is no trump at all, `spec/decisions.md`): fewer than 2 aces does not meet the rules and is obviously bad.
- Positional requirement. First defender (the seat right after the declarer, "desno od odigravača"): at least
  2 rezons. Second defender when the first followed: 3 rezons, or 2 trump tricks, or 1 trump trick + 2 more
  rezons, or 1 trump trick + a full rezon in a side suit holding its A (an ace suit that counts only half a
  rezon does not qualify, `spec/decisions.md`), or 2 aces in suits no longer than 4
  cards with at least one bought card in those suits (that last alternative needs no trump trick). Second
  defender when the first did not follow: any cards; this overrides the no-trump ace rule too (the text says
  "may follow on any cards").
- "bar AQ": A with the K or the Q in a suit in which the declarer bought both talon cards lets anyone follow,
  even without trumps, unless the declarer was last in the auction and the other two said dalje.
- meets_rules = (positional requirement and the no-trump ace rule) or the AQ rule.
- obviously_bad ("očigledno loše praćenje", Arbitar step 2) = at most 1 rezon, or fewer than 2 aces when the
  no-trump rule applies, and the hand does not meet the rules (a hand the rules allow, such as the AQ case or
  the second defender after the first passed, is never obviously bad).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.cards import RANKS, Card, Suit

__all__ = [
    "Position",
    "RezonCount",
    "count_rezons",
    "count_rezons_cards",
    "parse_mask",
    "side_suit_rezon",
    "trump_tricks",
]

ACE = 7
KING = 6
QUEEN = 5
ACES_MASK = sum(1 << (suit * 8 + ACE) for suit in range(4))


class Position(StrEnum):
    """Where the follower sits: first = right after the declarer (decides first), second = the other one."""

    FIRST = "first"
    SECOND = "second"


@dataclass(frozen=True, slots=True)
class RezonCount:
    """The rezon count of one follower's hand and what the club rules say of it."""

    rezons: float
    trump_tricks: int
    aces: int
    obviously_bad: bool
    meets_rules: bool
    explanation: tuple[str, ...]
    # Per suit S, H, D, C: the side-suit rezon (0, 0.5 or 1; 0 for the trump suit).
    suit_rezons: tuple[float, float, float, float]
    # Which requirement applied: "first", "second", "second-after-pass", and "+aq" when the AQ rule allowed it.
    requirement: str
    # The explanation as catalogue keys and values (``rezon.*``, `NOTES`), for the edge to write in its reader's
    # language; a value that is a tuple is a list of keys, joined with ", ".
    notes: tuple[tuple[str, dict[str, Any]], ...] = ()


#: The explanation's notes in Serbian, by their catalogue keys (the catalogue's Serbian texts equal these).
NOTES: dict[str, str] = {
    "rezon.trump": "adut {suit}: adutskih štihova {tricks}",
    "rezon.side": "{suit}: rezon {value}",
    "rezon.side_half": "{suit}: rezon {value} (duža od 3 karte)",
    "rezon.total": "ukupno rezona: {rezons}, asova: {aces}",
    "rezon.aq_ok": "bar AQ u boji u kojoj je odigravač kupio dve karte ({where}): sme da dođe",
    "rezon.aq_void": "AQ u boji sa dve kupljene karte ({where}) ne važi: odigravač poslednji, ostali dalje",
    "rezon.second_free": "drugi pratilac, prvi nije pratio: može pratiti na bilo koje karte",
    "rezon.first_met": "prvi pratilac traži 2 rezona: ispunjeno",
    "rezon.first_unmet": "prvi pratilac traži 2 rezona: nije ispunjeno",
    "rezon.second": "drugi pratilac (prvi je pratio): {met}",
    "rezon.second_none": "drugi pratilac (prvi je pratio): nijedan uslov nije ispunjen",
    "rezon.alt.three": "3 rezona",
    "rezon.alt.two_trumps": "2 adutska štiha",
    "rezon.alt.trump_two": "1 adutski štih i 2 dodatna rezona",
    "rezon.alt.trump_ace": "1 adutski štih i ceo rezon sa A",
    "rezon.alt.short_aces": "2 A u bojama do 4 karte sa kupljenom kartom",
    "rezon.sans_aces_yes": "u sansu nema aduta: traži se bar 2 A: ima",
    "rezon.sans_aces_no": "u sansu nema aduta: traži se bar 2 A: nema",
    "rezon.void_aces_yes": "bez aduta: traži se bar 2 A: ima",
    "rezon.void_aces_no": "bez aduta: traži se bar 2 A: nema",
    "rezon.obviously_bad": "očigledno loše praćenje",
    "rezon.below": "ispod pravila, ali nije očigledno",
}


def note_text(key: str, values: dict[str, Any], words: Callable[..., str]) -> str:
    """A note in the words of `words` (a catalogue's ``t``); tuple values are lists of keys."""
    shown = {k: ", ".join(words(x) for x in v) if isinstance(v, tuple) else v for k, v in values.items()}
    return words(key, **shown)


def _serbian(key: str, **values: Any) -> str:
    return NOTES[key].format(**values)


def _suit_bits(mask: int, suit: int) -> int:
    return (mask >> (suit * 8)) & 0xFF


def _ranks(bits: int) -> list[int]:
    return [r for r in range(7, -1, -1) if bits >> r & 1]


def _show(suit: int, bits: int) -> str:
    ranks = " ".join("10" if RANKS[r] == "T" else RANKS[r] for r in _ranks(bits))
    return f"{Suit(suit).symbol} {ranks}" if ranks else f"{Suit(suit).symbol} —"


def trump_tricks(hand: int, trump: int | None) -> int:
    """Trump tricks: cards with at least as many lower trumps held as higher trumps missing."""
    if trump is None:
        return 0
    bits = _suit_bits(hand, trump)
    count = 0
    for rank in _ranks(bits):
        lower_held = (bits & ((1 << rank) - 1)).bit_count()
        higher_missing = 7 - rank - (bits >> (rank + 1)).bit_count()
        if lower_held >= higher_missing:
            count += 1
    return count


def side_suit_rezon(hand: int, suit: int, talon: int = 0) -> float:
    """The rezon of a non-trump suit: 1 for A or K+another, 0.5 in a suit longer than 3 (see the module)."""
    bits = _suit_bits(hand, suit)
    length = bits.bit_count()
    if not (bits >> ACE & 1 or (bits >> KING & 1 and length >= 2)):
        return 0.0
    if length <= 3:
        return 1.0
    top = bits.bit_length() - 1
    bought_lower = _suit_bits(talon, suit) & ((1 << top) - 1)
    return 1.0 if bought_lower else 0.5


def count_rezons(
    hand: int,
    trump: int | None,
    talon: int = 0,
    position: Position | str = Position.FIRST,
    first_followed: bool = True,
    declarer_last_after_passes: bool = False,
) -> RezonCount:
    """Count the rezons of a follower's hand (a card mask, ten cards before play) and judge them.

    ``trump`` is the trump suit index (None in sans), ``talon`` the mask of the cards the declarer bought,
    ``position`` first or second defender, ``first_followed`` whether the first defender followed (only
    matters for the second), ``declarer_last_after_passes`` the exception to the AQ rule.
    """
    if hand >> 32 or talon >> 32 or hand & talon:
        raise ValueError("hand and talon must be disjoint masks of the 32-card deck")
    if trump is not None and not 0 <= trump < 4:
        raise ValueError("trump must be a suit index 0..3 or None")
    position = Position(position)
    keys: list[tuple[str, dict[str, Any]]] = []

    def note(key: str, **values: Any) -> None:
        keys.append((key, values))

    tricks = trump_tricks(hand, trump)
    if trump is not None:
        note("rezon.trump", suit=_show(trump, _suit_bits(hand, trump)), tricks=tricks)
    per_suit = [0.0, 0.0, 0.0, 0.0]
    for suit in range(4):
        if suit == trump:
            continue
        value = side_suit_rezon(hand, suit, talon)
        per_suit[suit] = value
        if value:
            key = "rezon.side_half" if value == 0.5 else "rezon.side"
            note(key, suit=_show(suit, _suit_bits(hand, suit)), value=f"{value:g}")
    side = sum(per_suit)
    rezons = tricks + side
    aces = (hand & ACES_MASK).bit_count()
    has_trump = trump is not None and _suit_bits(hand, trump) != 0
    no_trump_rule = not has_trump  # in sans nobody has a trump: the 2-ace rule applies to every follower
    note("rezon.total", rezons=f"{rezons:g}", aces=aces)

    aq_suits = [
        s
        for s in range(4)
        if _suit_bits(talon, s).bit_count() == 2
        and _suit_bits(hand, s) >> ACE & 1
        and _suit_bits(hand, s) & (1 << KING | 1 << QUEEN)
    ]
    aq_ok = bool(aq_suits) and not declarer_last_after_passes
    if aq_suits:
        where = ", ".join(Suit(s).symbol for s in aq_suits)
        if aq_ok:
            note("rezon.aq_ok", where=where)
        else:
            note("rezon.aq_void", where=where)

    if position is Position.SECOND and not first_followed:
        requirement = "second-after-pass"
        positional = True
        note("rezon.second_free")
    elif position is Position.FIRST:
        requirement = "first"
        positional = rezons >= 2
        note("rezon.first_met" if positional else "rezon.first_unmet")
    else:
        requirement = "second"
        side_aces = [s for s in range(4) if s != trump and _suit_bits(hand, s) >> ACE & 1 and per_suit[s] == 1.0]
        short_aces = [s for s in range(4) if _suit_bits(hand, s) >> ACE & 1 and _suit_bits(hand, s).bit_count() <= 4]
        bought_in_short = any(_suit_bits(talon, s) for s in short_aces)
        alternatives = {
            "rezon.alt.three": rezons >= 3,
            "rezon.alt.two_trumps": tricks >= 2,
            "rezon.alt.trump_two": tricks >= 1 and rezons - 1 >= 2,
            "rezon.alt.trump_ace": tricks >= 1 and bool(side_aces),
            "rezon.alt.short_aces": len(short_aces) >= 2 and bought_in_short,
        }
        met = [name for name, ok in alternatives.items() if ok]
        positional = bool(met)
        if met:
            note("rezon.second", met=tuple(met))
        else:
            note("rezon.second_none")
    if no_trump_rule and requirement != "second-after-pass":
        kind = "sans" if trump is None else "void"
        note(f"rezon.{kind}_aces_{'yes' if aces >= 2 else 'no'}")
        positional = positional and aces >= 2
    meets = positional or aq_ok
    if aq_ok and not positional:
        requirement += "+aq"

    raw_bad = rezons <= 1 or (no_trump_rule and aces < 2)
    obviously_bad = raw_bad and not meets
    if obviously_bad:
        note("rezon.obviously_bad")
    elif not meets:
        note("rezon.below")
    return RezonCount(
        rezons=float(rezons),
        trump_tricks=tricks,
        aces=aces,
        obviously_bad=obviously_bad,
        meets_rules=meets,
        explanation=tuple(note_text(key, values, _serbian) for key, values in keys),
        suit_rezons=(per_suit[0], per_suit[1], per_suit[2], per_suit[3]),
        requirement=requirement,
        notes=tuple(keys),
    )


def parse_mask(cards: str | Iterable[str]) -> int:
    """A mask from card strings such as ``"AS 9S 10H"`` or ``["AS", "TH"]``; duplicates are an error."""
    items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    mask = 0
    for item in items:
        card = Card.parse(item)
        if mask & card.mask:
            raise ValueError(f"card given twice: {item}")
        mask |= card.mask
    return mask


def _parse_trump(trump: str | int | None) -> int | None:
    if trump is None or isinstance(trump, int):
        return trump
    if trump.strip().lower() in ("none", "sans", "betl", "-", ""):
        return None
    return int(Suit.parse(trump))


def count_rezons_cards(
    cards: str | Iterable[str],
    trump: str | int | None,
    talon: str | Iterable[str] = (),
    position: Position | str = Position.FIRST,
    first_followed: bool = True,
    declarer_last_after_passes: bool = False,
) -> RezonCount:
    """`count_rezons` for card strings (``"AS 9S 7S JD QH 10H"``); ``trump`` a suit letter, index or None."""
    return count_rezons(
        parse_mask(cards), _parse_trump(trump), parse_mask(talon), position, first_followed, declarer_last_after_passes
    )
