"""The language of the command line: ``--lang`` (any of the four, on every sub-command), else the club's ``[club]
language``, else Serbian; argparse's own words (its usage line, its errors, "options") are written in it too.

The language is read from the command line before the parser is built (`chosen_language`), because argparse writes
some of its words as it builds (the titles of the option groups, the help option's text). `argparse_in` then gives
argparse the catalogue's ``argparse.*`` texts for the block: argparse takes each of its words through its module's
``_`` (gettext) when it needs it, so the block puts a lookup there and takes it back after; a word it has no entry
for stays argparse's own.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator, Sequence

from bot.config import ConfigError, load
from bot.i18n import LANGUAGES
from bot.messages import Catalogue

#: argparse's own texts (CPython's argparse) and the catalogue entry of each.
ARGPARSE_KEYS = {
    "usage: ": "argparse.usage",
    "positional arguments": "argparse.positionals",
    "options": "argparse.options",
    "show this help message and exit": "argparse.help",
    "%(prog)s: error: %(message)s\n": "argparse.error",
    "the following arguments are required: %s": "argparse.required",
    "unrecognized arguments: %s": "argparse.unrecognized",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.invalid_choice",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "invalid %(type)s value: %(value)r": "argparse.invalid_value",
    "expected one argument": "argparse.expected_one",
    "expected at most one argument": "argparse.expected_at_most_one",
    "expected at least one argument": "argparse.expected_at_least_one",
    "not allowed with argument %s": "argparse.not_allowed_with",
    "one of the arguments %s is required": "argparse.one_of_required",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
    "ignored explicit argument %r": "argparse.ignored_argument",
    "can't open '%(filename)s': %(error)s": "argparse.cannot_open",
}

_current = Catalogue("sr")


def chosen_language(argv: Sequence[str]) -> str:
    """``--lang`` when the command line gives one of the four, else the configuration's (``--config`` or
    config.toml), else Serbian: a configuration that cannot be read is reported by `bot.cli.main` afterwards."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--lang", default=None)
    pre.add_argument("--config", default=None)
    known, _ = pre.parse_known_args(list(argv))
    if known.lang in LANGUAGES:
        return str(known.lang)
    try:
        return load(known.config).language
    except (ConfigError, OSError):
        return "sr"


def current() -> Catalogue:
    """The catalogue the command line speaks in (inside `argparse_in`; Serbian outside it)."""
    return _current


@contextlib.contextmanager
def argparse_in(language: str) -> Iterator[Catalogue]:
    """For the block, argparse writes its words from the catalogue in `language`; so do the options' helps."""
    global _current  # the command line's one language, set for one run of `main`
    words = Catalogue(language)

    def translate(text: str) -> str:
        key = ARGPARSE_KEYS.get(text)
        return words.t(key) if key is not None else text

    before: Callable[[str], str] = getattr(argparse, "_")  # noqa: B009 (argparse's module-level gettext)
    previous = _current
    setattr(argparse, "_", translate)  # noqa: B010 (argparse's module-level gettext)
    _current = words
    try:
        yield words
    finally:
        setattr(argparse, "_", before)  # noqa: B010 (argparse's module-level gettext)
        _current = previous
