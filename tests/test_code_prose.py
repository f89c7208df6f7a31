"""The code's comments and docstrings carry techniques, invariants and proofs, never a measured figure: a time
in milliseconds or microseconds, a ratio, a speed-up or a machine's load belongs in docs/ (the solver's in
docs/solver-journal.md, which tests/test_solver_journal.py holds to a stricter pattern) or in a bench's output.

Every module of `bot/`, `rules/` and `storage/` is read; a settings' default or a rule's own percentage (the
club's 10% bar, a share of a top) is not a measurement and passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_solver_journal import python_prose

ROOT = Path(__file__).resolve().parents[1]

#: What a measurement looks like in prose.
FIGURE = re.compile(
    r"\d[\d,.]* ?(ms|us|µs)\b"  # a time too short to be a setting
    r"|\b\d+(\.\d+)?x\b"  # a ratio
    r"|\d+(\.\d+)? ?% (faster|slower|less|more|smaller|bigger)\b"  # a speed-up or a saving
    r"|\b(\d+|several|many) times (faster|slower)\b"
    r"|\bload \d"  # a machine's load
)


def found_in(source: str) -> list[str]:
    return [
        f"line {line + k}: {match.group(0)!r} in {row.strip()!r}"
        for line, text in python_prose(source)
        for k, row in enumerate(text.splitlines())
        if (match := FIGURE.search(row))
    ]


def test_the_pattern_catches_measurements_and_spares_the_rules() -> None:
    for measured in ("costs ~40 ms less", "about 1.5 ms", "20 µs per hand", "3.6x the baseline", "at load 1.1"):
        assert FIGURE.search(measured), measured
    assert FIGURE.search("several times faster than strftime")
    assert FIGURE.search("7% bigger")
    for rule in ("the 10% bar", "30% of a top", "(default 300)", "written faster than read", "2**n"):
        assert not FIGURE.search(rule), rule
    assert found_in('"""Doc."""\n\nX = 5  # 5: half the time, 7% bigger\n') == [
        "line 3: '7% bigger' in '# 5: half the time, 7% bigger'"
    ]


@pytest.mark.parametrize("package", ["bot", "rules", "storage"])
def test_no_measured_figure_in_the_code(package: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}: {where}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for where in found_in(path.read_text(encoding="utf-8"))
    ]
    assert not found, "measured figures belong in docs/ or a bench's output:\n" + "\n".join(found)
