"""Benchmark of the referee desk through SQLite: 1,000 callers on distinct games, 50 referees pressing Sudi on
every call at once. Prints p50/p99 latency of /sudija and of Sudi (target: p99 under 20 ms each), the CPU a
/sudija costs (this process's, and the backend's of a PostgreSQL server on this machine: a busy machine's waits
inflate latency, not these), and checks that every call has exactly one winner. ``--database postgresql://…``
runs the same on that PostgreSQL database too (in a throwaway schema, dropped afterwards) and prints both side by
side; ``--processes N`` (with ``--database``) also runs it with the referees spread over N bot processes — the
others built as `sudija run` builds a process on PostgreSQL, with their safety sweeps and outbox workers woken by
every commit — all pressing each call at once.

On PostgreSQL the tables are analyzed once seeded (``ANALYZE``), as the server's autovacuum analyzes a running
club's: a schema seeded seconds before has no statistics yet, and the planner, taking the club's rows for a few
(storage/tenancy.py's club column, unknown to it), joins the referees in the lobby to every member instead.

The figures are with the durability the bot runs with: ``synchronous = FULL`` for every commit whose result a
member is told (`storage.database`). ``--compare`` runs the same again with every commit NORMAL (safe against a
killed process only) and prints what FULL costs.

    .venv/bin/python bench/desk.py [--calls 1000] [--referees 50] [--compare]
                                   [--database postgresql://… [--processes 3]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nullchat import NullChat
from targets import DESK_P99, report

from bot.app import build_app
from bot.config import Config
from bot.desk import Desk
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers
from rules.generator import generate_game
from rules.members import Member
from rules.verdicts import Draft, NoVerdict
from storage.database import open_database
from storage.games import PreparedGame
from storage.postgres import drop_schema, is_postgres, scratch_schema


def backend_cpu(pid: int | None) -> float:
    """The CPU seconds a local PostgreSQL backend has used (user and system, from /proc); 0 without one."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def local_backend(pid: int) -> int | None:
    """`pid` when it is a PostgreSQL process of this machine (the bench's server), else None (a server elsewhere)."""
    try:
        return pid if b"postgres" in Path(f"/proc/{pid}/cmdline").read_bytes() else None
    except OSError:
        return None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(
    calls: int, referees: int, compare: bool = False, database: str | None = None, processes: int = 1
) -> int:
    figures: dict[str, tuple[float, float, float, float]] = {}
    status = await run(calls, referees, durable=True, figures=figures)
    if compare:
        status |= await run(calls, referees, durable=False, figures=figures)
    if database is not None:
        schema = f"sudija_bench_{os.getpid()}"
        try:
            status |= await run(calls, referees, True, figures, await scratch_schema(database, schema))
            if processes > 1:
                address = await scratch_schema(database, schema)
                status |= await run(calls, referees, True, figures, address, processes)
        finally:
            await drop_schema(database, schema)
        print("\nside by side (ms)      /sudija p50  /sudija p99     Sudi p50     Sudi p99")
        for name, (c50, c99, t50, t99) in figures.items():
            print(f"{name:20} {c50:12.2f} {c99:12.2f} {t50:12.2f} {t99:12.2f}")
    for column, what in ((1, "/sudija p99"), (3, "Sudi p99")):
        for name, values in figures.items():
            if name == "SQLite NORMAL":
                continue  # a peer only: what FULL's commits cost
            peers = "; ".join(f"{other} {v[column]:.2f} ms" for other, v in figures.items() if other != name)
            report(f"desk {what}, {name}", values[column], DESK_P99, peer=peers)
    return status


