"""What the Arbitar answers: the decision (the fall moves or stays), to whom, at which step, why, and the
evidence (trick, card, better card, layout counts, rezon counts). Shared by the procedure, the CLI and the desk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TRANSFER = "transfer"
STAYS = "stays"
NOT_OBVIOUS = "nije očigledna greška"


@dataclass(frozen=True)
class ArbitarVerdict:
    decision: str  # TRANSFER or STAYS
    to: int | None  # the seat who takes the fall (TRANSFER), else None
    step: int | None  # the step that decided: 1 (card errors) or 2 (following without rezon); None when neither
    reason: str  # for people; NOT_OBVIOUS where the rules leave judgement to a referee
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def transfers(self) -> bool:
        return self.decision == TRANSFER

    def to_json(self, players: tuple[str, str, str]) -> dict[str, Any]:
        """Stable keys: decision, to (a nickname or null), step (1, 2 or null), reason, evidence."""
        return {
            "decision": self.decision,
            "to": players[self.to] if self.to is not None else None,
            "step": self.step,
            "reason": self.reason,
            "evidence": self.evidence,
        }
