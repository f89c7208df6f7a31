"""The benches' tooling: the targets written once (`bench/targets.py`) and how a figure is judged and recorded
against one, and `bench/run_all.py`'s closing table and its reading of two trees side by side (``--against``).
No bench is run here: what is checked is the arithmetic and the parsing, on output the benches print."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_scripts import BENCH, load_bench

if str(BENCH) not in sys.path:  # as when a bench runs: its folder on the path
    sys.path.append(str(BENCH))

import run_all
import targets

ROOT = BENCH.parent


def test_a_target_judges_its_bound_as_written() -> None:
    assert targets.DESK_P99.met(20.0)
    assert not targets.DESK_P99.met(20.01)
    assert targets.PAPER_RATE.met(2000)
    assert not targets.PAPER_RATE.met(1999.9)
    assert not targets.IDLE_MEMORY_MIB.met(150)  # strictly under
    assert targets.IDLE_MEMORY_MIB.met(149.9)
    assert targets.DESK_P99.text() == "≤ 20 ms"
    assert targets.PAPER_RATE.text() == "≥ 2,000 /s"
    assert targets.IDLE_MEMORY_MIB.text() == "< 150 MiB"
    assert targets.ARBITAR_P95.text() == "≤ 0.3 s"
    assert targets.SOLVER_VS_BASELINE.text() == "≥ 2x"


def test_the_issue_38_targets_are_the_issues() -> None:
    """The bounds the closing note is read against (issue 38 and the issues before it)."""
    expected = {
        "DESK_P99": (20, True),
        "PRESS_P99": (250, True),
        "PAPER_RATE": (2000, False),
        "FEED_RATE": (2000, False),
        "FEED_P99": (50, True),
        "ARBITAR_P95": (0.3, True),
        "ARBITAR_MAX": (2.0, True),
        "ARBITAR_TABLES_MB": (256, True),
        "IDLE_MEMORY_MIB": (150, True),
        "WEB_P95": (50, True),
    }
    for name, (bound, at_most) in expected.items():
        target = getattr(targets, name)
        assert (target.bound, target.at_most) == (bound, at_most), name


def test_report_prints_the_figure_and_records_it_for_run_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "figures.jsonl"
    monkeypatch.setenv(targets.FIGURES_FILE, str(record))
    assert targets.report("desk /sudija p99, SQLite FULL", 11.234, targets.DESK_P99, peer="PostgreSQL 14.50 ms")
    assert not targets.report("web the game page, server p95", 61.0, targets.WEB_P95)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (
        "figure: desk /sudija p99, SQLite FULL: 11.2 ms (target ≤ 20 ms: met); peer: PostgreSQL 14.50 ms"
    )
    assert printed[1] == "figure: web the game page, server p95: 61 ms (target ≤ 50 ms: NOT met)"
    first, second = (json.loads(line) for line in record.read_text(encoding="utf-8").splitlines())
    assert first["figure"] == "desk /sudija p99, SQLite FULL"
    assert first["value"] == 11.234
    assert first["target"] == "≤ 20 ms"
    assert first["met"] is True
    assert first["peer"] == "PostgreSQL 14.50 ms"
    assert second["met"] is False


def test_report_without_run_all_writes_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(targets.FIGURES_FILE, raising=False)
    monkeypatch.chdir(tmp_path)
    assert targets.report("a figure with no target", 3.0, None, unit="x")
    assert list(tmp_path.iterdir()) == []


def test_the_closing_table_puts_each_figure_under_its_command() -> None:
    figure: dict[str, Any] = {
        "figure": "/papir, 200-hand game, request path, SQLite",
        "value": 2500.0,
        "shown": "2,500 /s",
        "target": "≥ 2,000 /s",
        "met": True,
        "peer": "computed each time 60.0/s (42x)",
        "load": 1.0,
    }
    ran = [
        run_all.Ran(".venv/bin/python bench/paper.py --database $PG", 0, [], [figure], (1.2, 2.4)),
        run_all.Ran(".venv/bin/python bench/web.py --requests 200", 1, [], [], (0.5, 0.7)),
    ]
    lines = run_all.table(ran, [])
    at = lines.index("\n$ .venv/bin/python bench/paper.py --database $PG   (load 1.2 → 2.4)")
    assert lines[at + 1] == "  /papir, 200-hand game, request path, SQLite: 2,500 /s  target ≥ 2,000 /s  met"
    assert lines[at + 2] == "      peer: computed each time 60.0/s (42x)"
    assert "\n$ .venv/bin/python bench/web.py --requests 200   (load 0.5 → 0.7)  exit 1" in lines
    assert lines[-1] == "  (no figure reported)"


def test_the_commands_name_the_run_postgresql_as_pg() -> None:
    argv = ["--calls", "1000", "--database", "postgresql:///sudija?host=/tmp/x"]
    command = run_all.command_text(ROOT, "desk", argv, "postgresql:///sudija?host=/tmp/x")
    assert command.endswith("bench/desk.py --calls 1000 --database $PG")
    other = run_all.command_text(Path("/work/elsewhere"), "solver", [], None)
    assert other.startswith("cd /work/elsewhere && ")


SOLVER_OUTPUT = """\
full 10-card deals, every lead valued, empty table per deal, 400 deals per strain, project and baseline in \
alternating order (machine load 1.0 on 2 cores):
  strain nodes/deal  native mean   median  baseline mean   median ratio mean  median  mismatches   (ms per deal)
  trump       1,234        0.210    0.180          0.700    0.540       3.33x   3.00x           0
  sans        2,345        0.300    0.250          1.800    1.500       6.00x   6.00x           0
  betl        3,456        0.400    0.300          2.400    2.310       6.00x   7.70x           0
