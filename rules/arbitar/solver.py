"""The double-dummy solver the Arbitar uses: a typed wrapper over the native module `rules.arbitar._dds`.

It owns the public solver API (masks and ints only, so it does not depend on `rules.cards`):

- `solve(hands, trump, betl, declarer, to_move, trick=(), trick_leader=None) -> {card: tricks}`: for every
  legal card of `to_move`, the tricks the declarer takes from this position to the end (the current trick
  included) when that card is played and everyone plays optimally afterwards (the declarer maximizes, the
  defenders minimize; the other way round in betl).
- `solve_tricks(...) -> int`: the value of the position itself.
- `enumerate_layouts(free, count_a, base, seat_a, seat_b)`: every layout of a defender's view (``count_a`` of
  the free cards to one seat, the rest to the other, added to what is known), packed for the calls below, in
  revolving-door order with the small cards changing hands most often.
- `solve_layouts(layouts, ..., cards)`: many layouts (three hand masks each) that share the strain, the
  declarer, the seat to move and the trick in progress, valued for a few candidate cards in one call, split
  over threads (the GIL is released in the native search), each thread keeping one transposition table for
  all of its layouts. This is what the Arbitar procedure needs to compare two cards over every layout.
- `layouts_reach(layouts, ..., target)`: one yes/no search per layout ("does the declarer take >= target
  tricks from here?"), e.g. the consistency of a layout with the bidding from trick 1.

Encoding: card index = suit * 8 + rank (S H D C = 0..3, 7 8 9 T J Q K A = 0..7); a hand is a 32-bit mask;
seats 0, 1, 2 play in the order k -> k + 1 mod 3; `trump` is a suit index, or None in sans and betl.
`rules.arbitar.dds_reference` defines the same values in plain Python; the tests compare them.

What is built (rules/arbitar/_dds.c, C99, compiled by `pip install -e .` through setup.py, -O3, no
machine-specific flags): yes/no searches with alpha-beta cut-offs, exact values from a few zero-window searches
around a guess (the previous card's or layout's value); a transposition table at trick boundaries whose
entries stand for classes of positions (bridge solvers' "relevant ranks": each answer carries the cards it
depended on, and an entry matches any position with the same leader and suit lengths whose top cards agree
down to that region, wherever the small cards lie), 16-entry buckets chosen by the suit lengths, stored field
by field; quick tricks (the leader's top cards, trumps first, capped by players who could ruff; a suit the
others run out of), the top-trump run of one player and trump-length counts as cheap bounds, looked at after
the table; in sans, a trick the declarer surely takes ends a "does he take a trick?" search at once; in betl,
a trick the defenders can make him take ends that search at once, a trick he can surely lose (or lose after
taking this one, by leading into a defender's higher cards) ends "does he take every trick left?" at once,
two sure losses in the next three tricks (this trick or a lead into a defender's higher cards, then a lead into
a defender who keeps a higher card of another suit) end "does he take all but one?" at once, and values can be
capped (``cap``: betl needs only that yes/no search per card); one searched card per group
of equivalent cards; move
ordering by the table's lead, a history of the leads that cut off before, and trick-winning heuristics (betl's
own: the declarer ducks, the defenders play under him); the last trick counted directly; the table's buckets
scanned four entries at a time with SSE2 where the machine has it. A call's input is parsed and checked in full
before its Solver is taken, so a refused call never touches a table another thread is searching.

Memory, bounded: 24 bytes per entry, 2**tt_bits entries per Solver; at most `MAX_SOLVE_TABLES` (4) `solve`
tables of 2**15 entries (0.75 MB each) and at most `MAX_THREADS` (4) layout tables of 2**21 entries (48 MB
each) exist at once (a caller waits for a free one), 195 MB in all; the native module itself refuses any table
that would take all the tables of the process past 256 MB. A `solve` table is sized for one 10-card deal (its
52-53k betl nodes store a fraction of that), small enough to stay in the second-level cache: on
`bench/solver.py` (load 0.5, each size run in turn), betl 2.08-2.09 ms mean per deal with 2**16 entries,
2.01-2.04 with 2**15 (+1.4% nodes), 2.05-2.11 with 2**14; 2**18 was 6-16% slower than 2**16 on every strain.

How fast (`.venv/bin/python bench/solver.py --decisions 0`, three runs in turn, medians of the three; this 2-core
AMD EPYC machine is shared, so wall times vary between runs and the ratios, measured side by side in one run,
are what to quote; 2026-12-01):
- same random 5-card positions (all strains, leaders, mid-trick): native ~1,300x the reference (target 50x);
- full 10-card deals, every lead valued, empty table per deal, 400 deals per strain, 0 mismatches, mean ms per
  deal and baseline / native (before -> after the speed work of issue 14, machine load about 1): trump 0.48 ->
  0.38 ms, 2.0x -> 2.35x; sans 0.69 -> 0.57 ms, 2.5x -> 2.9x; betl 5.7 -> 4.1 ms, 1.75x -> 2.35x. Instructions
  (callgrind, the bench's first 100 deals, the solvers' own code), baseline / native: trump 2.4x -> 3.1x, sans
  2.5x -> 3.1x, betl 1.35x -> 2.1x. The 2x ratio holds on every strain and trump is under 0.5 ms; sans (0.5 ms)
  and betl (2 ms) are not yet at the issue's absolute targets. The trick-1 decision (`--decisions 1`, one
  thread): trump 1.44 -> 1.34 s, sans 1.97 -> 1.85 s.
- the second step of that work (no second table clear inside a timed call after clear(), the table before the
  cheap bounds, the sans and betl cut-offs above), before -> after, each run in turn three times, load 1.0-1.6:
  trump 0.39 -> 0.32 ms, 2.33x -> 2.84x; sans 0.56 -> 0.45 ms, 2.83x -> 3.64x; betl 4.29 -> 3.05 ms (median
  deal 2.8 -> 2.0 ms), 2.21x -> 3.09x; 0 mismatches. Instructions (callgrind, first 100 deals, the solver's
  own code, without the clear): trump -8%, sans -15%, betl -28%. Trump and sans are
  under 0.5 ms; betl (2 ms mean) is not yet: the nodes left are mostly "he keeps under t" proofs two to four
  tricks below every trick left, which the one-trick cut-offs do not reach (a two-trick version cut 18% of the
  nodes and cost as much time as it saved).
- the third step (betl's two-sure-losses cut-off above, checked only at "all but one" nodes, mid-trick and
  with the declarer on lead), before -> after, each run in turn three times, load 1.8-2.3 (busier than above):
  betl 3.42 -> 3.11 ms mean (median deal 2.31 -> 2.19 ms), 3.27x -> 3.41x the baseline; trump and sans
  unchanged (0.34-0.39 ms, 0.51-0.54 ms); 0 mismatches. Betl nodes (the bench's 400 deals) 35.05M -> 28.80M
  (-18%), instructions (callgrind, first 100 deals, the solver's own code) 3.39G -> 3.01G (-11%). Betl is still
  above 2 ms mean: nearly every node left is a "he keeps under t" proof (he loses n - t + 1 of n tricks) with
  n - t of 1 to 3, mid-trick; the same cut-off for three or more losses, or with a defender on lead, cut under
  1.5% more nodes and was dropped; so were a middle first guess, a first guess one lower across suits (the
  fail-low searches, ~11k nodes each against ~4k for a fail-high, are already one per lead) and other lead
  orders (under 1%). What the Arbitar asks in betl is capped at one trick (`batch(..., cap=1)`): every lead of
  the same 400 deals in 0.033 ms mean per deal, against 2.9 ms for the full count the bench's target measures.
- the move-ordering step: the table's lead is now always tried first (a lead's history could outscore it), then
  a killer lead per seat and tricks left (the lead that last cut off there), then the history (a cut-off weighs
  2**tricks left, and the leads that failed before it lose twice that) and the heuristics as before. The bench's
  400 deals, nodes per deal: betl 71,992 -> 63,768 (-11.4%), sans 10,638 -> 9,873 (-7.2%), trump 7,271 -> 7,017
  (-3.5%); instructions (callgrind, first 100 deals, inside `solve`): betl 3.196G -> 2.819G (-11.8%), sans 550M
  -> 509M (-7.5%), trump 386M -> 373M (-3.4%); 0 mismatches. Betl is still above 2 ms: the misses left at the
  leads (the first lead fails at about 21% of the defenders' cut nodes, 11% of the declarer's) cut off in another
  suit 83-86% of the time, and none of a dozen other orders tried (listed in the header of _dds.c) beat the
  history and killer.
- the fourth step (the cost per node, same nodes and values: the search compiled once per strain, the trick's
  winner carried from node to node, the store's replacement scan and the shape check with SSE2, the relative
  hands only when the bucket holds the shape, -fno-wrapv; see _dds.c's header): instructions (callgrind, the
  bench's first 100 deals, the solver's own code, the build's flags) trump 386.2M -> 349.3M (-9.5%), sans
  550.2M -> 477.0M (-13.3%), betl 3.195G -> 2.796G (-12.5%); per node trump 536 -> 485, sans 516 -> 447, betl
  466 -> 408. Nodes per deal unchanged (trump 7,201, sans 10,666, betl 68,560 on those 100 deals).
- the fourth step (betl's sure ducks, `betl_ducks` in _dds.c, proof there): at a trick's start, the tricks in a
  row the declarer surely loses by always playing his lowest card of the suit led (and discarding a suit's
  highest): for every defender and suit both hold, his min(j, m)-th lowest card below that defender's lowest,
  or below the lowest of the partner, who holds j or more of the suit (he must follow over it), for tricks j up
  to k; more than n - t of them answer "does he take >= t?" no at once, any t. Betl nodes (the bench's 400
  deals) 71,992 -> 62,495 per deal (-13%), instructions in search (callgrind, first 100 deals) 3.195G ->
  2.890G (-9.5%); trump and sans untouched (the same nodes); 0 mismatches. Wall times could not be measured
  (load 4-5 on 2 cores); by the instructions betl is near 2.7 ms mean, still above 2 ms. Tried and dropped:
  an upper bound on his tricks by "every trick he takes holds a defender's card below his card of the
  suit" (F, the defenders' cards below his highest of each suit he holds; sound, checked against the
  reference) is ruined by the tricks he must take once the defenders hold none of his suits (V, bounded only by
  the lengths): F + V fires at 5% of the costly "all but one" nodes and cut 0.6% of the nodes; F alone would
  fire at half of them, so a sharper bound on V is where the next saving lies. Also dropped: the same ducks
  after a trick in progress he surely loses (checked inside the two-loss test mid-trick, any t): -4% nodes
  but +8% instructions (mid-trick nodes are many, the check is paid at each); the check before the table
  (+9% instructions: most trick starts are table hits); the ducks allowing the forcing leads F counts, each
  followed by an exit into a defender's higher cards (exits that last for the whole run are rare: it fired
  at 0.6% of the costly nodes the ducks leave); the mirror for "yes" (the defenders make him take t tricks
  in a row: each keeps cards under his lowest, or none over it): the same nodes.
- tried and dropped (a sharper V for the betl bound F + V above, proved, and the bound checked against the
  reference's value on seeded betl positions of 2-6 cards at a trick's start, 0 above it): the declarer leads a
  suit a defender holds while he can, so until "the moment" (he is on lead and the defenders hold none of his
  suits) each trick he takes holds a defender's card below his highest of that suit; the moment follows a trick
  he takes, after T tricks with T at least each defender's length of every suit S he still holds then and his
  cards of his other suits; so he takes at most min(F', T - k) + n - T at the least such T (k: the sure ducks
  first, F': per suit F capped by his cards of it he plays before the moment), or F alone if the moment never
  comes. Wired after the ducks at every trick start: it answered 1.1% of its 2.19M calls (58 per deal) but the
  betl nodes (the bench's 400 deals) went 55,678 -> 55,695 per deal, 0 mismatches (presumably the positions it
  answers are cheap to refute anyway, and its answer's cards change the table's classes); without the ducks and
  F' (F + n - Tmin) 55,781 (its answer holding whole suits) and 55,690 (his highest card up). On random
  positions it answered beyond the ducks at 1.8% (with F': 0.7% without): the least T is small as soon as the
  defenders are short in one of his suits and he is short in the others, so lengths alone do not bound V.
- fewer sans and trump nodes (the cut-offs in rules/arbitar/_dds.c, each proved in its comment): a trick the
  declarer surely takes (in sans: his card wins whatever the defenders still to play hold, or a defender leads
  and he tops every suit the leader holds; with trumps: no defender still to play can beat, ruff or overruff
  his card) plus the quick tricks he then cashes on lead answers "does he take t tricks?" for every t (in sans
  it did for t = 1 only; with trumps not at all), its answer carrying only the runs it needs; and "does he take
  every trick left?" is no at once when a defender holds the top card of a side suit he holds. Nodes per deal
  (the bench's 400 deals, every lead, deterministic) before -> after: sans 10,638 -> 7,530 (-29%), trump 7,271 ->
  5,314 (-27%), betl 71,992 unchanged; instructions (callgrind, the first 100 deals, the solver's own code):
  sans 562M -> 419M (-25%), trump 398M -> 332M (-16%) (the bounds skip their quick-trick count when the target
  is one trick: -2.5% and -1.5% of that); 0 mismatches, and 0 differences from the solver before on 140,000
  further random sans and trump positions (5-10 cards, mid-trick too, every trump suit, fresh and kept tables).
  Wall times (`bench/solver.py --decisions 0`, the builds before and after in turn, three runs each, medians;
  machine load 2.7-3.0, busier than the runs above): trump 0.32 -> 0.28 ms mean (median deal 0.25 -> 0.23),
  sans 0.43 -> 0.34 ms (0.31 -> 0.26), betl unchanged (2.76 -> 2.83, noise); the same bench with the baseline
  side by side, after, at load 2.7: trump 0.30 ms, 3.12x the baseline; sans 0.38 ms, 4.27x; 0 mismatches.
  Tried and dropped: the defenders' mirror (a trick they surely take plus the winner's quick tricks as an upper
  bound: -1.8% nodes, +16% instructions; only at the declarer's nodes: -0.8%, +8%); the trump bound also with a
  defender on lead (one quick-trick count per suit he may lead: -1.1% nodes, +0.6% instructions); the sans bound
  at the lead after the table instead of before it (+3.5% instructions); in sans, the defenders' hands after
  the trick with their lowest card of the led suit out, as with trumps (-0.6% nodes, +0.3% instructions). Sans
  nodes left: the defenders' "all" nodes (every card refuted, the declarer reaches t) and the declarer's cut
  nodes, mid-trick, 3-6 tricks left, t 2-4 below them. The first guess of exact() is not worth changing: 17.4
  yes/no searches per deal, close to the two per lead value that any guess needs.
- the table in betl (rules/arbitar/_dds.c, top_owners): a bucket is chosen by the shape and by which hand holds
  each suit's top card, as the positions of one shape overflowed their bucket of 16 (a third of the stores at
  4-7 tricks left evicted a live entry); matching is unchanged, so the choice only decides where an entry can be
  found. The bench's 400 betl deals (deterministic): 55,678 -> 51,934 nodes per deal (-6.7%); instructions
  (callgrind, the first 100 deals, the search alone) 2.306G -> 2.228G (-3.4%); betl yes/no searches over 4,000
  neighbouring layouts in one kept table: -21% nodes; sans and trump untouched (the split loses there). Tried
  and dropped (the header comment of _dds.c has the figures): replacement by subtree size, LRU, region size or
  domination (today's choice is in effect random, and every other was worse), no store of small subtrees,
  TT_MIN_DEPTH 3, larger tables, buckets of 32 (fewer nodes, more scanning), finer or coarser bucket keys, the
  table's lead from the entry with the best bound.
  A second betl cost-per-node pass (same nodes and values; callgrind on the bench's first 50 betl deals,
  `--toggle-collect=Solver_solve`): betl_ducks answers 0 at once on a declarer's lead without a lead into a
  defender's higher card and stops as soon as its count falls under the one it must reach, one-suit counts by
  the byte table, the killer slot by n, a single move returned unscored, extend_runs only where a card was
  left out as equivalent: 1.575G -> 1.443G instructions (-8.4%, 454 -> 416 per node). A lazy best-first pick
  instead of the insertion sort cost 2.5-6.6% more (1.4 moves per node); see the _dds.c header.
- all of the steps above together, with the `solve` tables at 2**15 entries (see Memory), on the bench's 400
  deals per strain, nodes per deal before -> after: trump 7,271 -> 5,144, sans 10,638 -> 7,025, betl 71,992
  -> 53,027; mean ms per deal on a quiet machine (three runs of the bench at load 1.1, its own process
  included; min-max), baseline / native side by side: trump 0.35 -> 0.25-0.26 ms, 2.7x -> 3.6-3.7x; sans
  0.45-0.53 -> 0.30-0.33 ms, 3.3x -> 5.2-5.4x; betl 3.0 -> 2.04-2.15 ms, 3.5x -> 4.9-5.2x; 0 mismatches. Trump and
  sans meet 0.5 ms with a margin; betl is 2-7% above its 2 ms. The verdict JSON of all 330 hands of
  `bench/arbitar.py` is byte-identical before and after (one sha256 over them), and that bench's p95 went from
  0.19-0.25 s to 0.08 s, its max from 0.9-1.4 s to 0.49 s.
- the regions step (rules/arbitar/_dds.c: trick_region, the betl bounds' certificates, the sure ducks' rounds
  and suit order, proofs there): an answer depends on fewer cards, so each table entry answers more layouts,
  and betl's sure ducks reach further. Nodes per deal on the bench's 400 deals (2**15 entries): betl 53,027 ->
  42,293 (-20.2%), sans 7,025 -> 6,657 (-5.2%), trump 5,144 -> 4,840 (-5.9%). Time, side by side with the
  step's first build in one run (each deal after 16 MB of other memory traffic, as the bench's baseline gives
  it): betl -18% (two such runs: -17.6%, -18.2%). The bench, 400 deals per strain, twelve runs, baseline /
  native: betl 6.6-7.5x (was 4.9-5.2x), sans 5.8-6.5x, trump 3.9-4.5x, 0 mismatches; the machine's speed varied
  by up to 2x during the step (the baseline's betl mean 10.3-21.2 ms), so the ratios are the figures to
  compare: betl read 1.86 ms at a baseline of 12.2 ms, 2.2-2.9 ms at 15.4-21.2 ms. The verdicts of all 330
  hands of `bench/arbitar.py` are byte-identical to before the step.

Where the Arbitar's budget goes (`bench/arbitar.py`): the slowest disputed hands are those where a defender's
opening lead is judged. Its view holds all 184,756 layouts, each searched once for consistency with the
bidding (a yes/no search from trick 1, 3-8 us) before the cards are compared on the consistent ones (about 10%
to 20% of them, 10-40 us a layout for the played card and its alternatives). Neighbouring layouts (one small
card changes hands) share the endings and, through the class entries, much of the middle game; about 25% of
the nodes are saved by the revolving-door order with small cards moving fastest (measured against
lexicographic order), and the class entries cut the nodes per layout a further ~2.5x.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from rules.arbitar._dds import Solver
from rules.arbitar._dds import layouts as _native_layouts

__all__ = [
    "ILLEGAL",
    "Solver",
    "clear_tables",
    "enumerate_layouts",
    "layouts_reach",
    "pack_layouts",
    "solve",
    "solve_layouts",
    "solve_tricks",
]

SOLVE_TT_BITS = 15  # one deal's table, small enough to stay in the caches (see Memory above)
LAYOUTS_TT_BITS = 21
CHUNKS_PER_THREAD = 4
MAX_THREADS = 4  # at most this many layout tables (4 x 48 MB) exist at once
MAX_SOLVE_TABLES = 4  # and at most this many `solve` tables (4 x 0.75 MB): the Arbitar stays under 256 MB in all
ILLEGAL = 255


class _Tables:
    """A bounded set of native Solvers of one table size: at most ``limit`` exist; a caller waits for a free one.

    A Solver serves one thread at a time; tables are kept between calls (the next call of the same strain and
    declarer starts warm) until `clear`.
    """

    def __init__(self, bits: int, limit: int) -> None:
        self._bits = bits
        self._lock = threading.Lock()
        self._permits = threading.BoundedSemaphore(limit)
        self._free: list[Solver] = []

    def take(self) -> Solver:
        self._permits.acquire()
        try:
            with self._lock:
                if self._free:
                    return self._free.pop()
            return Solver(self._bits)
        except BaseException:
            self._permits.release()
            raise

    def give_back(self, solver: Solver) -> None:
        with self._lock:
            self._free.append(solver)
        self._permits.release()

    def clear(self) -> None:
        with self._lock:
            self._free.clear()


_solve_tables = _Tables(SOLVE_TT_BITS, MAX_SOLVE_TABLES)


def _native_args(
    trump: int | None, betl: bool, trick: tuple[int, ...], trick_leader: int | None
) -> tuple[int, tuple[int, ...], int]:
    if betl and trump is not None:
        raise ValueError("betl is played without trumps")
    if trick and trick_leader is None:
        raise ValueError("a trick in progress needs its leader")
    return (-1 if trump is None else trump), tuple(trick), (-1 if trick_leader is None else trick_leader)


def solve(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
    cap: int | None = None,
) -> dict[int, int]:
    """For every legal card of ``to_move``: the declarer's tricks from here to the end after that card.

    ``trick`` holds the cards already played to the current trick, by ``trick_leader`` and then the next
    seats; ``to_move`` must be the seat after them. With ``cap`` (0..10) every value is ``min(value, cap)``,
    found by searches bounded at ``cap`` (the native ``batch``, one per group of equivalent cards): betl,
    where play stops at the declarer's first trick, asks only cap 1, one yes/no search per card. That saves
    the count of his further tricks where he takes one (on the bench's random deals, where he mostly does,
    0.033 ms a deal against 2.9 ms); where he takes none the one search is the whole proof either way.
    Raises ValueError for an inconsistent position.
    """
    native_trump, native_trick, leader = _native_args(trump, betl, trick, trick_leader)
    native = _solve_tables.take()
    try:
        if cap is None:
            pairs = native.solve(hands, native_trump, betl, declarer, to_move, native_trick, leader)
        else:
            if not 0 <= cap <= 10:
                raise ValueError("cap is 0..10 tricks")
            pairs = _capped(native, hands, native_trump, betl, declarer, to_move, native_trick, leader, cap)
    finally:
        _solve_tables.give_back(native)
    return dict(pairs)


def _capped(
    native: Solver,
    hands: tuple[int, int, int],
    trump: int,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...],
    leader: int,
    cap: int,
) -> list[tuple[int, int]]:
    """`solve` with ``cap``: one capped search (``batch``) per group of equivalent cards of ``to_move`` (cards
    adjacent in rank among the cards in play, those on the table included, as the native ``solve`` groups
    them); the other cards of a group take its value."""
    if not 0 <= to_move <= 2:
        raise ValueError("to_move is a seat 0..2")
    own = hands[to_move]
    in_play = hands[0] | hands[1] | hands[2]
    for card in trick:
        in_play |= 1 << card
    same: dict[int, int] = {}  # a card -> the next higher card of its group
    searched: list[int] = []
    for card in range(32):
        if not own >> card & 1:
            continue
        above = in_play & (0xFF << (card & ~7)) & ~((2 << card) - 1)
        higher = (above & -above).bit_length() - 1
        if above and own >> higher & 1:
            same[card] = higher
        else:
            searched.append(card)
    got = native.batch(array("I", hands), trump, betl, declarer, to_move, trick, leader, tuple(searched), cap, False)
    values = dict(zip(searched, got, strict=True))
    for card in sorted(same, reverse=True):
        values[card] = values[same[card]]
    return sorted((card, value) for card, value in values.items() if value != ILLEGAL)


def solve_tricks(
    hands: tuple[int, int, int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int | None = None,
) -> int:
    """The value of the position: the declarer's tricks from here under optimal play by everyone."""
    values = solve(hands, trump, betl, declarer, to_move, trick, trick_leader).values()
    if not values:
        return 0
    declarer_moves = (to_move == declarer) != betl
    return max(values) if declarer_moves else min(values)


