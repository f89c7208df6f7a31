"""Durability through a real `kill -9`: a bot process killed mid-call loses nothing; the next one acts on it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start(tmp_path: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "console", "--demo", "--db", str(tmp_path / "club.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env=env,
    )


def read_until(process: subprocess.Popen[str], wanted: str, seconds: float = 60) -> str:
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen += line
    assert wanted in seen, seen
    return seen


def test_a_call_survives_kill_9_and_expires_in_the_next_process(tmp_path: Path) -> None:
    first = start(tmp_path)
    try:
        assert first.stdin is not None
        first.stdin.write("@marko /sudija\n")
        first.stdin.flush()
        read_until(first, "[dm marko] Pozvan je sudija")
        os.kill(first.pid, signal.SIGKILL)  # no clean shutdown: only what the database holds survives
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    second = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", str(tmp_path / "club.db")],
        input="!clock +6m\n@marko /sudija\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert second.returncode == 0, second.stderr
    assert "Nijedan sudija nije odgovorio" in second.stdout  # the surviving call expired in the new process
    assert "Pozvan je sudija" in second.stdout  # and marko may call again
