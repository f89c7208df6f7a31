"""Shared fixtures: a fresh club (database, desk on a manual clock, recording chat) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from club import Club, make_club


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    made = await make_club(tmp_path)
    yield made
    await made.db.close()
