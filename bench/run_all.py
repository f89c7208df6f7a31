"""Run every benchmark in turn (what `make bench` does) and print their figures, and at the end one table: each
figure beside its target (`bench/targets.py`, where every target is written once), met or not, and its peer,
under the exact command that measured it and the machine's load average (1 min) at its start and end.

Each benchmark is its own script in this folder and can be run alone with more options; this runner uses the
sizes the issues set as targets and asks each for every side-by-side figure it has: a throwaway PostgreSQL server
is started for the run (when PostgreSQL is installed) and passed to the desk, the paper and the live feed
(``--database``), so each prints SQLite and PostgreSQL side by side; the desk also prints what its durable commits
cost (``--compare``); the solver times the project and the baseline in alternating order, the paper its kept
request against the same request computed each time, the live feed alone and beside an import and the Arbitar.
A bench reports its figures through `targets.report`, which records them in the file run_all names in
``SUDIJA_BENCH_FIGURES``; the table is built from those records.

``--against PATH`` puts another checkout of the project (a git worktree of an earlier commit, with its own
``.venv``: ``make .venv/.installed`` there) beside this one for the solver and the Arbitar: each is run from both
trees in alternating order (this tree first in even rounds, the other first in odd ones; ``--rounds``), their
figures read from what they print (so an older tree without `targets.py` serves as well), and the medians over
the rounds printed side by side with their ratio; the Arbitar's verdicts must be the same in both.

`--quick` runs smaller sizes, for a first look; `--no-postgres` runs SQLite only. The memory benchmark builds a
database of 100,000 games first (a few minutes) unless `--quick`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pg import throwaway_postgres
from targets import FIGURES_FILE, number

HERE = Path(__file__).resolve().parent
DATABASE = "{database}"  # replaced by the run's PostgreSQL address (the option dropped when there is none)

FULL = [
    ("import", ["--hands", "200000"]),
    ("paper", ["--database", DATABASE]),
    ("desk", ["--calls", "1000", "--referees", "50", "--compare", "--database", DATABASE]),
    ("solver", []),
    ("arbitar", []),
    ("memory", ["--games", "100000", "--members", "10000"]),
    ("render", []),
    ("gameserver", ["--moves", "--hands", "10", "--database", DATABASE]),
    ("gameserver", ["--moves", "--played", "150", "--hands", "5", "--alone-only", "--database", DATABASE]),
    ("platforms", ["--members", "200"]),
    ("cross_process", ["--calls", "1000", "--referees", "50"]),
    ("web", ["--requests", "200"]),
]
QUICK = [
    ("import", ["--hands", "20000"]),
    ("paper", ["--quick", "--database", DATABASE]),
    ("desk", ["--calls", "200", "--compare", "--database", DATABASE]),
    ("solver", ["--quick"]),
    ("arbitar", ["--quick"]),
    ("memory", ["--games", "5000", "--members", "10000"]),
    ("render", ["--quick"]),
    ("gameserver", ["--tables", "20", "--hands", "5", "--database", DATABASE]),
    ("platforms", ["--members", "50"]),
    ("cross_process", ["--calls", "100", "--referees", "10"]),
    ("web", ["--requests", "40"]),
]


def options(given: list[str], database: str | None) -> list[str]:
    """A bench's options with the run's PostgreSQL address in place (the option dropped without one)."""
    out: list[str] = []
    for index, option in enumerate(given):
        if option == DATABASE or (index + 1 < len(given) and given[index + 1] == DATABASE):
            if database is not None:
                out.append(database if option == DATABASE else option)
            continue
        out.append(option)
    return out


def load() -> float:
    return os.getloadavg()[0]


def python_of(root: Path) -> Path:
    """The interpreter a tree's benches run with: its own ``.venv`` (its native solver built there)."""
    return root / ".venv" / "bin" / "python"


def command_text(root: Path, name: str, argv: list[str], database: str | None) -> str:
    """The bench's command as a person types it in the tree's folder (the run's PostgreSQL address as $PG)."""
    shown = ["$PG" if database is not None and option == database else option for option in argv]
    python = python_of(root)
    here = os.path.relpath(python, root) if python.is_file() else sys.executable
    command = shlex.join([here, f"bench/{name}.py", *shown]).replace("'$PG'", "$PG")
    return command if root == HERE.parent else f"cd {shlex.quote(str(root))} && {command}"


@dataclass
class Ran:
    """One bench run: its command, exit status, what it printed, its figures and the load at its start and end."""

    command: str
    status: int
    output: list[str]
    figures: list[dict[str, object]]
    loads: tuple[float, float]
    label: str = ""  # the tree, when two are compared


