"""The Arbitar's procedure: settle a disputed fall of a defender ("odlazak u bulu") in two steps, exactly.

It owns "Kako Arbitar odlučuje" of the club text with the definitions of `spec/decisions.md` ("The Arbitar"):

Only a defender who played his own cards can receive a fall: when the other defender passed and his cards were
played by the fallen one (one follower alone; kontra with a partner who passed, without zovem), the fall stays,
with no step (`played_own_cards`). Under zovem, with or without a kontra after it, the called player plays his own
cards and can receive a fall through step 1.

Step 1, the cards of both defenders, trick by trick. A card ``c`` that defender D played is an *error* when
some legal alternative ``a`` gives the declarer fewer tricks than ``c`` double-dummy in the real layout, and
over the layouts D could not see (`rules.arbitar.layouts.view`) that are *consistent with the bidding* (the
declarer makes his contract double-dummy from the first trick with that layout's starting hands) the number
where ``a`` is better minus the number where ``c`` is better is at least 10% of them (and above zero: with no
consistent layout nothing could be seen). Exact counts over all layouts, no sampling. In betl the defence aims
at one declarer trick and play stops there, so every value is capped at the declarer's first trick
(`value_cap`): a card is better or worse only when it changes whether he takes a trick. An error of the other
defender *ruined* the fallen player's pass when with the better card the defence's tricks in the real layout
reach what the fallen player needed (4 together; 5 under kontra; in betl, the declarer's first trick). The
fallen player's own cards are always judged: an error of his keeps the fall with him (step 1) and is shown.
Otherwise a ruining error of the other moves the fall (step 1). The hand's opening lead (polaz) is the
referee's to judge (`is_opening_lead`): the other's never moves a fall, and the fallen player's own is judged
only before a fall would move — an error there leaves the fall with him, "nije očigledna greška".

Step 2, only when both defenders followed without kontra and without zovem: the rezons of both from their ten
cards before play, the talon visible (`rules.arbitar.rezon`). The fall moves only when the other defender's
following is obviously bad, the fallen player's following meets the rules and he made no step-1 error.
Everything else is left to a referee's judgement: "nije očigledna greška", the fall stays.

The verdict's ``step`` is the step that decided (2 when step 2 was looked at, 1 when step 1 found an error,
None when neither applied). The card shown is the earliest erring card in play order (of the fallen player,
else of the other defender); its better card is the alternative with the largest count difference (ties: the
lower card), and its counts (better, worse, equal) are over every consistent layout.

How it stays fast and exact (its target and what `bench/arbitar.py` measures: docs/solver-journal.md, "Where the
Arbitar's budget goes"):

- Only cards that lost a trick in the real layout are candidates (one `solver.solve` per defender card, capped
  in betl), and alternatives equivalent to each other (`layouts.equivalent`) are compared once.
- Per candidate: the consistency of every layout first (one yes/no search from trick 1 each; a player's later
  views are parts of his earlier ones, so each of his layouts is searched once a hand), then the played card
  and all its better alternatives compared together on the consistent layouts, in revolving-door order
  (neighbours share the solver's table), on both cores (`solver.solve_layouts`), in chunks: an alternative is
  dropped as soon as the layouts left cannot bring it to the 10% bar, and the card is an error as soon as one
  reaches it; the card shown is then counted in full. The chunking depends only on the counts, so the verdict
  and its evidence are the same bytes every time.
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
from rules.arbitar.verdict import (
    NOT_OBVIOUS,
    REASON_NOT_OBVIOUS,
    REASON_OBVIOUSLY_BAD,
    REASON_OWN_ERROR,
    REASON_RUINED,
    STAYS,
    TRANSFER,
    ArbitarVerdict,
)
from rules.cards import Card, mask_of
from rules.gamelog import Decision, Game, Hand
from rules.paper_hand import DefenceShape, HandCase, hand_facts, left_of, right_of

__all__ = [
    "CardJudgement",
    "Stats",
    "arbitrate",
    "arbitrate_with_stats",
    "better_alternatives",
    "called_in",
    "declarer_last_after_passes",
    "follower_rezons",
    "judge_card",
    "played_own_cards",
    "real_values",
    "value_cap",
]

THREADS = 2
MIN_CHUNK = 2048  # consistent layouts compared per call before the 10% bar is checked again
CHUNKS = 6
_INVERT = bytes([1, 0]) + bytes(254)


@dataclass(slots=True)
class Stats:
    """What the procedure examined (for the bench): card decisions, layouts seen, searches made."""

    decisions: int = 0  # candidate cards judged over layouts
    layouts: int = 0  # layouts enumerated (views of those cards)
    consistency: int = 0  # yes/no searches from trick 1 (a player's layouts are searched once per hand)
    compared: int = 0  # layouts where the played card and its alternatives were valued
    largest: int = 0  # the largest view judged (184,756: a defender's opening lead)


@dataclass(frozen=True, slots=True)
class CardJudgement:
    """Whether one played card is an error by the 10% rule, with the counts that decided it.

    With ``examined == consistent`` (always so for an error, see `judge_card`) the counts are exact over all
    consistent layouts and ``better_count + worse_count + equal_count == consistent``.
    """

    moment: Moment
    better: int  # the alternative the evidence names (an error: the largest count difference, ties the lower card)
    with_card: int  # the declarer's tricks from this trick on, real layout, after the played card (capped in betl)
    with_better: int  # the same after the better card
    layouts: int  # layouts seen from the player
    consistent: int  # of them consistent with the bidding (|L|)
    better_count: int  # consistent layouts where the alternative is better (over `examined`)
    worse_count: int  # consistent layouts where the played card is better (over `examined`)
    examined: int  # consistent layouts compared
    error: bool

    @property
    def equal_count(self) -> int:
        """Compared layouts where the two cards are worth the same."""
        return self.examined - self.better_count - self.worse_count

    @property
    def bar(self) -> int:
        """The smallest count difference that makes an error: 10% of |L|, rounded up (and at least 1)."""
        return max(1, -(-self.consistent // 10))


def _is_error(difference: int, consistent: int) -> bool:
    return difference > 0 and 10 * difference >= consistent


def value_cap(played: PlayedHand, moment: Moment) -> int | None:
    """Betl stops at the declarer's first trick: values from this trick on are capped at the tricks he still
    lacks for that (1, or 0 once he has one); None outside betl."""
    if not played.betl:
        return None
    return max(0, 1 - moment.declarer_tricks)


def _counts(own: bytes, theirs: bytes, sign: int) -> tuple[int, int]:
    """(layouts where the alternative is better for the defence, layouts where the played card is)."""
    better = worse = 0
    for value, other in zip(own, theirs, strict=True):
        if value != other:
            if sign * (value - other) > 0:
                better += 1
            else:
                worse += 1
    return better, worse


def _consistency(played: PlayedHand, starting: array[int], known: dict[int, bool], stats: Stats, threads: int) -> bytes:
    """One byte per layout: 1 when the declarer makes his contract double-dummy from trick 1 with the layout's
    starting hands. Layouts in ``known`` (by the declarer's starting hand) are not searched again."""
    hands = starting[played.declarer :: 3].tolist()
    missing = [k for k, hand in enumerate(hands) if hand not in known]
    if missing:
        if len(missing) == len(hands):
            todo = starting
        else:
            raw = starting.tobytes()
            todo = array("I")
            todo.frombytes(b"".join(raw[12 * k : 12 * k + 12] for k in missing))
        stats.consistency += len(missing)
        reach = solver.layouts_reach(
            todo, played.trump, played.betl, played.declarer, played.leader, (), None, played.target, threads=threads
        )
        made = 0 if played.betl else 1  # betl: the contract is made when the declarer does not reach a trick
        for k, value in zip(missing, reach, strict=True):
            known[hands[k]] = value == made
    return bytes(known[hand] for hand in hands)


def judge_card(
    played: PlayedHand,
    moment: Moment,
    alternatives: Iterable[int],
    real: dict[int, int],
    stats: Stats | None = None,
    threads: int = THREADS,
    chunk: int | None = None,
    known: dict[int, bool] | None = None,
) -> CardJudgement:
    """Judge ``moment.card`` against ``alternatives`` (each better in the real layout, best first) by the 10% rule.

    ``real`` holds the declarer's tricks in the real layout for every legal card of the moment (capped in betl,
    `value_cap`). ``known``: the consistency of layouts already searched for this player in this hand, by the
    declarer's starting hand (his later views are parts of his earlier ones), filled in here. ``chunk``: how
    many consistent layouts are compared between two looks at the bar (default: a sixth, at least 2048). Every
    alternative is compared at once, chunk by chunk; one stops as soon as the layouts left cannot move it
    across the bar either way. Once the card is found an error, every alternative is counted in full over all
    consistent layouts and the evidence names the one with the largest difference (ties: the lower card). A
    card that is not an error shows the counts of its first alternative as far as they were made.
    """
    stats = stats if stats is not None else Stats()
    alts = tuple(alternatives)
    if not alts:
        raise ValueError("no alternative to judge the card against")
    seen = view(moment, played.declarer, played.kept)
    total = seen.size
    stats.decisions += 1
    stats.layouts += total
    stats.largest = max(stats.largest, total)
    reach = _consistency(played, seen.starting_layouts(), known if known is not None else {}, stats, threads)
    consistent = reach.count(1)
    packed = seen.layouts()
    if consistent < total:
        raw = packed.tobytes()
        subset = array("I")
        subset.frombytes(b"".join(itertools.compress((raw[12 * k : 12 * k + 12] for k in range(total)), reach)))
        packed = subset
    trick_leader = moment.leader if moment.before else None
    cap = value_cap(played, moment)
    sign = -1 if played.betl else 1  # a card is better for the defence when the declarer takes fewer tricks
    step = chunk if chunk is not None else max(MIN_CHUNK, -(-consistent // CHUNKS))
    if step < 1:
        raise ValueError("chunk must be positive")
    values: dict[int, bytearray] = {card: bytearray() for card in (moment.card, *alts)}
    mine = values[moment.card]

    def extend(alternatives: tuple[int, ...], upto: int) -> None:
        """Value the played card and ``alternatives`` (all computed as far as the first) on the consistent
        layouts up to ``upto``. The alternatives are valued relative to the played card (`solver.solve_layouts`
        ``relative``): whether each is better, worse or the same is all the counts need."""
        cards = (moment.card, *alternatives)
        done = len(values[alternatives[0]]) if alternatives else len(mine)
        if upto <= done:
            return
        got = solver.solve_layouts(
            packed[3 * done : 3 * upto],
            played.trump,
            played.betl,
            played.declarer,
            moment.seat,
            moment.before,
            trick_leader,
            cards,
            threads=threads,
            cap=cap,
            relative=True,
        )
        stats.compared += upto - done
        if len(mine) < upto:
            mine.extend(got[0 :: len(cards)][len(mine) - done :])
        for k, card in enumerate(alternatives, start=1):
            values[card].extend(got[k :: len(cards)])

    def complete() -> None:
        """Value every alternative on every consistent layout, those computed as far as each other together."""
        for length in sorted({len(values[alt]) for alt in alts}):
            extend(tuple(alt for alt in alts if len(values[alt]) == length), consistent)

    # Every alternative is compared at once, chunk by chunk (one search of the layout serves all of them); an
    # alternative is dropped once the layouts left cannot bring it to the bar, and the first that reaches the
    # bar makes the card an error.
    counts = {alt: [0, 0, 0] for alt in alts}  # better, worse, examined
    open_alts = list(alts)
    done = 0
    error = False
    while done < consistent and open_alts and not error:
        upto = min(consistent, done + step)
        extend(tuple(open_alts), upto)
        left = consistent - upto
        for alt in tuple(open_alts):
            b, w = _counts(bytes(mine[done:upto]), bytes(values[alt][done:upto]), sign)
            count = counts[alt]
            count[0] += b
            count[1] += w
            count[2] = upto
            if _is_error(count[0] - count[1] - left, consistent):
                error = True  # even if every layout left favoured the played card
            elif not _is_error(count[0] - count[1] + left, consistent):
                open_alts.remove(alt)  # even if every layout left favoured the alternative
        done = upto
    if not error:
        first = counts[alts[0]]
        return CardJudgement(
            moment, alts[0], real[moment.card], real[alts[0]], total, consistent, first[0], first[1], first[2], False
        )
    # An error: every alternative counted in full, the largest difference shown (ties: the lower card).
    complete()
    full: list[tuple[int, int, int]] = []
    for alt in alts:
        b, w = _counts(bytes(mine), bytes(values[alt]), sign)
        full.append((b - w, -alt, b))
    difference, negated, better = max(full)
    shown = -negated
    return CardJudgement(
        moment, shown, real[moment.card], real[shown], total, consistent, better, better - difference, consistent, True
    )


@dataclass(slots=True)
class _Candidate:
    """A card that lost tricks in the real layout, and the alternatives to judge it against."""

    moment: Moment
    real: dict[int, int]
    alternatives: tuple[int, ...]


def real_values(played: PlayedHand, moment: Moment) -> dict[int, int]:
    """The declarer's tricks in the real layout from this trick on, for every legal card of the moment (in betl
    capped at the first trick he still lacks, `value_cap`: the solver's capped query, one yes/no search per
    card, not the full count)."""
    return solver.solve(
        moment.hands,
        played.trump,
        played.betl,
        played.declarer,
        moment.seat,
        moment.before,
        moment.leader if moment.before else None,
        cap=value_cap(played, moment),
    )


def better_alternatives(played: PlayedHand, moment: Moment, real: dict[int, int]) -> list[int]:
    """The legal cards better than the played one in the real layout, best first, one per equivalent group
    (the lowest card of the group)."""
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
        "equal_layouts": judgement.equal_count,
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
    return count_rezons(
        mask_of(hand.deal[seat]),
        played.trump,
        bought,
        position,
        True,
        declarer_last_after_passes(hand, played.declarer),
    )


def played_own_cards(hand: Hand, shape: DefenceShape | None, seat: int) -> bool:
    """Whether defender ``seat`` played his own cards (decisions.md: only he can receive a fall).

    Both following, zovem (the called player plays his hand, with or without a kontra after the zovem) and betl:
    both did. One follower alone: only the follower; the other's cards were played by him. Kontra without zovem:
    a defender who passed had his cards played by the kontra giver.
    """
    if shape is DefenceShape.ALONE or (shape is DefenceShape.KONTRA and not called_in(hand)):
        return hand.defense.get(seat, Decision.PASSES) is not Decision.PASSES
    return True


def called_in(hand: Hand) -> bool:
    """A defender said zovem: the other, who passed, was called in and plays his own hand (whatever follows)."""
    return Decision.CALLS in hand.defense.values()


def is_opening_lead(moment: Moment) -> bool:
    """The hand's first card (polaz). The club's rules leave it to the referee ("Sve što pravila ostavljaju
    proceni sudije (… polaz …) Arbitar ne presuđuje: tada odgovara „nije očigledna greška“, pad ostaje"): the other
    defender's polaz never moves a fall, and a fall that would move is left with the fallen player, "nije
    očigledna greška", when his own polaz was an error."""
    return moment.trick == 1 and moment.position == 0


def arbitrate(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    """The Arbitar's verdict on the fall of seat ``fallen`` in hand number ``hand`` of ``game``.

    Raises ValueError when there is nothing to decide: no such hand, a hand not played, ``fallen`` is the
    declarer or did not fall.
    """
    return arbitrate_with_stats(game, hand, fallen)[0]


def _earliest_error(
    played: PlayedHand, candidates: list[_Candidate], stats: Stats, threads: int, known: dict[int, bool]
) -> tuple[CardJudgement | None, CardJudgement | None]:
    """(the earliest card in play order that is an error, the first one judged not to be), judging in order.

    ``known``: the consistency of the layouts of this player's views searched so far (see `judge_card`)."""
    refuted: CardJudgement | None = None
    for candidate in candidates:
        judged = judge_card(
            played, candidate.moment, candidate.alternatives, candidate.real, stats, threads, known=known
        )
        if judged.error:
            return judged, refuted
        if refuted is None:
            refuted = judged
    return None, refuted


class NothingToJudge(ValueError):
    """Why a fall cannot be judged: `message_key` (an ``arbitar.refused.*`` entry of the catalogues) and its
    `values`, for the edge to write in its reader's language; its text is the English, for logs."""

    def __init__(self, message_key: str, english: str, **values: object) -> None:
        super().__init__(english)
        self.message_key = message_key
        self.values = values


def arbitrate_with_stats(game: Game, hand: int, fallen: int, threads: int = THREADS) -> tuple[ArbitarVerdict, Stats]:
    """`arbitrate`, and what it examined."""
    stats = Stats()
    the_hand = next((h for h in game.hands if h.n == hand), None)
    if the_hand is None:
        raise NothingToJudge(
            "arbitar.refused.no_hand", f"game {game.number} has no hand {hand}", game=game.number, hand=hand
        )
    facts = hand_facts(the_hand)
    score = facts.plain
    if facts.case is not HandCase.PLAYED or the_hand.declarer is None:
        raise NothingToJudge(
            "arbitar.refused.not_played", f"hand {hand} was not played, so nobody fell as a defender", hand=hand
        )
    declarer = the_hand.declarer
    if fallen == declarer or fallen not in (0, 1, 2):
        nick = game.players[fallen] if fallen in (0, 1, 2) else f"seat {fallen}"
        raise NothingToJudge(
            "arbitar.refused.not_defender", f"{nick} is not a defender in hand {hand}", nick=nick, hand=hand
        )
    if fallen not in score.fallen:
        nick = game.players[fallen]
        raise NothingToJudge("arbitar.refused.not_fallen", f"{nick} did not fall in hand {hand}", nick=nick, hand=hand)
    players = game.players
    other = 3 - declarer - fallen
    shape = score.shape
    defence = score.defence_tricks[right_of(declarer)] + score.defence_tricks[left_of(declarer)]
    evidence: dict[str, Any] = {"defence_tricks": defence}
    if not played_own_cards(the_hand, shape, other):
        evidence["not_own_cards"] = players[other]  # he did not follow: the fallen player played his cards
        evidence["cards_played_by"] = players[fallen]
        return ArbitarVerdict(STAYS, None, None, NOT_OBVIOUS, evidence, REASON_NOT_OBVIOUS), stats
    played = played_hand(the_hand)
    needed = 5 if shape is DefenceShape.KONTRA else 4
    evidence["needed"] = 1 if played.betl else needed
    if played.betl:
        evidence["betl"] = True  # `needed` is then the declarer's tricks that make the betl fall

    def ruins(moment: Moment, value: int) -> bool:
        if played.betl:
            return moment.declarer_tricks + value >= 1
        return moment.defence_tricks + moment.tricks_left - value >= needed

    ruining: list[_Candidate] = []
    own: list[_Candidate] = []
    own_lead: list[_Candidate] = []  # the fallen player's opening lead, judged only before a transfer
    for moment in played.moments:  # play order
        if moment.seat == declarer:
            continue
        if is_opening_lead(moment) and moment.seat == other:
            continue  # the other's polaz is the referee's to judge: it never moves a fall
        real = real_values(played, moment)
        alternatives = better_alternatives(played, moment, real)
        if not alternatives:
            continue
        if is_opening_lead(moment):
            own_lead.append(_Candidate(moment, real, tuple(alternatives)))
        elif moment.seat == other:
            hurting = tuple(a for a in alternatives if ruins(moment, real[a]))
            if hurting:
                ruining.append(_Candidate(moment, real, hurting))
        else:
            own.append(_Candidate(moment, real, tuple(alternatives)))
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

    # The other defender's ruining errors, then the fallen player's own cards: an error of his is always
    # reported and keeps the fall with him (step 1), whatever the other did.
    ruin_found, ruin_refuted = _earliest_error(played, ruining, stats, threads, {})
    own_found, _ = _earliest_error(played, own, stats, threads, {})
    if ruin_found is None and ruin_refuted is not None:
        refuted = _card_evidence(ruin_refuted, players)
        evidence.update({f"checked_{key}": value for key, value in refuted.items()})
    if own_found is not None:
        evidence.update(_card_evidence(own_found, players))
        if ruin_found is not None:
            evidence.update({f"other_{key}": value for key, value in _card_evidence(ruin_found, players).items()})
        values = {
            "fallen": players[fallen],
            "trick": own_found.moment.trick,
            "card": _show(own_found.moment.card),
            "better": _show(own_found.better),
        }
        reason = "Greška igrača {fallen} u {trick}. štihu: {card} umesto {better}; pad ostaje igraču {fallen}."
        return ArbitarVerdict(STAYS, None, 1, reason.format(**values), evidence, REASON_OWN_ERROR, values), stats
    if (ruin_found is not None or step2_due) and own_lead:
        lead_found, _ = _earliest_error(played, own_lead, stats, threads, {})
        if lead_found is not None:  # his own polaz may have lost the pass: only a referee can weigh that
            evidence.update({f"lead_{key}": value for key, value in _card_evidence(lead_found, players).items()})
            return ArbitarVerdict(STAYS, None, None, NOT_OBVIOUS, evidence, REASON_NOT_OBVIOUS), stats
    if ruin_found is not None:
        evidence.update(_card_evidence(ruin_found, players))
        values = {
            "other": players[other],
            "fallen": players[fallen],
            "trick": ruin_found.moment.trick,
            "card": _show(ruin_found.moment.card),
            "better": _show(ruin_found.better),
        }
        reason = (
            "Greška igrača {other} u {trick}. štihu ({card} umesto {better}) upropastila je prolaz igrača "
            "{fallen}; u kartama igrača {fallen} greške nema."
        )
        return ArbitarVerdict(TRANSFER, other, 1, reason.format(**values), evidence, REASON_RUINED, values), stats
    if step2_due and step2 is not None:
        values = {
            "other": players[other],
            "fallen": players[fallen],
            "rezons": f"{step2[1].rezons:g}",
            "aces": step2[1].aces,
        }
        reason = (
            "Praćenje igrača {other} je očigledno loše (rezona: {rezons}, asova: {aces}), a praćenje igrača "
            "{fallen} ispunjava pravila i u kartama igrača {fallen} greške nema."
        )
        return (
            ArbitarVerdict(TRANSFER, other, 2, reason.format(**values), evidence, REASON_OBVIOUSLY_BAD, values),
            stats,
        )
    step = 2 if step2 is not None else None
    return ArbitarVerdict(STAYS, None, step, NOT_OBVIOUS, evidence, REASON_NOT_OBVIOUS), stats
