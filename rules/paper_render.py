"""Showing the paper to people and programs: `paper_text` (in the words of the `Translate` the edge passes in),
`paper_json` (stable keys), the words for a change and its note, and the cross-check report lines.

The text has the three players' columns (left supe, bule, right supe, refe marks: △ open, ▲ played), the hand
list with each hand's entries and the changes attached to it (a hand with changes shows the sum), and the
results once the game has ended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.gamelog import Contract, Game
from rules.paper import (
    NOTE_REDUCED,
    AppliedChange,
    Discrepancy,
    Paper,
    PaperChange,
    PaperHand,
)
from rules.paper_hand import DefenceShape, Entry, HandCase, HandScore

Translate = Callable[..., str]
"""The edge's words: ``t("paper.title", game=…)`` is the catalogue's ``paper.title`` with its values, in the reader's
language (`bot.messages.Catalogue.t`); a key it does not know raises `KeyError`. The rules keep no words of their
own: every word the paper shows is a ``paper.*`` entry of the catalogues."""

_CHAIN = ("kontra", "rekontra", "subkontra", "mortkontra")


def _code(t: Translate, code: str) -> str:
    """A note's or a reason's code in words (``paper.<code>``), or the code itself when the catalogue has none."""
    try:
        return t(f"paper.{code}")
    except KeyError:
        return code


def tricks_text(count: int, t: Translate) -> str:
    """``1 štih``, ``3 štiha``, ``6 štihova`` (``1 trick``, ``6 tricks``): the catalogue's plural forms."""
    return t("paper.tricks", n=count)


def contract_text(contract: Contract, t: Translate) -> str:
    """A contract in the reader's words: ``igra karo``, ``бубны без прикупа`` (``term.<strain>``, ``term.igra``)."""
    strain = t(f"term.{contract.strain.serbian}")
    return t("term.igra", strain=strain) if contract.igra else strain


def bid_text(call: str, t: Translate) -> str:
    """A call of the auction in the reader's words: ``dalje`` → ``пас``; a bid's number as it is."""
    return call if call.isdigit() else t(f"term.bid.{call}")


def kontra_text(names: Sequence[str], seats: Sequence[int], t: Translate) -> str:
    """Who doubled, step by step: ``kontra: sanja, rekontra: ivana`` (the chain past mortkontra keeps its name)."""
    return ", ".join(f"{t(f'paper.{_CHAIN[min(i, 3)]}')}: {names[seat]}" for i, seat in enumerate(seats))


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else ("−" + str(-value) if value < 0 else "0")


def entry_text(entry: Entry, t: Translate) -> str:
    parts = []
    if entry.bule:
        parts.append(f"{t('paper.e_bule')} {signed(entry.bule)}")
    if entry.supe_left:
        parts.append(f"{t('paper.e_left')} {entry.supe_left}")
    if entry.supe_right:
        parts.append(f"{t('paper.e_right')} {entry.supe_right}")
    return ", ".join(parts)


def entries_text(names: Sequence[str], entries: Sequence[Entry], t: Translate) -> str:
    parts = [f"{names[s]} {entry_text(e, t)}" for s, e in enumerate(entries) if not e.empty]
    return " · ".join(parts) if parts else "—"


def score_text(names: Sequence[str], score: HandScore, t: Translate) -> str:
    """What happened in a hand, e.g. ``bojan: igra pik, rekontra, na refe — pad (5 štihova), vrednost 48``."""
    if score.case is HandCase.ALL_PASS:
        return f"{t('paper.all_pass')} — {t('paper.refe_written') if score.refe_written else t('paper.nothing')}"
    assert score.declarer is not None
    assert score.contract is not None
    head = f"{names[score.declarer]}: {contract_text(score.contract, t)}"
    if score.kontra:
        head += ", " + t(f"paper.{_CHAIN[min(score.kontra, 4) - 1]}")
    if score.refe_doubled:
        head += ", " + t("paper.on_refe")
    if score.case is HandCase.PIK_NO_KONTRA:
        tail = t("paper.refe_written") if score.refe_written else t("paper.passes")
        value = "" if score.refe_written else ", " + t("paper.value", value=score.value)
        return f"{head} — {t('paper.pik_no_kontra')}: {tail}{value}"
    if score.case is HandCase.NOBODY_FOLLOWS:
        value = t("paper.value", value=score.value)
        return f"{head} — {t('paper.nobody')}: {t('paper.passes')} ({tricks_text(10, t)}), {value}"
    shape = ""
    if score.carrier is not None and score.kontra == 0:
        shape = f", {names[score.carrier]} " + (
            t("paper.zovem") if score.shape is DefenceShape.ZOVEM else t("paper.alone")
        )
    outcome = t("paper.passes") if score.passed else t("paper.falls")
    value = t("paper.value", value=score.value)
    return f"{head}{shape} — {outcome} ({tricks_text(score.declarer_tricks, t)}), {value}"


