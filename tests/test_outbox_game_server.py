"""What a decision tells the game server is written in the decision's own transaction (issue 22, build item 1).

Each effect that a crash right after the commit used to lose — a plavac shown when it starts, when a verdict
lifts it and when it runs out, a settled game closed, a link code shown in the game client, the paper changed by
a verdict or a correction, korekcija's asks and answers — is a `server` (or chat) row of the chat outbox written
with its decision. The bot runs against the reference game server over loopback HTTP, which refuses what the
protocol refuses (a bad signature, a wrong field, a table it does not play: `bot.gameserver.protocol`) and drops
a repeated idempotency key. Each test commits the decision, lets the process die before any delivery, restarts
it and checks that the game server got the command exactly once (and a second restart sends it no more); the
second kind of crash dies after the command was written to the game-server outbox but before its chat effect
was marked done: the repeated delivery writes no second command (its key is fixed by the effect).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from linked import SECRET, Linked, live_game
from test_chat_outbox import crash_after_commit
from test_corrections import PLAYERS, fall_game, join
from test_penalties import judge, people, settle_case

from bot.chat_outbox import SERVER
from bot.commands import Commands
from bot.config import Config, GameServerConfig
from bot.desk import Desk
from bot.gameserver.link import GameServerLink
from bot.gameserver.outbox import HttpGameServer
from bot.gameserver.reference import ReferenceGameServer
from bot.ports import Chats, ManualClock, ManualTimers
from club import NOW, Club, database_for
from fakes.chat import RecordingChat, Sent
from rules.gamelog import Game, GameStatus, format_time
from rules.verdicts import BulaChange, Draft, Nobody, Penalty, Settlement
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.gameserver import LiveFeedStore
from storage.outbox import OutboxStore
from storage.states import OutboxState

Received = tuple[str, dict[str, Any]]  # (kind, data) of a command the game server obeyed


class Died(BaseException):
    """The process dies here (nothing after it runs; the test goes on as the next process)."""


@dataclass
class Rig:
    """The game server (it outlives the bot's crashes) and the club's settings; `boot` starts a bot process."""

    tmp_path: Path
    ref: ReferenceGameServer
    ref_server: TestServer
    clock: ManualClock
    config: Config
    told: list[str] = field(default_factory=list)

    async def boot(self) -> Linked:
        """A bot process over the club's database: its desk started (what is pending is delivered), its link's
        events endpoint where the game server posts."""
        db = await open_database(database_for(self.tmp_path))
        chat = RecordingChat()
        desk = Desk(db, Chats([chat]), HttpGameServer(db, self.clock.now), self.clock, self.config, ManualTimers())
        await desk.start()
        link = GameServerLink(desk, self.config.gameserver, SECRET, clock=self.clock.now)
        link.worker.rng = random.Random(7)
        bot_server = TestServer(link.app, host="127.0.0.1")
        await bot_server.start_server()
        self.ref.events_url = str(bot_server.make_url("/v1/events"))
        return Linked(db, desk, chat, self.clock, link, self.ref, bot_server, self.ref_server, self.told)

    def received(self) -> list[Received]:
        return [(kind, data) for _, kind, data in self.ref.received]

    def keys(self) -> list[str]:
        return [key for key, _, _ in self.ref.received]


async def down(bot: Linked) -> None:
    """The bot process is gone (the game server stays)."""
    await bot.link.worker.stop()
    await bot.bot_server.close()
    await bot.db.close()


def club_of(bot: Linked) -> Club:
    """The process seen as the desk tests' club (their helpers take one)."""
    desk = bot.desk
    return Club(bot.db, desk, bot.chat, bot.clock, desk.deps.timers, desk.deps.game_server, desk.config)  # type: ignore[arg-type]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    clock = ManualClock(NOW)
    ref = ReferenceGameServer("http://127.0.0.1:1", SECRET, clock.now)
    ref_server = TestServer(ref.app(), host="127.0.0.1")
    await ref_server.start_server()
    config = Config(gameserver=GameServerConfig(url=str(ref_server.make_url("/"))))
    made = Rig(tmp_path, ref, ref_server, clock, config)
    ref.say = made.told.append
    try:
        yield made
    finally:
        await ref.close()
        await ref_server.close()


Step = Callable[[Club], Awaitable[object]]


async def sent_once_after_a_crash(rig: Rig, setup: Step, decide: Step) -> list[Received]:
    """`setup`, then `decide` with the process dead right after the decision's commit: the game server hears
    nothing of it; the restarted process sends what it holds, once, and a second restart sends none of the
    decision's commands again. The commands the decision sent are returned."""
    bot = await rig.boot()
    await setup(club_of(bot))
    await bot.flush()
    before = len(rig.ref.received)
    await crash_after_commit(club_of(bot))
    await decide(club_of(bot))
    assert await bot.flush() == 0  # committed, and nothing of it reached the game server
    assert rig.ref.received[before:] == []
    assert await pending_server_effects(bot) > 0  # the decision wrote it: a row of its commit
    await down(bot)

    after = await rig.boot()
    await after.flush()
    sent = rig.received()[before:]
    assert sent, "the decision asks the game server for something"
    assert await pending_server_effects(after) == 0
    assert (await OutboxStore(after.db).counts()).get("failed", 0) == 0  # nothing refused by the game server
    await down(after)

    seen = len(rig.ref.received)
    again = await rig.boot()
    await again.flush()
    repeated = [key for key in rig.keys()[seen:] if key.startswith("sudija-effect-")]
    assert repeated == []  # no effect of the decision went out twice
    await down(again)
    return sent


async def pending_server_effects(bot: Linked) -> int:
    rows = await ChatOutboxStore(bot.db).listing(OutboxState.PENDING)
    return len([r for r in rows if r.kind == SERVER])


def of(sent: list[Received], kind: str) -> list[dict[str, Any]]:
    """The data of the commands of `kind` (a verdict also blocks and unblocks the caller's offers, each once)."""
    return [data for k, data in sent if k == kind]


def plavac(sent: list[Received], nick: str) -> list[str | None]:
    return [data["until"] for kind, data in sent if kind == "set_plavac" and data["nick"] == nick]


# Plavac ---------------------------------------------------------------------------------------------------------
async def with_people(club: Club) -> None:
    await people(club)
    await club.game(100)


async def test_a_plavac_imposed_then_a_crash_is_shown_by_the_game_server_after_the_restart(rig: Rig) -> None:
    async def impose(club: Club) -> None:
        await judge(club, 100, Draft(Penalty("petar", plavac_days=2), "namerno napuštanje"))

    sent = await sent_once_after_a_crash(rig, with_people, impose)
    until = format_time(NOW + timedelta(days=2))
    assert plavac(sent, "petar") == [until]  # the start's resync and the effect are one command
    assert rig.ref.plavac["petar"] == until


async def test_a_plavac_lifted_by_a_verdict_then_a_crash_is_taken_off_the_game_server_once(rig: Rig) -> None:
    async def imposed(club: Club) -> None:
        await with_people(club)
        await judge(club, 100, Draft(Penalty("petar", plavac_days=2, league_points=4), "prvo suđenje"))
        club.clock.advance(timedelta(hours=6))

    async def lift(club: Club) -> None:
        await judge(club, 100, Draft(Nobody(), "greška u presudi"), caller="marko", referee="sudija2")

    assert rig.ref.plavac == {}
    sent = await sent_once_after_a_crash(rig, imposed, lift)
    assert of(sent, "set_plavac") == [{"nick": "petar", "until": None}]
    assert rig.ref.plavac["petar"] is None  # the game server shows no plavac that ended


async def test_a_plavac_that_ran_out_then_a_crash_is_taken_off_the_game_server_once(rig: Rig) -> None:
    async def imposed(club: Club) -> None:
        await with_people(club)
        await judge(club, 100, Draft(Penalty("petar", plavac_days=1), ""))

    async def runs_out(club: Club) -> None:
        await club.advance(timedelta(days=1))

    sent = await sent_once_after_a_crash(rig, imposed, runs_out)
    assert of(sent, "set_plavac") == [{"nick": "petar", "until": None}]
    assert rig.ref.plavac["petar"] is None


# A settlement closes the game -----------------------------------------------------------------------------------
async def interrupted_500(club: Club) -> None:
    await people(club, "ana", "bojan", "ceca")
    await settle_case(club, minutes=120, left=40)


async def test_a_settlement_then_a_crash_closes_the_game_on_the_game_server_once(rig: Rig) -> None:
    rig.ref.add_table(table_of(500, ("ana", "bojan", "ceca")))

    async def settle(club: Club) -> None:
        await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan")

    sent = await sent_once_after_a_crash(rig, interrupted_500, settle)
    assert of(sent, "close_game") == [{"game": 500}]
    assert rig.ref.tables[500].closed


# A link code ----------------------------------------------------------------------------------------------------
async def nothing(club: Club) -> None:
    await people(club)


async def ask_code(club: Club) -> None:
    assert (await club.desk.links.ask_link("discord", "500", "Jovan", "jovan")).ok


async def test_a_link_code_asked_then_a_crash_is_shown_in_the_game_client_after_the_restart_once(rig: Rig) -> None:
    sent = await sent_once_after_a_crash(rig, nothing, ask_code)
    [(kind, data)] = sent
    assert (kind, data["nick"]) == ("deliver_link_code", "jovan")
    code = rig.ref.shown_codes["jovan"]
    bot = await rig.boot()
    # The code shown proves the link; the outboxes kept it only until it was delivered.
    assert code not in str([e.payload for e in await ChatOutboxStore(bot.db).listing()])
    assert code not in str([c.payload for c in await OutboxStore(bot.db).listing()])  # nor the game-server outbox
    proven = await bot.desk.links.ask_link("discord", "500", "Jovan", "jovan", code)
    assert proven.ok, proven.text
    await down(bot)


# The paper changed ----------------------------------------------------------------------------------------------
async def test_a_verdict_changing_the_paper_then_a_crash_tells_the_game_server_the_paper_once(rig: Rig) -> None:
    rig.ref.add_table(table_of(200))

    async def playing(club: Club) -> None:
        await people(club)
        await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)

    async def change(club: Club) -> None:
        await judge(club, 200, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "vređanje"), caller="marko")

    sent = await sent_once_after_a_crash(rig, playing, change)
    [data] = of(sent, "paper_changed")
    assert data["game"] == 200
    assert data["paper"]["game"] == 200
    # In the trial's queue, written first with the verdict: the paper reaches the game server before play resumes.
    assert [k for k, _ in sent if k in ("pause_table", "paper_changed", "resume_table")] == [
        "pause_table",
        "paper_changed",
        "resume_table",
    ]


