"""Checking a change to the paper before the desk records it: which hands can take it, and the limits.

`check_change(game, changes, new)` raises `ChangeRefused` (a `key` and its `params`: the edge writes the
message, ``change.<key>`` of the catalogues, in its reader's language) when `new` may not be recorded on top of
`changes`; otherwise it returns the change as the paper would apply it (`AppliedChange`), whose note says, for
instance, that an Ispravka was reduced so that 2 bule stay. The limits, from the club rules and spec/scoring.md:

* every change attaches to a finished hand that the paper scores (not one after the game's end); once the paper
  has ended (the bule reached zero, or a settlement) no bula change and no fall move attaches to any hand;
* one fall move per hand: an Ispravka and an Odlazak u bulu exclude each other in either order;
* Promena bula: an even number from −98 to 98 per player, not all zero; after it at least 2 bule stay on the
  paper (it may never end the game), unless the game had already ended with that hand;
* Odlazak u bulu umesto drugog: `player` is the other defender of a defender who fell; one per hand;
* Ispravka: `player` fell in that hand; one per hand (replace or cancel the old one), not after his fall moved;
* the write-off of a manual settlement: an interrupted game that has not ended, at its last scored hand, once
  at least 2/3 of all bule are played and at least an hour after the interruption;
* no change may move the game's end (a change at an earlier hand can alter later refe, and so later values).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from rules.gamelog import Game, GameStatus
from rules.limits import MAX_BULA_CHANGE, MIN_BULE_LEFT, SETTLEMENT_DELAY, SETTLEMENT_PLAYED_SHARE
from rules.paper import (
    AppliedChange,
    ChangeKind,
    Paper,
    PaperChange,
    compute_paper,
)
from rules.verdict_place import paper_over

SETTLEMENT_PLAYED = (SETTLEMENT_PLAYED_SHARE.numerator, SETTLEMENT_PLAYED_SHARE.denominator)


class ChangeRefused(ValueError):
    """A change that may not be recorded: `key` names the message (``change.<key>`` in the catalogues), `params`
    fill it (numbers, nicknames, moments: the edge writes them in its reader's language)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    @property
    def message_key(self) -> str:
        return f"change.{self.key}"


def _refuse(key: str, **params: object) -> ChangeRefused:
    return ChangeRefused(key, **params)


def _end_moved(before: Paper, after: Paper) -> ChangeRefused:
    """The end moved: from one hand to another, to the game not ending, or to an end where there was none."""
    if before.end_hand is None:
        return _refuse("end_moved_in", after=after.end_hand)
    if after.end_hand is None:
        return _refuse("end_moved_away", before=before.end_hand)
    return _refuse("end_moved", before=before.end_hand, after=after.end_hand)


def check_change(
    game: Game,
    changes: Sequence[PaperChange],
    new: PaperChange,
    *,
    settlement_played: tuple[int, int] = SETTLEMENT_PLAYED,
    settlement_delay: timedelta = SETTLEMENT_DELAY,
) -> AppliedChange:
    """Refuse `new` with `ChangeRefused` if it may not be recorded on top of `changes`; else its effect. The
    settlement's conditions are the club's (2/3 of the bule played, an hour after the interruption) unless its
    configuration sets others."""
    before = compute_paper(game, changes)
    n = new.hand
    names = game.players
    if before.settled:
        raise _refuse("settled", game=game.number)
    if new.kind is not ChangeKind.OTPIS and paper_over(before):
        raise _refuse("paper_over", game=game.number, end=before.end_hand)
    if not 1 <= n <= len(game.hands):
        raise _refuse("no_hand", hand=n, game=game.number, count=len(game.hands))
    paper_hand = before.hands[n - 1]
    if paper_hand.score is None:
        if paper_hand.unscored == "after_end":
            raise _refuse("after_end", game=game.number, end=before.end_hand, hand=n)
        raise _refuse("not_finished", hand=n)
    score = paper_hand.score
    kind = new.kind
    if kind is ChangeKind.PROMENA_BULA:
        if not any(new.bule):
            raise _refuse("empty")
        for seat, amount in enumerate(new.bule):
            if amount % 2:
                raise _refuse("odd", player=names[seat], amount=amount)
            if abs(amount) > MAX_BULA_CHANGE:
                raise _refuse("range", player=names[seat], amount=amount, limit=MAX_BULA_CHANGE)
    elif kind is ChangeKind.OTPIS:
        if game.status is not GameStatus.INTERRUPTED:
            raise _refuse("not_interrupted", game=game.number)
        if before.ended:
            raise _refuse("ended", game=game.number)
        last = max(h.n for h in before.hands if h.score is not None)
        if n != last:
            raise _refuse("otpis_hand", last=last)
        total = 3 * game.bule
        most = total * (settlement_played[1] - settlement_played[0]) // settlement_played[1]
        if before.bule_sum > most:
            raise _refuse("otpis_early", left=before.bule_sum, total=total, most=most)
        if game.ended_at is not None and new.when - game.ended_at < settlement_delay:
            raise _refuse("otpis_soon", at=game.ended_at)
    else:
        player = new.player
        if player is None or not 0 <= player < 3:
            raise _refuse("no_player", players=", ".join(names))
        declarer = score.declarer
        if declarer is None or score.passed is None:
            raise _refuse("no_declarer", hand=n)
        earlier = [c for c in paper_hand.changes if c.applied]
        # One fall move per hand, either order (rules.fall_moves decides for the desk with the sources named).
        if any(
            c.change.kind in (ChangeKind.ODLAZAK_U_BULU, ChangeKind.ISPRAVKA) and c.change.kind is not kind
            for c in earlier
        ):
            raise _refuse("fall_moved_twice", hand=n)
        if kind is ChangeKind.ODLAZAK_U_BULU:
            if player == declarer:
                raise _refuse("declarer", player=names[player], hand=n)
            fallen = 3 - declarer - player
            if fallen not in score.fallen:
                raise _refuse("not_fallen_other", hand=n, fallen=names[fallen], player=names[player])
            if any(c.change.kind is kind for c in earlier):
                raise _refuse("odlazak_twice", hand=n)
        else:
            if player not in score.fallen:
                raise _refuse("not_fallen", player=names[player], hand=n)
            if any(c.change.kind is kind for c in earlier):
                raise _refuse("ispravka_twice", hand=n)
            if any(c.change.kind is ChangeKind.ODLAZAK_U_BULU and c.entries[player].bule < 0 for c in earlier):
                raise _refuse("moved", player=names[player], hand=n)
    after = compute_paper(game, [*changes, new])
    applied = next(c for c in after.hands[n - 1].changes if c.change is new)
    if kind is ChangeKind.PROMENA_BULA and before.end_hand != n and applied.bule_sum_after < MIN_BULE_LEFT:
        start = applied.bule_sum_after - sum(new.bule)
        raise _refuse("limit", left=applied.bule_sum_after, min=MIN_BULE_LEFT, most=start - MIN_BULE_LEFT)
    if kind is not ChangeKind.OTPIS and (after.end_hand != before.end_hand or after.ended != before.ended):
        raise _end_moved(before, after)
    return applied
