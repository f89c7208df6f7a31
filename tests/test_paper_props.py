"""Properties of the paper on random legal games from `rules.generator` (hypothesis picks the seeds and changes)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.messages import Catalogue
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.paper import ChangeKind, Paper, PaperChange, compute_paper, game_facts, grown_facts
from rules.paper_changes import ChangeRefused, check_change
from rules.paper_hand import hand_facts
from rules.paper_render import paper_json, paper_text

SR_T = Catalogue("sr").t  # the words the edge passes the paper


WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw: st.DrawFn, status: GameStatus | None = None) -> Game:
    seed = draw(st.integers(0, 2**32 - 1))
    size = draw(st.sampled_from([10, 20, 30, 60]))
    hands = draw(st.integers(1, 40))
    chosen = status or draw(st.sampled_from(list(GameStatus)))
    return generate_game(
        random.Random(seed),
        1000 + seed % 1000,
        hands=hands,
        bule=size,
        refe_limit=draw(st.integers(0, 4)),
        status=chosen,
    )


def scored(paper: Paper) -> list[int]:
    return [h.n for h in paper.hands if h.score is not None]


@st.composite
def change_for(draw: st.DrawFn, game: Game) -> PaperChange | None:
    """A random Promena bula, Odlazak u bulu or Ispravka aimed at a scored hand (it may still be refused)."""
    paper = compute_paper(game)
    hands = scored(paper)
    if not hands:
        return None
    falls = [(h.n, seat, h.score.declarer) for h in paper.hands if h.score is not None for seat in h.score.fallen]
    kinds = [ChangeKind.PROMENA_BULA] + ([ChangeKind.ODLAZAK_U_BULU, ChangeKind.ISPRAVKA] if falls else [])
    kind = draw(st.sampled_from(kinds))
    if kind is ChangeKind.PROMENA_BULA:
        amount = st.integers(-10, 10).map(lambda x: 2 * x)
        bule = (draw(amount), draw(amount), draw(amount))
        return PaperChange(kind, draw(st.sampled_from(hands)), "sudija", WHEN, "test", 1, bule)
    n, fallen, declarer = draw(st.sampled_from(falls))
    assert declarer is not None
    player = fallen if kind is ChangeKind.ISPRAVKA else 3 - declarer - fallen
    return PaperChange(kind, n, "sudija", WHEN, "test", None, player=player)


def accepted(game: Game, changes: list[PaperChange], change: PaperChange | None) -> bool:
    if change is None:
        return False
    try:
        check_change(game, changes, change)
    except ChangeRefused:
        return False
    return True


@SETTINGS
@given(games())
def test_results_sum_to_zero_at_the_end(game: Game) -> None:
    paper = compute_paper(game)
    if paper.ended:
        assert sum(p.bule for p in paper.players) == 0
        assert sum(p.result or 0 for p in paper.players) == 0
        assert all(p.result is not None for p in paper.players)
    else:
        assert all(p.result is None for p in paper.players)
        assert paper.bule_sum > 0


@SETTINGS
@given(games(GameStatus.INTERRUPTED), st.data())
def test_a_settled_game_sums_to_zero(game: Game, data: st.DataObject) -> None:
    paper = compute_paper(game)
    hands = scored(paper)
    if paper.ended or not hands:
        return
    assert game.ended_at is not None
    otpis = PaperChange(ChangeKind.OTPIS, hands[-1], "sudija", game.ended_at + timedelta(hours=2), "svođenje")
    settled = compute_paper(game, [otpis])
    assert settled.ended
    assert settled.settled
    assert sum(p.bule for p in settled.players) == 0
    assert sum(p.result or 0 for p in settled.players) == 0
    at = hands[-1] - 1
    assert settled.hands[:at] == paper.hands[:at]
    assert settled.hands[at + 1 :] == paper.hands[at + 1 :]
    assert settled.hands[at].changes[-1].change is otpis


@SETTINGS
@given(games(), st.data())
def test_bule_change_only_by_even_numbers(game: Game, data: st.DataObject) -> None:
    changes: list[PaperChange] = []
    for _ in range(data.draw(st.integers(0, 3))):
        change = data.draw(change_for(game))
        if accepted(game, changes, change):
            assert change is not None
            changes.append(change)
    paper = compute_paper(game, changes)
    previous = (game.bule,) * 3
    for hand in paper.hands:
        if hand.score is not None:
            assert all(e.bule % 2 == 0 for e in hand.score.entries)
        for applied in hand.changes:
            if applied.change.kind is not ChangeKind.OTPIS:
                assert all(e.bule % 2 == 0 for e in applied.entries)
        assert all((a - b) % 2 == 0 for a, b in zip(hand.bule_after, previous, strict=True))
        previous = hand.bule_after


@SETTINGS
@given(games(), st.data())
def test_a_change_at_hand_n_alters_nothing_before_n(game: Game, data: st.DataObject) -> None:
    change = data.draw(change_for(game))
    if not accepted(game, [], change):
        return
    assert change is not None
    before, after = compute_paper(game), compute_paper(game, [change])
    n = change.hand
    assert after.hands[: n - 1] == before.hands[: n - 1]
    assert after.hands[n - 1].score == before.hands[n - 1].score
    assert sum(after.hands[n - 1].bule_after) >= 2 or before.end_hand == n


@SETTINGS
@given(games(), st.data())
def test_removing_a_change_restores_the_paper(game: Game, data: st.DataObject) -> None:
    changes: list[PaperChange] = []
    for _ in range(data.draw(st.integers(1, 4))):
        change = data.draw(change_for(game))
        if accepted(game, changes, change):
            assert change is not None
            changes.append(change)
    if not changes:
        return
    index = data.draw(st.integers(0, len(changes) - 1))
    without = changes[:index] + changes[index + 1 :]
    expected = compute_paper(game, without)
    compute_paper(game, changes)  # computing with it first must leave nothing behind
    assert compute_paper(game, without) == expected
    assert paper_json(game, compute_paper(game, without)) == paper_json(game, expected)


@SETTINGS
@given(games())
def test_supe_and_refe_stay_consistent(game: Game) -> None:
    paper = compute_paper(game)
    assert all(p.refe_open >= 0 and p.refe_played >= 0 for p in paper.players)
    assert all(p.refe_open + p.refe_played == paper.refe_rounds for p in paper.players)
    assert paper.refe_rounds <= game.refe_limit
    text = paper_text(game, paper, SR_T)
    assert f"Papir partije {game.number}" in text
    assert len(text.splitlines()) >= len(game.hands)


@given(games(), st.integers(0, 40), st.booleans())
@SETTINGS
def test_facts_grown_by_hands_equal_the_facts_of_the_whole_game(game: Game, cut: int, foreign: bool) -> None:
    """The live feed's incremental scoring (`grown_facts`): the facts of a game's first hands, grown by the hands
    after them, are the facts of the whole game — and when the first hands are not the very same hands (a game
    read afresh), every hand is scored again, never a stale fact kept."""
    cut = min(cut, len(game.hands))
    earlier = replace(game, hands=game.hands[:cut])
    facts = game_facts(earlier)
    if foreign and cut:  # the same hands by value, other objects: no identity, so no reuse
        earlier = replace(game, hands=tuple(replace(h) for h in game.hands[:cut]))
    assert grown_facts(earlier, facts, game) == tuple(hand_facts(h) for h in game.hands)
    wrong = facts[:-1] if facts else ()
    assert grown_facts(earlier, wrong, game) == tuple(hand_facts(h) for h in game.hands)
    other = replace(game, hands=game.hands[:cut][::-1])  # other hands first: their facts never reused for these
    assert grown_facts(other, game_facts(other), game) == tuple(hand_facts(h) for h in game.hands)
