"""The Arbitar's procedure: settle a disputed fall of a defender ("odlazak u bulu") in two steps, exactly.

It owns "Kako Arbitar odlučuje" of the club text with the definitions of `spec/decisions.md` ("The Arbitar"):

Step 1, the cards of both defenders, trick by trick. A card ``c`` that defender D played is an *error* when
some legal alternative ``a`` gives the declarer fewer tricks than ``c`` double-dummy in the real layout, and
over the layouts D could not see (`rules.arbitar.layouts.view`) that are *consistent with the bidding* (the
declarer makes his contract double-dummy from the first trick with that layout's starting hands) the number
where ``a`` is better minus the number where ``c`` is better is at least 10% of them (and above zero: with no
consistent layout nothing could be seen). Exact counts over all layouts, no sampling. An error of the other
defender *ruined* the fallen player's pass when with the better card the defence's tricks in the real layout
reach what the fallen player needed (4 together; 5 under kontra; in betl, the declarer's first trick). If
such an error exists and the fallen player made no error, the fall moves (step 1); if the fallen player erred,
it stays with him.

Step 2, only when both defenders followed without kontra and without zovem: the rezons of both from their ten
cards before play, the talon visible (`rules.arbitar.rezon`). The fall moves only when the other defender's
following is obviously bad, the fallen player's following meets the rules and he made no step-1 error.
Everything else is left to a referee's judgement: "nije očigledna greška", the fall stays.

How it stays fast and exact (`spec` target: p95 under 0.5 s a hand on two cores, `bench/arbitar.py`):

- Only cards that lost a trick in the real layout are candidates (one `solver.solve` per defender card), and
  only the checks that can change the verdict are made, cheapest view first: the other defender's ruining
  candidates; the fallen player's candidates only when a transfer is otherwise due (one error of his settles
  it). Alternatives equivalent to each other (`layouts.equivalent`) are compared once.
- Per candidate: the consistency of every layout first (one yes/no search from trick 1 each, cheap), then
  the played card and its better alternatives compared only on the consistent layouts, in combinatorial
  order (neighbours share the solver's table), on both cores (`solver.solve_layouts`), in chunks: the
  comparison stops as soon as the layouts left cannot move the count across the 10% bar either way. The
  chunking depends only on the counts, so the verdict and its evidence are the same bytes every time.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.arbitar import solver
from rules.arbitar.layouts import Moment, PlayedHand, equivalent, played_hand, view
from rules.arbitar.rezon import RezonCount, count_rezons
from rules.arbitar.verdict import NOT_OBVIOUS, STAYS, TRANSFER, ArbitarVerdict
from rules.cards import Card, mask_of
from rules.gamelog import Game, Hand
from rules.paper_hand import DefenceShape, HandCase, hand_facts, left_of, right_of

__all__ = ["CardJudgement", "Stats", "arbitrate", "arbitrate_with_stats", "better_alternatives",
           "declarer_last_after_passes", "follower_rezons", "judge_card", "real_values"]

THREADS = 2
MIN_CHUNK = 2048  # consistent layouts compared per call before the 10% bar is checked again
CHUNKS = 6
_INVERT = bytes([1, 0]) + bytes(254)


@dataclass(slots=True)
class Stats:
    """What the procedure examined (for the bench): card decisions, layouts seen, searches made."""

    decisions: int = 0  # candidate cards judged over layouts
    layouts: int = 0  # layouts enumerated (views of those cards)
    consistency: int = 0  # yes/no searches from trick 1
    compared: int = 0  # layouts where the played card and its alternatives were valued


@dataclass(frozen=True, slots=True)
class CardJudgement:
    """Whether one played card is an error by the 10% rule, with the counts that decided it."""

    moment: Moment
    better: int  # the alternative the evidence names (the first that met the bar, else the best in reality)
    with_card: int  # the declarer's tricks from this trick on, real layout, after the played card
    with_better: int  # the same after the better card
    layouts: int  # layouts seen from the player
    consistent: int  # of them consistent with the bidding (|L|)
    better_count: int  # consistent layouts where the alternative is better (over `examined`)
    worse_count: int  # consistent layouts where the played card is better (over `examined`)
    examined: int  # consistent layouts compared before the outcome was certain
    error: bool

    @property
    def bar(self) -> int:
        """The smallest count difference that makes an error: 10% of |L|, rounded up (and at least 1)."""
        return max(1, -(-self.consistent // 10))


def _is_error(difference: int, consistent: int) -> bool:
    return difference > 0 and 10 * difference >= consistent


def judge_card(played: PlayedHand, moment: Moment, alternatives: Iterable[int], real: dict[int, int],
               stats: Stats | None = None, threads: int = THREADS, chunk: int | None = None) -> CardJudgement:
    """Judge ``moment.card`` against ``alternatives`` (each better in the real layout, best first) by the 10% rule.

    ``real`` holds the declarer's tricks in the real layout for every legal card of the moment. ``chunk``: how
    many consistent layouts are compared between two looks at the bar (default: a sixth, at least 2048).
    """
    stats = stats if stats is not None else Stats()
    alts = tuple(alternatives)
    if not alts:
        raise ValueError("no alternative to judge the card against")
    seen = view(moment, played.declarer, played.kept)
    total = seen.size
    stats.decisions += 1
    stats.layouts += total
    stats.consistency += total
    reach = solver.layouts_reach(seen.starting_layouts(), played.trump, played.betl, played.declarer,
                                 played.leader, (), None, played.target, threads=threads)
    if played.betl:  # the contract is made when the declarer does not reach his first trick
        reach = reach.translate(_INVERT)
    consistent = reach.count(1)
    packed = seen.layouts()
    if consistent < total:
        raw = packed.tobytes()
        subset = array("I")
        subset.frombytes(b"".join(itertools.compress((raw[12 * k:12 * k + 12] for k in range(total)), reach)))
        packed = subset
    trick_leader = moment.leader if moment.before else None
    sign = -1 if played.betl else 1  # a card is better for the defence when the declarer takes fewer tricks
    step = chunk if chunk is not None else max(MIN_CHUNK, -(-consistent // CHUNKS))
    if step < 1:
        raise ValueError("chunk must be positive")
    mine = bytearray()  # the played card's values, layout by layout, as far as computed
    first: tuple[int, int, int] | None = None  # (better, worse, examined) of the first alternative
    for alt in alts:
        better = worse = done = 0
        error = False
        while done < consistent:
            upto = min(consistent, done + step)
            part = packed[3 * done:3 * upto]
            if len(mine) >= upto:
                theirs = solver.solve_layouts(part, played.trump, played.betl, played.declarer, moment.seat,
                                              moment.before, trick_leader, (alt,), threads=threads)
                own = bytes(mine[done:upto])
            else:
                both = solver.solve_layouts(part, played.trump, played.betl, played.declarer, moment.seat,
                                            moment.before, trick_leader, (moment.card, alt), threads=threads)
                own, theirs = both[0::2], both[1::2]
                mine.extend(own)
            stats.compared += upto - done
            for value, other in zip(own, theirs, strict=True):
                if value != other:
                    if sign * (value - other) > 0:
                        better += 1
                    else:
                        worse += 1
            done = upto
            left = consistent - done
            if _is_error(better - worse - left, consistent):
                error = True  # even if every layout left favoured the played card
                break
            if not _is_error(better - worse + left, consistent):
                break  # even if every layout left favoured the alternative
        if first is None:
            first = (better, worse, done)
        if error:
            return CardJudgement(moment, alt, real[moment.card], real[alt], total, consistent, better, worse, done,
                                 True)
    if first is None:  # no consistent layout: nothing could be seen from the player's seat
        first = (0, 0, 0)
    return CardJudgement(moment, alts[0], real[moment.card], real[alts[0]], total, consistent, first[0], first[1],
                         first[2], False)


@dataclass(slots=True)
class _Candidate:
    """A card that lost tricks in the real layout, and the alternatives to judge it against."""

    moment: Moment
    real: dict[int, int]
    alternatives: tuple[int, ...]
    cost: int  # layouts in the player's view


def real_values(played: PlayedHand, moment: Moment) -> dict[int, int]:
    """The declarer's tricks in the real layout from this trick on, for every legal card of the moment."""
    return solver.solve(moment.hands, played.trump, played.betl, played.declarer, moment.seat, moment.before,
                        moment.leader if moment.before else None)


