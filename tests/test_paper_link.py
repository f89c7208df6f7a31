"""`rules.paper_link.verdict_changes` on its own: a verdict to the changes it writes on the paper (as rules
values, before the desk adds who wrote them), and what it refuses with the paper's own explanation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_paper import ANA, BOJAN, CECA, C, build_game, build_hand

from rules.fall_moves import LATE_FALL_KEY, FallMove, FallSource
from rules.gamelog import Game, GameStatus
from rules.paper import ChangeKind
from rules.paper_link import VerdictChange, verdict_changes
from rules.verdicts import BulaChange, Draft, FallTransfer, NoVerdict, VerdictRefused

WHEN = datetime(2026, 11, 25, 22, 0, tzinfo=UTC)
REFEREE = "sudija marko"


@pytest.fixture(scope="module")
def game() -> Game:
    """Three hands: 1 a refe; 2 and 3 (the last) ana's herc passed with ceca fallen."""
    hands = [
        build_hand(1),
        build_hand(2, ANA, C("herc"), tricks=(7, 2, 1)),
        build_hand(3, ANA, C("herc"), tricks=(7, 2, 1)),
    ]
    return build_game(hands, refe_limit=3, status=GameStatus.INTERRUPTED)


def test_a_bula_change_is_written_on_its_hand_with_each_seat_amount(game: Game) -> None:
    draft = Draft(BulaChange({"ana": 4, "ceca": -2}, hand=3), "nesportsko ponašanje")
    changes = verdict_changes(draft, game, [], REFEREE, WHEN)
    assert changes == [
        VerdictChange(game.number, 3, ChangeKind.PROMENA_BULA, {"bule": [4, 0, -2]}, WHEN, "nesportsko ponašanje")
    ]


def test_an_odlazak_within_its_window_is_written_on_its_hand(game: Game) -> None:
    changes = verdict_changes(Draft(FallTransfer(3, "bojan"), "r"), game, [], REFEREE, WHEN)
    assert [(c.hand, c.kind, c.data.get("player")) for c in changes] == [(3, ChangeKind.ODLAZAK_U_BULU, BOJAN)]


def test_a_late_odlazak_is_the_bula_change_it_makes_on_the_last_hand_marked_with_the_fall_it_moves(
    game: Game,
) -> None:
    draft = Draft(FallTransfer(2, "bojan", late_justified=True), "nerezonski dolaz")
    [change] = verdict_changes(draft, game, [], REFEREE, WHEN)
    assert (change.hand, change.kind) == (3, ChangeKind.PROMENA_BULA)
    assert change.data[LATE_FALL_KEY] == 2
    assert change.data["player"] == BOJAN
    bule = change.data["bule"]
    assert isinstance(bule, list)
    assert sum(bule) == 0
    assert bule[BOJAN] > 0 > bule[CECA]
    assert bule[ANA] == 0


def test_a_verdict_that_does_not_touch_the_paper_writes_nothing(game: Game) -> None:
    assert verdict_changes(Draft(NoVerdict(), "r"), game, [], REFEREE, WHEN) == []


def test_a_limit_of_the_paper_refuses_the_verdict_with_its_key(game: Game) -> None:
    with pytest.raises(VerdictRefused) as refused:
        verdict_changes(Draft(BulaChange({"ana": 3}, hand=3), "r"), game, [], REFEREE, WHEN)
    assert "odd" in refused.value.key


def test_a_second_move_of_the_same_fall_is_refused(game: Game) -> None:
    moves = [FallMove(3, FallSource.REFEREE, change_id=7, player=BOJAN)]
    with pytest.raises(VerdictRefused):
        verdict_changes(Draft(FallTransfer(3, "bojan"), "r"), game, [], REFEREE, WHEN, moves=moves)
