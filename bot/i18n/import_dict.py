"""Bring catalogue entries written as a Python dict literal into the `.po` catalogues.

    python -m bot.i18n.import_dict FILE [FILE …] [--update]

FILE is Python source holding dict literals in the old `MESSAGES` format, ``"key": ("srpski", "English")`` (an
optional third text is the Russian). Every key the catalogues lack is added: Serbian and English as written,
Russian when given (otherwise the key stays untranslated and shows the English until a translator fills it), and
Serbian Cyrillic is regenerated from the Serbian Latin. ``--update`` also replaces the texts of keys already there
(never a plural entry's). The comment above an entry becomes its translator comment.

    python -m bot.i18n.import_dict --cyrillic

only regenerates the Cyrillic catalogue from the Latin one.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import write_po

from bot.i18n import LANGUAGES, LOCALES
from bot.i18n.catalogues import DOMAIN, po_path, read_catalog
from bot.i18n.cyrillic import to_cyrillic

FIXED_DATE = datetime(2026, 12, 1, tzinfo=UTC)  # keeps the headers stable between runs
_KEY_LINE = re.compile(r'^\s*"([\w.\-]+)"\s*:')


def entries_of(path: Path) -> dict[str, tuple[tuple[str, ...], str]]:
    """Every ``"key": ("sr", "en"[, "ru"])`` in the file's dict literals, with the comment above it."""
    source = path.read_text(encoding="utf-8")
    comments: dict[str, str] = {}
    last = ""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            last = stripped.lstrip("#").strip()
            continue
        match = _KEY_LINE.match(line)
        if match and last:
            comments.setdefault(match.group(1), last)
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Tuple)):
                continue
            texts = tuple(e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
            if len(texts) == len(value.elts) and 2 <= len(texts) <= 3:
                found[key.value] = (texts, comments.get(key.value, ""))
    return found


def empty_catalog(language: str) -> Catalog:
    return Catalog(
        locale=LOCALES[language],
        domain=DOMAIN,
        project="Sudija",
        version="1",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        fuzzy=False,
        language_team=f"{language} <sudija@localhost>",
        last_translator="Sudija",
    )


def load_all() -> dict[str, Catalog]:
    return {lang: read_catalog(lang) if po_path(lang).exists() else empty_catalog(lang) for lang in LANGUAGES}


def cyrillic_of(latin: Catalog) -> Catalog:
    """The Serbian Cyrillic catalogue: every Latin entry transliterated, comments kept."""
    cyrillic = empty_catalog("sr-Cyrl")
    for message in latin:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        string = message.string or ""
        text: str | tuple[str, ...] = (
            to_cyrillic(string, key) if isinstance(string, str) else tuple(to_cyrillic(s, key) for s in string)
        )
        cyrillic[message.id] = Message(
            message.id, text, auto_comments=list(message.auto_comments), flags=set(message.flags)
        )
    return cyrillic


def save(catalogs: dict[str, Catalog]) -> None:
    catalogs["sr-Cyrl"] = cyrillic_of(catalogs["sr"])
    for language, catalog in catalogs.items():
        catalog.revision_date = FIXED_DATE
        catalog.creation_date = FIXED_DATE
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, catalog, width=116, omit_header=False)


def merge(entries: dict[str, tuple[tuple[str, ...], str]], update: bool) -> tuple[int, int]:
    """Add (and with `update` replace) the entries; returns (added, replaced)."""
    catalogs = load_all()
    added = replaced = 0
    for key, (texts, comment) in entries.items():
        existing = catalogs["sr"].get(key)
        if existing is not None and (not update or isinstance(existing.id, tuple)):
            continue
        comments = [comment] if comment else []
        by_language = {"sr": texts[0], "en": texts[1], "ru": texts[2] if len(texts) > 2 else ""}
        for language, text in by_language.items():
            old = catalogs[language].get(key)
            if old is not None:  # Babel's `catalog[key] = …` keeps an existing entry's text: replace it in place
                old.string = text
                continue
            catalogs[language][key] = Message(key, text, auto_comments=comments, flags={"python-brace-format"})
        if existing is None:
            added += 1
        else:
            replaced += 1
    save(catalogs)
    return added, replaced


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.i18n.import_dict", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="Python source with dict literals of entries")
    parser.add_argument("--update", action="store_true", help="also replace the texts of keys already there")
    parser.add_argument("--cyrillic", action="store_true", help="only regenerate the Cyrillic catalogue")
    args = parser.parse_args(argv)
    if args.cyrillic and not args.files:
        save(load_all())
        print("sr-Cyrl regenerated from sr")
        return 0
    if not args.files:
        parser.error("give a FILE (or --cyrillic)")
    entries: dict[str, tuple[tuple[str, ...], str]] = {}
    for path in args.files:
        if not path.is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
        try:
            entries.update(entries_of(path))
        except SyntaxError as error:
            print(f"{path}: not Python source ({error.msg}, line {error.lineno})", file=sys.stderr)
            return 2
    added, replaced = merge(entries, args.update)
    print(f"{len(entries)} entries read: {added} added, {replaced} replaced")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