def better_alternatives(played: PlayedHand, moment: Moment, real: dict[int, int]) -> list[int]:
    """The legal cards better than the played one in the real layout, best first, one per equivalent group."""
    sign = -1 if played.betl else 1
    mine = real[moment.card]
    better = sorted((c for c in real if sign * (real[c] - mine) < 0), key=lambda c: (sign * real[c], c))
    chosen: list[int] = []
    for card in better:
        if not any(equivalent(card, other, moment) for other in chosen):
            chosen.append(card)
    return chosen


def _show(card: int) -> str:
    return Card.from_index(card).display()


def _card_evidence(judgement: CardJudgement, players: tuple[str, str, str]) -> dict[str, Any]:
    m = judgement.moment
    return {
        "player": players[m.seat],
        "trick": m.trick,
        "card": _show(m.card),
        "better_card": _show(judgement.better),
        "declarer_tricks_with_card": judgement.with_card,
        "declarer_tricks_with_better": judgement.with_better,
        "layouts": judgement.layouts,
        "consistent_layouts": judgement.consistent,
        "better_card_better": judgement.better_count,
        "played_card_better": judgement.worse_count,
        "compared_layouts": judgement.examined,
        "bar": judgement.bar,
    }


def declarer_last_after_passes(hand: Hand, declarer: int) -> bool:
    """The AQ exception: the declarer spoke last in the auction and the other two only said dalje."""
    others = [i for i, bid in enumerate(hand.bids) if bid.seat != declarer]
    if not others or any(hand.bids[i].call != "dalje" for i in others):
        return False
    first_own = next((i for i, bid in enumerate(hand.bids) if bid.seat == declarer), None)
    seats_before = {hand.bids[i].seat for i in others if first_own is None or i < first_own}
    return len(seats_before) == 2


