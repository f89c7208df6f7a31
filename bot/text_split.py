"""Cutting a long text into messages a chat platform accepts: at line ends where possible, hard inside a line
that is itself too long. Each platform measures length its own way (Discord in characters, Telegram in UTF-16
units), so the measure is a parameter."""

from __future__ import annotations

from collections.abc import Callable


def split_lines(text: str, limit: int, measure: Callable[[str], int] = len) -> list[str]:
    """Messages of at most `limit` (by `measure`), joined from whole lines where they fit."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while measure(line) > limit:  # a single overlong line: cut it hard
            cut = min(len(line), limit)
            while measure(line[:cut]) > limit:
                cut -= 1
            if current:
                out.append(current)
                current = ""
            out.append(line[:cut])
            line = line[cut:]
        candidate = f"{current}\n{line}" if current else line
        if measure(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    if current:
        out.append(current)
    return out
