"""A club for the web's tests (tests/test_web*.py, the browser's, bench/web.py): members of every office, games with
trials of both kinds — their conversations, a verdict that changed the paper, a councilor who joined —, an appeal
waiting, a vote open, the Arbitar's analysis of a fall, and the pages served over it on loopback
(`serve`), with a member signed in the way a member signs in: `/web` in the chat, the link it sent, the button."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

import aiohttp
from aiohttp import web

from bot.commands import Commands
from bot.config import WebConfig
from bot.registry import BY_NAME, run
from bot.registry.spec import Args, Caller, Place
from bot.web.app import web_app
from club import Club
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.paper import compute_paper
from rules.paper_hand import DefenceShape
from rules.verdicts import BulaChange, Draft, Penalty
from storage.games import PreparedGame

IN_GAME, OUT_OF_GAME = 200, 300
PLAYERS = ("marko", "ivana", "sanja")
ARBITAR_PLAYERS = ("dejan", "goran", "zoran")
REFEREE, COUNCILOR, SECOND_COUNCILOR = "sudijaPera", "vecnikVera", "vecnikVuk"
MODERATOR, OWNER, STRANGER = "modMaja", "vlasnik", "niko"
LINK = re.compile(r"https?://\S+/prijava/[A-Za-z0-9_\-]+")


@dataclass
class Scene:
    in_game_trial: int  # game 200's (in progress): ivana called, sudijaPera judged, vecnikVera joined; two bule
    # moved in hand 1
    out_of_game_trial: int  # game 300's: sanja called; marko penalised with league points
    appeal: int  # marko's appeal against the out-of-game trial, waiting for a councilor
    vote: int  # vecnikVera's proposal to make niko a referee
    arbitar_game: int  # a game whose defender's fall the Arbitar analysed
    arbitar_hand: int


def defender_fall(number: int) -> tuple[Game, int, int, int] | None:
    """A generated finished game of ARBITAR_PLAYERS with one defender fallen in its last hand: (game, hand, fallen
    seat, the other defender's seat)."""
    game = generate_game(random.Random(number), number, hands=5, status=GameStatus.IN_PROGRESS, players=ARBITAR_PLAYERS)
    n = len(game.hands) - 1
    score = compute_paper(game).hands[n - 1].score
    if score is None or score.declarer is None or score.shape is not DefenceShape.BOTH:
        return None
    fallen = [s for s in score.fallen if s != score.declarer]
    if len(fallen) != 1 or score.declarer in score.fallen:
        return None
    return game, n, fallen[0], 3 - score.declarer - fallen[0]


async def build(club: Club) -> Scene:
    """The club's members, games, trials, appeal, vote and analysis (see the module docstring)."""
    referee = await club.member(REFEREE, "referee")
    councilor = await club.member(COUNCILOR, "councilor")
    await club.member(SECOND_COUNCILOR, "councilor")
    await club.member(MODERATOR, "moderator")
    await club.member(OWNER)
    await club.member(STRANGER)
    club.desk.config = replace(club.desk.config, owner=OWNER, owner_accounts=(f"test:{OWNER}",))
    marko, ivana, sanja = [await club.member(n) for n in PLAYERS]
    await club.game(IN_GAME, PLAYERS, status=GameStatus.IN_PROGRESS, hands=3)
    await club.game(OUT_OF_GAME, PLAYERS, hands=4)
    # In game: ivana calls, the referee takes it and calls a councilor, everyone speaks, no verdict.
    assert (await club.desk.calls.call(ivana, IN_GAME)).ok
    call = await club.db.calls.pending_by_caller(ivana.id)
    assert call is not None
    assert (await club.desk.trials.take(referee, call.id)).ok
    first = await club.db.trials.judging(referee.id)
    assert first is not None
    assert (await club.desk.trials.call_councilor(referee)).ok
    [councilor_call] = await club.db.calls.pending_councilor_calls()
    assert (await club.desk.trials.join_as_councilor(councilor, councilor_call.id)).ok
    for speaker, said in ((ivana, "pozivaoca"), (marko, "igrača"), (referee, "sudije"), (councilor, "većnika")):
        await club.desk.trials.say(speaker, f"reč {said}")
    ruling = Draft(BulaChange({"marko": 2, "ivana": -2}, hand=1, late_justified=True), "marko je odugovlačio")
    drafted = await club.desk.draft(referee, ruling)
    assert drafted.ok, drafted.text
    assert (await club.desk.finish(referee)).ok
    # Out of game: sanja calls; the verdict moves two bule in hand 1.
    assert (await club.desk.calls.call(sanja, OUT_OF_GAME)).ok
    call = await club.db.calls.pending_by_caller(sanja.id)
    assert call is not None
    assert (await club.desk.trials.take(referee, call.id)).ok
    second = await club.db.trials.judging(referee.id)
    assert second is not None
    await club.desk.trials.say(sanja, "reč pozivaoca van partije")
    await club.desk.trials.say(referee, "reč sudije van partije")
    verdict = Draft(Penalty("marko", league_points=2), "napustio je partiju bez razloga")
    drafted = await club.desk.draft(referee, verdict)
    assert drafted.ok, drafted.text
    assert (await club.desk.finish(referee)).ok
    # marko appeals; a councilor proposes niko as a referee.
    assert (await club.desk.appeals.file_appeal(marko, second.id, None, "nisam odugovlačio")).ok
    [appeal] = await club.db.appeals.undecided()
    assert (await club.desk.votes.appoint(councilor, STRANGER, "referee", "iskusan igrač")).ok
    [vote] = await club.db.votes.open_votes()
    number, hand = await arbitar_analysis(club)
    return Scene(first.id, second.id, appeal.id, vote.id, number, hand)


async def arbitar_analysis(club: Club) -> tuple[int, int]:
    """A game whose fallen defender offered the Arbitar and the other defender accepted: the analysis is made (the
    real procedure) and kept with the request."""
    for number in range(500, 3000):
        found = defender_fall(number)
        if found is not None:
            break
    else:
        raise AssertionError("no game with one defender fallen")
    game, n, fallen, other = found
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    commands = Commands(club.desk)
    for nick in ARBITAR_PLAYERS:
        await club.member(nick)
    offered = await commands.handle(await club.get(game.players[fallen]), f"/arbitar {n} {game.number}")
    assert offered is not None
    assert offered.ok, offered.text
    answered = await commands.handle(await club.get(game.players[other]), "/prihvatam")
    assert answered is not None
    assert answered.ok, answered.text
    # The game then ends where its last hand stopped (the game server's log of the whole game).
    ended = replace(game, hands=game.hands[:n], status=GameStatus.INTERRUPTED, ended_at=club.clock.now())
    outcome = await club.db.games.store([PreparedGame.of(ended)], club.clock.now())
    assert not outcome.refused, outcome.refused
    return game.number, n


WEB = WebConfig(host="127.0.0.1", port=1, public_url="http://web.test")


def with_web(club: Club) -> None:
    """The club's `[web]` switched on (its address is the test server's, given per request)."""
    club.desk.config = replace(club.desk.config, web=WEB)


@asynccontextmanager
async def serve(club: Club) -> AsyncIterator[str]:
    """The club's pages on a free loopback port; yields the base address (``http://127.0.0.1:PORT``)."""
    runner = web.AppRunner(web_app(club.desk), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    [(_, port)] = runner.addresses
    base = f"http://127.0.0.1:{port}"
    club.desk.config = replace(club.desk.config, web=replace(club.desk.config.web, public_url=base))
    try:
        yield base
    finally:
        await runner.cleanup()


async def link_for(club: Club, nick: str) -> str:
    """What `/web` answers `nick` in the chat: the sign-in link it sent him."""
    member = await club.get(nick)
    reply = await run(club.desk, Caller("test", nick, member, Place.PRIVATE), BY_NAME["web"], Args({}))
    assert reply.ok, reply.text
    found = LINK.search(reply.text)
    assert found is not None, reply.text
    return found.group()


async def signed_in(club: Club, base: str, nick: str) -> aiohttp.ClientSession:
    """A browser-like session signed in as `nick` through the link `/web` sent him (opened, then its button)."""
    link = await link_for(club, nick)
    session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    async with session.get(link) as opened:
        assert opened.status == 200
    async with session.post(link, allow_redirects=False) as used:
        assert used.status == 303, await used.text()
    return session
