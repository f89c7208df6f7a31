"""Chaos: a real console bot over a file database runs scripted club evenings and is killed with SIGKILL at seeded
random points — between lines or in the middle of one, after a random part of its output — and restarted, again
and again; now and then another process imports a game log beside it.

An evening makes every kind of decision the club has, each with its effects: calls (taken, withdrawn, expired),
trials with drafts and verdicts — a penalty with a plavac and League points, which the punished member is told
of; a bule change in a game in progress —, a councilor called into a trial and joining it, a vote on a referee's
appointment and one on his dismissal, an appeal taken by a councilor and upheld (the penalty lifted and its
points returned), an Ispravka agreed by both other players and cancelled, and a moderator approving
a Telegram account's link request and removing the link (the requests are what a Telegram member would have
typed: the run writes them between a kill and the restart, as the other platform's adapter would).

After each kill and each restart the invariants hold: no acknowledged call, press, draft, verdict, withdrawal,
penalty, councilor call or joining, vote or ballot, appeal or its taking or decision, Ispravka or its cancelling,
link or unlinking (nor any game an import reported) is lost, and what each decided did what it decides (a carried
vote's role, an upheld appeal's lifted penalty, a joined councilor in the trial); every call ends at most once
and every ended call exactly once (one closing event, matching its state); every deadline due by the club's
stored clock is acted on within 10 s of the restart; `integrity_check` and `foreign_key_check` are clean. And
every chat effect happens exactly once, read from what the bot printed: every call's notice is posted once, every
trial's space opened once, every caller of an expired call told once, every punished member told once — never
twice as a new message (a delivery repeated after a crash shows as an edit of itself, ``(izmena)``), and after
each restart none missing (the chat outbox is empty, nothing failed).

`make test` runs a short form: a few kills, and on until every kind of decision was acknowledged at least once;
`make chaos` the long one (``CHAOS_KILLS=200``). ``CHAOS_SEED`` picks the seed.
"""

from __future__ import annotations

import asyncio
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
from datetime import UTC, datetime
from pathlib import Path

from rules.gamelog import GameStatus, game_to_doc
from rules.generator import generate_game
from storage.database import open_database

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("CHAOS_KILLS", "4"))
SEED = int(os.environ.get("CHAOS_SEED", "22"))
RESTART_BOUND = 10.0  # seconds from a restart until every due deadline was acted on

MAX_KILLS = 40  # the short form goes on past KILLS until every kind of decision was acknowledged, up to this

