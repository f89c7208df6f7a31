"""The referee's second opinion through the desk (bot/desk/advice.py): the private briefing on a game's earlier
trials and corrections, the Arbitar's analysis as advice (identical to `sudija arbitar` on the same log), the
difference in a fall draft, who may see it, and the desk answering others while an analysis runs.

Game 300 (in progress, ana declares both hands): hand 1 is `RUINED_BOTH` (marko fell; petar's Q♠ at trick 8
ruined his pass: the Arbitar transfers), hand 2 `STEP2_NOT_OBVIOUS` (marko fell; petar followed on 2 rezons:
"nije očigledna greška")."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from test_arbitar import PLAYERS, RUINED_BOTH, STEP2_NOT_OBVIOUS
from test_desk_trials import members, open_trial

from bot.cli import main
from bot.desk.advice import ADVICE_REF, defender_falls
from bot.desk.advice_text import FallAnalysis, arbitar_lines, render_advice
from bot.messages import Catalogue
from club import Club
from rules.arbitar.verdict import NOT_OBVIOUS, STAYS, ArbitarVerdict
from rules.gamelog import Game, GameStatus, game_to_doc
from rules.generator import make_game, make_hand
from rules.verdicts import BulaChange, Draft, FallTransfer, NoVerdict, Penalty
from storage.games import PreparedGame

GAME = 300
TITLE = "Savet Arbitra"


def _hand(spec: dict[str, Any]) -> Any:
    return make_hand(
        spec["deal"],
        dealer=spec["dealer"],
        bids=spec["bids"],
        contract=spec["contract"],
        discards=spec.get("discards"),
        defense=spec["defense"],
        kontra=spec.get("kontra", ()),
        tricks=spec["tricks"],
        players=PLAYERS,
    )


def fall_game(number: int = GAME) -> Game:
    return make_game(
        [_hand(RUINED_BOTH), _hand(STEP2_NOT_OBVIOUS)], number=number, players=PLAYERS, status=GameStatus.IN_PROGRESS
    )


async def store_fall_game(club: Club, number: int = GAME) -> Game:
    game = fall_game(number)
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    return game


def cli_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], game: Game, hand: int, fallen: str) -> list[str]:
    """What `sudija arbitar` prints for the same log."""
    path = tmp_path / f"game-{game.number}.json"
    path.write_text(json.dumps(game_to_doc(game)), encoding="utf-8")
    capsys.readouterr()
    assert main(["arbitar", str(path), "--hand", str(hand), "--fallen", fallen]) == 0
    return capsys.readouterr().out.splitlines()


def contains_block(lines: list[str], block: list[str]) -> bool:
    return any(lines[i : i + len(block)] == block for i in range(len(lines) - len(block) + 1))


def nobody_else_saw(club: Club, *phrases: str, referee: str = "sudija1") -> None:
    """No message outside the referee's private chat carries any of the phrases (trial spaces, tables, players)."""
    for sent in club.chat.sent:
        if sent.where != f"dm:{referee}":
            assert not any(p in sent.text for p in phrases), (sent.where, sent.text)


