"""The import use case (`bot.importer`) and the file decoding under it (`rules.logfile`).

Round trips through every file form, the limits (a gzip bomb, long lines, big documents), problems with their
places, the cross-check report kept at import, the worker-process path giving the same database as the
in-process one, and the fast game reader agreeing with the careful one.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from log_words import english

from bot.importer import Importer, NoSuchPath, find_files
from bot.messages import Catalogue
from rules.gamelog import Game, GameStatus, LogError, ScoreEntry, game_to_doc
from rules.generator import generate_game
from rules.logfile import GZIP_MAGIC, Limits, decode
from rules.paper import compute_paper, cross_check
from rules.paper_render import discrepancy_lines
from storage.database import open_database
from storage.games import PreparedGame

SR_T, EN_T = Catalogue("sr").t, Catalogue("en").t  # the words the edge passes the paper


NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def game_of(seed: int, number: int, **options: Any) -> Game:
    rng = random.Random(seed)
    options.setdefault("hands", rng.randint(1, 9))
    options.setdefault("status", rng.choice(list(GameStatus)))
    return generate_game(rng, number, **options)


def doc_of(game: Game) -> dict[str, Any]:
    return game_to_doc(game)


def encode(docs: list[dict[str, Any]], form: str) -> bytes:
    if form == "document":
        assert len(docs) == 1
        return json.dumps(docs[0], ensure_ascii=False, indent=2).encode("utf-8")
    if form == "array":
        return json.dumps(docs, ensure_ascii=False).encode("utf-8")
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")


async def stored_games(db_path: Path) -> list[Game]:
    db = await open_database(db_path)
    try:
        return [game for s in await db.games.listing(limit=10_000) if (game := await db.games.get(s.number))]
    finally:
        await db.close()


# --------------------------------------------------------------------------------------------- round trips


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    form=st.sampled_from(["document", "array", "lines"]),
    gz=st.booleans(),
    count=st.integers(1, 3),
)
async def test_round_trip_generated_games(
    tmp_path_factory: pytest.TempPathFactory, seed: int, form: str, gz: bool, count: int
) -> None:
    folder = tmp_path_factory.mktemp("round")
    if form == "document":
        count = 1
    games = [game_of(seed + i, 100 + i) for i in range(count)]
    data = encode([doc_of(g) for g in games], form)
    name = {"document": "night.json", "array": "night.json", "lines": "night.jsonl"}[form]
    if gz:
        data, name = gzip.compress(data), name + ".gz"
    (folder / name).write_bytes(data)
    report = await Importer(str(folder / "club.db"), now=lambda: NOW).run([folder])
    assert report.exit_status == 0, report.messages()
    assert (report.imported, report.hands) == (count, sum(len(g.hands) for g in games))
    assert sorted(await stored_games(folder / "club.db"), key=lambda g: g.number) == games


async def test_found_files(tmp_path: Path) -> None:
    for name in ["a.json", "b.jsonl", "sub/c.json.gz", "sub/d.jsonl.gz", "e.txt", "sub/f.csv"]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    found = find_files([tmp_path, tmp_path / "e.txt", tmp_path / "a.json"])
    names = [p.relative_to(tmp_path).as_posix() for p in found]
    assert names == ["a.json", "b.jsonl", "sub/c.json.gz", "sub/d.jsonl.gz", "e.txt"]
    with pytest.raises(NoSuchPath):
        find_files([tmp_path / "missing"])


# --------------------------------------------------------------------------------------------- file forms and limits


def test_forms_and_places() -> None:
    one, two = doc_of(game_of(1, 1)), doc_of(game_of(2, 2))
    lines = b"\xef\xbb\xbf" + encode([one], "lines") + b"\r\n   \n" + encode([two], "lines").replace(b"\n", b"\r\n")
    decoded = decode(lines, "x.json")
    assert [(str(d.place), d.value) for d in decoded.documents] == [("line 1", one), ("line 4", two)]
    assert english(decoded.problems) == []
    pretty = decode(encode([one], "document"), "one.json")
    assert [(str(d.place), d.value) for d in pretty.documents] == [("", one)]
    array = decode(encode([one, two], "array"), "a.json")
    assert [str(d.place) for d in array.documents] == ["item 1", "item 2"]
    members = gzip.compress(encode([one], "lines")) + gzip.compress(encode([two], "lines"))
    assert [str(d.place) for d in decode(members, "two-members.jsonl.gz").documents] == ["line 1", "line 2"]


def test_problems_have_places() -> None:
    good = json.dumps(doc_of(game_of(3, 3)))
    text = f'{good}\n{good[:50]}\n\n{{"game": 1,, }}\n'.encode() + b"\xff\xfe{}\n" + good.encode() + b"\n"
    problems = english(decode(text, "night.jsonl").problems)
    assert problems[0].startswith("line 2, column 51: the JSON text ends in the middle of a game")
    assert problems[1].startswith("line 4, column 12: not valid JSON (expecting property name")
    assert problems[2] == "line 5, column 1: the text is not UTF-8 (byte 0xff); game logs are UTF-8 text"
    assert len(problems) == 3
    assert english(decode(b"  \n ", "empty.jsonl").problems) == ["the file holds no game (it is empty)"]
    assert english(decode(b"[]", "empty.json").problems) == ["the file holds no game (the array is empty)"]
    assert "more text follows" in english(decode(b'{"a": 1}\n{"b": 2} x', "two.json").problems)[0]


def test_gzip_bomb_and_sizes_are_bounded() -> None:
    limits = Limits(text_bytes=1 << 20, document_bytes=1 << 16, line_bytes=1 << 12)
    bomb = gzip.compress(b" " * (64 << 20), 9)  # 64 MiB of spaces in ~64 KiB
    assert len(bomb) < 1 << 17
    assert bomb[:2] == GZIP_MAGIC
    assert english(decode(bomb, "bomb.json.gz", limits).problems) == [
        "the gzip data unpacks to more than 1 MB; at most that much text is read from one file (split it into "
        "smaller files)"
    ]
    assert "is one JSON document of" in english(decode(b"{" + b" " * (1 << 16) + b"}", "big.json", limits).problems)[0]
    long_line = b'{"a": 1}\n{"b": "' + b"x" * (1 << 12) + b'"}\n{"c": 3}\n'
    decoded = decode(long_line, "long.jsonl", limits)
    assert english(decoded.problems) == [
        "line 2: the line is 4 KB long; one game's line may be at most 4 KB, so it is not read"
    ]
    assert [str(d.place) for d in decoded.documents] == ["line 1", "line 3"]
    assert english(decode(b'{"a": 1}', "plain.json.gz").problems)[0].startswith("the file is named .gz but is not gzip")
    assert "not gzip data follow" in english(decode(gzip.compress(b"{}") + b"junk", "x.json.gz").problems)[0]


async def test_a_file_too_big_is_refused_naming_its_own_size(tmp_path: Path) -> None:
    """The import reads no more of a file than its text limit allows, yet says how big the file is — not the part
    it read, which would make a 3 MB file "2 MB; at most 2 MB"."""
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * (3 << 20))
    db_file = tmp_path / "club.db"
    await (await open_database(db_file)).close()
    report = await Importer(str(db_file), jobs=0, limits=Limits(text_bytes=2 << 20)).run([big])
    assert report.messages() == [
        f"{big}: the file is 3 MB; at most 2 MB of game logs are read from one file: split it into smaller files",
        f"{big}: nothing imported from this file (1 problem)",
    ]


# --------------------------------------------------------------------------------------------- the importer


async def test_duplicate_game_in_a_file(tmp_path: Path) -> None:
    doc = doc_of(game_of(4, 40))
    (tmp_path / "twice.jsonl").write_bytes(encode([doc, doc], "lines"))
    report = await Importer(str(tmp_path / "club.db")).run([tmp_path])
    assert report.exit_status == 1
    assert report.messages()[0] == (
        f"{tmp_path / 'twice.jsonl'}: line 2: game 40 is in the file twice (also at "
        "line 1); a file holds each game once"
    )
    assert await stored_games(tmp_path / "club.db") == []


def _with_recorded_score(game: Game, wrong_hand: int | None) -> Game:
    """The game with each scored hand's entries recorded as the paper computes them, one hand's bule off."""
    paper = compute_paper(game)
    hands = []
    for hand, paper_hand in zip(game.hands, paper.hands, strict=True):
        if paper_hand.score is None:
            hands.append(hand)
            continue
        score = {seat: ScoreEntry(e.bule, e.supe_left, e.supe_right) for seat, e in enumerate(paper_hand.score.entries)}
        if hand.n == wrong_hand:
            score[0] = dataclasses.replace(score[0], bule=score[0].bule + 2)
        hands.append(dataclasses.replace(hand, score=score))
    return dataclasses.replace(game, hands=tuple(hands))


async def test_cross_check_report_is_kept(tmp_path: Path) -> None:
    base = game_of(5, 50, hands=None, bule=20, status=GameStatus.FINISHED)
    scored = [n for n, h in zip(range(1, 999), compute_paper(base).hands, strict=False) if h.score is not None]
    right = _with_recorded_score(dataclasses.replace(base, number=51), None)
    wrong = _with_recorded_score(base, scored[0])
    assert cross_check(right) == []
    assert cross_check(wrong) != []
    (tmp_path / "scored.jsonl").write_bytes(encode([doc_of(wrong), doc_of(right)], "lines"))
    report = await Importer(str(tmp_path / "club.db"), lang="en").run([tmp_path])
    assert report.exit_status == 0
    assert report.differing == 1
    assert "Cross-check: in 1 game the score recorded in the log differs from the paper" in report.summary()[1]
    db = await open_database(tmp_path / "club.db")
    try:
        assert await db.games.cross_check_report(50) == discrepancy_lines(cross_check(wrong), EN_T)
        assert await db.games.cross_check_report(51) is None
        assert await db.games.get(50) == wrong
    finally:
        await db.close()


def _dump_without_times(db_path: Path) -> list[str]:
    connection = sqlite3.connect(db_path)
    try:
        return [line for line in connection.iterdump() if "schema_migrations" not in line]
    finally:
        connection.close()


async def test_worker_processes_store_the_same(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    games = [game_of(i, 200 + i, hands=random.Random(i).randint(5, 30)) for i in range(24)]
    for part in range(3):
        data = encode([doc_of(g) for g in games[part * 8 : (part + 1) * 8]], "lines")
        (logs / f"night-{part}.jsonl.gz").write_bytes(gzip.compress(data))
    seen: list[tuple[int, int, int]] = []
    parallel = Importer(
        str(tmp_path / "parallel.db"),
        jobs=2,
        now=lambda: NOW,
        progress=lambda done, total, hands: seen.append((done, total, hands)),
    )
    alone = Importer(str(tmp_path / "alone.db"), jobs=0, now=lambda: NOW)
    first = await parallel.run([logs])
    second = await alone.run([logs])
    assert first.exit_status == second.exit_status == 0
    assert first.imported == second.imported == 24
    assert _dump_without_times(tmp_path / "parallel.db") == _dump_without_times(tmp_path / "alone.db")
    assert seen[-1][0] == seen[-1][1]
    assert seen[-1][2] == sum(len(g.hands) for g in games)


async def test_prepared_rows_match_prepared_games() -> None:
    game = game_of(9, 90)
    report = discrepancy_lines(cross_check(game), SR_T)
    prepared = PreparedGame.of(game, report)
    row = prepared.row()
    assert (row.number, row.hand_count, row.players, row.digest, row.cross_check) == (
        90,
        len(game.hands),
        game.players,
        prepared.digest,
        report,
    )


# --------------------------------------------------------------------------------------------- the fast reader


def _mutations(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    values: list[Any] = [
        None,
        True,
        0,
        1,
        -1,
        3,
        1.0,
        "",
        "AS",
        "10H",
        "as",
        "A♠",
        " AS",
        "pik",
        "2",
        "follows",
        "dalje",
        "talon",
        [],
        {},
        ["AS"],
        "2026-11-25T21:10:00Z",
        "2026-11-25T21:10:00+01:00",
        "finished",
    ]
    doc = copy.deepcopy(doc)
    paths: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, index))

    walk(doc, ())
    for _ in range(rng.randint(1, 2)):
        path = rng.choice(paths[1:])
        parent: Any = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict) and rng.random() < 0.25:
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(rng.choice([*values, parent[path[-1]]]))
        except (KeyError, IndexError, TypeError):
            pass
    return doc


def test_fast_reader_agrees_with_the_careful_one() -> None:
    """On mutated documents: the same game or the same refusal, and a document is called canonical only when it
    is exactly what `game_to_doc` writes (so storing it as it is gives the same digest)."""
    from rules.gamelog import _careful_game, read_game  # noqa: PLC0415 (imported where the test needs it)

    rng = random.Random(11)
    docs = [json.loads(json.dumps(doc_of(game_of(seed, seed + 1)))) for seed in range(8)]
    for doc in docs:
        assert read_game(doc)[1] is doc
    accepted = canonical = 0
    for _ in range(1500):
        doc = _mutations(rng.choice(docs), rng)
        try:
            careful: Game | None = _careful_game(doc)
        except LogError:
            careful = None
        try:
            fast, same = read_game(doc)
        except LogError:
            fast, same = None, None
        assert fast == careful
        accepted += careful is not None
        if same is not None:
            assert fast is not None
            assert same == game_to_doc(fast)
            canonical += 1
    assert 30 < canonical < accepted < 1400


async def test_a_failure_inside_the_import_is_raised_not_hung(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio  # noqa: PLC0415 (imported where the test needs it)

    import bot.importer  # noqa: PLC0415 (imported where the test needs it)

    (tmp_path / "a.jsonl").write_bytes(encode([doc_of(game_of(1, 1))], "lines"))
    (tmp_path / "b.jsonl").write_bytes(encode([doc_of(game_of(2, 2))], "lines"))

    def broken(piece: Any, lang: str = "sr") -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(bot.importer, "prepare_piece", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        await asyncio.wait_for(Importer(str(tmp_path / "club.db")).run([tmp_path]), 20)
    assert await stored_games(tmp_path / "club.db") == []