def outcome_lines(names: Sequence[str], score: HandScore, t: Translate) -> list[str]:
    """A played hand's outcome as the paper writes it (``ishod: marko: karo, kontra: sanja — pad (5 štihova), …``)
    and each defender's tricks with his pass or fall; nothing for a hand nobody played."""
    if score.declarer is None or score.contract is None:
        return []
    lines = [t("hands.outcome", text=score_text(names, score, t))]
    defenders = {seat for seat in range(3) if seat != score.declarer and score.defence_tricks[seat]}
    defenders |= {seat for seat in score.fallen if seat != score.declarer}
    if defenders:
        items = ", ".join(
            f"{names[seat]} {tricks_text(score.defence_tricks[seat], t)} — "
            + t("hands.defender_fell" if seat in score.fallen else "hands.defender_passed")
            for seat in sorted(defenders)
        )
        lines.append(t("hands.defence", items=items))
    return lines


def anonymised(changes: Sequence[PaperChange]) -> list[PaperChange]:
    """The changes as members outside `referee_names_visible_to` and the game server see them: a verdict's change
    shows its trial number, never the referee's name (decisions.md, Trials)."""
    return [replace(c, who="") if c.trial is not None else c for c in changes]


def change_text(names: Sequence[str], applied: AppliedChange, t: Translate) -> str:
    """A change attached to a hand: its kind, who made it (and in which trial), its entries, why, its note."""
    change = applied.change
    trial = f"{t('paper.trial')} {change.trial}" if change.trial is not None else ""
    who = ", ".join(part for part in (change.who, trial) if part)
    text = f"{t(f'paper.{change.kind.value}')} ({who}): {entries_text(names, applied.entries, t)}"
    if change.why:
        text += f" — {change.why}"
    note = change_note(applied, t)
    if note:
        text += f" [{note}]"
    return text


def change_note(applied: AppliedChange, t: Translate) -> str:
    """The note of an applied change in words (e.g. an Ispravka reduced so that 2 bule stay); empty if none."""
    if not applied.applied:
        return f"{t('paper.not_applied')}: {_code(t, applied.note)}"
    if applied.note == NOTE_REDUCED:
        amount = sum(e.bule for e in applied.entries)
        return t("paper.reduced", full=signed(applied.requested), amount=signed(amount))
    return _code(t, applied.note)


def _marks(open_: int, played: int) -> str:
    return "▲" * played + "△" * open_


def paper_text(game: Game, paper: Paper, t: Translate) -> str:
    """The paper for people: the players' columns, the hands with their entries and changes, the results."""
    names = game.players
    lines = [
        f"{t('paper.title', game=paper.game)} — {t('paper.size', size=paper.size)}, "
        f"{t('paper.refe', rounds=paper.refe_rounds, limit=paper.refe_limit)}",
        "",
    ]
    player, left, bule, right = t("paper.player"), t("paper.left"), t("paper.bule"), t("paper.right")
    width = max(len(player), *(len(n) for n in names))
    header = f"{player:<{width}}  {left:>10}  {bule:>6}  {right:>10}  {t('paper.marks')}"
    lines += [header, "-" * len(header)]
    for column in paper.players:
        hat = f" ({t('paper.hat')})" if column.under_hat and not paper.ended else ""
        lines.append(
            f"{column.name:<{width}}  {column.supe_left:>10}  {column.bule:>6}  {column.supe_right:>10}  "
            f"{_marks(column.refe_open, column.refe_played)}{hat}"
        )
    lines += ["", t("paper.hands")]
    if not paper.hands:
        lines.append("  " + t("paper.no_hands"))
    for paper_hand in paper.hands:
        lines += _hand_lines(names, paper_hand, t)
    lines.append("")
    if paper.ended:
        if paper.settled:
            lines.append(t("paper.settled"))
        elif paper.end_hand is not None:
            lines.append(t("paper.ended", hand=paper.end_hand))
        if paper.write_off is not None and any(paper.write_off):
            items = ", ".join(f"{names[s]} {signed(paper.write_off[s])}" for s in range(3))
            lines.append(t("paper.write_off", items=items))
        items = ", ".join(f"{c.name} {signed(c.result or 0)}" for c in paper.players)
        lines.append(t("paper.results", items=items))
    else:
        lines.append(t("paper.running", left=paper.bule_sum))
    return "\n".join(lines)


