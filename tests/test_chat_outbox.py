"""The chat outbox: every chat effect of a decision is a row of the decision's transaction, delivered once.

One test per crash window of issue 22 (a referee call posted, taken, expired, withdrawn, its trial ended; a
councilor call posted, joined, expired) — the decision committed, the process gone before its effect: after the
restart the effect is delivered, exactly once (a second restart delivers nothing again). Then the worker's
rules: a platform's part begun but not done is repeated as an edit of itself on the console, a transient failure
(429, the network) is retried with backoff, a permanent one is recorded and logged and never retried, and the
effects of one call arrive in the order they were written.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat_outbox import Backoff, ChatOutbox, is_transient
from bot.config import Config
from bot.console.adapter import ConsoleChat
from bot.desk import Desk
from bot.messages import Catalogue
from bot.ports import CallPost, Chats, LoggingGameServer, ManualClock, ManualTimers
from club import NOW, Club, database_for, make_club
from fakes.chat import RecordingChat, Sent
from rules.gamelog import GameStatus
from rules.members import Member
from rules.notices import Notice
from storage.chat_outbox import ChatOutboxStore
from storage.database import open_database
from storage.languages import set_member_language
from storage.states import DeliveryState, OutboxState


async def crash_after_commit(club: Club) -> None:
    """The process dies right after the decision's commit: nothing of its effects reaches a platform."""

    async def dead() -> int:
        return 0

    club.desk.delivery.chat_outbox.deliver = dead  # type: ignore[method-assign]  # the one outbox every part delivers through


async def restart(club: Club, tmp_path: Path) -> Club:
    """A new process over the same database: a new platform connection that remembers nothing, the desk started."""
    await club.db.close()
    db = await open_database(database_for(tmp_path))
    chat = RecordingChat()
    server = LoggingGameServer()
    desk = Desk(db, Chats([chat]), server, club.clock, club.config, ManualTimers())
    await desk.start()
    return Club(db, desk, chat, club.clock, desk.deps.timers, server, club.config)  # type: ignore[arg-type]


def of(chat: RecordingChat, kind: str, text: str = "") -> list[Sent]:
    return [s for s in chat.sent if s.kind == kind and text in s.text]


async def pending(club: Club) -> int:
    return (await ChatOutboxStore(club.db).counts()).get("pending", 0)


@pytest.fixture
async def two(tmp_path: Path) -> Club:
    club = await make_club(tmp_path)
    await club.member("ana")
    await club.member("sudija1", "referee")
    await club.game(500, ("ana", "marko", "petar"))
    return club


async def test_a_call_committed_then_a_crash_is_posted_after_the_restart_exactly_once(
    two: Club, tmp_path: Path
) -> None:
    await crash_after_commit(two)
    assert (await two.desk.calls.call(await two.get("ana"), 500)).ok
    assert of(two.chat, "post") == []  # the crash came first: no referee pinged
    assert await pending(two) == 1

    club = await restart(two, tmp_path)
    posts = of(club.chat, "post")
    assert [p.where for p in posts] == ["#referees"]
    assert "500" in posts[0].text
    assert posts[0].mention == ("sudija1",)
    call = await club.db.calls.pending_by_caller((await club.get("ana")).id)
    assert call is not None
    assert [n.message for n in await club.db.calls.notices(f"call:{call.id}")] == ["m1"]  # kept: later edited
    assert await club.db.calls.pinged(call.id) == {(await club.get("sudija1")).id}
    assert await pending(club) == 0

    again = await restart(club, tmp_path)
    assert again.chat.sent == []  # delivered once: a second restart says nothing again
    await again.db.close()