async def run(
    calls: int,
    referees: int,
    durable: bool,
    figures: dict[str, tuple[float, float, float, float]],
    database: str | None = None,
    processes: int = 1,
) -> int:
    now = datetime.now(UTC).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as tmp:
        db = await open_database(database or Path(tmp) / "bench.db")
        db.durable_commits = durable
        clock = ManualClock(now)
        desk = Desk(db, Chats([NullChat()]), LoggingGameServer(), clock, Config(), ManualTimers())
        template = generate_game(random.Random(1), 1, hands=4, players=("a", "b", "c"), start=now - timedelta(hours=3))
        prepared = []
        for i in range(calls):
            players = (f"igrac{i}", f"drugi{i}", f"treci{i}")
            game = replace(template, number=10_000 + i, players=players, ended_at=now - timedelta(hours=1))
            prepared.append(PreparedGame.of(game))
        await db.games.store(prepared, now)
        callers = [await db.members.link("bench", f"igrac{i}", f"igrac{i}", now) for i in range(calls)]
        judges: list[Member] = []
        for i in range(referees):
            member = await db.members.link("bench", f"sudija{i}", f"sudija{i}", now)
            await db.members.set_role(member.id, "referee", True, None, now)
            await db.members.set_presence(member.id, True, now)
            judges.append(member)
        judges = [m for m in [await db.members.get(j.id) for j in judges] if m is not None]
        if database is not None:  # the statistics the server's autovacuum keeps of a running club's tables
            await db.connection.execute("ANALYZE")
        others = [await _press_worker(database, now, judges[p::processes]) for p in range(1, processes) if database]
        judges = judges[::processes]
        call_ms: list[float] = []
        take_ms: list[float] = []
        # What each call costs in CPU, which a busy machine's waits do not inflate as they do its latency: this
        # process (the desk, and SQLite's thread) and, on a local server, the PostgreSQL backend serving it.
        call_cpu = server_cpu = 0.0
        backend = None
        if database is not None:
            (pid,) = (await db.connection.execute_fetchall("SELECT pg_backend_pid()", ()))[0]
            backend = local_backend(int(pid))
        winners_per_call: list[int] = []
        started = time.perf_counter()
        for i, caller in enumerate(callers):
            s0, c0, t0 = backend_cpu(backend), time.process_time(), time.perf_counter()
            reply = await desk.calls.call(caller, 10_000 + i)
            call_ms.append((time.perf_counter() - t0) * 1000)
            call_cpu += time.process_time() - c0
            server_cpu += backend_cpu(backend) - s0
            assert reply.ok, reply.text
            pending = await db.calls.pending_by_caller(caller.id)
            assert pending is not None

            async def press(referee: Member, call_id: int = pending.id) -> bool:
                t1 = time.perf_counter()
                result = await desk.trials.take(referee, call_id)
                take_ms.append((time.perf_counter() - t1) * 1000)
                return result.ok

            for worker in others:
                assert worker.stdin is not None
                worker.stdin.write(f"{pending.id}\n".encode())
            results = await asyncio.gather(*(press(r) for r in judges))
            won = sum(results)
            for worker in others:  # each pressed at once with its referees, and judged the trial if it won
                assert worker.stdout is not None
                answer = json.loads(await worker.stdout.readline())
                take_ms.extend(answer["ms"])
                won += answer["won"]
            winners_per_call.append(won)
            if any(results):
                trial = await db.trials.open_for_game(10_000 + i)
                assert trial is not None
                winner = next(j for j in judges if j.id == trial.referee)
                await desk.draft(winner, Draft(NoVerdict(), "bench"))
                await desk.finish(winner)
        elapsed = time.perf_counter() - started
        for worker in others:
            assert worker.stdin is not None
            worker.stdin.close()
            await worker.wait()
        await db.close()
    one_winner = all(n == 1 for n in winners_per_call)
    mode = "synchronous=FULL (as the bot runs)" if durable else "synchronous=NORMAL (baseline: no power-loss safety)"
    if database is not None:
        mode = "PostgreSQL (synchronous_commit as the server sets it)"
        mode += f", referees spread over {processes} processes" if processes > 1 else ""
    name = f"PostgreSQL x{processes}" if processes > 1 else "PostgreSQL"
    figures[name if database else ("SQLite FULL" if durable else "SQLite NORMAL")] = (
        percentile(call_ms, 0.5),
        percentile(call_ms, 0.99),
        percentile(take_ms, 0.5),
        percentile(take_ms, 0.99),
    )
    print(f"{mode}; calls: {calls}, referees pressing each call: {referees}, wall time {elapsed:.1f} s")
    for name, values in (("/sudija", call_ms), ("Sudi", take_ms)):
        p50, p99 = percentile(values, 0.50), percentile(values, 0.99)
        print(
            f"{name:8} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  mean {statistics.fmean(values):6.2f} ms"
            f"  (p99 / {DESK_P99.bound:g} ms target = {p99 / DESK_P99.bound:.2f})"
        )
    cpu = f"/sudija CPU per call: this process {call_cpu / calls * 1000:.2f} ms"
    if backend is not None:
        cpu += f", the PostgreSQL backend serving it {server_cpu / calls * 1000:.2f} ms"
    print(cpu)
    print(f"exactly one winner per call: {one_winner}")
    return 0 if one_winner else 1