class _Pool:
    """Worker threads, each taking a native Solver from the bounded layout tables for its run of layouts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._workers = 0
        self.tables = _Tables(LAYOUTS_TT_BITS, MAX_THREADS)

    def executor(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None or self._workers < workers:
                if self._executor is not None:
                    self._executor.shutdown(wait=True)
                self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arbitar-dds")
                self._workers = workers
            return self._executor

    def take(self) -> Solver:
        return self.tables.take()

    def give_back(self, solver: Solver) -> None:
        self.tables.give_back(solver)

    def clear(self) -> None:
        self.tables.clear()


_pool = _Pool()


def clear_tables() -> None:
    """Forget the tables kept between calls (memory back; the next call starts cold)."""
    _pool.clear()
    _solve_tables.clear()


def pack_layouts(layouts: Sequence[tuple[int, int, int]]) -> array[int]:
    """Layouts as the native buffer: three uint32 masks per layout."""
    packed = array("I")
    for hands in layouts:
        if len(hands) != 3:
            raise ValueError("a layout is three hand masks")
        packed.extend(hands)
    return packed


def enumerate_layouts(free: int, count_a: int, base: tuple[int, int, int], seat_a: int, seat_b: int) -> array[int]:
    """Every layout of the ``free`` cards (a mask): ``count_a`` of them to ``seat_a``, the rest to ``seat_b``.

    Each layout is ``base`` (three hand masks: what is known of every hand) plus that split, packed for
    `solve_layouts` / `layouts_reach`. The order is the revolving door (one card changes hands between
    neighbours) with the small cards changing hands most often: neighbours then share the most endings in
    the transposition table (measured: about 25% fewer nodes than lexicographic order).
    """
    cards = sorted((c for c in range(32) if free >> c & 1), key=lambda c: (c & 7, c))
    packed = array("I")
    packed.frombytes(_native_layouts(cards, count_a, base, seat_a, seat_b))
    return packed


def _packed(layouts: Sequence[tuple[int, int, int]] | array[int]) -> array[int]:
    packed = layouts if isinstance(layouts, array) else pack_layouts(layouts)
    if packed.typecode != "I" or packed.itemsize != 4:
        raise ValueError("layouts must be an array('I') of 32-bit masks")
    if len(packed) % 3:
        raise ValueError("layouts must hold three masks per layout")
    return packed


def _run_split(packed: array[int], threads: int, work: Callable[[Solver, memoryview], bytes]) -> bytes:
    """Solve contiguous runs of layouts on ``threads`` threads, each with one pooled native Solver.

    The layouts are cut into ``CHUNKS_PER_THREAD * threads`` contiguous runs handed out in order to whichever
    thread is free (neighbouring layouts in one run share the table; the free-for-all keeps both cores busy
    when one part of the layouts is harder than the other).
    """
    count = len(packed) // 3
    if count == 0:
        return b""
    threads = max(1, min(threads, count, MAX_THREADS))
    chunks = min(count, threads * CHUNKS_PER_THREAD) if threads > 1 else 1
    view = memoryview(packed).cast("B")
    bounds = [count * k // chunks for k in range(chunks + 1)]
    results: list[bytes] = [b""] * chunks
    next_chunk = iter(range(chunks))
    lock = threading.Lock()

    def worker() -> None:
        solver = _pool.take()
        try:
            while True:
                with lock:
                    part = next(next_chunk, None)
                if part is None:
                    return
                try:
                    results[part] = work(solver, view[bounds[part] * 12 : bounds[part + 1] * 12])
                except ValueError as exc:
                    raise ValueError(f"in layouts from {bounds[part]}: {exc} (counted from there)") from None
        finally:
            _pool.give_back(solver)

    if threads == 1:
        worker()
    else:
        for future in [_pool.executor(threads).submit(worker) for _ in range(threads)]:
            future.result()
    return b"".join(results)


def solve_layouts(
    layouts: Sequence[tuple[int, int, int]] | array[int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...],
    trick_leader: int | None,
    cards: tuple[int, ...],
    threads: int = 2,
    cap: int | None = None,
    relative: bool = False,
) -> bytes:
    """Value the given candidate cards of ``to_move`` in every layout, in one call.

    Returns ``len(layouts) * len(cards)`` bytes, layout after layout: the declarer's tricks from here after
    that card, or ``ILLEGAL`` (255) when the card is not a legal play in that layout. The layouts are split
    into ``threads`` contiguous runs, each solved by one native Solver whose table is shared by its run, so
    give the layouts in an order where neighbours share cards (`enumerate_layouts`). With ``cap`` every value is
    capped at ``cap`` tricks (``min(value, cap)``): betl, where play stops at the declarer's first trick, needs
    only cap 1, one yes/no search per card. With ``relative`` the cards after the first are valued only as far
    as comparing them with the first needs: clamped to within one trick of its value (one or two yes/no
    searches each instead of an exact value).
    """
    native_trump, native_trick, leader = _native_args(trump, betl, trick, trick_leader)
    packed = _packed(layouts)

    def work(solver: Solver, chunk: memoryview) -> bytes:
        return solver.batch(
            chunk,
            native_trump,
            betl,
            declarer,
            to_move,
            native_trick,
            leader,
            cards,
            -1 if cap is None else cap,
            relative,
        )

    return _run_split(packed, threads, work)


def layouts_reach(
    layouts: Sequence[tuple[int, int, int]] | array[int],
    trump: int | None,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...],
    trick_leader: int | None,
    target: int,
    threads: int = 2,
) -> bytes:
    """One byte per layout: 1 when the declarer takes at least ``target`` tricks from here, else 0.

    One yes/no search per layout, with best play by everyone including ``to_move`` (e.g. "can the
    declarer make his contract from trick 1": target 6; in betl the contract is ``not reach(1)``).
    """
    native_trump, native_trick, leader = _native_args(trump, betl, trick, trick_leader)
    packed = _packed(layouts)

    def work(solver: Solver, chunk: memoryview) -> bytes:
        return solver.reaches(chunk, native_trump, betl, declarer, to_move, native_trick, leader, target)

    return _run_split(packed, threads, work)
