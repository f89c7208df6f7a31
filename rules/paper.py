"""The paper (papir): the running score sheet of a game, always derived from the log and the changes made after hands.

`compute_paper(game, changes)` walks the completed hands in order: each hand writes what `rules.paper_hand` scored
for it, in the outcome the refe state allows (a declarer under an open refe plays for double and marks one refe
played; an all-pass hand writes a refe unless the game's refe limit is reached or somebody is under the hat);
then the changes attached to that hand apply (Promena bula, Odlazak u bulu umesto drugog, Ispravka, the write-off
of a settlement). The game ends after the hand in which the bule sum to zero or less; the bule are then levelled
to zero by the write-off and the results follow. A change is data (`PaperChange`): the paper is never edited in
place, so removing a change restores the paper exactly. Validating a new change is `rules.paper_changes`';
rendering is `rules.paper_render`'s.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, NamedTuple

from rules.gamelog import Game, GameStatus, ScoreEntry, parse_time
from rules.limits import MIN_BULE_LEFT
from rules.paper_hand import ZERO_ENTRIES, Entry, HandCase, HandFacts, HandScore, hand_facts

RESULT_FACTOR = 10  # result = supe written − supe against − 10 × final bule


class ChangeKind(StrEnum):
    PROMENA_BULA = "promena_bula"  # the referee adds or takes an even number of bule
    ODLAZAK_U_BULU = "odlazak_u_bulu"  # `player` goes into the bule instead of the defender who fell
    ISPRAVKA = "ispravka"  # `player`, who fell, is recorded as passed
    OTPIS = "otpis"  # the write-off of a manual settlement (ručno svođenje) of an interrupted game


@dataclass(frozen=True, slots=True)
class PaperChange:
    """A change made after a hand: who made it, what, when, why, in which trial; attached to completed hand `hand`.

    `bule` (Promena bula) is the change per seat, in seat order. `player` is the culprit who goes into the bule
    (Odlazak u bulu) or the player who fell and is recorded as passed (Ispravka). `id` is the storage's key.
    """

    kind: ChangeKind
    hand: int
    who: str
    when: datetime
    why: str = ""
    trial: int | None = None
    bule: tuple[int, int, int] = (0, 0, 0)
    player: int | None = None
    id: int | None = None

    def data(self) -> dict[str, Any]:
        """The kind-specific part as a JSON value (what the storage keeps beside who, when, why and trial)."""
        if self.kind is ChangeKind.PROMENA_BULA:
            return {"bule": list(self.bule)}
        if self.kind in (ChangeKind.ODLAZAK_U_BULU, ChangeKind.ISPRAVKA):
            return {"player": self.player}
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "hand": self.hand,
            "who": self.who,
            "when": self.when.isoformat(),
            "why": self.why,
            "trial": self.trial,
            **self.data(),
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> PaperChange:
        bule = doc.get("bule") or (0, 0, 0)
        when = doc["when"]
        return cls(
            kind=ChangeKind(doc["kind"]),
            hand=int(doc["hand"]),
            who=str(doc.get("who", "")),
            when=when if isinstance(when, datetime) else parse_time(when),
            why=str(doc.get("why") or ""),
            trial=doc.get("trial"),
            bule=(int(bule[0]), int(bule[1]), int(bule[2])),
            player=doc.get("player"),
            id=doc.get("id"),
        )


@dataclass(frozen=True, slots=True)
class AppliedChange:
    """A change as the paper applied it: its entries per seat, whether it applied, and a note for people."""

    change: PaperChange
    entries: tuple[Entry, Entry, Entry]
    applied: bool = True
    note: str = ""  # a NOTE_* code: why an Ispravka was reduced, or why a change did not apply
    requested: int = 0  # an Ispravka's full amount (before any reduction)
    bule_sum_after: int = 0


class PaperHand(NamedTuple):
    """One hand on the paper: its own score (None when not scored), the changes attached to it, the bule after."""

    n: int
    score: HandScore | None
    changes: tuple[AppliedChange, ...]
    bule_after: tuple[int, int, int]
    unscored: str = ""  # why `score` is None: not_finished, no_contract, after_end

    @property
    def total(self) -> tuple[Entry, Entry, Entry]:
        """The hand's entries plus its changes' (what a hand with changes shows)."""
        entries = list(self.score.entries if self.score is not None else ZERO_ENTRIES)
        for applied in self.changes:
            for seat in range(3):
                entries[seat] = entries[seat] + applied.entries[seat]
        return entries[0], entries[1], entries[2]


@dataclass(frozen=True, slots=True)
class PlayerColumn:
    """One player's column: left supe, bule, right supe, refe marks; the result once the game has ended."""

    name: str
    bule: int  # after the write-off once the game has ended
    supe_left: int
    supe_right: int
    refe_open: int
    refe_played: int
    written_off: int = 0
    result: int | None = None

    @property
    def under_hat(self) -> bool:
        """Under the hat (kapa): bule below zero."""
        return self.bule < 0


