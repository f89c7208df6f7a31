"""Dead letters instead of stuck queues (issue 31, build item 5; issue 32, build item 4): a command the game server
keeps refusing in a way that may heal is retried with backoff up to the configured bound, then it is `dead`; the
officials are told at once, in their channel, what is stuck and what to do; where order matters (a table's
resume after its paper) the queue waits behind it, and elsewhere it goes on — the table's next pause is never held.
`sudija outbox --retry` sends it again once the game server is mended, `--skip` gives it up with the reason, who
and when. The 4xx that can heal (401, 403, a 404 that is not the protocol's, 429 …) are retried, `Retry-After`
is honoured, and only a refusal the protocol calls final is final. Over loopback HTTP, against the reference game
server with its answers overridden (`Faults`), on both backends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from linked import Linked, make_linked
from test_outbox_game_server import club_of, table_of
from test_penalties import judge, people

from bot.cli import main
from bot.config import OutboxConfig
from club import NOW, database_for
from fakes.chat import Sent
from rules.gamelog import GameStatus
from rules.verdicts import BulaChange, Draft
from storage.errors import Conflict
from storage.outbox import Command
from storage.outbox_engine import outbox_counts
from storage.states import OutboxState

GAME = 200
BOUND = 3  # the club's [outbox] max_attempts in these tests


@dataclass
class Faults:
    """The game server's answer to a command of a kind, overridden while it is set: (status, body, headers)."""

    answers: dict[str, tuple[int, str, dict[str, str]]] = field(default_factory=dict)
    seen: list[tuple[str, int]] = field(default_factory=list)  # (kind, status) of every command it answered so

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == "/v1/commands":
            kind = json.loads(await request.read()).get("type")
            if kind in self.answers:
                status, text, headers = self.answers[kind]
                self.seen.append((kind, status))
                return web.Response(status=status, text=text, headers=headers, content_type="application/json")
        return await handler(request)


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[tuple[Linked, Faults]]:
    bot = await make_linked(tmp_path, outbox=OutboxConfig(max_attempts=BOUND, max_age_minutes=600))
    faults = Faults()
    port = bot.ref_server.port
    await bot.ref_server.close()  # the same game server, its answers overridden where the test says
    app = bot.ref.app()
    app.middlewares.append(faults.middleware)
    bot.ref_server = TestServer(app, host="127.0.0.1", port=port)
    await bot.ref_server.start_server()
    try:
        yield bot, faults
    finally:
        await bot.close()


