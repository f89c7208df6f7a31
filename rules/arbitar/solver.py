"""The double-dummy solver the Arbitar uses: a typed wrapper over the native module `rules.arbitar._dds`.

It owns the public solver API (masks and ints only, so it does not depend on `rules.cards`):

- `solve(hands, trump, betl, declarer, to_move, trick=(), trick_leader=None, cap=None) -> {card: tricks}`: for
  every legal card of `to_move`, the tricks the declarer takes from this position to the end (the current trick
  included) when that card is played and everyone plays optimally afterwards (the declarer maximizes, the
  defenders minimize; the other way round in betl); `solve_tricks(...) -> int`: the value of the position.
- `enumerate_layouts(free, count_a, base, seat_a, seat_b)`: every layout of a defender's view, packed, in
  revolving-door order with the small cards changing hands most often.
- `solve_layouts(layouts, ..., cards)`: many layouts that share the strain, the declarer, the seat to move and
  the trick in progress, valued for a few candidate cards in one call, split over threads (the GIL is released
  in the native search), each thread keeping one transposition table for all of its layouts;
  `layouts_reach(layouts, ..., target)`: one yes/no search per layout ("does the declarer take >= target?").

Encoding: card index = suit * 8 + rank (S H D C = 0..3, 7 8 9 T J Q K A = 0..7); a hand is a 32-bit mask;
seats 0, 1, 2 play in the order k -> k + 1 mod 3; `trump` is a suit index, or None in sans and betl.
`rules.arbitar.dds_reference` defines the same values in plain Python; the tests compare them.

The technique (rules/arbitar/_dds.c's header and its functions hold the details and the proofs): yes/no searches
with alpha-beta cut-offs, exact values from a few zero-window searches around a guess; a transposition table at
trick boundaries whose entries stand for classes of positions (each answer carries the cards it depended on:
bridge solvers' "relevant ranks"); cheap sound bounds (quick tricks, sure tricks, betl's sure losses and ducks);
one searched card per group of equivalent cards; move ordering by the table's lead, a killer lead, a history of
cut-offs and trick-winning heuristics. Neighbouring layouts (one small card changes hands) share the endings and,
through the class entries, much of the middle game, which is why the layouts come in revolving-door order. A
call's input is parsed and checked in full before its Solver is taken, so a refused call never touches a table
another thread is searching.

Memory, bounded by a budget (`configure(plan_tables(budget, threads))`; the bot gives each Arbitar worker its
share of `[arbitar] memory_mb`): 24 bytes per entry, 2**tt_bits entries per Solver; at most `MAX_SOLVE_TABLES`
`solve` tables of 2**`SOLVE_TT_BITS` entries and at most ``threads`` layout tables of the largest size up to
2**`LAYOUTS_TT_BITS` entries that the budget holds exist at once (a caller waits for a free one); the native
module itself refuses any table that would take all the tables of the process past the budget.

What each step measured (nodes, times, ratios to the baseline) and what was tried and dropped: docs/solver-journal.md.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rules.arbitar import _dds
from rules.arbitar._dds import Solver
from rules.arbitar._dds import layouts as _native_layouts

__all__ = [
    "ILLEGAL",
    "Solver",
    "TablePlan",
    "clear_tables",
    "configure",
    "current_plan",
    "enumerate_layouts",
    "layouts_reach",
    "pack_layouts",
    "plan_tables",
    "solve",
    "solve_layouts",
    "solve_tricks",
    "table_bytes",
]

SOLVE_TT_BITS = 15  # 0.75 MB: holds what one 10-card deal stores and stays in the second-level cache
LAYOUTS_TT_BITS = 21  # 48 MB, the largest layout table: a thread's run of neighbouring layouts keeps its middle games
MIN_LAYOUTS_TT_BITS = 15  # 0.75 MB, the smallest a budget may leave: still one deal's table (as `solve`'s)
CHUNKS_PER_THREAD = 4  # runs per thread, so that a free thread takes over from one on a harder part
MAX_THREADS = 4  # at most this many layout tables exist at once (4 x 48 MB without a budget)
MAX_SOLVE_TABLES = 4  # and at most this many `solve` tables (4 x 0.75 MB)
ILLEGAL = 255


def table_bytes(bits: int) -> int:
    """What one native table of 2**bits entries takes (as the native module counts it against its limit)."""
    return (1 << bits) * _dds.ENTRY_BYTES + 64


@dataclass(frozen=True, slots=True)
class TablePlan:
    """How one process's solver tables fit its memory budget: ``layout_tables`` layout tables (one per search
    thread) of 2**``layout_bits`` entries and `MAX_SOLVE_TABLES` `solve` tables, all within ``budget`` bytes."""

    budget: int
    layout_bits: int
    layout_tables: int

    @property
    def table_bytes(self) -> int:
        """The most the tables can hold together under this plan."""
        return self.layout_tables * table_bytes(self.layout_bits) + MAX_SOLVE_TABLES * table_bytes(SOLVE_TT_BITS)


def plan_tables(budget: int, threads: int = MAX_THREADS) -> TablePlan:
    """The largest layout tables, up to 2**`LAYOUTS_TT_BITS` entries, of which ``threads`` (1 to `MAX_THREADS`)
    fit in ``budget`` bytes beside the `solve` tables. ValueError when even 2**`MIN_LAYOUTS_TT_BITS` do not."""
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads is 1 to {MAX_THREADS}, not {threads}")
    for bits in range(LAYOUTS_TT_BITS, MIN_LAYOUTS_TT_BITS - 1, -1):
        plan = TablePlan(budget, bits, threads)
        if plan.table_bytes <= budget:
            return plan
    least = TablePlan(budget, MIN_LAYOUTS_TT_BITS, threads).table_bytes
    raise ValueError(
        f"{budget >> 20} MB holds no solver tables for {threads} threads: they need {least / 2**20:.1f} MB"
    )


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
_plan = plan_tables(_dds.MAX_TOTAL_TT_BYTES, MAX_THREADS)


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
    the count of his further tricks where he takes one; where he takes none the one search is the whole proof
    either way.
    Raises ValueError for an inconsistent position.
    """
    native_trump, native_trick, leader = _native_args(trump, betl, trick, trick_leader)
    tables = _solve_tables  # (given back to the set it came from, whatever `configure` does meanwhile)
    native = tables.take()
    try:
        if cap is None:
            pairs = native.solve(hands, native_trump, betl, declarer, to_move, native_trick, leader)
        else:
            if not 0 <= cap <= 10:
                raise ValueError("cap is 0..10 tricks")
            pairs = _capped(native, hands, native_trump, betl, declarer, to_move, native_trick, leader, cap)
    finally:
        tables.give_back(native)
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

    def __init__(self, plan: TablePlan) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._workers = 0
        self.tables = _Tables(plan.layout_bits, plan.layout_tables)
        self.limit = plan.layout_tables

    def executor(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None or self._workers < workers:
                if self._executor is not None:
                    self._executor.shutdown(wait=True)
                self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arbitar-dds")
                self._workers = workers
            return self._executor

    def size(self, plan: TablePlan) -> None:
        """Layout tables as ``plan`` says from now on (a Solver taken before goes back to its own set)."""
        self.tables = _Tables(plan.layout_bits, plan.layout_tables)
        self.limit = plan.layout_tables

    def clear(self) -> None:
        self.tables.clear()


_pool = _Pool(_plan)


def clear_tables() -> None:
    """Forget the tables kept between calls (memory back; the next call starts cold)."""
    _pool.clear()
    _solve_tables.clear()


def configure(plan: TablePlan) -> None:
    """Size this process's tables by ``plan`` (`plan_tables`): the tables kept are dropped, new ones are made to
    the plan, and the native module refuses any table past its budget. Meant for a process's start (an Arbitar
    worker's), before searches run: a search running meanwhile keeps its table until it ends."""
    global _plan, _solve_tables
    _pool.size(plan)
    _solve_tables = _Tables(SOLVE_TT_BITS, MAX_SOLVE_TABLES)
    _plan = plan
    _dds.set_table_limit(plan.budget)


def current_plan() -> TablePlan:
    """The plan this process's tables follow (`configure`; unconfigured: `MAX_THREADS` tables under 256 MB)."""
    return _plan


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
    the transposition table (docs/solver-journal.md has what that order saves against lexicographic order).
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
    threads = max(1, min(threads, count, _pool.limit))
    chunks = min(count, threads * CHUNKS_PER_THREAD) if threads > 1 else 1
    view = memoryview(packed).cast("B")
    bounds = [count * k // chunks for k in range(chunks + 1)]
    results: list[bytes] = [b""] * chunks
    next_chunk = iter(range(chunks))
    lock = threading.Lock()

    tables = _pool.tables  # (given back to the set they came from, whatever `configure` does meanwhile)

    def worker() -> None:
        solver = tables.take()
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
            tables.give_back(solver)

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