def run(name: str, argv: list[str], database: str | None, root: Path = HERE.parent, label: str = "") -> Ran:
    """Run one bench of the tree at `root`, its output passed through as it comes."""
    command = command_text(root, name, argv, database)
    before = load()
    print(f"\n=== {command}{f'   [{label}]' if label else ''}   (load average {before:.1f} on {os.cpu_count()} cores)")
    started = time.perf_counter()
    output: list[str] = []
    with tempfile.NamedTemporaryFile(prefix="sudija-figures-", suffix=".jsonl", delete=False) as handle:
        figures_path = Path(handle.name)
    python = python_of(root) if python_of(root).is_file() else Path(sys.executable)
    env = os.environ | {FIGURES_FILE: str(figures_path)}
    try:
        with subprocess.Popen(
            [str(python), str(root / "bench" / f"{name}.py"), *argv],
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=root,
            env=env,
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                print(line, end="", flush=True)
                output.append(line.rstrip("\n"))
        text = figures_path.read_text(encoding="utf-8")
    finally:
        figures_path.unlink(missing_ok=True)
    figures = [json.loads(line) for line in text.splitlines() if line.strip()]
    after = load()
    print(f"=== {name}: exit {process.returncode}, {time.perf_counter() - started:.1f} s (load average {after:.1f})")
    return Ran(command, process.returncode, output, figures, (before, after), label)


# ---------------------------------------------------------------- two trees side by side (--against)


@dataclass(frozen=True)
class Compared:
    """A figure read from a bench's output, and which way is better."""

    name: str
    unit: str
    higher_is_better: bool


SOLVER_ROW = re.compile(
    r"^\s+(trump|sans|betl)\s+[\d,]+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+([\d.]+)x\s+(\d+)"
)
ARBITAR_ROW = re.compile(r"^\s+all\s+\d+\s+p50\s+([\d.]+) s\s+p95\s+([\d.]+) s\s+max\s+([\d.]+) s\s+mean\s+([\d.]+) s")
ARBITAR_CLOCK = re.compile(r"^seconds per disputed hand, (wall|cpu) time")
ARBITAR_HASH = re.compile(r"^verdict sha256: .*; all ([0-9a-f]+)")


def solver_figures(output: list[str]) -> dict[Compared, float | str]:
    """The solver bench's per-strain figures: the baseline / native median ratio (its headline) and the native
    median milliseconds per deal, and the mismatches."""
    out: dict[Compared, float | str] = {}
    for line in output:
        match = SOLVER_ROW.match(line)
        if match:
            strain = match[1]
            out[Compared(f"solver {strain}: baseline / native, median per deal", "x", True)] = float(match[7])
            out[Compared(f"solver {strain}: native median per deal", "ms", False)] = float(match[3])
            out[Compared(f"solver {strain}: value mismatches with the baseline", "", False)] = float(match[8])
    return out


def arbitar_figures(output: list[str]) -> dict[Compared, float | str]:
    """The Arbitar bench's figures over all hands: p95, max and mean seconds, wall and CPU; the verdicts' hash."""
    out: dict[Compared, float | str] = {}
    clock = ""
    for line in output:
        heading = ARBITAR_CLOCK.match(line)
        if heading:
            clock = heading[1]
            continue
        match = ARBITAR_ROW.match(line)
        if match and clock:
            for index, what in ((2, "p95"), (3, "max"), (4, "mean")):
                out[Compared(f"Arbitar {what} per disputed hand, {clock} time", "s", False)] = float(match[index])
        hashed = ARBITAR_HASH.match(line)
        if hashed:
            out[Compared("Arbitar verdicts (sha256 of all)", "", False)] = hashed[1]
    return out


READERS: dict[str, Callable[[list[str]], dict[Compared, float | str]]] = {
    "solver": solver_figures,
    "arbitar": arbitar_figures,
}


def tree_label(root: Path) -> str:
    """A tree's commit (and whether its work tree has changes)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return root.name
    return head + (" (changed)" if dirty else "")


@dataclass
class SideBySide:
    """One bench run from both trees, round by round."""

    name: str
    labels: tuple[str, str]
    runs: list[Ran] = field(default_factory=list)
    figures: dict[str, list[dict[Compared, float | str]]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The medians over the rounds of each figure in both trees, and this tree's over the other's."""
        ours, theirs = self.labels
        out = [f"  {'figure':58} {ours:>16} {theirs:>16}   this / other"]
        names: dict[Compared, None] = {}
        for rounds in self.figures.values():
            for found in rounds:
                names.update(dict.fromkeys(found))
        for compared in names:
            values = [[r[compared] for r in self.figures.get(label, []) if compared in r] for label in (ours, theirs)]
            if not all(values):
                out.append(f"  {compared.name:58} not printed by both trees")
                continue
            if isinstance(values[0][0], str) or isinstance(values[1][0], str):
                seen = {str(v) for vs in values for v in vs}
                said = f"the same in both: {seen.pop()}" if len(seen) == 1 else f"DIFFERENT: {values}"
                out.append(f"  {compared.name:58} {said}")
                continue
            a, b = (statistics.median(float(v) for v in vs) for vs in values)
            shown = [f"{number(x)} {compared.unit}".strip() for x in (a, b)]
            ratio = f"{a / b:.3f}" if b else "-"
            even = not b or ratio == "1.000"
            better = "" if even else ("better" if (a > b) == compared.higher_is_better else "worse")
            out.append(f"  {compared.name:58} {shown[0]:>16} {shown[1]:>16}   {ratio} {better}".rstrip())
        return out


def against(name: str, argv: list[str], trees: tuple[tuple[Path, str], tuple[Path, str]], rounds: int) -> SideBySide:
    """Run bench `name` from this tree and from the other (each with its label) in alternating order, `rounds`
    times."""
    pair = SideBySide(name, (trees[0][1], trees[1][1]))
    for index in range(rounds):
        for root, label in trees if index % 2 == 0 else trees[::-1]:
            ran = run(name, argv, None, root, label)
            pair.runs.append(ran)
            pair.figures.setdefault(label, []).append(READERS[name](ran.output))
    return pair


# ---------------------------------------------------------------- the closing table


def table(ran: list[Ran], pairs: list[SideBySide]) -> list[str]:
    """Each figure beside its target, met or not, and its peer, under its command and load."""
    out = [
        "\n=== summary: each figure beside its target and its peer, under the command that measured it "
        f"(load average 1 min, on {os.cpu_count()} cores, at its start → end)",
        "$PG: the throwaway PostgreSQL server this run started (bench/pg.py); run alone, a bench takes --database URL "
        "(the paper and the live feed also --postgres)",
    ]
    for one in ran:
        before, after = one.loads
        out.append(
            f"\n$ {one.command}   (load {before:.1f} → {after:.1f}){'' if not one.status else f'  exit {one.status}'}"
        )
        if not one.figures:
            out.append("  (no figure reported)")
        for figure in one.figures:
            met = "" if figure["met"] is None else ("met" if figure["met"] else "NOT met")
            target = f"target {figure['target']}" if figure["target"] else ""
            out.append(f"  {figure['figure']}: {figure['shown']}  {target}  {met}".rstrip())
            if figure["peer"]:
                out.append(f"      peer: {figure['peer']}")
    for pair in pairs:
        out.append(f"\n{pair.name}: this tree and {pair.labels[1]}, side by side in alternating order in one run")
        for one in pair.runs:
            before, after = one.loads
            out.append(f"$ {one.command}   [{one.label}] (load {before:.1f} → {after:.1f})")
        out.extend(pair.lines())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (no PostgreSQL server started)")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="PATH",
        help="another checkout of the project (with its .venv): the solver and the Arbitar run from both trees",
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --against: rounds of both trees (default 2)")
    parser.add_argument(
        "names",
        nargs="*",
        help="only these benchmarks (import, paper, desk, solver, arbitar, memory, render, gameserver, platforms,"
        " cross_process, web)",
    )
    args = parser.parse_args()
    if args.against is not None and not (args.against / "bench" / "solver.py").is_file():
        parser.error(f"--against: {args.against} is not a checkout of the project (no bench/solver.py)")
    if args.against is not None and not python_of(args.against).is_file():
        parser.error(f"--against: {args.against} has no .venv: run `make .venv/.installed` there first")
    chosen = [(name, given) for name, given in (QUICK if args.quick else FULL) if not args.names or name in args.names]
    wants_pg = not args.no_postgres and any(DATABASE in given for _, given in chosen)
    failed: list[str] = []
    ran: list[Ran] = []
    pairs: list[SideBySide] = []
    this = (HERE.parent, tree_label(HERE.parent) + " this")
    other = (args.against.resolve(), tree_label(args.against.resolve())) if args.against is not None else this
    trees = (this, other)  # labelled once: the same names for every bench of the run
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(throwaway_postgres()) if wants_pg else None
        if wants_pg and database is None:
            print("PostgreSQL is not installed: the side-by-side PostgreSQL figures are skipped", flush=True)
        for name, given in chosen:
            argv = options(given, database)
            if args.against is not None and name in READERS:
                pair = against(name, argv, trees, max(1, args.rounds))
                pairs.append(pair)
                ours = [one for one in pair.runs if one.label == pair.labels[0]]
                ran.append(ours[0])
                failed += [name] if any(one.status for one in pair.runs) else []
                continue
            one = run(name, argv, database)
            ran.append(one)
            if one.status:
                failed.append(name)
    print("\n".join(table(ran, pairs)))
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
