"""How the referee's second opinion reads: the Arbitar's analysis of a fall as advice, the briefing on a game's
earlier trials and corrections, and the Arbitar's difference from a fall draft. Pure text from values.

`arbitar_lines` is the Arbitar's own output, line for line as `sudija arbitar LOG --hand N --fallen NICK` prints
it: the decision, the reason and the evidence, a sentence per fact (`rules.arbitar.evidence`); all of it is the
catalogue's, in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.messages import Catalogue
from bot.views import render_verdict
from rules.arbitar.evidence import evidence_lines
from rules.arbitar.verdict import ArbitarVerdict
from rules.fall_moves import FallMove, FallSource
from rules.gamelog import Game
from rules.verdicts import BulaChange, Draft, FallTransfer, NoVerdict, verdict_from_json
from storage.states import EndReason, TrialOutcome
from storage.trials import Trial


@dataclass(frozen=True, slots=True)
class FallAnalysis:
    """The Arbitar's verdict on one fallen defender's fall (None when the procedure failed on it)."""

    fallen: int
    verdict: ArbitarVerdict | None


def other_defender(game: Game, hand: int, fallen: int) -> str:
    """The nickname of the defender beside `fallen` in hand `hand` ("?" when the hand names no declarer)."""
    declarer = next((h.declarer for h in game.hands if h.n == hand), None)
    return game.players[3 - declarer - fallen] if declarer is not None and declarer != fallen else "?"


def evidence_text(game: Game, hand: int, fallen: int, verdict: ArbitarVerdict, m: Catalogue) -> list[str]:
    """The verdict's evidence, a sentence per fact, in `m`'s language."""
    return evidence_lines(verdict.evidence, m.t, game.players[fallen], other_defender(game, hand, fallen))


def arbitar_lines(game: Game, hand: int, fallen: int, verdict: ArbitarVerdict, m: Catalogue) -> list[str]:
    """Exactly what `sudija arbitar` prints in text form for this verdict, in `m`'s language."""
    shown = verdict.to_json(game.players)
    step = verdict.step if verdict.step is not None else "—"  # neither step applied
    where = {"game": game.number, "hand": hand, "fallen": game.players[fallen], "step": step}
    if verdict.transfers:
        head = m.t("cli.arbitar.transfer", to=shown["to"], **where)
    else:
        head = m.t("cli.arbitar.stays", **where)
    lines = [head, m.t("cli.arbitar.reason", reason=verdict.reason_in(m.t))]
    facts = evidence_text(game, hand, fallen, verdict, m)
    if facts:
        lines.append(m.t("cli.arbitar.evidence"))
        lines += ["  " + fact for fact in facts]
    return lines


#: The card evidence the Arbitar may give, by key prefix: the decisive card, the other defender's ruining error
#: when the fallen player erred too, the fallen player's own opening lead (left to the referee), a card checked
#: and cleared by the 10% rule.
CARD_EVIDENCE = (
    ("", "advice.card_error"),
    ("other_", "advice.card_error"),
    ("lead_", "advice.card_lead"),
    ("checked_", "advice.card_checked"),
)


def _card_line(evidence: Mapping[str, Any], prefix: str, m: Catalogue, key: str) -> str | None:
    """The card evidence under `prefix` ("" for the decisive card, "checked_" for one checked and cleared)."""
    wanted = (
        "player",
        "trick",
        "card",
        "better_card",
        "declarer_tricks_with_card",
        "declarer_tricks_with_better",
        "layouts",
        "consistent_layouts",
        "better_card_better",
        "played_card_better",
        "bar",
    )
    if not all(prefix + k in evidence for k in wanted):
        return None
    e = {k: evidence[prefix + k] for k in wanted}
    return m.t(
        key,
        player=e["player"],
        trick=e["trick"],
        card=e["card"],
        better=e["better_card"],
        with_card=e["declarer_tricks_with_card"],
        with_better=e["declarer_tricks_with_better"],
        layouts=e["layouts"],
        consistent=e["consistent_layouts"],
        better_count=e["better_card_better"],
        worse_count=e["played_card_better"],
        bar=e["bar"],
    )


def _rezon_line(evidence: Mapping[str, Any], fallen: str, other: str, m: Catalogue) -> str:
    keys = ("rezons_fallen", "rezons_other", "aces_fallen", "aces_other", "fallen_meets_rules", "other_obviously_bad")
    if not all(k in evidence for k in keys):
        return m.t("advice.no_step2")
    meets = m.t("advice.meets" if evidence["fallen_meets_rules"] else "advice.below_rules")
    bad = m.t("advice.obviously_bad" if evidence["other_obviously_bad"] else "advice.not_obviously_bad")
    return m.t(
        "advice.rezons",
        fallen=fallen,
        other=other,
        rf=f"{float(evidence['rezons_fallen']):g}",
        ro=f"{float(evidence['rezons_other']):g}",
        af=evidence["aces_fallen"],
        ao=evidence["aces_other"],
        meets=meets,
        bad=bad,
    )


