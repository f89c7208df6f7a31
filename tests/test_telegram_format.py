"""The Telegram adapter's formatting rules, without a server: callback data, keyboards, Telegram's length limits
(in UTF-16 units), mentions as entities at the right offsets, and defusing ``@`` in text bound for a group."""

from __future__ import annotations

import pytest
from telegram import MessageEntity

from bot.messages import LANGUAGES, Catalogue
from bot.ports import Button
from bot.telegram.format import (
    callback_data,
    defuse,
    keyboard,
    mention_line,
    parse_callback,
    shorten,
    split_text,
    utf16_len,
    with_mention,
)
from bot.telegram.handlers import PRIVATE_COMMANDS


def test_callback_data_carries_only_the_action_and_the_id() -> None:
    assert callback_data(Button("Sudi", "take", 42)) == "take:42"
    assert callback_data(Button("Sudi", "take", 10**17)) == f"take:{10**17}"
    assert len(callback_data(Button("x", "councilor", 10**17)).encode()) <= 64
    with pytest.raises(ValueError, match="64 bytes"):
        callback_data(Button("x", "a" * 60, 12345))
    assert parse_callback("take:42") == ("take", 42)
    assert parse_callback("finish:-1") == ("finish", -1)  # the desk refuses it; the adapter only reads it
    for forged in (
        None,
        "",
        "take",
        "take:",
        "take:x",
        "take:1:2",
        "TAKE:1",
        "take:1 ",
        "take:1;DROP",
        "take:" + "9" * 19,
        "ta ke:1",
    ):
        assert parse_callback(forged) is None, forged


def test_keyboard_rows_and_no_keyboard_without_buttons() -> None:
    assert keyboard(()) is None
    markup = keyboard([Button(str(n), "hands", n) for n in range(5)])
    assert markup is not None
    assert [[b.callback_data for b in row] for row in markup.inline_keyboard] == [
        ["hands:0", "hands:1"],
        ["hands:2", "hands:3"],
        ["hands:4"],
    ]


def test_split_text_respects_utf16_limits_and_line_ends() -> None:
    assert split_text("kratko") == ["kratko"]
    text = "\n".join(f"red {n} 🂡" for n in range(100))  # 🂡 is two UTF-16 units
    parts = split_text(text, limit=100)
    assert all(utf16_len(p) <= 100 for p in parts)
    assert len(parts) > 1
    assert "\n".join(parts) == text
    long_line = "ž" * 250
    parts = split_text(f"a\n{long_line}\nb", limit=100)
    assert all(utf16_len(p) <= 100 for p in parts)
    assert "".join(parts).replace("\n", "") == f"a{long_line}b"
    emojis = "🂡" * 80  # 160 units: cut between, never inside, a surrogate pair
    assert split_text(emojis, limit=100) == ["🂡" * 50, "🂡" * 30]


def test_mentions_are_entities_at_utf16_offsets() -> None:
    text, entities = with_mention("🂡 \x00, otvorite: link", "Đorđe", 7)
    assert text == "🂡 Đorđe, otvorite: link"
    [entity] = entities
    assert (entity.type, entity.offset, entity.length) == (MessageEntity.TEXT_MENTION, 3, 5)
    assert entity.user is not None
    assert entity.user.id == 7
    text, entities = mention_line("Poziv 🔴", [("mira", 1), ("zoran", 2)])
    assert text == "Poziv 🔴\nmira, zoran"
    assert [(e.offset, e.length, e.user.id if e.user else 0) for e in entities] == [(9, 4, 1), (15, 5, 2)]
    assert mention_line("Poziv", []) == ("Poziv", [])


def test_defuse_stops_mentions_but_keeps_the_text_readable() -> None:
    assert defuse("pitati @zoran i @all, mejl a@b.rs") == "pitati @\u2060zoran i @\u2060all, mejl a@\u2060b.rs"
    assert defuse("bez majmuna @ ovde") == "bez majmuna @ ovde"
    assert shorten("x" * 300) == "x" * 199 + "…"
    assert shorten("kratko") == "kratko"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_menu_command_has_a_description_in_both_languages(language: str) -> None:
    catalogue = Catalogue(language)
    for name in PRIVATE_COMMANDS:
        assert 1 <= len(catalogue.t(f"cmd.{name}")) <= 256
