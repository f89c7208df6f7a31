"""`sudija presude GAME [--db FILE] [--json]`: every trial of a game with stable JSON keys, the desk's text
otherwise, and exit status 1 for an unknown game or a missing database."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_appeals import setup as appeals_setup

from bot.cli import main
from bot.cli._common import missing_text
from bot.cli.presude import show
from bot.config import load
from bot.messages import Catalogue
from bot.ports import Upload
from bot.views import render_trials
from club import NOW, Club, make_club
from rules.appeals import AppealKind, AppealRules
from rules.gamelog import GameStatus, format_time
from rules.verdicts import BulaChange, Draft, NoVerdict

SR = Catalogue("sr")
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


def test_text_lists_the_appeals_and_reports_in_every_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text mode shows what the JSON mode and the chat's `/presude` show under the trials: petar's appeal,
    rejected with 61 days of appeal restriction (a count in each language's plural form), and marko's report of
    the game itself; the councilor who heard the appeal is named to the operator, and "većnik" to a player."""

    async def build() -> None:
        club = await make_club(tmp_path)
        rules = AppealRules(
            kinds=(AppealKind("zalba", 30),),
            rejected_restriction_days=30,
            restriction_min_days=30,
            restriction_max_days=365,
        )
        trial = await appeals_setup(club, appeals=rules)
        assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
        v2 = await club.get("v2")
        assert (await club.desk.press(v2, "appeal_take", 1)).ok
        assert (await club.desk.appeals.decide_appeal(v2, 1, "odbijena", 61, "neosnovana")).ok
        config_file = tmp_path / "reports.toml"
        config_file.write_text('[club]\npack = "ruski_sajt"\n', encoding="utf-8")
        club.desk.config = load(config_file)  # the third club's reports, of the same game
        chat = Upload("stol-100.png", "image/png", b"\x89PNG the table's chat")
        assert (await club.desk.appeals.file_report(await club.get("marko"), 100, "apelacija", "psovke", (chat,))).ok
        await club.db.close()

    asyncio.run(build())
    monkeypatch.chdir(tmp_path)
    assert main(["presude", "100", "--db", _db(tmp_path), "--json"]) == 0
    appeal, report = json.loads(capsys.readouterr().out)["appeals"]
    assert (appeal["trial"], appeal["state"], appeal["restriction_days"]) == (1, "rejected", 61)
    assert (report["trial"], report["kind"], report["appellant"]) == (None, "apelacija", "marko")
    restriction = {"sr": "61 dan", "sr-Cyrl": "61 дан", "en": "61 days", "ru": "61 день"}
    for lang, days in restriction.items():
        words = Catalogue(lang)
        assert main(["presude", "100", "--db", _db(tmp_path), "--lang", lang]) == 0
        out = capsys.readouterr().out.splitlines()
        title = out.index(words.t("appeal.list_title"))
        assert out[title + 1] == words.t("appeal.list_line", **_line(words, appeal, "v2"))
        assert out[title + 2] == words.t("appeal.list_restriction", days=61)
        assert out[title + 2].endswith(days)
        assert out[title + 3] == words.t("report.list_line", **_line(words, report, "—"))
        assert len(out) == title + 4
    assert main(["presude", "100", "--db", _db(tmp_path), "--as", "marko"]) == 0
    as_marko = capsys.readouterr().out
    assert "v2" not in as_marko.split(SR.t("appeal.list_title"))[1]
    assert SR.t("appeal.list_line", **_line(SR, appeal, SR.t("appeal.councilor_label"))) in as_marko


def _line(words: Catalogue, shown: dict[str, object], councilor: str) -> dict[str, object]:
    """An appeal's JSON as the parameters of its listed line."""
    filed = datetime.fromisoformat(str(shown["filed_at"]).replace("Z", "+00:00"))
    return {
        "appeal": shown["id"],
        "trial": shown["trial"] or "—",
        "game": 100,
        "kind": shown["kind"],
        "appellant": shown["appellant"],
        "filed": filed,
        "state": words.t(f"appeal.state_{shown['state']}"),
        "reason": shown["reason"] or "—",
        "hearing": shown["hearing"] or "—",
        "councilor": councilor,
    }
