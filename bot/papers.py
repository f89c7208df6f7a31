"""The papers kept in memory: a game's paper computed once per change of the game, not once per request.

`PaperKeeper.get(number)` answers with the `KeptPaper` of the game as the database now holds it. It reads the
game's paper version (`storage.games.GameStore.version`: one look-up by the primary key) and hands out the paper
kept for that version, or loads the game and its standing changes, computes the paper and keeps it. Every write a
paper is computed from raises the version in its own transaction — the log stored by an import or grown by the
live feed, a change written (a verdict, a players' correction, an operator's) or cancelled (migration 0033,
`storage.changes`, `storage.games`, `storage.gameserver`) — so a kept paper is current in every process serving
the club, on SQLite and on PostgreSQL alike.

Invariant: the paper kept under version v is `compute_paper` of the game and changes committed at version v. A
load reads the version before the game and its changes and again after them; the result is kept only when the
two agree (no commit touched the game in between: each would have raised it), and is read again otherwise.

What is made from a kept paper — its text in a language, its picture, the JSON the game server gets, a web page —
is kept with it (`KeptPaper.derived`, `derived_async`) and dropped with it. The keeper is bounded: at most
`limit` games, the one asked for least recently dropped first. The `Game` a kept paper holds is one object for
every request of that version, so what is computed anew over it (a draft's paper with the change it would write)
reuses its hands' scoring (`rules.paper.game_facts`).
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, TypeVar, cast

from rules.gamelog import Game
from rules.paper import Paper, PaperChange, compute_paper
from rules.paper_render import anonymised

if TYPE_CHECKING:
    from storage.database import Database

T = TypeVar("T")
KEPT_GAMES = 16  # games whose paper is kept: the tables being played and reviewed now (memory: bench/memory.py)
_READS = 3  # loads of a game written meanwhile before one is used unkept


class KeptPaper:
    """One game's paper at one version: the game, its standing changes, the paper with the referees' names
    (`paper`) and without them (`anonymous`: as members outside `referee_names_visible_to` and the game server
    see it), and what was made from them."""

    def __init__(self, number: int, version: int, game: Game, changes: tuple[PaperChange, ...]) -> None:
        self.number = number
        self.version = version
        self.game = game
        self.changes = changes
        self._derived: dict[Hashable, object] = {}
        self._deriving: dict[Hashable, asyncio.Future[object]] = {}

    @functools.cached_property
    def paper(self) -> Paper:
        return compute_paper(self.game, self.changes)

    @functools.cached_property
    def anonymous_changes(self) -> tuple[PaperChange, ...]:
        return tuple(anonymised(self.changes))

    @functools.cached_property
    def anonymous(self) -> Paper:
        if self.anonymous_changes == self.changes:
            return self.paper
        return compute_paper(self.game, self.anonymous_changes)

    def paper_for(self, names: bool) -> Paper:
        """The paper with the referees' names on their changes (`names`), or with their trial numbers only."""
        return self.paper if names else self.anonymous

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """What `make()` makes from this paper (a text, a page), made once per `key` and kept with the paper."""
        if key in self._derived:
            return cast(T, self._derived[key])
        value = make()
        self._derived[key] = value
        return value

    async def derived_async(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> T:
        """As `derived`, awaited (a picture drawn in a worker thread): made once for all who ask at the same time;
        one that raises is not kept (each asker gets the exception, and the next ask makes it again)."""
        if key in self._derived:
            return cast(T, self._derived[key])
        pending = self._deriving.get(key)
        if pending is None:
            pending = self._deriving[key] = asyncio.ensure_future(make())
            try:
                value = await asyncio.shield(pending)
            finally:
                if self._deriving.get(key) is pending:
                    del self._deriving[key]
            self._derived[key] = value
            return cast(T, value)
        return cast(T, await asyncio.shield(pending))


class PaperKeeper:
    """The kept papers of one club's database (one per desk: `Lookups.papers`)."""

    def __init__(self, db: Database, limit: int = KEPT_GAMES) -> None:
        self.db = db
        self.limit = limit
        self._kept: OrderedDict[int, KeptPaper] = OrderedDict()
        self._loading: dict[tuple[int, int], asyncio.Future[KeptPaper | None]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    async def get(self, number: int) -> KeptPaper | None:
        """The paper of game `number` as stored now; None for a game not stored."""
        version = await self.db.games.version(number)
        if version is None:
            return None
        kept = self._kept.get(number)
        if kept is not None and kept.version == version:
            self._kept.move_to_end(number)
            return kept
        loading = self._loading.get((number, version))
        if loading is None:  # one load for every request of this version that arrives meanwhile
            loading = self._loading[(number, version)] = asyncio.ensure_future(self._load(number, version))
            try:
                return await asyncio.shield(loading)
            finally:
                del self._loading[(number, version)]
        return await asyncio.shield(loading)

    async def _load(self, number: int, version: int) -> KeptPaper | None:
        for attempt in range(_READS):
            game = await self.db.games.get(number)
            if game is None:
                return None
            changes = tuple(await self.db.paper_changes.for_game(number))
            after = await self.db.games.version(number)
            if after == version:
                return self._keep(KeptPaper(number, version, game, changes))
            if after is None:
                return None
            if attempt == _READS - 1:  # written faster than read: this request's reading, not kept
                return KeptPaper(number, after, game, changes)
            version = after
        raise AssertionError("unreachable")

    def _keep(self, kept: KeptPaper) -> KeptPaper:
        current = self._kept.get(kept.number)
        if current is not None and current.version > kept.version:
            return kept  # a newer version was kept meanwhile
        self._kept[kept.number] = kept
        self._kept.move_to_end(kept.number)
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)
        return kept