def _hand_lines(names: Sequence[str], paper_hand: PaperHand, t: Translate) -> list[str]:
    n = f"{paper_hand.n:>3}"
    if paper_hand.score is None:
        lines = [f"{n}  ({_code(t, paper_hand.unscored)})"]
    else:
        lines = [
            f"{n}  {score_text(names, paper_hand.score, t)}",
            f"     {entries_text(names, paper_hand.score.entries, t)}",
        ]
    for applied in paper_hand.changes:
        lines.append(f"     + {change_text(names, applied, t)}")
    if paper_hand.changes and paper_hand.score is not None:
        lines.append(f"     = {t('paper.sum')}: {entries_text(names, paper_hand.total, t)}")
    return lines


def _entry_json(name: str, entry: Entry) -> dict[str, Any]:
    return {"player": name, "bule": entry.bule, "supe_left": entry.supe_left, "supe_right": entry.supe_right}


def paper_json(game: Game, paper: Paper) -> dict[str, Any]:
    """The paper as a JSON value with stable keys: game, ended, players, hands."""
    names = game.players
    players = [
        {
            "name": c.name,
            "bule": c.bule,
            "supe_left": c.supe_left,
            "supe_right": c.supe_right,
            "refe_open": c.refe_open,
            "result": c.result if paper.ended else None,
        }
        for c in paper.players
    ]
    hands = []
    for paper_hand in paper.hands:
        score = paper_hand.score
        changes = []
        for applied in paper_hand.changes:
            change = applied.change
            changes.append(
                {
                    "id": change.id,
                    "kind": change.kind.value,
                    "who": change.who or None,
                    "when": change.when.isoformat(),
                    "why": change.why,
                    "trial": change.trial,
                    "applied": applied.applied,
                    "note": applied.note or None,
                    "entries": [_entry_json(names[s], applied.entries[s]) for s in range(3)],
                }
            )
        hands.append(
            {
                "n": paper_hand.n,
                "entries": None if score is None else [_entry_json(names[s], score.entries[s]) for s in range(3)],
                "changes": changes,
            }
        )
    return {"game": paper.game, "ended": paper.ended, "players": players, "hands": hands}


def discrepancy_lines(discrepancies: Sequence[Discrepancy], t: Translate) -> list[str]:
    """The cross-check report for people, one line per difference."""
    lines = []
    for d in discrepancies:
        if d.field == "ended":
            lines.append(t("paper.d_ended", game=d.game, computed=d.computed))
        elif d.field == "scored":
            lines.append(t("paper.d_scored", game=d.game, hand=d.hand, why=_code(t, str(d.computed))))
        else:
            recorded = signed(d.recorded) if isinstance(d.recorded, int) and d.field == "bule" else d.recorded
            computed = signed(d.computed) if isinstance(d.computed, int) and d.field == "bule" else d.computed
            lines.append(
                t(
                    "paper.discrepancy",
                    game=d.game,
                    hand=d.hand,
                    player=d.player,
                    field=_code(t, f"f_{d.field}"),
                    recorded=recorded,
                    computed=computed,
                )
            )
    return lines


@dataclass(frozen=True, slots=True)
class RefeMark:
    """One refe mark of a player's column: the hand whose all-pass wrote it, and, once he played a contract under
    it (for double), that hand and whether he passed or fell."""

    written: int
    played: int | None = None
    passed: bool | None = None


def refe_marks(paper: Paper) -> tuple[tuple[RefeMark, ...], tuple[RefeMark, ...], tuple[RefeMark, ...]]:
    """Every player's refe marks in the order written: each round written gives every player a mark, and a
    declarer who plays under an open refe marks his oldest open one played (`rules.paper.compute_paper` counts
    the same: `refe_open`, `refe_played`)."""
    marks: list[list[RefeMark]] = [[], [], []]
    for paper_hand in paper.hands:
        score = paper_hand.score
        if score is None:
            continue
        if score.refe_written:
            for column in marks:
                column.append(RefeMark(paper_hand.n))
        if score.refe_played and score.declarer is not None:
            column = marks[score.declarer]
            for i, mark in enumerate(column):
                if mark.played is None:
                    column[i] = RefeMark(mark.written, paper_hand.n, bool(score.passed))
                    break
    return tuple(marks[0]), tuple(marks[1]), tuple(marks[2])
