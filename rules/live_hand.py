"""The hand in progress a game server reports for the referee (protocol v1.1, ``hand_in_progress``): a hand in
game-log format v1 without ``ended_at`` (the deal, the auction and what was played in whole tricks), the cards of
the trick being played (``current_trick``, the leader's first) and whether the table has seen the talon. It is
read as the log reader reads a hand and checked as the next hand of the stored game, as a live feed's hand is; a
talon the game server withholds is the two cards nobody was dealt. Pure: the desk asks, this decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.cards import Card, cards_of, mask_of
from rules.gamelog import Game, GameStatus, Hand, LogError, format_time, parse_game
from rules.limits import shown
from rules.phrases import Phrase, Value
from rules.play import first_leader, next_seat, replay
from rules.problems import Key, Problem, Problems, Word
from rules.validation import validate_next_hand

DECK = frozenset(cards_of((1 << 32) - 1))


@dataclass(frozen=True, slots=True)
class LiveHand:
    """The stored game with the hand in progress as its last hand, the trick being played, and whether the table
    has seen the talon."""

    game: Game
    current_trick: tuple[tuple[int, Card], ...]  # (seat, card) in the order played
    talon_seen: bool

    @property
    def hand(self) -> Hand:
        return self.game.hands[-1]


class LiveHandError(Problems):
    """The hand in progress does not fit the stored game: `problems` (`rules.problems`) say why."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems, "; ")


def _refused(key: Key, /, **values: Value) -> LiveHandError:
    return LiveHandError([Problem.of(key, **values)])


def _cards(raw: object, what: Word) -> list[Card]:
    """The cards of a list of card texts; `LiveHandError` naming the first that is none."""
    if not isinstance(raw, list):
        raise _refused(Key.CARDS_NOT_LIST, what=Phrase(what), value=shown(raw))
    cards = []
    for item in raw:
        try:
            cards.append(Card.parse(item))
        except (TypeError, ValueError):
            key = Key.NOT_A_CARD if isinstance(item, str) else Key.CARD_NOT_TEXT
            raise _refused(key, what=Phrase(what), value=shown(item)) from None
    return cards


def with_hand_in_progress(game: Game, answer: Mapping[str, Any]) -> LiveHand:
    """`game` (its completed hands) with the hand the game server reports in progress (`answer`: its ``hand``,
    ``current_trick`` and ``talon_seen``); `LiveHandError` with every problem when it does not fit."""
    doc = answer.get("hand")
    if not isinstance(doc, Mapping):
        raise _refused(Key.LIVE_HAND)
    doc = dict(doc)
    deal = doc.get("deal")
    talon_seen = answer.get("talon_seen", True)
    if not isinstance(talon_seen, bool):
        raise _refused(Key.LIVE_TALON_SEEN)
    if isinstance(deal, Mapping) and "talon" not in deal:
        deal = dict(deal)
        dealt: set[Card] = set()
        for cards in deal.values():
            dealt.update(_cards(cards, Word.DEAL_FIELD))
        deal["talon"] = [str(card) for card in sorted(DECK - dealt)]
        doc["deal"] = deal
        talon_seen = False
    completed = tuple(h for h in game.hands if h.completed)
    before = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=completed)
    header = {
        "game": game.number,
        "rated": game.rated,
        "ai": game.ai,
        "bule": game.bule,
        "refe_limit": game.refe_limit,
        "players": list(game.players),
        "status": "in_progress",
        "started_at": format_time(game.started_at),
        "hands": [{**doc, "n": 1}],
    }
    try:
        hand = parse_game(header).hands[0]
    except LogError as exc:
        raise LiveHandError(exc.problems[:5]) from None
    n = doc.get("n")
    if type(n) is not int:
        raise _refused(Key.LIVE_NUMBER)
    hand = replace(hand, n=n)
    problems = validate_next_hand(before, hand)
    if problems:
        raise LiveHandError(problems[:5])
    trick = _current_trick(hand, answer.get("current_trick", []))
    return LiveHand(replace(before, hands=(*completed, hand)), trick, talon_seen)


def _current_trick(hand: Hand, raw: object) -> tuple[tuple[int, Card], ...]:
    """The cards of the trick being played, each with the seat that played it: at most two (a third closes it
    into `tricks`), each in the hand of the seat whose turn it was."""
    if not isinstance(raw, list) or len(raw) > 2:
        raise _refused(Key.LIVE_TRICK_SHAPE)
    cards = tuple(_cards(raw, Word.CURRENT_TRICK))
    if not cards:
        return ()
    if hand.contract is None or hand.declarer is None or len(hand.tricks) == 10:
        raise _refused(Key.LIVE_NO_TRICK)
    holdings = [mask_of(cards) for cards in hand.deal]
    if not hand.contract.igra:
        holdings[hand.declarer] = (holdings[hand.declarer] | mask_of(hand.talon)) & ~mask_of(hand.discards)
    played = mask_of(card for trick in hand.tricks for card in trick)
    played_tricks = replay(hand).tricks
    leader = played_tricks[-1].winner if played_tricks else first_leader(hand)
    out = []
    for position, card in enumerate(cards):
        seat = next_seat(leader, position)
        if not holdings[seat] & ~played & card.mask:
            raise _refused(Key.LIVE_NOT_HELD, card=card.display())
        played |= card.mask
        out.append((seat, card))
    return tuple(out)