@dataclass(frozen=True, slots=True)
class Paper:
    game: int
    size: int
    refe_limit: int
    players: tuple[PlayerColumn, PlayerColumn, PlayerColumn]
    hands: tuple[PaperHand, ...]
    ended: bool
    end_hand: int | None  # the hand after which the bule summed to zero or less (None: not ended so, or settled)
    settled: bool  # ended by the write-off of a manual settlement
    write_off: tuple[int, int, int] | None  # bule written off at the end (levelling to zero), when ended
    refe_rounds: int
    bule_sum: int  # before the write-off
    notes: tuple[str, ...] = field(default=())

    def hand(self, n: int) -> PaperHand | None:
        return self.hands[n - 1] if 1 <= n <= len(self.hands) else None

    @property
    def scored_hands(self) -> int:
        """How many hands (from the first) the paper scored."""
        return sum(1 for h in self.hands if h.score is not None)


# --------------------------------------------------------------------------------------------- the write-off


def write_off(bule: Sequence[int]) -> tuple[int, int, int]:
    """What each player writes off so the bule sum to exactly zero (spec/scoring.md, Write-off).

    `q, r = divmod(S, 3)`: the r worst (highest bule) write off q + 1, the others q, ties by seat order. For a
    negative sum the bule are raised the same way, the best (lowest bule) raised first, ties by seat order.
    """
    total = sum(bule)
    amounts = [0, 0, 0]
    if total >= 0:
        q, r = divmod(total, 3)
        order = sorted(range(3), key=lambda s: (-bule[s], s))
        for i, seat in enumerate(order):
            amounts[seat] = q + (1 if i < r else 0)
    else:
        q, r = divmod(-total, 3)
        order = sorted(range(3), key=lambda s: (bule[s], s))
        for i, seat in enumerate(order):
            amounts[seat] = -(q + (1 if i < r else 0))
    return amounts[0], amounts[1], amounts[2]


# ------------------------------------------------------------------------------------ hand facts, cached


_FACTS: OrderedDict[int, tuple[Game, tuple[HandFacts, ...]]] = OrderedDict()
_FACTS_LIMIT = 16  # games whose hand scoring is kept (a parsed 200-hand game and its scoring: about 1.3 MB)


def game_facts(game: Game) -> tuple[HandFacts, ...]:
    """`hand_facts` of every hand, cached per game object (a Game is immutable; the cache keeps it alive), the
    game asked for least recently dropped first."""
    hit = _FACTS.get(id(game))
    if hit is not None and hit[0] is game:
        _FACTS.move_to_end(id(game))
        return hit[1]
    return _remember(game, tuple(hand_facts(hand) for hand in game.hands))


def grown_facts(earlier: Game, facts: Sequence[HandFacts], game: Game) -> tuple[HandFacts, ...]:
    """`game_facts(game)` for `game` grown from `earlier` by hands added after its own, when `facts` are
    `game_facts(earlier)`: only the added hands are scored (the live feed adding a hand to a game of hundreds).
    Proof of equality: a hand's facts depend on that hand alone (`hand_facts`), and `game`'s first hands are
    `earlier`'s very objects (checked; otherwise every hand is scored)."""
    count = len(earlier.hands)
    if len(facts) != count or count > len(game.hands):
        return game_facts(game)
    if any(mine is not theirs for mine, theirs in zip(earlier.hands, game.hands[:count], strict=True)):
        return game_facts(game)
    return _remember(game, (*facts, *(hand_facts(hand) for hand in game.hands[count:])))


def _remember(game: Game, facts: tuple[HandFacts, ...]) -> tuple[HandFacts, ...]:
    _FACTS[id(game)] = (game, facts)
    _FACTS.move_to_end(id(game))
    while len(_FACTS) > _FACTS_LIMIT:
        _FACTS.popitem(last=False)
    return facts


# ------------------------------------------------------------------------------------------ the running sheet


