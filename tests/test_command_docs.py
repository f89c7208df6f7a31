"""The platform guides' command tables (docs/telegram.md, docs/discord.md) are the registry's: each row names a
command as the platform takes it, where it may be used, whom it is for and its description, and a guide whose
table and the registry disagree fails here, naming the command. `python -m bot.command_docs` rewrites them."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot import command_docs
from bot.command_docs import GUIDES, Guide, table_in, written
from bot.registry import REGISTRY
from bot.registry.spec import Audience, Place

ROW = re.compile(r"^\| `/([^` ]+)[^|]*`")
#: The other pages that a reader might take for a list of commands: they name commands only in passing.
OTHER_PAGES = ("README.md", "docs/console.md", "docs/architecture.md")


def rows(table: str) -> dict[str, str]:
    """A table's rows by the command their first cell names."""
    found: dict[str, str] = {}
    for line in table.splitlines():
        match = ROW.match(line)
        if match:
            found[match.group(1)] = line
    return found


@pytest.mark.parametrize("guide", GUIDES, ids=[g.platform for g in GUIDES])
def test_each_guides_table_is_the_registrys(guide: Guide) -> None:
    shown = table_in(guide.path.read_text(encoding="utf-8"), guide)
    assert shown is not None, f"{guide.path.name} lost its {guide.start} block"
    wanted = guide.table()
    have, want = rows(shown), rows(wanted)
    missing = sorted(set(want) - set(have))
    assert not missing, f"{guide.path.name} lacks {missing}: python -m bot.command_docs"
    unknown = sorted(set(have) - set(want))
    assert not unknown, f"{guide.path.name} lists commands the registry does not have: {unknown}"
    differing = [name for name in want if have.get(name) != want[name]]
    assert not differing, f"{guide.path.name} says otherwise of {differing}: python -m bot.command_docs"
    assert shown == wanted, f"{guide.path.name}'s table differs from the registry: python -m bot.command_docs"


def test_every_command_has_its_row_with_its_place_audience_and_description() -> None:
    """What the rows say, read back: the Telegram guide's places are the declaration's, every row names its
    audience, and every description is the English catalogue's."""
    telegram, discord = (rows(table_in(g.path.read_text(encoding="utf-8"), g) or "") for g in GUIDES)
    assert set(telegram) == {c.name for c in REGISTRY}
    assert len(discord) == len(REGISTRY)
    for command in REGISTRY:
        cells = [cell.strip() for cell in telegram[command.name].strip("|").split(" | ")]
        where = {"group": Place.CLUB, "private": Place.PRIVATE}
        assert {where[w] for w in cells[1].split(", ")} == set(command.places), command.name
        assert cells[2] == command.audience.value, command.name
        assert cells[3] == command_docs.english(command.description_key)


def test_a_changed_declaration_fails_until_the_guides_are_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is not a tautology: a command made private-only, or for the officials, no longer matches the
    table; the tool rewrites the table (and only the table), and `--check` then passes."""
    changed = tuple(
        replace(c, places=frozenset({Place.PRIVATE}), audience=Audience.OFFICIAL) if c.name == "papir" else c
        for c in REGISTRY
    )
    monkeypatch.setattr(command_docs, "REGISTRY", changed)
    guides = []
    for guide in GUIDES:
        copy = tmp_path / guide.path.name
        copy.write_text(guide.path.read_text(encoding="utf-8"), encoding="utf-8")
        guides.append(replace(guide, path=copy))
    monkeypatch.setattr(command_docs, "GUIDES", tuple(guides))
    monkeypatch.setattr(command_docs, "ROOT", tmp_path)
    before = {g.path: g.path.read_text(encoding="utf-8") for g in guides}
    for guide in guides:
        shown = rows(table_in(before[guide.path], guide) or "")["papir"]
        assert shown != rows(guide.table())["papir"]
    assert command_docs.main(["--check"]) == 1
    assert command_docs.main([]) == 0
    assert command_docs.main(["--check"]) == 0
    telegram = guides[0].path.read_text(encoding="utf-8")
    assert "| `/papir [partija]` | private | official | The game's paper |" in telegram
    outside = before[guides[0].path].split(guides[0].start)[0]
    assert telegram.split(guides[0].start)[0] == outside  # the hand-written text stays


def test_a_guide_without_its_markers_is_named(tmp_path: Path) -> None:
    bare = replace(GUIDES[0], path=tmp_path / "telegram.md")
    with pytest.raises(ValueError, match="commands:telegram"):
        written("# Sudija on Telegram\n", bare)


@pytest.mark.parametrize("page", OTHER_PAGES)
def test_no_other_page_keeps_a_table_of_commands_by_hand(page: str) -> None:
    text = (command_docs.ROOT / page).read_text(encoding="utf-8")
    listed = [line for line in text.splitlines() if ROW.match(line)]
    assert not listed, f"{page} lists commands in a table; generate it (bot/command_docs.py) instead: {listed[:3]}"
