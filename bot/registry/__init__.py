"""The command registry: every command of the club, declared once (`bot.registry.spec.Command`), one module per
concern. The text parser (`bot.commands`), Telegram's menus, Discord's command tree and the console's help are
generated from `REGISTRY`; `run` is the one door through which every front end reaches a use case.

To add a command: declare it in the concern's module (its name, arguments, audience, places and the use case it
runs) and give it its catalogue entries (``name.``, ``cmd.``, ``usage.``, and ``name.``/``arg.`` for each new
argument) — `tests/test_registry.py` fails until every platform offers it with the same arguments and every
language has its texts.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bot import logs, metrics
from bot.desk.refused import Refused
from bot.ports import Reply
from bot.registry import advice, calls, corrections, councils, governance, languages, links, trials
from bot.registry.spec import Args, Audience, Caller, Command, Usage
from storage.errors import DatabaseBusy, DatabaseReadOnly

if TYPE_CHECKING:
    from bot.desk import Desk


async def pomoc(desk: Desk, caller: Caller, args: Args) -> Reply:
    """/pomoc: the usage line of every command."""
    return Reply("\n".join(desk.t(c.usage_key) for c in REGISTRY))


REGISTRY: tuple[Command, ...] = (
    *calls.COMMANDS,
    *trials.COMMANDS,
    *corrections.COMMANDS,
    *governance.COMMANDS,
    *links.COMMANDS,
    *advice.COMMANDS,
    *councils.COMMANDS,
    *languages.COMMANDS,
    Command("pomoc", pomoc, audience=Audience.ANYONE, aliases=("pomoć", "help")),
)
BY_NAME: dict[str, Command] = {c.name: c for c in REGISTRY}


def admits(caller: Caller, command: Command) -> bool:
    """An account not linked yet may use only what is for anyone (front ends ask before reading arguments)."""
    return caller.member is not None or command.audience is Audience.ANYONE


async def run(desk: Desk, caller: Caller, command: Command, args: Args) -> Reply:
    """Run a command for whoever typed it, if `admits` lets him; everything it answers him is in his language.
    Each run is one event of the journal and the metrics (bot/logs.py, bot/metrics.py): the command, the
    platform, ok or refused, the time it took and the ids it was given — never the text a member typed."""
    started = time.perf_counter()
    async with desk.reading(caller.member):
        reply = await _run(desk, caller, command, args)
    seconds = time.perf_counter() - started
    outcome = "ok" if reply.ok else "refused"
    metrics.command_done(desk.config.club_id, caller.platform, command.name, outcome, seconds)
    given = args.values if isinstance(args, Args) else {}
    ids = {k: v for k, v in given.items() if isinstance(v, int) and not isinstance(v, bool)}
    texts = {k: v for k, v in given.items() if isinstance(v, str | tuple)}
    fields = {"use_case": command.name, "platform": caller.platform, "outcome": outcome, **ids}
    logs.event("use case", {**fields, "latency_ms": round(seconds * 1000, 1)}, texts)
    return reply


async def _run(desk: Desk, caller: Caller, command: Command, args: Args) -> Reply:
    if not admits(caller, command):
        return caller.refusal or desk.refuse("link.needed")
    try:
        return await command.run(desk, caller, args)
    except Usage as problem:
        return desk.refuse("command.usage", problem=str(problem), usage=desk.t(command.usage_key))
    except Refused as refused:  # the use case refused: rendered here, at the edge
        return desk.refuse(refused.key, **refused.values)
    except DatabaseReadOnly:  # a console that only reads: nothing was written
        return desk.refuse("db.read_only")
    except DatabaseBusy:  # another process held the write lock past the bound: nothing was written
        return desk.refuse("db.busy")


__all__ = ["BY_NAME", "REGISTRY", "Args", "Caller", "Command", "admits", "run"]
