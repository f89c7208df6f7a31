"""Every recorded state is an enum whose values are exactly what the database's CHECK constraint allows."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import pytest

from rules.members import PartyRole, Role
from storage.database import open_database
from storage.states import (
    AppealState,
    CallState,
    CorrectionKind,
    CouncilorCallState,
    RequestState,
    TrialOutcome,
    VoteAction,
    VoteState,
)

COLUMNS: list[tuple[str, str, type[StrEnum]]] = [
    ("calls", "state", CallState),
    ("councilor_calls", "state", CouncilorCallState),
    ("trials", "outcome", TrialOutcome),
    ("trial_participants", "role", PartyRole),
    ("roles", "role", Role),
    ("correction_requests", "kind", CorrectionKind),
    ("correction_requests", "state", RequestState),
    ("votes", "state", VoteState),
    ("votes", "action", VoteAction),
    ("appeals", "state", AppealState),
]


@pytest.mark.parametrize(("table", "column", "enum"), COLUMNS, ids=[f"{t}.{c}" for t, c, _ in COLUMNS])
async def test_the_enum_is_the_check_constraint(tmp_path: Path, table: str, column: str, enum: type[StrEnum]) -> None:
    db = await open_database(str(tmp_path / "club.db"))
    try:
        rows = await db.connection.execute_fetchall(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        )
    finally:
        await db.close()
    (sql,) = [r[0] for r in rows]
    match = re.search(rf"\b{column}\b[^,]*?CHECK \({column} IN \(([^)]*)\)\)", sql, re.DOTALL)
    assert match is not None, sql
    allowed = {v.strip().strip("'") for v in match.group(1).split(",")}
    assert allowed == {e.value for e in enum}
