"""The Arbitar's evidence as people read it (rules.arbitar.evidence): every fact the procedure writes is a sentence
in every language, text and picture; no key, no True/False, no Latin word in Serbian Cyrillic or Russian.

tests/golden/arbitar_evidence.txt holds a step-1 and a step-2 verdict in all four languages as `sudija arbitar`
prints them (SUDIJA_UPDATE_GOLDEN=1 rewrites it for review); SUDIJA_EVIDENCE_DIR=DIR also writes their pictures
there (arbitar-step1.sr.png …) for a person to look at."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from language_check import latin_words
from test_arbitar import (
    BELOW_BAR,
    FALLEN_ERRED,
    KONTRA,
    RUINED_BOTH,
    RUINED_ZOVEM,
    STEP2_NOT_OBVIOUS,
    STEP2_TRANSFER,
    TOO_SMALL,
    ZOVEM,
    build,
)

from bot.cli import main
from bot.desk.advice_text import arbitar_lines
from bot.i18n import LANGUAGES
from bot.messages import Catalogue
from bot.pictures.arbitar import render_verdict
from rules.arbitar.evidence import FACTS, evidence_lines, unknown_facts
from rules.arbitar.procedure import arbitrate
from rules.gamelog import Game, game_to_doc
from rules.generator import generate_game
from rules.paper_hand import HandCase, hand_facts

GOLDEN = Path(__file__).parent / "golden" / "arbitar_evidence.txt"
RAW = re.compile(r"\b\w+_\w+\b|\bTrue\b|\bFalse\b|\bNone\b")


def falls(game: Game) -> list[tuple[int, int]]:
    """(hand, seat) of every defender who fell in a played hand of `game`."""
    found = []
    for hand in game.hands:
        score = hand_facts(hand).plain
        if score.case is HandCase.PLAYED and score.declarer is not None:
            found += [(hand.n, seat) for seat in score.fallen if seat != score.declarer]
    return found


def cases() -> list[tuple[Game, int, int]]:
    """Every shape the Arbitar tests build, and the falls of a few generated games."""
    built = [build(spec) for spec in (RUINED_BOTH, RUINED_ZOVEM, FALLEN_ERRED, TOO_SMALL, BELOW_BAR)]
    built += [build(spec) for spec in (STEP2_TRANSFER, STEP2_NOT_OBVIOUS, KONTRA, ZOVEM)]
    built += [generate_game(random.Random(seed), 9000 + seed, hands=6) for seed in (1, 2)]
    return [(game, hand, seat) for game in built for hand, seat in falls(game)]


def test_every_fact_the_procedure_writes_is_a_sentence_in_every_language() -> None:
    seen: set[str] = set()
    for game, hand, seat in cases():
        verdict = arbitrate(game, hand, seat)
        assert unknown_facts(verdict.evidence) == [], (game.number, hand)
        seen |= set(verdict.evidence)
        for language in LANGUAGES:
            lines = arbitar_lines(game, hand, seat, verdict, Catalogue(language))
            for line in lines:
                assert not RAW.search(line), (language, line)
                assert latin_words(language, "", line, game.players) == [], line
    # the cases reach the facts of both steps and of each card the procedure judges
    assert {"defence_tricks", "needed", "ruining_candidates", "rezons_fallen", "other_obviously_bad"} <= seen
    assert {"better_card", "checked_better_card", "not_own_cards"} <= seen
    assert seen <= FACTS


def test_a_fact_is_one_sentence_with_its_counts_and_no_key() -> None:
    t = Catalogue("sr").t
    evidence = {"defence_tricks": 3, "needed": 4, "ruining_candidates": 1, "rezons_fallen": 2.0, "aces_fallen": 1}
    evidence |= {"rezons_other": 1.5, "aces_other": 0, "fallen_meets_rules": True, "other_obviously_bad": False}
    assert evidence_lines(evidence, t, "marko", "petar") == [
        "Odbrana je nosila 3 štiha; za prolaz odbrane potrebno je bar 4.",
        "Arbitar je proverio 1 kartu drugog branioca koja je mogla da upropasti prolaz.",
        "Rezoni igrača marko: 2, asova: 1 — praćenje ispunjava pravila.",
        "Rezoni igrača petar: 1,5, asova: 0 — praćenje nije očigledno loše.",
    ]
    card = {"player": "petar", "trick": 6, "card": "Q♠", "better_card": "Q♦", "bar": 3}
    card |= {"declarer_tricks_with_card": 3, "declarer_tricks_with_better": 2, "layouts": 40}
    card |= {"consistent_layouts": 30, "better_card_better": 9, "played_card_better": 1, "compared_layouts": 30}
    every = {prefix + key: value for prefix in ("", "other_", "lead_", "checked_") for key, value in card.items()}
    for language in LANGUAGES:
        lines = evidence_lines(every, Catalogue(language).t, "marko", "petar")
        assert len(lines) == 4 * 4  # per card: whose card and the better one, the tricks, the layouts, the bar
        assert not any(RAW.search(line) for line in lines)
    assert evidence_lines(every, t, "marko", "petar")[8] == (
        "Polaz igrača petar u 6. štihu: Q♠, a bolja je bila Q♦; polaz procenjuje sudija."
    )
    assert evidence_lines({"defence_tricks": 9, "needed": 1, "betl": True}, Catalogue("en").t, "a", "b") == [
        "Betl: the defence took 9 tricks; a betl falls as soon as the declarer takes one."
    ]
    assert unknown_facts({"defence_tricks": 1, "ruining_candidates_2": 3}) == ["ruining_candidates_2"]


def step_verdicts() -> list[tuple[str, Game, int, int]]:
    """A step-1 verdict (petar's card ruined marko's pass) and a step-2 one (petar followed without rezons)."""
    return [("step1", build(RUINED_BOTH), 1, 1), ("step2", build(STEP2_TRANSFER), 1, 1)]


def test_a_step_1_and_a_step_2_verdict_in_four_languages_as_text_and_picture(tmp_path: Path) -> None:
    out = Path(os.environ.get("SUDIJA_EVIDENCE_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    blocks: list[str] = []
    for name, game, hand, seat in step_verdicts():
        verdict = arbitrate(game, hand, seat)
        assert verdict.step == int(name[-1])
        for language in LANGUAGES:
            lines = arbitar_lines(game, hand, seat, verdict, Catalogue(language))
            blocks.append(f"## {name} [{language}]\n" + "\n".join(lines))
            for line in lines:
                assert not RAW.search(line), line
                assert latin_words(language, "", line, game.players) == [], line
            canvas = render_verdict(game, hand, seat, verdict, language)
            assert all(p.fits for p in canvas.placed), [p.text for p in canvas.placed if not p.fits]
            assert [p.text for p in canvas.placed if p.text.endswith("…")] == []  # nothing cut off
            shown = " ".join(p.text for p in canvas.placed)
            assert not RAW.search(shown), shown
            facts = evidence_lines(verdict.evidence, Catalogue(language).t, "marko", "petar")
            assert facts[0].split()[0] in shown  # the sentences are on the picture, not keys
            (out / f"arbitar-{name}.{language}.png").write_bytes(canvas.png())
    text = "\n\n".join(blocks) + "\n"
    if os.environ.get("SUDIJA_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_arbitar_cli_prints_the_evidence_as_sentences(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "game.json"
    log.write_text(json.dumps(game_to_doc(build(STEP2_TRANSFER))))
    assert main(["arbitar", str(log), "--hand", "1", "--fallen", "marko", "--lang", language]) == 0
    printed = capsys.readouterr().out
    game = build(STEP2_TRANSFER)
    assert printed.splitlines() == arbitar_lines(game, 1, 1, arbitrate(game, 1, 1), Catalogue(language))
    assert not RAW.search(printed)