async def _press_worker(database: str | None, now: datetime, referees: list[Member]) -> asyncio.subprocess.Process:
    """Another bot process pressing with `referees` (this file, ``--press-worker``), connected and ready."""
    assert database is not None
    worker = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--press-worker",
        database,
        now.isoformat(),
        ",".join(r.nick for r in referees),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert worker.stdout is not None
    assert (await worker.stdout.readline()).strip() == b"ready"
    return worker


async def press_worker(database: str, now: datetime, nicks: list[str]) -> None:
    """For each call id read on standard input: every referee presses Sudi at once; one that wins judges the
    trial to its end; one line out: the presses' latencies and how many won."""
    # A bot process as `sudija run` builds one on PostgreSQL beside the one holding the gateway: its safety sweep
    # and chat outbox worker running, woken by every other process's commit (LISTEN/NOTIFY).
    app = await build_app(Config(), clock=ManualClock(now), timers=ManualTimers(), database=database, sweep=True)
    await app.desk.start()
    db, desk = app.db, app.desk
    referees = [m for m in [await db.members.by_nick(n) for n in nicks] if m is not None]
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        call_id = int(line)
        ms: list[float] = []

        async def press(referee: Member, call_id: int = call_id, ms: list[float] = ms) -> bool:
            t1 = time.perf_counter()
            result = await desk.trials.take(referee, call_id)
            ms.append((time.perf_counter() - t1) * 1000)
            return result.ok

        results = await asyncio.gather(*(press(r) for r in referees))
        for referee, ok in zip(referees, results, strict=True):
            if ok:
                await desk.draft(referee, Draft(NoVerdict(), "bench"))
                await desk.finish(referee)
        print(json.dumps({"ms": ms, "won": sum(results)}), flush=True)
    await app.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--press-worker"]:
        sys.exit(asyncio.run(press_worker(sys.argv[2], datetime.fromisoformat(sys.argv[3]), sys.argv[4].split(","))))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--referees", type=int, default=50)
    parser.add_argument("--compare", action="store_true", help="also run with every commit NORMAL, for the cost")
    parser.add_argument("--database", metavar="URL", help="also on this PostgreSQL database (postgresql://…)")
    parser.add_argument("--processes", type=int, default=1, help="with --database: also over N bot processes")
    args = parser.parse_args()
    if args.database is not None and not is_postgres(args.database):
        parser.error("--database takes a PostgreSQL address (postgresql://…); SQLite always runs")
    if args.processes > 1 and args.database is None:
        parser.error("--processes needs --database: several processes share a PostgreSQL database")
    sys.exit(asyncio.run(main(args.calls, args.referees, args.compare, args.database, max(1, args.processes))))
