"""The scripted sessions of examples/scenarios (among them one per item 1-8 of issue 15) run through the real
command line (`sudija console --demo` with standard input replaced), and the state they leave checked through
`sudija presude --json` and `sudija papir --json`; plus the walkthrough piped into `python -m bot console --demo`
in a fresh directory."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.messages import Catalogue

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
SR = Catalogue("sr")


def _console(script: str, db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    status = main(["console", "--db", str(db), "--demo"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, ""), err
    return out


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def _scenario(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[str, Path]:
    monkeypatch.chdir(tmp_path)  # no config.toml of the checkout
    script = (SCENARIOS / name).read_text(encoding="utf-8")
    first = script.split("\n", 1)[0]
    if first.startswith("# pack: "):  # another club's scenario: its pack, and its attachments where it finds them
        (tmp_path / "config.toml").write_text(f'[club]\npack = "{first.removeprefix("# pack: ")}"\n', encoding="utf-8")
        shutil.copytree(SCENARIOS / "prilozi", tmp_path / "examples" / "scenarios" / "prilozi")
    db = tmp_path / "demo.db"
    return _console(script, db, monkeypatch, capsys), db


def test_every_scenario_file_is_covered() -> None:
    assert sorted(p.name for p in SCENARIOS.glob("*.txt")) == [
        "anonymous_referee.txt",
        "appeal_and_vote.txt",
        "call_expires.txt",
        "in_game_bula_councilor.txt",
        "late_verdict_last_hand.txt",
        "nsbk_kasnjenje.txt",
        "one_fall_move_per_hand.txt",
        "out_of_game_plavac.txt",
        "paper_over.txt",
        "refused_call.txt",
        "ruski_prijava.txt",
        "sudi_after_deadline.txt",
        "sudija_away_from_table.txt",
        "verdict_window.txt",
        "walkthrough.txt",
        "whole_conversation.txt",
    ]


def _changes(paper: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(hand["n"], change) for hand in paper["hands"] for change in hand["changes"]]


def test_out_of_game_trial_with_a_plavac(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("out_of_game_plavac.txt", tmp_path, monkeypatch, capsys)
    assert "[dm petar] " + SR.t("verdict.plavac_limit", days=10, limit=7) in out
    result = _json(["presude", "1847301", "--db", str(db), "--json"], capsys)
    assert result["game"] == 1847301
    [trial] = result["trials"]
    assert {k: trial[k] for k in ("kind", "caller", "referee", "outcome", "reason")} == {
        "kind": "out_of_game",
        "caller": "milica",
        "referee": "petar",
        "outcome": "verdict",
        "reason": "napustio partiju usred devete ruke",
    }
    verdict = trial["verdict"]
    assert (verdict["kind"], verdict["culprit"], verdict["plavac_days"], verdict["abandoned"]) == (
        "kazna",
        "nikola",
        3,
        True,
    )  # the replaced draft (without napustio) was not recorded
    assert trial["closed_at"] is not None
    paper = _json(["papir", "1847301", "--db", str(db), "--json"], capsys)
    assert _changes(paper) == []  # a penalty does not touch the paper


def test_an_appeal_lifts_a_wrong_penalty_and_the_councilors_vote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19 in the console club: an appeal taken by the one councilor who took no part, upheld by (niko), and a
    proposal carried by two of the three councilors."""
    out, db = _scenario("appeal_and_vote.txt", tmp_path, monkeypatch, capsys)
    assert "[dm milica] " + SR.t("appeal.took_part", trial=1) in out
    assert (
        "[dm nikola] "
        + SR.t(
            "appeal.told_decided",
            appeal=1,
            trial=1,
            state=SR.t("appeal.state_upheld"),
            reason="kažnjen je nevin igrač: prekid veze",
        )
        in out
    )
    assert "[dm bojan] Postavljeni ste za funkciju: sudija." in out
    result = _json(["presude", "1847301", "--db", str(db), "--json"], capsys)
    first, hearing = result["trials"]
    assert (first["verdict"]["kind"], first["verdict"]["plavac_days"]) == ("kazna", 3)  # never edited
    assert (hearing["caller"], hearing["referee"], hearing["verdict"]["kind"]) == ("nikola", "sanja", "niko")
    [appeal] = result["appeals"]
    assert {k: appeal[k] for k in ("trial", "appellant", "state", "councilor", "hearing")} == {
        "trial": first["id"],
        "appellant": "nikola",
        "state": "upheld",
        "councilor": "sanja",
        "hearing": hearing["id"],
    }
    anonymous = _json(["presude", "1847301", "--db", str(db), "--json", "--as", "marko"], capsys)
    assert anonymous["appeals"][0]["councilor"] is None


