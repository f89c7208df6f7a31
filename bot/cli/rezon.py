"""`sudija rezon`: count a follower's rezons (step 2 of the Arbitar) from his ten cards, for players and referees.

``sudija rezon --trump {S,H,D,C,none} --cards "AS 9S 7S JD QH TH JC TC 9C 7C" [--talon "7H 8D"]
[--seat first|second] [--first-followed] [--declarer-last] [--json]``

``--seat first`` (the default) is the defender right after the declarer; ``--first-followed`` says, for the
second defender, that the first followed (without it the second may follow on any cards); ``--talon`` are the
two cards the declarer bought (none with igra; any other number of cards is refused); ``--declarer-last`` is
the exception to the AQ rule (the declarer spoke last and the other two said dalje). Text (in ``--lang``, default
the club's ``[club] language``): the counts and the reasoning line by line.
``--json``: the stable keys ``rezons`` (a number, halves allowed), ``trump_tricks``, ``aces``,
``obviously_bad``, ``meets_rules``, and ``requirement`` and ``explanation`` (the notes in Serbian, whatever the
language). Bad cards: a message on standard
error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.cli._common import add_lang_option, operator_words
from bot.cli._language import current
from rules.arbitar.rezon import RezonCount, count_rezons_cards, note_text

TRUMPS = ("S", "H", "D", "C", "none")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rezon")
    parser.add_argument("--trump", required=True, type=_trump, metavar="{S,H,D,C,none}")
    parser.add_argument("--cards", required=True, metavar="CARDS")
    parser.add_argument("--talon", default="", metavar="CARDS")
    parser.add_argument("--seat", choices=("first", "second"), default="first")
    parser.add_argument("--first-followed", action="store_true")
    parser.add_argument("--declarer-last", action="store_true")
    parser.add_argument("--json", action="store_true")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def _trump(text: str) -> str:
    value = text.strip()
    if value.upper() in ("S", "H", "D", "C"):
        return value.upper()
    if value.lower() in ("none", "sans"):
        return "none"
    raise argparse.ArgumentTypeError(current().t("cli.type.trump", value=repr(text)))


def count_json(count: RezonCount) -> dict[str, Any]:
    """The stable JSON of a rezon count."""
    rezons: float | int = int(count.rezons) if count.rezons == int(count.rezons) else count.rezons
    return {
        "rezons": rezons,
        "trump_tricks": count.trump_tricks,
        "aces": count.aces,
        "obviously_bad": count.obviously_bad,
        "meets_rules": count.meets_rules,
        "requirement": count.requirement,
        "explanation": list(count.explanation),
    }


def run(args: argparse.Namespace) -> int:
    cards = args.cards.replace(",", " ").split()
    talon = args.talon.replace(",", " ").split()
    if len(cards) != 10:
        print(f"sudija rezon: {operator_words(args).t('cli.rezon.cards', given=len(cards))}", file=sys.stderr)
        return 2
    if talon and len(talon) != 2:
        print(f"sudija rezon: {operator_words(args).t('cli.rezon.talon', given=len(talon))}", file=sys.stderr)
        return 2
    try:
        count = count_rezons_cards(
            cards,
            None if args.trump == "none" else args.trump,
            talon,
            args.seat,
            args.first_followed,
            args.declarer_last,
        )
    except ValueError as exc:
        print(f"sudija rezon: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(count_json(count), ensure_ascii=False))
        return 0
    words = operator_words(args)
    verdict = (
        "rezon.obviously_bad" if count.obviously_bad else "cli.rezon.meets" if count.meets_rules else "rezon.below"
    )
    print(
        words.t(
            "cli.rezon.summary",
            rezons=f"{count.rezons:g}",
            tricks=count.trump_tricks,
            aces=count.aces,
            verdict=words.t(verdict),
        )
    )
    for key, values in count.notes:
        print(f"  {note_text(key, values, words.t)}")
    return 0
