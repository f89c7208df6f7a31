"""`sudija papir GAME [--db FILE] [--json]` against a real SQLite database in a temporary directory."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_paper_game import results_game

from bot.cli import main
from bot.messages import Catalogue
from rules.paper import cross_check
from rules.paper_render import discrepancy_lines
from storage.changes import NewPaperChange
from storage.database import open_database
from storage.games import PreparedGame

SR_T = Catalogue("sr").t  # the words the edge passes the paper


NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)


@pytest.fixture
def db_file(tmp_path: Path) -> str:
    path = str(tmp_path / "sudija.db")
    game = results_game()

    async def setup() -> None:
        db = await open_database(path)
        try:
            report = discrepancy_lines(cross_check(game), SR_T) or [
                "partija 1847258, ruka 1, ana: bule upisano +10, izračunato +12"
            ]
            await db.games.store([PreparedGame.of(game, report)], NOW)
            await db.paper_changes.add(
                NewPaperChange(
                    game=game.number,
                    hand=4,
                    kind="promena_bula",
                    data={"bule": [4, -4, 0]},
                    by_member=None,
                    at=NOW,
                    reason="nesportsko ponašanje",
                )
            )
        finally:
            await db.close()

    asyncio.run(setup())
    return path


def test_papir_text(db_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papir", "1847258", "--db", db_file]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Papir partije 1847258")
    assert "+ Promena bula" in out
    assert "ana bule +4 · bojan bule −4" in out
    assert "Rezultat: ana" in out
    assert "provera pri uvozu" in out
    assert "ruka 1, ana: bule upisano +10" in out


def test_papir_json(db_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papir", "1847258", "--db", db_file, "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert set(doc) == {"game", "ended", "players", "hands"}
    assert doc["ended"] is True
    assert [p["name"] for p in doc["players"]] == ["ana", "bojan", "ceca"]
    assert doc["hands"][3]["changes"][0]["entries"][0]["bule"] == 4
    assert sum(p["result"] for p in doc["players"]) == 0
    assert "upisano" in captured.err


def test_papir_english(db_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papir", "1847258", "--db", db_file, "--lang", "en"]) == 0
    assert capsys.readouterr().out.startswith("Paper of game 1847258")


def test_papir_unknown_game(db_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papir", "999", "--db", db_file]) == 1
    assert "Partija 999 nije u bazi" in capsys.readouterr().err


def test_papir_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "none.db")
    assert main(["papir", "1", "--db", missing]) == 1
    assert "ne postoji" in capsys.readouterr().err
    assert not Path(missing).exists()