async def playing(bot: Linked) -> None:
    """Game 200 in progress at the game server's table and in the club's records."""
    club = club_of(bot)
    await people(club)
    await club.game(GAME, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    bot.ref.add_table(table_of(GAME))


async def until_ended(bot: Linked, command: int) -> Command:
    """Run the worker, the clock moving past each backoff, until the command is no longer pending."""
    store = bot.link.worker.store
    for _ in range(BOUND + 2):
        await bot.flush()
        row = await store.get(command)
        assert row is not None
        if row.state is not OutboxState.PENDING:
            return row
        bot.clock.advance(timedelta(minutes=10))
    raise AssertionError(f"#{command} still pending")


async def commands(bot: Linked, kind: str) -> list[Command]:
    return sorted((c for c in await bot.link.worker.store.listing() if c.kind == kind), key=lambda c: c.id)


def referees_told(bot: Linked) -> list[Sent]:
    return [s for s in bot.chat.sent if s.kind == "post" and s.where == "#referees"]


def sent_kinds(bot: Linked) -> list[str]:
    return [kind for _, kind, data in bot.ref.received if data.get("game") == GAME]


def outbox(tmp_path: Path, *args: str) -> Awaitable[int]:
    return asyncio.to_thread(main, ["outbox", "--lang", "en", "--db", str(database_for(tmp_path)), *args])


async def test_a_paper_refused_for_ever_is_dead_the_officials_are_told_and_the_next_pause_goes_through(
    linked: tuple[Linked, Faults], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot, faults = linked
    await playing(bot)
    faults.answers["paper_changed"] = (503, '{"ok": false, "error": "the paper service is down"}', {})
    await judge(club_of(bot), GAME, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "vređanje"), caller="marko")
    [paper] = await commands(bot, "paper_changed")
    [resume] = await commands(bot, "resume_table")

    dead = await until_ended(bot, paper.id)
    assert dead.state is OutboxState.DEAD
    assert dead.attempts == BOUND
    assert faults.seen == [("paper_changed", 503)] * BOUND  # retried up to the bound, then never again
    assert dead.last_error is not None
    assert "paper service is down" in dead.last_error
    # Where order matters the queue waits: play does not resume on a paper the game server never got.
    assert (await bot.link.worker.store.get(resume.id)).state is OutboxState.PENDING  # type: ignore[union-attr]
    assert await bot.link.worker.store.held_rows() == {resume.id: paper.id}
    assert bot.ref.tables[GAME].paused
    assert sent_kinds(bot) == ["pause_table"]
    # The officials are told at once, in their channel: what is stuck and what to do.
    [notice] = referees_told(bot)[-1:]
    error = dead.last_error[:300]
    assert notice.text == bot.desk.t("outbox.paper_stuck", id=paper.id, command="paper_changed", what=GAME, error=error)
    assert f"sudija outbox --retry {paper.id}" in notice.text
    assert await bot.link.worker.run_once() == 0  # nothing more to do meanwhile: the worker does not spin
    assert await bot.link.worker.store.next_wake() is None
    assert await bot.link.worker.drain(30.0)  # the console at exit waits for nothing that is held

    # The table's next trial: its pause is not held behind the dead paper, and the old resume is moot.
    club = club_of(bot)
    assert (await club.desk.calls.call(await club.get("ana"), GAME)).ok
    call = await club.db.calls.pending_for_game(GAME)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija2"), call.id)).ok
    await bot.flush()
    assert sent_kinds(bot) == ["pause_table", "pause_table"]
    moot = await bot.link.worker.store.get(resume.id)
    assert moot is not None
    assert moot.state is OutboxState.SKIPPED  # it would undo the newer trial's pause
    trial = await club.db.trials.open_for_game(GAME)
    assert trial is not None
    assert (await club.desk.trials.leave(await club.get("sudija2"), trial.id)).ok
    await bot.flush()
    assert sent_kinds(bot) == ["pause_table", "pause_table"]  # its resume waits behind the paper too
    assert bot.ref.tables[GAME].paused

    assert await outbox(tmp_path, "--dead") == 0
    listed = capsys.readouterr().out
    assert "Given up (dead) 1, skipped 1." in listed
    assert f"#{paper.id} " in listed
    assert "paper service is down" in listed

    # Mended: the operator sends it again; the paper, then the resume, reach the game server once each.
    faults.answers.clear()
    assert await outbox(tmp_path, "--retry", str(paper.id), "--by", "vesna") == 0
    # This test's bot holds no lock: on SQLite the command took it, as it does when no bot runs (bot/cli/_handoff.py)
    sends = (
        "no bot is running now: it is sent when the bot starts"
        if isinstance(database_for(tmp_path), Path)
        else ("the running bot sends it within a minute")
    )
    assert capsys.readouterr().out == f"#{paper.id} waits to be sent again; {sends}.\n"
    await bot.flush()
    assert sent_kinds(bot) == ["pause_table", "pause_table", "paper_changed", "resume_table"]
    assert not bot.ref.tables[GAME].paused
    again = await bot.link.worker.store.get(paper.id)
    assert again is not None
    assert again.state is OutboxState.SENT
    assert again.resolution is not None
    assert (again.resolution.by, again.resolution.reason) == ("vesna", None)
    assert await outbox(tmp_path) == 0
    listed = capsys.readouterr().out
    assert "sent again by vesna" in listed
    assert f"moot: #{(await commands(bot, 'pause_table'))[-1].id} paused the table later" in listed


async def test_skip_gives_a_dead_command_up_with_the_reason_and_who_and_the_table_goes_on(
    linked: tuple[Linked, Faults], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot, faults = linked
    await playing(bot)
    faults.answers["paper_changed"] = (500, "", {})
    await judge(club_of(bot), GAME, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "vređanje"), caller="marko")
    [paper] = await commands(bot, "paper_changed")
    assert (await until_ended(bot, paper.id)).state is OutboxState.DEAD

    assert await outbox(tmp_path, "--skip", str(paper.id)) == 2  # no reason: nothing done, the operator told why
    assert "--skip needs --reason" in capsys.readouterr().out
    reason = "the paper was set by hand on the game server"
    assert await outbox(tmp_path, "--skip", str(paper.id), "--reason", reason, "--by", "vesna") == 0
    assert capsys.readouterr().out == f"#{paper.id} is skipped (vesna: {reason}).\n"
    skipped = await bot.link.worker.store.get(paper.id)
    assert skipped is not None
    assert skipped.state is OutboxState.SKIPPED
    assert skipped.resolution is not None
    assert (skipped.resolution.by, skipped.resolution.reason) == ("vesna", reason)
    await bot.flush()
    assert sent_kinds(bot) == ["pause_table", "resume_table"]  # nothing holds the resume any more
    assert faults.seen == [("paper_changed", 500)] * BOUND  # the skipped paper is never sent

    assert await outbox(tmp_path, "--skipped") == 0
    assert f"skipped by vesna at {skipped.resolution.at:%Y-%m-%dT%H:%M:%S}Z: {reason}" in capsys.readouterr().out
    assert await outbox(tmp_path, "--retry", str(paper.id)) == 1  # a skipped row stays skipped
    assert capsys.readouterr().out == f"#{paper.id} is skipped: only a failed or dead row is sent again.\n"
    assert await outbox(tmp_path, "--skip", "999999", "--reason", "x") == 1
    assert capsys.readouterr().out == "The outbox has no #999999.\n"


async def test_the_4xx_that_can_heal_are_retried_and_only_a_final_refusal_is_final(
    linked: tuple[Linked, Faults],
) -> None:
    bot, faults = linked
    server = bot.desk.deps.game_server
    bot.ref.add_table(table_of(300))
    bot.ref.add_table(table_of(301))
    # A rotated secret (401), a proxy's page for a wrong address (404 without the protocol's answer): they heal.
    faults.answers["pause_table"] = (401, '{"ok": false, "field": "X-Sudija-Signature"}', {})
    faults.answers["resume_table"] = (404, "<html>Not Found</html>", {})
    await server.pause_table(300)
    await server.resume_table(301)
    assert await bot.flush() == 0
    waiting = {c.kind: c for c in await bot.link.worker.store.listing(OutboxState.PENDING)}
    assert {k: (c.attempts, c.last_error) for k, c in waiting.items()} == {
        "pause_table": (1, '401 {"ok": false, "field": "X-Sudija-Signature"}'),
        "resume_table": (1, "404 <html>Not Found</html>"),
    }
    faults.answers.clear()  # the secret set right, the address mended
    bot.clock.advance(timedelta(minutes=5))
    assert await bot.flush() == 2
    assert [k for _, k, _ in bot.ref.received] == ["pause_table", "resume_table"]
    assert bot.chat.sent == []  # healed before the bound: nobody needed telling
    # The protocol's own refusals are final: the game server knows no table 999 (404 naming data.game).
    await server.pause_table(999)
    assert await bot.flush() == 1
    [refused] = await bot.link.worker.store.listing(OutboxState.FAILED)
    assert (refused.kind, refused.attempts) == ("pause_table", 1)
    assert refused.last_error is not None
    [notice] = referees_told(bot)
    assert notice.text == bot.desk.t(
        "outbox.command_refused", id=refused.id, command="pause_table", what=999, error=refused.last_error[:300]
    )


async def test_retry_after_is_honoured(linked: tuple[Linked, Faults]) -> None:
    bot, faults = linked
    bot.ref.add_table(table_of(300))
    faults.answers["pause_table"] = (429, '{"ok": false}', {"Retry-After": "120"})
    await bot.desk.deps.game_server.pause_table(300)
    assert await bot.flush() == 0
    [waiting] = await bot.link.worker.store.listing(OutboxState.PENDING)
    assert waiting.next_at is not None
    assert waiting.next_at >= NOW + timedelta(seconds=120)  # not the backoff's second: what the game server asked
    bot.clock.advance(timedelta(seconds=60))
    assert await bot.flush() == 0
    assert faults.seen == [("pause_table", 429)]  # not asked again before its time
    faults.answers.clear()
    bot.clock.advance(timedelta(seconds=61))
    assert await bot.flush() == 1


async def test_the_outbox_counts_per_state_and_platform(linked: tuple[Linked, Faults]) -> None:
    """What a metrics endpoint reads: every outbox row, by state and platform."""
    bot, faults = linked
    await playing(bot)
    faults.answers["paper_changed"] = (503, "", {})
    await judge(club_of(bot), GAME, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "vređanje"), caller="marko")
    [paper] = await commands(bot, "paper_changed")
    await until_ended(bot, paper.id)
    counts = {(c.outbox, c.platform, c.state): c.count for c in await outbox_counts(bot.db)}
    gameserver = {state: n for (box, _, state), n in counts.items() if box == "gameserver"}
    assert gameserver == {
        OutboxState.SENT: len(bot.ref.received),
        OutboxState.DEAD: 1,
        OutboxState.PENDING: 1,  # the resume, held
    }
    chat = {(platform, state): n for (box, platform, state), n in counts.items() if box == "chat"}
    assert chat[("test", OutboxState.SENT)] >= 5  # the call, the trial, the verdict and the officials' notice
    assert ("server", OutboxState.SENT) in chat  # what the chat outbox asked of the game server
    assert {state for _, state in chat} == {OutboxState.SENT}


