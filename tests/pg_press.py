"""A bot process for tests/test_postgres.py, on the club's PostgreSQL database with its own desk and connection
(as a second bot process would be). It prints ``ready``, waits for a line on standard input, then acts and prints
one JSON value:

- ``python tests/pg_press.py URL sudi NICK:CALL …`` presses every NICK's Sudi on CALL at once: call id → won;
- ``python tests/pg_press.py URL hold`` starts a bot holding the club's gateway as `sudija run` does and serves
  until killed (it prints ``ready`` once it holds the gateway, and nothing else);
- ``python tests/pg_press.py URL rounds PREFIX K CALL,CALL,…`` goes through the calls in order: on each, its K
  referees PREFIX0…PREFIX{K-1} press Sudi at once, and one who wins judges the trial to its end (no verdict);
  it prints ``CALL NICK`` for each call it won, as soon as the trial ended, and ``done`` at the end;
- ``python tests/pg_press.py URL due MINUTES`` runs the desk's due work (`Desk.run_due`) MINUTES after the
  club's test time: the places it told something, in order.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bot.app import build_app, take_gateway
from bot.config import Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW
from fakes.chat import RecordingChat
from rules.verdicts import Draft, NoVerdict
from storage.database import open_database


async def hold(url: str) -> None:
    app = await build_app(Config(), database=url, timers=ManualTimers(), sweep=False)
    try:
        gateway = await take_gateway(app)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        await gateway.release()
    finally:
        await app.close()


async def rounds(url: str, prefix: str, k: int, calls: list[int]) -> None:
    db = await open_database(url)
    try:
        desk = Desk(db, Chats([RecordingChat()]), LoggingGameServer(), ManualClock(NOW), Config(), ManualTimers())
        referees = [m for m in [await db.members.by_nick(f"{prefix}{i}") for i in range(k)] if m is not None]
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        for call in calls:
            presses = await asyncio.gather(*(desk.trials.take(r, call) for r in referees))
            winners = [r for r, reply in zip(referees, presses, strict=True) if reply.ok]
            if not winners:
                continue
            assert len(winners) == 1, winners
            winner = winners[0]
            assert (await desk.draft(winner, Draft(NoVerdict(), "chaos"))).ok
            assert (await desk.finish(winner)).ok
            print(call, winner.nick, flush=True)
        print("done", flush=True)
    finally:
        await db.close()


async def due(url: str, minutes: int) -> None:
    db = await open_database(url)
    try:
        chat = RecordingChat()
        clock = ManualClock(NOW + timedelta(minutes=minutes))
        desk = Desk(db, Chats([chat]), LoggingGameServer(), clock, Config(), ManualTimers())
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        await desk.run_due()
        print(json.dumps([sent.where for sent in chat.sent if sent.kind == "tell"]), flush=True)
    finally:
        await db.close()


async def sudi(url: str, presses: list[tuple[str, int]]) -> None:
    db = await open_database(url)
    try:
        desk = Desk(db, Chats([RecordingChat()]), LoggingGameServer(), ManualClock(NOW), Config(), ManualTimers())
        members = {nick: await db.members.by_nick(nick) for nick, _ in presses}
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)

        async def press(nick: str, call: int) -> tuple[int, bool]:
            member = members[nick]
            assert member is not None, nick
            return call, (await desk.trials.take(member, call)).ok

        won = await asyncio.gather(*(press(nick, call) for nick, call in presses))
        print(json.dumps({str(call): ok for call, ok in won}), flush=True)
    finally:
        await db.close()


if __name__ == "__main__":
    if sys.argv[2] == "hold":
        asyncio.run(hold(sys.argv[1]))
    elif sys.argv[2] == "rounds":
        asyncio.run(rounds(sys.argv[1], sys.argv[3], int(sys.argv[4]), [int(c) for c in sys.argv[5].split(",")]))
    elif sys.argv[2] == "due":
        asyncio.run(due(sys.argv[1], int(sys.argv[3])))
    else:
        pairs = [arg.split(":") for arg in sys.argv[3:]]
        asyncio.run(sudi(sys.argv[1], [(nick, int(call)) for nick, call in pairs]))
