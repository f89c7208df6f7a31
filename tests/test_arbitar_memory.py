"""The Arbitar's memory, bounded per bot (`[arbitar] memory_mb`, bot/arbitar_pool.py): the workers share one
budget, each sizes its solver tables from its share, the native module refuses a table past it, and an analysis
under a small budget gives the same verdict as under a large one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from arbitar_probe import judged_with_tables
from test_arbitar import PLAYERS, RUINED_BOTH, build

from bot.arbitar_pool import DEFAULT_MEMORY_MB, WORKER_OWN_MB, ArbitarPool, TableBudget, table_budget
from bot.config import ConfigError, from_dict
from rules.arbitar import _dds, solver
from rules.arbitar.procedure import arbitrate

MB = 1 << 20


@pytest.fixture
def restored() -> Iterator[None]:
    """Whatever a test does to this process's tables, they are as before after it."""
    plan = solver.current_plan()
    yield
    solver.configure(plan)


def test_the_memory_setting() -> None:
    assert from_dict({}).arbitar.memory_mb == DEFAULT_MEMORY_MB == 256
    assert from_dict({"arbitar": {"workers": 2, "memory_mb": 512}}).arbitar.memory_mb == 512
    for bad in (0, -5, "256", 1.5, True):
        with pytest.raises(ConfigError, match=r"arbitar\.memory_mb must be a whole number of megabytes"):
            from_dict({"arbitar": {"memory_mb": bad}})
    with pytest.raises(ConfigError, match=r"100 MB is too little for 2 workers: each needs at least 69 MB") as info:
        from_dict({"arbitar": {"workers": 2, "memory_mb": 100}})
    assert "138 MB in all; raise it or lower arbitar.workers" in str(info.value)
    assert from_dict({"arbitar": {"workers": 2, "memory_mb": 138}}).arbitar.memory_mb == 138  # the least for two
    with pytest.raises(ConfigError, match=r"too little for the analyses in the bot's process"):
        from_dict({"arbitar": {"workers": 0, "memory_mb": 64}})


def test_the_workers_share_one_budget() -> None:
    """256 MB for two workers: 128 MB each, 64 of them for the process, so two layout tables of 2**20 entries (24 MB
    each) and the solve tables: 51 MB. One worker alone gets today's largest tables; no worker: the bot's own
    process, four tables (two analyses at once)."""
    two = table_budget(2, 256)
    assert two == TableBudget((128 - WORKER_OWN_MB) * MB, 2)
    plan = solver.plan_tables(two.table_bytes, two.threads)
    assert (plan.layout_bits, plan.layout_tables) == (20, 2)
    assert 2 * (plan.table_bytes + WORKER_OWN_MB * MB) <= 256 * MB  # the workers together stay in the budget
    one = table_budget(1, 256)
    assert solver.plan_tables(one.table_bytes, one.threads).layout_bits == solver.LAYOUTS_TT_BITS
    none = table_budget(0, 256)
    assert (none.threads, solver.plan_tables(none.table_bytes, none.threads).layout_bits) == (solver.MAX_THREADS, 20)
    # a larger budget never takes tables past the largest size; a smaller one halves them until they fit
    assert solver.plan_tables(4096 * MB, 2).layout_bits == solver.LAYOUTS_TT_BITS
    small = solver.plan_tables(16 * MB, 2)
    assert small.table_bytes <= 16 * MB < solver.TablePlan(16 * MB, small.layout_bits + 1, 2).table_bytes
    with pytest.raises(ValueError, match="holds no solver tables"):
        solver.plan_tables(4 * MB, 2)


def test_the_native_limit_counts_tables_as_the_plan_does(restored: None) -> None:
    solver.clear_tables()
    held, _ = _dds.table_memory()
    table = _dds.Solver(16)
    assert _dds.table_memory()[0] - held == solver.table_bytes(16)
    del table
    assert _dds.set_table_limit(held + solver.table_bytes(16)) == solver.current_plan().budget
    kept = _dds.Solver(16)  # exactly at the limit
    with pytest.raises(MemoryError, match="solver tables would pass"):
        _dds.Solver(8)
    del kept
    with pytest.raises(ValueError, match="0 or more"):
        _dds.set_table_limit(-1)


def test_an_analysis_under_a_small_budget_gives_the_same_verdict(restored: None) -> None:
    game = build(RUINED_BOTH)
    seat = PLAYERS.index("marko")
    solver.clear_tables()
    large = json.dumps(arbitrate(game, 1, seat).to_json(game.players), ensure_ascii=False)
    plan = solver.plan_tables(5 * MB, 2)  # the smallest tables: 2**15 entries
    assert plan.layout_bits == solver.MIN_LAYOUTS_TT_BITS
    solver.configure(plan)
    assert solver.current_plan() == plan
    assert json.dumps(arbitrate(game, 1, seat).to_json(game.players), ensure_ascii=False) == large
    held, limit = _dds.table_memory()
    assert held <= plan.table_bytes <= limit == 5 * MB
    with pytest.raises(MemoryError):
        _dds.Solver(solver.LAYOUTS_TT_BITS)  # a table past the budget is refused


async def test_each_worker_sizes_its_tables_from_the_config() -> None:
    """Two workers sharing 160 MB: each has 80, of which 16 for tables (two of 2**18 entries). An analysis in a
    worker gives the verdict computed here, and the worker's tables stay within its share."""
    game = build(RUINED_BOTH)
    seat = PLAYERS.index("marko")
    here = arbitrate(game, 1, seat)
    pool = ArbitarPool(2, 160)
    try:
        verdict, plan, (held, limit) = await pool.run(judged_with_tables, game, 1, seat)
    finally:
        pool.shutdown()
    assert plan == solver.plan_tables(16 * MB, 2)
    assert (plan.layout_bits, plan.layout_tables) == (18, 2)
    assert limit == 16 * MB
    assert 0 < held <= plan.table_bytes <= limit
    assert verdict.to_json(game.players) == here.to_json(game.players)
