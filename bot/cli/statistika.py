"""`sudija statistika [--od DATE] [--do DATE] [--json | --csv] [--png FILE]`: the council's figures about the
referee desk (`rules.statistics`): calls per week, the time from a call to Sudi (p50, p95), the calls that expired
and at which hours, trials and verdicts per referee by kind, interrupted trials; the days in the club's time zone,
both included. Text by default; ``--json`` (stable keys of `rules.statistics.figures_json`) or ``--csv``
(``section,key,value``); ``--png`` also writes the chart (calls and expiries by hour and by week). A bad date,
a period that ends before it starts, a missing database: a message and exit status 1 (2 for argparse's)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import date
from typing import Any

from bot.cli._common import add_db_option, add_lang_option, club_config, database_path, existing_database
from bot.cli._language import current
from bot.messages import Catalogue
from storage.tenancy import DEFAULT_CLUB


def day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(current().t("cli.type.date", value=repr(text))) from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("statistika")
    parser.add_argument("--od", type=day, default=None, metavar="DATE")
    parser.add_argument("--do", type=day, default=None, metavar="DATE")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true")
    form.add_argument("--csv", action="store_true")
    parser.add_argument("--png", default=None, metavar="FILE")
    add_lang_option(parser)
    add_db_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = club_config(args)
    if args.od is not None and args.do is not None and args.od > args.do:
        print(
            Catalogue(args.lang or config.language).t("statistika.bad_period", start=args.od, end=args.do),
            file=sys.stderr,
        )
        return 1
    return asyncio.run(
        show(
            database_path(args),
            args.od,
            args.do,
            form="json" if args.json else "csv" if args.csv else "text",
            png=args.png,
            lang=args.lang or config.language,
            club=config.club_id,
        )
    )


async def show(
    db_path: str,
    start: date | None,
    end: date | None,
    *,
    form: str = "text",
    png: str | None = None,
    lang: str = "sr",
    club: str = DEFAULT_CLUB,
) -> int:
    from bot.desk.statistics import club_zone, council_figures, figures_text  # noqa: PLC0415 (a sub-command loads only what it runs)
    from rules.statistics import figures_csv, figures_json  # noqa: PLC0415 (a sub-command loads only what it runs)

    async with existing_database(db_path, Catalogue(lang), club) as db:
        figures = await council_figures(db, start, end, club_zone())
    if png is not None:
        from bot.cli._pictures import write_png  # noqa: PLC0415 (a sub-command loads only what it runs)
        from bot.pictures.chart import chart_png  # noqa: PLC0415 (a sub-command loads only what it runs)

        if not write_png(png, chart_png(figures, lang), to_stderr=form != "text"):
            return 1
    if form == "json":
        doc = figures_json(figures, start.isoformat() if start else None, end.isoformat() if end else None)
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    elif form == "csv":
        sys.stdout.write(figures_csv(figures))
    else:
        print(figures_text(figures, lang, start, end))
    return 0