# One evening, played again and again. {petar} is the trial petar judged last, {appeal} the newest appeal, {vote}
# the newest vote (as the members read them in replies and notices; 0 before there is one: refused).
EVENING = [
    "@vesna /postavi sanja vecnik -- treći većnik, za žalbe",
    "@milica /sudija 1847301",
    "@petar !press Sudi",
    "@milica Nikola je izašao usred devete ruke.",
    "@petar /presuda kazna nikola plavac 3 liga 5 napustio -- napustio partiju",
    "@petar /zavrsi",
    "@nikola /zalba {petar} -- nisam napustio, pao mi je internet",
    "@sanja /preuzmi {appeal}",
    "@nikola Veza mi je pukla u devetoj ruci.",
    "@sanja /presuda niko -- prekid veze",
    "@sanja /zavrsi",
    "@milica /postavi bojan sudija -- dobro poznaje pravila",
    "@nikola /glasaj {vote} da",
    "@milica /razresi bojan sudija -- ipak ne",
    "@nikola /glasaj {vote} da",
    "@marko /sudija",
    "@jelena !press Sudi",
    "@jelena /vecnik",
    "@nikola !press Uključi se",
    "@jelena /presuda bule ruka 5 marko +2 -- lažna izjava o adutu",
    "@jelena /zavrsi",
    "@sanja /ispravka 4 1847320 -- pogrešan klik",
    "@ivana /prihvatam",
    "@marko /prihvatam",
    "@sanja /ponisti 4 1847320 ispravka",
    "@dragan /povezi zoran odobri -- poznajem ga",
    "@dragan /odvezi zoran telegram -- proveravamo nalog",
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
COUNCILORS_CALLED = re.compile(r"^\[dm (\w+)\] Većnici u lobiju su pozvani\.")
JOINED = re.compile(r"^\[dm (\w+)\] Uključeni ste u suđenje (\d+) \(partija \d+\)\.")
PROPOSED = re.compile(r"^\[dm (\w+)\] Predlog #(\d+) \(")
BALLOT = re.compile(r"^\[dm (\w+)\] Glasanje #(\d+): vaš glas je (za|protiv)\.")
APPEALED = re.compile(r"^\[dm (\w+)\] Žalba #(\d+) na suđenje #(\d+) \(\w+\) je predata većnicima")
APPEAL_TAKEN = re.compile(r"^\[dm (\w+)\] Preuzeli ste žalbu #(\d+); saslušanje je suđenje #(\d+)")
UPHELD = re.compile(r"^\[dm (\w+)\] Žalba #(\d+): usvojena\.")
ISPRAVKA = re.compile(r"^\[dm (\w+)\] Predložili ste ispravku za ruku (\d+): .*\(predlog (\d+)\)\.$")
ISPRAVKA_APPLIED = re.compile(r"^\[dm marko\] Ispravka u ruci (\d+) je upisana")  # marko agrees last: his reply
ISPRAVKA_CANCELLED = re.compile(r"^\[dm (\w+)\] Igrač \1 poništava svoju ispravku u ruci (\d+)")
LINKED = re.compile(r"^\[dm (\w+)\] Odobreno: nalog igrača (\w+) je povezan na platformi (\w+)\.")
UNLINKED = re.compile(r"^\[dm (\w+)\] Nalog igrača (\w+) je odvezan: (\w+)\.")
# What the script's numbers are read from, besides the members' replies: the notices (delivered after a restart
# too, where the reply was lost with the process that gave it).
VOTE_NOTICE = re.compile(r"^\[#sudije\] (?:\(izmena\) )?(?:@\w+ )*Glasanje #(\d+): \w+ predlaže")
APPEAL_NOTICE = re.compile(r"^\[#sudije\] (?:\(izmena\) )?Žalba #(\d+) na suđenje #\d+ .*čeka većnika")
SPACE = re.compile(
    r"^\[trial (\d+)\] (?:\(izmena\) )?Suđenje (?:za partiju|u partiji) \d+(?: \(u toku\))?: poziv igrača \w+,"
    r" sudi (\w+)\."
)
ASKED = re.compile(r"^\[trial (\d+)\] (?:\(izmena\) )?Pozvan je većnik;")  # the trial a councilor is called to
# The chat effects (bot.chat_outbox); group 1 is the mark of a delivery repeated after a crash.
POSTED = re.compile(
    r"^\[#sudije\] (\(izmena\) )?(?:@\w+ )*🔴 Poziv sudiji za partiju (\d+)(?: \(u toku\))?; poziva igrač (\w+)\."
)
OPENED = re.compile(  # a trial's space: of a call (out of the game, or in it) or of an appeal's hearing
    r"^\[trial (\d+)\] (\(izmena\) )?(?:Suđenje (?:za partiju|u partiji) \d+(?: \(u toku\))?: poziv igrača \w+,"
    r" sudi \w+\.|Žalba #\d+ na suđenje #\d+ \(partija \d+\): većnik \w+ saslušava)"
)
TOLD = re.compile(r"^\[dm (\w+)\] (\(izmena\) )?Nijedan sudija nije odgovorio na poziv za partiju (\d+) ")
PUNISHED = re.compile(r"^\[dm (\w+)\] (\(izmena\) )?Sudija vas je kaznio za partiju (\d+):")
# Every kind of decision an evening makes: the short run goes on until each was acknowledged.
KINDS = (
    "penalty",
    "councilors_called",
    "joined",
    "proposed",
    "ballot",
    "appealed",
    "appeal_taken",
    "upheld",
    "ispravka",
    "ispravka_applied",
    "ispravka_cancelled",
    "linked",
    "unlinked",
)


@dataclass
class Acks:
    """What members were told happened: the database must still hold every one of them."""

    calls: Counter[tuple[str, int]] = field(default_factory=Counter)
    withdrawals: Counter[tuple[str, int]] = field(default_factory=Counter)
    verdicts: Counter[tuple[str, int]] = field(default_factory=Counter)
    takes: list[tuple[str, int, int]] = field(default_factory=list)
    drafts: list[int] = field(default_factory=list)  # trial ids
    judging: dict[str, int] = field(default_factory=dict)  # referee -> his last trial
    drafted: dict[int, str] = field(default_factory=dict)  # trial -> its last draft acknowledged, as shown
    penalties: Counter[int] = field(default_factory=Counter)  # game -> verdicts recorded on a penalty's draft
    # What members saw of the chat effects: (new messages, repeats shown as edits), by what they concern.
    posted: Counter[tuple[int, str]] = field(default_factory=Counter)  # (game, caller)
    reposted: Counter[tuple[int, str]] = field(default_factory=Counter)
    opened: Counter[int] = field(default_factory=Counter)  # trial
    reopened: Counter[int] = field(default_factory=Counter)
    told: Counter[tuple[str, int]] = field(default_factory=Counter)  # (caller, game)
    retold: Counter[tuple[str, int]] = field(default_factory=Counter)
    punished: Counter[tuple[str, int]] = field(default_factory=Counter)  # (member, game): told of his penalty
    repunished: Counter[tuple[str, int]] = field(default_factory=Counter)
    # The decisions beyond calls and trials, as their makers were told they were made.
    councilors_called: list[int] = field(default_factory=list)  # trials
    joined: list[tuple[str, int]] = field(default_factory=list)  # (councilor, trial)
    proposed: list[int] = field(default_factory=list)  # votes
    ballots: list[tuple[str, int, bool]] = field(default_factory=list)  # (councilor, vote, yes)
    appealed: list[tuple[int, int]] = field(default_factory=list)  # (appeal, trial)
    appeals_taken: list[tuple[str, int, int]] = field(default_factory=list)  # (councilor, appeal, hearing)
    upheld: list[int] = field(default_factory=list)  # appeals
    ispravke: list[int] = field(default_factory=list)  # correction requests
    ispravke_applied: Counter[int] = field(default_factory=Counter)  # hand
    ispravke_cancelled: Counter[int] = field(default_factory=Counter)  # hand
    linked: Counter[tuple[str, str]] = field(default_factory=Counter)  # (nick, platform)
    unlinked: Counter[tuple[str, str]] = field(default_factory=Counter)
    numbers: dict[str, int] = field(default_factory=dict)  # the newest appeal, vote and councilor call as read

    def read(self, line: str) -> None:
        self.read_effect(line)
        self.read_numbers(line)
        if m := CALLED.match(line):
            self.calls[m[1], int(m[2])] += 1
        elif m := TAKEN.match(line):
            self.takes.append((m[1], int(m[2]), int(m[3])))
            self.judging[m[1]] = int(m[3])
        elif (m := DRAFTED.match(line)) and m[1] in self.judging:
            self.drafts.append(self.judging[m[1]])
            self.drafted[self.judging[m[1]]] = line.split("Nacrt presude: ", 1)[1]
        elif m := RECORDED.match(line):
            self.verdicts[m[1], int(m[2])] += 1
            if self.drafted.get(self.judging.get(m[1], 0), "").startswith("Kazna za "):
                self.penalties[int(m[2])] += 1  # his last draft acknowledged was a penalty: the verdict recorded it
        elif m := WITHDRAWN.match(line):
            self.withdrawals[m[1], int(m[2])] += 1
        else:
            self.read_decision(line)

    def read_decision(self, line: str) -> None:
        if m := COUNCILORS_CALLED.match(line):  # told after the trial's own word of it, which names the trial
            self.councilors_called.append(self.numbers.get("asked", 0))
        elif m := JOINED.match(line):
            self.joined.append((m[1], int(m[2])))
        elif m := PROPOSED.match(line):
            self.proposed.append(int(m[2]))
        elif m := BALLOT.match(line):
            self.ballots.append((m[1], int(m[2]), m[3] == "za"))
        elif m := APPEALED.match(line):
            self.appealed.append((int(m[2]), int(m[3])))
        elif m := APPEAL_TAKEN.match(line):
            self.appeals_taken.append((m[1], int(m[2]), int(m[3])))
            self.judging[m[1]] = int(m[3])  # the hearing is a trial he judges
        elif m := UPHELD.match(line):
            self.upheld.append(int(m[2]))
        elif m := ISPRAVKA.match(line):
            self.ispravke.append(int(m[3]))
        elif m := ISPRAVKA_APPLIED.match(line):
            self.ispravke_applied[int(m[1])] += 1
        elif m := ISPRAVKA_CANCELLED.match(line):
            self.ispravke_cancelled[int(m[2])] += 1
        elif m := LINKED.match(line):
            self.linked[m[2], m[3]] += 1
        elif m := UNLINKED.match(line):
            self.unlinked[m[2], m[3]] += 1

    def kinds_seen(self) -> set[str]:
        """The kinds of decision (`KINDS`) acknowledged so far."""
        seen = {
            "penalty": any(self.penalties.values()) and any(self.punished.values()),
            "councilors_called": bool(self.councilors_called),
            "joined": bool(self.joined),
            "proposed": bool(self.proposed),
            "ballot": bool(self.ballots),
            "appealed": bool(self.appealed),
            "appeal_taken": bool(self.appeals_taken),
            "upheld": bool(self.upheld),
            "ispravka": bool(self.ispravke),
            "ispravka_applied": any(self.ispravke_applied.values()),
            "ispravka_cancelled": any(self.ispravke_cancelled.values()),
            "linked": any(self.linked.values()),
            "unlinked": any(self.unlinked.values()),
        }
        return {kind for kind, yes in seen.items() if yes}

    def read_numbers(self, line: str) -> None:
        if m := VOTE_NOTICE.match(line):
            self.numbers["vote"] = max(self.numbers.get("vote", 0), int(m[1]))
        elif m := APPEAL_NOTICE.match(line):
            self.numbers["appeal"] = max(self.numbers.get("appeal", 0), int(m[1]))
        elif m := SPACE.match(line):  # the newest trial of its referee, if his own reply was lost
            self.judging[m[2]] = max(self.judging.get(m[2], 0), int(m[1]))
        elif m := ASKED.match(line):
            self.numbers["asked"] = int(m[1])

    def fill(self, line: str) -> str:
        """The script's line with the numbers the members read (the trial petar judged, the appeal, the vote)."""
        numbers = {
            "petar": self.judging.get("petar", 0),
            "appeal": max(self.appealed[-1][0] if self.appealed else 0, self.numbers.get("appeal", 0)),
            "vote": max(self.proposed[-1] if self.proposed else 0, self.numbers.get("vote", 0)),
        }
        for name, number in numbers.items():
            line = line.replace("{" + name + "}", str(number))
        return line

    def read_effect(self, line: str) -> None:
        if m := POSTED.match(line):
            (self.reposted if m[1] else self.posted)[int(m[2]), m[3]] += 1
        elif m := OPENED.match(line):
            (self.reopened if m[2] else self.opened)[int(m[1])] += 1
        elif m := TOLD.match(line):
            (self.retold if m[2] else self.told)[m[1], int(m[3])] += 1
        elif m := PUNISHED.match(line):
            (self.repunished if m[2] else self.punished)[m[1], int(m[3])] += 1


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
        # An appeal's hearing is a trial whose call is made taken at once: its one ending is the appeal's taking.
        hearings = dict(
            connection.execute("SELECT t.call, 'appeal:' || a.id FROM appeals a JOIN trials t ON t.id = a.hearing")
        )
        taken = Counter(r[0] for r in connection.execute("SELECT subject FROM events WHERE kind = 'appeal_taken'"))
        for call_id, state in connection.execute("SELECT id, state FROM calls"):
            if call_id in hearings:
                assert (state, taken[hearings[call_id]]) == ("taken", 1), ("a hearing's call", call_id, state)
                continue
            subject = f"call:{call_id}"
            assert ends[subject] == (0 if state == "pending" else 1), ("a call ended twice or not", call_id, state)
            assert state == "pending" or kinds[subject] == f"call_{state}", (call_id, state, kinds[subject])
        check_decisions(connection, acks, nick)
        check_effects(connection, acks, restarted)
        if restarted:
            clock = connection.execute("SELECT now FROM club_clock").fetchone()[0]
            due = connection.execute(
                "SELECT id FROM calls WHERE state = 'pending' AND deadline <= ?", (clock,)
            ).fetchall()
            assert due == [], ("a due deadline was not acted on after the restart", due, clock)
    finally:
        connection.close()


def count(connection: sqlite3.Connection, sql: str, *parameters: object) -> int:
    return int(connection.execute(sql, parameters).fetchone()[0])


def check_decisions(connection: sqlite3.Connection, acks: Acks, nick: dict[str, int]) -> None:
    """Every acknowledged decision beyond calls and trials is stored, and did what it decides."""
    for game, recorded in acks.penalties.items():
        penalties = count(connection, "SELECT count(*) FROM penalties WHERE game = ?", game)
        assert penalties >= recorded, ("acknowledged penalty lost", game, penalties, recorded)
    for trial in acks.councilors_called:
        assert count(connection, "SELECT count(*) FROM councilor_calls WHERE trial = ?", trial), (
            "acknowledged councilor call lost",
            trial,
        )
    for councilor, trial in acks.joined:
        row = connection.execute(
            "SELECT count(*) FROM councilor_calls WHERE trial = ? AND councilor = ? AND state = 'taken'",
            (trial, nick[councilor]),
        ).fetchone()
        assert row[0] == 1, ("acknowledged joining lost", councilor, trial)
        assert count(
            connection, "SELECT count(*) FROM trial_participants WHERE trial = ? AND member = ?", trial, nick[councilor]
        ), ("a councilor who joined is not in the trial", councilor, trial)
    for vote in acks.proposed:
        assert count(connection, "SELECT count(*) FROM votes WHERE id = ?", vote), ("acknowledged proposal lost", vote)
    for councilor, vote, yes in acks.ballots:
        cast = "SELECT count(*) FROM ballots WHERE vote = ? AND member = ? AND yes = ?"
        assert count(connection, cast, vote, nick[councilor], yes), ("acknowledged ballot lost", councilor, vote)
    # A vote two of the three councilors carried is decided, and the last one decided about bojan holds.
    for vote, state, yes in connection.execute(
        "SELECT v.id, v.state, (SELECT count(*) FROM ballots b WHERE b.vote = v.id AND b.yes) FROM votes v"
    ):
        assert yes < 2 or state == "carried", ("a vote carried by its ballots was not decided", vote, state, yes)
    last = connection.execute(
        "SELECT action FROM votes WHERE subject = ? AND state = 'carried' ORDER BY closed_at DESC, id DESC LIMIT 1",
        (nick["bojan"],),
    ).fetchone()
    if last is not None:
        referee = count(connection, "SELECT count(*) FROM roles WHERE member = ? AND role = 'referee'", nick["bojan"])
        assert referee == (1 if last[0] == "appoint" else 0), ("a carried vote's role not applied", last, referee)
    for appeal, trial in acks.appealed:
        assert count(connection, "SELECT count(*) FROM appeals WHERE id = ? AND trial = ?", appeal, trial), (
            "acknowledged appeal lost",
            appeal,
        )
    for councilor, appeal, hearing in acks.appeals_taken:
        row = connection.execute("SELECT councilor, hearing FROM appeals WHERE id = ?", (appeal,)).fetchone()
        assert row == (nick[councilor], hearing), ("acknowledged taking of an appeal lost", appeal, row)
    for appeal in acks.upheld:
        row = connection.execute("SELECT state, trial FROM appeals WHERE id = ?", (appeal,)).fetchone()
        assert row is not None, ("acknowledged upheld appeal lost", appeal)
        assert row[0] == "upheld", ("acknowledged upheld appeal lost", appeal, row)
        lifted = connection.execute(
            "SELECT count(*), sum(lifted_at IS NOT NULL AND points_returned) FROM penalties WHERE trial = ?", (row[1],)
        ).fetchone()
        assert lifted[0] == lifted[1], ("an upheld appeal left its penalty standing", appeal, lifted)
    for request in acks.ispravke:
        assert count(connection, "SELECT count(*) FROM correction_requests WHERE id = ?", request), (
            "acknowledged Ispravka lost",
            request,
        )
    for hand, acknowledged in acks.ispravke_applied.items():
        applied = count(
            connection,
            "SELECT count(*) FROM paper_changes WHERE game = 1847320 AND hand = ? AND kind = 'ispravka'",
            hand,
        )
        cancelled = count(
            connection,
            "SELECT count(*) FROM paper_changes WHERE game = 1847320 AND hand = ? AND kind = 'ispravka'"
            " AND cancelled_at IS NOT NULL",
            hand,
        )
        assert applied >= acknowledged, ("acknowledged Ispravka's change lost", hand, applied, acknowledged)
        assert cancelled >= acks.ispravke_cancelled[hand], ("acknowledged cancelling lost", hand, cancelled)
        assert applied - cancelled <= 1, ("two standing Ispravke of one hand", hand, applied, cancelled)
    for (member, platform), acknowledged in acks.linked.items():
        done = count(
            connection,
            "SELECT count(*) FROM events WHERE kind = 'account_linked' AND subject = ?"
            " AND json_extract(data, '$.platform') = ?",
            str(nick[member]),
            platform,
        )
        assert done >= acknowledged, ("acknowledged link lost", member, platform)
    for (member, platform), acknowledged in acks.unlinked.items():
        done = count(
            connection,
            "SELECT count(*) FROM events WHERE kind = 'account_unlinked' AND subject = ?"
            " AND json_extract(data, '$.platform') = ?",
            str(nick[member]),
            platform,
        )
        assert done >= acknowledged, ("acknowledged unlinking lost", member, platform)


def check_effects(connection: sqlite3.Connection, acks: Acks, restarted: bool) -> None:
    """Exactly once: never a second new message for one effect; after a restart (the start delivers what the
    chat outbox still held) none missing either."""
    names = dict(connection.execute("SELECT id, nick FROM members"))
    calls: Counter[tuple[int, str]] = Counter()
    expired: Counter[tuple[str, int]] = Counter()
    for game, caller, state in connection.execute(  # an appeal's hearing has a call, never posted: taken at once
        "SELECT game, caller, state FROM calls WHERE id NOT IN"
        " (SELECT t.call FROM trials t JOIN appeals a ON a.hearing = t.id)"
    ):
        calls[game, names[caller]] += 1
        if state == "expired":
            expired[names[caller], game] += 1
    trials = [r[0] for r in connection.execute("SELECT id FROM trials")]
    punished: Counter[tuple[str, int]] = Counter()
    for member, game in connection.execute("SELECT member, game FROM penalties"):
        punished[names[member], game] += 1
    for key, told in acks.posted.items():
        assert told <= calls[key], ("a call's notice posted twice", key, told, calls[key])
    for trial, told in acks.opened.items():
        assert told <= 1, ("a trial's space opened twice", trial, told)
    for key, told in acks.told.items():
        assert told <= expired[key], ("a caller told twice of an expiry", key, told, expired[key])
    for key, told in acks.punished.items():
        assert told <= punished[key], ("a member told twice of one penalty", key, told, punished[key])
    if not restarted:
        return
    undelivered = connection.execute(
        "SELECT id, queue, kind, state, attempts, next_at, last_error FROM chat_outbox WHERE state != 'sent'"
    ).fetchall()
    assert undelivered == [], ("chat effects not delivered after the restart", undelivered)
    for key, made in calls.items():
        assert acks.posted[key] + acks.reposted[key] >= made, ("a call's notice never posted", key)
    for trial in trials:
        assert acks.opened[trial] + acks.reopened[trial] >= 1, ("a trial's space never opened", trial)
    for key, made in expired.items():
        assert acks.told[key] + acks.retold[key] >= made, ("the caller of an expired call never told", key)
    for key, made in punished.items():
        assert acks.punished[key] + acks.repunished[key] >= made, ("a punished member never told", key)


def evenings() -> Iterator[str]:
    return itertools.cycle(EVENING)


def import_beside(db: Path, number: int, imported: list[int]) -> None:
    """`sudija import` of one new game in another process while the bot runs: handed to the bot, which holds the
    database (bot/inbox.py); exit 0 with `--wait` is its acknowledgement (the bot's report: stored)."""
    game = generate_game(
        random.Random(number), number, hands=3, status=GameStatus.FINISHED, players=("ana", "bojan", "milica")
    )
    path = db.parent / f"night{number}.jsonl"
    path.write_text(json.dumps(game_to_doc(game)) + "\n", encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "import", str(path), "--db", str(db), "--jobs", "0", "--wait"],
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


def ask_link_beside(db: Path, account: int) -> None:
    """A Telegram account's request for the nickname zoran, as the Telegram adapter would store it, unless a
    request is pending or the nickname is linked there (written while the bot is down, between a kill and the
    restart)."""

    async def ask() -> None:
        club = await open_database(db)
        try:
            zoran = await club.members.by_nick("zoran")
            if zoran is None or any(a.startswith("telegram:") for a in zoran.accounts):
                return
            if any(r.nick == "zoran" for r in await club.links.pending()):
                return
            await club.links.ask("telegram", str(account), "zoran", "Zoran", datetime.now(UTC), None)
        finally:
            await club.close()

    asyncio.run(ask())


def test_sigkill_at_random_points_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    db = tmp_path / "club.db"
    acks = Acks()
    script = evenings()
    kills = restarts = marks = 0
    imported: list[int] = []
    numbers = itertools.count(990_001)
    accounts = itertools.count(7_000_001)
    demo = True
    while kills < KILLS or acks.kinds_seen() != set(KINDS):
        missing = set(KINDS) - acks.kinds_seen()
        assert kills < max(KILLS, MAX_KILLS), ("the evenings did not make every kind of decision", missing)
        if not demo:
            ask_link_beside(db, next(accounts))
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
            # 1-8 lines between kills; past KILLS, while a kind of decision is still missing, longer stretches
            # (an evening's decisions build on each other: a lost Sudi press loses its trial's appeal too)
            lines = rng.randint(1, 8) if kills < KILLS else rng.randint(len(EVENING) // 2, len(EVENING))
            for _ in range(lines):
                marks += 1
                if not (bot.send(acks.fill(next(script))) and bot.send(f"# m {marks}")):
                    alive = False
                    break
                if not bot.read(until=f"# m {marks}"):
                    alive = False  # a line the console could not carry out (a button gone after a restart)
                    break
            if alive:
                bot.send(acks.fill(next(script)))  # killed in the middle of a line, after a random part of its output
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
        f" (+{sum(acks.reopened.values())}), {sum(acks.told.values())} expiries told (+{sum(acks.retold.values())}),"
        f" {sum(acks.punished.values())} penalties told (+{sum(acks.repunished.values())}),"
        f" {len(acks.councilors_called)} councilor calls, {len(acks.joined)} joined, {len(acks.proposed)} votes,"
        f" {len(acks.ballots)} ballots, {len(acks.appealed)} appeals ({len(acks.upheld)} upheld),"
        f" {len(acks.ispravke)} Ispravke ({sum(acks.ispravke_applied.values())} applied,"
        f" {sum(acks.ispravke_cancelled.values())} cancelled), {sum(acks.linked.values())} links"
        f" ({sum(acks.unlinked.values())} removed)"
    )
    assert imported or KILLS < 20, "no import ran beside the bot"
