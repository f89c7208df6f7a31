"""Several bot processes serving one club's PostgreSQL database at once, one killed with SIGKILL midway
(tests/pg_club.py is each process): `run` plays the evening and checks what must hold — exactly one winner per
call, every call ends exactly once, every chat effect delivered exactly once (a repeat only of what the killed
process was delivering, and shown as one), every deadline acted on (never before it fell), the gateway taken over
by another process after its holder's death — and returns how late the deadlines were acted on and how long the
takeover took.

tests/test_cross_process.py runs a short form in `make test`; bench/cross_process.py (``make cross``) the full one,
three processes, 1,000 calls, 50 referees pressing Sudi on each, spread over the processes, and prints those
times against their bound. Every tenth call is pressed by nobody: its deadline falls a couple of seconds after it
is made, and whichever process comes first expires it.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.chat_outbox import IDEMPOTENT, SERVER
from bot.config import Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from rules.generator import generate_game
from rules.members import Member
from rules.verdicts import Draft, NoVerdict
from storage.database import Database, open_database, parse_stored_time
from storage.games import PreparedGame

CLUB = Path(__file__).parent / "pg_club.py"
PROCESSES = 3
UNPRESSED_EVERY = 10  # every tenth call expires: a deadline for the processes to act on
EXPIRING_IN = timedelta(seconds=2)


@dataclass
class Times:
    """How late each expired call's deadline was acted on, and how long the gateway's takeover took (seconds)."""

    lateness: list[float]
    takeover: float
    summary: str  # what the evening was, in a line


@dataclass
class Bot:
    """One bot process and what it printed."""

    process: asyncio.subprocess.Process
    answers: asyncio.Queue[list[str]] = field(default_factory=asyncio.Queue)
    effects: list[dict[str, object]] = field(default_factory=list)
    won: dict[int, str] = field(default_factory=dict)
    gateway_at: float | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    delivered: asyncio.Event = field(default_factory=asyncio.Event)  # it printed an effect it carried out
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        assert self.process.stdout is not None
        while line := (await self.process.stdout.readline()).decode():
            word, _, rest = line.strip().partition(" ")
            if word == "ready":
                self.ready.set()
            elif word == "gateway":
                self.gateway_at = time.monotonic()
            elif word == "fx":
                self.effects.append(json.loads(rest))
                self.delivered.set()
            elif word in ("won", "lost"):
                parts = rest.split()
                if word == "won":
                    self.won[int(parts[0])] = parts[1]
                await self.answers.put([word, *parts])

    async def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{line}\n".encode())
        await self.process.stdin.drain()


async def _setup(db: Database, now: datetime, calls: int, referees: int) -> tuple[list[Member], list[Member]]:
    template = generate_game(random.Random(1), 1, hands=2, players=("a", "b", "c"), start=now - timedelta(hours=3))
    games = [
        PreparedGame.of(
            replace(template, number=10_000 + i, players=(f"igrac{i}", f"drugi{i}", f"treci{i}"), ended_at=now)
        )
        for i in range(calls)
    ]
    await db.games.store(games, now)
    callers = [await db.members.link("test", f"igrac{i}", f"igrac{i}", now) for i in range(calls)]
    judges = []
    for i in range(referees):
        member = await db.members.link("test", f"sudija{i}", f"sudija{i}", now)
        await db.members.set_role(member.id, "referee", True, None, now)
        await db.members.set_presence(member.id, True, now)
        judges.append(member)
    return callers, judges


async def _settled(db: Database, bound: float = 300.0) -> None:
    """Until no call waits for its deadline and no chat effect waits to be delivered (or `bound` seconds)."""
    give_up = time.monotonic() + bound
    query = (
        "SELECT (SELECT count(*) FROM calls WHERE state = 'pending')"
        " + (SELECT count(*) FROM chat_outbox WHERE state = 'pending')"
    )
    while next(iter(await db.connection.execute_fetchall(query)))[0] and time.monotonic() < give_up:  # noqa: ASYNC110
        await asyncio.sleep(0.1)  # what other processes write: asked again, no event to wait on


async def run(pg_url: str, calls: int, referees: int) -> Times:
    """The evening on the (migrated, empty) database at `pg_url`: `calls` calls, `referees` referees pressing each;
    fails (AssertionError) where what must hold does not."""
    now = datetime.now(UTC)
    db = await open_database(pg_url)
    clock = ManualClock(now)
    config = Config()
    desk = Desk(db, Chats([]), LoggingGameServer(), clock, config, ManualTimers())  # the callers' side: no ports
    callers, judges = await _setup(db, now, calls, referees)
    bots = [
        Bot(
            await asyncio.create_subprocess_exec(
                sys.executable, str(CLUB), pg_url, stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        )
        for _ in range(PROCESSES)
    ]
    try:
        for bot in bots:
            bot.reader = asyncio.create_task(bot.read())
            await asyncio.wait_for(bot.ready.wait(), 60)
        alive = list(bots)
        victim: Bot | None = None
        killed_at = 0.0
        pressed: list[int] = []
        unpressed: list[int] = []
        for i, caller in enumerate(callers):
            expiring = i % UNPRESSED_EVERY == UNPRESSED_EVERY - 1
            moment = datetime.now(UTC)
            clock.set(moment - timedelta(minutes=config.call_minutes) + EXPIRING_IN if expiring else moment)
            assert (await desk.calls.call(caller, 10_000 + i)).ok
            call = await db.calls.pending_by_caller(caller.id)
            assert call is not None
            if expiring:
                unpressed.append(call.id)
                continue
            pressed.append(call.id)
            shares = [judges[k :: len(alive)] for k in range(len(alive))]  # 50 presses, spread over the processes
            for bot, share in zip(alive, shares, strict=True):
                await bot.send(f"press {call.id} {','.join(m.nick for m in share)}")
            waiting = list(alive)
            if victim is None and i >= calls // 2:  # midway: the gateway's holder is killed in the middle of its work
                victim = next(b for b in alive if b.gateway_at is not None)
                alive.remove(victim)
                victim.delivered.clear()
                await asyncio.wait_for(victim.delivered.wait(), 60)  # it has just shown an effect: not yet done
                victim.process.kill()
                killed_at = time.monotonic()
                waiting = alive
            for bot in waiting:
                answer = await asyncio.wait_for(bot.answers.get(), 120)
                assert answer[1] == str(call.id), answer
        assert victim is not None
        clock.set(datetime.now(UTC))
        left_open = [
            (trial, referee)
            for trial, referee in await db.connection.execute_fetchall(
                "SELECT id, referee FROM trials WHERE outcome = 'open'"
            )
        ]
        assert len(left_open) <= 1, left_open  # only the trial the killed process was judging
        for _trial, referee_id in left_open:  # its referee goes on judging through another process
            referee = await db.members.get(referee_id)
            assert referee is not None
            assert (await desk.draft(referee, Draft(NoVerdict(), "after the kill"))).ok
            assert (await desk.finish(referee)).ok
        await _settled(db)
        for bot in alive:
            await bot.send("quit")
        assert victim.process.returncode == -9  # SIGKILL
        for bot in bots:
            await asyncio.wait_for(bot.process.wait(), 60)
            assert bot.reader is not None
            await bot.reader
        assert [b.process.returncode for b in alive] == [0] * len(alive)

        # Exactly one winner per pressed call, and what the processes said is what the database holds.
        won: dict[int, list[str]] = {}
        for bot in bots:
            for call_id, nick in bot.won.items():
                won.setdefault(call_id, []).append(nick)
        assert all(len(nicks) == 1 for nicks in won.values()), won
        rows = await db.connection.execute_fetchall(
            "SELECT c.id, c.state, c.deadline, (SELECT count(*) FROM trials t WHERE t.call = c.id),"
            " (SELECT m.nick FROM trials t JOIN members m ON m.id = t.referee WHERE t.call = c.id),"
            " (SELECT count(*) FROM trials t WHERE t.call = c.id AND t.outcome = 'open') FROM calls c"
        )
        states = {int(r[0]): r for r in rows}
        assert sorted(states) == sorted(pressed + unpressed)
        for call_id in pressed:
            _, state, _, trials, nick, still_open = states[call_id]
            assert (state, trials, still_open) == ("taken", 1, 0), states[call_id]
            if call_id in won:
                assert won[call_id] == [nick]
            else:  # won by the killed process, which died before it could say so
                assert victim.won.get(call_id) is None
        # Every call ends exactly once: one expiry, or one trial's end.
        ends = Counter(
            str(subject)
            for (subject,) in await db.connection.execute_fetchall(
                "SELECT subject FROM events WHERE kind IN ('call_expired', 'trial_verdict', 'trial_no_verdict',"
                " 'trial_interrupted')"
            )
        )
        trial_of = {
            int(c): f"trial:{t}" for t, c in await db.connection.execute_fetchall("SELECT id, call FROM trials")
        }
        for call_id in pressed:
            assert ends[trial_of[call_id]] == 1, call_id
        lateness = []
        for call_id in unpressed:
            _, state, deadline, trials, _, _ = states[call_id]
            assert (state, trials) == ("expired", 0), states[call_id]
            assert ends[f"call:{call_id}"] == 1, call_id
            expired_at = list(
                await db.connection.execute_fetchall(
                    "SELECT at FROM events WHERE kind = 'call_expired' AND subject = ?", (f"call:{call_id}",)
                )
            )
            lateness.append((parse_stored_time(expired_at[0][0]) - parse_stored_time(deadline)).total_seconds())
        assert min(lateness) >= 0  # never before the deadline fell

        # Every chat effect delivered exactly once: the one the killed process was carrying out may be carried
        # out again by the process that took over, and then as a repeat (or an idempotent edit).
        effects = {
            int(e): (str(k), json.loads(p), str(s))
            for e, k, p, s in await db.connection.execute_fetchall("SELECT id, kind, payload, state FROM chat_outbox")
        }
        rows = await db.connection.execute_fetchall("SELECT id, queue FROM chat_outbox")
        queue_of = {int(e): str(q) for e, q in rows}
        assert {s for _, _, s in effects.values()} == {"sent"}
        deliveries: dict[int, list[dict[str, object]]] = {}
        offers = [e for e, (kind, _, _) in effects.items() if kind == "offer_call"]  # to referees freed
        for bot in bots:
            for line in bot.effects:
                assert line["effect"] is not None, line  # every word through the chat outbox
                deliveries.setdefault(int(str(line["effect"])), []).append({**line, "killed": bot is victim})
        twice = {e: d for e, d in deliveries.items() if len(d) > 1}
        # the queues go side by side: the killed process was carrying at most one effect of each queue
        assert len({queue_of[e] for e in twice}) == len(twice), twice
        for effect_id, lines in twice.items():
            first, again = sorted(lines, key=lambda line: not line["killed"])
            assert first["killed"], lines  # begun by the killed process, which died before it was recorded done
            assert not again["killed"], lines
            assert again["repeat"] or effects[effect_id][0] in IDEMPOTENT, lines  # and shown again as a repeat
        for effect_id, (kind, payload, _) in effects.items():
            if kind == SERVER or (kind == "edit_notices" and "if_cancelled" in payload):
                continue
            assert effect_id in deliveries, (effect_id, kind)
        assert set(deliveries) <= set(effects)

        victim_gateway = [b.gateway_at for b in alive if b.gateway_at is not None and b.gateway_at > killed_at]
        assert len(victim_gateway) == 1
        takeover = victim_gateway[0] - killed_at
        summary = (
            f"{PROCESSES} processes, {calls} calls ({len(pressed)} pressed by {referees} referees"
            f" each, {len(unpressed)} left to expire), the gateway's holder killed at call {calls // 2};"
            f" winners per pressed call: {sorted({len(n) for n in won.values()})}, calls won by the killed process"
            f" unreported: {len([c for c in pressed if c not in won])}; trials left open by it: {len(left_open)};"
            f" effects {len(effects)}, delivered twice {len(twice)} (the second a repeat), private offers"
            f" {len(offers)};"
            f" deadline lateness p50 {statistics.median(lateness) * 1000:.0f} ms,"
            f" max {max(lateness) * 1000:.0f} ms; gateway taken over in {takeover * 1000:.0f} ms"
        )
        return Times(lateness, takeover, summary)
    finally:
        for bot in bots:
            if bot.process.returncode is None:
                bot.process.kill()
                await bot.process.wait()
        await db.close()
