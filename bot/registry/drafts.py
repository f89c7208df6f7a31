"""The one grammar of a verdict draft, typed (``/presuda bule ruka 3 ana +4 -- vređanje``) or assembled from a
form's fields (Discord's modal), read into a `rules.verdicts.Draft`:

    bule [ruka N] NICK ±N [NICK ±N …] [kasno]        Promena bula (no hand: the game as a whole)
    bula RUKA KRIVAC [kasno]                          Odlazak u bulu umesto drugog
    kazna NICK [po PREKRŠAJ [JEDINICA]] [iznos N] [plavac DANA] [liga POENA] [napustio]
    svodjenje [potvrdjujem]    niko    bez             ručno svođenje, (niko), Bez presude

followed by ``-- obrazloženje``. The desk checks the draft against the club's rules; this only reads it.

A form (Discord's modal; a web page's form) has a field per part of one kind's draft; `form_args` puts its fields
into these words, so a form is read by this grammar, as `/presuda`'s arguments, through `bot.registry.run`. A
yes/no field says yes with the typed yes/no's words (`bot.registry.text.YES`: da, on, yes) or with the grammar's
own word for it (``kasno``, ``napustio``, ``potvrdjujem``), and with nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.registry.spec import MAX_DAYS, MAX_NUMBER, Args, Usage
from bot.registry.text import YES, fold, read_number
from rules.verdicts import (
    BulaChange,
    Draft,
    FallTransfer,
    Nobody,
    NoVerdict,
    Penalty,
    Settlement,
    Verdict,
    VerdictKind,
    twice_named,
)

Translate = Callable[..., str]
LATE = "kasno"
CONFIRM = "potvrdjujem"
ABANDONED = "napustio"


def parse_draft(text: str, t: Translate) -> Draft:
    """A whole typed draft: the kind, its words, and the reason after ``--``."""
    body, _, reason = text.partition("--")
    words = body.split()
    if not words:
        raise Usage(t("usage.arg.vrsta"))
    kind = next((k for k in VerdictKind if fold(k.value) == fold(words[0])), None)
    if kind is None:
        raise Usage(t("usage.arg.vrsta"))
    return read_draft(kind, words[1:], reason, t)


def read_draft(kind: VerdictKind, words: Sequence[str], reason: str, t: Translate) -> Draft:
    late = any(fold(w) == LATE for w in words)
    args = [w for w in words if fold(w) != LATE]
    verdict: Verdict
    if kind is VerdictKind.BULE:
        hand = None
        if len(args) >= 2 and fold(args[0]) == "ruka":
            hand = read_number(args[1], t("usage.hand_number"), 1, MAX_NUMBER, t)
            args = args[2:]
        if not args or len(args) % 2:
            raise Usage(t("usage.amounts"))
        twice = twice_named(args[::2])
        if twice is not None:
            raise Usage(t("verdict.same_player_twice", nick=twice))
        amounts = {
            nick: read_number(amount, t("usage.amount"), -MAX_NUMBER, MAX_NUMBER, t)
            for nick, amount in zip(args[::2], args[1::2], strict=True)
        }
        verdict = BulaChange(amounts, hand, late)
    elif kind is VerdictKind.BULA:
        if len(args) != 2:
            raise Usage(t("usage.draft_bula"))
        verdict = FallTransfer(read_number(args[0], t("usage.hand_number"), 1, MAX_NUMBER, t), args[1], late)
    elif kind is VerdictKind.KAZNA:
        verdict = _penalty(args, t)
    elif kind is VerdictKind.SVODJENJE:
        verdict = Settlement(innocent_confirmed=bool(args) and fold(args[0]) == CONFIRM)
    elif kind is VerdictKind.NIKO:
        verdict = Nobody()
    else:
        verdict = NoVerdict()
    return Draft(verdict, reason.strip())


def _penalty(args: Sequence[str], t: Translate) -> Penalty:
    if not args:
        raise Usage(t("usage.kazna"))
    culprit, rest = args[0], [fold(a) for a in args[1:]]
    plavac = liga = 0
    abandoned = False
    offence = ""
    units: int | None = None
    amount: int | None = None
    i = 0
    while i < len(rest):
        if rest[i] == "po" and i + 1 < len(rest):
            offence, i = args[1 + i + 1], i + 2
            if i < len(rest) and rest[i].isdigit():  # `po kasnjenje 4`: what the rule counts (4 minutes)
                units, i = read_number(rest[i], t("usage.units"), 0, MAX_NUMBER, t), i + 1
        elif rest[i] == "iznos" and i + 1 < len(rest):
            amount, i = read_number(rest[i + 1], t("usage.penalty_amount"), 0, MAX_NUMBER, t), i + 2
        elif rest[i] == "plavac" and i + 1 < len(rest):
            plavac, i = read_number(rest[i + 1], t("usage.days"), 0, MAX_DAYS, t), i + 2
        elif rest[i] == "liga" and i + 1 < len(rest):
            liga, i = read_number(rest[i + 1], t("usage.points"), 0, MAX_NUMBER, t), i + 2
        elif rest[i] == ABANDONED:
            abandoned, i = True, i + 1
        else:
            raise Usage(t("usage.kazna"))
    return Penalty(culprit, plavac, liga, abandoned, offence.casefold(), units=units, amount=amount)


def said_yes(text: str, word: str) -> bool:
    """A form's yes/no field for the grammar's `word`: the typed yes/no's yes, or that word itself."""
    folded = fold(text.strip())
    return folded in YES or folded == word


def form_words(kind: VerdictKind, values: Mapping[str, str]) -> tuple[str, ...]:
    """A form's fields for one verdict kind as the words of a typed draft (``ruka 3 ana +4 petar -2 kasno``): the
    fields ``hand``, ``amounts`` (commas or semicolons between pairs), ``culprit`` (``petar po kasnjenje``: the
    catalogue names the penalty), ``plavac``, ``league``, and the yes/no fields ``late``, ``abandoned``, ``confirm``."""

    def get(name: str) -> str:
        return values.get(name, "").strip()

    words: list[str] = []
    if kind is VerdictKind.BULE:
        if get("hand"):
            words += ["ruka", get("hand")]
        words += get("amounts").replace(",", " ").replace(";", " ").split()
    elif kind is VerdictKind.BULA:
        words += [w for w in (get("hand"), get("culprit")) if w]
    elif kind is VerdictKind.KAZNA:
        words += get("culprit").split()
        if get("plavac"):
            words += ["plavac", get("plavac")]
        if get("league"):
            words += ["liga", get("league")]
        if said_yes(get("abandoned"), ABANDONED):
            words.append(ABANDONED)
    elif kind is VerdictKind.SVODJENJE and said_yes(get("confirm"), CONFIRM):
        words.append(CONFIRM)
    if kind in (VerdictKind.BULE, VerdictKind.BULA) and said_yes(get("late"), LATE):
        words.append(LATE)
    return tuple(words)


def form_args(kind: str, values: Mapping[str, str]) -> Args:
    """A submitted draft form as `/presuda`'s arguments (its kind, the draft's words, the reason), for
    `bot.registry.run`; a kind that is none of the verdicts' is left for it to refuse."""
    known = next((k for k in VerdictKind if k.value == kind), None)
    words = () if known is None else form_words(known, values)
    return Args({"vrsta": kind, "nacrt": words, "razlog": values.get("reason", "")})


def read_form(kind: VerdictKind, values: Mapping[str, str], t: Translate) -> Draft:
    """A form's fields read by the one grammar, as `/presuda` reads them; `Usage` says what is wrong."""
    return read_draft(kind, form_words(kind, values), values.get("reason", ""), t)
