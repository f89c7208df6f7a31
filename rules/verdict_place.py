"""When and where a change about a hand may be written (decisions.md, Trials; the club's "samo pre kraja naredne
ruke" and "u prethodnoj ruci"):

* `within_window(hand, completed)`: a verdict (or a player's odlazak u bulu, or the Arbitar) about the content of
  hand `hand` is possible only before the end of the next hand: refused once hand `hand + 1` has ended;
* `verdict_hand(hand, completed, late_justified)`: the hand a verdict is written on: the hand itself while the
  window is open; the last completed hand for a verdict about the game as a whole or a justified late one;
* `paper_over(paper)`: after the paper has ended (the bule reached zero, or a settlement wrote them off) no bula
  change and no fall move attaches to its hands any more.
"""

from __future__ import annotations

from rules.paper import Paper


def within_window(hand: int, completed: int) -> bool:
    """Hand `hand` is finished and the hand after it has not ended (`completed` hands have ended, in order)."""
    return 1 <= hand <= completed < hand + 1


def verdict_hand(hand: int | None, completed: int, late_justified: bool = False) -> int:
    """The completed hand a verdict is attached to: `hand` while its window is open, else (the game as a whole,
    or a justified late verdict) the last completed hand."""
    if hand is not None and within_window(hand, completed):
        return hand
    if hand is not None and not late_justified:
        raise ValueError(f"hand {hand} is outside its window ({completed} hands ended)")
    return completed


def is_late(hand: int, completed: int) -> bool:
    """A verdict about hand `hand` now would be late (the next hand has ended)."""
    return completed >= hand + 1


def paper_over(paper: Paper) -> bool:
    """The game is over on the paper: its bule reached zero (or were written off by a settlement)."""
    return paper.ended