"""


def test_the_solver_figures_are_read_from_what_it_prints() -> None:
    read = {c.name: v for c, v in run_all.solver_figures(SOLVER_OUTPUT.splitlines()).items()}
    assert read["solver trump: baseline / native, median per deal"] == 3.0
    assert read["solver betl: baseline / native, median per deal"] == 7.7
    assert read["solver sans: native median per deal"] == 0.25
    assert read["solver betl: value mismatches with the baseline"] == 0


def arbitar_output(p95: float, verdicts: str) -> list[str]:
    return f"""\
seconds per disputed hand, wall time, 2 threads:
  both-trump      90  p50  0.010 s  p95  0.100 s  max  0.300 s  mean  0.020 s
  all           2340  p50  0.020 s  p95  {p95:.3f} s  max  1.500 s  mean  0.050 s
seconds per disputed hand, cpu time, 2 threads:
  all           2340  p50  0.030 s  p95  0.400 s  max  2.500 s  mean  0.080 s
verdict sha256: both-trump 0123456789abcdef; all {verdicts}
""".splitlines()


def test_two_trees_side_by_side_give_medians_their_ratio_and_the_verdicts_check() -> None:
    pair = run_all.SideBySide("arbitar", ("new this", "old"))
    pair.figures["new this"] = [
        run_all.arbitar_figures(arbitar_output(0.2, "aaaa")),
        run_all.arbitar_figures(arbitar_output(0.4, "aaaa")),
    ]
    pair.figures["old"] = [
        run_all.arbitar_figures(arbitar_output(0.3, "aaaa")),
        run_all.arbitar_figures(arbitar_output(0.3, "aaaa")),
    ]
    lines = pair.lines()
    p95 = next(line for line in lines if "p95 per disputed hand, wall time" in line)
    assert p95.split()[-5:] == ["0.3", "s", "0.3", "s", "1.000"]  # the medians, the same: neither better
    cpu = next(line for line in lines if "p95 per disputed hand, cpu time" in line)
    assert cpu.split()[-5:] == ["0.4", "s", "0.4", "s", "1.000"]
    verdicts = next(line for line in lines if "verdicts" in line)
    assert verdicts.endswith("the same in both: aaaa")

    pair.figures["old"][1] = run_all.arbitar_figures(arbitar_output(0.5, "bbbb"))
    lines = pair.lines()
    assert "DIFFERENT" in next(line for line in lines if "verdicts" in line)
    p95 = next(line for line in lines if "p95 per disputed hand, wall time" in line)
    assert p95.endswith("0.750 better")  # 0.3 here against 0.4 there: lower is better


def test_the_arbitar_bench_picks_its_slowest_by_the_time_measured() -> None:
    """Issue 38: the slowest hands are the search's by the time each took when judged (CPU, or wall), not by an
    estimate of their work; the built shapes' hands are not among them."""
    bench = load_bench("arbitar")
    game = object()  # the selection reads the shape and the times only

    def judged(shape: str, wall: float, cpu: float, n: int) -> Any:
        return bench.Judged((game, n, 0, shape), wall, cpu, b"", "", bench.Stats(), False)

    hands = [
        judged("search", 0.2, 0.3, 1),
        judged("both-trump", 9.0, 9.0, 2),  # a built shape: never among the search's slowest
        judged("search", 0.9, 0.1, 3),
        judged("search", 0.5, 0.6, 4),
        judged("search", 0.1, 0.05, 5),
    ]
    assert [j.disputed[1] for j in bench.pick_slowest(hands, "cpu", 3)] == [4, 1, 3]
    assert [j.disputed[1] for j in bench.pick_slowest(hands, "wall", 2)] == [3, 4]


def test_every_shape_of_the_arbitar_bench_has_a_defender_on_opening_lead() -> None:
    """Issue 38: the generated set holds hands where a defender leads trick 1 (his view the largest the procedure
    meets) in every shape, the kontra and betl shapes included, and each hand is of the shape it is named."""
    bench = load_bench("arbitar")
    for k, shape in enumerate(bench.SHAPES):
        hands = bench.take(bench.source(shape, 1000 + k), 12)
        assert len(hands) == 12, shape
        led = 0
        for game, n, fallen, named in hands:
            hand = next(h for h in game.hands if h.n == n)
            assert named == shape
            assert bench.shape_of(hand) == shape
            assert fallen != hand.declarer
            played = bench.played_hand(hand)
            led += played.leader != played.declarer
        assert led, f"{shape}: no hand where a defender leads trick 1"


def test_the_platforms_bench_calls_the_fake_telegram_s_poll_as_the_fake_does() -> None:
    """bench/platforms.py stamps the fake's getUpdates by wrapping it: a wrapper that takes other arguments than
    the fake passes fails the bench's every poll (as it did when the fake's poll began to take its request's
    record)."""
    from fakes.telegram_server import FakeTelegram  # noqa: PLC0415

    platforms = load_bench("platforms")
    wrapper = platforms.stamping_polls(FakeTelegram._get_updates, {})
    fake_takes = list(inspect.signature(FakeTelegram._get_updates).parameters)[1:]  # without `self`
    assert list(inspect.signature(wrapper).parameters) == fake_takes
