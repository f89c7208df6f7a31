"""The facts the council's figures are computed from (`rules.statistics`): the calls made, the trials opened and
the appeals filed in a period, with each trial's referee, outcome and recorded verdict kind."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

from rules.statistics import AppealFact, CallFact, TrialFact
from storage.database import now_text, parse_stored_time

if TYPE_CHECKING:
    from storage.database import Database


async def period_facts(
    db: Database, start: datetime | None, end: datetime | None
) -> tuple[list[CallFact], list[TrialFact], list[AppealFact]]:
    """Calls created and trials opened in ``[start, end)`` (either end open when None), oldest first."""
    low = now_text(start) if start is not None else ""
    high = now_text(end) if end is not None else "9999"
    async with db.connection.execute(
        "SELECT id, created_at, state, closed_at FROM calls WHERE created_at >= ? AND created_at < ?"
        " ORDER BY created_at, id",
        (low, high),
    ) as cur:
        calls = [
            CallFact(r[0], parse_stored_time(r[1]), r[2], parse_stored_time(r[3]) if r[3] else None)
            for r in await cur.fetchall()
        ]
    async with db.connection.execute(
        "SELECT t.id, coalesce(m.nick, '#' || t.referee), t.opened_at, t.outcome, t.verdict, t.end_reason"
        " FROM trials t LEFT JOIN members m ON m.id = t.referee"
        " WHERE t.opened_at >= ? AND t.opened_at < ? ORDER BY t.opened_at, t.id",
        (low, high),
    ) as cur:
        trials = []
        for r in await cur.fetchall():
            verdict = json.loads(r[4]) if r[4] else None
            kind = verdict.get("kind") if isinstance(verdict, dict) else None
            sanction = verdict.get("sanction") if isinstance(verdict, dict) else None
            sanction_kind = str(sanction.get("kind")) if isinstance(sanction, dict) else None
            trials.append(TrialFact(r[0], r[1], parse_stored_time(r[2]), r[3], kind, r[5], sanction_kind))
    async with db.connection.execute(
        "SELECT id, filed_at, state FROM appeals WHERE filed_at >= ? AND filed_at < ? ORDER BY filed_at, id",
        (low, high),
    ) as cur:
        appeals = [AppealFact(r[0], parse_stored_time(r[1]), r[2]) for r in await cur.fetchall()]
    return calls, trials, appeals