async def test_the_advice_is_the_arbitars_own_output_for_a_transfer_and_a_not_obvious_hand(
    club: Club, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await members(club)
    game = await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")

    transfer = await club.desk.advisor.advice(referee, 1)
    assert transfer.ok, transfer.text
    lines = transfer.text.splitlines()
    assert lines[0].startswith(f"{TITLE}, partija {GAME}, ruka 1 — samo savet")
    assert contains_block(lines, cli_text(tmp_path, capsys, game, 1, "marko"))
    assert (
        "  Arbitar: pad prelazi na petar — Greška igrača petar u 8. štihu (Q♠ umesto Q♦) upropastila je "
        "prolaz igrača marko; u kartama igrača marko greške nema." in lines
    )
    error = next(line for line in lines if line.startswith("    petar: u 8. štihu Q♠ umesto Q♦"))
    assert "saglasnih sa licitacijom" in error
    assert "prag" in error
    assert "    marko: Arbitar nije našao grešku u kartama koja odlučuje." in lines
    assert (
        "  Rezoni (korak 2): marko 0.5 (asova 1) — ne ispunjava pravila; petar 1.5 (asova 2) — nije očigledno "
        "loše praćenje." in lines
    )

    stays = await club.desk.advisor.advice(referee, 2)
    assert stays.ok, stays.text
    lines = stays.text.splitlines()
    assert contains_block(lines, cli_text(tmp_path, capsys, game, 2, "marko"))
    assert "  Arbitar: pad ostaje — nije očigledna greška" in lines
    assert (
        "  Rezoni (korak 2): marko 2 (asova 1) — ispunjava pravila; petar 2 (asova 1) — nije očigledno loše "
        "praćenje." in lines
    )
    assert "    petar: Arbitar nije našao grešku u kartama koja odlučuje." in lines
    # advice only: nothing recorded, nothing said anywhere but to him
    trial = await club.db.trials.open_for_game(GAME)
    assert trial is not None
    assert trial.draft is None
    assert await club.db.paper_changes.for_game(GAME) == []
    nobody_else_saw(club, TITLE, "Arbitar: pad")


async def test_players_and_other_referees_cannot_ask_and_bad_hands_are_refused(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    trial_id = await open_trial(club, GAME, caller="marko")
    for nick in ("marko", "ana", "sudija2"):
        refused = await club.desk.advisor.advice(await club.get(nick), 1)
        assert not refused.ok
        assert TITLE not in refused.text
        pressed = await club.desk.press(await club.get(nick), "advice", trial_id * ADVICE_REF + 1)
        assert not pressed.ok
        assert TITLE not in pressed.text
    referee = await club.get("sudija1")
    assert (await club.desk.advisor.advice(referee, 7)).text == f"Partija {GAME} nema ruku 7."
    assert not (await club.desk.press(referee, "advice", trial_id * ADVICE_REF)).ok  # no hand 0
    nobody_else_saw(club, TITLE)


async def test_a_hand_without_a_defenders_fall_has_nothing_to_analyse(club: Club) -> None:
    await members(club)
    game = await club.game(310, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=6)
    quiet = next(h.n for h in game.hands if h.completed and not defender_falls(h))
    await open_trial(club, 310, caller="marko")
    refused = await club.desk.advisor.advice(await club.get("sudija1"), quiet)
    assert not refused.ok
    assert "nije pao nijedan odbrambeni igrač" in refused.text


async def test_buttons_beside_prikaz_ruke_give_the_same_advice(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    trial_id = await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")
    hands = await club.desk.press(referee, "hands", trial_id)
    assert hands.ok
    assert "Ruka 1" in hands.text
    assert [(b.label, b.action, b.ref) for b in hands.buttons] == [
        ("Analiza ruke 1", "advice", trial_id * ADVICE_REF + 1),
        ("Analiza ruke 2", "advice", trial_id * ADVICE_REF + 2),
    ]
    pressed = await club.desk.press(referee, "advice", hands.buttons[1].ref)
    assert pressed.text == (await club.desk.advisor.advice(referee, 2)).text
    # a button of an earlier trial does not analyse the referee's new trial's game
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "bez osnova"))).ok
    assert (await club.desk.finish(referee)).ok
    await club.game(320, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=3)
    await open_trial(club, 320, caller="marko")
    stale = await club.desk.press(referee, "advice", trial_id * ADVICE_REF + 1)
    assert not stale.ok
    assert TITLE not in stale.text


async def test_a_fall_draft_shows_where_the_arbitar_differs_and_is_saved_as_drafted(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")
    note = "Savet Arbitra drugačiji je od nacrta"

    moved = await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "pratio bez rezona"))
    assert moved.ok, moved.text
    assert moved.text.splitlines()[-2:] == [
        note + " (nacrt ostaje kakav ste ga sastavili):",
        "Arbitar: pad ostaje — nije očigledna greška",
    ]
    trial = await club.db.trials.open_for_game(GAME)
    assert trial is not None
    assert trial.draft is not None
    assert trial.draft["culprit"] == "petar"

    eased = await club.desk.draft(referee, Draft(BulaChange({"marko": -2, "petar": 2}, hand=2), ""))
    assert eased.ok
    assert eased.text.splitlines()[-1] == "Arbitar: pad ostaje — nije očigledna greška"
    insult = await club.desk.draft(referee, Draft(BulaChange({"ana": 4}, hand=2), "vređanje"))
    assert insult.ok
    assert note not in insult.text

    agreed = await club.desk.draft(referee, Draft(FallTransfer(1, "petar", late_justified=True), "Q♠"))
    assert agreed.ok
    assert note not in agreed.text
    kept = await club.desk.draft(referee, Draft(BulaChange({"ana": 2}, hand=1, late_justified=True), ""))
    assert kept.ok
    assert kept.text.splitlines()[-1].startswith("Arbitar: pad prelazi na petar — Greška igrača petar")
    assert (await club.desk.finish(referee)).ok
    [change] = await club.db.paper_changes.for_game(GAME)
    assert change.bule == (2, 0, 0)  # the referee's verdict stands whatever the advice says
    nobody_else_saw(club, "Arbitar: pad")


