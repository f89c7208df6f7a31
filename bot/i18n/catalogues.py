"""The catalogues as the bot reads them: every `.po` under `locale/` parsed once with Babel's `read_po`.

The `.po` files are read directly (not compiled `.mo`): they are the source the tests check and the package ships
them as data. A plural entry carries the name of its count in a translator comment (``#. count: minutes``); its
form is chosen by the gettext Plural-Forms rule Babel writes from CLDR.

What a parse yields is kept beside the file, as Python keeps a module's bytecode: ``__pycache__/`` next to the
`.po`, under a name that is a digest of the file's bytes and of what parsed them (`CACHE_TAG`, Babel's version),
so it can never answer for a file that changed; a process starting (the bot, each of its tools) reads that
instead of parsing four large files again. It is not written where ``PYTHONDONTWRITEBYTECODE`` (``-B``) says
not to, nor where the directory cannot be written (the file is parsed then, as before); a copy that cannot be
read is parsed again.
"""

from __future__ import annotations

import gettext
import hashlib
import io
import marshal
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import babel
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.i18n import FALLBACK, LANGUAGES, LOCALES

ROOT = Path(__file__).parent / "locale"
DOMAIN = "sudija"
COUNT_COMMENT = "count: "

Text = str | tuple[str, ...]
# What `_parse` keeps of a catalogue: its texts, its counts, its Plural-Forms expression and number of forms.
Parsed = tuple[dict[str, Text], dict[str, str], str, int]
CACHE_TAG = b"sudija catalogue 1"  # changed whenever `_parse` keeps something else: every kept copy is then unused


def po_path(language: str) -> Path:
    return ROOT / LOCALES[language] / "LC_MESSAGES" / f"{DOMAIN}.po"


@dataclass
class Language:
    """One language's texts: a key's text, or its plural forms in the order of the language's rule."""

    code: str
    texts: dict[str, Text]
    plural: Callable[[int], int]
    forms: int
    counts: dict[str, str] = field(default_factory=dict)  # key -> the parameter that carries the count


def read_catalog(language: str) -> Catalog:
    with po_path(language).open("rb") as handle:
        return read_po(handle, locale=LOCALES[language], domain=DOMAIN)


def _parse(language: str, source: bytes) -> Parsed:
    catalog = read_po(io.BytesIO(source), locale=LOCALES[language], domain=DOMAIN)
    texts: dict[str, Text] = {}
    counts: dict[str, str] = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        for comment in message.auto_comments:
            if comment.startswith(COUNT_COMMENT):
                counts[key] = comment[len(COUNT_COMMENT) :].strip()
        string = message.string
        if isinstance(string, str):
            if string:
                texts[key] = string
        elif string and all(string):
            texts[key] = tuple(string)
    return texts, counts, catalog.plural_expr, catalog.num_plurals


def kept_path(language: str, source: bytes) -> Path:
    """Where the parse of `source` (the language's `.po`, as read) is kept: named by a digest of its bytes."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (CACHE_TAG, babel.__version__.encode(), LOCALES[language].encode(), source):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    path = po_path(language)
    return path.parent / "__pycache__" / f"{path.stem}.{digest.hexdigest()}.marshal"


def _kept(path: Path) -> Parsed | None:
    try:
        parsed = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(parsed, tuple) and len(parsed) == 4):
        return None
    return parsed  # written by `_keep` from a `Parsed`, under this digest


def _keep(path: Path, parsed: Parsed) -> None:
    """Write the parse beside the file, whole or not at all (a new name, then renamed over); other copies of the
    language's earlier files are removed."""
    if sys.dont_write_bytecode:
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(exist_ok=True)
        partial.write_bytes(marshal.dumps(parsed))
        os.replace(partial, path)
        stem = path.name.split(".", 1)[0]
        for old in path.parent.glob(f"{stem}.*.marshal"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        partial.unlink(missing_ok=True)


def _language(language: str) -> Language:
    source = po_path(language).read_bytes()
    path = kept_path(language, source)
    parsed = _kept(path)
    if parsed is None:
        parsed = _parse(language, source)
        _keep(path, parsed)
    texts, counts, plural_expr, forms = parsed
    return Language(language, texts, gettext.c2py(plural_expr), forms, counts)


@cache
def languages() -> dict[str, Language]:
    """Every language, read once."""
    return {code: _language(code) for code in LANGUAGES}


def lookup(language: str, key: str) -> tuple[Text, Language] | None:
    """A key's text in `language`, or in its declared fallback; None when neither has it."""
    every = languages()
    for code in (language, FALLBACK.get(language)):
        if code is not None and key in every[code].texts:
            return every[code].texts[key], every[code]
    return None


def count_of(key: str) -> str | None:
    """The parameter whose number chooses the key's plural form (the Serbian catalogue declares it)."""
    return languages()["sr"].counts.get(key)


def untranslated(language: str) -> list[str]:
    """The keys of the Serbian catalogue that `language` has no text of its own for."""
    every = languages()
    return sorted(k for k in every["sr"].texts if k not in every[language].texts)


def own_text(language: str, key: str) -> str | None:
    """The key's text written in `language` itself (a plural entry's first form); None where it falls back."""
    text = languages()[language].texts.get(key)
    return text if text is None or isinstance(text, str) else text[0]
