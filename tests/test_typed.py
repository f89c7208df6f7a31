"""Roles and states are compared as enums in the bot, never as strings: every `==`, `!=`, `in`, `not in`, `is`,
set operation (`&`, `|`, `-`, `^`, `isdisjoint`, …) and `match` case in `bot/` is read, and one that sets a
string literal naming a role or a recorded state (a value of `Role`, `PartyRole`, the owner's office, or of an
enum tied to a CHECK column in `tests/test_states.py`) against something fails here. The enums are the one
spelling: a typo in an enum member fails at import, a typo in a string never."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import pytest
from test_states import COLUMNS

from rules.members import Owner, PartyRole, Role
from storage.states import EndReason

ROOT = Path(__file__).resolve().parent.parent


def _members(tied: type[Enum] | tuple[type[Enum], object]) -> type[Enum]:
    return tied[0] if isinstance(tied, tuple) else tied


ENUMS: list[type[Enum]] = [Role, PartyRole, Owner, EndReason, *(_members(t) for t in COLUMNS.values())]
VALUES: dict[str, set[str]] = {}
for _enum in ENUMS:
    for _member in _enum:
        VALUES.setdefault(str(_member.value), set()).add(_enum.__name__)

#: Comparisons with one of those words that compare something else, each with why (path, the source compared).
NOT_A_ROLE_OR_STATE: dict[tuple[str, str], str] = {
    ("bot/gameserver/feed.py", 'kind == "game_closed"'): "a game-server event's type (protocol.EVENTS)",
    (
        "bot/desk/links.py",
        'proof in ("code", "approval", "configuration", "admin")',
    ): "how an account's link was proven (accounts.proof), not how a league month was closed",
}

SET_METHODS = {"isdisjoint", "issubset", "issuperset", "intersection", "union", "difference", "symmetric_difference"}
SET_OPERATORS = (ast.BitAnd, ast.BitOr, ast.Sub, ast.BitXor)


def literals(node: ast.AST) -> Iterator[ast.Constant]:
    """The string constants a compared operand spells: itself, or the items of a literal tuple, list or set (also
    written `set(…)`, `frozenset(…)`, `tuple(…)`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for item in node.elts:
            yield from literals(item)
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset", "tuple")
    ):
        for arg in node.args:
            yield from literals(arg)


def compared(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.Constant]]:
    """(the comparison, the literal) for every role or state word set against something in `tree`."""
    for node in ast.walk(tree):
        operands: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, SET_OPERATORS):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SET_METHODS:
            operands = [node.func.value, *node.args]
        elif isinstance(node, ast.match_case):
            operands = [p.value for p in ast.walk(node.pattern) if isinstance(p, ast.MatchValue)]
        for operand in operands:
            for constant in literals(operand):
                if constant.value in VALUES:
                    yield node, constant


def offences(path: Path) -> list[str]:
    source = path.read_text("utf-8")
    relative = path.relative_to(ROOT).as_posix()
    found = []
    for node, constant in compared(ast.parse(source)):
        text = " ".join((ast.get_source_segment(source, node) or "").split())
        if (relative, text) in NOT_A_ROLE_OR_STATE:
            continue
        enums = "/".join(sorted(VALUES[constant.value]))
        found.append(f"{relative}:{constant.lineno}: {constant.value!r} ({enums}) in `{text[:100]}`")
    return found


BOT = sorted((ROOT / "bot").rglob("*.py"))


def test_no_role_or_state_is_compared_as_a_string_in_the_bot() -> None:
    assert [line for path in BOT for line in offences(path)] == []


def test_every_exception_is_still_there() -> None:
    """An exception that no longer matches anything is removed, not kept as a hole for the next string."""
    seen = set()
    for path in BOT:
        source = path.read_text("utf-8")
        relative = path.relative_to(ROOT).as_posix()
        for node, _ in compared(ast.parse(source)):
            seen.add((relative, " ".join((ast.get_source_segment(source, node) or "").split())))
    assert set(NOT_A_ROLE_OR_STATE) <= seen


@pytest.mark.parametrize(
    "code",
    [
        'if member.role == "referee": pass',
        'if state != "pending": pass',
        'ok = "councilor" in member.roles',
        'ok = role in ("referee", "councilor")',
        'ok = {"referee", "owner"} & roles',
        'ok = roles.isdisjoint(frozenset({"moderator"}))',
        'ok = trial.outcome is "interrupted"',
        'match state:\n    case "agreed" | "refused":\n        pass',
    ],
)
def test_the_reader_sees_every_way_of_comparing(code: str) -> None:
    assert [c.value for _, c in compared(ast.parse(code))] != []


def test_the_reader_lets_enums_and_other_words_be() -> None:
    code = (
        "ok = member.role is PartyRole.REFEREE or Role.COUNCILOR in roles or state == CallState.PENDING\n"
        'ok = kind == "move_played" or name in ("ana", "boris") or {"x"} & words\n'
    )
    assert list(compared(ast.parse(code))) == []
