"""The `sudija` command line: one sub-command per module of this package.

Each module here defines ``register(subparsers)``, adding its parser and setting ``func`` (a callable taking
the parsed arguments and returning the exit status). `main` discovers the modules, so adding a command is
adding a file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from bot.config import ConfigError
from storage.database import DatabaseUnavailable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sudija", description="Sudija, the referee bot of a preferans club.")
    parser.add_argument("--config", default=None, help="configuration file (default: config.toml if present)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status: int = args.func(args)
    except (ConfigError, DatabaseUnavailable) as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
