"""The catalogues' parse kept beside each `.po` (bot/i18n/catalogues.py): a process starting reads it rather than
parsing the files again, a changed file is parsed again, a kept copy that cannot be read is parsed again, and
nothing is written where bytecode would not be."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po, write_po

import bot.i18n.catalogues as catalogues
from bot.i18n import LANGUAGES, LOCALES
from bot.i18n.catalogues import languages

SAMPLES = (0, 1, 2, 5, 11, 21, 22, 25, 101, 111)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The catalogues copied without any kept parse, read from there; the process's own read forgotten."""
    root = tmp_path / "locale"
    shutil.copytree(catalogues.ROOT, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(catalogues, "ROOT", root)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    catalogues.languages.cache_clear()
    yield root
    catalogues.languages.cache_clear()


def kept_files(root: Path, language: str) -> list[Path]:
    return sorted((root / LOCALES[language] / "LC_MESSAGES" / "__pycache__").glob("*.marshal"))


def shape(every: dict[str, catalogues.Language]) -> dict[str, Any]:
    return {
        code: (language.texts, language.counts, language.forms, [language.plural(n) for n in SAMPLES])
        for code, language in every.items()
    }


def refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("a .po file was parsed")


def test_a_process_starting_reads_the_kept_parse_not_the_files(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = shape(languages())
    assert parsed["sr"][0]  # the copy holds the catalogues
    for language in LANGUAGES:
        assert len(kept_files(root, language)) == 1
    catalogues.languages.cache_clear()  # as a new process would start
    monkeypatch.setattr(catalogues, "read_po", refuse)
    assert shape(languages()) == parsed


def test_a_changed_file_is_parsed_again_and_its_old_copy_goes(root: Path) -> None:
    before = languages()["en"]
    key = next(k for k, text in before.texts.items() if isinstance(text, str))
    [old] = kept_files(root, "en")
    path = root / LOCALES["en"] / "LC_MESSAGES" / "sudija.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=LOCALES["en"], domain="sudija")
    catalog[key].string = "changed since it was kept"
    with path.open("wb") as handle:
        write_po(handle, catalog, width=120)
    catalogues.languages.cache_clear()
    assert languages()["en"].texts[key] == "changed since it was kept"
    [new] = kept_files(root, "en")
    assert new != old


def test_a_kept_copy_that_cannot_be_read_is_parsed_again(root: Path) -> None:
    parsed = shape(languages())
    for language in LANGUAGES:
        [kept] = kept_files(root, language)
        kept.write_bytes(b"\x00not what was kept")
    catalogues.languages.cache_clear()
    assert shape(languages()) == parsed
    [kept] = kept_files(root, "sr")
    assert kept.read_bytes() != b"\x00not what was kept"  # written again whole


def test_nothing_is_kept_where_bytecode_is_not_written(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert languages()["sr"].texts
    for language in LANGUAGES:
        assert kept_files(root, language) == []
