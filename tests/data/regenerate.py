"""Record the reference solver's answers that the tests compare the native solver with, into
tests/data/solver_reference.jsonl (tests/golden.py reads them):

    .venv/bin/python tests/data/regenerate.py

Run it after changing `rules/arbitar/dds_reference.py` (tests/test_golden.py then says so) or after adding or
changing a test that asks `golden` for an answer it does not hold. It runs every test module that imports `golden`
with the live reference (a few minutes: the reference is a full minimax in pure Python), remembers every answer
asked for, and rewrites the file only when those tests pass; commit the file with the change.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def asking() -> set[str]:
    """The test modules that ask `golden` for answers: those importing it, and those importing from one that does."""
    imports = {
        path.stem: set(re.findall(r"^(?:import|from) (golden|test_\w+)\b", path.read_text(encoding="utf-8"), re.M))
        for path in TESTS.glob("test_*.py")
    }
    found = {name for name, names in imports.items() if "golden" in names} - {"test_golden"}
    while grown := {name for name, names in imports.items() if names & found} - found - {"test_golden"}:
        found |= grown
    return found


def main() -> int:
    os.environ["SUDIJA_GOLDEN_RECORD"] = "1"
    sys.path.insert(0, str(TESTS))
    import golden  # noqa: PLC0415 (after the tests' folder is on the path, as pytest puts it)

    users = [str(TESTS / f"{name}.py") for name in sorted(asking())]
    code = pytest.main([*users, "-q", "-p", "no:xdist", "-p", "no:cacheprovider"])
    if code != 0:
        print(f"the tests failed (exit {code}): {golden.DATA} left as it was", file=sys.stderr)
        return int(code)
    golden.write(golden.recorded)
    print(f"{len(golden.recorded)} answers of the reference written to {golden.DATA} ({len(users)} test modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