async def test_the_briefing_warns_of_a_judged_hand_to_the_referee_and_the_councilor_alone(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    first = await open_trial(club, GAME, caller="marko")
    assert not [s for s in club.chat.to("dm:sudija1") if "Pre presude" in s.text]  # nothing to review yet
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "pratio sa jednim rezonom"))).ok
    assert (await club.desk.finish(referee)).ok

    second = await open_trial(club, GAME, caller="ana", referee="sudija2")
    [brief] = [s for s in club.chat.to("dm:sudija2") if "Pre presude" in s.text]
    assert brief.kind == "tell"
    lines = brief.text.splitlines()
    assert lines[0] == f"Pre presude pregledajte šta partija {GAME} već nosi (vidite samo vi):"
    warning = next(line for line in lines if line.startswith("⚠ ruka 2 je već presuđena u suđenju"))
    assert warning.startswith(f"⚠ ruka 2 je već presuđena u suđenju {first}: ")
    assert "petar" in warning
    assert "pratio sa jednim rezonom" in warning
    assert any("ponovljeno suđenje nije moguće" in line for line in lines)
    assert any(line.startswith(f"  suđenje {first} (tokom partije") for line in lines)

    club.chat.clear()
    assert (await club.desk.trials.call_councilor(await club.get("sudija2"), second)).ok
    ccall = (await club.db.calls.councilor_calls_for(second))[0]
    assert (await club.desk.trials.join_as_councilor(await club.get("vecnik"), ccall.id)).ok
    [told] = [s for s in club.chat.to("dm:vecnik") if "Pre presude" in s.text]
    assert f"⚠ ruka 2 je već presuđena u suđenju {first}" in told.text
    for sent in club.chat.sent:
        if sent.where not in ("dm:sudija2", "dm:vecnik"):
            assert "već presuđena" not in sent.text, sent
            assert "Pre presude" not in sent.text, sent


async def test_the_briefing_warns_of_a_players_ispravka(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    marko, ana, petar = [await club.get(n) for n in ("marko", "ana", "petar")]
    assert (await club.desk.corrections.propose_ispravka(marko, 1, GAME)).ok
    assert (await club.desk.corrections.answer(ana, None, True)).ok
    assert (await club.desk.corrections.answer(petar, None, True)).ok
    assert [c.kind for c in await club.db.paper_changes.rows(GAME)] == ["ispravka"]
    await open_trial(club, GAME, caller="petar")
    [brief] = [s for s in club.chat.to("dm:sudija1") if "Pre presude" in s.text]
    assert "⚠ ruka 1 nosi ispravku igrača marko: upis kao da je igra prošla" in brief.text.splitlines()
    assert "Ranija suđenja" not in brief.text
    nobody_else_saw(club, "Pre presude", "nosi ispravku")


async def test_the_desk_answers_others_while_an_analysis_runs(club: Club) -> None:
    await members(club)
    await store_fall_game(club)
    await club.game(330, ("jelena", "ana", "petar"))
    await open_trial(club, GAME, caller="marko")
    loop = asyncio.get_running_loop()
    started = asyncio.Event()
    release = threading.Event()
    asked: list[tuple[int, int, int]] = []

    def slow(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
        asked.append((game.number, hand, fallen))
        loop.call_soon_threadsafe(started.set)
        assert release.wait(timeout=30), "the test never released the analysis"
        return ArbitarVerdict(STAYS, None, 2, NOT_OBVIOUS, {"rezons_other": 2.0})

    club.desk.advisor.advice_analyser = slow  # type: ignore[attr-defined]
    referee = await club.get("sudija1")
    analysis = asyncio.create_task(club.desk.advisor.advice(referee, 2))
    twice = asyncio.create_task(
        club.desk.advisor.advice(referee, 2)
    )  # the same fall asked again meanwhile: one analysis
    try:
        await asyncio.wait_for(started.wait(), timeout=30)
        called = await club.desk.calls.call(await club.get("jelena"), 330)  # /sudija from another member
        assert called.ok
        assert "Pozvan je sudija za partiju 330" in called.text
        hands = await club.desk.show_hands(referee)  # and the referee's own controls answer too
        assert hands.ok
        assert not analysis.done()
    finally:
        release.set()
    advice = await analysis
    assert (await twice).text == advice.text
    assert advice.ok
    assert "Arbitar: pad ostaje — nije očigledna greška" in advice.text
    # asked once: the draft's difference and a second ask reuse the analysis
    assert (await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "bez rezona"))).text.endswith(
        "Arbitar: pad ostaje — nije očigledna greška"
    )
    assert (await club.desk.advisor.advice(referee, 2)).text == advice.text
    assert asked == [(GAME, 2, 1)]


