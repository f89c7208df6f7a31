"""Benchmark of the club's web pages on SQLite: a 200-hand game with 10 trials (each with its conversation and a
verdict), served over loopback as `sudija run` serves them. Prints, for the game page (the paper as a score sheet),
a hand's replay and Suđenja, the server's time per page (its `Server-Timing`, from the request read to the page
written: the use case, the rules it reads, the template) at p50 and p95 — target p95 ≤ 50 ms — the time the
browser waits (the same plus loopback HTTP), and the processor time per request (which a machine busy with other
work inflates far less than the wall times), beside the chat's `/presude` for the same game through
`bot.registry.run` (the text the chat answers with).

    .venv/bin/python bench/web.py [--requests 200] [--hands 200] [--trials 10]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from aiohttp import web
from nullchat import NullChat
from targets import WEB_P95, report

from bot.config import ArbitarConfig, Config, WebConfig
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from bot.registry import BY_NAME, run
from bot.registry.spec import Args, Caller, Place
from bot.web.app import web_app
from rules.gamelog import GameStatus
from rules.generator import generate_game
from rules.verdicts import Draft, NoVerdict, Penalty
from storage.database import open_database
from storage.games import PreparedGame

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GAME = 4_000_001
PLAYERS = ("ana", "marko", "petar")
TIMING = re.compile(r"app;dur=([\d.]+)")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def club(path: Path, hands: int, trials: int) -> tuple[Desk, Config]:
    """The game, its trials (each called by a player, judged by a referee of its own, with 20 messages and a
    verdict), the members linked on the platform ``bench``."""
    config = Config(database=str(path), arbitar=ArbitarConfig(workers=0))
    db = await open_database(path)
    clock = ManualClock(NOW)
    desk = Desk(db, Chats([NullChat()]), LoggingGameServer(), clock, config, ManualTimers())
    await desk.start()
    game = generate_game(random.Random(7), GAME, hands=hands, players=PLAYERS, bule=2000, start=NOW - timedelta(days=1))
    game = replace(game, status=GameStatus.FINISHED, ended_at=NOW - timedelta(hours=1))
    await db.games.store([PreparedGame.of(game)], NOW)
    for nick in PLAYERS:
        await db.members.link("bench", nick, nick, NOW)
    for n in range(trials):
        referee = await db.members.link("bench", f"sudija{n}", f"sudija{n}", NOW)
        await db.members.set_role(referee.id, "referee", True, None, NOW)
        await db.members.set_presence(referee.id, True, NOW)
        caller = await db.members.by_nick(PLAYERS[n % 3])
        assert caller is not None
        assert (await desk.calls.call(caller, GAME)).ok
        call = await db.calls.pending_by_caller(caller.id)
        assert call is not None
        referee = await db.members.by_nick(f"sudija{n}")
        assert referee is not None
        assert (await desk.trials.take(referee, call.id)).ok
        for m in range(20):
            await desk.trials.say(caller if m % 2 else referee, f"poruka {m} u suđenju {n}")
        verdict = (
            Draft(Penalty(PLAYERS[(n + 1) % 3], league_points=1), "kašnjenje")
            if n % 2
            else Draft(NoVerdict(), "nema prekršaja")
        )
        drafted = await desk.draft(referee, verdict)
        assert drafted.ok, drafted.text
        assert (await desk.finish(referee)).ok
        clock.advance(timedelta(minutes=1))
    return desk, config


async def measure(session: aiohttp.ClientSession, url: str, count: int) -> tuple[list[float], list[float], float]:
    """Each request's server time and the client's wait (ms), and the process's processor time per request (ms:
    the server's and the client's work, the database's threads included; what a loaded machine does not inflate
    as it does the wall times)."""
    server, waited = [], []
    cpu = time.process_time()
    for _ in range(count):
        started = time.perf_counter()
        async with session.get(url, allow_redirects=False) as answer:
            assert answer.status == 200, (url, answer.status)
            await answer.read()
            found = TIMING.search(answer.headers["Server-Timing"])
        waited.append((time.perf_counter() - started) * 1000)
        assert found is not None
        server.append(float(found.group(1)))
    return server, waited, (time.process_time() - cpu) * 1000 / count


async def main(requests: int, hands: int, trials: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        desk, config = await club(Path(folder) / "bench.db", hands, trials)
        runner = web.AppRunner(web_app(desk), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        [(_, port)] = runner.addresses
        base = f"http://127.0.0.1:{port}"
        desk.config = replace(config, web=WebConfig(port=port, public_url=base))
        member = await desk.db.members.by_nick("marko")
        assert member is not None
        caller = Caller("bench", "marko", member, Place.PRIVATE)
        link = re.search(r"http://\S+", (await run(desk, caller, BY_NAME["web"], Args({}))).text)
        assert link is not None
        rows: list[tuple[str, float, float, float, float, float]] = []
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            async with session.post(link.group(), allow_redirects=False) as signed:
                assert signed.status == 303
            pages = {
                "the game page (paper)": f"{base}/partije/{GAME}",
                f"Prikaz ruke (hand {hands // 2})": f"{base}/partije/{GAME}/ruke/{hands // 2}",
                "Suđenja": f"{base}/partije/{GAME}/sudjenja",
            }
            for name, url in pages.items():
                await measure(session, url, max(5, requests // 10))  # warm: the templates compiled
                server, waited, cpu = await measure(session, url, requests)
                rows.append(
                    (
                        name,
                        percentile(server, 0.5),
                        percentile(server, 0.95),
                        statistics.median(waited),
                        percentile(waited, 0.95),
                        cpu,
                    )
                )
        chat: list[float] = []
        warm = max(5, requests // 10)
        for i in range(requests + warm):
            if i == warm:
                chat_cpu = time.process_time()
            started = time.perf_counter()
            reply = await run(desk, caller, BY_NAME["presude"], Args({"partija": GAME}))
            if i >= warm:
                chat.append((time.perf_counter() - started) * 1000)
            assert reply.ok
        chat_cpu = (time.process_time() - chat_cpu) * 1000 / requests
        await runner.cleanup()
        await desk.db.close()
    print(f"web pages of a {hands}-hand game with {trials} trials, SQLite, {requests} requests each (ms)")
    print(f"{'page':<28} {'server p50':>10} {'server p95':>10} {'wait p50':>9} {'wait p95':>9} {'cpu/req':>8}")
    for name, p50, p95, w50, w95, cpu in rows:
        print(f"{name:<28} {p50:>10.1f} {p95:>10.1f} {w50:>9.1f} {w95:>9.1f} {cpu:>8.1f}")
    chat_p50, chat_p95 = percentile(chat, 0.5), percentile(chat, 0.95)
    print(f"{'chat /presude (run)':<28} {chat_p50:>10.1f} {chat_p95:>10.1f} {'':>9} {'':>9} {chat_cpu:>8.1f}")
    worst = max(p95 for _, _, p95, _, _, _ in rows)
    verdict = "met" if WEB_P95.met(worst) else "MISSED"
    print(f"target: server p95 {WEB_P95.text()} on every page: {verdict} (worst {worst:.1f} ms)")
    for name, _, p95, _, w95, _ in rows:
        report(f"web {name}, server p95, {hands}-hand game", p95, WEB_P95, peer=f"client wait p95 {w95:.1f} ms")
    return 0 if WEB_P95.met(worst) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--trials", type=int, default=10)
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.requests, options.hands, options.trials)))
