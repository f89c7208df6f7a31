"""`/metrics` and `/healthz` of `sudija run` (bot/http.py, bot/metrics.py): a console club is piped a script line by
line, and between the lines its `/metrics` is read as Prometheus would and parsed with `prometheus_client.parser`:
the calls, takes and commands counters and the press → answer histogram move as the club works; `/healthz` says
the database is reachable and the gateway held. And the journal (bot/logs.py): one event per command with its
club, use case, ids and latency, never the text a member typed at info."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import logs
from bot.config import ConfigError, from_dict

ROOT = Path(__file__).resolve().parent.parent
HANG = 60  # seconds: fails only on a hang


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics: (name, sorted labels without the club) → value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=HANG) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain")
        text = answer.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "club"))
            samples[(sample.name, labels)] = sample.value
    return samples


class Club:
    """`sudija run` with no token (the console club) and [http] on, fed a line at a time."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        config = tmp_path / "config.toml"
        config.write_text(f"[http]\nport = {self.port}\n", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "run", "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env={**env, "PYTHONPATH": str(ROOT)},
        )
        self.steps = 0

    def do(self, line: str) -> list[str]:
        """Send `line` and wait until the club has done it (a comment line after it comes back)."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.steps += 1
        marker = f"# step {self.steps} done"
        self.process.stdin.write(f"{line}\n{marker}\n")
        self.process.stdin.flush()
        said = []
        for out in self.process.stdout:
            if out.rstrip("\n") == marker:
                return said
            said.append(out)
        raise AssertionError(f"the club ended before {line!r} was done: {''.join(said)}")

    def end(self) -> subprocess.CompletedProcess[str]:
        out, err = self.process.communicate(timeout=HANG)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    running = Club(tmp_path)
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
            running.process.communicate(timeout=HANG)


def test_metrics_move_as_a_console_club_works(club: Club) -> None:
    club.do("!who")
    before = scrape(club.port)
    assert before.get(("sudija_calls_total", (("kind", "in_game"),)), 0.0) == 0.0
    said = club.do("@marko /sudija")
    assert any("1847320" in line for line in said)
    after_call = scrape(club.port)
    assert after_call[("sudija_calls_total", (("kind", "in_game"),))] == 1.0
    command = (("command", "sudija"), ("outcome", "ok"), ("platform", "text"))  # typed: the text front end's
    assert after_call[("sudija_commands_total", command)] == 1.0
    assert after_call[("sudija_command_seconds_count", (("platform", "text"),))] == 1.0
    assert after_call.get(("sudija_takes_total", (("kind", "in_game"),)), 0.0) == 0.0
    club.do("@ana !press Sudi")
    after_take = scrape(club.port)
    assert after_take[("sudija_takes_total", (("kind", "in_game"),))] == 1.0
    assert after_take[("sudija_trials_total", (("kind", "in_game"), ("outcome", "open")))] == 1.0
    assert after_take[("sudija_press_seconds_count", (("platform", "console"),))] == 1.0
    infinite = ("sudija_press_seconds_bucket", (("le", "+Inf"), ("platform", "console")))
    assert after_take[infinite] == 1.0
    press = (("action", "take"), ("outcome", "ok"), ("platform", "console"))
    assert after_take[("sudija_presses_total", press)] == 1.0
    assert ("sudija_oldest_waiting_seconds", (("outbox", "chat"),)) in after_take
    assert after_take[("sudija_gateway_held", ())] == 1.0
    with urllib.request.urlopen(f"http://127.0.0.1:{club.port}/healthz", timeout=HANG) as answer:
        health = json.loads(answer.read())
    assert answer.status == 200
    assert health["status"] == "ok"
    [(name, state)] = health["clubs"].items()
    assert name == "klub"
    assert state["database"] == "ok"
    assert state["gateway"] == "held"
    assert state["oldest_effect_seconds"] >= 0
    done = club.end()
    assert done.returncode == 0, done.stderr


def test_log_and_http_settings_are_checked_like_the_rest() -> None:
    assert from_dict({"log": {"level": "debug", "format": "json"}, "http": {"port": 9464}}).http.enabled
    for bad, says in [
        ({"log": {"levle": "info"}}, "levle"),
        ({"log": {"level": "loud"}}, "log.level must be one of debug, info, warning, error"),
        ({"log": {"format": "xml"}}, 'log.format must be "text" or "json"'),
        ({"logs": {"level": "info"}}, "[logs] is not a section of the configuration"),
        ({"http": {"port": 70000}}, "http.port must be from 1 to 65535"),
        ({"http": "on"}, "[http] must be a section of settings"),
    ]:
        with pytest.raises(ConfigError, match=None) as refused:
            from_dict(bad)
        assert says in str(refused.value), bad


@pytest.fixture
def journal(capsys: pytest.CaptureFixture[str]) -> Iterator[pytest.CaptureFixture[str]]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield capsys
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


async def test_each_command_is_one_json_event_without_what_the_member_typed(
    tmp_path: Path, journal: pytest.CaptureFixture[str]
) -> None:
    import io  # noqa: PLC0415 (imported where the test needs it)

    from bot.config import Config  # noqa: PLC0415 (imported where the test needs it)
    from bot.console.runner import run_console  # noqa: PLC0415 (imported where the test needs it)

    logs.configure("info", "json")
    secret = "tajni razlog koji niko ne sme da procita"
    script = f"@marko /sudija\n@ana !press Sudi\n@marko /zalba 1 -- {secret}\n"
    token = logs.SERVING.set("klub")
    try:
        await run_console(Config(), str(tmp_path / "d.db"), True, io.StringIO(script), io.StringIO(), io.StringIO())
    finally:
        logs.SERVING.reset(token)
    lines = [line for line in journal.readouterr().err.splitlines() if line.startswith("{")]
    events = [json.loads(line) for line in lines]
    [call] = [e for e in events if e.get("use_case") == "sudija"]
    assert call["club"] == "klub"
    assert call["level"] == "info"
    assert call["platform"] == "text"
    assert call["outcome"] == "ok"
    assert isinstance(call["latency_ms"], float)
    [press] = [e for e in events if e.get("use_case") == "press:take"]
    assert isinstance(press["ref"], int)
    [appeal] = [e for e in events if e.get("use_case") == "zalba"]
    assert appeal["outcome"] in ("ok", "refused")
    assert not any(secret in line for line in lines)  # never what a member typed, at info


def test_a_members_text_is_written_only_at_debug(journal: pytest.CaptureFixture[str]) -> None:
    logs.configure("debug", "text")
    logs.event("use case", {"use_case": "zalba", "trial": 3}, {"text": "moje obrazloženje"})
    logs.configure("info", "text")
    logs.event("use case", {"use_case": "zalba", "trial": 4}, {"text": "drugo obrazloženje"})
    err = journal.readouterr().err.splitlines()
    assert err[0].endswith("sudija.events: use case use_case=zalba trial=3 text=moje obrazloženje")
    assert " DEBUG [-] " in err[0]
    assert err[1].endswith("sudija.events: use case use_case=zalba trial=4")
    assert " INFO [-] " in err[1]
