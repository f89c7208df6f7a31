"""What the sub-commands share: the club's configuration (read once per run; a bad file is answered by
`bot.cli.main` with its message and exit status 2) and the `--db` option."""

from __future__ import annotations

import argparse
from typing import Any

from bot.config import Config, load


def club_config(args: argparse.Namespace) -> Config:
    """The configuration named by `--config` (default config.toml, or the defaults when it is absent)."""
    cached: Config | None = getattr(args, "_club_config", None)
    if cached is None:
        cached = load(getattr(args, "config", None))
        args._club_config = cached
    return cached


def add_db_option(parser: Any) -> None:
    parser.add_argument("--db", default=None, metavar="FILE", help="database file (default: from the configuration)")
