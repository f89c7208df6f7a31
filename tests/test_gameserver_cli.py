"""`sudija gameserver --demo` (the reference game server beside the console club) and `sudija gameserver-check URL`
(the conformance check) through their command lines."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from linked import SECRET, live_game

from bot.cli import main
from bot.gameserver.reference import ReferenceGameServer
from bot.ports import SystemClock

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_shows_the_whole_loop(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    env["PYTHONPATH"] = str(ROOT)
    script = "!who\n@bojan /sudija\n@ana !press Sudi\n@ana /presuda bez -- nema osnova\n@ana /zavrsi\n"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "gameserver",
            "--demo",
            "--db",
            str(tmp_path / "d.db"),
            "--steps",
            "8",
            "--interval",
            "60",
        ],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "bojan      na mreži · za stolom 1900001" in out  # the live table's players sat down
    assert "Poziv sudiji za partiju 1900001 (u toku)" in out  # /sudija at the table reaches its game
    assert "[server] pause_table 1900001" in out
    assert "[server] resume_table 1900001" in out
    assert out.index("[server] pause_table") < out.index("[server] resume_table")


async def reference_server(game: int) -> tuple[ReferenceGameServer, TestServer]:
    ref = ReferenceGameServer("http://127.0.0.1:1", SECRET, SystemClock().now)
    ref.add_table(live_game(game, ("ana", "marko", "petar"), 2))
    server = TestServer(ref.app(), host="127.0.0.1")
    await server.start_server()
    return ref, server


async def test_the_check_from_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, server = await reference_server(43)
    try:
        monkeypatch.delenv("SUDIJA_TEST_CHECK_SECRET", raising=False)
        url = str(server.make_url("/"))
        args = ["gameserver-check", url, "--secret-env", "SUDIJA_TEST_CHECK_SECRET", "--lang", "en"]
        assert await asyncio.to_thread(main, args) == 2  # no secret: a usage error, nothing sent
        assert ref.received == []
        monkeypatch.setenv("SUDIJA_TEST_CHECK_SECRET", SECRET.decode())
        assert await asyncio.to_thread(main, args) == 0
        out = capsys.readouterr().out
        assert "All" in out
        assert "checks passed" in out
        assert "ok   the test table: game 900000001" in out
        assert all(data.get("game", 900000001) == 900000001 for _, _, data in ref.received)  # never table 43
        with pytest.raises(SystemExit) as usage:  # argparse's own answer to a bad --listen
            await asyncio.to_thread(main, [*args, "--listen", "nowhere"])
        assert usage.value.code == 2
        assert "HOST:PORT" in capsys.readouterr().err
        assert (
            await asyncio.to_thread(main, ["gameserver-check", "ftp://x", "--secret-env", "SUDIJA_TEST_CHECK_SECRET"])
            == 2
        )
    finally:
        await server.close()


async def test_the_console_serves_the_events_endpoint_while_its_script_waits_for_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script piped in line by line: between two lines the game server's events are taken (the console does
    not block its event loop reading the next line)."""
    import io  # noqa: PLC0415 (imported where the test needs it)
    import threading  # noqa: PLC0415 (imported where the test needs it)
    import urllib.error  # noqa: PLC0415 (imported where the test needs it)
    import urllib.request  # noqa: PLC0415 (imported where the test needs it)
    from dataclasses import replace  # noqa: PLC0415 (imported where the test needs it)

    from test_gameserver_kill9 import free_port  # noqa: PLC0415 (imported where the test needs it)

    from bot.config import Config, GameServerConfig  # noqa: PLC0415 (imported where the test needs it)
    from bot.console.runner import run_console  # noqa: PLC0415 (imported where the test needs it)
    from bot.gameserver.protocol import encode, signed_headers  # noqa: PLC0415 (imported where the test needs it)

    monkeypatch.setenv("SUDIJA_TEST_CONSOLE_SECRET", SECRET.decode())
    _ref, server = await reference_server(44)
    port = free_port()
    config = replace(
        Config(),
        gameserver=GameServerConfig(
            url=str(server.make_url("/")), host="127.0.0.1", port=port, secret_env="SUDIJA_TEST_CONSOLE_SECRET"
        ),
    )
    read_end, write_end = os.pipe()
    answers: list[object] = []

    def game_server_and_operator() -> None:
        with os.fdopen(write_end, "w") as typed:
            typed.write("!who\n")
            typed.flush()
            body = encode({"v": 1, "id": "x-1", "type": "offer_made", "data": {"nick": "ana", "offer": "o1"}})
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/v1/events",
                data=body,
                headers=signed_headers(SECRET, body, SystemClock().now()),
                method="POST",
            )
            for _ in range(100):  # the endpoint listens once the console has started
                try:
                    with urllib.request.urlopen(request, timeout=10) as answer:
                        answers.append(answer.status)
                        break
                except urllib.error.URLError as exc:
                    if not isinstance(exc.reason, ConnectionRefusedError):
                        answers.append(exc)  # a timeout: the console's loop is blocked on the pipe
                        break
                    threading.Event().wait(0.1)
                except OSError as exc:
                    answers.append(exc)
                    break
            typed.write("!who\n")

    helper = threading.Thread(target=game_server_and_operator)
    helper.start()
    try:
        with os.fdopen(read_end) as stdin:
            status = await run_console(config, str(tmp_path / "c.db"), True, stdin, io.StringIO(), io.StringIO())
    finally:
        await asyncio.to_thread(helper.join)
        await server.close()
    assert status == 0
    assert answers == [200]
