"""PostgreSQL as the second backend: the dialect's translation, the migrations in both dialects, and what only
PostgreSQL does — a busy writer, constraint errors, the club's gateway lock (one process holds it, another takes it
over), outbox leases released only for processes that are gone, and bot processes pressing Sudi on the same
calls (exactly one referee wins each; tests/test_cross_process.py for several serving at once). The stores' own
behaviour is the rest of the suite, run on both backends (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.app import StandbyStopped, build_app, take_gateway
from bot.chat_outbox import tell
from bot.cli import main as cli_main
from bot.config import Config
from bot.ports import ManualTimers
from club import NOW, Club, make_club
from storage.chat_outbox import ChatOutboxStore
from storage.database import migrations, open_database
from storage.errors import Conflict, DatabaseBusy
from storage.outbox import OutboxStore
from storage.pg_dialect import Catalog, translate
from storage.pg_gateway import GatewayLock, GatewayLost
from storage.postgres import WRITE_LOCK, PostgresDatabase

CATALOG = Catalog({"seating": ("member",), "calls": ("id",), "pings": ("call", "member")}, {"calls": "id"})
PRESS = Path(__file__).parent / "pg_press.py"


def test_every_migration_number_has_both_dialects() -> None:
    sqlite = [(number, name.removesuffix(".sql")) for number, name, _ in migrations("sqlite")]
    postgres = [(number, name.removesuffix(".pg.sql")) for number, name, _ in migrations("postgresql")]
    assert sqlite, "no migrations found"
    assert postgres == sqlite, "each NNNN_name.sql needs its NNNN_name.pg.sql (storage/migrations/README.md)"


def test_placeholders_are_numbered_outside_quotes_only() -> None:
    out = translate("SELECT '?', \"a?\" FROM t WHERE a = ? AND b IN (?, ?)", CATALOG)
    assert out.text == "SELECT '?', \"a?\" FROM t WHERE a = $1 AND b IN ($2, $3)"
    assert out.rows
    assert not out.rowid


def test_insert_or_ignore_and_or_replace_become_on_conflict() -> None:
    ignore = translate("INSERT OR IGNORE INTO pings (call, member) VALUES (?, ?)", CATALOG)
    assert ignore.text == "INSERT INTO pings (call, member) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    replace = translate("INSERT OR REPLACE INTO seating (member, game, since) VALUES (?, ?, ?)", CATALOG)
    assert replace.text == (
        "INSERT INTO seating (member, game, since) VALUES ($1, $2, $3)"
        " ON CONFLICT (member) DO UPDATE SET game = EXCLUDED.game, since = EXCLUDED.since"
    )
    with pytest.raises(ValueError, match="primary key"):
        translate("INSERT OR REPLACE INTO nowhere (a) VALUES (?)", CATALOG)


def test_an_insert_into_a_rowid_table_returns_its_id_for_lastrowid() -> None:
    out = translate("INSERT INTO calls (game) VALUES (?)", CATALOG)
    assert out.text == "INSERT INTO calls (game) VALUES ($1) RETURNING id"
    assert out.rows
    assert out.rowid
    ignored = translate("INSERT OR IGNORE INTO calls (game) VALUES (?)", CATALOG)
    assert ignored.text == "INSERT INTO calls (game) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id"
    assert not translate("UPDATE calls SET game = ? WHERE id = ?", CATALOG).rows


def test_functions_sqlite_spells_its_own_way() -> None:
    out = translate(
        "SELECT group_concat(role), group_concat(a.platform || ':' || a.account, char(31)),"
        " json_extract(t.verdict, '$.kind') FROM x",
        CATALOG,
    )
    assert out.text == (
        "SELECT string_agg(role, ','), string_agg(a.platform || ':' || a.account, chr(31)),"
        " (t.verdict::jsonb ->> 'kind') FROM x"
    )
    keys = translate("SELECT k.value FROM json_each(?) AS k WHERE k.value IN (SELECT value FROM JSON_EACH(?))", CATALOG)
    assert keys.text == (
        "SELECT k.value FROM json_array_elements_text($1) AS k"
        " WHERE k.value IN (SELECT value FROM json_array_elements_text($2))"
    )


def test_an_unreachable_server_is_a_message_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql://sudija:secret@/club?host={tmp_path}/no-server"
    assert cli_main(["games", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cannot open the PostgreSQL database postgresql://sudija:***@/club?host="), err
    assert "secret" not in err
    assert "Traceback" not in err


async def test_a_writer_waits_for_another_process_then_is_busy_and_writes_nothing(pg_url: str) -> None:
    db = await open_database(pg_url, busy_timeout_ms=100)
    assert isinstance(db, PostgresDatabase)
    other = await asyncpg.connect(pg_url)
    try:
        async with other.transaction():  # another process of the club mid-write (the club's write lock)
            await other.execute("SELECT pg_advisory_xact_lock($1, $2)", WRITE_LOCK, db.club_key)
            with pytest.raises(DatabaseBusy):
                await db.members.link("test", "1", "duh", NOW)
        assert await db.members.by_nick("duh") is None
        async with db.transaction() as conn:  # the lock released: the next write goes through
            await conn.execute("INSERT INTO members (nick, created_at) VALUES ('duh', 'x')")
        assert await db.members.by_nick("DUH") is not None  # COLLATE NOCASE, as on SQLite
    finally:
        await other.close()
        await db.close()


async def test_a_constraint_is_the_conflict_the_stores_catch_and_the_transaction_rolls_back(
    pg_url: str,
) -> None:
    db = await open_database(pg_url)

    async def twice() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO members (nick, created_at) VALUES ('ana', 'x')")
            await conn.execute("INSERT INTO members (nick, created_at) VALUES ('ANA', 'y')")

    try:
        with pytest.raises(Conflict):
            await twice()
        assert await db.members.by_nick("ana") is None
        cur = await db.connection.execute("INSERT INTO members (nick, created_at) VALUES ('ana', 'x')")
        assert cur.lastrowid is not None
        assert cur.rowcount == 1
        assert await db.connection.execute_fetchall("SELECT id, nick FROM members") == [(cur.lastrowid, "ana")]
    finally:
        await db.close()


async def test_one_process_holds_the_gateway_and_a_second_serving_the_same_database_waits_for_it(
    pg_url: str,
) -> None:
    first = await build_app(Config(), database=pg_url, timers=ManualTimers(), sweep=False)
    second = await build_app(Config(), database=pg_url, timers=ManualTimers(), sweep=False)  # both serve at once
    try:
        gateway = await take_gateway(first)
        told: list[str] = []
        standing_by = asyncio.Event()
        waiting = asyncio.ensure_future(take_gateway(second, waiting=lambda h: (told.append(h), standing_by.set())))
        await asyncio.wait_for(standing_by.wait(), 10)
        assert told[0].startswith("server process "), told
        assert " for a client on " in told[0], told
        assert not waiting.done()
        assert await GatewayLock(pg_url).holder() == told[0]
        await gateway.release()  # the first stops receiving events: the second holds the gateway at once
        taken = await asyncio.wait_for(waiting, 10)
        assert taken.held
        await taken.release()
        assert await GatewayLock(pg_url).holder() is None
    finally:
        await first.close()
        await second.close()


async def test_a_process_waiting_for_the_gateway_takes_it_over_the_moment_its_holder_is_killed(pg_url: str) -> None:
    serving = await asyncio.create_subprocess_exec(
        sys.executable, str(PRESS), pg_url, "hold", stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    app = await build_app(Config(), database=pg_url, timers=ManualTimers(), sweep=False)
    try:
        assert serving.stdout is not None
        assert (await serving.stdout.readline()).strip() == b"ready"  # it holds the club's gateway
        told: list[str] = []
        standing_by = asyncio.Event()

        def waiting(holder: str) -> None:
            told.append(holder)
            standing_by.set()

        taking_over = asyncio.ensure_future(take_gateway(app, waiting=waiting))
        await asyncio.wait_for(standing_by.wait(), 10)
        assert not taking_over.done()
        assert told[0].startswith("server process ")
        serving.kill()  # SIGKILL: nothing of it runs again
        await serving.wait()
        gateway = await asyncio.wait_for(taking_over, 10)  # its connection gone, the lock is this process's
        assert gateway.held
        second = await build_app(Config(), database=pg_url, timers=ManualTimers(), sweep=False)
        try:
            stopping = asyncio.Event()
            with pytest.raises(StandbyStopped):  # a third process stands by, and stops when asked to
                await take_gateway(second, waiting=lambda _holder: stopping.set(), stopping=stopping)
        finally:
            await second.close()
        await gateway.release()
    finally:
        if serving.returncode is None:
            serving.kill()
            await serving.wait()
        await app.close()
    again = await build_app(Config(), database=pg_url, timers=ManualTimers(), sweep=False)
    try:
        assert (await take_gateway(again)).held  # the stopped standby left no lock behind
    finally:
        await again.close()


async def test_a_process_releases_only_the_outbox_leases_of_processes_that_are_gone(pg_url: str) -> None:
    alive = await open_database(pg_url)
    other = await open_database(pg_url)
    try:
        await ChatOutboxStore(alive).enqueue([tell(1, 1, "a"), tell(2, 1, "b")], NOW)
        command = await OutboxStore(alive).enqueue("game:1", "pause_table", {"game": 1}, NOW)
        assert command is not None
        effects = await ChatOutboxStore(alive).due(NOW)
        assert await ChatOutboxStore(alive).lease(effects[0].id, NOW, NOW + timedelta(minutes=2))
        assert await OutboxStore(alive).lease(command, NOW, NOW + timedelta(minutes=2))
        assert await ChatOutboxStore(other).lease(effects[1].id, NOW, NOW + timedelta(minutes=2))
        assert await ChatOutboxStore(other).release_dead() == 0  # the holders are both alive
        assert await OutboxStore(other).release_dead() == 0
        assert await ChatOutboxStore(other).lease(effects[0].id, NOW, NOW + timedelta(minutes=2)) is False
        await alive.close()  # as when its process is killed: its connection gone
        assert await ChatOutboxStore(other).release_dead() == 1  # the gone process's lease only
        assert await OutboxStore(other).release_dead() == 1
        assert await ChatOutboxStore(other).lease(effects[0].id, NOW, NOW + timedelta(minutes=2))
        assert await ChatOutboxStore(other).lease(effects[1].id, NOW, NOW + timedelta(minutes=2)) is False
    finally:
        await other.close()


async def _club_of_calls(
    tmp_path: Path, url: str, calls: int, referees: int = 2
) -> tuple[Club, list[tuple[int, str, str]]]:
    """A club on `url` with `calls` pending calls, each with two referees of its own (a and b of its number) when
    `referees` is 2."""
    import club as club_module  # noqa: PLC0415 (the test names its own database)

    club_module.POSTGRES.append(url)
    try:
        club = await make_club(tmp_path)
    finally:
        club_module.POSTGRES.remove(url)
    out = []
    for i in range(1, calls + 1):
        caller = await club.member(f"igrac{i}")
        if referees:
            await club.member(f"sudija{i}a", "referee")
            await club.member(f"sudija{i}b", "referee")
        await club.game(100 + i, (f"igrac{i}", "marko", "petar"), ended_ago=timedelta(minutes=30), hands=2)
        assert (await club.desk.calls.call(caller, 100 + i)).ok
        call = await club.db.calls.pending_for_game(100 + i)
        assert call is not None
        out.append((call.id, f"sudija{i}a", f"sudija{i}b"))
    return club, out


async def _at_once(*commands: list[str]) -> list[Any]:
    """Start a bot process per command, wait until each is connected, let all act at once: what each printed."""
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable, str(PRESS), *command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        for command in commands
    ]
    for process in processes:
        assert process.stdout is not None
        assert (await process.stdout.readline()).strip() == b"ready"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    outputs = [await process.communicate() for process in processes]
    assert [process.returncode for process in processes] == [0] * len(processes)
    return [json.loads(out.decode()) for out, _ in outputs]


async def test_two_bot_processes_pressing_sudi_on_the_same_calls_give_each_call_exactly_one_referee(
    tmp_path: Path, pg_url: str
) -> None:
    club, calls = await _club_of_calls(tmp_path, pg_url, 8)
    try:
        won = await _at_once(
            *([pg_url, "sudi", *(f"{names[side]}:{call}" for call, *names in calls)] for side in (0, 1))
        )
        for call, a, b in calls:
            winners = [side for side in (0, 1) if won[side][str(call)]]
            assert len(winners) == 1, (call, won)
            stored = await club.db.calls.get(call)
            assert stored is not None
            assert stored.state == "taken"
            expected = await club.get((a, b)[winners[0]])
            assert stored.referee == expected.id
            trials = await club.db.connection.execute_fetchall("SELECT referee FROM trials WHERE call = ?", (call,))
            assert trials == [(expected.id,)]
    finally:
        await club.db.close()


async def test_three_bot_processes_running_the_due_work_expire_each_call_once_and_tell_its_caller_once(
    tmp_path: Path, pg_url: str
) -> None:
    club, calls = await _club_of_calls(tmp_path, pg_url, 8)
    try:
        told = await _at_once(*([pg_url, "due", "10"] for _ in range(3)))
        everyone = sorted(where for one in told for where in one)
        assert everyone == sorted(f"dm:igrac{i}" for i in range(1, len(calls) + 1)), told
        for call, _, _ in calls:
            stored = await club.db.calls.get(call)
            assert stored is not None
            assert stored.state == "expired"
        rows = await club.db.connection.execute_fetchall(
            "SELECT subject, count(*) FROM events WHERE kind = 'call_expired' GROUP BY subject"
        )
        assert sorted(rows) == sorted((f"call:{call}", 1) for call, _, _ in calls)
    finally:
        await club.db.close()


async def test_a_committed_deadline_or_effect_wakes_the_other_processes_and_nothing_else_does(pg_url: str) -> None:
    writer = await open_database(pg_url)
    other = await open_database(pg_url)
    heard: list[str] = []
    woken = asyncio.Event()

    def other_woken() -> None:
        heard.append("other")
        woken.set()

    try:
        assert isinstance(writer, PostgresDatabase)
        assert isinstance(other, PostgresDatabase)
        await writer.listen(lambda: heard.append("writer"))  # a process is not woken by its own writes
        await other.listen(other_woken)
        await writer.members.link("test", "1", "ana", NOW)  # no deadline, no effect: no wake

        async def rolled_back() -> None:
            async with writer.transaction() as conn:
                await OutboxStore.add(conn, "game:1", "pause_table", {"game": 1}, NOW)
                raise RuntimeError

        with pytest.raises(RuntimeError):
            await rolled_back()  # no commit: no wake
        assert await OutboxStore(writer).enqueue("game:1", "pause_table", {"game": 1}, NOW) is not None
        await asyncio.wait_for(woken.wait(), 5)
        assert other._listener is not None
        await other._listener.fetch("SELECT 1")  # every notification committed before is delivered by now
        assert heard == ["other"]
    finally:
        await writer.close()
        await other.close()


async def test_a_row_an_operator_sends_again_wakes_the_bot_processes_at_once(pg_url: str) -> None:
    """`sudija outbox [--chat] --retry` in a process of its own: the bots hear it at its commit, not a minute on."""
    operator = await open_database(pg_url)
    bot = await open_database(pg_url)
    woken = asyncio.Event()
    try:
        assert isinstance(bot, PostgresDatabase)
        await ChatOutboxStore(operator).enqueue([tell(1, 1, "a")], NOW)
        command = await OutboxStore(operator).enqueue("game:1", "pause_table", {"game": 1}, NOW)
        async with operator.transaction() as conn:
            await conn.execute("UPDATE chat_outbox SET state = 'dead'")
            await conn.execute("UPDATE outbox SET state = 'failed'")
        await bot.listen(woken.set)
        for table, row in ((ChatOutboxStore(operator), 1), (OutboxStore(operator), command)):
            woken.clear()
            assert row is not None
            assert await table.retry(row, "vesna", NOW) is not None
            await asyncio.wait_for(woken.wait(), 5)
    finally:
        await operator.close()
        await bot.close()


async def test_three_bot_processes_one_killed_midway_take_every_call_exactly_once(tmp_path: Path, pg_url: str) -> None:
    """Three processes, each with five referees pressing Sudi on every call at once and judging what they win to
    its end; the first is killed (SIGKILL) after its second win. Every call is taken once, by one referee; each
    trial a surviving process won ended once; the killed process left at most the trial it was judging open."""
    club, calls = await _club_of_calls(tmp_path, pg_url, 30, referees=0)
    try:
        for process in range(3):
            for i in range(5):
                await club.member(f"p{process}sudija{i}", "referee")
        ids = ",".join(str(call) for call, _, _ in calls)
        processes = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                str(PRESS),
                pg_url,
                "rounds",
                f"p{process}sudija",
                "5",
                ids,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            for process in range(3)
        ]
        for process in processes:
            assert process.stdout is not None
            assert (await process.stdout.readline()).strip() == b"ready"
        for process in processes:
            assert process.stdin is not None
            process.stdin.write(b"go\n")
            await process.stdin.drain()
        won: dict[int, list[str]] = {}
        victim = processes[0]
        assert victim.stdout is not None
        reported = 0
        while reported < 2:
            line = (await asyncio.wait_for(victim.stdout.readline(), 60)).decode().split()
            assert line != ["done"], "the first process ended before it could be killed midway"
            assert line, "the first process stopped by itself"
            won.setdefault(int(line[0]), []).append(line[1])
            reported += 1
        victim.kill()
        await victim.wait()
        for process in processes[1:]:
            out, _ = await asyncio.wait_for(process.communicate(), 120)
            assert process.returncode == 0
            lines = out.decode().split("\n")
            assert "done" in lines
            for line in lines:
                if line and line != "done":
                    call, nick = line.split()
                    won.setdefault(int(call), []).append(nick)
        assert all(len(nicks) == 1 for nicks in won.values()), won  # no call won twice
        left_open = []
        for call, _, _ in calls:
            stored = await club.db.calls.get(call)
            assert stored is not None
            assert stored.state == "taken"  # every call ended once: taken, never expired or taken again
            trials = await club.db.connection.execute_fetchall(
                "SELECT t.outcome, m.nick FROM trials t JOIN members m ON m.id = t.referee WHERE t.call = ?", (call,)
            )
            assert len(trials) == 1, (call, trials)
            outcome, nick = trials[0]
            if call in won:
                assert won[call] == [nick]
                assert outcome != "open"
            else:  # only the killed process can have won a call it never reported
                assert nick.startswith("p0"), (call, nick)
                if outcome == "open":
                    left_open.append(call)
        assert len(left_open) <= 1, left_open
        ended = await club.db.connection.execute_fetchall(
            "SELECT subject, count(*) FROM events"
            " WHERE kind IN ('trial_verdict', 'trial_no_verdict', 'trial_interrupted')"
            " GROUP BY subject HAVING count(*) > 1"
        )
        assert ended == []
    finally:
        await club.db.close()


async def test_a_holder_whose_lock_connection_is_cut_is_told_the_gateway_is_lost(pg_url: str) -> None:
    gateway = GatewayLock(pg_url)
    await gateway.take()
    admin = await asyncpg.connect(pg_url)
    try:
        watching = asyncio.ensure_future(gateway.watch(every=60))
        await asyncio.sleep(0)
        assert not watching.done()
        cut = await admin.fetchval(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'sudija-gateway'"
        )
        assert cut
        with pytest.raises(GatewayLost, match="another process may hold the gateway"):
            await asyncio.wait_for(watching, 10)  # at once: the connection's end, not the next check
        assert not gateway.held
        assert await GatewayLock(pg_url).holder() is None  # free for a process waiting on it
    finally:
        await gateway.release()
        await admin.close()