async def test_promeni_briefs_the_referee_on_the_new_games_earlier_verdict(club: Club) -> None:
    await members(club)
    await club.game(340)
    await club.game(341)
    first = await open_trial(club, 340, caller="ana")
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=2), "namerno napuštanje"))).ok
    assert (await club.desk.finish(referee)).ok
    await open_trial(club, 341, caller="ana", referee="sudija2")
    assert not [s for s in club.chat.to("dm:sudija2") if "Pre presude" in s.text]  # game 341 carries nothing
    moved = await club.desk.trials.change_game(await club.get("sudija2"), 340)
    assert moved.ok, moved.text
    [brief] = [s for s in club.chat.to("dm:sudija2") if "Pre presude" in s.text]
    assert any(
        line.startswith(f"⚠ partija je već presuđena u suđenju {first}: Kazna za petar")
        and "namerno napuštanje" in line
        for line in brief.text.splitlines()
    )
    nobody_else_saw(club, "Pre presude", "već presuđena", referee="sudija2")


async def test_a_failing_or_missing_arbitar_says_so_and_is_asked_again(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    await members(club)
    await store_fall_game(club)
    await open_trial(club, GAME, caller="marko")
    referee = await club.get("sudija1")
    calls: list[int] = []

    def broken(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
        calls.append(hand)
        raise RuntimeError("solver crashed")

    club.desk.advisor.advice_analyser = broken  # type: ignore[attr-defined]
    for _ in range(2):
        failed = await club.desk.advisor.advice(referee, 1)
        assert failed.ok
        assert "  Arbitar nije mogao da analizira pad igrača marko." in failed.text.splitlines()
    assert calls == [1, 1]  # a failure is not kept
    drafted = await club.desk.draft(referee, Draft(FallTransfer(2, "petar"), "bez rezona"))
    assert drafted.ok
    assert "Savet Arbitra" not in drafted.text

    club.desk.advisor.advice_analyser = None  # type: ignore[attr-defined]
    monkeypatch.setattr("bot.desk.advice._procedure", lambda: None)
    missing = await club.desk.advisor.advice(referee, 1)
    assert not missing.ok
    assert missing.text == "Arbitar nije dostupan na ovom serveru."


def test_every_card_the_arbitar_names_is_shown_with_its_counts() -> None:
    """The decisive card, the other defender's error when the fallen player erred too, the fallen player's polaz
    and a card checked and cleared: each its line; a step that decided nothing as sudija arbitar shows it."""

    def card(player: str, trick: int) -> dict[str, Any]:
        return {
            "player": player,
            "trick": trick,
            "card": "Q♠",
            "better_card": "Q♦",
            "declarer_tricks_with_card": 3,
            "declarer_tricks_with_better": 2,
            "layouts": 40,
            "consistent_layouts": 30,
            "better_card_better": 9,
            "played_card_better": 1,
            "compared_layouts": 30,
            "bar": 3,
        }

    evidence: dict[str, Any] = {"defence_tricks": 3}
    for prefix, player, trick in (
        ("", "marko", 4),
        ("other_", "petar", 8),
        ("lead_", "marko", 1),
        ("checked_", "petar", 6),
    ):
        evidence.update({prefix + k: v for k, v in card(player, trick).items()})
    game = fall_game()
    verdict = ArbitarVerdict(STAYS, None, None, NOT_OBVIOUS, evidence)
    lines = render_advice(game, 1, 0, [FallAnalysis(1, verdict)], Catalogue("sr")).splitlines()
    assert [line.split(" — ")[0] for line in lines if line.startswith("    ")] == [
        "    marko: u 4. štihu Q♠ umesto Q♦",
        "    petar: u 8. štihu Q♠ umesto Q♦",
        "    marko: polaz u 1. štihu Q♠ umesto Q♦",
        "    petar: Q♠ u 6. štihu (umesto Q♦) nije greška po pravilu 10%",
    ]
    assert "  Rezoni (korak 2): ne gledaju se — nisu pratila oba protivnika bez kontre i bez zovem." in lines
    head = arbitar_lines(game, 1, 1, verdict, Catalogue("sr"))[0]
    assert head == f"Arbitar, partija {GAME}, ruka 1: pad ostaje igraču marko (korak —)."
    assert contains_block(lines, arbitar_lines(game, 1, 1, verdict, Catalogue("sr")))
