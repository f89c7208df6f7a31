"""The referee's trial controls: the hands, earlier trials, calling a councilor, changing the trial's game, the
verdict draft, and Završi suđenje / leaving. They answer with what only the trial may see: private places only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Reply
from bot.registry.drafts import read_draft
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Command, Opens, Place, Run, member_of
from rules.verdicts import VerdictKind

if TYPE_CHECKING:
    from bot.desk import Desk

PRIVATE = frozenset({Place.PRIVATE})


async def ruke(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.show_hands(member_of(caller), caller.trial)


async def sudjenja(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.trials.history(member_of(caller), caller.trial)


async def vecnik(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.trials.call_councilor(member_of(caller), caller.trial)


async def promeni(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.trials.change_game(member_of(caller), args.number("partija"))


async def presuda(desk: Desk, caller: Caller, args: Args) -> Reply:
    """The draft, typed or from a form (`bot.registry.drafts`); a form's draft is for the trial it was opened for."""
    draft = read_draft(VerdictKind(args.text("vrsta")), args.words("nacrt"), args.text("razlog"), desk.t)
    if caller.trial is not None:
        await desk.steps.judged_by(member_of(caller), caller.trial)  # that trial's, or refused: it ended meanwhile
    return await desk.draft(member_of(caller), draft)


async def draft_form(desk: Desk, caller: Caller, args: Args) -> int:
    """A draft's form is shown only to whoever judges the trial it is for (the one named, if any)."""
    return (await desk.steps.judged_by(member_of(caller), caller.trial)).id


async def zavrsi(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.finish(member_of(caller), caller.trial)


async def napusti(desk: Desk, caller: Caller, args: Args) -> Reply:
    return await desk.trials.leave(member_of(caller), caller.trial)


async def zapisnik(desk: Desk, caller: Caller, args: Args) -> Reply:
    from bot.desk.records import trial_record  # noqa: PLC0415 (pictures only when asked)

    return await trial_record(desk, member_of(caller), args.number("sudjenje"))


def _referee(
    name: str, run: Run, *args: Arg, aliases: tuple[str, ...] = (), monospace: bool = False, form: Opens | None = None
) -> Command:
    return Command(
        name,
        run,
        tuple(args),
        audience=Audience.REFEREE,
        places=PRIVATE,
        aliases=aliases,
        monospace=monospace,
        form=form,
    )


COMMANDS = (
    _referee("ruke", ruke, monospace=True),
    _referee("sudjenja", sudjenja, aliases=("suđenja",)),
    _referee("vecnik", vecnik, aliases=("većnik",)),
    _referee("promeni", promeni, Arg("partija", ArgKind.GAME, autocomplete=True)),
    _referee(
        "presuda",
        presuda,
        Arg("vrsta", ArgKind.CHOICE, choices=tuple(VerdictKind)),
        Arg("nacrt", ArgKind.WORDS, required=False),
        Arg("razlog", ArgKind.REASON, required=False),
        form=draft_form,
    ),
    _referee("zavrsi", zavrsi, aliases=("završi",)),
    _referee("napusti", napusti),
    Command("zapisnik", zapisnik, (Arg("sudjenje", ArgKind.NUMBER),), places=PRIVATE),
)