async def test_sudi_committed_then_a_crash_opens_the_trial_space_after_the_restart(two: Club, tmp_path: Path) -> None:
    ana, judge = await two.get("ana"), await two.get("sudija1")
    assert (await two.desk.calls.call(ana, 500)).ok
    call = await two.db.calls.pending_by_caller(ana.id)
    assert call is not None
    await crash_after_commit(two)
    assert (await two.desk.trials.take(judge, call.id)).ok
    assert of(two.chat, "open") == []  # the trial nobody can talk in, until the restart
    trial = await two.db.trials.open_for_game(500)
    assert trial is not None

    club = await restart(two, tmp_path)
    opened = of(club.chat, "open")
    assert [o.where for o in opened] == [f"trial:{trial.id}"]
    assert opened[0].members == ("ana", "sudija1")
    assert [b.action for b in opened[0].buttons] == ["hands", "history", "finish", "leave"]
    assert len(of(club.chat, "edit", "sudija1")) == 1  # the notice says who took it
    # The game server is asked by the effect, in the queue's order, and again by the start's resync (idempotent).
    assert club.server.calls == [("block_offers", "ana")] * 2
    kinds = [s.kind for s in club.chat.sent]
    assert kinds.index("edit") < kinds.index("open")

    again = await restart(club, tmp_path)
    assert of(again.chat, "open") == []
    assert again.server.calls == [("block_offers", "ana")]  # the start's resync of the open trial, as before
    await again.db.close()


async def test_an_expiry_committed_then_a_crash_edits_the_notices_and_tells_the_caller_after_the_restart(
    two: Club, tmp_path: Path
) -> None:
    ana = await two.get("ana")
    assert (await two.desk.calls.call(ana, 500)).ok
    await crash_after_commit(two)
    await two.advance(timedelta(minutes=6))
    expired = two.desk.t("call.expired", game=500, minutes=two.config.call_minutes)
    assert of(two.chat, "tell", expired) == []
    assert of(two.chat, "edit") == []  # a live Sudi button, nobody told

    club = await restart(two, tmp_path)
    assert [(s.where, s.text) for s in of(club.chat, "tell")] == [("dm:ana", expired)]
    edits = of(club.chat, "edit")
    assert [e.where for e in edits] == ["#referees"]
    assert edits[0].text == club.desk.t("call.notice_expired", game=500, caller="ana")

    again = await restart(club, tmp_path)
    assert again.chat.sent == []
    await again.db.close()


async def test_a_withdrawal_and_a_trials_end_committed_then_a_crash_are_told_after_the_restart(
    tmp_path: Path,
) -> None:
    club = await make_club(tmp_path)
    ana, judge = await club.member("ana"), await club.member("sudija1", "referee")
    await club.game(600, ("ana", "marko", "petar"), status=GameStatus.IN_PROGRESS, ended_ago=None)
    await club.game(500, ("ana", "marko", "petar"))
    await club.db.members.seat(ana.id, 600, club.clock.now())
    assert (await club.desk.calls.call(await club.get("ana"), 600)).ok
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    assert (await club.desk.trials.take(judge, call.id)).ok
    trial = await club.db.trials.open_for_game(600)
    assert trial is not None
    await crash_after_commit(club)
    assert (await club.desk.trials.leave(judge, trial.id)).ok

    after = await restart(club, tmp_path)
    assert [s.where for s in of(after.chat, "close")] == [f"trial:{trial.id}"]
    assert [s.text for s in of(after.chat, "table")] == [after.desk.t("table.resumed")]
    assert ("resume_table", 600) in after.server.calls

    await after.db.members.seat(ana.id, None, after.clock.now())
    assert (await after.desk.calls.call(await after.get("ana"), 500)).ok
    await crash_after_commit(after)
    assert (await after.desk.calls.withdraw(await after.get("ana"))).ok
    last = await restart(after, tmp_path)
    assert [e.text for e in of(last.chat, "edit")] == [last.desk.t("call.notice_withdrawn", game=500, caller="ana")]
    await last.db.close()


