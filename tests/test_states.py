"""Every recorded state is an enum whose values are exactly what the database's CHECK constraint allows.

The migrations of both dialects are read and every `CHECK` in them found: a `CHECK (c IN (…))` must be a column
of `COLUMNS` whose enum allows exactly those values, and any other `CHECK` (a range, a single-row table) must be
one of `NOT_ENUMERATED`. A new CHECK, or a changed one, fails here until it is tied to its enum."""

from __future__ import annotations

import re
from collections.abc import Set
from enum import Enum
from pathlib import Path

import pytest

from rules.gamelog import GameStatus
from rules.members import VOTED_ROLES, PartyRole, Role
from rules.verdict_effects import NapustioSource
from storage.database import migrations, open_database, split_statements
from storage.states import (
    AppealState,
    CallState,
    CorrectionAnswer,
    CorrectionKind,
    CouncilorCallState,
    DeliveryState,
    KorekcijaState,
    Language,
    LinkAttempt,
    MonthClosing,
    OutboxState,
    RequestState,
    SessionEnd,
    SignInVia,
    SpaceState,
    TrialOutcome,
    VoteAction,
    VoteState,
)

#: (table, column) → its enum, or the enum and the subset of it the column allows.
COLUMNS: dict[tuple[str, str], type[Enum] | tuple[type[Enum], Set[Enum]]] = {
    ("games", "status"): GameStatus,
    ("roles", "role"): Role,
    ("calls", "state"): CallState,
    ("trials", "outcome"): TrialOutcome,
    ("trial_participants", "role"): PartyRole,
    ("councilor_calls", "state"): CouncilorCallState,
    ("napustio", "source"): NapustioSource,
    ("league_months", "how"): MonthClosing,
    ("correction_requests", "kind"): CorrectionKind,
    ("correction_requests", "state"): RequestState,
    ("correction_answers", "answer"): CorrectionAnswer,
    ("korekcije", "state"): KorekcijaState,
    ("outbox", "state"): OutboxState,
    ("votes", "role"): (Role, VOTED_ROLES),
    ("votes", "action"): VoteAction,
    ("votes", "state"): VoteState,
    ("appeals", "state"): AppealState,
    ("chat_outbox", "state"): OutboxState,
    ("chat_deliveries", "state"): DeliveryState,
    ("member_languages", "language"): Language,
    ("link_attempts", "kind"): LinkAttempt,
    ("trial_spaces", "state"): SpaceState,
    ("web_sessions", "via"): SignInVia,
    ("web_sessions", "end_reason"): SessionEnd,
}

#: The CHECKs that are not a list of states, as written (whitespace folded).
NOT_ENUMERATED: dict[tuple[str, str], str] = {
    ("game_players", "seat"): "seat BETWEEN 0 AND 2",
    ("correction_requests", "seat"): "seat BETWEEN 0 AND 2",
    ("correction_answers", "seat"): "seat BETWEEN 0 AND 2",
    ("club_clock", "id"): "id = 1",
    ("club_key", "id"): "id = 1",
}

DIALECTS = ("sqlite", "postgresql")
_TABLE = re.compile(r"^\s*(?:CREATE\s+TABLE|ALTER\s+TABLE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
_POLICY = re.compile(r"^\s*CREATE\s+POLICY\b", re.IGNORECASE)
_RENAME = re.compile(r"^\s*ALTER\s+TABLE\s+(\w+)\s+RENAME\s+TO\s+(\w+)\s*$", re.IGNORECASE)
_DROP = re.compile(r"^\s*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)\s*$", re.IGNORECASE)


def check_bodies(statement: str) -> list[str]:
    """The text inside each `CHECK (…)` of a statement, parentheses balanced."""
    bodies = []
    for found in re.finditer(r"\bCHECK\s*\(", statement, re.IGNORECASE):
        depth, start = 1, found.end()
        at = start
        while depth:
            depth += {"(": 1, ")": -1}.get(statement[at], 0)
            at += 1
        bodies.append(" ".join(statement[start : at - 1].split()))
    return bodies


def checks_of(dialect: str) -> dict[tuple[str, str], str]:
    """(table, column) → its CHECK's text, as the migrations of `dialect` leave it (a later one replaces an
    earlier; a table rebuilt under another name and renamed, as SQLite changes a CHECK, is followed).
    Row-level security policies (`WITH CHECK (club = …)`) are not column constraints."""
    found: dict[tuple[str, str], str] = {}
    for _, name, sql in migrations(dialect):
        for statement in split_statements(sql):
            if _POLICY.match(statement):
                continue
            if dropped := _DROP.match(statement):
                found = {key: body for key, body in found.items() if key[0] != dropped.group(1)}
                continue
            if renamed := _RENAME.match(statement):
                old, new = renamed.groups()
                found = {((new if t == old else t), c): body for (t, c), body in found.items()}
                continue
            bodies = check_bodies(statement)
            if not bodies:
                continue
            table = _TABLE.match(statement)
            assert table is not None, f"{name}: a CHECK outside CREATE/ALTER TABLE: {statement[:80]}"
            for body in bodies:
                column = re.match(r"(\w+)", body)
                assert column is not None, f"{name}: {body}"
                found[(table.group(1), column.group(1))] = body
    return found


def allowed_by(body: str) -> set[str] | None:
    """The values of a `c IN ('a', 'b')` check; None for any other check."""
    listed = re.fullmatch(r"\w+ IN \(([^()]*)\)", body, re.IGNORECASE)
    if listed is None:
        return None
    return {v.strip().strip("'") for v in listed.group(1).split(",")}


def values_of(tied: type[Enum] | tuple[type[Enum], Set[Enum]]) -> set[str]:
    members: Set[Enum] = tied[1] if isinstance(tied, tuple) else set(tied)
    return {str(m.value) for m in members}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_check_of_the_migrations_is_tied(dialect: str) -> None:
    checks = checks_of(dialect)
    enumerated = {key for key, body in checks.items() if allowed_by(body) is not None}
    assert sorted(enumerated) == sorted(COLUMNS), "a CHECK (… IN …) without its enum here, or an enum without one"
    assert {key: body for key, body in checks.items() if key not in enumerated} == NOT_ENUMERATED


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("table", "column"), sorted(COLUMNS), ids=[f"{t}.{c}" for t, c in sorted(COLUMNS)])
def test_the_enum_allows_what_the_migrations_allow(dialect: str, table: str, column: str) -> None:
    assert allowed_by(checks_of(dialect)[(table, column)]) == values_of(COLUMNS[(table, column)])


def test_the_check_reader_sees_what_it_must() -> None:
    assert check_bodies("x TEXT CHECK (x IN ('a', 'b')), y INT CHECK (y BETWEEN (0) AND 2)") == [
        "x IN ('a', 'b')",
        "y BETWEEN (0) AND 2",
    ]
    assert allowed_by("state IN ('pending',  'sent')") == {"pending", "sent"}
    assert allowed_by("seat BETWEEN 0 AND 2") is None
    assert len(checks_of("sqlite")) == len(COLUMNS) + len(NOT_ENUMERATED)


@pytest.mark.parametrize(("table", "column"), sorted(COLUMNS), ids=[f"{t}.{c}" for t, c in sorted(COLUMNS)])
async def test_the_enum_is_the_check_constraint(tmp_path: Path, table: str, column: str) -> None:
    """The schema a migrated SQLite database really holds says the same."""
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
    assert allowed == values_of(COLUMNS[(table, column)])
