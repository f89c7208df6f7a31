"""The calls' commands: calling a referee, withdrawing the call, the duty toggle, and what anyone may read (a
game's verdicts and paper, the penalty catalogue)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.desk.refused import Refused
from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Caller, Command, member_of

if TYPE_CHECKING:
    from bot.desk import Desk

GAME = Arg("partija", ArgKind.GAME, autocomplete=True)
OPTIONAL_GAME = Arg("partija", ArgKind.GAME, required=False, autocomplete=True)


async def sudija(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.calls.call(member_of(caller), args.opt_number("partija"))


async def povuci(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.calls.withdraw(member_of(caller), None)


async def presude(desk: Desk, caller: Caller, args: Args) -> Reply:
    """/presude GAME [TRIAL [PAGE]]: with a trial's number, that trial's conversation, page by page."""
    return await desk.verdicts(
        member_of(caller), args.number("partija"), args.opt_number("sudjenje"), args.opt_number("strana") or 1
    )


async def papir(desk: Desk, caller: Caller, args: Args) -> Reply:
    """/papir [GAME]: without a number, the game /sudija would call a referee for (his table, else his last)."""
    member = member_of(caller)
    number = args.opt_number("partija")
    if number is None:
        facts = await desk.calls.default_game(member)
        if facts is None:
            raise Refused("papir.no_default")
        number = facts.number
    return await desk.paper(number, member)


async def dezurstvo(desk: Desk, caller: Caller, args: Args) -> Reply:
    member = member_of(caller)
    on = args.opt_flag("ukljuceno")
    return await desk.set_duty(member, (not member.on_duty) if on is None else on)


async def katalog(desk: Desk, caller: Caller, args: Args) -> Reply:
    return Reply(desk.catalogue.catalogue_text())


COMMANDS = (
    Command("sudija", sudija, (OPTIONAL_GAME,)),
    Command("povuci", povuci, aliases=("povuci_poziv",)),
    Command(
        "presude",
        presude,
        (
            GAME,
            Arg("sudjenje", ArgKind.NUMBER, required=False, about="arg.sudjenje_presude"),
            Arg("strana", ArgKind.NUMBER, required=False, high=10_000),
        ),
    ),
    Command("papir", papir, (OPTIONAL_GAME,), monospace=True),
    Command("dezurstvo", dezurstvo, (Arg("ukljuceno", ArgKind.BOOL, required=False),), aliases=("dežurstvo",)),
    Command("katalog", katalog),
)