# Codes of `AppliedChange.note` (rules.paper_render words them for people).
NOTE_REDUCED = "reduced"  # an Ispravka reduced so that 2 bule stay
NOTE_NOT_SCORED = "hand_not_scored"
NOTE_NO_PLAYER = "no_player"
NOTE_DECLARER = "declarer_cannot_take_fall"
NOTE_NOT_FALLEN = "did_not_fall"
NOTE_TWICE = "already_in_hand"
NOTE_MOVED = "fall_moved"
NOTE_ENDED = "game_ended"
NOTE_SETTLED = "already_settled"


_FALL_MOVES = (ChangeKind.ODLAZAK_U_BULU, ChangeKind.ISPRAVKA)


def _not_applied(change: PaperChange, bule: Sequence[int], note: str) -> AppliedChange:
    return AppliedChange(change, ZERO_ENTRIES, applied=False, note=note, bule_sum_after=sum(bule))


def _apply(
    change: PaperChange, score: HandScore, done: list[AppliedChange], bule: list[int], ended: bool
) -> AppliedChange:
    """Apply one change after hand `score` (and the changes `done` before it at that hand) to `bule`."""
    kind = change.kind
    amounts = [0, 0, 0]
    note = ""
    requested = 0
    if kind is ChangeKind.PROMENA_BULA:
        amounts = list(change.bule)
    else:
        player = change.player
        declarer = score.declarer
        if player is None or not 0 <= player < 3 or declarer is None:
            return _not_applied(change, bule, NOTE_NO_PLAYER)
        if any(a.applied and a.change.kind is kind for a in done):
            return _not_applied(change, bule, NOTE_TWICE)
        if any(a.applied and a.change.kind in _FALL_MOVES for a in done):
            return _not_applied(change, bule, NOTE_MOVED)  # one fall move per hand, in either order
        if kind is ChangeKind.ODLAZAK_U_BULU:
            if player == declarer:
                return _not_applied(change, bule, NOTE_DECLARER)
            fallen = 3 - declarer - player
            if fallen not in score.fallen:
                return _not_applied(change, bule, NOTE_NOT_FALLEN)
            amounts[fallen] = -score.value
            amounts[player] = score.value
        else:  # ISPRAVKA
            if player not in score.fallen:
                return _not_applied(change, bule, NOTE_NOT_FALLEN)
            requested = -2 * score.value if player == declarer else -score.value
            amount = requested
            total = sum(bule)
            if not ended and total + amount < MIN_BULE_LEFT:
                amount = min(0, MIN_BULE_LEFT - total)
                note = NOTE_REDUCED
            amounts[player] = amount
    for seat in range(3):
        bule[seat] += amounts[seat]
    entries = (Entry(bule=amounts[0]), Entry(bule=amounts[1]), Entry(bule=amounts[2]))
    return AppliedChange(change, entries, note=note, requested=requested, bule_sum_after=sum(bule))