async def test_a_delivery_begun_but_not_done_is_repeated_on_the_console_as_an_edit_of_itself(tmp_path: Path) -> None:
    """The window between the platform's answer and the commit that says so: the repeat edits, never duplicates."""
    config = Config()
    db = await open_database(database_for(tmp_path))
    clock = ManualClock(NOW)
    out: list[str] = []
    console = ConsoleChat(out.append, Catalogue(config.language, config.timezone))
    desk = Desk(db, Chats([console]), LoggingGameServer(), clock, config, ManualTimers())
    await desk.start()
    ana = await db.members.link("console", "ana", "ana", NOW)
    judge = await db.members.link("console", "sudija1", "sudija1", NOW)
    await db.members.set_role(judge.id, "referee", True, None, NOW)
    await db.members.set_presence(judge.id, True, NOW)
    club = Club(db, desk, RecordingChat(), clock, ManualTimers(), LoggingGameServer(), config)
    await club.game(500, ("ana", "marko", "petar"))

    class Crash(BaseException):
        pass

    real = desk.delivery.chat_outbox.store.done

    async def crash_before_done(*args: Any, **kwargs: Any) -> None:
        raise Crash

    desk.delivery.chat_outbox.store.done = crash_before_done  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await desk.calls.call(ana, 500)
    desk.delivery.chat_outbox.store.done = real  # type: ignore[method-assign]
    posted = [line for line in out if "Poziv sudiji za partiju 500" in line]
    assert len(posted) == 1
    assert not posted[0].startswith("[#sudije] (izmena)")

    await db.close()
    db = await open_database(database_for(tmp_path))
    out2: list[str] = []
    console2 = ConsoleChat(out2.append, Catalogue(config.language, config.timezone))
    desk2 = Desk(db, Chats([console2]), LoggingGameServer(), clock, config, ManualTimers())
    await desk2.start()
    reposted = [line for line in out2 if "Poziv sudiji za partiju 500" in line]
    assert len(reposted) == 1
    assert reposted[0].startswith("[#sudije] (izmena) @sudija1")  # an edit of the message it may have shown
    assert console2.find_button(await desk2.member_for("console", "sudija1"), "sudija1", "Sudi") is not None
    (effect,) = await ChatOutboxStore(db).listing()
    assert effect.state is OutboxState.SENT
    assert await ChatOutboxStore(db).deliveries(effect.id) == {"console": DeliveryState.DONE}
    await db.close()


@dataclass
class Flaky:
    """A platform whose answers are scripted: each call pops the next exception (None: it works)."""

    failures: list[BaseException | None]
    platform: str = "flaky"

    def __post_init__(self) -> None:
        self.calls = 0
        self.told: list[str] = []

    async def _maybe_fail(self) -> None:
        self.calls += 1
        failure = self.failures.pop(0) if self.failures else None
        if failure is not None:
            raise failure

    async def post_call(self, post: CallPost) -> list[Notice]:
        await self._maybe_fail()
        self.told.append(post.text)
        return [Notice(self.platform, "#ch", f"x{self.calls}")]

    async def tell(self, member: Member, text: str, buttons: Sequence[Any] = ()) -> None:
        await self._maybe_fail()
        self.told.append(text)

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        await self._maybe_fail()

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        await self._maybe_fail()


class RateLimited(Exception):
    def __init__(self) -> None:
        super().__init__("429 Too Many Requests")
        self.status = 429


class WorkerClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def flaky_club(tmp_path: Path, failures: list[BaseException | None]) -> tuple[Club, Flaky, WorkerClock]:
    club = await make_club(tmp_path)
    flaky = Flaky(failures)
    club.desk.deps.chat.ports.append(flaky)  # type: ignore[arg-type]
    clock = WorkerClock()
    club.desk.deps.chat_outbox = ChatOutbox(
        club.desk.delivery, clock, backoff=Backoff(initial=1.0, maximum=60.0), rng=random.Random(1), max_attempts=4
    )
    await club.member("ana")
    await club.member("sudija1", "referee")
    await club.game(500, ("ana", "marko", "petar"))
    return club, flaky, clock


