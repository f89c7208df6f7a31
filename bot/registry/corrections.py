"""The players' corrections without a referee: odlazak u bulu, ispravka, offering the Arbitar, answering, cancelling,
and the list of a game's corrections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.desk.corrections import CANCEL_CHOICES
from bot.gameserver.korekcija import korekcija_of
from bot.ports import Reply
from bot.registry.spec import Arg, ArgKind, Args, Caller, Command, member_of

if TYPE_CHECKING:
    from bot.desk import Desk

HAND = Arg("ruka", ArgKind.HAND)
GAME = Arg("partija", ArgKind.GAME, required=False, autocomplete=True)
REQUEST = Arg("zahtev", ArgKind.NUMBER, required=False)
YES, NO = "da", "ne"


async def bula(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.go_into_bula(member_of(caller), args.number("ruka"), args.opt_number("partija"))


async def ponisti(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.cancel(
        member_of(caller), args.number("ruka"), args.opt_number("partija"), args.opt_text("sta")
    )


async def arbitar(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.offer_arbitar(member_of(caller), args.number("ruka"), args.opt_number("partija"))


async def ispravka(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.propose_ispravka(
        member_of(caller), args.number("ruka"), args.opt_number("partija"), args.text("razlog")
    )


async def prihvatam(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.answer(member_of(caller), args.opt_number("zahtev"), True)


async def odbijam(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.answer(member_of(caller), args.opt_number("zahtev"), False)


async def korekcija(desk: Desk, caller: Caller, args: Args) -> Reply:
    """/korekcija [PARTIJA] asks to undo one's last move; /korekcija da|ne [ZAHTEV] answers another's request."""
    answer, number = args.opt_text("odgovor"), args.opt_number("broj")
    service = korekcija_of(desk)
    if answer is None:
        return await service.request(member_of(caller), number)
    return await service.answer(member_of(caller), number, answer == YES)


async def korekcije(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.corrections.corrections_status(member_of(caller), args.opt_number("partija"))


COMMANDS = (
    Command("bula", bula, (HAND, GAME)),
    Command(
        "ponisti",
        ponisti,
        (HAND, GAME, Arg("sta", ArgKind.CHOICE, required=False, choices=CANCEL_CHOICES)),
        aliases=("poništi",),
    ),
    Command("arbitar", arbitar, (HAND, GAME)),
    Command("ispravka", ispravka, (HAND, GAME, Arg("razlog", ArgKind.REASON, required=False))),
    Command("prihvatam", prihvatam, (REQUEST,)),
    Command("odbijam", odbijam, (REQUEST,)),
    Command(
        "korekcija",
        korekcija,
        (
            Arg("odgovor", ArgKind.CHOICE, required=False, choices=(YES, NO)),
            Arg("broj", ArgKind.NUMBER, required=False),
        ),
    ),
    Command("korekcije", korekcije, (GAME,)),
)
