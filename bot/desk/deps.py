"""What the desk's parts are built from: the dependencies every part gets (`DeskDeps`: the database — the unit
of work over the repositories —, the ports, the clock, the configuration, the timers and every language's
messages), the steps one part takes that others extend (`Steps`, carried out by `bot.desk.steps.DeskSteps`),
`shows_refusals`, the door of every use case, and `Part`, which makes one part's method another object's (a
step's outermost part, a trial control the parts extend).

A part is a class constructed with `DeskDeps` and the other parts it needs, passed explicitly; none inherits
another's use cases. Where a part's step is extended by another (appeals extend how a trial is interrupted,
penalties what a verdict does), the part calls it through `Steps`, so the step is carried out whole.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from bot.arbitar_pool import ArbitarPool
from bot.config import Config
from bot.desk.refused import Refused
from bot.i18n import LANGUAGES
from bot.messages import Catalogue
from bot.ports import Chats, Clock, GameServerPort, Reply, Timers
from storage.database import Database
from storage.errors import DatabaseBusy, DatabaseReadOnly

if TYPE_CHECKING:
    from bot.chat_outbox import ChatOutbox
    from bot.papers import PaperKeeper
    from rules.gamelog import Game
    from rules.members import Member, Role
    from rules.verdicts import Draft
    from storage.changes import NewPaperChange
    from storage.chat_outbox import NewEffect
    from storage.events import Event
    from storage.states import EndReason
    from storage.trials import Trial


def unwritten_key(error: DatabaseBusy) -> str:
    """What a member is answered when his action could not be written, nothing of it kept: the database only
    reads (a console opened to read), or another process held its write lock past the bound (try again)."""
    return "db.read_only" if isinstance(error, DatabaseReadOnly) else "db.busy"


@dataclass
class DeskDeps:
    """Everything a part of the desk may reach besides the other parts it is given; one per desk, shared by its
    parts."""

    db: Database
    chat: Chats
    game_server: GameServerPort
    clock: Clock
    config: Config
    timers: Timers
    catalogues: dict[str, Catalogue]  # every language's texts on the club's clock (a member may choose his own)
    chat_outbox: ChatOutbox | None = None  # made on first use (`Delivery.chat_outbox`), one per desk
    arbitar_pool: ArbitarPool | None = None  # made on first use (`arbitar`), one per desk
    papers: PaperKeeper | None = None  # the kept papers of `db`, made on first use (`Lookups.papers`)

    @classmethod
    def of(
        cls, db: Database, chat: Chats, game_server: GameServerPort, clock: Clock, config: Config, timers: Timers
    ) -> DeskDeps:
        catalogues = {code: Catalogue(code, config.timezone) for code in LANGUAGES}
        return cls(db, chat, game_server, clock, config, timers, catalogues)

    def arbitar(self) -> ArbitarPool:
        """Where the Arbitar's analyses run (`[arbitar] workers` processes sharing `memory_mb`, one pool per desk,
        made on first use and shared by every part)."""
        if self.arbitar_pool is None:
            arbitar = self.config.arbitar
            self.arbitar_pool = ArbitarPool(arbitar.workers, arbitar.memory_mb, self.config.club_id)
        return self.arbitar_pool


class Steps(Protocol):
    """The steps one part takes and others extend, each as the whole desk carries it out: opening a trial (the
    referee's advice briefs him: `briefing`, the rows written with the take or a councilor's joining), who judges
    a trial (a councilor his hearing), interrupting one (its appeal waits again), checking a draft and a verdict's
    effects (penalties), the game's verdicts (with their appeals), an official arriving (also offered appeals),
    an official losing his function (a councilor his hearing) and the text of an act (links', votes')."""

    async def open_trial(self, trial: Trial) -> None: ...

    async def briefing(self, game: int, official: int, queue: int, trial: int | None = None) -> list[NewEffect]: ...

    async def judged_by(self, referee: Member, trial_id: int | None) -> Trial: ...

    async def interrupt(self, trial: Trial, why: EndReason) -> None: ...

    async def checked(self, draft: Draft, trial: Trial, game: Game) -> list[NewPaperChange]: ...

    async def after_verdict(self, trial: Trial, draft: Draft) -> None: ...

    async def verdict_list(
        self,
        number: int,
        show_referees: bool,
        readable: Set[int] | None = None,
        trial_id: int | None = None,
        page: int = 1,
    ) -> Reply: ...

    async def offer_pending_calls(self, member: Member) -> None: ...

    async def end_judging_without_function(self, member: Member, role: Role) -> None: ...

    async def end_trials_of(self, member: Member) -> None: ...

    def act_text(self, event: Event, names: dict[int, str]) -> str: ...


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")
D = TypeVar("D", bound="Renders")


class Refuses(Protocol):
    def refuse(self, key: str, **params: object) -> Reply: ...


class Renders(Protocol):
    """What renders a refusal at the edge: a part (or the desk), through its voice, in the reader's language."""

    @property
    def voice(self) -> Refuses: ...


class Part(Generic[S, P, R]):
    """A method carried out by one of the parts an object holds: `draft = Part("advisor", AdviceDesk.draft)` makes
    `desk.draft(...)` call `desk.advisor.draft(...)`. A non-data descriptor, so a test may still replace it on one
    object."""

    def __init__(self, part: str, method: Callable[Concatenate[S, P], R]) -> None:
        self.part = part
        self.name = method.__name__

    @overload
    def __get__(self, desk: None, owner: type) -> Part[S, P, R]: ...

    @overload
    def __get__(self, desk: object, owner: type) -> Callable[P, R]: ...

    def __get__(self, desk: object, owner: type) -> Any:
        if desk is None:
            return self
        return getattr(getattr(desk, self.part), self.name)


def shows_refusals(
    method: Callable[Concatenate[D, P], Awaitable[R]],
) -> Callable[Concatenate[D, P], Coroutine[Any, Any, R | Reply]]:
    """A use case's door: the refusal raised in `method`'s body (`Refused`, keys and values) rendered, in the
    reader's language, as the `Reply(ok=False)` it answers with. Every use case a front end, a button or a test
    calls is marked so (`CallDesk.call`, `Desk.press` …); a part calling another's gets that answer too."""

    async def answer(desk: D, /, *args: P.args, **kwargs: P.kwargs) -> R | Reply:
        try:
            return await method(desk, *args, **kwargs)
        except Refused as refused:
            return desk.voice.refuse(refused.key, **refused.values)

    functools.update_wrapper(answer, method)
    return answer
