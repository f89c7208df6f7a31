"""Run every benchmark in turn (what `make bench` does) and print their figures, each beside its target and its
peer, with the machine's load at each.

Each benchmark is its own script in this folder and can be run alone with more options; this runner uses the
sizes the issues set as targets and asks each for every side-by-side figure it has: a throwaway PostgreSQL server
is started for the run (when PostgreSQL is installed) and passed to the desk, the paper and the live feed
(``--database``), so each prints SQLite and PostgreSQL side by side; the desk also prints what its durable commits
cost (``--compare``); the solver times the project and the baseline in alternating order, the paper its kept
request against the same request computed each time, the live feed alone and beside an import and the Arbitar.
After the last one, the lines that carry a target, a peer or a ratio are printed again together (the summary),
each bench's headed by the command that printed it and the load average (1 min, on the machine's cores) at its
start and end: on a shared machine the figures are what was measured under that load.

`--quick` runs smaller sizes, for a first look; `--no-postgres` runs SQLite only. The memory benchmark builds a
database of 100,000 games first (a few minutes) unless `--quick`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from pg import throwaway_postgres

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
#: The lines of each bench's output that go into the summary: its figures beside their targets and peers.
SUMMARY = {
    "import": r"target",
    "paper": r"^/papir|kept: /s|^  (SQLite|PostgreSQL) |^target",
    "desk": r"^side by side|^(SQLite \w+|PostgreSQL)\s+\d",
    "solver": r"ratio|^  strain|^  (trump|sans|betl) ",
    "arbitar": r"^seconds per disputed hand|^  all |^  slowest |target|the slowest judged again",
    "memory": r"^idle bot",
    "render": r"target",
    "gameserver": r"^\d+ tables|events/s|^  (SQLite|PostgreSQL) ",
    "platforms": r"target|machine load",
    "cross_process": r"winners per pressed call|bound",
}


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


def load() -> str:
    one, _, _ = os.getloadavg()
    return f"{one:.1f} on {os.cpu_count()} cores"


def run(name: str, argv: list[str]) -> tuple[int, list[str], str]:
    """Run one bench, its output passed through as it comes; (exit status, its summary lines, its load)."""
    command = f"bench/{name}.py {shlex.join(argv)}".strip()
    before = load()
    print(f"\n=== {command}   (load average {before})", flush=True)
    started = time.perf_counter()
    kept: list[str] = []
    wanted = re.compile(SUMMARY.get(name, "target"), re.IGNORECASE)
    with subprocess.Popen(
        [sys.executable, str(HERE / f"{name}.py"), *argv], stdout=subprocess.PIPE, text=True, bufsize=1
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            if wanted.search(line):
                kept.append(line.rstrip())
    after = load()
    print(f"=== {name}: exit {process.returncode}, {time.perf_counter() - started:.1f} s (load average {after})")
    return process.returncode, [f"--- {command}", *kept], f"{before} → {after}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (no PostgreSQL server started)")
    parser.add_argument(
        "names",
        nargs="*",
        help="only these benchmarks (import, paper, desk, solver, arbitar, memory, render, gameserver, platforms,"
        " cross_process, web)",
    )
    args = parser.parse_args()
    chosen = [(name, given) for name, given in (QUICK if args.quick else FULL) if not args.names or name in args.names]
    wants_pg = not args.no_postgres and any(DATABASE in given for _, given in chosen)
    failed: list[str] = []
    summary: list[str] = []
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(throwaway_postgres()) if wants_pg else None
        if wants_pg and database is None:
            print("PostgreSQL is not installed: the side-by-side PostgreSQL figures are skipped", flush=True)
        for name, given in chosen:
            status, lines, loads = run(name, options(given, database))
            summary += [lines[0] + f"   (load average {loads})", *lines[1:]]
            if status:
                failed.append(name)
    print("\n=== summary: each figure beside its target and its peer, with the load it was measured under")
    print("\n".join(summary))
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
