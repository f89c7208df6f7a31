"""From a verdict to the changes it writes on the paper, checked against the paper's limits by `rules.paper`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rules.gamelog import Game
from rules.verdicts import BulaChange, Draft, FallTransfer, Settlement, VerdictRefused
from storage.changes import NewPaperChange, StoredPaperChange


def verdict_changes(draft: Draft, game: Game, stored: Sequence[StoredPaperChange], referee: int | None,
                    now: datetime) -> list[NewPaperChange]:
    """The paper changes of `draft` (none for verdicts that do not touch the paper); raises `VerdictRefused`
    when the paper would break a limit."""
    verdict = draft.verdict
    completed = [h.n for h in game.hands if h.completed]
    new: list[NewPaperChange] = []
    if isinstance(verdict, BulaChange):
        amounts = [0, 0, 0]
        for nick, amount in verdict.amounts.items():
            seat = game.seat_of(nick)
            assert seat is not None
            amounts[seat] = amount
        hand = verdict.hand if verdict.hand is not None else completed[-1]
        new.append(NewPaperChange(game.number, hand, "bula_change", {"amounts": amounts}, referee, now, draft.reason))
    elif isinstance(verdict, FallTransfer):
        seat = game.seat_of(verdict.culprit)
        assert seat is not None
        new.append(NewPaperChange(game.number, verdict.hand, "fall_transfer", {"culprit": seat}, referee, now,
                                  draft.reason))
    elif isinstance(verdict, Settlement):
        if not completed:
            raise VerdictRefused("verdict.no_completed_hand")
        new.append(NewPaperChange(game.number, completed[-1], "settlement", {}, referee, now, draft.reason))
    if new:
        from bot.desk.paper_rules import check_paper_changes

        check_paper_changes(game, stored, new)
    return new
