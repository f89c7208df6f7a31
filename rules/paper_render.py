"""Showing the paper to people and programs: `paper_text` (Serbian by default, English with lang="en"),
`paper_json` (stable keys), the words for a change and its note, and the cross-check report lines.

The text has the three players' columns (left supe, bule, right supe, refe marks: △ open, ▲ played), the hand
list with each hand's entries and the changes attached to it (a hand with changes shows the sum), and the
results once the game has ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.gamelog import Game
from rules.paper import (
    NOTE_REDUCED,
    AppliedChange,
    Discrepancy,
    Paper,
    PaperChange,
    PaperHand,
)
from rules.paper_hand import DefenceShape, Entry, HandCase, HandScore

_WORDS: dict[str, dict[str, str]] = {
    "sr": {
        "title": "Papir partije {game}",
        "size": "{size} bula",
        "refe": "refe {rounds} od {limit}",
        "player": "igrač",
        "left": "leve supe",
        "bule": "bule",
        "right": "desne supe",
        "marks": "refe",
        "hat": "kapa",
        "hands": "Ruke:",
        "no_hands": "(nijedna ruka)",
        "all_pass": "svi dalje",
        "refe_written": "refe",
        "nothing": "ništa se ne piše",
        "nobody": "niko ne prati",
        "pik_no_kontra": "pik bez kontre",
        "passes": "prolaz",
        "falls": "pad",
        "on_refe": "na refe",
        "kontra": "kontra",
        "rekontra": "rekontra",
        "subkontra": "subkontra",
        "mortkontra": "mortkontra",
        "zovem": "zovem",
        "alone": "sam prati",
        "not_finished": "nije završena",
        "after_end": "posle kraja partije",
        "no_contract": "bez ugovora",
        "e_bule": "bule",
        "e_left": "supe levo",
        "e_right": "supe desno",
        "sum": "zbir",
        "promena_bula": "Promena bula",
        "odlazak_u_bulu": "Odlazak u bulu umesto drugog",
        "ispravka": "Ispravka",
        "otpis": "Ručno svođenje (otpis bula)",
        "trial": "suđenje",
        "not_applied": "ne važi",
        "ended": "Kraj partije posle ruke {hand}.",
        "settled": "Partija je ručno svedena.",
        "write_off": "Otpis: {items}.",
        "results": "Rezultat: {items}",
        "running": "Partija je u toku: {left} bula na papiru.",
        "reduced": "smanjeno sa {full} na {amount} da bi na papiru ostale 2 bule",
        "hand_not_scored": "ruka se ne računa",
        "no_player": "nema tog igrača u ruci",
        "declarer_cannot_take_fall": "odigravač ne ide u bulu umesto branioca",
        "did_not_fall": "nije bilo pada",
        "already_in_hand": "ruka već ima takvu promenu",
        "fall_moved": "pad je već prebačen",
        "game_ended": "partija je već završena",
        "already_settled": "partija je već svedena",
        "discrepancy": "partija {game}, ruka {hand}, {player}: {field} upisano {recorded}, izračunato {computed}",
        "d_scored": "partija {game}, ruka {hand}: log upisuje rezultat, a papir ruku ne računa ({why})",
        "d_ended": "partija {game}: log kaže da je završena, a na papiru je još {computed} bula",
        "f_bule": "bule",
        "f_supe_left": "leve supe",
        "f_supe_right": "desne supe",
    },
    "en": {
        "title": "Paper of game {game}",
        "size": "{size} bule",
        "refe": "refe {rounds} of {limit}",
        "player": "player",
        "left": "left supe",
        "bule": "bule",
        "right": "right supe",
        "marks": "refe",
        "hat": "hat",
        "hands": "Hands:",
        "no_hands": "(no hands)",
        "all_pass": "all pass",
        "refe_written": "refe",
        "nothing": "nothing written",
        "nobody": "nobody follows",
        "pik_no_kontra": "pik without kontra",
        "passes": "passes",
        "falls": "falls",
        "on_refe": "on refe",
        "kontra": "kontra",
        "rekontra": "rekontra",
        "subkontra": "subkontra",
        "mortkontra": "mortkontra",
        "zovem": "zovem",
        "alone": "one follows",
        "not_finished": "not finished",
        "after_end": "after the game's end",
        "no_contract": "no contract",
        "e_bule": "bule",
        "e_left": "left supe",
        "e_right": "right supe",
        "sum": "sum",
        "promena_bula": "Bule change",
        "odlazak_u_bulu": "Odlazak u bulu (fall moved)",
        "ispravka": "Ispravka (fall corrected)",
        "otpis": "Settlement (bule written off)",
        "trial": "trial",
        "not_applied": "not applied",
        "ended": "The game ended after hand {hand}.",
        "settled": "The game was settled by hand.",
        "write_off": "Written off: {items}.",
        "results": "Results: {items}",
        "running": "The game is in progress: {left} bule on the paper.",
        "reduced": "reduced from {full} to {amount} so that 2 bule stay on the paper",
        "hand_not_scored": "the hand does not count",
        "no_player": "no such player in the hand",
        "declarer_cannot_take_fall": "the declarer does not take a defender's fall",
        "did_not_fall": "nobody fell",
        "already_in_hand": "the hand already has such a change",
        "fall_moved": "the fall already moved",
        "game_ended": "the game had already ended",
        "already_settled": "the game was already settled",
        "discrepancy": "game {game}, hand {hand}, {player}: {field} recorded {recorded}, computed {computed}",
        "d_scored": "game {game}, hand {hand}: the log records a score, but the paper does not count the hand ({why})",
        "d_ended": "game {game}: the log says finished, but {computed} bule are still on the paper",
        "f_bule": "bule",
        "f_supe_left": "left supe",
        "f_supe_right": "right supe",
    },
}
_CHAIN = ("kontra", "rekontra", "subkontra", "mortkontra")


def _w(lang: str) -> dict[str, str]:
    return _WORDS.get(lang, _WORDS["sr"])


def tricks_text(count: int, lang: str = "sr") -> str:
    """``1 štih``, ``3 štiha``, ``6 štihova`` (``1 trick``, ``6 tricks``)."""
    if lang == "en":
        return f"{count} trick" + ("" if count == 1 else "s")
    if count % 10 == 1 and count % 100 != 11:
        return f"{count} štih"
    if count % 10 in (2, 3, 4) and count % 100 not in (12, 13, 14):
        return f"{count} štiha"
    return f"{count} štihova"


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else ("−" + str(-value) if value < 0 else "0")


def entry_text(entry: Entry, lang: str = "sr") -> str:
    w = _w(lang)
    parts = []
    if entry.bule:
        parts.append(f"{w['e_bule']} {signed(entry.bule)}")
    if entry.supe_left:
        parts.append(f"{w['e_left']} {entry.supe_left}")
    if entry.supe_right:
        parts.append(f"{w['e_right']} {entry.supe_right}")
    return ", ".join(parts)


def entries_text(names: Sequence[str], entries: Sequence[Entry], lang: str = "sr") -> str:
    parts = [f"{names[s]} {entry_text(e, lang)}" for s, e in enumerate(entries) if not e.empty]
    return " · ".join(parts) if parts else "—"


def score_text(names: Sequence[str], score: HandScore, lang: str = "sr") -> str:
    """What happened in a hand, e.g. ``bojan: igra pik, rekontra, na refe — pad (5 štihova), V=48``."""
    w = _w(lang)
    if score.case is HandCase.ALL_PASS:
        return f"{w['all_pass']} — {w['refe_written'] if score.refe_written else w['nothing']}"
    assert score.declarer is not None
    assert score.contract is not None
    head = f"{names[score.declarer]}: {score.contract.describe()}"
    if score.kontra:
        head += ", " + w[_CHAIN[min(score.kontra, 4) - 1]]
    if score.refe_doubled:
        head += ", " + w["on_refe"]
    if score.case is HandCase.PIK_NO_KONTRA:
        tail = w["refe_written"] if score.refe_written else w["passes"]
        return f"{head} — {w['pik_no_kontra']}: {tail}" + ("" if score.refe_written else f", V={score.value}")
    if score.case is HandCase.NOBODY_FOLLOWS:
        return f"{head} — {w['nobody']}: {w['passes']} ({tricks_text(10, lang)}), V={score.value}"
    shape = ""
    if score.carrier is not None and score.kontra == 0:
        shape = f", {names[score.carrier]} " + (w["zovem"] if score.shape is DefenceShape.ZOVEM else w["alone"])
    outcome = w["passes"] if score.passed else w["falls"]
    return f"{head}{shape} — {outcome} ({tricks_text(score.declarer_tricks, lang)}), V={score.value}"


def anonymised(changes: Sequence[PaperChange]) -> list[PaperChange]:
    """The changes as members outside `referee_names_visible_to` and the game server see them: a verdict's change
    shows its trial number, never the referee's name (decisions.md, Trials)."""
    return [replace(c, who="") if c.trial is not None else c for c in changes]


