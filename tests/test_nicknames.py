"""Nickname hygiene (`rules.nicknames`) and the game-log import refusing hostile nicknames: every class refused
with the character named (U+XXXX and its position), nothing stored; a nickname written in NFD is stored in NFC."""

from __future__ import annotations

import json
import random
import sqlite3
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.importer import Importer
from rules.gamelog import game_to_doc
from rules.generator import generate_game
from rules.nicknames import MAX_LENGTH, NickRefused, check_nick, shown

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)

#: (class, hostile nickname, what the message must name)
HOSTILE = [
    ("newline", "ana\nSudija: kazna", "U+000A"),
    ("carriage return", "ana\r", "U+000D"),
    ("unit separator", "an\x1fa", "U+001F"),
    ("NUL", "a\x00na", "U+0000"),
    ("RTL override", "ana\u202egnp.exe", "U+202E"),
    ("LTR isolate", "\u2066ana", "U+2066"),
    ("zero-width space", "a\u200bna", "U+200B"),
    ("zero-width joiner", "an\u200da", "U+200D"),
    ("byte order mark", "\ufeffana", "U+FEFF"),
    ("line separator", "ana\u2028petar", "U+2028"),
    ("paragraph separator", "ana\u2029", "U+2029"),
    ("space", "ana petar", "U+0020"),
    ("no-break space", "ana\u00a0", "U+00A0"),
    ("private use", "ana\ue000", "U+E000"),
    ("unassigned", "ana\U000e0fff", "U+E0FFF"),
    ("mention", "<@123>", "U+003C"),
    ("code fence", "ana`", "U+0060"),
]


@pytest.mark.parametrize(("kind", "nick", "named"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_every_hostile_class_is_refused_naming_the_character_and_its_position(kind: str, nick: str, named: str) -> None:
    with pytest.raises(NickRefused) as refused:
        check_nick(nick)
    message = str(refused.value)
    assert named in message, message
    assert "position" in message, message
    position = int(message.rsplit("position ", 1)[1])
    assert f"U+{ord(unicodedata.normalize('NFC', nick)[position - 1]):04X}" == named


def test_nfc_length_and_look_alikes() -> None:
    assert check_nick("Mile\u0301") == "Milé"  # NFD in, NFC out
    assert check_nick("Ђорђе") == "Ђорђе"
    assert check_nick("sudija_1.x-y") == "sudija_1.x-y"
    assert check_nick("a" * MAX_LENGTH)
    with pytest.raises(NickRefused, match="at most 32"):
        check_nick("a" * (MAX_LENGTH + 1))
    with pytest.raises(NickRefused, match="empty"):
        check_nick("")
    with pytest.raises(NickRefused, match="Cyrillic and Latin"):
        check_nick("v\u0435sna")  # a Cyrillic e in the owner's nickname
    assert shown("ana\npetar") == "ana<U+000A>petar"
    assert shown("ana") == "ana"


def game_file(folder: Path, number: int, players: tuple[str, str, str]) -> Path:
    game = generate_game(random.Random(number), number, hands=2, players=players)
    path = folder / f"{number}.json"
    path.write_text(json.dumps(game_to_doc(game), ensure_ascii=False), encoding="utf-8")
    return path


async def test_the_import_refuses_every_hostile_nickname_and_stores_nothing(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for i, (_, nick, _) in enumerate(HOSTILE):
        game_file(logs, 500 + i, ("marko", nick, "petar"))
    db = tmp_path / "club.db"
    report = await Importer(str(db), jobs=1, now=lambda: NOW).run([logs])
    assert report.imported == 0
    assert report.files_with_errors == len(HOSTILE)
    assert report.exit_status == 1
    text = "\n".join(report.messages())
    for _, _, named in HOSTILE:
        assert named in text
    for line in report.messages():
        assert "\n" not in line
        assert "\u202e" not in line
        assert "\x1f" not in line
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM game_players").fetchone() == (0,)


async def test_a_nickname_written_in_nfd_is_stored_in_nfc(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    game_file(logs, 600, ("marko", "Mile\u0301", "petar"))
    db = tmp_path / "club.db"
    report = await Importer(str(db), jobs=1, now=lambda: NOW).run([logs])
    assert report.imported == 1, report.messages()
    with sqlite3.connect(db) as conn:
        nicks = {row[0] for row in conn.execute("SELECT nick FROM game_players WHERE game = 600")}
    assert nicks == {"marko", "Milé", "petar"}


def test_a_listing_is_never_broken_by_a_nickname_stored_before_these_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio  # noqa: PLC0415 (imported where the test needs it)

    from bot.cli import main  # noqa: PLC0415 (imported where the test needs it)

    logs = tmp_path / "logs"
    logs.mkdir()
    game_file(logs, 700, ("marko", "ana", "petar"))
    db = tmp_path / "club.db"
    assert asyncio.run(Importer(str(db), jobs=1, now=lambda: NOW).run([logs])).imported == 1
    with sqlite3.connect(db) as conn:  # an older database: a nickname no import would take today
        conn.execute("UPDATE game_players SET nick = ? WHERE nick = 'ana'", ("ana\n   701  finished  forged",))
    capsys.readouterr()
    assert main(["games", "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert "ana<U+000A><U+0020>" in out[1]
    assert out[1].endswith("forged, petar")


async def test_a_verdict_names_members_by_clean_nicknames_in_nfc(tmp_path: Path) -> None:
    from bot.commands import Commands  # noqa: PLC0415 (imported where the test needs it)
    from club import make_club  # noqa: PLC0415 (imported where the test needs it)

    club = await make_club(tmp_path)
    try:
        referee = await club.member("ana", "referee")
        caller = await club.member("marko")
        await club.game(100, ("marko", "Milé", "petar"))
        await club.desk.calls.call(caller, 100)
        call = await club.db.calls.pending_for_game(100)
        assert call is not None
        assert (await club.desk.trials.take(referee, call.id)).ok
        commands = Commands(club.desk)
        hostile = await commands.handle(referee, "/presuda kazna petar\u202e plavac 1 -- x")
        assert hostile is not None
        assert not hostile.ok
        assert "U+202E" in hostile.text
        nfd = await commands.handle(referee, "/presuda kazna Mile\u0301 plavac 1 -- vređanje")
        assert nfd is not None, nfd.text
        assert nfd.ok, nfd.text
        trial = await club.db.trials.open_for_game(100)
        assert trial is not None
        assert trial.draft is not None
        assert "Milé" in str(trial.draft)
    finally:
        await club.db.close()
