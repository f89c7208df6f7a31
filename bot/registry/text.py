"""Reading a typed command line by its declaration (the console club and Telegram), and the help it generates.

A line is ``/NAME ARG … [KEYWORD VALUE] [-- reason]``. Positional arguments come in their declared order; an
optional one whose word does not fit its type is skipped when a later argument may take the word
(``/ponisti 3 bula``: no game, then what to cancel). Numbers are checked against their limits; a mistake raises
`Usage` naming the argument and the word, and the command's usage line follows it in the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime

from bot.messages import MESSAGES
from bot.ports import Upload
from bot.registry.spec import MAX_REASON, Arg, ArgKind, Args, Command, Usage, Value
from rules.nicknames import is_blank

Translate = Callable[..., str]

YES = frozenset({"da", "on", "yes"})
NO = frozenset({"ne", "off", "no"})
NUMBER_LABELS = {ArgKind.GAME: "usage.game_number", ArgKind.HAND: "usage.hand_number"}


def read_number(word: str, label: str, low: int, high: int, t: Translate) -> int:
    """A whole number written in ASCII digits (an optional sign) within [low, high], else `Usage`: `label` says a
    word that is no number, ``usage.number_range`` a number beyond the range (however many digits it has)."""
    body = word[1:] if word[:1] in "+-" else word
    if not body or not (body.isascii() and body.isdigit()):
        raise Usage(f"{label}: '{word[:20]}'")
    value = int(word) if len(body) <= 12 else None
    if value is None or not low <= value <= high:
        shown = word if len(word) <= 20 else word[:20] + "…"
        raise Usage(t("usage.number_range", word=f"'{shown}'", low=low, high=high))
    return value


def read_value(arg: Arg, word: str, t: Translate) -> Value:
    """One word as the argument's type."""
    kind = arg.kind
    if kind in (ArgKind.GAME, ArgKind.HAND, ArgKind.NUMBER):
        low, high = arg.limits or (1, 1)
        return read_number(word, t(NUMBER_LABELS.get(kind, f"usage.arg.{arg.name}")), low, high, t)
    if kind in (ArgKind.NICK, ArgKind.WORD):
        if len(word) > (arg.max_length or 32):
            raise Usage(t("usage.word_too_long", limit=arg.max_length))
        return word
    if kind is ArgKind.CHOICE:
        folded = fold(word)
        for choice in arg.choices:
            names = (choice, *MESSAGES.get(f"choice.{arg.name}.{choice}", ()))
            if any(fold(n) == folded for n in names):
                return choice
        raise Usage(t(f"usage.arg.{arg.name}"))
    if kind is ArgKind.BOOL:
        if word.casefold() in YES:
            return True
        if word.casefold() in NO:
            return False
        raise Usage(t("usage.yes_no"))
    if kind is ArgKind.DATE:
        try:
            return datetime.strptime(word, "%Y-%m-%d").date()
        except ValueError:
            raise Usage(t("usage.date")) from None
    if kind is ArgKind.MONTH:
        try:
            datetime.strptime(word, "%Y-%m")
        except ValueError:
            raise Usage(t("usage.month")) from None
        return word
    raise AssertionError(f"{kind} is not one word")


def fits(arg: Arg, word: str, t: Translate) -> bool:
    try:
        read_value(arg, word, t)
    except Usage:
        return False
    return True


FOLD = str.maketrans({"č": "c", "ć": "c", "š": "s", "ž": "z", "đ": "dj"})


def fold(word: str) -> str:
    """Case and the Serbian diacritics do not matter in typed words (``većnik`` = ``vecnik``)."""
    return word.casefold().translate(FOLD)


NUMBERS = (ArgKind.GAME, ArgKind.HAND, ArgKind.NUMBER)


def _meant_later(arg: Arg, word: str, later: Sequence[Arg], left: int) -> bool:
    """Whether a word that fits neither the optional number `arg` nor any later argument was meant for a later one:
    it has no digit, a later argument is a word or a choice, and the `left` words are not more than the later
    arguments (``/ponisti 4 nesto`` is a wrong kind, not a wrong game; ``/ponisti 4 abc bula`` a wrong game), so the
    later argument says what is wrong with it."""
    return (
        arg.kind in NUMBERS
        and not any(c.isdigit() for c in word)
        and left <= len(later)
        and any(a.kind not in NUMBERS for a in later)
    )