def change_text(names: Sequence[str], applied: AppliedChange, lang: str = "sr") -> str:
    """A change attached to a hand: its kind, who made it (and in which trial), its entries, why, its note."""
    w = _w(lang)
    change = applied.change
    trial = f"{w['trial']} {change.trial}" if change.trial is not None else ""
    who = ", ".join(part for part in (change.who, trial) if part)
    text = f"{w[change.kind.value]} ({who}): {entries_text(names, applied.entries, lang)}"
    if change.why:
        text += f" — {change.why}"
    note = change_note(applied, lang)
    if note:
        text += f" [{note}]"
    return text


def change_note(applied: AppliedChange, lang: str = "sr") -> str:
    """The note of an applied change in words (e.g. an Ispravka reduced so that 2 bule stay); empty if none."""
    w = _w(lang)
    if not applied.applied:
        return f"{w['not_applied']}: {w.get(applied.note, applied.note)}"
    if applied.note == NOTE_REDUCED:
        amount = sum(e.bule for e in applied.entries)
        return w["reduced"].format(full=signed(applied.requested), amount=signed(amount))
    return w.get(applied.note, applied.note)


def _marks(open_: int, played: int) -> str:
    return "▲" * played + "△" * open_


def paper_text(game: Game, paper: Paper, lang: str = "sr") -> str:
    """The paper for people: the players' columns, the hands with their entries and changes, the results."""
    w = _w(lang)
    names = game.players
    lines = [
        f"{w['title'].format(game=paper.game)} — {w['size'].format(size=paper.size)}, "
        f"{w['refe'].format(rounds=paper.refe_rounds, limit=paper.refe_limit)}",
        "",
    ]
    width = max(len(w["player"]), *(len(n) for n in names))
    header = f"{w['player']:<{width}}  {w['left']:>10}  {w['bule']:>6}  {w['right']:>10}  {w['marks']}"
    lines += [header, "-" * len(header)]
    for column in paper.players:
        hat = f" ({w['hat']})" if column.under_hat and not paper.ended else ""
        lines.append(
            f"{column.name:<{width}}  {column.supe_left:>10}  {column.bule:>6}  {column.supe_right:>10}  "
            f"{_marks(column.refe_open, column.refe_played)}{hat}"
        )
    lines += ["", w["hands"]]
    if not paper.hands:
        lines.append("  " + w["no_hands"])
    for paper_hand in paper.hands:
        lines += _hand_lines(names, paper_hand, lang)
    lines.append("")
    if paper.ended:
        if paper.settled:
            lines.append(w["settled"])
        elif paper.end_hand is not None:
            lines.append(w["ended"].format(hand=paper.end_hand))
        if paper.write_off is not None and any(paper.write_off):
            items = ", ".join(f"{names[s]} {signed(paper.write_off[s])}" for s in range(3))
            lines.append(w["write_off"].format(items=items))
        items = ", ".join(f"{c.name} {signed(c.result or 0)}" for c in paper.players)
        lines.append(w["results"].format(items=items))
    else:
        lines.append(w["running"].format(left=paper.bule_sum))
    return "\n".join(lines)