def test_in_game_trial_with_a_bula_change_and_a_councilor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("in_game_bula_councilor.txt", tmp_path, monkeypatch, capsys)
    assert "[trial 1] " + SR.t("councilor.joined", nick="nikola") in out
    assert "[#sudije] (izmena) " + SR.t("councilor.notice_taken", game=1847320, councilor="nikola") in out
    assert "[table 1847320] " + SR.t("table.paused") in out
    assert "[table 1847320] " + SR.t("table.resumed") in out
    [trial] = _json(["presude", "1847320", "--db", str(db), "--json"], capsys)["trials"]
    assert (trial["kind"], trial["caller"], trial["referee"], trial["outcome"]) == (
        "in_game",
        "marko",
        "jelena",
        "verdict",
    )
    assert trial["verdict"]["kind"] == "bule"
    assert trial["verdict"]["amounts"] == {"marko": 2}
    paper = _json(["papir", "1847320", "--db", str(db), "--json"], capsys)
    [(hand, change)] = _changes(paper)
    assert (hand, change["kind"], change["who"], change["trial"], change["applied"]) == (
        5,
        "promena_bula",
        "jelena",
        trial["id"],
        True,
    )
    assert {e["player"]: e["bule"] for e in change["entries"]} == {"ivana": 0, "marko": 2, "sanja": 0}


def test_a_call_that_expires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("call_expires.txt", tmp_path, monkeypatch, capsys)
    assert out.count("[#sudije] (izmena) " + SR.t("call.notice_expired", game=1847310, caller="bojan")) == 1
    assert "[dm bojan] " + SR.t("call.expired", game=1847310, minutes=5) in out
    # While it was still pending: his own call again is not a second call; he is shown how to withdraw it.
    assert "[dm bojan] " + SR.t("call.yours_pending", game=1847310, until="").split(" (")[0] in out
    assert "[#sudije] (izmena) " + SR.t("call.notice_withdrawn", game=1847310, caller="bojan") in out
    assert _json(["presude", "1847310", "--db", str(db), "--json"], capsys) == {"game": 1847310, "trials": []}
    assert _changes(_json(["papir", "1847310", "--db", str(db), "--json"], capsys)) == []


def test_refused_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out, db = _scenario("refused_call.txt", tmp_path, monkeypatch, capsys)
    for text in (
        SR.t("call.unrated", game=1847302),
        SR.t("call.with_ai", game=1847305),
        SR.t("call.not_your_game", game=1847258),
        SR.t("call.unknown_game", game=1234),
        SR.t("take.played", game=1847258),
        SR.t("take.not_referee"),
        SR.t("call.yours_pending", game=1847258, until="").split(" (")[0],  # his own pending call, again
    ):
        assert text in out
    assert "[dm marko] Pravo na suđenje za partiju 1847240 je zastarelo" in out
    assert "[#sudije] @jelena 🔴" in out  # only the referee who did not play is pinged
    for game in (1847302, 1847305, 1847258, 1847240):
        assert _json(["presude", str(game), "--db", str(db), "--json"], capsys) == {"game": game, "trials": []}
    assert main(["presude", "1234", "--db", str(db), "--json"]) == 1
    assert capsys.readouterr().err.strip() == SR.t("call.unknown_game", game=1234)


