"""The solver's code carries its technique, invariants and proofs; what was measured goes to docs/solver-journal.md.

Reads the comments and docstrings of the solver's sources and fails on a measured figure there (a percentage, a
time, a node or instruction count, a ratio, a dated run, a machine load), and on a module docstring of
`rules/arbitar/solver.py` longer than 40 lines. The journal itself must exist and be pointed to."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from datetime import date
from pathlib import Path

import pytest
from bench_scripts import load_bench

ROOT = Path(__file__).resolve().parents[1]
JOURNAL = ROOT / "docs" / "solver-journal.md"

#: What a measured figure looks like in prose (a proof's "2**n", "24 bytes per entry" or "99" are not).
MEASURED = re.compile(
    r"\d+(\.\d+)? ?%"  # a percentage
    r"|\d[\d,.]* ?(ms|us|µs)\b"  # a time
    r"|\d[\d,.]*[kMG]? (nodes|instructions)\b"  # a node or instruction count
    r"|\b\d+(\.\d+)?[kMG]\b"  # 51.3k, 3.2M, 2.8G
    r"|\b\d+(\.\d+)?x\b"  # a ratio
    r"|\b20\d\d-\d\d-\d\d\b"  # a dated run
    r"|\bload \d"  # a machine's load
)


def c_comments(source: str) -> list[tuple[int, str]]:
    """The comments of a C source with the line each starts on (string and character literals skipped)."""
    out: list[tuple[int, str]] = []
    i, line, size = 0, 1, len(source)
    while i < size:
        ch = source[i]
        if source.startswith("/*", i):
            end = source.index("*/", i + 2)
            out.append((line, source[i + 2 : end]))
            line += source.count("\n", i, end)
            i = end + 2
        elif source.startswith("//", i):
            end = source.find("\n", i)
            end = size if end < 0 else end
            out.append((line, source[i + 2 : end]))
            i = end
        elif ch in "\"'":
            j = i + 1
            while source[j] != ch:
                j += 2 if source[j] == "\\" else 1
            line += source.count("\n", i, j)
            i = j + 1
        else:
            line += ch == "\n"
            i += 1
    return out


def python_prose(source: str) -> list[tuple[int, str]]:
    """The comments and docstrings of a Python source with their lines."""
    out = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.append((first.lineno, first.value.value))
    return out


def figures(prose: list[tuple[int, str]]) -> list[str]:
    found = []
    for line, text in prose:
        for k, row in enumerate(text.splitlines()):
            match = MEASURED.search(row)
            if match:
                found.append(f"line {line + k}: {match.group(0)!r} in {row.strip()!r}")
    return found


def test_the_pattern_catches_measured_figures_and_spares_the_proofs() -> None:
    for measured in ("betl -1.9% nodes", "0.033 ms a deal", "51.3k -> 48.1k", "3.6x the baseline", "at load 1.1"):
        assert MEASURED.search(measured), measured
    assert MEASURED.search("1,575 nodes")
    assert MEASURED.search("2.8G")
    assert MEASURED.search("2026-12-01")
    for proof in ("weight 2**n", "24 bytes per entry", "(a + b) % 3", "0x9E3779B97F4A7C15ULL", "4 x 48 MB", "99"):
        assert not MEASURED.search(proof), proof


def test_c_comments_skip_string_literals() -> None:
    source = 'int a; /* one 5% */\nchar *s = "/* not 7% */"; // two\nchar q = \'"\'; /* three\n */'
    assert c_comments(source) == [(1, " one 5% "), (2, " two"), (3, " three\n ")]


@pytest.mark.parametrize("path", ["rules/arbitar/_dds.c", "setup.py", "rules/arbitar/solver.py"])
def test_no_measured_figure_in_the_solvers_comments(path: str) -> None:
    source = (ROOT / path).read_text(encoding="utf-8")
    prose = c_comments(source) if path.endswith(".c") else python_prose(source)
    assert prose, "the reader found no comment at all"
    found = figures(prose)
    assert not found, f"{path}: measured figures belong in docs/solver-journal.md:\n" + "\n".join(found)


def test_the_solver_module_docstring_is_short_and_points_to_the_journal() -> None:
    doc = ast.get_docstring(ast.parse((ROOT / "rules/arbitar/solver.py").read_text(encoding="utf-8")))
    assert doc is not None
    assert len(doc.splitlines()) <= 40
    assert "docs/solver-journal.md" in doc
    assert "docs/solver-journal.md" in (ROOT / "rules/arbitar/_dds.c").read_text(encoding="utf-8")


def test_the_journal_holds_dated_entries() -> None:
    text = JOURNAL.read_text(encoding="utf-8")
    dated = re.findall(r"^## (20\d\d-\d\d-\d\d)\b", text, flags=re.MULTILINE)
    assert dated, "the journal has no dated entry"
    assert dated == sorted(dated), "the journal's entries are not in date order"


def test_the_bench_appends_a_dated_entry_with_its_figures(tmp_path: Path) -> None:
    bench = load_bench("solver")
    journal = tmp_path / "solver-journal.md"
    journal.write_text("# The solver's journal\n\n## 2026-12-01 — an earlier step\n\nIts text.\n", encoding="utf-8")
    runs = [
        bench.StrainRun("trump", 2, 9_680, [0.0002, 0.0004], [0.001, 0.0012], 0),
        bench.StrainRun("betl", 2, 84_586, [0.002, 0.004], [0.012, 0.016], 1),
    ]
    entry = bench.journal_entry(
        "bench/solver.py --journal", runs, (100_000.0, 50.0), 1.3, "the regions step, after", date(2026, 12, 5)
    )
    bench.append_journal(journal, entry)
    text = journal.read_text(encoding="utf-8")
    assert text.startswith("# The solver's journal\n\n## 2026-12-01 — an earlier step\n\nIts text.\n\n## 2026-12-05")
    assert "`bench/solver.py --journal`, machine load 1.3 on" in text
    assert "the regions step, after" in text
    assert "| trump | 2 | 4,840 | 0.300 | 0.300 | 1.100 | 1.100 | 3.67x | 3.67x | 0 |" in text
    assert "| betl | 2 | 42,293 | 3.000 | 3.000 | 14.000 | 14.000 | 4.67x | 4.67x | 1 |" in text
    assert "2,000x" in text
    dated = re.findall(r"^## (20\d\d-\d\d-\d\d)\b", text, flags=re.MULTILINE)
    assert dated == ["2026-12-01", "2026-12-05"]


def test_a_journal_entry_without_the_baseline_has_the_projects_columns_only() -> None:
    bench = load_bench("solver")
    entry = bench.journal_entry(
        "bench/solver.py", [bench.StrainRun("sans", 1, 6_657, [0.0003], [], 0)], (1.0, 1.0), 0.5, "", date(2026, 12, 5)
    )
    assert "| sans | 1 | 6,657 | 0.300 | 0.300 |\n" in entry
    assert "baseline" not in entry


def test_the_entry_shows_the_command_without_the_note() -> None:
    bench = load_bench("solver")
    assert bench._without_note(["--deals", "50", "--note", "a step", "--journal"]) == ["--deals", "50", "--journal"]
    assert bench._without_note(["--note=a step", "--clock", "cpu"]) == ["--clock", "cpu"]
