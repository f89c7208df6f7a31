"""The Arbitar under zovem with a kontra after it (`spec/decisions.md`, "The Arbitar"): the called player plays his
own cards, so he can receive a fall through step 1; step 2 stays skipped under zovem and kontra. The boundary
around it: zovem alone (the called player receives a fall, `test_arbitar.RUINED_ZOVEM`) and a kontra over a
passer without zovem (the kontra giver played both hands: the fall stays, with no step) on the very same cards.

Through `sudija arbitar` on real game logs, the procedure's own `played_own_cards`, and the console club, where a
referee judging petar's fall asks for the Arbitar's analysis."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from test_advice_console import printed
from test_arbitar import PLAYERS, RUINED_ZOVEM, build

from bot.cli import main
from bot.config import Config
from bot.console.adapter import PLATFORM
from bot.console.runner import run_console
from bot.ports import ManualClock
from club import NOW
from rules.arbitar.procedure import arbitrate, called_in, played_own_cards
from rules.gamelog import GameStatus, game_to_doc
from rules.generator import make_game
from rules.paper_hand import DefenceShape, hand_facts
from storage.database import open_database
from storage.games import PreparedGame

# Herc, declarer ana (seat 0). petar (seat 2) said zovem, calling marko (seat 1) in, then gave kontra: the defence
# needed 5 tricks and took 4, so petar fell. marko played his own cards: his 7♣ at trick 5 (7♦ better in 76 of the
# 102 layouts consistent with the bidding, worse in 13; bar 11) lost the fifth trick.
ZOVEM_KONTRA: dict[str, Any] = {
    "deal": [
        "7S 9S TS AS 7H TH KH AH AD AC",
        "8S 8H 9H JH QH 7D 9D 7C 9C KC",
        "JS QS KS TD JD QD KD 8C TC JC",
        "8D QC",
    ],
    "dealer": 2,
    "bids": "3 dalje dalje",
    "contract": "herc",
    "discards": "7S 7H",
    "defense": {1: "passes", 2: "calls"},
    "kontra": (2,),
    "tricks": "AH 8H 8C | KH 9H TD | TH JH TC | QH JS 8D | 7C JC QC | AS 8S QS | AD 9D JD | AC 9C QD | 9S 7D KS | "
    "KD TS KC",
}
# The same cards and play, but petar followed instead of calling: his kontra was given over marko, who passed,
# so petar played marko's cards too.
KONTRA_OVER_A_PASSER = {**ZOVEM_KONTRA, "defense": {1: "passes", 2: "follows"}}
# Zovem and kontra by petar again (herc, ana declares): his own J♣ at trick 9 (A♣ better in the one layout left)
# keeps the fall with him, at step 1.
ZOVEM_KONTRA_OWN_ERROR: dict[str, Any] = {
    "deal": [
        "9S TS 7H 8H 9H KH AH JD KD AD",
        "QS AS TH QH 7D 8D 9D 7C 8C KC",
        "7S 8S JS KS JH TD QD TC JC AC",
        "9C QC",
    ],
    "dealer": 2,
    "bids": "3 dalje dalje",
    "contract": "herc",
    "discards": "7H 8H",
    "defense": {1: "passes", 2: "calls"},
    "kontra": (2,),
    "tricks": "AH TH JH | KH QH 7S | AD 7D TD | KD 8D QD | JD 9D 8S | 9H 7C TC | 9S QS JS | AS KS TS | 8C JC QC | "
    "9C KC AC",
}


def verdict_of(tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: dict[str, Any], fallen: str) -> dict[str, Any]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_to_doc(build(spec))))
    capsys.readouterr()
    assert main(["arbitar", str(path), "--hand", "1", "--fallen", fallen, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_the_shapes_at_the_boundary() -> None:
    zovem_kontra = build(ZOVEM_KONTRA).hands[0]
    over_a_passer = build(KONTRA_OVER_A_PASSER).hands[0]
    zovem = build(RUINED_ZOVEM).hands[0]
    # zovem then kontra scores as kontra (the kontra giver carries the defence), as a kontra over a passer does
    assert hand_facts(zovem_kontra).plain.shape is DefenceShape.KONTRA
    assert hand_facts(over_a_passer).plain.shape is DefenceShape.KONTRA
    assert hand_facts(zovem).plain.shape is DefenceShape.ZOVEM
    assert hand_facts(zovem_kontra).plain.fallen == hand_facts(over_a_passer).plain.fallen == (2,)
    # who played his own cards: under zovem the called player (marko, who passed) did, with or without kontra
    assert called_in(zovem_kontra)
    assert called_in(zovem)
    assert not called_in(over_a_passer)
    assert played_own_cards(zovem_kontra, DefenceShape.KONTRA, 1)
    assert played_own_cards(zovem_kontra, DefenceShape.KONTRA, 2)
    assert played_own_cards(zovem, DefenceShape.ZOVEM, 1)
    assert not played_own_cards(over_a_passer, DefenceShape.KONTRA, 1)
    assert played_own_cards(over_a_passer, DefenceShape.KONTRA, 2)


def test_zovem_then_kontra_moves_the_fall_to_the_called_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = verdict_of(tmp_path, capsys, ZOVEM_KONTRA, "petar")
    assert (out["decision"], out["to"], out["step"]) == ("transfer", "marko", 1)
    e = out["evidence"]
    assert (e["player"], e["trick"], e["card"], e["better_card"]) == ("marko", 5, "7♣", "7♦")
    assert (e["needed"], e["defence_tricks"]) == (5, 4)  # kontra: 5 defence tricks, and the better card made them
    assert (e["layouts"], e["consistent_layouts"], e["bar"]) == (462, 102, 11)
    assert (e["better_card_better"], e["played_card_better"]) == (76, 13)
    assert "not_own_cards" not in e
    assert "rezons_fallen" not in e  # step 2 stays skipped under zovem and kontra
    assert out["reason"].startswith("Greška igrača marko u 5. štihu (7♣ umesto 7♦) upropastila je prolaz igrača petar")


def test_kontra_over_a_passer_without_zovem_keeps_the_fall_on_the_same_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = verdict_of(tmp_path, capsys, KONTRA_OVER_A_PASSER, "petar")
    assert (out["decision"], out["to"], out["step"]) == ("stays", None, None)
    assert (out["evidence"]["not_own_cards"], out["evidence"]["cards_played_by"]) == ("marko", "petar")


def test_zovem_then_kontra_judges_the_fallen_players_own_cards_at_step_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = verdict_of(tmp_path, capsys, ZOVEM_KONTRA_OWN_ERROR, "petar")
    assert (out["decision"], out["to"], out["step"]) == ("stays", None, 1)
    e = out["evidence"]
    assert (e["player"], e["trick"], e["card"], e["better_card"]) == ("petar", 9, "J♣", "A♣")
    assert "not_own_cards" not in e
    # without the zovem the same cards were petar's to play for marko: no step, as before
    passer = verdict_of(tmp_path, capsys, {**ZOVEM_KONTRA_OWN_ERROR, "defense": {1: "passes", 2: "follows"}}, "petar")
    assert (passer["decision"], passer["step"]) == ("stays", None)
    assert "not_own_cards" in passer["evidence"]


def test_zovem_alone_still_moves_the_fall_to_the_called_player() -> None:
    game = build(RUINED_ZOVEM)
    verdict = arbitrate(game, 1, 2)
    assert (verdict.decision, verdict.to, verdict.step) == ("transfer", 1, 1)
    assert verdict.evidence["needed"] == 4


GAME = 301


async def test_the_console_referee_is_advised_the_fall_moves_to_the_called_player(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """petar calls a referee on the hand; the referee's Analiza ruke shows the Arbitar moving the fall to marko."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "club.db"
    game = make_game([build(ZOVEM_KONTRA).hands[0]], number=GAME, players=PLAYERS, status=GameStatus.IN_PROGRESS)
    db = await open_database(path)
    try:
        await db.games.store([PreparedGame.of(game)], NOW)
        for nick in ("ana", "marko", "petar", "sudija1"):
            member = await db.members.link(PLATFORM, nick, nick, NOW)
            if nick == "sudija1":
                await db.members.set_role(member.id, "referee", True, None, NOW)
            await db.members.set_presence(member.id, True, NOW)
    finally:
        await db.close()
    script = (
        f"@petar /sudija {GAME}\n@sudija1 !press Sudi\n@sudija1 !press Prikaz ruke\n@sudija1 !press Analiza ruke 1\n"
    )
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(Config(), str(path), False, io.StringIO(script), out, err, clock=ManualClock(NOW))
    assert (status, err.getvalue()) == (0, ""), err.getvalue()
    advice = [m for m in printed(out.getvalue()) if m.tag == "dm sudija1" and m.lines[0].startswith("Savet Arbitra")]
    assert [m.lines[0].split(" — ")[0] for m in advice] == [f"Savet Arbitra, partija {GAME}, ruka 1"]
    assert any(line.startswith("  Arbitar: pad prelazi na marko") for line in advice[0].lines), advice[0].text
