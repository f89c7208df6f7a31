"""The `sudija` command line: one sub-command per module of this package.

Each module here defines ``register(subparsers)``, adding its parser and setting ``func`` (a callable taking
the parsed arguments and returning the exit status). `main` discovers the modules, so adding a command is
adding a file and its texts: the catalogue's ``cli.cmd.NAME`` (its line in ``sudija --help``),
``cli.cmd.NAME.about`` (its description) and, for each argument, ``cli.opt.NAME.DEST`` (or ``cli.opt.DEST``, one
text for the commands that share it); an argument's placeholder (``metavar="FILE"``) is shown as
``cli.metavar.file`` (DATOTEKA, ФАЙЛ), while the options and the commands stay as they are typed. Every
sub-command also takes ``--config FILE`` after its name (``sudija run --config FILE``, as a service's command line
puts it), the same as before it.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Sequence

from bot.cli._common import NoDatabase, add_lang_option
from bot.cli._language import argparse_in, chosen_language, current
from bot.config import ConfigError
from bot.dblock import DatabaseInUse
from bot.messages import MESSAGES, Catalogue
from storage.database import DatabaseUnavailable, MigrationFailed

CONFIG_HELP = "configuration file (default: config.toml if present)"


def version() -> str:
    """``sudija 0.1.0 (schema 0024, Python 3.11.7)``: the installed release, the newest migration it carries (what
    `sudija migrate` brings a database to) and the interpreter."""
    from importlib.metadata import PackageNotFoundError  # noqa: PLC0415 (only --version reads it)
    from importlib.metadata import version as installed  # noqa: PLC0415 (only --version reads it)

    from storage.database import migrations  # noqa: PLC0415 (only --version reads it)

    try:
        release = installed("sudija")
    except PackageNotFoundError:  # run from a checkout that was never installed
        release = "unknown (not installed)"
    newest = max((number for number, _, _ in migrations()), default=0)
    python = ".".join(str(part) for part in sys.version_info[:3])
    return f"sudija {release} (schema {newest:04d}, Python {python})"


class _PrintVersion(argparse.Action):
    """``--version``: reads the installed release only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(version())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    words = current()
    parser = argparse.ArgumentParser(prog="sudija", description=words.t("cli.description"))
    parser.add_argument(
        "--config", default=None, metavar=words.t("cli.metavar.file"), help=words.t("cli.option.config")
    )
    parser.add_argument("--version", action=_PrintVersion, help=words.t("cli.option.version"))
    add_lang_option(parser)
    subparsers = parser.add_subparsers(dest="command", metavar=words.t("cli.metavar.command"))
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(subparsers)
    for name in subparsers.choices:  # each sub-command's line in `sudija --help` (argparse's own listing entry)
        listed = subparsers._ChoicesPseudoAction(name, (), words.t(f"cli.cmd.{name}"))
        subparsers._choices_actions.append(listed)
    for name, sub in subparsers.choices.items():
        sub.description = words.t(f"cli.cmd.{name}.about")
        # Not given after the sub-command: the value before it (or its default) stands.
        sub.add_argument(
            "--config",
            default=argparse.SUPPRESS,
            metavar=words.t("cli.metavar.file"),
            help=words.t("cli.option.config"),
        )
        if not any("--lang" in action.option_strings for action in sub._actions):
            add_lang_option(sub)  # every sub-command speaks any of the four languages
        for action in sub._actions:
            if "--lang" in action.option_strings:  # not given after the sub-command: the value before it stands
                action.default = argparse.SUPPRESS
            in_language(action, name, words)
    return parser


def in_language(action: argparse.Action, command: str, words: Catalogue) -> None:
    """The sub-command `command`'s argument in `words`' language: its help from ``cli.opt.COMMAND.DEST`` (else the
    shared ``cli.opt.DEST``) and its placeholder from ``cli.metavar.*``. argparse's own help option and the options
    every sub-command shares (--config, --lang) have their texts already; an argument without an entry is a
    `KeyError` here, so a new argument cannot show English in another language."""
    if isinstance(action, argparse._HelpAction) or action.dest in ("config", "lang"):
        return
    key = next((k for k in (f"cli.opt.{command}.{action.dest}", f"cli.opt.{action.dest}") if k in MESSAGES), None)
    if key is None:
        raise KeyError(f"no catalogue entry cli.opt.{command}.{action.dest} for sudija {command}'s argument")
    action.help = words.t(key).replace("%", "%%")  # argparse formats a help with %
    if isinstance(action.metavar, str) and not action.metavar.startswith("{"):  # {S,H,…}: choices, typed
        placeholder = re.sub(r"\W+", "_", action.metavar.lower())
        action.metavar = words.t(f"cli.metavar.{placeholder}")


def in_use(held: DatabaseInUse, words: Catalogue) -> str:
    """A command refused because another process holds the database: which one, in the command line's language."""
    return words.t("cli.in_use", holder=held.holder_text(words), lock=held.path)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line, in ``--lang`` or the club's language (argparse's own words too: `bot.cli._language`)."""
    given = list(sys.argv[1:] if argv is None else argv)
    with argparse_in(chosen_language(given)):
        return _main(given)


def _main(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status: int = args.func(args)
    except DatabaseInUse as held:
        print(in_use(held, current()), file=sys.stderr)
        return 2
    except DatabaseUnavailable as exc:
        print(current().t(exc.key, **exc.values) if exc.key else exc, file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    except NoDatabase as exc:
        print(exc, file=sys.stderr)
        return 1
    except MigrationFailed as exc:
        from bot.cli.migrate import failed  # noqa: PLC0415 (only a failed migration needs it)

        print(failed(exc, current()), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
