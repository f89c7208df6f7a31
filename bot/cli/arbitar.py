"""`sudija arbitar LOG --hand N --fallen NICK [--game NUMBER] [--json]`: the Arbitar's verdict on a disputed fall.

LOG is a game-log file (one game, a JSON array or JSON Lines, optionally gzip), read with `rules.logfile` and
checked with `rules.validation.check_game`; ``--game`` picks the game when the file holds several. The
procedure is `rules.arbitar.procedure.arbitrate`: the same hand always gets the same verdict.

Text (in ``--lang``, default the club's ``[club] language``): the decision, the reason and the evidence, a sentence
per fact (`rules.arbitar.evidence`). ``--json``: the stable keys ``decision``
(``transfer`` or ``stays``), ``to`` (the nickname who takes the fall, or null), ``step`` (the step that decided,
1 or 2; null when neither applied), ``reason`` and ``evidence``. An unreadable file, an illegal game, an unknown
hand or player, or a player who did not fall: a message on standard error and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bot.cli._common import add_lang_option, club_config, operator_words, whole_number
from bot.i18n.phrases import size_text
from bot.i18n.problems import ENGLISH, problems_text
from bot.messages import Catalogue
from rules.gamelog import Game, LogError
from rules.logfile import decode
from rules.phrases import Size
from rules.validation import check_game

MAX_FILE_BYTES = 64 * 1024 * 1024


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("arbitar")
    parser.add_argument("log", metavar="LOG")
    parser.add_argument("--hand", type=whole_number, required=True, metavar="N")
    parser.add_argument("--fallen", required=True, metavar="NICK")
    parser.add_argument("--game", type=whole_number, default=None, metavar="NUMBER")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--png", default=None, metavar="FILE")
    add_lang_option(parser)
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"sudija arbitar: {message}", file=sys.stderr)
    return 1


def read_game(path: str, number: int | None, words: Catalogue | None = None) -> Game:
    """The game in the file (the one numbered ``number`` when given); ValueError says why it cannot be read, in the
    words of `words` (default English)."""
    t = (words or ENGLISH).t
    file = Path(path)
    try:
        with file.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(t("cli.arbitar.cannot_read", path=path, error=exc.strerror or exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(t("cli.arbitar.too_large", path=path, size_limit=size_text(Size(MAX_FILE_BYTES), t)))
    decoded = decode(data, file.name)
    documents = decoded.documents
    if number is not None:
        documents = [d for d in documents if isinstance(d.value, dict) and d.value.get("game") == number]
    if not documents:
        why = problems_text(decoded.problems, t)
        said = (
            t("cli.arbitar.no_game", path=path)
            if number is None
            else t("cli.arbitar.no_such_game", path=path, game=number)
        )
        raise ValueError(said + (f" ({why})" if why else ""))
    if len(documents) > 1:
        raise ValueError(t("cli.arbitar.several", path=path, count=len(documents)))
    try:
        return check_game(documents[0].value)
    except LogError as exc:
        place = documents[0].place
        raise ValueError(problems_text((problem.within(place) for problem in exc.problems), t)) from None


def run(args: argparse.Namespace) -> int:
    from rules.arbitar.procedure import NothingToJudge, arbitrate  # noqa: PLC0415 (a sub-command loads only what it runs)

    try:
        game = read_game(args.log, args.game, operator_words(args))
    except ValueError as exc:
        return _fail(str(exc))
    seat = game.seat_of(args.fallen)
    if seat is None:
        words = operator_words(args)
        return _fail(
            words.t("cli.arbitar.not_player", nick=args.fallen, game=game.number, players=", ".join(game.players))
        )
    try:
        verdict = arbitrate(game, args.hand, seat)
    except NothingToJudge as nothing:
        return _fail(operator_words(args).t(nothing.message_key, **nothing.values))
    except ValueError as exc:
        return _fail(str(exc))
    shown = verdict.to_json(game.players)
    if args.png is not None:
        from bot.cli._pictures import write_png  # noqa: PLC0415 (a sub-command loads only what it runs)
        from bot.pictures.arbitar import verdict_png  # noqa: PLC0415 (a sub-command loads only what it runs)

        lang = getattr(args, "lang", None) or club_config(args).language
        if not write_png(args.png, verdict_png(game, args.hand, seat, verdict, lang), to_stderr=args.json):
            return 1
    if args.json:
        print(json.dumps(shown, ensure_ascii=False, sort_keys=False))
        return 0
    from bot.desk.advice_text import arbitar_lines  # noqa: PLC0415 (a sub-command loads only what it runs)

    print("\n".join(arbitar_lines(game, args.hand, seat, verdict, operator_words(args))))
    return 0
