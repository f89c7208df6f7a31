"""The bench scripts (bench/NAME.py) as modules for the tests, loaded as they run: their folder on the path (they
import `targets` and one another by name) and each under its own name beside the project's packages."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.append(str(BENCH))


def load_bench(name: str) -> ModuleType:
    """bench/NAME.py as the module ``bench_NAME`` (not `rules.arbitar` for bench/arbitar.py)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module