def test_the_walkthrough(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out, db = _scenario("walkthrough.txt", tmp_path, monkeypatch, capsys)
    assert out.count("[dm ana] Nacrt presude:") == 2
    [trial] = _json(["presude", "1847320", "--db", str(db), "--json"], capsys)["trials"]
    assert (trial["referee"], trial["verdict"]["amounts"], trial["reason"]) == (
        "ana",
        {"ivana": 2},
        "gledanje u tuđe karte, prvi put",
    )  # the replacing draft
    [(hand, change)] = _changes(_json(["papir", "1847320", "--db", str(db), "--json"], capsys))
    assert (hand, change["kind"], change["who"]) == (5, "promena_bula", "ana")


# Issue 15: one scenario per item 1-8, each checked through `presude --json` / `papir --json` ------------------


def _one_trial(game: int, db: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    [trial] = _json(["presude", str(game), "--db", str(db), "--json", *extra], capsys)["trials"]
    result: dict[str, Any] = trial
    return result


def test_one_fall_move_per_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("one_fall_move_per_hand.txt", tmp_path, monkeypatch, capsys)
    assert "[dm ana] " + SR.t("fall_move.ispravka", hand=4) in out
    [(hand, change)] = _changes(_json(["papir", "1847320", "--db", str(db), "--json"], capsys))
    assert (hand, change["kind"], change["trial"], change["applied"]) == (4, "ispravka", None, True)
    assert {e["player"]: e["bule"] for e in change["entries"]} == {"ivana": 0, "marko": 0, "sanja": -32}
    trial = _one_trial(1847320, db, capsys)
    assert (trial["outcome"], trial["verdict"]["kind"]) == ("no_verdict", "bez")


def test_the_window_closes_when_the_next_hand_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("verdict_window.txt", tmp_path, monkeypatch, capsys)
    assert "[dm jelena] " + SR.t("verdict.too_late", hand=4, completed=5) in out
    [(hand, change)] = _changes(_json(["papir", "1847320", "--db", str(db), "--json"], capsys))
    assert (hand, change["kind"]) == (5, "promena_bula")
    trial = _one_trial(1847320, db, capsys)
    assert (trial["verdict"]["hand"], trial["verdict"]["amounts"]) == (5, {"sanja": 2})


def test_a_justified_late_verdict_goes_on_the_last_completed_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = _scenario("late_verdict_last_hand.txt", tmp_path, monkeypatch, capsys)
    [(hand, change)] = _changes(_json(["papir", "1847320", "--db", str(db), "--json"], capsys))
    assert (hand, change["kind"], change["applied"]) == (5, "promena_bula", True)  # "u prethodnoj ruci"
    assert {e["player"]: e["bule"] for e in change["entries"]} == {"ivana": 4, "marko": 0, "sanja": 0}
    trial = _one_trial(1847320, db, capsys)
    assert (trial["verdict"]["hand"], trial["verdict"]["late_justified"]) == (3, True)


def test_nothing_attaches_after_the_paper_has_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("paper_over.txt", tmp_path, monkeypatch, capsys)
    refused = "[dm ana] Papir partije 1847333 je završen (bule su stigle do nule posle ruke 7)"
    assert out.count(refused) == 2
    paper = _json(["papir", "1847333", "--db", str(db), "--json"], capsys)
    assert paper["ended"] is True
    assert _changes(paper) == []
    assert _one_trial(1847333, db, capsys)["outcome"] == "no_verdict"


def test_the_referee_stays_anonymous_on_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("anonymous_referee.txt", tmp_path, monkeypatch, capsys)
    marko = out.split("> @marko /papir 1847320")[1].split("> @dragan")[0]
    dragan = out.split("> @dragan /papir 1847320")[1]
    assert "+ Promena bula (suđenje 1): sanja bule +2" in marko
    assert "jelena" not in marko
    assert "+ Promena bula (jelena, suđenje 1): sanja bule +2" in dragan
    for viewer, who in (("marko", None), ("dragan", "jelena")):
        [(hand, change)] = _changes(_json(["papir", "1847320", "--db", str(db), "--json", "--as", viewer], capsys))
        assert (hand, change["who"], change["trial"]) == (5, who, 1)
    assert _one_trial(1847320, db, capsys, "--as", "marko")["referee"] is None
    assert _one_trial(1847320, db, capsys, "--as", "dragan")["referee"] == "jelena"


def test_the_whole_conversation_is_kept_and_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("whole_conversation.txt", tmp_path, monkeypatch, capsys)
    sanja = out.split("> @sanja /presude 1847320\n")[1]
    assert "sudija: Marko, da li je to tačno?" in sanja
    assert "većnik: Po mom mišljenju" in sanja
    assert "jelena" not in sanja
    assert "nikola" not in sanja
    assert "poruke 1–4 od 4 (strana 1 od 1)" in sanja
    texts = [
        "Marko je rekao da nema adut, a imao ga je.",
        "Marko, da li je to tačno?",
        "Nije, pogrešno ste razumeli.",
        "Po mom mišljenju nema dovoljno osnova.",
    ]
    for viewer, authors in (
        (("--as", "sanja"), ["sanja", "sudija", "marko", "većnik"]),
        ((), ["sanja", "jelena", "marko", "nikola"]),
    ):
        messages = _one_trial(1847320, db, capsys, *viewer)["messages"]
        assert [m["author"] for m in messages] == authors
        assert [m["text"] for m in messages] == texts
        assert all(m["at"].endswith("Z") for m in messages)


def test_sudija_without_a_number_away_from_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("sudija_away_from_table.txt", tmp_path, monkeypatch, capsys)
    assert "[dm marko] " + SR.t("call.ok", game=1847258, minutes=5) in out
    assert _json(["presude", "1847320", "--db", str(db), "--json"], capsys) == {"game": 1847320, "trials": []}
    trial = _one_trial(1847258, db, capsys)
    assert (trial["kind"], trial["caller"], trial["referee"]) == ("out_of_game", "marko", "jelena")


def test_a_sudi_press_after_the_deadline_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, db = _scenario("sudi_after_deadline.txt", tmp_path, monkeypatch, capsys)
    assert "[dm jelena] " + SR.t("take.expired", game=1847310) in out
    assert "[dm bojan] " + SR.t("call.expired", game=1847310, minutes=5) in out
    assert "[dm bojan] " + SR.t("call.ok", game=1847310, minutes=5) in out.split("> @jelena !press Sudi")[1]
    assert _json(["presude", "1847310", "--db", str(db), "--json"], capsys) == {"game": 1847310, "trials": []}
    assert _changes(_json(["papir", "1847310", "--db", str(db), "--json"], capsys)) == []


def test_a_pipe_into_python_m_bot_console_demo_in_a_fresh_directory(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lines = [
        "@marko /sudija",
        "@ana !press Sudi",
        "@ana /presuda bule ruka 5 ivana +2 -- gledanje u karte",
        "@ana !press Završi suđenje",
        "@marko /presude 1847320",
    ]
    command = (
        "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" | '{sys.executable}' -m bot console --demo"
    )
    run = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert "[#sudije] @ana @jelena @petar " in run.stdout
    assert "[dm ana] " + SR.t("finish.ok", game=1847320) in run.stdout
    assert (tmp_path / "sudija-demo.db").exists()
    presude = subprocess.run(
        [sys.executable, "-m", "bot", "presude", "1847320", "--db", "sudija-demo.db", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [trial] = json.loads(presude.stdout)["trials"]
    assert (trial["caller"], trial["referee"], trial["outcome"]) == ("marko", "ana", "verdict")


def test_a_malformed_line_fails_the_cli_with_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\n@marko /sudija\n\n@marko\n@ana !press Sudi\n"))
    assert main(["console", "--demo"]) == 1
    out, err = capsys.readouterr()
    assert err == "line 4: " + SR.t("console.no_text", nick="marko") + "\n"
    assert "@ana !press Sudi" not in out  # nothing after the bad line ran


def test_interactive_on_a_terminal_keeps_a_readline_history(tmp_path: Path) -> None:
    pty = pytest.importorskip("pty")
    import select  # noqa: PLC0415 (imported where the test needs it)

    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the console on a pseudo-terminal
        try:
            os.chdir(tmp_path)
            os.execve(sys.executable, [sys.executable, "-m", "bot", "console", "--demo"], env)
        finally:
            os._exit(127)  # never run the rest of the tests in the child

    seen = ""

    def wait_for(wanted: str, seconds: float = 60.0) -> bool:
        """Read the terminal until `wanted` appears; the text up to it is consumed."""
        nonlocal seen
        deadline = time.monotonic() + seconds
        while wanted not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk.decode(errors="replace")
        found = wanted in seen
        if found:
            seen = seen[seen.index(wanted) + len(wanted) :]
        return found

    def ended(seconds: float) -> int | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            wait_for("\x00", 0.2)  # keep draining the terminal
        return None

    def give_up(signum: int, frame: object) -> None:
        raise TimeoutError("the console on the terminal stopped answering")

    # A hard bound on the whole conversation: a blocked write to the terminal must not hang the suite.
    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(240)
    status: int | None = None
    try:
        assert wait_for("> ")
        os.write(fd, b"@marko /sudija\n")
        assert wait_for("[#sudije] @ana @jelena @petar")
        assert wait_for("[Povuci poziv]")
        assert wait_for("> ")
        os.write(fd, b"@nobody hi\n")
        assert wait_for(SR.t("console.unknown_nick", nick="nobody"))  # told, and the session goes on
        assert wait_for("> ")
        os.write(fd, b"\x04")  # Ctrl-D on an empty line ends the session
        status = ended(30.0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status is not None, "Ctrl-D did not end the session"
    assert os.waitstatus_to_exitcode(status) == 0
    assert (home / ".sudija_console_history").read_text().split("\n")[:2] == ["@marko /sudija", "@nobody hi"]


def test_a_russian_report_with_the_tables_chat_is_filed_heard_and_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35, item 4 in the console club: a report of a game long out of the call window, refused without the
    table's chat and for what is never reviewed, filed with the chat attached, taken by a councilor who did not
    play (who gets the file), upheld with the rule's suspension — told to the game server, never a plavac — which
    runs out ten days later."""
    out, db = _scenario("ruski_prijava.txt", tmp_path, monkeypatch, capsys)
    assert "[dm marko] Pravo na suđenje za partiju 1847240 je zastarelo" in out  # beyond the call window …
    assert "[dm marko] " + SR.t("report.attachment_needed", kind="apelacija") in out
    assert "[dm marko] " + SR.t("report.not_reviewed", what="igra u pasovima") in out
    assert "Prijava #1 za partiju 1847240 (apelacija) čeka većnika. Podnosilac: marko." in out  # … not the report's
    picture = tmp_path / "demo-slike" / "cet-stola-1847240.txt"  # what the councilor was handed
    assert picture.read_bytes() == (SCENARIOS / "prilozi" / "cet-stola-1847240.txt").read_bytes()
    assert "[dm petar] Sudija vas je kaznio za partiju 1847240: suspenzija sa turnira Kluba 10 dana" in out
    assert "(server igre: suspenzija za petar do " in out
    assert "server igre: plavac" not in out
    assert "[dm petar] " + SR.t("suspension.ended") in out
    assert "(server igre: suspenzija za petar je završena)" in out
    result = _json(["presude", "1847240", "--db", str(db), "--json"], capsys)
    [hearing] = result["trials"]
    assert (hearing["verdict"]["kind"], hearing["verdict"]["suspension_days"]) == ("kazna", 10)
    [report] = result["appeals"]  # a report concerns the game, not a trial: listed as /presude lists it
    assert (report["trial"], report["kind"], report["appellant"]) == (None, "apelacija", "marko")
    assert (report["state"], report["councilor"], report["hearing"]) == ("upheld", "nikola", hearing["id"])


def test_an_nsbk_delay_escalates_from_a_warning_to_ten_percent_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35, item 5 in the console club: a first delay is a warning, the next the same day 30% of a top for 4
    minutes, recorded as sanctions in the club's units, on the member's card and in the statistics."""
    out, db = _scenario("nsbk_kasnjenje.txt", tmp_path, monkeypatch, capsys)
    assert "[dm nikola] Sudija vas je kaznio za partiju 1847301: opomena (kasnjenje; 3 jedinice)." in out
    assert "[dm jelena] " + SR.t("penalty_model.units_needed", name="kasnjenje", unit="minut") in out
    assert "Kazna za nikola: 30% topa (kasnjenje; 4 jedinice; ponavljanje 1)" in out
    assert SR.t("penalty_model.recorded", kind=SR.t("penalty_kind.top_share")) in out
    assert "partija 1847330 (" in out
    assert "Sankcije u jedinicama Kluba: % topa 1, opomena 1" in out
    result = _json(["presude", "1847330", "--db", str(db), "--json"], capsys)
    [trial] = result["trials"]
    assert trial["verdict"]["sanction"] == {"kind": "top_share", "amount": 30, "repeat": 1, "units": 4}