def read_args(command: Command, rest: str, t: Translate) -> Args:
    """The words after the command's name as its declared arguments, or `Usage` saying what is wrong."""
    reason_arg = command.reason
    body, _, reason = rest.partition("--") if reason_arg is not None else (rest, "", "")
    words = body.split()
    values: dict[str, Value] = {}
    for arg in command.keywords:
        at = next((i for i, w in enumerate(words) if fold(w) == arg.keyword), None)
        if at is None:
            values[arg.name] = None
            continue
        if at + 1 >= len(words):
            raise Usage(t(f"usage.arg.{arg.name}"))
        values[arg.name] = read_value(arg, words[at + 1], t)
        del words[at : at + 2]
    positional = command.positional
    i = 0
    for n, arg in enumerate(positional):
        if arg.kind is ArgKind.WORDS:
            values[arg.name] = tuple(words[i:])
            i = len(words)
            continue
        if i >= len(words):
            if arg.required:
                raise Usage(t("usage.missing", what=t(arg.description_key)))
            values[arg.name] = None
            continue
        word = words[i]
        later = positional[n + 1 :]
        if (
            not arg.required
            and not fits(arg, word, t)
            and (any(fits(a, word, t) for a in later) or _meant_later(arg, word, later, len(words) - i))
        ):
            values[arg.name] = None
            continue
        values[arg.name] = read_value(arg, word, t)
        i += 1
    if i < len(words):
        raise Usage(t("usage.too_many", words=" ".join(words[i:])[:60]))
    file_arg = command.file
    if file_arg is not None:
        values[file_arg.name] = None  # sent with the command by the platform (`with_upload`), never typed
    if reason_arg is not None:
        text = reason.strip()
        if reason_arg.required and is_blank(text):
            raise Usage(t("usage.reason_needed"))
        if len(text) > (reason_arg.max_length or 1000):
            raise Usage(t("usage.reason_too_long", limit=reason_arg.max_length))
        values[reason_arg.name] = "" if is_blank(text) else text  # zero-width marks alone are no reason
    return Args(values)


def with_upload(command: Command, args: Args, upload: Upload | None, t: Translate) -> Args:
    """The command's arguments with the file sent with it; `Usage` when it takes no file."""
    if upload is None:
        return args
    file_arg = command.file
    if file_arg is None:
        raise Usage(t("usage.no_file"))
    return Args({**args.values, file_arg.name: upload})


def check_args(command: Command, args: Args, t: Translate) -> None:
    """`Usage` unless `args` are what the command declares: no argument it does not have, a required one given, and
    each given value of its argument's type within its limits (choices, numbers, lengths). The typed line is read so
    already (`read_args`); this holds every other front end to the same, whoever built the values."""
    declared = {arg.name for arg in command.args}
    unknown = [name for name in args.values if name not in declared]
    if unknown:
        raise Usage(t("usage.too_many", words=" ".join(unknown)[:60]))
    for arg in command.args:
        value = args.values.get(arg.name)
        if value is None or (arg.kind is ArgKind.REASON and isinstance(value, str) and is_blank(value)):
            if arg.required and arg.kind is ArgKind.REASON:
                raise Usage(t("usage.reason_needed"))
            if arg.required and arg.kind is not ArgKind.WORDS:
                raise Usage(t("usage.missing", what=t(arg.description_key)))
            continue
        problem = _misfit(arg, value, t)
        if problem is not None:
            raise Usage(problem)


def _misfit(arg: Arg, value: Value, t: Translate) -> str | None:
    """What is wrong with a value given for `arg`, in the words the typed reader uses; None: it fits."""
    kind = arg.kind
    if kind in (ArgKind.GAME, ArgKind.HAND, ArgKind.NUMBER):
        low, high = arg.limits or (1, 1)
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{t(NUMBER_LABELS.get(kind, f'usage.arg.{arg.name}'))}: '{str(value)[:20]}'"
        return t("usage.number_range", word=f"'{value}'", low=low, high=high)
    if kind is ArgKind.BOOL:
        return None if isinstance(value, bool) else t("usage.yes_no")
    if kind is ArgKind.CHOICE:
        return None if isinstance(value, str) and value in arg.choices else t(f"usage.arg.{arg.name}")
    if kind is ArgKind.DATE:
        return None if isinstance(value, date) else t("usage.date")
    if kind is ArgKind.MONTH:
        return None if isinstance(value, str) and fits(arg, value, t) else t("usage.month")
    if kind is ArgKind.FILE:
        return None if isinstance(value, Upload) else t("usage.missing", what=t(arg.description_key))
    if kind is ArgKind.WORDS:
        if isinstance(value, tuple) and all(isinstance(w, str) for w in value):
            return None
        return t("usage.missing", what=t(arg.description_key))
    limit = arg.max_length or MAX_REASON
    if isinstance(value, str) and len(value) <= limit:
        return None
    return t("usage.reason_too_long" if kind is ArgKind.REASON else "usage.word_too_long", limit=limit)


def help_lines(commands: Iterable[Command], t: Translate) -> list[str]:
    """The usage line of every command, in declaration order."""
    return [t(c.usage_key) for c in commands]
