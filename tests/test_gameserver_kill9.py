"""Durability of the outbox through a real `kill -9`: the bot killed between a decision (an in-game trial opened,
so its table must be paused) and the command's delivery sends it exactly once after the restart; and a command
the game server took whose acknowledgement the bot never recorded is sent again under the same idempotency key,
which the game server does not do twice."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from linked import SECRET, make_linked
from test_kill9 import ROOT, read_until

from bot.gameserver.reference import ReferenceGameServer
from bot.ports import SystemClock


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_config(tmp_path: Path, server_port: int) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[gameserver]\nurl = "http://127.0.0.1:{server_port}"\nhost = "127.0.0.1"\n'
        f'port = {free_port()}\nsecret_env = "SUDIJA_TEST_LINK_SECRET"\n',
        encoding="utf-8",
    )
    return config


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    env["PYTHONPATH"] = str(ROOT)
    env["SUDIJA_TEST_LINK_SECRET"] = SECRET.decode()
    return env


def pending(db: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(db) as conn:
        return [
            (str(k), str(s), int(a)) for k, s, a in conn.execute("SELECT kind, state, attempts FROM outbox ORDER BY id")
        ]


async def test_a_command_survives_kill_9_and_is_delivered_once_after_the_restart(tmp_path: Path) -> None:
    server_port = free_port()
    config = write_config(tmp_path, server_port)
    db = tmp_path / "club.db"
    first = subprocess.Popen(  # noqa: ASYNC220 (the child runs beside the test)
        [
            sys.executable,
            "-m",
            "bot",
            "--config",
            str(config),
            "console",
            "--demo",
            "--db",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env=environment(),
    )
    try:
        assert first.stdin is not None
        first.stdin.write("@marko /sudija\n@ana !press Sudi\n")  # marko sits at the demo's table
        first.stdin.flush()
        await asyncio.to_thread(read_until, first, "[dm ana]")
        os.kill(first.pid, signal.SIGKILL)  # the game server is not up yet: nothing can have been delivered
        await asyncio.to_thread(first.wait, 30)
    finally:
        if first.poll() is None:
            first.kill()
    # pending, however many tries the worker made against the game server that was not up yet
    assert [s for k, s, _ in pending(db) if k == "pause_table"] == ["pending"]
    received: list[str] = []
    ref = ReferenceGameServer("http://127.0.0.1:1", SECRET, SystemClock().now, say=received.append)
    from bot.demo import TABLE, demo_games  # noqa: PLC0415 (imported where the test needs it)

    ref.add_table(next(g for g in demo_games(SystemClock().now()) if g.number == TABLE))
    server = TestServer(ref.app(), host="127.0.0.1", port=server_port)
    await server.start_server()
    try:
        second = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "--config",
            str(config),
            "console",
            "--db",
            str(db),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=tmp_path,
            env=environment(),
        )
        out, _ = await asyncio.wait_for(second.communicate(), 120)
        assert second.returncode == 0, out.decode()
    finally:
        await server.close()
    pauses = [(key, data) for key, kind, data in ref.received if kind == "pause_table"]
    assert pauses == [(pauses[0][0], {"game": TABLE})]  # exactly once, though the restart asked again
    assert ref.tables[TABLE].paused
    assert [s for k, s, _ in pending(db) if k == "pause_table"] == ["sent"]


async def test_a_delivered_command_whose_acknowledgement_was_lost_is_not_done_twice(tmp_path: Path) -> None:
    linked = await make_linked(tmp_path)
    try:
        linked.table(800)
        await linked.ref.tables[800].step()
        await linked.desk.deps.game_server.pause_table(800)
        store = linked.link.worker.store
        real_end = store.end  # where a command's end (here: sent) is recorded

        async def crash(*_: object) -> None:
            raise RuntimeError("killed before the acknowledgement was recorded")

        store.end = crash  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            await linked.flush()
        store.end = real_end  # type: ignore[method-assign]
        assert [k for _, k, _ in linked.ref.received] == ["pause_table"]
        assert await linked.flush() == 1  # sent again, same key: acknowledged as a duplicate
        assert [k for _, k, _ in linked.ref.received] == ["pause_table"]
        assert (await store.counts()) == {"sent": 1}
    finally:
        await linked.close()
