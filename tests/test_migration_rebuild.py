"""Migration 0029 makes SQLite's votes table anew (a CHECK cannot change in place): with the foreign keys off
around its transaction and checked before it commits; every vote and ballot is kept, and the foreign keys are on
again afterwards."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import storage.database as database
from club import NOW
from storage.database import migrations, open_database
from storage.errors import Conflict
from storage.states import VoteAction


async def test_the_votes_rebuilt_keep_their_rows_and_foreign_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "club.db"
    monkeypatch.setattr(database, "migrations", lambda dialect="sqlite": [m for m in migrations(dialect) if m[0] < 29])
    db = await open_database(path)
    ana = await db.members.ensure("ana", NOW)
    v1 = await db.members.ensure("vecnik", NOW)
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO votes (proposer, subject, role, action, reason, opened_at, deadline)"
            " VALUES (?, ?, 'referee', 'dismiss', 'neaktivna', '2026-11-30T12:00:00.000000Z',"
            " '2026-12-07T12:00:00.000000Z')",
            (v1.id, ana.id),
        )
        await conn.execute(
            "INSERT INTO ballots (vote, member, yes, at) VALUES (1, ?, 1, '2026-11-30T12:00:00Z')", (v1.id,)
        )
    await db.close()
    monkeypatch.undo()
    db = await open_database(path)
    try:
        [vote] = await db.votes.open_votes()
        assert (vote.subject, vote.action, vote.until) == (ana.id, VoteAction.DISMISS, None)
        assert [b for b in await db.votes.ballots(vote.id)]
        with pytest.raises(Conflict):  # the foreign keys are enforced again
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO ballots (vote, member, yes, at) VALUES (99, ?, 1, 'x')", (v1.id,))
    finally:
        await db.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert (
            "REFERENCES votes(id)" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'ballots'").fetchone()[0]
        )
