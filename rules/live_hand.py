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
from rules.play import first_leader, next_seat, replay
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


class LiveHandError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def with_hand_in_progress(game: Game, answer: Mapping[str, Any]) -> LiveHand:
    """`game` (its completed hands) with the hand the game server reports in progress (`answer`: its ``hand``,
    ``current_trick`` and ``talon_seen``); `LiveHandError` with every problem when it does not fit."""
    doc = answer.get("hand")
    if not isinstance(doc, Mapping):
        raise LiveHandError(["'hand' must be a hand in game-log format v1"])
    doc = dict(doc)
    deal = doc.get("deal")
    talon_seen = answer.get("talon_seen", True)
    if not isinstance(talon_seen, bool):
        raise LiveHandError(["'talon_seen' must be true or false"])
    if isinstance(deal, Mapping) and "talon" not in deal:
        deal = dict(deal)
        dealt: set[Card] = set()
        for cards in deal.values():
            try:
                dealt.update(Card.parse(c) for c in cards)
            except (TypeError, ValueError) as exc:
                raise LiveHandError([f"'hand.deal': {exc}"]) from None
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
        raise LiveHandError([f"'hand': {p}" for p in exc.problems[:5]]) from None
    n = doc.get("n")
    if type(n) is not int:
        raise LiveHandError(["'hand.n' must be the hand's number"])
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
        raise LiveHandError(["'current_trick' must list the 0 to 2 cards of the trick being played"])
    try:
        cards = tuple(Card.parse(item) for item in raw)
    except (TypeError, ValueError) as exc:
        raise LiveHandError([f"'current_trick': {exc}"]) from None
    if not cards:
        return ()
    if hand.contract is None or hand.declarer is None or len(hand.tricks) == 10:
        raise LiveHandError(["'current_trick': no trick is being played"])
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
            whose = "is not in the hand of the player whose turn it is"
            raise LiveHandError([f"'current_trick': {card.display()} {whose}"])
        played |= card.mask
        out.append((seat, card))
    return tuple(out)
