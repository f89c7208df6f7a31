"""What the Arbitar answers: the decision (the fall moves or stays), to whom, at which step, why, and the
evidence (trick, card, better card, layout counts, rezon counts). Shared by the procedure, the CLI and the desk.

Why is a catalogue key and its values (`reason_key`, `reason_values`: ``arbitar.*``), which the edge writes in its
reader's language (`reason_in`); `reason` is the same in Serbian for the JSON report (`sudija arbitar --json`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TRANSFER = "transfer"
STAYS = "stays"
NOT_OBVIOUS = "nije očigledna greška"
#: The reasons' catalogue keys (``arbitar.*``): where the rules leave judgement to a referee; the fallen player's own
#: error; the other defender's error that ruined the pass; the other defender's obviously bad following (step 2).
REASON_NOT_OBVIOUS = "arbitar.not_obvious"
REASON_OWN_ERROR = "arbitar.own_error"
REASON_RUINED = "arbitar.ruined"
REASON_OBVIOUSLY_BAD = "arbitar.obviously_bad"


@dataclass(frozen=True)
class ArbitarVerdict:
    decision: str  # TRANSFER or STAYS
    to: int | None  # the seat who takes the fall (TRANSFER), else None
    step: int | None  # the step that decided: 1 (card errors) or 2 (following without rezon); None when neither
    reason: str  # for people; NOT_OBVIOUS where the rules leave judgement to a referee
    evidence: dict[str, Any] = field(default_factory=dict)
    reason_key: str = ""  # the reason's catalogue key ("": `reason` as it is written)
    reason_values: dict[str, Any] = field(default_factory=dict)

    @property
    def transfers(self) -> bool:
        return self.decision == TRANSFER

    @property
    def not_obvious(self) -> bool:
        """The rules leave it to a referee's judgement: the fall stays (and the players may call a referee)."""
        return self.reason_key == REASON_NOT_OBVIOUS or NOT_OBVIOUS in self.reason

    def reason_in(self, t: Callable[..., str]) -> str:
        """The reason in the words of the edge's catalogue `t`."""
        return t(self.reason_key, **self.reason_values) if self.reason_key else self.reason

    def to_json(self, players: tuple[str, str, str]) -> dict[str, Any]:
        """Stable keys: decision, to (a nickname or null), step (1, 2 or null), reason, evidence."""
        return {
            "decision": self.decision,
            "to": players[self.to] if self.to is not None else None,
            "step": self.step,
            "reason": self.reason,
            "evidence": self.evidence,
        }