async def test_the_outboxes_rows_survive_the_migration_to_one_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database from before 0027, with commands and chat effects of every state and a platform's parts: every
    row keeps its id, state, tries and error (a chat effect still owns its parts), and the new states are taken."""
    from storage import database, postgres  # noqa: PLC0415 (the migrations are patched for the old database)

    every = database.migrations
    before = [m for m in every("sqlite") if m[0] < 27]
    monkeypatch.setattr(database, "migrations", lambda dialect="sqlite": [m for m in every(dialect) if m[0] < 27])
    monkeypatch.setattr(postgres, "migrations", lambda dialect: [m for m in every(dialect) if m[0] < 27])
    assert before[-1][0] == 26
    old = await database.open_database(database_for(tmp_path))
    stamp = "2026-11-30T12:00:00.000000Z"
    async with old.transaction() as conn:
        await conn.executemany(
            "INSERT INTO outbox (id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (1, "game:1", "pause_table", '{"game":1}', "k1", stamp, "sent", 1, stamp, None),
                (2, "game:1", "resume_table", '{"game":1}', "k2", stamp, "failed", 1, stamp, "404 no table"),
                (3, "nick:ana", "block_offers", '{"nick":"ana"}', "k3", stamp, "pending", 4, stamp, "503"),
            ],
        )
        await conn.executemany(
            "INSERT INTO chat_outbox (id, queue, kind, payload, created_at, state, attempts, last_error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (7, "call:1", "tell", '{"member": 1}', stamp, "failed", 1, "discord: Forbidden"),
                (8, "call:1", "tell", '{"member": 1}', stamp, "pending", 2, "telegram: TimedOut"),
            ],
        )
        await conn.executemany(
            "INSERT INTO chat_deliveries (effect, platform, state, at) VALUES (?, ?, ?, ?)",
            [(7, "discord", "failed", stamp), (7, "telegram", "done", stamp), (8, "discord", "done", stamp)],
        )
    await old.close()
    monkeypatch.undo()

    db = await database.open_database(database_for(tmp_path))
    try:
        from storage.chat_outbox import ChatOutboxStore  # noqa: PLC0415
        from storage.outbox import OutboxStore  # noqa: PLC0415

        commands = {c.id: (c.state, c.attempts, c.last_error) for c in await OutboxStore(db).listing()}
        assert commands == {
            1: (OutboxState.SENT, 1, None),
            2: (OutboxState.FAILED, 1, "404 no table"),
            3: (OutboxState.PENDING, 4, "503"),
        }
        effects = {e.id: (e.state, e.attempts, dict(e.deliveries)) for e in await ChatOutboxStore(db).listing()}
        assert effects == {
            7: (OutboxState.FAILED, 1, {"discord": "failed", "telegram": "done"}),
            8: (OutboxState.PENDING, 2, {"discord": "done"}),
        }
        assert await OutboxStore(db).retry(2, "vesna", NOW) is OutboxState.FAILED
        assert await ChatOutboxStore(db).skip(8, "vesna", "the member left", NOW) is OutboxState.PENDING
        assert await ChatOutboxStore(db).retry(7, "vesna", NOW) is OutboxState.FAILED
        assert await ChatOutboxStore(db).deliveries(7) == {"telegram": "done"}  # the failed part is asked again
        async with db.transaction() as conn:
            await conn.execute("UPDATE outbox SET state = 'dead' WHERE id = 3")
        with pytest.raises(Conflict, match=r"(?i)check"):  # a state the schema does not know
            async with db.transaction() as conn:
                await conn.execute("UPDATE outbox SET state = 'lost' WHERE id = 3")
    finally:
        await db.close()
