"""Strict JSON for everything that comes from outside (game logs, the game-server link's bodies, a record's data):
`json.loads` keeps the last of two equal keys silently and reads ``"\\u0000"``, ``"\\u2028"`` and ``"\\u2029"`` inside
a string as if they were ordinary. Here an object with a key twice is refused, naming the key and its path
(``$.deal.marko``), and so is a string (a value or a key) holding NUL or a line or paragraph separator, naming
its path.

Fast where nothing is wrong: the text is read by `json.loads` as it is; a key given twice shows as more key ends
in the text (a quote, spaces, a colon) than keys in the value read, and the forbidden characters are looked for in
the text itself (escaped or raw, a backslash escaped before them told apart). Only a document found suspect is
read again with every object's pairs, or walked, to name the path.

Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

FORBIDDEN = {"\x00": "NUL (U+0000)", "\u2028": "a line separator (U+2028)", "\u2029": "a paragraph separator (U+2029)"}
_KEY_END = re.compile(r'"[ \t\r\n]*:')
_SUSPECT = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:0000|2028|2029)|[\u2028\u2029]", re.IGNORECASE)


class StrictJsonError(ValueError):
    """What makes a JSON text not strict: the message names the key or the value's path and what is wrong."""

    def __init__(
        self, message: str, path: str, *, where: str = "", twice: str | None = None, char: str = "", position: int = 0
    ) -> None:
        super().__init__(message)
        self.path = path
        self.where = where  # the object holding the key twice, or the string (or key) holding the character
        self.twice = twice  # the key given twice; None for a forbidden character
        self.char = char  # the forbidden character's code point, U+0000
        self.position = position  # where it is in its string, from 1


class _Twice(dict[str, Any]):
    """An object that had a key twice (the first such key kept in `twice`)."""

    twice: str


def _twice(pairs: list[tuple[str, Any]]) -> _Twice:
    seen: set[str] = set()
    marked = _Twice(pairs)
    for key, _ in pairs:
        if key in seen:
            marked.twice = key
            break
        seen.add(key)
    return marked


def strict_loads(text: str | bytes) -> Any:
    """`json.loads`, refusing (`StrictJsonError`) a key twice in one object and NUL, U+2028 or U+2029 in a string;
    `json.JSONDecodeError` (a `ValueError`) for text that is not JSON at all."""
    value = json.loads(text)
    source = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if _key_ends(source) != _keys(value):
        # More key ends in the text than keys read: a key given twice (or a quote and a colon inside a string,
        # which the careful reading below tells apart). Never fewer: every key ends in `"`, spaces, `:`.
        doubled = json.loads(text, object_pairs_hook=_pairs)
        _walk(doubled, "$", strings=False)
    if "\u2028" in source or "\u2029" in source or ("\\u" in source and _SUSPECT.search(source) is not None):
        _walk(value, "$", strings=True)
    return value


def _key_ends(text: str) -> int:
    """How many times the text has a quote followed (after any spaces) by a colon: every key of every object, and
    nothing else outside a string."""
    if '" ' in text or '"\t' in text or '"\n' in text or '"\r' in text:
        return len(_KEY_END.findall(text))
    return text.count('":')


def _keys(value: Any) -> int:
    """How many keys the objects of a parsed value hold."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            count += len(item)
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return count


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(items)
    return made if len(made) == len(items) else _twice(items)


def _walk(value: Any, path: str, strings: bool) -> None:
    """Raise for the first key twice or forbidden character in `value`; strings looked at only when `strings`."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            if isinstance(item, _Twice):
                raise StrictJsonError(
                    f"{where}: the key {item.twice!r} is given twice",
                    f"{where}.{item.twice}",
                    where=where,
                    twice=item.twice,
                )
            for key, inner in reversed(item.items()):
                if strings:
                    _string(key, where, in_key=True)
                if isinstance(inner, (dict, list)) or (strings and isinstance(inner, str)):
                    stack.append((inner, f"{where}.{key}"))
        elif isinstance(item, list):
            for index in range(len(item) - 1, -1, -1):
                inner = item[index]
                if isinstance(inner, (dict, list)) or (strings and isinstance(inner, str)):
                    stack.append((inner, f"{where}[{index}]"))
        elif isinstance(item, str):
            _string(item, where)


def _string(text: str, where: str, in_key: bool = False) -> None:
    for char, name in FORBIDDEN.items():
        if char in text:
            position = text.index(char) + 1
            shown = f"{where} (a key)" if in_key else where
            raise StrictJsonError(
                f"{shown}: the text holds {name} at position {position}",
                shown,
                where=where,
                char=f"U+{ord(char):04X}",
                position=position,
            )
