"""`sudija presude GAME [--db FILE] [--json]`: every trial of a game with stable JSON keys, the desk's text
otherwise, and exit status 1 for an unknown game or a missing database."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli._common import missing_text
from bot.cli.presude import show
from bot.messages import Catalogue
from bot.views import render_trials
from club import NOW, Club, make_club
from rules.gamelog import GameStatus, format_time
from rules.verdicts import BulaChange, Draft, NoVerdict

KEYS = ["id", "kind", "caller", "referee", "opened_at", "closed_at", "outcome", "verdict", "reason", "messages"]


async def _judged_club(club: Club) -> None:
    """Game 100 (finished): an interrupted trial, then one closed with Bez presude. Game 200 (in progress): a
    bula change. Game 300: a trial still open."""
    ana = await club.member("ana", "referee")
    petar = await club.member("petar", "referee")
    marko = await club.member("marko")
    ivana = await club.member("ivana")
    sanja = await club.member("sanja")
    players = ("marko", "ivana", "sanja")
    await club.game(100, players)
    await club.game(200, players, status=GameStatus.IN_PROGRESS)
    await club.game(300, players)

    assert (await club.desk.calls.call(marko, 100)).ok
    call = await club.db.calls.pending_by_caller(marko.id)
    assert call is not None
    assert (await club.desk.trials.take(ana, call.id)).ok
    await club.advance(timedelta(minutes=3))
    assert (await club.desk.trials.leave(ana)).ok

    assert (await club.desk.calls.call(marko, 100)).ok
    call = await club.db.calls.pending_by_caller(marko.id)
    assert call is not None
    assert (await club.desk.trials.take(petar, call.id)).ok
    assert (await club.desk.draft(petar, Draft(NoVerdict(), "nema osnova"))).ok
    await club.advance(timedelta(minutes=10))
    assert (await club.desk.finish(petar)).ok

    assert (await club.desk.calls.call(ivana, 200)).ok
    call = await club.db.calls.pending_by_caller(ivana.id)
    assert call is not None
    assert (await club.desk.trials.take(ana, call.id)).ok
    assert (await club.desk.draft(ana, Draft(BulaChange({"marko": 2}), "lažna izjava"))).ok
    assert (await club.desk.finish(ana)).ok

    assert (await club.desk.calls.call(sanja, 300)).ok
    call = await club.db.calls.pending_by_caller(sanja.id)
    assert call is not None
    assert (await club.desk.trials.take(petar, call.id)).ok


def _db(tmp_path: Path) -> str:
    return str(tmp_path / "club.db")


async def test_json_has_stable_keys_and_every_outcome(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _judged_club(club)
    assert await show(100, _db(tmp_path), as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == ["game", "trials"]
    assert result["game"] == 100
    first, second = result["trials"]
    assert list(first) == KEYS
    assert list(second) == KEYS
    assert first == {
        "id": 1,
        "kind": "out_of_game",
        "caller": "marko",
        "referee": "ana",
        "opened_at": format_time(NOW),
        "closed_at": format_time(NOW + timedelta(minutes=3)),
        "outcome": "interrupted",
        "verdict": None,
        "reason": None,
        "messages": [],
    }
    assert second == {
        "id": 2,
        "kind": "out_of_game",
        "caller": "marko",
        "referee": "petar",
        "opened_at": format_time(NOW + timedelta(minutes=3)),
        "closed_at": format_time(NOW + timedelta(minutes=13)),
        "outcome": "no_verdict",
        "verdict": {"kind": "bez", "reason": "nema osnova"},
        "reason": "nema osnova",
        "messages": [],
    }

    assert await show(200, _db(tmp_path), as_json=True) == 0
    [in_game] = json.loads(capsys.readouterr().out)["trials"]
    assert (in_game["kind"], in_game["caller"], in_game["referee"], in_game["outcome"]) == (
        "in_game",
        "ivana",
        "ana",
        "verdict",
    )
    assert in_game["verdict"] == {
        "kind": "bule",
        "reason": "lažna izjava",
        "amounts": {"marko": 2},
        "hand": None,
        "late_justified": False,
    }

    assert await show(300, _db(tmp_path), as_json=True) == 0
    [still_open] = json.loads(capsys.readouterr().out)["trials"]
    assert (still_open["outcome"], still_open["closed_at"], still_open["verdict"]) == ("open", None, None)


async def test_text_is_the_desks_render_with_referee_names(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _judged_club(club)
    trials = await club.db.trials.for_game(100)
    names = {m.id: m.nick for m in await club.db.members.all()}
    for lang in ("sr", "en"):
        assert await show(100, _db(tmp_path), lang=lang) == 0
        assert (
            capsys.readouterr().out
            == render_trials(100, trials, names, True, Catalogue(lang), {t.id: [] for t in trials}, page_size=None)
            + "\n"
        )
    assert await show(100, _db(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "petar" in out
    assert "nema osnova" in out


def test_a_game_without_trials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def build() -> None:
        club = await make_club(tmp_path)
        await club.game(100)
        await club.db.close()

    asyncio.run(build())
    monkeypatch.chdir(tmp_path)
    assert main(["presude", "100", "--db", _db(tmp_path), "--json"]) == 0
    assert capsys.readouterr().out.strip() == '{\n  "game": 100,\n  "trials": []\n}'
    assert main(["presude", "100", "--db", _db(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == Catalogue("sr").t("presude.none", game=100)


def test_unknown_game_and_missing_database_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def build() -> None:
        club = await make_club(tmp_path)
        await club.db.close()

    asyncio.run(build())
    monkeypatch.chdir(tmp_path)
    assert main(["presude", "4242", "--db", _db(tmp_path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert (out, err.strip()) == ("", Catalogue("sr").t("call.unknown_game", game=4242))
    missing = str(tmp_path / "nowhere.db")
    assert main(["presude", "1", "--db", missing]) == 1
    assert capsys.readouterr().err.strip() == missing_text(missing, Catalogue("sr"))
    assert not Path(missing).exists()


async def test_as_finds_the_member_as_the_chat_and_papir_do(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--as` names a member by his nickname's identity key (`MemberStore.by_nick`), as `sudija papir --as` and
    the chat do: a Cyrillic letter that looks like his own, or another case, is still marko; another name is not."""
    await _judged_club(club)
    assert await show(100, _db(tmp_path), as_json=True, viewer="marko") == 0
    as_marko = json.loads(capsys.readouterr().out)
    assert as_marko["trials"][1]["referee"] is None
    for typed in ("MARKO", "m\u0430rko"):
        assert await show(100, _db(tmp_path), as_json=True, viewer=typed) == 0
        assert json.loads(capsys.readouterr().out) == as_marko
    assert await show(100, _db(tmp_path), as_json=True, viewer="nepoznat") == 1
    assert capsys.readouterr().err.strip() == Catalogue("sr").t("cli.unknown_member", nick="nepoznat")
