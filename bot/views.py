"""Text the desk shows that is built from data: a game's hands trick by trick, a verdict, a game's trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.messages import Catalogue
from rules.cards import display_hand
from rules.gamelog import Game
from rules.play import replay
from rules.verdicts import BulaChange, Draft, FallTransfer, Nobody, NoVerdict, Penalty, Settlement, verdict_from_json
from storage.states import TrialOutcome
from storage.trials import Trial


def render_hands(game: Game, m: Catalogue) -> str:
    """Prikaz ruke: every hand with all cards, the auction, the contract and the tricks (winner marked)."""
    names = game.players
    lines = [m.t("hands.title", game=game.number, players=", ".join(names))]
    for hand in game.hands:
        status = "" if hand.completed else " " + m.t("hands.in_progress")
        lines.append(m.t("hands.hand", n=hand.n, dealer=names[hand.dealer]) + status)
        for seat in range(3):
            lines.append(f"  {names[seat]:>12}: {display_hand(hand.deal[seat])}")
        lines.append(f"  {'talon':>12}: {display_hand(hand.talon)}")
        if hand.bids:
            lines.append("  " + m.t("hands.bids") + ": " + ", ".join(f"{names[b.seat]} {b.call}" for b in hand.bids))
        if hand.declarer is None or hand.contract is None:
            lines.append("  " + m.t("hands.all_pass"))
            continue
        lines.append("  " + m.t("hands.contract", declarer=names[hand.declarer], contract=hand.contract.describe()))
        if hand.discards:
            lines.append("  " + m.t("hands.discards") + ": " + display_hand(hand.discards))
        if hand.defense:
            lines.append("  " + ", ".join(f"{names[s]}: {m.t('decision.' + d.value)}"
                                          for s, d in sorted(hand.defense.items())))
        if hand.kontra:
            lines.append("  kontra: " + " → ".join(names[s] for s in hand.kontra))
        for trick in replay(hand).tricks:
            cards = "  ".join(f"{names[trick.seat_of(i)]} {c.display()}" for i, c in enumerate(trick.cards))
            lines.append(f"    {trick.number:>2}. {cards}  → {names[trick.winner]}")
    return "\n".join(lines)


def render_verdict(draft: Draft, m: Catalogue) -> str:
    v = draft.verdict
    if isinstance(v, BulaChange):
        amounts = ", ".join(f"{nick} {amount:+d}" for nick, amount in v.amounts.items())
        where = m.t("verdict.hand", hand=v.hand) if v.hand is not None else m.t("verdict.whole_game")
        return m.t("verdict.show.bule", amounts=amounts, where=where)
    if isinstance(v, FallTransfer):
        return m.t("verdict.show.bula", hand=v.hand, culprit=v.culprit)
    if isinstance(v, Penalty):
        parts = []
        if v.plavac_days:
            parts.append(m.t("verdict.show.plavac", days=v.plavac_days))
        if v.league_points:
            parts.append(m.t("verdict.show.league", points=v.league_points))
        if v.abandoned:
            parts.append(m.t("verdict.show.abandoned"))
        if v.deny_call_days:
            parts.append(m.t("verdict.show.deny_call", days=v.deny_call_days))
        return m.t("verdict.show.kazna", culprit=v.culprit, what=", ".join(parts))
    if isinstance(v, Settlement):
        return m.t("verdict.show.svodjenje")
    if isinstance(v, Nobody):
        return m.t("verdict.show.niko")
    assert isinstance(v, NoVerdict)
    return m.t("verdict.show.bez")


def render_trials(game: int, trials: Sequence[Trial], names: Mapping[int, str], show_referees: bool,
                  m: Catalogue) -> str:
    if not trials:
        return m.t("presude.none", game=game)
    lines = [m.t("presude.title", game=game)]
    for trial in trials:
        referee = names.get(trial.referee, "?") if show_referees else m.t("presude.hidden")
        head = m.t("presude.trial", id=trial.id, kind=m.t("kind.in_game" if trial.in_game else "kind.out_of_game"),
                   caller=names.get(trial.caller, "?"), referee=referee, opened=trial.opened_at)
        lines.append(head)
        if trial.outcome is TrialOutcome.OPEN:
            lines.append("   " + m.t("presude.open"))
        elif trial.outcome is TrialOutcome.INTERRUPTED:
            lines.append("   " + m.t("presude.interrupted", why=m.t(f"end.{trial.end_reason or 'unknown'}")))
        else:
            assert trial.verdict is not None
            draft = verdict_from_json(trial.verdict)
            lines.append("   " + render_verdict(draft, m))
            lines.append("   " + m.t("presude.reason", reason=draft.reason or "—"))
    return "\n".join(lines)
