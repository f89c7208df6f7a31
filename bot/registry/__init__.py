"""The command registry: every command of the club, declared once (`bot.registry.spec.Command`), one module per
concern. The text parser (`bot.commands`), Telegram's menus, Discord's command tree and the console's help are
generated from `REGISTRY`; `run` is the one door through which every front end reaches a use case, and it
decides who may use a command where (`refusal`: the declaration's places and audience), whichever front end it is.

To add a command: declare it in the concern's module (its name, arguments, audience, places and the use case it
runs) and give it its catalogue entries (``name.``, ``cmd.``, ``usage.``, and ``name.``/``arg.`` for each new
argument) — `tests/test_registry.py` fails until every platform offers it with the same arguments and every
language has its texts.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from bot import logs, metrics
from bot.desk.deps import unwritten_key
from bot.desk.refused import Refused
from bot.ports import Reply
from bot.registry import advice, calls, corrections, councils, governance, languages, links, trials, web
from bot.registry.pages import PAGES, Page, read_form
from bot.registry.spec import Args, Audience, Caller, Command, Place, Usage, usage_lines
from bot.registry.text import check_args
from storage.errors import DatabaseBusy

if TYPE_CHECKING:
    from bot.desk import Desk

T = TypeVar("T")


async def pomoc(desk: Desk, caller: Caller, args: Args) -> Reply:
    """/pomoc: the usage line of every command."""
    return Reply("\n".join(line for c in REGISTRY for line in usage_lines(desk.t(c.usage_key))))


REGISTRY: tuple[Command, ...] = (
    *calls.COMMANDS,
    *trials.COMMANDS,
    *corrections.COMMANDS,
    *governance.COMMANDS,
    *links.COMMANDS,
    *advice.COMMANDS,
    *councils.COMMANDS,
    *languages.COMMANDS,
    *web.COMMANDS,
    Command("pomoc", pomoc, audience=Audience.ANYONE, aliases=("pomoć", "help")),
)
BY_NAME: dict[str, Command] = {c.name: c for c in REGISTRY}
PAGES_BY_NAME: dict[str, Page[Any]] = {p.name: p for p in PAGES}
V = TypeVar("V")


def refusal(desk: Desk, caller: Caller, command: Command | Page[Any]) -> Reply | None:
    """What the core answers a caller it does not let use `command` (or open a page, `show`), or None: a place the
    declaration does not name (wherever the command came from, whoever typed it), an account not linked (or a member
    who may no longer act) for a command that is not for anyone, a member holding none of the functions its audience
    needs. The use case decides the rest. Front ends may ask it before reading the arguments; `run` asks it again."""
    if caller.place not in command.places:
        return desk.voice.refuse("command.private_only" if Place.PRIVATE in command.places else "command.club_only")
    if command.audience is Audience.ANYONE:
        return None
    if caller.member is None:
        return caller.refusal or desk.voice.refuse("link.needed")
    functions = command.audience.functions
    if functions and functions.isdisjoint(desk.lookups.roles_of(caller.member)):
        return desk.voice.refuse(command.audience.refusal_key)
    return None


async def run(desk: Desk, caller: Caller, command: Command, args: Args) -> Reply:
    """Run a command for whoever typed it, wherever, if `refusal` lets him and its arguments are what it declares
    (`check_args`: a front end that builds them itself, as Discord's options or a web form, is held to the same
    limits as the typed line); everything it answers him is in his language. Each run is one event of the journal
    and the metrics (bot/logs.py, bot/metrics.py): the command, the platform, ok or refused, the time it took and
    the ids it was given — never the text a member typed."""
    started = time.perf_counter()
    async with desk.voice.reading(caller.member):
        reply = await _answered(desk, command, _run(desk, caller, command, args))
    seconds = time.perf_counter() - started
    outcome = "ok" if reply.ok else "refused"
    metrics.command_done(desk.config.club_id, caller.platform, command.name, outcome, seconds)
    given = args.values if isinstance(args, Args) else {}
    ids = {k: v for k, v in given.items() if isinstance(v, int) and not isinstance(v, bool)}
    texts = {k: v for k, v in given.items() if isinstance(v, str | tuple)}
    fields = {"use_case": command.name, "platform": caller.platform, "outcome": outcome, **ids}
    logs.event("use case", {**fields, "latency_ms": round(seconds * 1000, 1)}, texts)
    return reply


async def open_form(desk: Desk, caller: Caller, command: Command, args: Args) -> Reply | int:
    """Before a platform shows `command`'s form (Discord's modal): what the form is for (its `Command.form`: a
    draft's trial), or the refusal to show instead, in the caller's language. `args` are those the platform has
    before the form (the verdict's kind). The submitted form goes through `run`."""
    assert command.form is not None, f"{command.name} has no form"
    opens = command.form
    async with desk.voice.reading(caller.member):

        async def opened() -> Reply | int:
            refused = refusal(desk, caller, command)
            if refused is not None:
                return refused
            check_args(command, args, desk.t)
            return await opens(desk, caller, args)

        return await _answered(desk, command, opened())


async def _run(desk: Desk, caller: Caller, command: Command, args: Args) -> Reply:
    refused = refusal(desk, caller, command)
    if refused is not None:
        return refused
    check_args(command, args, desk.t)
    return await command.run(desk, caller, args)


async def _answered(desk: Desk, command: Command, work: Awaitable[T]) -> T | Reply:
    """The use case's answer, or its refusal rendered here, at the edge: a `Usage` mistake with the command's usage
    line, a `Refused`, a database that only reads or is busy (nothing was written)."""
    try:
        return await work
    except Usage as problem:
        return desk.voice.refuse("command.usage", problem=str(problem), usage=desk.t(command.usage_key))
    except Refused as refused:
        return desk.voice.refuse(refused.key, **refused.values)
    except DatabaseBusy as unwritten:  # read-only, or another process held the write lock: nothing was written
        return desk.voice.refuse(unwritten_key(unwritten))


@dataclass(frozen=True, slots=True)
class NotShown:
    """A page its reader may not see, or that is not there: what the chat would have answered him (`reply`), which a
    page never shows — the web answers every such page alike (404), so a refusal confirms nothing exists."""

    reply: Reply


async def show(desk: Desk, caller: Caller, page: Page[V], values: Mapping[str, str]) -> V | NotShown:
    """Show `page` to whoever asks, with the arguments of its address and form (`read_form`), if `refusal` lets him
    (the page's places and audience, as a command's); its use case decides the rest. Its use case's refusal, a
    mistyped argument, a database that is busy are all `NotShown`."""
    async with desk.voice.reading(caller.member):
        refused = refusal(desk, caller, page)
        if refused is not None:
            return NotShown(refused)
        try:
            return await page.show(desk, caller, read_form(page, values, desk.t))
        except Usage as problem:
            return NotShown(desk.voice.refuse("command.usage", problem=str(problem), usage=desk.t(page.title_key)))
        except Refused as refused_page:
            return NotShown(desk.voice.refuse(refused_page.key, **refused_page.values))
        except DatabaseBusy as unwritten:
            return NotShown(desk.voice.refuse(unwritten_key(unwritten)))


__all__ = [
    "BY_NAME",
    "PAGES_BY_NAME",
    "REGISTRY",
    "Args",
    "Caller",
    "Command",
    "NotShown",
    "Page",
    "Place",
    "check_args",
    "open_form",
    "refusal",
    "run",
    "show",
]
