"""What the club's tables count, for the metrics and the health check (bot/metrics.py, bot/http.py): read-only
aggregates, a handful of ``GROUP BY`` statements that read every row of the club once (indexes do the rest).

The states are read as stored (``GROUP BY state``), so a state a later migration adds (an outbox's ``dead``) is
counted without a change here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from storage.database import Database, parse_stored_time


def _kind(in_game: object) -> str:
    return "in_game" if in_game else "out_of_game"


@dataclass(frozen=True, slots=True)
class Observed:
    calls: dict[str, int] = field(default_factory=dict)  # kind → calls made
    takes: dict[str, int] = field(default_factory=dict)  # kind → calls a referee took
    trials: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, outcome) → trials
    verdicts: dict[str, int] = field(default_factory=dict)  # the verdict's kind (kazna, niko, …) → verdicts
    effects: dict[str, int] = field(default_factory=dict)  # state → chat effects
    deliveries: dict[tuple[str, str], int] = field(default_factory=dict)  # (platform, state) → deliveries
    events: dict[str, int] = field(default_factory=dict)  # game-server event type → events received
    commands: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, state) → game-server commands
    oldest_effect_seconds: float = 0.0  # the oldest chat effect still pending (0: none)
    oldest_command_seconds: float = 0.0  # the oldest game-server command still pending (0: none)


async def _rows(db: Database, sql: str) -> list[Any]:
    async with db.connection.execute(sql, ()) as cursor:
        return list(await cursor.fetchall())


def _age(oldest: object, now: datetime) -> float:
    if oldest is None:
        return 0.0
    return max(0.0, (now - parse_stored_time(str(oldest))).total_seconds())


async def observe(db: Database, now: datetime) -> Observed:
    """The club's figures as of `now` (its clock, for the ages)."""
    calls: dict[str, int] = {}
    takes: dict[str, int] = {}
    for in_game, state, count in await _rows(db, "SELECT in_game, state, count(*) FROM calls GROUP BY in_game, state"):
        calls[_kind(in_game)] = calls.get(_kind(in_game), 0) + int(count)
        if state == "taken":
            takes[_kind(in_game)] = takes.get(_kind(in_game), 0) + int(count)
    trials = {
        (_kind(in_game), str(outcome)): int(count)
        for in_game, outcome, count in await _rows(
            db, "SELECT in_game, outcome, count(*) FROM trials GROUP BY in_game, outcome"
        )
    }
    verdicts = {
        str(kind or "unknown"): int(count)
        for kind, count in await _rows(
            db,
            "SELECT json_extract(verdict, '$.kind'), count(*) FROM trials WHERE outcome = 'verdict'"
            " GROUP BY json_extract(verdict, '$.kind')",
        )
    }
    effects = {str(s): int(n) for s, n in await _rows(db, "SELECT state, count(*) FROM chat_outbox GROUP BY state")}
    deliveries = {
        (str(p), str(s)): int(n)
        for p, s, n in await _rows(db, "SELECT platform, state, count(*) FROM chat_deliveries GROUP BY platform, state")
    }
    events = {str(t): int(n) for t, n in await _rows(db, "SELECT type, count(*) FROM gs_events GROUP BY type")}
    commands = {
        (str(k), str(s)): int(n)
        for k, s, n in await _rows(db, "SELECT kind, state, count(*) FROM outbox GROUP BY kind, state")
    }
    [(oldest_effect,)] = await _rows(db, "SELECT min(created_at) FROM chat_outbox WHERE state = 'pending'")
    [(oldest_command,)] = await _rows(db, "SELECT min(created_at) FROM outbox WHERE state = 'pending'")
    return Observed(
        calls,
        takes,
        trials,
        verdicts,
        effects,
        deliveries,
        events,
        commands,
        _age(oldest_effect, now),
        _age(oldest_command, now),
    )
