"""From a verdict to the changes it writes on the paper, each checked against the paper's limits
(`rules.paper_changes.check_change`) on top of the changes already standing.

Where it is written is `rules.verdict_place`'s: on the hand it is about while the next hand has not ended, else
(the game as a whole, or a justified late verdict) on the last completed hand. A late odlazak u bulu is written
there as the bula change it makes (the fallen player −V, the culprit +V), marked with the hand whose fall it
moves, so that the one-fall-move rule (`rules.fall_moves`) still sees it on that hand.

Pure: it returns `VerdictChange` values; the desk adds who wrote them and storage persists them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from rules.fall_moves import LATE_FALL_KEY, FallMove, FallSource, refuse_fall_move
from rules.gamelog import Game
from rules.paper import ChangeKind, PaperChange
from rules.paper_changes import ChangeRefused, check_change
from rules.verdict_place import verdict_hand, within_window
from rules.verdicts import BulaChange, Draft, FallTransfer, Settlement, VerdictRefused


@dataclass(frozen=True, slots=True)
class VerdictChange:
    """One change a verdict writes on game `game`'s paper at hand `hand`: its kind, its data as stored (the
    change's own plus, for a late odlazak, the hand whose fall it moves), when and why."""

    game: int
    hand: int
    kind: ChangeKind
    data: dict[str, object]
    at: datetime
    reason: str


def verdict_changes(
    draft: Draft,
    game: Game,
    standing: Sequence[PaperChange],
    referee_nick: str,
    now: datetime,
    *,
    settlement: tuple[tuple[int, int], timedelta] | None = None,
    moves: Sequence[FallMove] = (),
) -> list[VerdictChange]:
    """The paper changes of `draft` (none for verdicts that do not touch the paper); raises `VerdictRefused`
    with the paper's own explanation when a limit would break. `moves` are the game's standing fall moves."""
    verdict = draft.verdict
    completed = [h.n for h in game.hands if h.completed]
    changes: list[PaperChange] = []
    extra: dict[int, dict[str, object]] = {}  # index in `changes` → data beyond the change's own
    if isinstance(verdict, FallTransfer):
        refusal = refuse_fall_move(moves, verdict.hand, FallSource.REFEREE)
        if refusal is not None:
            raise VerdictRefused(refusal.key, hand=refusal.hand)
    if isinstance(verdict, FallTransfer) and completed and not within_window(verdict.hand, len(completed)):
        # A justified late odlazak: the bule it moves, written on the last completed hand.
        as_odlazak = _odlazak(verdict, game, referee_nick, now, draft.reason)
        try:
            applied = check_change(game, standing, as_odlazak)
        except ChangeRefused as refused:
            raise VerdictRefused(refused.message_key, **refused.params) from None
        bule = tuple(e.bule for e in applied.entries)
        extra[0] = {LATE_FALL_KEY: verdict.hand, "player": as_odlazak.player}
        changes.append(
            PaperChange(
                ChangeKind.PROMENA_BULA,
                completed[-1],
                referee_nick,
                now,
                draft.reason,
                bule=(bule[0], bule[1], bule[2]),
            )
        )
    elif isinstance(verdict, BulaChange):
        amounts = [0, 0, 0]
        for nick, amount in verdict.amounts.items():
            seat = game.seat_of(nick)
            assert seat is not None
            amounts[seat] = amount
        if not completed:
            raise VerdictRefused("verdict.no_completed_hand")
        hand = verdict_hand(verdict.hand, len(completed), True)
        changes.append(
            PaperChange(
                ChangeKind.PROMENA_BULA,
                hand,
                referee_nick,
                now,
                draft.reason,
                bule=(amounts[0], amounts[1], amounts[2]),
            )
        )
    elif isinstance(verdict, FallTransfer):
        changes.append(_odlazak(verdict, game, referee_nick, now, draft.reason))
    elif isinstance(verdict, Settlement):
        if not completed:
            raise VerdictRefused("verdict.no_completed_hand")
        changes.append(PaperChange(ChangeKind.OTPIS, completed[-1], referee_nick, now, draft.reason))
    checked: list[PaperChange] = list(standing)
    for change in changes:
        try:
            if settlement is None:
                check_change(game, checked, change)
            else:
                check_change(game, checked, change, settlement_played=settlement[0], settlement_delay=settlement[1])
        except ChangeRefused as refused:
            raise VerdictRefused(refused.message_key, **refused.params) from None
        checked.append(change)
    return [
        VerdictChange(game.number, c.hand, c.kind, {**c.data(), **extra.get(i, {})}, now, draft.reason)
        for i, c in enumerate(changes)
    ]


def _odlazak(verdict: FallTransfer, game: Game, referee_nick: str, now: datetime, reason: str) -> PaperChange:
    """The odlazak u bulu a fall transfer writes on its hand: the culprit is the player who goes into the bula."""
    return PaperChange(
        ChangeKind.ODLAZAK_U_BULU, verdict.hand, referee_nick, now, reason, player=game.seat_of(verdict.culprit)
    )