def compute_paper(game: Game, changes: Sequence[PaperChange] = ()) -> Paper:
    """The paper of `game` with `changes` applied, each after its hand in the order given."""
    facts = game_facts(game)
    by_hand: dict[int, list[PaperChange]] = {}
    for change in changes:
        by_hand.setdefault(change.hand, []).append(change)
    size = game.bule
    b0 = b1 = b2 = size
    used = [0, 0, 0]
    rounds = 0
    limit = game.refe_limit
    ended = False
    end_hand: int | None = None
    hands: list[PaperHand] = []
    chosen: list[HandScore] = []
    settlement: tuple[int, PaperChange] | None = None  # (index in hands, change)
    notes: list[str] = []
    unscored = HandCase.UNSCORED
    all_pass = HandCase.ALL_PASS
    pik_no_kontra = HandCase.PIK_NO_KONTRA
    for f in facts:
        n = f.n
        attached = by_hand.get(n) if by_hand else None
        case = f.case
        if ended or case is unscored:
            why = "after_end" if ended else f.plain.note
            skipped = tuple(_not_applied(c, (b0, b1, b2), NOTE_NOT_SCORED) for c in attached or ())
            hands.append(PaperHand(n, None, skipped, (b0, b1, b2), why))
            continue
        score: HandScore | None = None
        if (case is all_pass or case is pik_no_kontra) and rounds < limit and b0 >= 0 and b1 >= 0 and b2 >= 0:
            score = f.refe
        if score is None:
            declarer = f.plain.declarer
            if declarer is not None and f.doubled is not None and used[declarer] < rounds:
                score = f.doubled
                used[declarer] += 1
            else:
                score = f.plain
        elif score.refe_written:
            rounds += 1
        d = score.deltas
        b0 += d[0]
        b1 += d[1]
        b2 += d[2]
        chosen.append(score)
        if b0 + b1 + b2 <= 0:
            ended, end_hand = True, n
        applied: tuple[AppliedChange, ...] = ()
        if attached:
            bule = [b0, b1, b2]
            done: list[AppliedChange] = []
            for change in attached:
                if change.kind is ChangeKind.OTPIS:
                    if settlement is None and not ended:
                        settlement = (len(hands), change)
                        continue
                    done.append(_not_applied(change, bule, NOTE_ENDED if ended else NOTE_SETTLED))
                    continue
                done.append(_apply(change, score, done, bule, ended))
            applied = tuple(done)
            b0, b1, b2 = bule
            if not ended and b0 + b1 + b2 <= 0:
                ended, end_hand = True, n
                notes.append(f"changes_ended_game:{n}")
        hands.append(PaperHand(n, score, applied, (b0, b1, b2)))
    bule = [b0, b1, b2]
    columns = [sum(column) for column in zip(*(s.supe for s in chosen), strict=True)] if chosen else [0] * 6
    left, right = columns[:3], columns[3:]
    total = sum(bule)
    settled = False
    if settlement is not None and not ended:
        settled = ended = True
    written: tuple[int, int, int] | None = write_off(bule) if ended else None
    if settled and settlement is not None and written is not None:
        index, change = settlement
        entries = (Entry(bule=-written[0]), Entry(bule=-written[1]), Entry(bule=-written[2]))
        paper_hand = hands[index]
        applied_otpis = AppliedChange(change, entries, bule_sum_after=0)
        hands[index] = paper_hand._replace(changes=(*paper_hand.changes, applied_otpis))
    elif settlement is not None:
        index, change = settlement
        paper_hand = hands[index]
        hands[index] = paper_hand._replace(changes=(*paper_hand.changes, _not_applied(change, bule, NOTE_ENDED)))
    final = [b - w for b, w in zip(bule, written or (0, 0, 0), strict=True)]
    players = []
    for seat in range(3):
        against = right[(seat + 2) % 3] + left[(seat + 1) % 3]
        result = left[seat] + right[seat] - against - RESULT_FACTOR * final[seat] if ended else None
        players.append(
            PlayerColumn(
                game.players[seat],
                final[seat],
                left[seat],
                right[seat],
                rounds - used[seat],
                used[seat],
                written[seat] if written else 0,
                result,
            )
        )
    return Paper(
        game=game.number,
        size=size,
        refe_limit=limit,
        players=(players[0], players[1], players[2]),
        hands=tuple(hands),
        ended=ended,
        end_hand=end_hand,
        settled=settled,
        write_off=written,
        refe_rounds=rounds,
        bule_sum=total,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------------------------- cross-check


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """A difference between what a log recorded and what the paper computes."""

    game: int
    hand: int | None
    seat: int | None
    player: str | None
    field: str  # bule, supe_left, supe_right; "scored" for a hand; "ended" for the game
    recorded: int | str
    computed: int | str


def cross_check(game: Game, changes: Sequence[PaperChange] = ()) -> list[Discrepancy]:
    """Compare each hand's recorded `score` entries with the computed ones (each hand's own score)."""
    paper = compute_paper(game, changes)
    found: list[Discrepancy] = []
    for hand, paper_hand in zip(game.hands, paper.hands, strict=True):
        if hand.score is None:
            continue
        if paper_hand.score is None:
            if any(entry != ScoreEntry() for entry in hand.score.values()):
                found.append(Discrepancy(game.number, hand.n, None, None, "scored", "scored", paper_hand.unscored))
            continue
        for seat in range(3):
            recorded = hand.score.get(seat, ScoreEntry())
            computed = paper_hand.score.entries[seat]
            for name in ("bule", "supe_left", "supe_right"):
                have, want = getattr(recorded, name), getattr(computed, name)
                if have != want:
                    found.append(Discrepancy(game.number, hand.n, seat, game.players[seat], name, have, want))
    if game.status is GameStatus.FINISHED and not paper.ended:
        found.append(Discrepancy(game.number, None, None, None, "ended", "finished", paper.bule_sum))
    return found
