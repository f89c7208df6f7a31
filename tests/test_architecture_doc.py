"""docs/architecture.md stays true to the tree: every path it names exists, every name in its layout trees is a
file or folder where the tree puts it, and it names every package and every module of `bot/` and `bot/desk/`.

A structural change (a module split, moved or renamed) fails here until the page says so."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"

#: A path of the project written out in the page's prose (`bot/desk/calls.py`, `storage/migrations/README.md`).
PATH = re.compile(r"(?<![\w./-])((?:bot|rules|storage|tests|bench|deploy|packs|docs)/[\w./-]*\w/?)")
#: What a path names for the reader to fill in (`packs/NAME.toml`, `NNNN_name.sql`): not a file.
PLACEHOLDER = re.compile(r"NAME|NNNN")
#: Where a tree's description column starts: a name column wider than this is a continuation line.
DESCRIPTION_COLUMN = 12
NAME = re.compile(r"[\w./]+")
MODULE = re.compile(r"(?<![\w./-])([\w/]+\.py)\b")


def trees(text: str) -> list[list[str]]:
    """The page's layout trees: its fenced blocks without a language (the code examples name one)."""
    blocks: list[list[str]] = []
    block: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            if not fenced and line == "```":
                block = []
            elif fenced and block is not None:
                blocks.append(block)
                block = None
            fenced = not fenced
        elif block is not None:
            block.append(line)
    return blocks


def tree_paths(lines: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The paths a tree's name column gives (a root at the margin, its entries indented under it), and each
    description's module names with the root they lie under."""
    paths: list[str] = []
    described: list[tuple[str, str]] = []
    root = ""
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if indent >= DESCRIPTION_COLUMN:
            described += [(root, name) for name in MODULE.findall(line)]
            continue
        column, _, description = line.strip().partition("  ")
        names = [word for word in column.split(" ") if NAME.fullmatch(word) and (word.endswith(("/", ".py")))]
        if indent == 0 and names and names[0].endswith("/"):
            root = names[0]
            paths.append(root)
        else:
            paths += [root + name for name in names]
        described += [(root, name) for name in MODULE.findall(description)]
    return paths, described


def test_every_path_the_page_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = sorted({p for p in PATH.findall(text) if not PLACEHOLDER.search(p) and not (ROOT / p).exists()})
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_name_in_the_layout_trees_is_where_the_tree_puts_it() -> None:
    found = [tree_paths(lines) for lines in trees(DOC.read_text(encoding="utf-8"))]
    paths = [p for listed, _ in found for p in listed]
    for read in ("rules/", "bot/registry/", "bot/desk/deps.py"):
        assert read in paths, f"the trees were not read: {read} missing"
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, f"docs/architecture.md's trees name what does not exist: {missing}"
    unknown = sorted(
        f"{name} (under {root})"
        for listed, described in found
        for root, name in described
        if root
        and not (ROOT / name).exists()
        and not any(path.as_posix().endswith("/" + name) for path in (ROOT / root).rglob(Path(name).name))
    )
    assert not unknown, f"docs/architecture.md's trees describe modules that do not exist: {unknown}"


def test_the_page_names_every_package_and_every_module_of_bot_and_the_desk() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = {p for lines in trees(text) for p in tree_paths(lines)[0]}
    named = paths | set(PATH.findall(text))
    packages = sorted(
        {
            module.parent.relative_to(ROOT).as_posix()
            for top in ("bot", "rules", "storage")
            for module in (ROOT / top).rglob("*.py")
        }
    )
    unnamed = [
        package
        for package in packages
        if "/" in package
        and package + "/" not in paths
        and not any(p.startswith(package + "/") for p in named)
        and package.split("/", 1)[1] + "/" not in text
    ]
    assert not unnamed, f"docs/architecture.md does not name the packages {unnamed}"
    modules = sorted(
        module.relative_to(ROOT).as_posix()
        for folder in ("bot", "bot/desk")
        for module in (ROOT / folder).glob("*.py")
        if module.name != "__init__.py" or folder == "bot/desk"
    )
    unlisted = [module for module in modules if module not in paths]
    assert not unlisted, f"docs/architecture.md's trees do not list the modules {unlisted}"


def test_the_tree_reader_sees_roots_entries_and_descriptions() -> None:
    lines = [
        "bot/",
        "  desk/             the use cases (calls.py)",
        "  sweep.py scheduler.py   the timers",
        "                    and more of it (query.py)",
    ]
    assert trees("```python\nx = 1\n```\n\n```\nbot/\n```\n") == [["bot/"]]
    paths, described = tree_paths(lines)
    assert paths == ["bot/", "bot/desk/", "bot/sweep.py", "bot/scheduler.py"]
    assert described == [("bot/", "calls.py"), ("bot/", "query.py")]
