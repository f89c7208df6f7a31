"""Chaos: a real console bot over a file database runs scripted club evenings (calls, Sudi, trial messages,
drafts, verdicts, withdrawals, expiries) and is killed with SIGKILL at seeded random points — between lines or
in the middle of one, after a random part of its output — and restarted, again and again; now and then another
process imports a game log beside it.

After each kill and each restart the invariants hold: no acknowledged call, press, draft, verdict or withdrawal
(nor any game an import reported) is lost; every call ends at most once and every ended call exactly once (one
closing event, matching its state); every deadline due by the club's stored clock is acted on within 10 s of the
restart; `integrity_check` and `foreign_key_check` are clean. And every chat effect happens exactly once, read from
what the bot printed: every call's notice is posted once, every trial's space opened once, every caller of an
expired call told once — never twice as a new message (a delivery repeated after a crash shows as an edit of
itself, ``(izmena)``), and after each restart none missing (the chat outbox is empty, nothing failed).
`make test` runs a short form (a few kills); `make chaos` the long one (``CHAOS_KILLS=200``). ``CHAOS_SEED``
picks the seed.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("CHAOS_KILLS", "4"))
SEED = int(os.environ.get("CHAOS_SEED", "22"))
RESTART_BOUND = 10.0  # seconds from a restart until every due deadline was acted on

EVENING = [
    "@milica /sudija 1847301",
    "@petar !press Sudi",
    "@milica Nikola je izašao usred devete ruke.",
    "@petar /presuda kazna nikola plavac 3 -- napustio partiju",
    "@petar /presuda bez -- nema dokaza",
    "@petar /zavrsi",
    "@bojan /sudija 1847310",
    "!clock +6m",
    "@bojan /sudija 1847310",
    "@bojan !press Povuci poziv",
    "@milica /sudija 1847301",
    "!clock +2m",
    "@petar !press Sudi",
    "@petar /napusti",
    "!clock +6m",
]

CALLED = re.compile(r"^\[dm (\w+)\] Pozvan je sudija za partiju (\d+)\.")
TAKEN = re.compile(r"^\[dm (\w+)\] Sudite u partiji (\d+) \(suđenje (\d+)\)\.")
DRAFTED = re.compile(r"^\[dm (\w+)\] Nacrt presude:")
RECORDED = re.compile(r"^\[dm (\w+)\] Presuda za partiju (\d+) je upisana\.")
WITHDRAWN = re.compile(r"^\[dm (\w+)\] Poziv za partiju (\d+) je povučen\.")
# The chat effects (bot.chat_outbox); group 1 is the mark of a delivery repeated after a crash.
POSTED = re.compile(r"^\[#sudije\] (\(izmena\) )?(?:@\w+ )*🔴 Poziv sudiji za partiju (\d+); poziva igrač (\w+)\.")
OPENED = re.compile(r"^\[trial (\d+)\] (\(izmena\) )?Suđenje za partiju \d+: poziv igrača \w+, sudi \w+\.")
TOLD = re.compile(r"^\[dm (\w+)\] (\(izmena\) )?Nijedan sudija nije odgovorio na poziv za partiju (\d+) ")


@dataclass
class Acks:
    """What members were told happened: the database must still hold every one of them."""

    calls: Counter[tuple[str, int]] = field(default_factory=Counter)
    withdrawals: Counter[tuple[str, int]] = field(default_factory=Counter)
    verdicts: Counter[tuple[str, int]] = field(default_factory=Counter)
    takes: list[tuple[str, int, int]] = field(default_factory=list)
    drafts: list[int] = field(default_factory=list)  # trial ids
    judging: dict[str, int] = field(default_factory=dict)  # referee -> his last trial
    # What members saw of the chat effects: (new messages, repeats shown as edits), by what they concern.
    posted: Counter[tuple[int, str]] = field(default_factory=Counter)  # (game, caller)
    reposted: Counter[tuple[int, str]] = field(default_factory=Counter)
    opened: Counter[int] = field(default_factory=Counter)  # trial
    reopened: Counter[int] = field(default_factory=Counter)
    told: Counter[tuple[str, int]] = field(default_factory=Counter)  # (caller, game)
    retold: Counter[tuple[str, int]] = field(default_factory=Counter)

    def read(self, line: str) -> None:
        self.read_effect(line)
        if m := CALLED.match(line):
            self.calls[m[1], int(m[2])] += 1
        elif m := TAKEN.match(line):
            self.takes.append((m[1], int(m[2]), int(m[3])))
            self.judging[m[1]] = int(m[3])
        elif (m := DRAFTED.match(line)) and m[1] in self.judging:
            self.drafts.append(self.judging[m[1]])
        elif m := RECORDED.match(line):
            self.verdicts[m[1], int(m[2])] += 1
        elif m := WITHDRAWN.match(line):
            self.withdrawals[m[1], int(m[2])] += 1

    def read_effect(self, line: str) -> None:
        if m := POSTED.match(line):
            (self.reposted if m[1] else self.posted)[int(m[2]), m[3]] += 1
        elif m := OPENED.match(line):
            (self.reopened if m[2] else self.opened)[int(m[1])] += 1
        elif m := TOLD.match(line):
            (self.retold if m[2] else self.told)[m[1], int(m[3])] += 1


class Bot:
    """One console bot process; its output read line by line on a thread, so reads can time out."""

    def __init__(self, db: Path, demo: bool, acks: Acks) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
        env["PYTHONPATH"] = str(ROOT)
        args = [sys.executable, "-m", "bot", "console", "--db", str(db)] + (["--demo"] if demo else [])
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=db.parent,
            env=env,
        )
        self.acks = acks
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.ended = False
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, text: str) -> bool:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(text + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        return True

    def read(self, until: str | None = None, count: int | None = None, seconds: float = 60) -> bool:
        """Read output (counting acknowledgements) until the line `until`, or `count` lines; False at the end."""
        deadline = time.monotonic() + seconds
        read = 0
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                self.ended = True
                return False
            self.seen.append(line)
            self.acks.read(line)
            read += 1
            if (until is not None and line == until) or (count is not None and read >= count):
                return True
        if count is not None:
            return True  # fewer lines than asked for: the line said less; kill now
        raise AssertionError(f"the bot said nothing more for {seconds} s:\n" + "\n".join(self.seen[-30:]))

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        while not self.ended:  # what it printed before dying was told to members too
            line = self.lines.get(timeout=30)
            if line is None:
                self.ended = True
            else:
                self.seen.append(line)
                self.acks.read(line)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def check(db: Path, acks: Acks, restarted: bool) -> None:
    connection = sqlite3.connect(db)
    try:
        assert [r[0] for r in connection.execute("PRAGMA integrity_check")] == ["ok"]
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        nick = dict(connection.execute("SELECT nick, id FROM members"))
        for (caller, game), count in acks.calls.items():
            stored = connection.execute(
                "SELECT count(*) FROM calls WHERE caller = ? AND game = ?", (nick[caller], game)
            ).fetchone()[0]
            assert stored >= count, ("acknowledged call lost", caller, game)
        for (caller, game), count in acks.withdrawals.items():
            stored = connection.execute(
                "SELECT count(*) FROM calls WHERE caller = ? AND game = ? AND state = 'withdrawn'", (nick[caller], game)
            ).fetchone()[0]
            assert stored >= count, ("acknowledged withdrawal lost", caller, game)
        for referee, game, trial in acks.takes:
            row = connection.execute("SELECT referee, game FROM trials WHERE id = ?", (trial,)).fetchone()
            assert row == (nick[referee], game), ("acknowledged Sudi lost", referee, game, trial)
        for trial in acks.drafts:
            row = connection.execute("SELECT draft, outcome FROM trials WHERE id = ?", (trial,)).fetchone()
            assert row is not None, ("acknowledged draft lost", trial)
            assert row[0] is not None or row[1] != "open", ("acknowledged draft lost", trial)
        for (referee, game), count in acks.verdicts.items():
            stored = connection.execute(
                "SELECT count(*) FROM trials WHERE referee = ? AND game = ? AND outcome IN ('verdict', 'no_verdict')",
                (nick[referee], game),
            ).fetchone()[0]
            assert stored >= count, ("acknowledged verdict lost", referee, game)
        ends = Counter(
            dict(
                connection.execute(
                    "SELECT subject, count(*) FROM events"
                    " WHERE kind IN ('call_taken', 'call_withdrawn', 'call_expired') GROUP BY subject"
                )
            )
        )
        kinds = dict(
            connection.execute(
                "SELECT subject, kind FROM events WHERE kind IN ('call_taken', 'call_withdrawn', 'call_expired')"
            )
        )
        for call_id, state in connection.execute("SELECT id, state FROM calls"):
            subject = f"call:{call_id}"
            assert ends[subject] == (0 if state == "pending" else 1), ("a call ended twice or not", call_id, state)
            assert state == "pending" or kinds[subject] == f"call_{state}", (call_id, state, kinds[subject])
        check_effects(connection, acks, restarted)
        if restarted:
            clock = connection.execute("SELECT now FROM club_clock").fetchone()[0]
            due = connection.execute(
                "SELECT id FROM calls WHERE state = 'pending' AND deadline <= ?", (clock,)
            ).fetchall()
            assert due == [], ("a due deadline was not acted on after the restart", due, clock)
    finally:
        connection.close()


def check_effects(connection: sqlite3.Connection, acks: Acks, restarted: bool) -> None:
    """Exactly once: never a second new message for one effect; after a restart (the start delivers what the
    chat outbox still held) none missing either."""
    names = dict(connection.execute("SELECT id, nick FROM members"))
    calls: Counter[tuple[int, str]] = Counter()
    expired: Counter[tuple[str, int]] = Counter()
    for game, caller, state in connection.execute("SELECT game, caller, state FROM calls"):
        calls[game, names[caller]] += 1
        if state == "expired":
            expired[names[caller], game] += 1
    trials = [r[0] for r in connection.execute("SELECT id FROM trials")]
    for key, count in acks.posted.items():
        assert count <= calls[key], ("a call's notice posted twice", key, count, calls[key])
    for trial, count in acks.opened.items():
        assert count <= 1, ("a trial's space opened twice", trial, count)
    for key, count in acks.told.items():
        assert count <= expired[key], ("a caller told twice of an expiry", key, count, expired[key])
    if not restarted:
        return
    undelivered = connection.execute(
        "SELECT id, queue, kind, state, attempts, next_at, last_error FROM chat_outbox WHERE state != 'sent'"
    ).fetchall()
    assert undelivered == [], ("chat effects not delivered after the restart", undelivered)
    for key, count in calls.items():
        assert acks.posted[key] + acks.reposted[key] >= count, ("a call's notice never posted", key)
    for trial in trials:
        assert acks.opened[trial] + acks.reopened[trial] >= 1, ("a trial's space never opened", trial)
    for key, count in expired.items():
        assert acks.told[key] + acks.retold[key] >= count, ("the caller of an expired call never told", key)


def evenings() -> Iterator[str]:
    return itertools.cycle(EVENING)


def import_beside(db: Path, number: int, imported: list[int]) -> None:
    """`sudija import` of one new game in another process while the bot runs; exit 0 is its acknowledgement."""
    game = generate_game(
        random.Random(number), number, hands=3, status=GameStatus.FINISHED, players=("ana", "bojan", "milica")
    )
    path = db.parent / f"night{number}.jsonl"
    path.write_text(json.dumps(game_to_doc(game)) + "\n", encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "import", str(path), "--db", str(db), "--jobs", "0"],
        capture_output=True,
        text=True,
        cwd=db.parent,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        imported.append(number)


def check_imports(db: Path, imported: list[int]) -> None:
    connection = sqlite3.connect(db)
    try:
        stored = {r[0] for r in connection.execute("SELECT number FROM games")}
    finally:
        connection.close()
    assert set(imported) <= stored, ("an acknowledged import lost", set(imported) - stored)


def test_sigkill_at_random_points_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    db = tmp_path / "club.db"
    acks = Acks()
    script = evenings()
    kills = restarts = marks = 0
    imported: list[int] = []
    numbers = itertools.count(990_001)
    demo = True
    while kills < KILLS:
        bot = Bot(db, demo, acks)
        try:
            marks += 1
            if demo:
                bot.send(f"# ready {marks}")
                assert bot.read(until=f"# ready {marks}")  # the demo club is created and stored first
                demo = False
            else:
                bot.send(f"# ready {marks}")
                assert bot.read(until=f"# ready {marks}"), "\n".join(bot.seen[-20:])
                assert time.monotonic() - bot.started < RESTART_BOUND  # started and acted on what fell due
                check(db, acks, restarted=True)
                check_imports(db, imported)
            if not demo and rng.random() < 0.25:
                import_beside(db, next(numbers), imported)
            alive = True
            for _ in range(rng.randint(1, 8)):
                marks += 1
                if not (bot.send(next(script)) and bot.send(f"# m {marks}")):
                    alive = False
                    break
                if not bot.read(until=f"# m {marks}"):
                    alive = False  # a line the console could not carry out (a button gone after a restart)
                    break
            if alive:
                bot.send(next(script))  # killed in the middle of a line, after a random part of its output
                if rng.random() < 0.7:
                    bot.read(count=rng.randint(1, 4), seconds=0.5)
                bot.kill()
                kills += 1
            else:
                bot.kill()
            restarts += 1
            check(db, acks, restarted=False)
            check_imports(db, imported)
        finally:
            bot.close()
    assert restarts >= KILLS
    assert sum(acks.calls.values()) > 0, "the evenings did nothing"
    assert acks.takes, "the evenings did nothing"
    assert acks.opened, "no trial space was seen opening"
    assert acks.told or KILLS < 20, "no expiry was told"
    print(  # with -s: what the run went through
        f"chaos: {kills} kills, {sum(acks.posted.values())} call notices posted"
        f" (+{sum(acks.reposted.values())} repeated as edits), {sum(acks.opened.values())} trial spaces opened"
        f" (+{sum(acks.reopened.values())}), {sum(acks.told.values())} expiries told (+{sum(acks.retold.values())})"
    )
    assert imported or KILLS < 20, "no import ran beside the bot"
