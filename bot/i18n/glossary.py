"""The preferans terms of the catalogues, kept in `docs/glossary-ru.md`: that page's table of terms is their source.

    python -m bot.i18n.glossary            # write the table's terms into the catalogues
    python -m bot.i18n.glossary --check    # list where the catalogues and the table disagree (exit 1 if they do)

The table "The catalogue's terms" has one row per catalogue key, ``| `key` | srpski | русский | English | note |``;
writing it sets the key's Serbian, Russian and English texts (adding the key if the catalogues lack it) and
regenerates the Serbian Cyrillic from the Serbian Latin, as `bot.i18n.import_dict --update` does for a dict. A
term is one text, never a plural entry. A ``|`` inside a cell is written ``\\|``; a cell's surrounding spaces are
the table's, not the text's. `tests/test_glossary.py` fails while the table and the catalogues disagree, so a term
changed in one place and not in the other is caught.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from bot.i18n.catalogues import languages
from bot.i18n.import_dict import merge

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary-ru.md"
HEADING = "## The catalogue's terms"
COLUMNS = ("key", "Serbian", "Russian", "English", "note")
_CELL = re.compile(r"(?:\\\||[^|])*")
_KEY = re.compile(r"`([a-z_]+(?:\.[a-z_]+)+)`")


class GlossaryError(ValueError):
    """The table cannot be read: which line, what is wrong."""


@dataclass(frozen=True)
class Term:
    """One row of the table: a catalogue key and its texts."""

    key: str
    sr: str
    ru: str
    en: str
    note: str
    line: int

    def texts(self) -> dict[str, str]:
        return {"sr": self.sr, "ru": self.ru, "en": self.en}


def _cells(row: str) -> list[str]:
    inner = row.strip()
    if not (inner.startswith("|") and inner.endswith("|") and len(inner) > 1):
        raise ValueError("a table row starts and ends with |")
    inner = inner[1:-1]
    cells: list[str] = []
    position = 0
    while True:
        match = _CELL.match(inner, position)
        assert match is not None  # the pattern matches the empty string
        cells.append(match.group().strip().replace("\\|", "|"))
        position = match.end()
        if position >= len(inner):
            return cells
        position += 1  # the separating |


def read_terms(text: str) -> list[Term]:
    """The rows of the table under `HEADING` (up to the next heading); a malformed row raises `GlossaryError`."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == HEADING)
    except StopIteration:
        raise GlossaryError(f"no section {HEADING!r}") from None
    terms: list[Term] = []
    seen: dict[str, int] = {}
    header_seen = False
    for number, line in enumerate(lines[start + 1 :], start=start + 2):
        if line.startswith("#"):
            break
        if not line.strip().startswith("|"):
            continue
        try:
            cells = _cells(line)
        except ValueError as error:
            raise GlossaryError(f"line {number}: {error}") from None
        if not header_seen:
            if tuple(cells) != COLUMNS:
                raise GlossaryError(f"line {number}: the table's columns are {' | '.join(COLUMNS)}")
            header_seen = True
            continue
        if all(set(cell) <= {"-", ":"} for cell in cells):
            continue
        if len(cells) != len(COLUMNS):
            raise GlossaryError(f"line {number}: {len(cells)} cells, the table has {len(COLUMNS)}")
        key_cell, sr, ru, en, note = cells
        key = _KEY.fullmatch(key_cell)
        if key is None:
            raise GlossaryError(f"line {number}: the key is written in backticks, e.g. `term.pik` (not {key_cell!r})")
        if not (sr and ru and en):
            raise GlossaryError(f"line {number}: {key.group(1)} needs its Serbian, Russian and English texts")
        if key.group(1) in seen:
            raise GlossaryError(f"line {number}: {key.group(1)} is already on line {seen[key.group(1)]}")
        seen[key.group(1)] = number
        terms.append(Term(key.group(1), sr, ru, en, note, number))
    if not terms:
        raise GlossaryError(f"the section {HEADING!r} has no table of terms")
    return terms


def disagreements(terms: list[Term]) -> list[str]:
    """Each term whose catalogue text differs from the table, one line each (empty when they agree)."""
    every = languages()
    found: list[str] = []
    for term in terms:
        for language, text in term.texts().items():
            written = every[language].texts.get(term.key)
            if isinstance(written, tuple):
                found.append(f"{term.key}: a plural entry in the catalogue, not a term")
                break
            if written != text:
                found.append(f"{term.key} [{language}]: glossary {text!r}, catalogue {written!r}")
    return found


def write(terms: list[Term]) -> tuple[int, int]:
    """The terms the catalogues lack or write otherwise into the catalogues (Serbian Cyrillic regenerated);
    returns (added, replaced)."""
    every = languages()
    plural = [t.key for t in terms if isinstance(every["sr"].texts.get(t.key), tuple)]
    if plural:
        raise GlossaryError(f"plural entries are not terms: {', '.join(plural)}")
    changed = [t for t in terms if any(every[lang].texts.get(t.key) != text for lang, text in t.texts().items())]
    if not changed:
        return 0, 0
    counts = merge({t.key: ((t.sr, t.en, t.ru), t.note) for t in changed}, update=True)
    languages.cache_clear()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.i18n.glossary", description=__doc__.split("\n\n")[0])
    parser.add_argument("--glossary", type=Path, default=GLOSSARY, help="the glossary page (docs/glossary-ru.md)")
    parser.add_argument("--check", action="store_true", help="only list the disagreements; exit 1 if there are any")
    args = parser.parse_args(argv)
    try:
        terms = read_terms(args.glossary.read_text(encoding="utf-8"))
        if args.check:
            found = disagreements(terms)
            for line in found:
                print(line)
            print(f"{len(terms)} terms, {len(found)} disagreements")
            return 1 if found else 0
        added, replaced = write(terms)
    except OSError as error:
        print(f"{args.glossary}: {error.strerror}", file=sys.stderr)
        return 2
    except GlossaryError as error:
        print(f"{args.glossary}: {error}", file=sys.stderr)
        return 2
    print(f"{len(terms)} terms read: {added} added, {replaced} replaced")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
