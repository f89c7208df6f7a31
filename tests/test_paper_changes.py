"""Changes made after a hand: Promena bula, Odlazak u bulu umesto drugog, Ispravka and the settlement write-off;
how the paper applies them and what `check_change` refuses (with the limit in the message)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from test_paper import ANA, BOJAN, CECA, FOLLOWS, PASSES, C, build_game, build_hand, not_followed

from bot.messages import Catalogue
from rules.gamelog import Game, GameStatus
from rules.paper import ChangeKind, PaperChange, compute_paper
from rules.paper_changes import ChangeRefused, check_change
from rules.paper_hand import Entry
from rules.paper_render import change_note, change_text, paper_json, paper_text

WHEN = datetime(2026, 11, 25, 22, 0, tzinfo=UTC)
SR, EN = Catalogue("sr"), Catalogue("en")


def said(refused: ChangeRefused, words: Catalogue = SR) -> str:
    """The refusal as the edge writes it: its key's catalogue text with its values."""
    return words.t(refused.message_key, **refused.params)


def promena(hand: int, bule: tuple[int, int, int], trial: int | None = 12) -> PaperChange:
    return PaperChange(ChangeKind.PROMENA_BULA, hand, "sudija marko", WHEN, "nesportsko ponašanje", trial, bule)


def odlazak(hand: int, culprit: int) -> PaperChange:
    return PaperChange(ChangeKind.ODLAZAK_U_BULU, hand, "sudija marko", WHEN, "nerezonski dolaz", 12, player=culprit)


def ispravka(hand: int, player: int) -> PaperChange:
    return PaperChange(ChangeKind.ISPRAVKA, hand, "ana", WHEN, "pogrešan klik", None, player=player)


@pytest.fixture(scope="module")
def game() -> Game:
    """Six hands, size 60, in progress: 1 a refe; 2 ana's herc passed under refe with ceca fallen (V 16);
    3 bojan's karo falls; 4 ceca's sans passed; 5 ana's tref passed; 6 all pass (the second refe)."""
    hands = [
        build_hand(1),
        build_hand(2, ANA, C("herc"), tricks=(7, 2, 1)),
        build_hand(3, BOJAN, C("karo"), tricks=lambda c, f: c[BOJAN] <= 5 and c[ANA] >= 2 and c[CECA] >= 2),
        build_hand(4, CECA, C("sans"), tricks=(2, 2, 6)),
        build_hand(5, ANA, C("tref"), tricks=(6, 2, 2)),
        build_hand(6),
    ]
    return build_game(hands, refe_limit=3, status=GameStatus.INTERRUPTED)


def test_promena_bula_applies_at_its_hand_and_shows_the_sum(game: Game) -> None:
    change = promena(3, (4, 0, -2))
    applied = check_change(game, [], change)
    assert applied.entries == (Entry(bule=4), Entry(), Entry(bule=-2))
    before, after = compute_paper(game), compute_paper(game, [change])
    assert after.hands[:2] == before.hands[:2]
    assert [p.bule for p in after.players] == [b.bule + d for b, d in zip(before.players, (4, 0, -2), strict=True)]
    total = after.hands[2].total
    score = after.hands[2].score
    assert score is not None
    assert total[ANA] == score.entries[ANA] + Entry(bule=4)
    text = paper_text(game, after, SR.t)
    assert "+ Promena bula (sudija marko, suđenje 12): ana bule +4 · ceca bule −2 — nesportsko ponašanje" in text
    assert "= zbir:" in text
    doc = paper_json(game, after)
    assert doc["hands"][2]["changes"][0]["kind"] == "promena_bula"
    assert doc["hands"][2]["changes"][0]["entries"][0]["bule"] == 4


@pytest.mark.parametrize(
    ("bule", "key", "words"),
    [
        ((3, 0, 0), "odd", "paran broj"),
        ((100, 0, 0), "range", "od −98 do 98"),
        ((0, 0, 0), "empty", "bar jednom"),
    ],
)
def test_promena_bula_limits(game: Game, bule: tuple[int, int, int], key: str, words: str) -> None:
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], promena(2, bule))
    assert refused.value.key == key
    assert words in said(refused.value)


