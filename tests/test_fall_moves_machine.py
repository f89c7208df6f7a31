"""A hypothesis state machine over a real game (issue 15): random sequences of the players' ispravke, odlasci u bulu
and Arbitar offers, the referees' in-game verdicts (Promena bula, Odlazak u bulu, on time and `kasno`) and the
cancellations, through the desk. After every step: each hand has at most one fall move, every standing change
applies, the paper the game server was last told equals a recomputation from the log plus the stored changes, at
least 2 bule stay on the paper (the game did not end by play), and every refusal left the database unchanged.

The game is small (16 bule, 20 left after six hands) so the limits are reached; its last two completed hands each
have one defender who fell. The Arbitar is a fake that moves the fall in even hands and leaves it in odd ones."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
import tempfile
import types
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from bot.commands import Commands
from bot.ports import LoggingGameServer, Reply
from club import NOW, Club, make_club
from rules.arbitar.verdict import NOT_OBVIOUS, STAYS, TRANSFER, ArbitarVerdict
from rules.fall_moves import moves_per_hand
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.paper import MIN_BULE_LEFT, compute_paper
from rules.paper_render import anonymised, paper_json
from rules.verdicts import BulaChange, Draft, FallTransfer
from storage.games import PreparedGame

PLAYERS = ("ana", "marko", "petar")
NUMBER = 4494


def the_game() -> Game:
    return generate_game(
        random.Random(NUMBER),
        NUMBER,
        hands=7,
        status=GameStatus.IN_PROGRESS,
        players=PLAYERS,
        start=NOW - timedelta(hours=2),
        bule=16,
    )


def arbitrate(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    score = compute_paper(game).hands[hand - 1].score
    assert score is not None
    assert score.declarer is not None
    if hand % 2 == 0:
        return ArbitarVerdict(TRANSFER, 3 - score.declarer - fallen, 1, "drugi pratilac je pogrešio", {})
    return ArbitarVerdict(STAYS, None, 2, NOT_OBVIOUS, {})


class Server(LoggingGameServer):
    def __init__(self) -> None:
        super().__init__()
        self.papers: list[dict[str, Any]] = []

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        self.papers.append(paper)
        await super().paper_changed(game, paper)


class FallMovesMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = Path(tempfile.mkdtemp(prefix="fallmoves"))
        self.club: Club = self.run(make_club(self.dir))
        self.server = Server()
        self.club.desk.deps.game_server = self.server
        self.commands = Commands(self.club.desk)
        self.game = the_game()
        self.last = sum(1 for h in self.game.hands if h.completed)

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    @initialize()
    def setup(self) -> None:
        async def prepare() -> None:
            for nick in PLAYERS:
                await self.club.member(nick)
            await self.club.member("sudija1", "referee")
            await self.club.db.games.store([PreparedGame.of(self.game)], self.club.clock.now())

        self.run(prepare())

    def teardown(self) -> None:
        self.run(self.club.db.close())
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    async def dump(self) -> list[str]:
        conn = self.club.db.connection
        out: list[str] = []
        for (name,) in await conn.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            out += [f"{name}: {tuple(r)!r}" for r in await conn.execute_fetchall(f'SELECT * FROM "{name}"')]
        return out

    def act(self, nick: str, line: str) -> Reply:
        """A command; a refusal must leave the database as it was."""

        async def go() -> Reply:
            before = await self.dump()
            reply = await self.commands.handle(await self.club.get(nick), line)
            assert reply is not None
            if not reply.ok:
                assert await self.dump() == before, (line, reply.text)
            return reply

        result: Reply = self.run(go())
        return result

    # The players' corrections ------------------------------------------------------------------------------------
    hands = st.sampled_from([5, 6])
    seats = st.sampled_from([0, 1, 2])

    @rule(hand=hands, seat=seats)
    def ispravka(self, hand: int, seat: int) -> None:
        proposed = self.act(PLAYERS[seat], f"/ispravka {hand} {NUMBER}")
        if proposed.ok:
            for other in PLAYERS:
                if other != PLAYERS[seat]:
                    self.run(self.commands.handle(self.run(self.club.get(other)), "/prihvatam"))

    @rule(hand=hands, seat=seats)
    def odlazak(self, hand: int, seat: int) -> None:
        self.act(PLAYERS[seat], f"/bula {hand} {NUMBER}")

    @rule(hand=hands, seat=seats)
    def arbitar(self, hand: int, seat: int) -> None:
        offered = self.act(PLAYERS[seat], f"/arbitar {hand} {NUMBER}")
        if offered.ok:
            for other in PLAYERS:
                if other != PLAYERS[seat]:
                    self.run(self.commands.handle(self.run(self.club.get(other)), "/prihvatam"))

    @rule(hand=hands, seat=seats)
    def cancel(self, hand: int, seat: int) -> None:
        self.act(PLAYERS[seat], f"/ponisti {hand} {NUMBER}")

    # The referee's verdicts in game ------------------------------------------------------------------------------
    @rule(
        hand=st.sampled_from([4, 5, 6]),
        seat=seats,
        late=st.booleans(),
        transfer=st.booleans(),
        amount=st.sampled_from([-20, -8, -2, 2, 6]),
    )
    def verdict(self, hand: int, seat: int, late: bool, transfer: bool, amount: int) -> None:
        async def judge() -> None:
            club = self.club
            caller = await club.get(PLAYERS[(seat + 1) % 3])
            assert (await club.desk.calls.call(caller, NUMBER)).ok
            call = await club.db.calls.pending_for_game(NUMBER)
            assert call is not None
            referee = await club.get("sudija1")
            assert (await club.desk.trials.take(referee, call.id)).ok
            draft = (
                Draft(FallTransfer(hand, PLAYERS[seat], late), "presuda")
                if transfer
                else Draft(BulaChange({PLAYERS[seat]: amount}, hand, late), "presuda")
            )
            before = await self.dump()
            drafted = await club.desk.draft(referee, draft)
            if not drafted.ok:
                assert await self.dump() == before, drafted.text
                assert (await club.desk.trials.leave(referee)).ok
                return
            assert (await club.desk.finish(referee)).ok, "a saved draft is recorded"

        self.run(judge())

    # After every step --------------------------------------------------------------------------------------------
    @invariant()
    def one_fall_move_per_hand_and_the_paper_is_its_recomputation(self) -> None:
        async def check() -> None:
            club = self.club
            moves = await club.desk.lookups.fall_moves(NUMBER)
            assert all(count <= 1 for count in moves_per_hand(moves).values()), moves
            game = await club.db.games.get(NUMBER)
            assert game is not None
            changes = await club.db.paper_changes.for_game(NUMBER)
            paper = compute_paper(game, changes)
            assert all(a.applied for h in paper.hands for a in h.changes), "every standing change applies"
            if not compute_paper(game).ended:
                assert paper.bule_sum >= MIN_BULE_LEFT
                assert not paper.ended
            if self.server.papers:
                assert self.server.papers[-1] == paper_json(game, compute_paper(game, anonymised(changes)))
            elif changes:
                raise AssertionError("the paper changed and the game server was not told")

        self.run(check())


def test_fall_moves_state_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dozen runs of ten steps keep the suite fast; FALL_MOVES_EXAMPLES=150 explores further (about 20 s)."""
    module = types.ModuleType("rules.arbitar.procedure")
    module.arbitrate = arbitrate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rules.arbitar.procedure", module)
    run_state_machine_as_test(
        FallMovesMachine,
        settings=settings(
            max_examples=int(os.environ.get("FALL_MOVES_EXAMPLES", "12")),
            stateful_step_count=10,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
