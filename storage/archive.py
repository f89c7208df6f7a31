"""What the club's list of games marks on each game, read for many games at once (the web's Partije): its trials
(and whether one is open), a call waiting for a referee, its appeals (and how many wait for a decision)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.database import Database


@dataclass(frozen=True, slots=True)
class GameMarks:
    trials: int = 0
    open_trial: bool = False
    pending_call: bool = False
    appeals: int = 0
    appeals_undecided: int = 0


class ArchiveStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def marks(self, numbers: Sequence[int]) -> dict[int, GameMarks]:
        """The marks of each of `numbers` (a game with none is absent): three queries, whatever their count."""
        if not numbers:
            return {}
        wanted = tuple(dict.fromkeys(numbers))
        marks = ",".join("?" for _ in wanted)
        trials: dict[int, tuple[int, bool]] = {}
        for game, count, open_ in await self.db.connection.execute_fetchall(
            "SELECT game, count(*), sum(CASE WHEN outcome = 'open' THEN 1 ELSE 0 END) FROM trials"
            f" WHERE game IN ({marks}) GROUP BY game",
            wanted,
        ):
            trials[int(game)] = (int(count), bool(open_))
        pending = {
            int(row[0])
            for row in await self.db.connection.execute_fetchall(
                f"SELECT game FROM calls WHERE state = 'pending' AND game IN ({marks})", wanted
            )
        }
        appeals: dict[int, tuple[int, int]] = {}
        for game, count, undecided in await self.db.connection.execute_fetchall(
            "SELECT t.game, count(*), sum(CASE WHEN a.state IN ('filed', 'taken') THEN 1 ELSE 0 END)"
            f" FROM appeals a JOIN trials t ON t.id = a.trial WHERE t.game IN ({marks}) GROUP BY t.game",
            wanted,
        ):
            appeals[int(game)] = (int(count), int(undecided))
        out = {}
        for number in wanted:
            count, open_ = trials.get(number, (0, False))
            filed, undecided = appeals.get(number, (0, 0))
            if count or number in pending or filed:
                out[number] = GameMarks(count, open_, number in pending, filed, undecided)
        return out