async def test_a_correction_changing_the_paper_then_a_crash_tells_the_game_server_the_paper_once(rig: Rig) -> None:
    made: list[Any] = []

    async def fallen(club: Club) -> None:
        fall = await fall_game(club)
        await join(club, *PLAYERS)
        rig.ref.add_table(table_of(fall.game.number))
        made.append(fall)

    async def odlazak(club: Club) -> None:
        fall = made[0]
        reply = await club.desk.corrections.go_into_bula(await club.get(fall.other), fall.hand)
        assert reply.ok, reply.text

    sent = await sent_once_after_a_crash(rig, fallen, odlazak)
    [data] = of(sent, "paper_changed")
    assert data["game"] == made[0].game.number


def table_of(number: int, players: tuple[str, str, str] = ("ana", "marko", "petar")) -> Game:
    """A table the game server plays (it refuses a command for a table it does not play)."""
    return live_game(number, players, 1)


# The second crash: the command written, the effect not yet marked done -----------------------------------------
async def dies_after_the_command_was_written(bot: Linked) -> None:
    store = bot.desk.delivery.chat_outbox.store
    done = store.done

    async def dying(effect: int, platform: str, *args: Any, **kwargs: Any) -> None:
        if platform == SERVER:
            raise Died
        await done(effect, platform, *args, **kwargs)

    store.done = dying  # type: ignore[method-assign]