def _hand_lines(names: Sequence[str], paper_hand: PaperHand, lang: str) -> list[str]:
    w = _w(lang)
    n = f"{paper_hand.n:>3}"
    if paper_hand.score is None:
        lines = [f"{n}  ({w.get(paper_hand.unscored, paper_hand.unscored)})"]
    else:
        lines = [
            f"{n}  {score_text(names, paper_hand.score, lang)}",
            f"     {entries_text(names, paper_hand.score.entries, lang)}",
        ]
    for applied in paper_hand.changes:
        lines.append(f"     + {change_text(names, applied, lang)}")
    if paper_hand.changes and paper_hand.score is not None:
        lines.append(f"     = {w['sum']}: {entries_text(names, paper_hand.total, lang)}")
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


def discrepancy_lines(discrepancies: Sequence[Discrepancy], lang: str = "sr") -> list[str]:
    """The cross-check report for people, one line per difference."""
    w = _w(lang)
    lines = []
    for d in discrepancies:
        if d.field == "ended":
            lines.append(w["d_ended"].format(game=d.game, computed=d.computed))
        elif d.field == "scored":
            lines.append(w["d_scored"].format(game=d.game, hand=d.hand, why=w.get(str(d.computed), d.computed)))
        else:
            recorded = signed(d.recorded) if isinstance(d.recorded, int) and d.field == "bule" else d.recorded
            computed = signed(d.computed) if isinstance(d.computed, int) and d.field == "bule" else d.computed
            lines.append(
                w["discrepancy"].format(
                    game=d.game,
                    hand=d.hand,
                    player=d.player,
                    field=w.get(f"f_{d.field}", d.field),
                    recorded=recorded,
                    computed=computed,
                )
            )
    return lines