async def test_a_transient_failure_is_retried_with_backoff_and_delivered_once(tmp_path: Path) -> None:
    club, flaky, clock = await flaky_club(tmp_path, [RateLimited(), TimeoutError("read timed out")])
    assert (await club.desk.calls.call(await club.get("ana"), 500)).ok
    assert flaky.told == []
    assert len(of(club.chat, "post")) == 1  # the other platform got its part at once
    (effect,) = await ChatOutboxStore(club.db).listing()
    assert effect.state is OutboxState.PENDING
    assert effect.attempts == 1
    assert effect.last_error is not None
    assert "RateLimited" in effect.last_error
    assert effect.next_at is not None
    assert clock.now + timedelta(seconds=0.5) <= effect.next_at <= clock.now + timedelta(seconds=1)
    assert await club.desk.delivery.chat_outbox.deliver() == 0  # not due yet: nothing asked
    assert flaky.calls == 1
    clock.now += timedelta(seconds=1)
    assert await club.desk.delivery.chat_outbox.deliver() == 0  # the network now
    (effect,) = await ChatOutboxStore(club.db).listing()
    assert effect.next_at is not None
    assert clock.now + timedelta(seconds=1) <= effect.next_at <= clock.now + timedelta(seconds=2)  # doubled
    clock.now += timedelta(seconds=2)
    assert await club.desk.delivery.chat_outbox.deliver() == 1
    assert len(flaky.told) == 1
    assert len(of(club.chat, "post")) == 1  # the platform that had its part is not asked again
    (effect,) = await ChatOutboxStore(club.db).listing()
    assert effect.state is OutboxState.SENT
    await club.db.close()