async def test_a_crash_between_the_command_and_its_effects_end_sends_the_command_once(rig: Rig) -> None:
    bot = await rig.boot()
    await nothing(club_of(bot))
    await dies_after_the_command_was_written(bot)
    with pytest.raises(Died):
        await ask_code(club_of(bot))
    assert (await OutboxStore(bot.db).counts()).get("pending") == 1  # written, then the process died
    await down(bot)

    after = await rig.boot()  # its start delivers the effect again: the same key, no second command
    assert (await OutboxStore(after.db).counts()).get("pending") == 1
    assert await after.flush() == 1
    assert [kind for kind, _ in rig.received()] == ["deliver_link_code"]
    assert await pending_server_effects(after) == 0
    await down(after)


# Korekcija ------------------------------------------------------------------------------------------------------
async def test_korekcija_asked_then_a_crash_asks_the_other_two_after_the_restart_once(rig: Rig) -> None:
    bot = await rig.boot()
    await people(club_of(bot), "ana", "marko", "petar")
    table = rig.ref.add_table(table_of(505))
    await table.step()
    await table.step()  # the first move of hand 1
    move = await LiveFeedStore(bot.db).last_move(505)
    assert move is not None
    mover, others = move.player, [n for n in table.game.players if n != move.player]
    await crash_after_commit(club_of(bot))
    asked = await Commands(bot.desk).handle(await bot.get(mover), "/korekcija")
    assert asked is not None
    assert asked.ok, asked.text
    assert bot.chat.sent == []  # committed; nobody asked yet
    await down(bot)

    after = await rig.boot()
    prompts = [s for s in after.chat.sent if s.kind == "tell"]
    assert [s.where for s in prompts] == [f"dm:{n}" for n in others]
    assert all({b.action for b in s.buttons} == {"korekcija_yes", "korekcija_no"} for s in prompts)
    request = prompts[0].buttons[0].ref
    first = await after.desk.press(await after.get(others[0]), "korekcija_yes", request)
    assert first.ok, first.text
    await crash_after_commit(club_of(after))
    second = await after.desk.press(await after.get(others[1]), "korekcija_yes", request)
    assert second.ok, second.text
    assert told(after.chat.sent, mover) == []  # the agreement committed, the requester not told yet
    await down(after)

    again = await rig.boot()
    agreed = again.desk.t("korekcija.agreed_all", game=505)
    assert told(again.chat.sent, mover) == [agreed]  # told once, after the restart
    again.chat.clear()
    await crash_after_commit(club_of(again))
    assert await again.flush() == 1  # the game server takes the move back and posts korekcija_done: taken, then
    assert [kind for kind, _ in rig.received()] == ["undo_move"]
    assert table.move == 0
    assert await LiveFeedStore(again.db).last_move(505) is None
    assert again.chat.sent == []  # the process dies before anyone is told
    await down(again)

    last = await rig.boot()
    done = last.desk.t("korekcija.done", game=505, hand=1)
    assert [(s.where, s.text) for s in last.chat.sent] == [
        *[(f"dm:{nick}", done) for nick in table.game.players],
        ("table:505", done),
    ]
    await down(last)
    final = await rig.boot()
    assert final.chat.sent == []  # each told once
    await down(final)


async def test_korekcija_refused_then_a_crash_tells_the_requester_after_the_restart_once(rig: Rig) -> None:
    bot = await rig.boot()
    await people(club_of(bot), "ana", "marko", "petar")
    table = rig.ref.add_table(table_of(506))
    await table.step()
    await table.step()
    move = await LiveFeedStore(bot.db).last_move(506)
    assert move is not None
    mover, other = move.player, next(n for n in table.game.players if n != move.player)
    commands = Commands(bot.desk)
    assert (await commands.handle(await bot.get(mover), "/korekcija")).ok  # type: ignore[union-attr]
    await crash_after_commit(club_of(bot))
    refused = await commands.handle(await bot.get(other), "/korekcija ne")
    assert refused is not None
    assert refused.ok, refused.text
    await down(bot)

    after = await rig.boot()
    [said] = told(after.chat.sent, mover)
    assert said == after.desk.t("korekcija.refused", nick=other, game=506)
    await down(after)
    again = await rig.boot()
    assert told(again.chat.sent, mover) == []
    await down(again)


def told(sent: list[Sent], nick: str) -> list[str]:
    return [s.text for s in sent if s.kind == "tell" and s.where == f"dm:{nick}"]