def decision_line(game: Game, analysis: FallAnalysis, m: Catalogue) -> str:
    """What the Arbitar would decide, in one line: "Arbitar: pad ostaje — nije očigledna greška"."""
    verdict = analysis.verdict
    assert verdict is not None
    if verdict.transfers and verdict.to is not None:
        return m.t(
            "advice.decides_transfer",
            fallen=game.players[analysis.fallen],
            to=game.players[verdict.to],
            reason=verdict.reason_in(m.t),
        )
    return m.t("advice.decides_stays", fallen=game.players[analysis.fallen], reason=verdict.reason_in(m.t))


def render_advice(game: Game, hand: int, declarer: int, analyses: Sequence[FallAnalysis], m: Catalogue) -> str:
    """The analysis of every defender's fall in the hand: the decision, both defenders' card errors (trick, card,
    better card, layout counts), both followers' rezons against the rules, then the Arbitar's own output."""
    lines = [m.t("advice.title", game=game.number, hand=hand)]
    for analysis in analyses:
        fallen = game.players[analysis.fallen]
        other_seat = 3 - declarer - analysis.fallen
        other = game.players[other_seat]
        lines.append("")
        lines.append(m.t("advice.fallen", nick=fallen))
        verdict = analysis.verdict
        if verdict is None:
            lines.append("  " + m.t("advice.failed", nick=fallen))
            continue
        lines.append("  " + decision_line(game, analysis, m))
        evidence = verdict.evidence
        lines.append("  " + m.t("advice.cards"))
        named = set()
        for prefix, key in CARD_EVIDENCE:
            line = _card_line(evidence, prefix, m, key)
            if line is not None:
                lines.append("    " + line)
                named.add(evidence.get(prefix + "player"))
        for nick in (fallen, other):
            if nick not in named:
                lines.append("    " + m.t("advice.no_card_error", player=nick))
        lines.append("  " + _rezon_line(evidence, fallen, other, m))
        lines.append("  " + m.t("advice.output"))
        lines += arbitar_lines(game, hand, analysis.fallen, verdict, m)
    lines.append("")
    lines.append(m.t("advice.footer"))
    return "\n".join(lines)


def render_briefing(
    number: int, players: tuple[str, str, str], trials: Sequence[Trial], moves: Sequence[FallMove], m: Catalogue
) -> str | None:
    """What the officials must review before judging (club rules: "dužan je da ih pregleda pre donošenja
    presude"): a warning for every hand that already carries a verdict, the players' ispravka or the Arbitar's
    verdict, and for every verdict on the game as a whole; a line for a player's own odlazak u bulu (not a
    judgement); then the game's earlier trials with their outcomes and reasons. None when the game has none."""
    warnings: list[str] = []
    history: list[str] = []
    for trial in trials:
        kind = m.t("kind.in_game" if trial.in_game else "kind.out_of_game")
        if trial.outcome is TrialOutcome.INTERRUPTED:
            history.append(
                m.t(
                    "brief.trial_interrupted",
                    trial=trial.id,
                    kind=kind,
                    opened=trial.opened_at,
                    why=m.t(EndReason.key_of(trial.end_reason)),
                )
            )
            continue
        if trial.outcome is not TrialOutcome.VERDICT and trial.outcome is not TrialOutcome.NO_VERDICT:
            continue
        draft = verdict_from_json(trial.verdict) if trial.verdict else Draft(NoVerdict(), trial.reason or "")
        shown = render_verdict(draft, m)
        reason = draft.reason or trial.reason or "—"
        history.append(
            m.t("brief.trial", trial=trial.id, kind=kind, opened=trial.opened_at, verdict=shown, reason=reason)
        )
        verdict = draft.verdict
        hand = verdict.hand if isinstance(verdict, (BulaChange, FallTransfer)) else None
        if hand is not None:
            warnings.append(m.t("brief.judged_hand", hand=hand, trial=trial.id, verdict=shown, reason=reason))
        elif not isinstance(verdict, NoVerdict):
            warnings.append(m.t("brief.judged_game", trial=trial.id, verdict=shown, reason=reason))
    # The players' ispravka (all three agreed) and the Arbitar's binding verdict settled the hand's fall: the
    # hand is judged. A player's own odlazak u bulu is no judgement — the fallen player may cancel it and a
    # referee may still judge the hand — so it is said, without the warning that an incident is judged already.
    keys = {FallSource.ISPRAVKA: "brief.ispravka", FallSource.ARBITAR: "brief.arbitar"}
    notes: list[str] = []
    for move in sorted(moves, key=lambda mv: mv.hand):
        nick = players[move.player] if move.player in (0, 1, 2) else "?"
        key = keys.get(move.source)
        if key is not None:
            warnings.append(m.t(key, hand=move.hand, nick=nick))
        elif move.source is FallSource.PLAYER:
            notes.append(m.t("brief.odlazak", hand=move.hand, nick=nick))
    if not warnings and not history and not notes:
        return None
    lines = [m.t("brief.title", game=number)]
    if warnings:
        lines += ["⚠ " + w for w in warnings]
        lines.append(m.t("brief.rule"))
    lines += ["· " + n for n in notes]
    if history:
        lines.append(m.t("brief.history"))
        lines += ["  " + h for h in history]
    return "\n".join(lines)
