"""The plan of an out-of-game verdict's effects, decided here and only persisted by storage
(`storage.penalties.PenaltyStore.apply_effects`, one transaction, once per trial).

- A penalty: the game's earlier penalties are lifted first (one penalty per game), then the culprit gets his plavac
  days and league points; with `abandoned` he is counted as having abandoned the game, without it the count goes
  back to the log's first leaver.
- (niko): the earlier penalties are lifted and nobody is counted as having abandoned it.
- A manual settlement: nothing is lifted; the settlement is recorded (counting as a finished game when the game is
  big enough), the game's own league points are cancelled — nobody is counted as having abandoned it, so its
  napustio charge goes — and the game server closes the game. A referee's penalty is not the game's points: a
  settlement never cancels one, so penalties, (niko) and a settlement compose in any order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from rules.penalties import GameVerdict, counted_abandoner, counts_as_finished
from rules.verdicts import Nobody, Penalty, Settlement, Verdict, canonical_nick


class NapustioSource(StrEnum):
    """Why the napustio row counts whom it counts (the values the `napustio.source` column holds)."""

    LOG = "log"
    VERDICT = "verdict"
    NOBODY = "nobody"
    SETTLEMENT = "settlement"


@dataclass(frozen=True, slots=True)
class PenaltyPlan:
    """The penalty to impose: on `culprit` (as the game's log spells him), its plavac days and league points, and
    a suspension from all the club's tournaments (another club's effect)."""

    culprit: str
    plavac_days: int
    league_points: int
    abandoned: bool
    suspension_days: int = 0


@dataclass(frozen=True, slots=True)
class EffectsPlan:
    """What one verdict writes: whether the game's earlier penalties are lifted, the penalty imposed, whether it
    names nobody ((niko)), and the settlement (whether it counts as finished; None: no settlement)."""

    lift_earlier: bool
    penalty: PenaltyPlan | None = None
    nobody: bool = False
    settle: bool | None = None

    @property
    def settles(self) -> bool:
        """A settlement: it cancels the game's league points and the game server closes the game."""
        return self.settle is not None

    def with_culprit(self, nick: str) -> EffectsPlan:
        """The same plan with the culprit as the club's records spell him."""
        return self if self.penalty is None else replace(self, penalty=replace(self.penalty, culprit=nick))

    def napustio(
        self, first_leaver: str | None, counted: str | None, source: NapustioSource
    ) -> tuple[str | None, NapustioSource]:
        """Who an interrupted game counts as abandoned by after this verdict, and why, from what the game counts
        now (`counted`, `source`): a settlement (now or earlier) counts nobody; a penalty or (niko) decides
        (`rules.penalties.counted_abandoner`); anything else leaves the count as it is."""
        settled = source == NapustioSource.SETTLEMENT or self.settles
        verdicts = (
            [GameVerdict(None if self.nobody else self.penalty.culprit if self.penalty else None, self._abandons)]
            if self.nobody or self.penalty is not None
            else []
        )
        if not settled and not verdicts:
            return counted, source
        after = counted_abandoner(first_leaver, verdicts, settled)
        if settled:
            return after, NapustioSource.SETTLEMENT
        if self.nobody:
            return after, NapustioSource.NOBODY
        return after, NapustioSource.VERDICT if after != first_leaver else NapustioSource.LOG

    @property
    def _abandons(self) -> bool:
        return bool(self.penalty and self.penalty.abandoned)


def plan_effects(
    verdict: Verdict, players: tuple[str, str, str], bule: int, finished_min_bule: int
) -> EffectsPlan | None:
    """The plan of `verdict`'s effects on a game of `players` and `bule` (None: a verdict with no such effects —
    the paper's verdicts, no verdict)."""
    if isinstance(verdict, Penalty):
        culprit = canonical_nick(verdict.culprit, players)
        penalty = PenaltyPlan(
            culprit, verdict.plavac_days, verdict.league_points, verdict.abandoned, verdict.suspension_days
        )
        return EffectsPlan(lift_earlier=True, penalty=penalty)
    if isinstance(verdict, Nobody):
        return EffectsPlan(lift_earlier=True, nobody=True)
    if isinstance(verdict, Settlement):
        return EffectsPlan(lift_earlier=False, settle=counts_as_finished(bule, finished_min_bule))
    return None
