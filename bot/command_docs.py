"""The command tables of the platform guides (docs/telegram.md, docs/discord.md), generated from the command
registry (`bot.registry.REGISTRY`) so that they say what the bot does: each command's name and arguments as the
platform takes them, where it may be used, whom it is for, and its description from the English catalogue.

A table stands between ``<!-- commands:PLATFORM -->`` and ``<!-- /commands -->`` in its guide; the rest of the guide
is written by hand.

    python -m bot.command_docs            rewrite the tables in place
    python -m bot.command_docs --check    exit status 1, naming each guide whose table differs

`tests/test_command_docs.py` fails when a guide's table and the registry disagree.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.discord.commands import options_of
from bot.i18n.catalogues import own_text
from bot.registry import REGISTRY
from bot.registry.spec import Arg, ArgKind, Audience, Command, Place

ROOT = Path(__file__).resolve().parent.parent
END = "<!-- /commands -->"

#: Whom a command is for, as the tables say it (`Audience`; `bot.registry.refusal` holds it).
WHO: dict[Audience, str] = {
    Audience.ANYONE: "anyone",
    Audience.MEMBER: "member",
    Audience.REFEREE: "referee",
    Audience.OFFICIAL: "official",
}
LEGEND = (
    "Who: *anyone* — also an account not linked yet; *member* — a linked member; *referee* — whoever judges the "
    "trial (a referee, or a councilor at an appeal's hearing); *official* — a councilor, a moderator or the owner "
    "(the command itself says which of them may do what). `/pomoc` shows each command's full usage."
)


def _escape(text: str) -> str:
    """A cell's text as Markdown keeps it in its column."""
    return text.replace("|", "\\|")


def english(key: str) -> str:
    text = own_text("en", key)
    assert text is not None, f"the English catalogue has no {key}"
    return text


def _serbian(key: str) -> str:
    text = own_text("sr", key)
    assert text is not None, f"the Serbian catalogue has no {key}"
    return text


def typed_arg(arg: Arg) -> str:
    """An argument as it is typed (the console, Telegram): by position, a keyword before its value, the reason after
    ``--``, the rest of the line, a file sent with the command."""
    if arg.kind is ArgKind.REASON:
        shown = f"-- {arg.name}"
    elif arg.kind is ArgKind.WORDS:
        shown = f"{arg.name} …"
    elif arg.kind is ArgKind.FILE:
        shown = f"+ {arg.name}"
    elif arg.keyword is not None:
        shown = f"{arg.keyword} …" if arg.keyword == arg.name else f"{arg.keyword} {arg.name}"
    else:
        shown = arg.name
    return shown if arg.required else f"[{shown}]"


def typed_command(command: Command) -> str:
    ordered = (*command.positional, *command.keywords, *(a for a in command.args if a.kind is ArgKind.REASON))
    ordered += tuple(a for a in command.args if a not in ordered)
    return " ".join((f"/{command.name}", *(typed_arg(a) for a in ordered)))


def discord_command(command: Command, name: Callable[[str], str]) -> str:
    """A slash command with its options (named by `name`, from the option's catalogue key), the required ones first
    as Discord shows them."""
    ordered = sorted(options_of(command), key=lambda a: not a.required)
    options = [name(f"name.{a.name}") if a.required else f"[{name(f'name.{a.name}')}]" for a in ordered]
    return " ".join((f"/{name(f'name.{command.name}')}", *options))


def telegram_where(command: Command) -> str:
    return ", ".join(
        word for place, word in ((Place.CLUB, "group"), (Place.PRIVATE, "private")) if place in command.places
    )


def discord_where(command: Command) -> str:
    """Every Discord command is private (its use and answer are the member's alone): one the core allows only in
    the club's chat cannot be used there."""
    return "anywhere" if Place.PRIVATE in command.places else "nowhere (club chat only)"


@dataclass(frozen=True)
class Guide:
    platform: str
    path: Path
    header: tuple[str, ...]
    row: Callable[[Command], tuple[str, ...]]

    @property
    def start(self) -> str:
        return f"<!-- commands:{self.platform} -->"

    def table(self) -> str:
        lines = ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header)]
        lines += ["| " + " | ".join(_escape(cell) for cell in self.row(c)) + " |" for c in REGISTRY]
        return "\n".join([*lines, "", LEGEND])


def _telegram_row(command: Command) -> tuple[str, ...]:
    typed = f"`{typed_command(command)}`"
    if command.aliases:
        typed += " (also " + ", ".join(f"`/{a}`" for a in command.aliases) + ")"
    return typed, telegram_where(command), WHO[command.audience], english(command.description_key)


def _discord_row(command: Command) -> tuple[str, ...]:
    return (
        f"`{discord_command(command, _serbian)}`",
        f"`{discord_command(command, english)}`",
        discord_where(command),
        WHO[command.audience],
        english(command.description_key),
    )


GUIDES = (
    Guide("telegram", ROOT / "docs" / "telegram.md", ("Command", "Where", "Who", "What"), _telegram_row),
    Guide(
        "discord",
        ROOT / "docs" / "discord.md",
        ("Command", "English client", "Where", "Who", "What"),
        _discord_row,
    ),
)


def table_in(text: str, guide: Guide) -> str | None:
    """The table standing between the guide's markers, or None where the markers are missing."""
    start = text.find(guide.start)
    end = text.find(END, start)
    if start < 0 or end < 0:
        return None
    return text[start + len(guide.start) : end].strip("\n")


def written(text: str, guide: Guide) -> str:
    """The guide's text with its table as the registry gives it; `ValueError` where its markers are missing."""
    if table_in(text, guide) is None:
        raise ValueError(f"{guide.path.name} has no {guide.start} … {END} block")
    start = text.index(guide.start) + len(guide.start)
    end = text.index(END, start)
    return text[:start] + "\n" + guide.table() + "\n" + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.command_docs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which guide's table differs (exit 1)")
    args = parser.parse_args(argv)
    differing = []
    for guide in GUIDES:
        text = guide.path.read_text(encoding="utf-8")
        try:
            wanted = written(text, guide)
        except ValueError as missing:
            print(missing, file=sys.stderr)
            return 1
        if wanted == text:
            continue
        differing.append(guide.path)
        if not args.check:
            guide.path.write_text(wanted, encoding="utf-8")
            print(f"rewrote the command table of {guide.path.relative_to(ROOT)}")
    if args.check and differing:
        for path in differing:
            print(f"{path.relative_to(ROOT)}: its command table differs from the registry", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