def test_promena_bula_must_leave_two_bule(game: Game) -> None:
    small = build_game(list(game.hands[:2]), size=10, refe_limit=3, status=GameStatus.INTERRUPTED)
    paper = compute_paper(small)
    assert paper.bule_sum == 30
    with pytest.raises(ChangeRefused) as refused:
        check_change(small, [], promena(2, (-10, -10, -10)))
    assert refused.value.key == "limit"
    assert refused.value.params["most"] == 28
    assert "najmanje 2" in said(refused.value)
    assert "najviše 28" in said(refused.value)
    check_change(small, [], promena(2, (-10, -10, -8)))
    assert "at least 2 must stay" in said(refused.value, EN)


def test_change_needs_a_finished_scored_hand(game: Game) -> None:
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], promena(9, (2, 0, 0)))
    assert refused.value.key == "no_hand"
    open_hand = build_hand(7, completed=False)
    longer = build_game([*game.hands, open_hand], refe_limit=3, status=GameStatus.INTERRUPTED)
    with pytest.raises(ChangeRefused) as refused:
        check_change(longer, [], promena(7, (2, 0, 0)))
    assert refused.value.key == "not_finished"


def test_change_may_not_move_the_end() -> None:
    # size 10: ana's karo (−6), then ceca's igra sans (−16) leaves 8; bojan's sans ends the game at hand 3.
    hands = [not_followed(1, ANA, C("karo")), not_followed(2, CECA, C("sans", True)), not_followed(3, BOJAN, C("sans"))]
    small = build_game(hands, size=10, refe_limit=0)
    assert compute_paper(small).end_hand == 3
    running = build_game(hands[:2], size=10, refe_limit=0)  # 8 bule left after hand 2: not ended
    with pytest.raises(ChangeRefused) as refused:
        check_change(running, [], promena(1, (0, -12, 0)))  # 12 bule stay, but hand 2 would end the game
    assert refused.value.key == "end_moved_in"
    assert refused.value.params == {"after": 2}
    assert "nije kraj → ruka 2" in said(refused.value)
    # Once the paper has ended (hand 3), no change attaches to any of its hands, the final one included
    # (decisions.md: after a game's paper has ended): it would only be diluted by the write-off.
    for n in (1, 3):
        with pytest.raises(ChangeRefused) as refused:
            check_change(small, [], promena(n, (2, 0, 0)))
        assert refused.value.key == "paper_over"
        assert "posle ruke 3" in said(refused.value)
    with pytest.raises(ChangeRefused) as refused:
        check_change(small, [], promena(3, (-2, 0, 0)))
    assert refused.value.key == "paper_over"


def test_odlazak_u_bulu_moves_the_fall(game: Game) -> None:
    paper = compute_paper(game)
    score = paper.hands[1].score
    assert score is not None
    assert score.fallen == (CECA,)
    assert score.value == 16
    change = odlazak(2, BOJAN)
    applied = check_change(game, [], change)
    assert applied.entries == (Entry(), Entry(bule=16), Entry(bule=-16))
    after = compute_paper(game, [change])
    total = after.hands[1].total
    assert total[CECA] == Entry(supe_right=16)
    assert total[BOJAN] == Entry(bule=16, supe_left=32)
    assert total[ANA] == score.entries[ANA]


def test_odlazak_refusals(game: Game) -> None:
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], odlazak(2, ANA))
    assert refused.value.key == "declarer"
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], odlazak(2, CECA))  # bojan did not fall
    assert refused.value.key == "not_fallen_other"
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [odlazak(2, BOJAN)], odlazak(2, BOJAN))
    assert refused.value.key == "odlazak_twice"
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], odlazak(1, BOJAN))
    assert refused.value.key == "no_declarer"


def test_ispravka_of_a_fallen_defender_and_declarer(game: Game) -> None:
    applied = check_change(game, [], ispravka(2, CECA))
    assert applied.entries[CECA] == Entry(bule=-16)
    assert not applied.note
    paper = compute_paper(game)
    score = paper.hands[2].score
    assert score is not None
    assert score.fallen[:1] == (BOJAN,)
    assert not score.passed
    applied = check_change(game, [], ispravka(3, BOJAN))
    assert applied.entries[BOJAN] == Entry(bule=-2 * score.value)


def test_ispravka_refusals(game: Game) -> None:
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], ispravka(2, BOJAN))
    assert refused.value.key == "not_fallen"
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [ispravka(2, CECA)], ispravka(2, CECA))
    assert refused.value.key == "ispravka_twice"
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [odlazak(2, BOJAN)], ispravka(2, CECA))
    assert refused.value.key == "fall_moved_twice"
    with pytest.raises(ChangeRefused) as refused:  # and the other order (one fall move per hand)
        check_change(game, [ispravka(2, CECA)], odlazak(2, BOJAN))
    assert refused.value.key == "fall_moved_twice"


