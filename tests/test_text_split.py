"""Cutting long texts into platform-sized messages, by characters or by UTF-16 units."""

from __future__ import annotations

from bot.text_split import split_lines


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_whole_lines_are_joined_while_they_fit_and_long_lines_are_cut() -> None:
    assert split_lines("ab\ncd\nef", 5) == ["ab\ncd", "ef"]
    assert split_lines("abcdefghij\nx", 4) == ["abcd", "efgh", "ij\nx"]
    assert split_lines("", 4) == []


def test_the_measure_decides_length() -> None:
    text = "🂡🂡🂡"  # each is two UTF-16 units
    assert split_lines(text, 4) == [text]
    assert split_lines(text, 4, utf16) == ["🂡🂡", "🂡"]
    assert all(utf16(part) <= 5 for part in split_lines("♠" * 20 + "\n" + "🂡" * 7, 5, utf16))
