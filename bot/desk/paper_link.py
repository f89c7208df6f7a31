"""From a verdict to the changes it writes on the paper, each checked against the paper's limits
(`rules.paper_changes.check_change`) on top of the changes already standing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from rules.gamelog import Game
from rules.paper import ChangeKind, PaperChange
from rules.paper_changes import ChangeRefused, check_change
from rules.verdicts import BulaChange, Draft, FallTransfer, Settlement, VerdictRefused
from storage.changes import NewPaperChange


def verdict_changes(draft: Draft, game: Game, standing: Sequence[PaperChange], referee: int | None,
                    referee_nick: str, now: datetime, lang: str, *,
                    settlement: tuple[tuple[int, int], timedelta] | None = None) -> list[NewPaperChange]:
    """The paper changes of `draft` (none for verdicts that do not touch the paper); raises `VerdictRefused`
    with the paper's own explanation when a limit would break."""
    verdict = draft.verdict
    completed = [h.n for h in game.hands if h.completed]
    changes: list[PaperChange] = []
    if isinstance(verdict, BulaChange):
        amounts = [0, 0, 0]
        for nick, amount in verdict.amounts.items():
            seat = game.seat_of(nick)
            assert seat is not None
            amounts[seat] = amount
        hand = verdict.hand if verdict.hand is not None else completed[-1]
        changes.append(PaperChange(ChangeKind.PROMENA_BULA, hand, referee_nick, now, draft.reason,
                                   bule=(amounts[0], amounts[1], amounts[2])))
    elif isinstance(verdict, FallTransfer):
        changes.append(PaperChange(ChangeKind.ODLAZAK_U_BULU, verdict.hand, referee_nick, now, draft.reason,
                                   player=game.seat_of(verdict.culprit)))
    elif isinstance(verdict, Settlement):
        if not completed:
            raise VerdictRefused("verdict.no_completed_hand")
        changes.append(PaperChange(ChangeKind.OTPIS, completed[-1], referee_nick, now, draft.reason))
    checked: list[PaperChange] = list(standing)
    for change in changes:
        try:
            if settlement is None:
                check_change(game, checked, change, lang)
            else:
                check_change(game, checked, change, lang, settlement_played=settlement[0],
                             settlement_delay=settlement[1])
        except ChangeRefused as refused:
            raise VerdictRefused("paper.refused", message=refused.message) from None
        checked.append(change)
    return [NewPaperChange(game.number, c.hand, c.kind.value, c.data(), referee, now, draft.reason) for c in changes]
