"""`sudija import` and `sudija games` through `bot.cli.main`, against real SQLite files in a temporary directory.

The corruption tests check the promise of the import: a file with any invalid game imports nothing, every problem
is reported with the file and its place, the exit status is 1 and the database is exactly as before (its SQL dump
is compared), while a valid file beside the invalid one is still imported.
"""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
import random
import shutil
import sqlite3
import tempfile
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.cli.games import JSON_KEYS
from bot.messages import Catalogue
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def dump(db_path: Path) -> str:
    connection = sqlite3.connect(db_path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


def base_doc(seed: int = 7, number: int = 5001) -> dict[str, Any]:
    """A legal game with played hands (tricks), as a JSON value."""
    game = generate_game(random.Random(seed), number, hands=8, status=GameStatus.FINISHED)
    doc: dict[str, Any] = json.loads(json.dumps(game_to_doc(game)))
    return doc


def write_jsonl(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------- examples, games


def test_examples_import_and_again_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    assert main(["import", str(EXAMPLES), "--db", str(db), "--lang", "en"]) == 0
    out = capsys.readouterr()
    assert "Imported 7 games (70 hands) from 3 files; 0 unchanged, 0 refused, 0 files with errors." in out.out
    assert out.err == ""
    before = dump(db)
    assert main(["import", str(EXAMPLES), "--db", str(db), "--lang", "en"]) == 0
    out = capsys.readouterr()
    assert "Imported 0 games (0 hands) from 3 files; 7 unchanged, 0 refused, 0 files with errors." in out.out
    assert dump(db) == before


def test_games_lists_json_and_by_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    assert main(["import", str(EXAMPLES), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["games", "--db", str(db), "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert [g["number"] for g in games] == [1847320, 1847311, 1847310, 1847305, 1847301, 1847302, 1847258]
    assert all(list(g) == list(JSON_KEYS) for g in games)
    assert games[0] == {
        "number": 1847320,
        "status": "in_progress",
        "rated": True,
        "ai": False,
        "players": ["ivana", "marko", "sanja"],
        "started_at": games[0]["started_at"],
        "ended_at": None,
        "hands": 6,
    }
    assert games[-1]["ended_at"].endswith("Z")
    assert games[-1]["hands"] == 15
    assert main(["games", "--db", str(db), "--json", "--player", "ANA"]) == 0
    anas = json.loads(capsys.readouterr().out)
    assert [g["number"] for g in anas] == [1847310, 1847258]
    assert main(["games", "--db", str(db), "--player", "sanja", "--limit", "1", "--lang", "en"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split()[:3] == ["game", "status", "rated"]
    assert "1847320" in text[1]
    assert "in_progress" in text[1]
    assert text[1].endswith("ivana, marko, sanja")
    assert text[-1] == "(the newest games of sanja: 1; --limit N shows more)"


def test_games_without_a_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert main(["games", "--db", str(missing)]) == 1
    assert "ne postoji" in capsys.readouterr().err  # the club's language: Serbian by default
    assert not missing.exists()


def test_no_such_path_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    assert main(["import", str(tmp_path / "nowhere"), "--db", str(db)]) == 2
    assert "nema takve datoteke ni fascikle" in capsys.readouterr().err  # the club's language: Serbian by default
    assert main(["import", str(tmp_path / "nowhere"), "--db", str(db), "--lang", "en"]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert not db.exists()


# --------------------------------------------------------------------------------------------- refusals


def test_changed_log_of_a_called_game_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    doc = base_doc()
    log = write_jsonl(tmp_path / "night.jsonl", [doc])
    assert main(["import", str(log), "--db", str(db)]) == 0

    async def call_and_read() -> Any:
        database = await open_database(db)
        try:
            member = await database.members.ensure(doc["players"][0], NOW)
            await database.calls.create(doc["game"], member.id, True, NOW, NOW + timedelta(minutes=5))
            return await database.games.get(doc["game"])
        finally:
            await database.close()

    original = asyncio.run(call_and_read())
    changed = copy.deepcopy(doc)
    changed["rated"] = not doc["rated"]
    write_jsonl(log, [changed])
    capsys.readouterr()
    assert main(["import", str(log), "--db", str(db), "--lang", "en"]) == 1
    out = capsys.readouterr()
    assert (
        f"{log}: refused: game {doc['game']}: the stored log differs but a referee was called for it, so it is kept"
    ) in out.err
    assert "0 unchanged, 1 refused, 0 files with errors" in out.out

    async def read() -> Any:
        database = await open_database(db)
        try:
            return await database.games.get(doc["game"])
        finally:
            await database.close()

    assert asyncio.run(read()) == original
    # The same log as stored is still a no-op, call or not.
    write_jsonl(log, [doc])
    assert main(["import", str(log), "--db", str(db)]) == 0
    assert "nepromenjeno 1, odbijeno 0" in capsys.readouterr().out


def test_every_problem_of_a_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    first, second, third = base_doc(1, 11), base_doc(2, 12), base_doc(3, 13)
    first["bule"] = 61
    third["hands"][1]["tricks"][0] = third["hands"][1]["tricks"][0][1:] + third["hands"][1]["tricks"][0][:1]
    del third["hands"][1]["dealer"]
    log = write_jsonl(tmp_path / "night.jsonl", [first, second, third])
    assert main(["import", str(log), "--db", str(db), "--lang", "en"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"{log}: line 1: game 11: the game size 'bule' must be an even number from 2 to 10000, not 61" in err
    assert any(
        line.startswith(f"{log}: line 3: game 13, hand 2: the dealer None is not one of the players") for line in err
    )
    assert err[-1] == f"{log}: nothing imported from this file (2 problems)"
    assert dump(db).count('INSERT INTO "games"') == 0


# --------------------------------------------------------------------------------------------- corruptions


def _played(doc: dict[str, Any]) -> list[int]:
    return [i for i, hand in enumerate(doc["hands"]) if hand.get("tricks")]


def _illegal_follow(doc: dict[str, Any], pick: int) -> tuple[dict[str, Any], str] | None:
    """Swap a card that followed suit with a later card of the same player in another suit."""
    suit = {c: c[-1] for c in (r + s for r in "789TJQKA" for s in "SHDC")}
    options = []
    for h in _played(doc):
        tricks = doc["hands"][h]["tricks"]
        # Seats are not in the log's tricks: follow who plays by the cards' owners in the deal.
        deal = doc["hands"][h]["deal"]
        owner = {card: nick for nick in doc["players"] for card in deal[nick]}
        for t, trick in enumerate(tricks):
            for p in (1, 2):
                card = trick[p]
                if card not in owner or suit[card] != suit[trick[0]]:
                    continue
                for t2 in range(t + 1, len(tricks)):
                    for p2, later in enumerate(tricks[t2]):
                        if owner.get(later) == owner[card] and suit[later] != suit[trick[0]]:
                            options.append((h, t, p, t2, p2))
    if not options:
        return None
    h, t, p, t2, p2 = options[pick % len(options)]
    tricks = doc["hands"][h]["tricks"]
    nick = {card: nick for nick in doc["players"] for card in doc["hands"][h]["deal"][nick]}[tricks[t][p]]
    tricks[t][p], tricks[t2][p2] = tricks[t2][p2], tricks[t][p]
    return doc, f"game {doc['game']}, hand {h + 1}, trick {t + 1}: {nick} plays "


def corrupt(doc: dict[str, Any], kind: str, pick: int) -> tuple[bytes, str, str]:
    """(file bytes, file name, the expected message's pieces joined by …) for one kind of corruption."""
    doc = copy.deepcopy(doc)
    rng = random.Random(pick)
    name = "bad.jsonl"
    expect = f"game {doc['game']}"
    if kind == "duplicated card":
        h = rng.randrange(len(doc["hands"]))
        deal = doc["hands"][h]["deal"]
        a, b = rng.sample(doc["players"], 2)
        deal[b][rng.randrange(10)] = deal[a][rng.randrange(10)]
        expect = "more than once"
    elif kind == "illegal follow":
        found = _illegal_follow(doc, pick)
        assert found is not None
        doc, where = found
        expect = f"{where}…must follow suit"
    elif kind == "wrong leader":
        h = rng.choice(_played(doc))
        trick = doc["hands"][h]["tricks"][0]
        doc["hands"][h]["tricks"][0] = trick[1:] + trick[:1]
        expect = "must lead"
    elif kind == "missing field":
        if rng.random() < 0.5:
            key = rng.choice(["game", "rated", "ai", "bule", "refe_limit", "players", "status", "started_at", "hands"])
            del doc[key]
            expect = f"'{key}' is missing" if key != "game" else "game ?"
        else:
            key = rng.choice(["n", "deal", "bids"])
            del doc["hands"][rng.randrange(len(doc["hands"]))][key]
            expect = f"'{key}' is missing"
    elif kind == "mistyped field":
        key, value, expect = rng.choice(
            [
                ("rated", "yes", "'rated' must be true or false"),
                ("bule", "60", "'bule' must be a whole number"),
                ("players", "ana marko petar", "'players' must be a list"),
                ("hands", {}, "'hands' must be a list"),
                ("started_at", 1764000000, "expected a time"),
            ]
        )
        doc[key] = value
    elif kind == "out of range":
        key, value, expect = rng.choice(
            [
                ("bule", 61, "even number from 2 to 10000"),
                ("bule", 0, "even number from 2 to 10000"),
                ("refe_limit", 101, "from 0 to 100"),
                ("refe_limit", -1, "from 0 to 100"),
                ("game", -3, "must be positive"),
            ]
        )
        doc[key] = value
    text = (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8")
    if kind == "truncated bytes":
        text = text[: rng.randrange(1, len(text) - 2)]
        expect = "line 1"
    elif kind == "non-JSON bytes":  # right after a comma, i.e. between values, never inside a string
        commas = [i for i, byte in enumerate(text) if byte == ord(",")]
        at = commas[pick % len(commas)] + 1
        text = text[:at] + rng.choice([b"\xff\xfe", b"@@", b"}{", b"\x00"]) + text[at:]
        expect = "line 1"
    elif kind == "bad gzip":
        name = "bad.jsonl.gz"
        packed = gzip.compress(text)
        choice = rng.randrange(3)
        if choice == 0:
            text, expect = packed[: rng.randrange(10, len(packed) - 1)], "gzip data"
        elif choice == 1:
            middle = rng.randrange(10, len(packed) - 8)
            flipped = packed[:middle] + bytes([packed[middle] ^ 0x55]) + packed[middle + 1 :]
            if _gunzips_to(flipped, text):  # a flip can leave the data meaning the same (an equal back-reference)
                flipped = packed[:middle]
            text, expect = flipped, "gzip"
        else:
            expect = "not gzip-compressed"
    return text, name, expect


def _gunzips_to(data: bytes, text: bytes) -> bool:
    try:
        return gzip.decompress(data) == text
    except (OSError, EOFError, zlib.error):
        return False


KINDS = [
    "duplicated card",
    "illegal follow",
    "wrong leader",
    "missing field",
    "mistyped field",
    "out of range",
    "truncated bytes",
    "non-JSON bytes",
    "bad gzip",
]


@pytest.fixture(scope="module")
def stocked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with the examples imported: corruptions must leave it exactly so."""
    folder = tmp_path_factory.mktemp("stocked")
    db = folder / "club.db"
    assert main(["import", str(EXAMPLES), "--db", str(db)]) == 0
    return db


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), pick=st.integers(0, 10_000), seed=st.integers(1, 4))
def test_a_corrupted_file_is_refused_and_changes_nothing(
    kind: str, pick: int, seed: int, stocked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = Path(tempfile.mkdtemp(dir=tmp_path))  # hypothesis may run the same case twice
    db = work / "club.db"
    shutil.copy(stocked, db)
    before = dump(db)
    data, name, expect = corrupt(base_doc(seed, 9000 + seed), kind, pick)
    bad = work / name
    bad.write_bytes(data)
    capsys.readouterr()
    assert main(["import", str(bad), "--db", str(db), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert any(line.startswith(f"{bad}: ") and all(part in line for part in expect.split("…")) for line in lines), (
        kind,
        err,
    )
    assert f"{bad}: nothing imported from this file" in err
    assert dump(db) == before


def test_a_valid_file_beside_an_invalid_one_is_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    good = write_jsonl(tmp_path / "a-good.jsonl", [base_doc(1, 21), base_doc(2, 22)])
    data, _, _ = corrupt(base_doc(3, 23), "duplicated card", 5)
    bad = tmp_path / "b-bad.jsonl"
    bad.write_bytes(data)
    assert main(["import", str(tmp_path), "--db", str(db)]) == 1
    out = capsys.readouterr()
    assert "Uvezeno: 2 partije (" in out.out  # the club's language: Serbian by default
    assert "sa greškama: 1 fajl." in out.out
    assert f"{bad}: red 1: partija 23, ruka" in out.err  # the problems too
    assert str(good) not in out.err
    assert main(["games", "--db", str(db), "--json"]) == 0
    assert sorted(g["number"] for g in json.loads(capsys.readouterr().out)) == [21, 22]


def test_a_50_mb_line_is_refused_by_its_length(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "club.db"
    assert main(["import", str(EXAMPLES / "recent.jsonl"), "--db", str(db)]) == 0
    before = dump(db)
    doc = base_doc(4, 31)
    huge = dict(doc, padding="x" * (50 * 2**20))
    log = tmp_path / "huge.jsonl"
    with log.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(doc) + "\n")
        handle.write(json.dumps(huge) + "\n")
    capsys.readouterr()
    assert main(["import", str(log), "--db", str(db), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert f"{log}: line 2: the line is 50 MB long; one game's line may be at most 8 MB, so it is not read" in err
    assert dump(db) == before


def test_progress_bar_draws_and_clears() -> None:
    import io  # noqa: PLC0415 (imported where the test needs it)

    from bot.cli.importer import ProgressBar  # noqa: PLC0415 (imported where the test needs it)

    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar.update(50, 100, 1234)
    bar.update(60, 100, 1300)  # within a tenth of a second: not redrawn
    bar.update(100, 100, 2000)  # the end is always drawn
    bar.close()
    frames = stream.getvalue().split("\r")
    assert frames[1].startswith("[" + "#" * 15 + "-" * 15 + "]  50%  1,234 hands")
    assert frames[2].startswith("[" + "#" * 30 + "] 100%  2,000 hands")
    assert frames[3] == "\x1b[K"
    assert len(frames) == 4
    russian = io.StringIO()
    bar = ProgressBar(russian, Catalogue("ru"))
    bar.update(100, 100, 2001)
    assert russian.getvalue().startswith("\r[" + "#" * 30 + "] 100%  2001 раздача  (")
    assert "в секунду)" in russian.getvalue()
