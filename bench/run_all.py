"""Run every benchmark in turn (what `make bench` does) and print their figures.

Each benchmark is its own script in this folder and can be run alone with more options; this runner uses the
sizes the issues set as targets. `--quick` runs smaller sizes, for a first look. The memory benchmark builds a
database of 100,000 games first (a few minutes) unless `--quick`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL = [
    ("import", ["--hands", "200000"]),
    ("paper", []),
    ("desk", ["--calls", "1000", "--referees", "50"]),
    ("solver", []),
    ("arbitar", []),
    ("memory", ["--games", "100000"]),
    ("render", []),
    ("gameserver", ["--moves", "--hands", "10"]),
    ("platforms", ["--members", "200"]),
    ("cross_process", ["--calls", "1000", "--referees", "50"]),
]
QUICK = [
    ("import", ["--hands", "20000"]),
    ("paper", ["--quick"]),
    ("desk", ["--calls", "200"]),
    ("solver", ["--quick"]),
    ("arbitar", ["--quick"]),
    ("memory", ["--games", "5000"]),
    ("render", ["--quick"]),
    ("gameserver", ["--tables", "20", "--hands", "5"]),
    ("platforms", ["--members", "50"]),
    ("cross_process", ["--calls", "100", "--referees", "10"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument(
        "names",
        nargs="*",
        help="only these benchmarks (import, paper, desk, solver, arbitar, memory, render, gameserver, platforms,"
        " cross_process)",
    )
    args = parser.parse_args()
    failed = []
    for name, options in QUICK if args.quick else FULL:
        if args.names and name not in args.names:
            continue
        print(f"\n=== bench/{name}.py {' '.join(options)}", flush=True)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(HERE / f"{name}.py"), *options], check=False)
        print(f"=== {name}: exit {done.returncode}, {time.perf_counter() - started:.1f} s", flush=True)
        if done.returncode:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