def follower_rezons(hand: Hand, played: PlayedHand, seat: int) -> RezonCount:
    """Step 2's count for a defender: his ten dealt cards, the talon the declarer bought visible."""
    bought = 0 if hand.contract is None or hand.contract.igra else mask_of(hand.talon)
    position = "first" if seat == right_of(played.declarer) else "second"
    return count_rezons(mask_of(hand.deal[seat]), played.trump, bought, position, True,
                        declarer_last_after_passes(hand, played.declarer))


def arbitrate(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    """The Arbitar's verdict on the fall of seat ``fallen`` in hand number ``hand`` of ``game``.

    Raises ValueError when there is nothing to decide: no such hand, a hand not played, ``fallen`` is the
    declarer or did not fall.
    """
    return arbitrate_with_stats(game, hand, fallen)[0]


def arbitrate_with_stats(game: Game, hand: int, fallen: int, threads: int = THREADS
                         ) -> tuple[ArbitarVerdict, Stats]:
    """`arbitrate`, and what it examined."""
    stats = Stats()
    the_hand = next((h for h in game.hands if h.n == hand), None)
    if the_hand is None:
        raise ValueError(f"game {game.number} has no hand {hand}")
    facts = hand_facts(the_hand)
    score = facts.plain
    if facts.case is not HandCase.PLAYED or the_hand.declarer is None:
        raise ValueError(f"hand {hand} was not played, so nobody fell as a defender")
    declarer = the_hand.declarer
    if fallen == declarer or fallen not in (0, 1, 2):
        raise ValueError(f"seat {fallen} is not a defender in hand {hand}")
    if fallen not in score.fallen:
        raise ValueError(f"{game.players[fallen]} did not fall in hand {hand}")
    players = game.players
    other = 3 - declarer - fallen
    shape = score.shape
    defence = score.defence_tricks[right_of(declarer)] + score.defence_tricks[left_of(declarer)]
    evidence: dict[str, Any] = {"defence_tricks": defence}
    if shape is DefenceShape.ALONE:
        evidence["note"] = f"{players[other]} nije pratio: njegove karte je igrao {players[fallen]}"
        return ArbitarVerdict(STAYS, None, 0, NOT_OBVIOUS, evidence), stats
    played = played_hand(the_hand)
    needed = 5 if shape is DefenceShape.KONTRA else 4
    evidence["needed"] = 1 if played.betl else needed

    def ruins(moment: Moment, value: int) -> bool:
        if played.betl:
            return moment.declarer_tricks + value >= 1
        return moment.defence_tricks + moment.tricks_left - value >= needed

    ruining: list[_Candidate] = []
    own: list[_Candidate] = []
    for moment in played.moments:
        if moment.seat == declarer:
            continue
        real = real_values(played, moment)
        alternatives = better_alternatives(played, moment, real)
        if not alternatives:
            continue
        cost = view(moment, declarer, played.kept).size
        if moment.seat == other:
            hurting = tuple(a for a in alternatives if ruins(moment, real[a]))
            if hurting:
                ruining.append(_Candidate(moment, real, hurting, cost))
        else:
            own.append(_Candidate(moment, real, tuple(alternatives), cost))
    evidence["ruining_candidates"] = len(ruining)

    step2: tuple[RezonCount, RezonCount] | None = None
    if shape is DefenceShape.BOTH:
        mine, theirs = follower_rezons(the_hand, played, fallen), follower_rezons(the_hand, played, other)
        step2 = (mine, theirs)
        evidence["rezons_fallen"] = mine.rezons
        evidence["rezons_other"] = theirs.rezons
        evidence["aces_fallen"] = mine.aces
        evidence["aces_other"] = theirs.aces
        evidence["fallen_meets_rules"] = mine.meets_rules
        evidence["other_obviously_bad"] = theirs.obviously_bad
    step2_due = step2 is not None and step2[1].obviously_bad and step2[0].meets_rules

    # Cheapest first; the verdict needs: some ruining error of the other (R), and whether the fallen erred (F)
    # once a transfer is due (R, or step 2). One fallen error settles it; one ruining error settles R.
    ruin_queue = sorted(ruining, key=lambda c: (c.cost, c.moment.trick, c.moment.position))
    own_queue = sorted(own, key=lambda c: (c.cost, c.moment.trick, c.moment.position))
    ruin_found: CardJudgement | None = None
    ruin_refuted: CardJudgement | None = None
    own_found: CardJudgement | None = None
    while True:
        ruin_open = ruin_found is None and bool(ruin_queue)
        if not (ruin_found is not None or step2_due or ruin_open):
            break  # no transfer is possible any more: the fallen player's own cards do not matter
        if not own_queue and not ruin_open:
            break
        take_own = bool(own_queue) and (not ruin_open or own_queue[0].cost <= ruin_queue[0].cost)
        candidate = own_queue.pop(0) if take_own else ruin_queue.pop(0)
        judged = judge_card(played, candidate.moment, candidate.alternatives, candidate.real, stats, threads)
        if take_own:
            if judged.error:
                own_found = judged
                break
        elif judged.error:
            ruin_found = judged
        elif ruin_refuted is None:
            ruin_refuted = judged

    if own_found is not None:
        evidence.update(_card_evidence(own_found, players))
        reason = (f"I {players[fallen]} je pogrešio: u {own_found.moment.trick}. štihu "
                  f"{_show(own_found.moment.card)} umesto {_show(own_found.better)}; pad ostaje njemu.")
        return ArbitarVerdict(STAYS, None, 1, reason, evidence), stats
    if ruin_found is not None:
        evidence.update(_card_evidence(ruin_found, players))
        reason = (f"Greška igrača {players[other]} u {ruin_found.moment.trick}. štihu "
                  f"({_show(ruin_found.moment.card)} umesto {_show(ruin_found.better)}) upropastila je prolaz "
                  f"igrača {players[fallen]}, a on nije pogrešio.")
        return ArbitarVerdict(TRANSFER, other, 1, reason, evidence), stats
    if step2_due and step2 is not None:
        reason = (f"Praćenje igrača {players[other]} je očigledno loše ({step2[1].rezons:g} rezona, "
                  f"{step2[1].aces} asova), a praćenje igrača {players[fallen]} ispunjava pravila i on nije "
                  f"pogrešio u kartama.")
        return ArbitarVerdict(TRANSFER, other, 2, reason, evidence), stats
    if ruin_refuted is not None:
        refuted = _card_evidence(ruin_refuted, players)
        evidence.update({f"checked_{key}": value for key, value in refuted.items()})
    return ArbitarVerdict(STAYS, None, 2 if step2 is not None else 1, NOT_OBVIOUS, evidence), stats
