"""Text the desk shows that is built from data: a game's hands trick by trick (with the changes attached to each
hand), a verdict, a game's trials with their whole conversation (paged), each line labelled by its author's
function for those who may not see referees' and councilors' names, and the appeals and reports of a game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.messages import Catalogue
from rules.cards import display_hand
from rules.gamelog import Game
from rules.members import PartyRole
from rules.paper import Paper
from rules.paper_hand import HandScore, hand_facts
from rules.paper_render import bid_text, change_text, contract_text, kontra_text, outcome_lines
from rules.penalty_model import PenaltyKind, Sanction
from rules.play import replay
from rules.verdicts import BulaChange, Draft, FallTransfer, Nobody, NoVerdict, Penalty, Settlement, verdict_from_json
from storage.councils import Appeal
from storage.states import EndReason, TrialOutcome
from storage.trials import Trial

PAGE_SIZE = 20  # transcript messages per page of /presude


@dataclass(frozen=True, slots=True)
class TranscriptLine:
    """One message of a trial's conversation as a viewer sees it: its time, its author's label, its text."""

    at: datetime
    author: str
    text: str


def author_label(
    member: int | None, roles: Mapping[int, PartyRole], names: Mapping[int, str], show_names: bool, m: Catalogue
) -> str:
    """The author of a trial message: his nickname, or "sudija" / "većnik" for the referee and a councilor when
    the viewer may not see their names."""
    role = roles.get(member) if member is not None else None
    if not show_names and role in (PartyRole.REFEREE, PartyRole.COUNCILOR):
        return m.t(f"presude.label_{role}")
    if member is None:
        return m.t("presude.label_unknown")
    return names.get(member, m.t("presude.label_unknown"))


def render_hands(game: Game, m: Catalogue, paper: Paper | None = None) -> str:
    """Prikaz ruke: every hand with all cards, the auction, the contract and the tricks (winner marked), and the
    changes attached to each hand, as the hand list of the paper shows them."""
    names = game.players
    lines = [m.t("hands.title", game=game.number, players=", ".join(names))]
    for hand in game.hands:
        on_paper = paper.hand(hand.n) if paper is not None else None
        lines += _hand_block(game, hand.n, m, on_paper.score if on_paper is not None else None)
        if on_paper is not None and on_paper.changes:
            lines.append(m.t("hands.changes", n=hand.n))
            lines += [m.t("hands.change", text=change_text(names, a, m.t)) for a in on_paper.changes]
    return "\n".join(lines)


def render_hand_in_progress(game: Game, m: Catalogue) -> str:
    """The game's last hand (the hand in progress) as Prikaz ruke shows it, under the game's title."""
    lines = [m.t("hands.title", game=game.number, players=", ".join(game.players))]
    return "\n".join([*lines, *_hand_block(game, game.hands[-1].n, m)])


def _hand_block(game: Game, n: int, m: Catalogue, score: HandScore | None = None) -> list[str]:
    """One hand: the deal, the talon, the auction, the contract, the defenders' answers and the doubling chain, the
    tricks, and the outcome as the paper writes it (`score`; without a paper, the hand's own score)."""
    names = game.players
    hand = next(h for h in game.hands if h.n == n)
    lines: list[str] = []
    status = "" if hand.completed else " " + m.t("hands.in_progress")
    lines.append(m.t("hands.hand", n=hand.n, dealer=names[hand.dealer]) + status)
    for seat in range(3):
        lines.append(f"  {names[seat]:>12}: {display_hand(hand.deal[seat])}")
    lines.append(f"  {m.t('hands.talon'):>12}: {display_hand(hand.talon)}")
    if hand.bids:
        calls = ", ".join(f"{names[b.seat]} {bid_text(b.call, m.t)}" for b in hand.bids)
        lines.append("  " + m.t("hands.bids") + ": " + calls)
    if hand.declarer is None or hand.contract is None:
        if hand.completed or (len(hand.bids) >= 3 and all(b.call == "dalje" for b in hand.bids)):
            lines.append("  " + m.t("hands.all_pass"))  # an auction still going on is no all-pass hand
        return lines
    contract = contract_text(hand.contract, m.t)
    lines.append("  " + m.t("hands.contract", declarer=names[hand.declarer], contract=contract))
    if hand.discards:
        lines.append("  " + m.t("hands.discards") + ": " + display_hand(hand.discards))
    if hand.defense:
        lines.append(
            "  " + ", ".join(f"{names[s]}: {m.t('decision.' + d.value)}" for s, d in sorted(hand.defense.items()))
        )
    if hand.kontra:
        lines.append("  " + kontra_text(names, hand.kontra, m.t))
    for trick in replay(hand).tricks:
        cards = "  ".join(f"{names[trick.seat_of(i)]} {c.display()}" for i, c in enumerate(trick.cards))
        lines.append(f"    {trick.number:>2}. {cards}  → {names[trick.winner]}")
    if hand.completed:
        lines += ["  " + line for line in outcome_lines(names, score or hand_facts(hand).plain, m.t)]
    return lines


SANCTION_COUNTED = frozenset(
    {PenaltyKind.IMPS, PenaltyKind.BULE, PenaltyKind.APPEAL_RESTRICTION_DAYS, PenaltyKind.SUSPENSION_DAYS}
)


def sanction_part(kind: PenaltyKind, amount: int, innocent: int, m: Catalogue) -> str:
    """One penalty in the club's units: "opomena", "30% topa", "3 IMP", "dodeljeni rezultat 40% (60%)",
    "dodeljeni rezultat u IMP: -3 (+3)"."""
    key = f"sanction.{kind}"
    if kind in SANCTION_COUNTED:
        return m.t(key, count=amount)
    if kind is PenaltyKind.ASSIGNED_IMPS:  # a score: each side's IMPs with their sign
        return m.t(key, amount=f"{amount:+d}", innocent=f"{innocent:+d}")
    return m.t(key, amount=amount, innocent=innocent)


def sanction_text(sanction: Sanction, offence: str, m: Catalogue) -> str:
    """A verdict's sanction as recorded: its kind and amount, what it adds, what the rule counted, the step of
    the escalation."""
    text = sanction_part(sanction.kind, sanction.amount, sanction.innocent, m)
    if sanction.also is not None:
        text = m.t("sanction.with", first=text, also=sanction_part(sanction.also, sanction.also_amount, 0, m))
    details = [offence] if offence else []
    if sanction.units is not None:
        details.append(m.t("sanction.units", units=sanction.units))
    if sanction.repeat:
        details.append(m.t("sanction.repeat", repeat=sanction.repeat))
    return f"{text} ({'; '.join(details)})" if details else text


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
        if v.suspension_days:
            parts.append(m.t("verdict.show.suspension", days=v.suspension_days))
        if v.sanction is not None:
            parts.append(sanction_text(v.sanction, v.offence, m))
        return m.t("verdict.show.kazna", culprit=v.culprit, what=", ".join(parts))
    if isinstance(v, Settlement):
        return m.t("verdict.show.svodjenje")
    if isinstance(v, Nobody):
        return m.t("verdict.show.niko")
    assert isinstance(v, NoVerdict)
    return m.t("verdict.show.bez")


def render_trials(
    game: int,
    trials: Sequence[Trial],
    names: Mapping[int, str],
    show_referees: bool,
    m: Catalogue,
    transcripts: Mapping[int, Sequence[TranscriptLine]] | None = None,
    page_size: int | None = PAGE_SIZE,
) -> str:
    """Every trial of the game; each trial in `transcripts` with its conversation (the first `page_size`
    messages, then where the rest is: `/presude GAME TRIAL 2`; None: all of it)."""
    if not trials:
        return m.t("presude.none", game=game)
    lines = [m.t("presude.title", game=game)]
    for trial in trials:
        referee = names.get(trial.referee, "?") if show_referees else m.t("presude.hidden")
        head = m.t(
            "presude.trial",
            id=trial.id,
            kind=m.t("kind.in_game" if trial.in_game else "kind.out_of_game"),
            caller=names.get(trial.caller, "?"),
            referee=referee,
            opened=trial.opened_at,
        )
        lines.append(head)
        if trial.outcome is TrialOutcome.OPEN:
            lines.append("   " + m.t("presude.open"))
        elif trial.outcome is TrialOutcome.INTERRUPTED:
            lines.append("   " + m.t("presude.interrupted", why=m.t(EndReason.key_of(trial.end_reason))))
        else:
            assert trial.verdict is not None
            draft = verdict_from_json(trial.verdict)
            lines.append("   " + render_verdict(draft, m))
            lines.append("   " + m.t("presude.reason", reason=draft.reason or "—"))
        if transcripts is not None and trial.id in transcripts:
            said = transcripts[trial.id]
            shown = said if page_size is None else said[:page_size]
            lines.append(m.t("presude.transcript"))
            lines += _message_lines(shown, m) if shown else [m.t("presude.no_messages")]
            if len(said) > len(shown):
                lines.append(m.t("presude.more", more=len(said) - len(shown), game=game, trial=trial.id, page=2))
    return "\n".join(lines)


def render_appeals(appeals: Sequence[Appeal], names: Mapping[int, str], show_referees: bool, m: Catalogue) -> list[str]:
    """The lines under a game's trials (`/presude`, `sudija presude`) for every appeal against them and every report
    of the game itself: who filed it, when, its state and decision, the councilor who heard it (his name only to
    those who see referees' names), and an appeal restriction in days; none when there are none."""
    if not appeals:
        return []
    lines = [m.t("appeal.list_title")]
    for appeal in appeals:
        councilor = "—"
        if appeal.councilor is not None:
            councilor = names.get(appeal.councilor, "?") if show_referees else m.t("appeal.councilor_label")
        lines.append(
            m.t(
                "report.list_line" if appeal.trial is None else "appeal.list_line",
                appeal=appeal.id,
                trial=appeal.trial or "—",
                game=appeal.game,
                kind=appeal.kind,
                appellant=names.get(appeal.appellant, "?"),
                filed=appeal.filed_at,
                state=m.t(f"appeal.state_{appeal.state}"),
                reason=appeal.reason or "—",
                hearing=appeal.hearing or "—",
                councilor=councilor,
            )
        )
        if appeal.restriction_days:
            lines.append(m.t("appeal.list_restriction", days=appeal.restriction_days))
    return lines


def transcript_pages(count: int, page_size: int = PAGE_SIZE) -> int:
    return max(1, -(-count // page_size))


def render_transcript_page(
    game: int, trial: Trial, said: Sequence[TranscriptLine], page: int, m: Catalogue, page_size: int = PAGE_SIZE
) -> str:
    """Page `page` (from 1) of a trial's conversation; the caller checks that the page exists."""
    start = (page - 1) * page_size
    shown = said[start : start + page_size]
    lines = [
        m.t(
            "presude.page",
            trial=trial.id,
            game=game,
            first=start + 1 if shown else 0,
            last=start + len(shown),
            total=len(said),
            page=page,
            pages=transcript_pages(len(said), page_size),
        )
    ]
    lines += _message_lines(shown, m) if shown else [m.t("presude.no_messages")]
    if start + len(shown) < len(said):
        lines.append(m.t("presude.more", more=len(said) - start - len(shown), game=game, trial=trial.id, page=page + 1))
    return "\n".join(lines)


def _message_lines(said: Sequence[TranscriptLine], m: Catalogue) -> list[str]:
    return [m.t("presude.message", at=line.at, author=line.author, text=line.text) for line in said]
