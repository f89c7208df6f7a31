"""The demo club: built once, on the first start of the console over an empty database (its members' accounts
are on the platform the front end names: the console's).

Twelve members with console accounts (the account is the nickname), all online: three referees and two
councilors on duty, a moderator and the owner (`OWNER`, set as the club's owner in the console's `Config`).

Games: the example logs of ``examples/`` (read by `rules.logfile`, validated by `rules.validation.check_game`,
stored with the import's cross-check report), moved in time as one block so that the table in progress,
1847320, started 45 minutes before the clock (so 1847258 ended some three days ago and every example lies within
the 7-day window); plus generated games timed relative to the clock: three that ended within the last 7 days
and one that ended 10 days ago. The examples bring the unrated game (1847302), the game with AI (1847305), the
interrupted ones (1847301, 1847311) and the table in progress, whose three players are seated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from bot.desk import Desk
from bot.i18n.problems import english
from bot.messages import Catalogue
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.logfile import decode
from rules.members import JUDGING_ROLES, Role
from rules.paper import cross_check
from rules.paper_render import discrepancy_lines
from rules.validation import check_game
from storage.games import PreparedGame

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

OWNER = "vesna"
MEMBERS = ("marko", "ana", "petar", "jelena", "nikola", "milica", "dragan", "sanja", "vesna", "bojan", "zoran", "ivana")
ROLES: dict[str, tuple[Role, ...]] = {
    "ana": (Role.REFEREE,),
    "petar": (Role.REFEREE,),
    "jelena": (Role.REFEREE,),
    "nikola": (Role.COUNCILOR,),
    "milica": (Role.COUNCILOR,),
    "dragan": (Role.MODERATOR,),
}
TABLE = 1847320  # the example game in progress: its players sit at the table
TABLE_STARTED = timedelta(minutes=45)  # how long before the clock the table started


@dataclass(frozen=True)
class Generated:
    number: int
    players: tuple[str, str, str]
    ended_ago: timedelta
    bule: int


GENERATED = (
    Generated(1847330, ("ana", "nikola", "bojan"), timedelta(hours=20), 20),
    Generated(1847331, ("petar", "milica", "dragan"), timedelta(days=2, hours=3), 24),
    Generated(1847332, ("zoran", "ivana", "jelena"), timedelta(days=4, hours=6), 20),
    Generated(1847240, ("marko", "petar", "zoran"), timedelta(days=10), 20),  # older than 7 days
)


OVER = 1847333  # still in progress on the game server, but its last hand took the bule to zero: the paper ended
OVER_PLAYERS = ("dragan", "zoran", "bojan")


def over_game(now: datetime) -> Game:
    """A generated table (10 bule) whose seventh and last hand ended the paper ten minutes before `now`; the game
    server has not said yet that the game is over, so an in-game call can still reach it (issue 15, item 4)."""
    game = generate_game(
        random.Random(10),
        OVER,
        hands=7,
        bule=10,
        refe_limit=0,
        players=OVER_PLAYERS,
        status=GameStatus.IN_PROGRESS,
        open_last=False,
    )
    last = game.hands[-1].ended_at
    assert last is not None
    return shifted(game, now - timedelta(minutes=10) - last)


def shifted(game: Game, delta: timedelta) -> Game:
    """The same game, every time in it moved by `delta`."""
    hands = tuple(replace(h, ended_at=h.ended_at + delta if h.ended_at else None) for h in game.hands)
    return replace(
        game, started_at=game.started_at + delta, ended_at=game.ended_at + delta if game.ended_at else None, hands=hands
    )


def example_games(directory: Path = EXAMPLES) -> list[Game]:
    """Every game of the example files (one game, an array, or JSON Lines, as `rules.logfile` reads them), each
    checked by `rules.validation.check_game` as an import checks it."""
    games: list[Game] = []
    for path in sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl")):
        decoded = decode(path.read_bytes(), path.name)
        if decoded.problems:
            raise ValueError(f"{path.name}: {english(decoded.problems)}")
        games += [check_game(document.value) for document in decoded.documents]
    return games


def cross_check_report(game: Game, lang: str) -> list[str] | None:
    """The import's cross-check report: the differences between the log's recorded score and the paper."""
    if not any(hand.score is not None for hand in game.hands):
        return None
    found = cross_check(game)
    return discrepancy_lines(found, Catalogue(lang).t) if found else None


def demo_games(now: datetime) -> list[Game]:
    """The demo's games, timed relative to `now`."""
    examples = example_games()
    table = next(g for g in examples if g.number == TABLE)
    delta = now - TABLE_STARTED - table.started_at
    delta -= timedelta(seconds=delta.total_seconds() % 60, microseconds=delta.microseconds)  # whole minutes
    games = [shifted(g, delta) for g in examples]
    for spec in GENERATED:
        game = generate_game(
            random.Random(spec.number),
            spec.number,
            hands=None,
            bule=spec.bule,
            players=spec.players,
            status=GameStatus.FINISHED,
        )
        assert game.ended_at is not None
        games.append(shifted(game, now - spec.ended_ago - game.ended_at))
    games.append(over_game(now))
    return games


async def is_empty(desk: Desk) -> bool:
    return not await desk.db.members.all()


async def is_demo_club(desk: Desk, platform: str) -> bool:
    """Whether the database holds the demo club: every demo member linked to his account on `platform`."""
    for nick in MEMBERS:
        member = await desk.member_for(platform, nick)
        if member is None or member.nick != nick:
            return False
    return True


async def build_demo(desk: Desk, platform: str) -> list[Game]:
    """Fill an empty database with the demo club, each member linked on `platform`; the games stored."""
    now = desk.now()
    db = desk.db
    for nick in MEMBERS:
        member = await db.members.link(platform, nick, nick, now)
        for role in ROLES.get(nick, ()):
            await db.members.set_role(member.id, role, True, None, now, "demo")
        if not JUDGING_ROLES.isdisjoint(ROLES.get(nick, ())):
            await db.members.set_duty(member.id, True, now)
        await db.members.set_presence(member.id, True, now)
    games = demo_games(now)
    lang = desk.config.language
    prepared = [PreparedGame.of(g, cross_check_report(g, lang)) for g in games]
    await db.games.store(prepared, now)
    table = next(g for g in games if g.number == TABLE)
    for nick in table.players:
        player = await db.members.by_nick(nick)
        if player is not None:
            await desk.seat(player, TABLE)
    return games
