"""The paper over whole games: refe (written, limit, under the hat, double play, marked played), game end, the
write-off (worked examples and ties), results, the cross-check and the rendering. Every hand is a real hand."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from test_paper import ANA, BOJAN, CALLS, CECA, FOLLOWS, PASSES, C, build_game, build_hand, not_followed

from bot.messages import Catalogue
from rules.gamelog import Game, GameStatus, Hand, ScoreEntry
from rules.paper import ChangeKind, Paper, PaperChange, compute_paper, cross_check, write_off
from rules.paper_changes import check_change
from rules.paper_hand import Entry, HandCase
from rules.paper_render import discrepancy_lines, paper_json, paper_text

SR_T, EN_T = Catalogue("sr").t, Catalogue("en").t  # the words the edge passes the paper


def _nobody(contracts: list[tuple[int, str, bool]], start: int = 1) -> list[Hand]:
    return [not_followed(start + i, seat, C(strain, igra)) for i, (seat, strain, igra) in enumerate(contracts)]


# ------------------------------------------------------------------------------------------------------ refe


def test_refe_limit_counts_rounds() -> None:
    game = build_game([build_hand(1), build_hand(2), build_hand(3)], refe_limit=2)
    paper = compute_paper(game)
    assert [h.score.refe_written for h in paper.hands if h.score] == [True, True, False]
    assert paper.refe_rounds == 2
    assert [p.refe_open for p in paper.players] == [2, 2, 2]


def test_no_refe_under_the_hat() -> None:
    # size 10: ana's igra sans nobody follows takes her to −6 (under the hat); the all-pass hand writes nothing.
    game = build_game([*_nobody([(ANA, "sans", True)]), build_hand(2)], size=10, refe_limit=3)
    paper = compute_paper(game)
    assert paper.players[ANA].bule == -6
    assert paper.players[ANA].under_hat
    second = paper.hands[1].score
    assert second is not None
    assert second.case is HandCase.ALL_PASS
    assert not second.refe_written
    assert paper.refe_rounds == 0


def test_declarer_under_refe_plays_double_and_marks_one_played() -> None:
    hand = build_hand(2, ANA, C("herc"), tricks=lambda c, f: c[ANA] >= 6)
    paper = compute_paper(build_game([build_hand(1), hand]))
    score = paper.hands[1].score
    assert score is not None
    assert score.refe_doubled
    assert score.value == 16
    assert score.entries[ANA] == Entry(bule=-16)
    assert [(p.refe_open, p.refe_played) for p in paper.players] == [(0, 1), (1, 0), (1, 0)]


def test_defender_never_uses_a_refe() -> None:
    hand = build_hand(2, ANA, C("karo"), tricks=lambda c, f: c[ANA] >= 6)
    paper = compute_paper(build_game([build_hand(1), hand]))
    assert paper.players[BOJAN].refe_open == 1
    assert paper.players[CECA].refe_open == 1


def test_refe_marked_played_when_nobody_follows() -> None:
    paper = compute_paper(build_game([build_hand(1), not_followed(2, CECA, C("sans"))]))
    score = paper.hands[1].score
    assert score is not None
    assert score.case is HandCase.NOBODY_FOLLOWS
    assert score.refe_played
    assert score.entries[CECA] == Entry(bule=-28)
    assert paper.players[CECA].refe_open == 0
    assert paper.players[CECA].refe_played == 1


def test_bid_pik_without_kontra_no_refe_left_passes_double_and_marks_refe() -> None:
    pik = build_hand(2, BOJAN, C("pik"), defense={CECA: FOLLOWS, ANA: PASSES})
    paper = compute_paper(build_game([build_hand(1), pik], refe_limit=1))
    score = paper.hands[1].score
    assert score is not None
    assert not score.refe_written
    assert score.refe_played
    assert score.entries[BOJAN] == Entry(bule=-8)
    assert paper.players[BOJAN].refe_played == 1
    assert paper.players[BOJAN].refe_open == 0


def test_bid_pik_without_kontra_writing_a_refe_does_not_use_the_declarers() -> None:
    pik = build_hand(2, BOJAN, C("pik"), defense={CECA: FOLLOWS, ANA: PASSES})
    paper = compute_paper(build_game([build_hand(1), pik], refe_limit=2))
    score = paper.hands[1].score
    assert score is not None
    assert score.refe_written
    assert not score.refe_played
    assert [p.refe_open for p in paper.players] == [2, 2, 2]


# ------------------------------------------------------------------------------------- game end and results


def results_game() -> Game:
    """Ana ends with 12 bule, having written 200 supe and had 120 written against her (result −40)."""
    hands = [
        build_hand(1, ANA, C("betl"), tricks=lambda c, f: c[ANA] == 1),  # bojan and ceca write 60 each
        build_hand(2, BOJAN, C("betl"), tricks=lambda c, f: c[BOJAN] == 1),  # ana writes 60
        build_hand(3, CECA, C("betl"), tricks=lambda c, f: c[CECA] == 1),  # ana writes 60
        build_hand(4, BOJAN, C("tref"), tricks=(4, 6, 0)),  # ana writes 40
        build_hand(5, CECA, C("tref"), tricks=(4, 0, 6)),  # ana writes 40
        *_nobody(
            [
                (ANA, "karo", False),
                (ANA, "karo", False),
                (ANA, "herc", False),
                (BOJAN, "sans", False),
                (BOJAN, "sans", False),
                (CECA, "sans", False),
                (CECA, "sans", False),
            ],
            start=6,
        ),
    ]
    return build_game(hands, size=20, refe_limit=0)


def test_result_worked_example() -> None:
    paper = compute_paper(results_game())
    assert paper.ended
    assert paper.end_hand == 12
    assert paper.write_off == (0, 0, 0)
    ana = paper.players[ANA]
    assert ana.bule == 12
    assert ana.supe_left + ana.supe_right == 200
    against = paper.players[BOJAN].supe_left + paper.players[CECA].supe_right
    assert against == 120
    assert ana.result == -40
    assert [p.result for p in paper.players] == [-40, 20, 20]


def test_no_result_before_the_end() -> None:
    game = results_game()
    shorter = dataclasses.replace(game, hands=game.hands[:11], status=GameStatus.IN_PROGRESS, ended_at=None)
    paper = compute_paper(shorter)
    assert not paper.ended
    assert all(p.result is None for p in paper.players)
    assert paper_json(shorter, paper)["players"][0]["result"] is None


def test_hands_after_the_end_are_not_scored() -> None:
    game = results_game()
    extra = not_followed(13, ANA, C("sans"))
    longer = dataclasses.replace(game, hands=(*game.hands, extra))
    paper = compute_paper(longer)
    assert paper.end_hand == 12
    assert paper.hands[12].score is None
    assert paper.hands[12].unscored == "after_end"
    assert [p.result for p in paper.players] == [-40, 20, 20]


def test_overshooting_end_is_levelled_best_raised_first_ties_by_seat() -> None:
    # size 10: ana −4, bojan −4, then ceca's igra sans takes her to −6: the sum is −14.
    game = build_game(
        _nobody([(ANA, "sans", False), (BOJAN, "sans", False), (CECA, "sans", True)]), size=10, refe_limit=0
    )
    paper = compute_paper(game)
    assert paper.ended
    assert paper.bule_sum == -14
    assert paper.write_off == (-5, -4, -5)
    assert [p.bule for p in paper.players] == [1, 0, -1]
    assert [p.result for p in paper.players] == [-10, 0, 10]


def _settled(contracts: list[tuple[int, str, bool]]) -> tuple[Game, Paper]:
    game = build_game(_nobody(contracts), size=100, refe_limit=0, status=GameStatus.INTERRUPTED)
    assert game.ended_at is not None
    otpis = PaperChange(
        ChangeKind.OTPIS,
        len(game.hands),
        "sudija marko",
        game.ended_at + timedelta(hours=2),
        "bojan napustio partiju",
        trial=7,
    )
    check_change(game, [], otpis)
    return game, compute_paper(game, [otpis])


def test_write_off_20_30_40() -> None:
    _, paper = _settled([(ANA, "sans", True)] * 5 + [(BOJAN, "sans", False)] * 5 + [(CECA, "tref", True)] * 5)
    assert paper.bule_sum == 90
    assert paper.settled
    assert paper.ended
    assert paper.write_off == (30, 30, 30)
    assert [p.bule for p in paper.players] == [-10, 0, 10]
    assert [p.result for p in paper.players] == [100, 0, -100]
    last = paper.hands[-1].changes[0]
    assert last.change.kind is ChangeKind.OTPIS
    assert [e.bule for e in last.entries] == [-30, -30, -30]


def test_write_off_24_34_28_worst_first() -> None:
    _, paper = _settled(
        [(ANA, "sans", True)] * 4
        + [(ANA, "tref", True)]
        + [(BOJAN, "sans", True)] * 3
        + [(BOJAN, "tref", False), (BOJAN, "herc", False)]
        + [(CECA, "sans", True)] * 4
        + [(CECA, "herc", False)]
    )
    assert paper.bule_sum == 86
    assert paper.write_off == (28, 29, 29)
    assert [p.bule for p in paper.players] == [-4, 5, -1]


def test_write_off_ties_by_seat() -> None:
    assert write_off((10, 10, 2)) == (8, 7, 7)
    assert write_off((2, 10, 10)) == (7, 8, 7)
    assert write_off((-2, -2, 0)) == (-2, -1, -1)
    assert write_off((4, 4, 4)) == (4, 4, 4)


# ------------------------------------------------------------------------------------------- cross-check


def test_cross_check_reports_differences_only() -> None:
    game = build_game([build_hand(1, ANA, C("tref"), tricks=(6, 2, 2))], refe_limit=0, status=GameStatus.INTERRUPTED)
    right = {ANA: ScoreEntry(bule=-10), BOJAN: ScoreEntry(supe_left=20), CECA: ScoreEntry(supe_right=20)}
    good = dataclasses.replace(game, hands=(dataclasses.replace(game.hands[0], score=right),))
    assert cross_check(good) == []
    wrong = dict(right)
    wrong[BOJAN] = ScoreEntry(supe_right=20)
    bad = dataclasses.replace(game, hands=(dataclasses.replace(game.hands[0], score=wrong),))
    found = cross_check(bad)
    assert [(d.hand, d.player, d.field, d.recorded, d.computed) for d in found] == [
        (1, "bojan", "supe_left", 0, 20),
        (1, "bojan", "supe_right", 20, 0),
    ]
    lines = discrepancy_lines(found, SR_T)
    assert lines[0] == "partija 1847258, ruka 1, bojan: leve supe upisano 0, izračunato 20"
    assert discrepancy_lines(found, EN_T)[1] == "game 1847258, hand 1, bojan: right supe recorded 20, computed 0"


def test_cross_check_finished_game_without_end() -> None:
    game = build_game([build_hand(1, ANA, C("tref"), tricks=(6, 2, 2))], refe_limit=0)
    found = cross_check(game)
    assert [(d.field, d.computed) for d in found] == [("ended", 170)]


# ------------------------------------------------------------------------------------------------ rendering


def test_paper_text_serbian_and_english() -> None:
    game = results_game()
    paper = compute_paper(game)
    text = paper_text(game, paper, SR_T)
    assert text.startswith("Papir partije 1847258")
    for word in ("leve supe", "bule", "desne supe", "refe", "Rezultat: ana −40, bojan +20, ceca +20"):
        assert word in text
    english = paper_text(game, paper, EN_T)
    assert english.startswith("Paper of game 1847258")
    assert "Results: ana −40" in english


def test_paper_json_keys() -> None:
    game = results_game()
    doc = paper_json(game, compute_paper(game))
    assert set(doc) == {"game", "ended", "players", "hands"}
    assert doc["game"] == 1847258
    assert doc["ended"] is True
    assert [set(p) for p in doc["players"]] == [{"name", "bule", "supe_left", "supe_right", "refe_open", "result"}] * 3
    assert [p["result"] for p in doc["players"]] == [-40, 20, 20]
    assert {"n", "entries", "changes"} <= set(doc["hands"][0])
    assert doc["hands"][0]["entries"][ANA] == {"player": "ana", "bule": 12, "supe_left": 0, "supe_right": 0}


def test_the_hat_is_shown_while_the_game_runs() -> None:
    game = build_game(
        [*_nobody([(ANA, "sans", True)]), build_hand(2)], size=10, refe_limit=3, status=GameStatus.INTERRUPTED
    )
    paper = compute_paper(game)
    text = paper_text(game, paper, SR_T)
    ana_row = next(line for line in text.splitlines() if line.startswith("ana "))
    assert ana_row.endswith("(kapa)")
    assert "-6" in ana_row
    assert "kapa" not in next(line for line in text.splitlines() if line.startswith("bojan "))
    assert "Partija je u toku: 14 bula na papiru." in text
    assert "(hat)" in paper_text(game, paper, EN_T)


def test_hand_lines_name_the_defence() -> None:
    zovem = build_hand(1, ANA, C("herc"), defense={BOJAN: CALLS, CECA: PASSES}, tricks=lambda c, f: c[ANA] == 7)
    alone = build_hand(
        2, BOJAN, C("karo", True), defense={CECA: FOLLOWS, ANA: PASSES}, tricks=lambda c, f: c[BOJAN] == 8
    )
    game = build_game([zovem, alone], refe_limit=0, status=GameStatus.INTERRUPTED)
    text = paper_text(game, compute_paper(game), SR_T)
    assert "  1  ana: herc, bojan zovem — prolaz (7 štihova), vrednost 8" in text
    assert "     ana bule −8 · bojan bule +8, supe levo 24" in text
    assert "  2  bojan: igra karo, ceca prati samostalno — prolaz (8 štihova), vrednost 8" in text
    english = paper_text(game, compute_paper(game), EN_T)
    assert "  2  bojan: diamonds without the talon, ceca follows alone — passes (8 tricks), value 8" in english