def test_ispravka_reduced_to_leave_two_bule() -> None:
    # size 10: ana's igra sans (−16) and ceca's karo (−6), nobody following, leave 8 on the paper; bojan's betl
    # falls (+12): 20. An ispravka of bojan's fall (−24) may take only 18, so that 2 stay.
    hands = [
        not_followed(1, ANA, C("sans", True)),
        not_followed(2, CECA, C("karo")),
        build_hand(3, BOJAN, C("betl"), tricks=lambda c, f: c[BOJAN] == 1),
    ]
    small = build_game(hands, size=10, refe_limit=0, status=GameStatus.INTERRUPTED)
    assert compute_paper(small).bule_sum == 20
    applied = check_change(small, [], ispravka(3, BOJAN))
    assert applied.entries[BOJAN] == Entry(bule=-18)
    assert applied.requested == -24
    assert change_note(applied, SR.t) == "smanjeno sa −24 na −18 da bi na papiru ostale 2 bule"
    assert "reduced from −24 to −18" in change_note(applied, EN.t)
    assert compute_paper(small, [applied.change]).bule_sum == 2
    assert "Ispravka (ana): bojan bule −18" in change_text(small.players, applied, SR.t)


def test_settlement_refusals(game: Game) -> None:
    late = (game.ended_at or WHEN) + timedelta(hours=2)
    otpis = PaperChange(ChangeKind.OTPIS, 6, "sudija marko", late, "prekinuta")
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], otpis)
    assert refused.value.key == "otpis_early"
    assert "2/3" in said(refused.value)
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], PaperChange(ChangeKind.OTPIS, 5, "sudija marko", late, "prekinuta"))
    assert refused.value.key == "otpis_hand"
    finished = build_game(list(game.hands), refe_limit=3)
    with pytest.raises(ChangeRefused) as refused:
        check_change(finished, [], otpis)
    assert refused.value.key == "not_interrupted"


def test_settlement_needs_an_hour() -> None:
    hands = [not_followed(k, k % 3, C("sans", True)) for k in range(1, 10)]
    game = build_game(hands, size=60, refe_limit=0, status=GameStatus.INTERRUPTED)
    assert game.ended_at is not None
    soon = PaperChange(ChangeKind.OTPIS, 9, "sudija marko", game.ended_at + timedelta(minutes=30), "prekid")
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [], soon)
    assert refused.value.key == "otpis_soon"
    later = PaperChange(ChangeKind.OTPIS, 9, "sudija marko", game.ended_at + timedelta(hours=1), "prekid")
    check_change(game, [], later)
    paper = compute_paper(game, [later])
    assert paper.ended
    assert paper.settled
    assert sum(p.result or 0 for p in paper.players) == 0
    with pytest.raises(ChangeRefused) as refused:
        check_change(game, [later], promena(3, (2, 0, 0)))
    assert refused.value.key == "settled"


def test_removing_a_change_restores_the_paper(game: Game) -> None:
    first, second = promena(3, (4, 0, 0)), odlazak(2, BOJAN)
    base = compute_paper(game, [first])
    with_both = compute_paper(game, [first, second])
    assert with_both != base
    assert compute_paper(game, [first]) == base
    assert compute_paper(game, []) == compute_paper(game)


def test_stored_form_round_trips() -> None:
    change = promena(3, (4, 0, -2))
    assert PaperChange.from_dict(change.to_dict()) == change
    fall = odlazak(2, BOJAN)
    assert PaperChange.from_dict(fall.to_dict()) == fall
    assert fall.data() == {"player": BOJAN}


def test_fall_of_the_lone_follower_moves_to_the_defender_who_passed() -> None:
    hand = build_hand(
        1, ANA, C("karo"), defense={BOJAN: PASSES, CECA: FOLLOWS}, tricks=lambda c, f: c[BOJAN] + c[CECA] <= 1
    )
    small = build_game([hand], refe_limit=0, status=GameStatus.INTERRUPTED)
    applied = check_change(small, [], odlazak(1, BOJAN))
    assert applied.entries[CECA].bule == -6
    assert applied.entries[BOJAN].bule == 6
