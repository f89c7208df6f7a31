"""The layers as docs/architecture.md draws them, checked on every import statement of the code (inside functions
and `TYPE_CHECKING` blocks too): the rules import neither storage nor the bot; storage does not import the bot;
an adapter does not reach the database; the core knows no adapter and no chat library."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ("bot.discord", "bot.telegram", "bot.console", "bot.web")
CHAT_LIBRARIES = ("discord", "telegram")
#: The core: use cases, the registry, the ports, the typed command language, the views.
CORE = ("bot.desk", "bot.registry", "bot.ports", "bot.commands", "bot.views", "bot.messages", "bot.demo")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


@functools.cache
def modules() -> dict[str, set[str]]:
    """Every module of the code and what it imports, read when a test first asks (not while collecting)."""
    return {
        module_name(p): imports_of(p)
        for folder in ("rules", "storage", "bot")
        for p in sorted((ROOT / folder).rglob("*.py"))
    }


RULES = [
    ("rules", ("storage", "bot")),
    ("storage", ("bot",)),
    *((adapter, ("storage",)) for adapter in ADAPTERS),
    *((core, (*ADAPTERS, *CHAT_LIBRARIES)) for core in CORE),
]


@pytest.mark.parametrize(("layer", "forbidden"), RULES, ids=[layer for layer, _ in RULES])
def test_a_layer_imports_nothing_it_must_not(layer: str, forbidden: tuple[str, ...]) -> None:
    offending = sorted(
        f"{module} imports {name}"
        for module, names in modules().items()
        if within(module, (layer,))
        for name in names
        if within(name, forbidden)
    )
    assert offending == []


def test_the_check_sees_every_layer() -> None:
    for layer in ("rules", "storage", *ADAPTERS, *CORE):
        assert any(within(m, (layer,)) for m in modules()), layer
    assert "storage" in {n.split(".")[0] for n in modules()["bot.desk"]}  # it does see imports
