"""The club's web pages, declared as the commands are: each page's name, its arguments with their types and
limits, its audience, and the desk's use case that shows it. `bot.registry.show` is the door through which the web
reaches a page — the same refusal as `run` for a command (an account not linked, a member holding none of the
functions the audience needs), then the use case, which decides the rest exactly as it does for the chat (who
reads a trial's conversation, who sees the referees' names, whose record a member may read).

A page's arguments come from its address and its search form: `read_form` reads each as its typed word would be
read (`bot.registry.text.read_value`), so a game number, a nickname or a date has one meaning everywhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from bot.desk.archive import CouncilPage, GamePage, GameQuery, GamesPage, MemberPage, TrialsPage
from bot.desk.refused import Refused
from bot.ports import Document
from bot.registry.spec import Arg, ArgKind, Args, Audience, Caller, Place, Usage, member_of
from bot.registry.text import Translate, read_value

if TYPE_CHECKING:
    from bot.desk import Desk

V = TypeVar("V")
PRIVATE = frozenset({Place.PRIVATE})  # a page is its reader's alone


@dataclass(frozen=True)
class Page(Generic[V]):
    """One page, declared once: what it shows is `show`'s value, rendered by the front end."""

    name: str  # also the catalogue key of its title: ``page.<name>``
    show: Callable[[Desk, Caller, Args], Awaitable[V]]
    args: tuple[Arg, ...] = ()
    audience: Audience = Audience.MEMBER
    places: frozenset[Place] = PRIVATE

    @property
    def title_key(self) -> str:
        return f"page.{self.name}"


def read_form(page: Page[Any], values: Mapping[str, str], t: Translate) -> Args:
    """The page's arguments from its address and form (name → the text given; an empty one is not given), each
    read as its type; `Usage` saying what is wrong. Names the page does not declare are not read."""
    read: dict[str, Any] = {}
    for arg in page.args:
        word = values.get(arg.name, "").strip()
        if not word:
            if arg.required:
                raise Usage(t("usage.missing", what=t(arg.description_key)))
            read[arg.name] = None
            continue
        read[arg.name] = read_value(arg, word, t)
    return Args(read)


# The pages -------------------------------------------------------------------------------------------------
async def partije(desk: Desk, caller: Caller, args: Args) -> GamesPage:
    query = GameQuery(args.opt_number("broj"), args.opt_text("igrac"), args.opt_day("dan"))
    return await desk.archive.games_page(member_of(caller), query)


async def partija(desk: Desk, caller: Caller, args: Args) -> GamePage:
    return await desk.archive.game_page(member_of(caller), args.number("partija"), args.opt_number("ruka"))


async def sudjenja(desk: Desk, caller: Caller, args: Args) -> TrialsPage:
    return await desk.archive.trials_page(member_of(caller), args.number("partija"))


async def clan(desk: Desk, caller: Caller, args: Args) -> MemberPage:
    return await desk.archive.member_page(member_of(caller), args.opt_text("clan"))


async def vece(desk: Desk, caller: Caller, args: Args) -> CouncilPage:
    return await desk.archive.council_page(member_of(caller), args.opt_day("od"), args.opt_day("do"))


async def zapisnik(desk: Desk, caller: Caller, args: Args) -> Document:
    """A trial's signed record, as `/zapisnik` sends it to the same member (bot.desk.records)."""
    from bot.desk.records import trial_record  # noqa: PLC0415 (the record's renderer only when asked)

    reply = await trial_record(desk, member_of(caller), args.number("sudjenje"))
    if not reply.ok or not reply.documents:
        raise Refused("page.not_shown")
    return reply.documents[0]


GAME = Arg("partija", ArgKind.GAME)
PARTIJE: Page[GamesPage] = Page(
    "partije",
    partije,
    (
        Arg("broj", ArgKind.GAME, required=False),
        Arg("igrac", ArgKind.NICK, required=False),
        Arg("dan", ArgKind.DATE, required=False),
    ),
)
PARTIJA: Page[GamePage] = Page("partija", partija, (GAME, Arg("ruka", ArgKind.HAND, required=False)))
SUDJENJA: Page[TrialsPage] = Page("sudjenja", sudjenja, (GAME,))
CLAN: Page[MemberPage] = Page("clan", clan, (Arg("clan", ArgKind.NICK, required=False),))
VECE: Page[CouncilPage] = Page(
    "vece",
    vece,
    (Arg("od", ArgKind.DATE, required=False), Arg("do", ArgKind.DATE, required=False)),
    audience=Audience.OFFICIAL,
)
ZAPISNIK: Page[Document] = Page("zapisnik", zapisnik, (Arg("sudjenje", ArgKind.NUMBER),))

PAGES: tuple[Page[Any], ...] = (PARTIJE, PARTIJA, SUDJENJA, CLAN, VECE, ZAPISNIK)