async def test_a_permanent_failure_is_recorded_and_logged_and_never_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    club, flaky, clock = await flaky_club(tmp_path, [ValueError("Invalid Form Body")])
    with caplog.at_level(logging.WARNING, logger="bot.chat_outbox"):
        assert (await club.desk.calls.call(await club.get("ana"), 500)).ok
    assert any("failed for good" in r.getMessage() for r in caplog.records)
    # Never silent: the officials are told in their channel, by a notice of its own (delivered on both platforms).
    notice, effect = await ChatOutboxStore(club.db).listing()
    assert (notice.queue, notice.kind, notice.state) == (f"outbox:chat:{effect.id}", "post_call", OutboxState.SENT)
    assert f"#{effect.id}" in flaky.told[-1]
    assert "Invalid Form Body" in flaky.told[-1]
    assert effect.state is OutboxState.FAILED
    assert effect.last_error is not None
    assert "Invalid Form Body" in effect.last_error
    assert await ChatOutboxStore(club.db).deliveries(effect.id) == {
        "test": DeliveryState.DONE,
        "flaky": DeliveryState.FAILED,
    }
    clock.now += timedelta(days=1)
    assert await club.desk.delivery.chat_outbox.deliver() == 0
    assert flaky.calls == 2  # the post once (never again), and the notice
    await club.db.close()
    from bot.cli import main  # noqa: PLC0415 (an officer sees it)

    assert (
        await asyncio.to_thread(
            main, ["outbox", "--chat", "--failed", "--lang", "en", "--db", str(database_for(tmp_path))]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Chat outbox: 0 waiting, 1 delivered, 1 failed." in out  # the notice delivered
    assert "post_call" in out
    assert "flaky failed, test done" in out
    assert "Invalid Form Body" in out


async def test_transient_failures_past_the_bound_end_as_dead(tmp_path: Path) -> None:
    club, flaky, clock = await flaky_club(tmp_path, [ConnectionResetError("reset")] * 4)
    assert (await club.desk.calls.call(await club.get("ana"), 500)).ok
    for _ in range(5):
        clock.now += timedelta(minutes=5)
        await club.desk.delivery.chat_outbox.deliver()
    assert flaky.calls == 5  # max_attempts, then the officials' notice (delivered)
    notice, effect = await ChatOutboxStore(club.db).listing()
    assert effect.state is OutboxState.DEAD  # given up (it was `failed` before dead letters)
    assert await ChatOutboxStore(club.db).deliveries(effect.id) == {
        "test": DeliveryState.DONE,
        "flaky": DeliveryState.FAILED,
    }
    assert notice.queue == f"outbox:chat:{effect.id}"
    assert flaky.told == [
        club.desk.t(
            "outbox.effect_dead",
            id=effect.id,
            kind="post_call",
            platforms="flaky",
            error="flaky: ConnectionResetError: reset",
        )
    ]
    await club.db.close()


async def test_a_waiting_effect_holds_its_calls_queue_but_not_the_others(tmp_path: Path) -> None:
    club, flaky, clock = await flaky_club(tmp_path, [RateLimited()])
    bojan = await club.member("bojan")
    await club.game(501, ("bojan", "marko", "petar"))
    ana = await club.get("ana")
    assert (await club.desk.calls.call(ana, 500)).ok  # its post waits for the retry
    assert (await club.desk.calls.withdraw(ana)).ok  # its edit waits behind the post
    assert (await club.desk.calls.call(bojan, 501)).ok  # another call's queue goes on
    assert [t for t in flaky.told if "501" in t]
    assert not [t for t in flaky.told if "500" in t]
    clock.now += timedelta(seconds=5)
    await club.desk.delivery.chat_outbox.deliver()
    assert flaky.told[-1].count("500") == 1
    assert (await ChatOutboxStore(club.db).counts()) == {"sent": 3}
    await club.db.close()


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (RateLimited(), True),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (type("DiscordServerError", (Exception,), {"status": 503})(), True),
        (type("RetryAfter", (Exception,), {"retry_after": 3})(), True),
        (type("NetworkError", (Exception,), {})(), True),
        (type("BadRequest", (type("NetworkError", (Exception,), {}),), {})(), False),
        (type("Forbidden", (Exception,), {"status": 403})(), True),  # a permission that may be granted: retried
        (ValueError("bad"), False),
    ],
)
def test_what_counts_as_transient(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient


async def test_the_chat_outbox_states_are_the_check_constraints(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "club.db")  # SQLite's schema text (the .pg.sql file says the same)
    try:
        rows = await db.connection.execute_fetchall(
            "SELECT name, sql FROM sqlite_master WHERE name IN ('chat_outbox', 'chat_deliveries')"
        )
    finally:
        await db.close()
    sql = dict(rows)
    for table, enum in (("chat_outbox", OutboxState), ("chat_deliveries", DeliveryState)):
        found = re.search(r"CHECK \(state IN \(([^)]*)\)\)", sql[table])
        assert found is not None
        assert {v.strip().strip("'") for v in found[1].split(",")} == {e.value for e in enum}


async def test_the_worker_started_with_the_bot_retries_when_woken(tmp_path: Path) -> None:
    from bot.app import build_app  # noqa: PLC0415 (this test alone builds the whole app)

    app = await build_app(Config(), clock=ManualClock(NOW), timers=ManualTimers(), database=str(tmp_path / "c.db"))
    try:
        flaky = Flaky([RateLimited()])
        app.chats.ports.append(flaky)  # type: ignore[arg-type]
        clock = WorkerClock()
        outbox = app.desk.delivery.chat_outbox
        outbox.clock = clock
        assert outbox._task is None  # not before the platforms are attached: it would deliver to none of them
        await app.desk.start()
        assert outbox._task is not None  # started with the bot
        ana = await app.db.members.link("test", "ana", "ana", NOW)
        club = Club(app.db, app.desk, RecordingChat(), ManualClock(NOW), ManualTimers(), LoggingGameServer(), Config())
        await club.game(500, ("ana", "marko", "petar"))
        assert (await app.desk.calls.call(ana, 500)).ok
        assert flaky.told == []
        clock.now += timedelta(seconds=5)
        outbox.wake()
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        while not flaky.told and loop.time() < end:  # noqa: ASYNC110 (the worker runs on its own task)
            await asyncio.sleep(0.01)
        assert len(flaky.told) == 1
    finally:
        await app.close()
    assert app.desk.delivery.chat_outbox._task is None  # stopped with the bot


async def test_a_desk_without_platforms_leaves_its_chat_effects_to_the_bot(two: Club, tmp_path: Path) -> None:
    """A command line's desk (no chat port) decides; the bot, with its platforms, delivers what it wrote."""
    two.desk.deps.chat.ports.clear()
    assert (await two.desk.calls.call(await two.get("ana"), 500)).ok
    assert await pending(two) == 1
    club = await restart(two, tmp_path)
    assert [p.where for p in of(club.chat, "post")] == ["#referees"]
    assert await pending(club) == 0
    await club.db.close()


async def test_the_worker_survives_a_database_that_fails_a_moment(two: Club) -> None:
    import sqlite3  # noqa: PLC0415

    outbox = two.desk.delivery.chat_outbox
    two.desk.deps.chat.ports.clear()  # the decision's own delivery leaves the post to the worker
    assert (await two.desk.calls.call(await two.get("ana"), 500)).ok
    two.desk.deps.chat.ports.append(two.chat)
    real = outbox.store.due
    failures = [sqlite3.OperationalError("database is locked")]

    async def flaky_due(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real(*args)

    outbox.store.due = flaky_due  # type: ignore[method-assign]
    outbox.start()
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        while failures and loop.time() < end:  # noqa: ASYNC110 (the worker runs on its own task)
            await asyncio.sleep(0.01)
        outbox.wake()
        while not of(two.chat, "post") and loop.time() < end:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        assert len(of(two.chat, "post")) == 1
    finally:
        await outbox.stop()
    await two.db.close()


async def test_an_effect_another_process_delivers_is_left_to_it_and_its_queue_waits(two: Club, tmp_path: Path) -> None:
    """Several bot processes on one database: an effect leased by one is not delivered by another, nor are the
    effects behind it in its queue; a dead process's lease runs out, or the next bot to start releases it."""
    await crash_after_commit(two)
    ana = await two.get("ana")
    assert (await two.desk.calls.call(ana, 500)).ok
    call = await two.db.calls.pending_by_caller(ana.id)
    assert call is not None
    assert (await two.desk.calls.withdraw(ana, call.id)).ok  # a second effect in the call's queue
    store = ChatOutboxStore(two.db)
    first, second = sorted(await store.due(NOW), key=lambda e: e.id)
    assert first.queue == second.queue
    now = datetime.now(UTC)
    assert await store.lease(first.id, now, now + timedelta(minutes=2))  # the other process took it
    assert not await store.lease(first.id, now, now + timedelta(minutes=2))  # only one process holds it
    assert await store.due(now) == []  # the leased effect, and the one behind it in its queue, wait

    other = ChatOutbox(two.desk.delivery)  # a second process's worker on the same database
    assert await other.deliver() == 0
    assert two.chat.sent == []
    assert [e.id for e in await store.due(now + timedelta(minutes=3))] == [first.id, second.id]  # ran out

    club = await restart(two, tmp_path)  # the next bot to start: the lease is a dead process's, released
    assert [s.kind for s in club.chat.sent if s.kind in ("post", "edit")] == ["post", "edit"]
    assert await pending(club) == 0
    await club.db.close()


async def in_game_trial(tmp_path: Path) -> tuple[Club, int]:
    """Ana's call on her table's game 600, taken by sudija1; vecnik is a councilor in the lobby."""
    club = await make_club(tmp_path)
    ana, judge = await club.member("ana"), await club.member("sudija1", "referee")
    await club.member("vecnik", "councilor")
    await club.game(600, ("ana", "marko", "petar"), status=GameStatus.IN_PROGRESS, ended_ago=None)
    await club.db.members.seat(ana.id, 600, club.clock.now())
    assert (await club.desk.calls.call(ana, 600)).ok
    call = await club.db.calls.pending_by_caller(ana.id)
    assert call is not None
    assert (await club.desk.trials.take(judge, call.id)).ok
    trial = await club.db.trials.open_for_game(600)
    assert trial is not None
    club.chat.clear()
    return club, trial.id


async def test_a_councilor_call_committed_then_a_crash_is_posted_and_said_after_the_restart_exactly_once(
    tmp_path: Path,
) -> None:
    club, trial_id = await in_game_trial(tmp_path)
    await crash_after_commit(club)
    assert (await club.desk.trials.call_councilor(await club.get("sudija1"), trial_id)).ok
    assert club.chat.sent == []  # committed, nobody told
    (ccall,) = await club.db.calls.councilor_calls_for(trial_id)
    vecnik = await club.get("vecnik")

    after = await restart(club, tmp_path)
    notice = after.desk.t("councilor.notice", game=600, until=ccall.deadline)
    assert [(s.kind, s.where) for s in of(after.chat, "post")] == [("post", "#referees"), ("post", "dm:vecnik")]
    assert {s.text for s in of(after.chat, "post")} == {notice}
    assert of(after.chat, "post")[0].mention == ("vecnik",)
    assert [b.action for b in of(after.chat, "post")[0].buttons] == ["join"]
    said = after.desk.t("councilor.called", minutes=after.config.call_minutes)
    assert [(s.where, s.text) for s in of(after.chat, "say")] == [(f"trial:{trial_id}", said)]
    assert len(await after.db.calls.notices(f"councilor:{ccall.id}")) == 2  # kept: later edited
    assert await after.db.calls.pinged((await after.db.trials.get(trial_id)).call) == {  # type: ignore[union-attr]
        (await after.get("sudija1")).id
    }  # the referee call's pings are not the councilors'
    await after.desk.presence(vecnik, False)
    await after.desk.presence(await after.get("vecnik"), True)
    assert of(after.chat, "tell") == []  # pinged with the call: no second, private copy on his return
    assert await pending(after) == 0

    again = await restart(after, tmp_path)
    assert again.chat.sent == []
    await again.db.close()


async def test_a_councilor_joining_committed_then_a_crash_edits_the_notices_and_adds_him_after_the_restart(
    tmp_path: Path,
) -> None:
    club, trial_id = await in_game_trial(tmp_path)
    assert (await club.desk.trials.call_councilor(await club.get("sudija1"), trial_id)).ok
    (ccall,) = await club.db.calls.councilor_calls_for(trial_id)
    club.chat.clear()
    await crash_after_commit(club)
    assert (await club.desk.trials.join_as_councilor(await club.get("vecnik"), ccall.id)).ok
    assert of(club.chat, "edit") == []
    assert of(club.chat, "add") == []

    after = await restart(club, tmp_path)
    taken = after.desk.t("councilor.notice_taken", game=600, councilor="vecnik")
    assert [(s.where, s.text) for s in of(after.chat, "edit")] == [("#referees", taken), ("dm:vecnik", taken)]
    added = of(after.chat, "add")
    assert [(s.where, s.members) for s in added] == [(f"trial:{trial_id}", ("vecnik",))]
    assert added[0].text == after.desk.t("councilor.joined", nick="vecnik")
    kinds = [s.kind for s in after.chat.sent]
    assert kinds.index("edit") < kinds.index("add")  # in the order written

    again = await restart(after, tmp_path)
    assert again.chat.sent == []
    await again.db.close()


async def test_a_councilor_calls_expiry_committed_then_a_crash_edits_the_notices_and_tells_the_trial_after_the_restart(
    tmp_path: Path,
) -> None:
    club, trial_id = await in_game_trial(tmp_path)
    assert (await club.desk.trials.call_councilor(await club.get("sudija1"), trial_id)).ok
    (ccall,) = await club.db.calls.councilor_calls_for(trial_id)
    club.chat.clear()
    await crash_after_commit(club)
    await club.advance(timedelta(minutes=club.config.call_minutes + 1))
    (expired,) = await club.db.calls.councilor_calls_for(trial_id)
    assert expired.state == "expired"
    assert club.chat.sent == []  # a live Pridruži se button, and the trial not told

    after = await restart(club, tmp_path)
    gone = after.desk.t("councilor.notice_expired", game=600)
    assert [(s.where, s.text) for s in of(after.chat, "edit")] == [("#referees", gone), ("dm:vecnik", gone)]
    assert [(s.where, s.text) for s in of(after.chat, "say")] == [
        (f"trial:{trial_id}", after.desk.t("councilor.expired"))
    ]
    assert not (await after.desk.trials.join_as_councilor(await after.get("vecnik"), ccall.id)).ok

    again = await restart(after, tmp_path)
    assert again.chat.sent == []
    await again.db.close()


async def test_a_councilor_calls_rows_are_in_the_clubs_language_whatever_the_referee_and_councilor_read(
    tmp_path: Path,
) -> None:
    club, trial_id = await in_game_trial(tmp_path)
    sr, en = Catalogue("sr"), Catalogue("en")
    for nick in ("sudija1", "vecnik"):
        await set_member_language(club.db, (await club.get(nick)).id, "en", club.clock.now())
    asked = await club.desk.press(await club.get("sudija1"), "councilor", trial_id)
    assert asked.text == en.t("councilor.ok")  # his answer in his language
    (ccall,) = await club.db.calls.councilor_calls_for(trial_id)
    assert {s.text for s in of(club.chat, "post")} == {club.desk.t("councilor.notice", game=600, until=ccall.deadline)}
    assert club.desk.voice.messages.language == "sr"
    assert [b.label for b in of(club.chat, "post")[0].buttons] == [sr.t("button.join")]
    assert [s.text for s in of(club.chat, "say")] == [sr.t("councilor.called", minutes=5)]
    joined = await club.desk.press(await club.get("vecnik"), "join", ccall.id)
    assert joined.text == en.t("councilor.join_ok", trial=trial_id, game=600)
    assert {s.text for s in of(club.chat, "edit")} == {sr.t("councilor.notice_taken", game=600, councilor="vecnik")}
    assert [s.text for s in of(club.chat, "add")] == [sr.t("councilor.joined", nick="vecnik")]
    await club.db.close()


async def test_a_4xx_a_platform_may_heal_is_retried_then_dead_with_the_officials_told_then_sent_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A channel whose permission the bot lacks answers 403 (Discord's Forbidden): not marked failed silently — it
    is retried to the bound, then dead, the officials told; once the permission is given, `sudija outbox --chat
    --retry` delivers it on that platform alone."""
    forbidden = type("Forbidden", (Exception,), {"status": 403})
    club, flaky, clock = await flaky_club(tmp_path, [forbidden("Missing Permissions")] * 4)
    assert (await club.desk.calls.call(await club.get("ana"), 500)).ok
    for _ in range(4):
        clock.now += timedelta(minutes=5)
        await club.desk.delivery.chat_outbox.deliver()
    notice, effect = await ChatOutboxStore(club.db).listing()
    assert effect.state is OutboxState.DEAD
    assert flaky.calls == 5  # the bound, then the notice
    told = club.desk.t(
        "outbox.effect_dead",
        id=effect.id,
        kind="post_call",
        platforms="flaky",
        error="flaky: Forbidden: Missing Permissions",
    )
    assert [s.text for s in of(club.chat, "post") if s.text == told] == [told]  # on the platform that works
    assert notice.state is OutboxState.SENT
    await club.db.close()

    db = str(database_for(tmp_path))
    assert await asyncio.to_thread(main_cli, ["outbox", "--chat", "--dead", "--lang", "en", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert "Given up (dead) 1, skipped 0." in listed
    assert "flaky failed, test done" in listed
    assert await asyncio.to_thread(main_cli, ["outbox", "--chat", "--retry", str(effect.id), "--db", db]) == 0
    capsys.readouterr()

    # The bot again, with both its platforms, the permission given: its start delivers what was sent again.
    chat, db_again = RecordingChat(), await open_database(database_for(tmp_path))
    desk = Desk(db_again, Chats([chat, flaky]), LoggingGameServer(), club.clock, club.config, ManualTimers())  # type: ignore[list-item]
    await desk.start()
    assert len(flaky.told) == 2  # the notice, then the call's post, once
    assert of(chat, "post") == []  # the platform that had its part is not asked again
    again = await ChatOutboxStore(db_again).get(effect.id)
    assert again is not None
    assert again.state is OutboxState.SENT
    assert again.deliveries == {"test": DeliveryState.DONE, "flaky": DeliveryState.DONE}
    await db_again.close()


def main_cli(argv: list[str]) -> int:
    from bot.cli import main  # noqa: PLC0415 (an officer's command line)

    return main(argv)
