"""Resync as state, not actions, over loopback HTTP with the reference game server: what the bot re-asserts at a
start (an open trial's pause, a block, a running plavac or suspension; the release of trials that ended lately)
carries the key of the state it asserts — the key its first assertion had — so two restarts make the game server
see no command it has done already under a new key, and nothing is sent for a game an administrator closed (its
table is told so, and never resumed)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from linked import Linked, make_linked

from bot.chat_outbox import suspension_key
from bot.config import load
from bot.desk import Desk
from bot.gameserver.link import GameServerLink
from bot.gameserver.outbox import HttpGameServer
from bot.ports import Chats, ManualTimers
from rules.verdicts import Draft, Penalty
from storage.outbox import OutboxStore


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        for nick in ("ana", "marko", "petar", "jelena", "zoran", "ivana", "mira", "bojan", "vesna"):
            await club.member(nick)
        await club.member("sudija1", "referee")
        await club.member("sudija2", "referee")
        await club.member("sudija3", "referee")
        yield club
    finally:
        await club.close()


async def restart(linked: Linked) -> None:
    """The bot starts again over the same database: a new desk and link, listening where the old one did, the
    desk's start (its resync), the link's start (the feed's), and the outbox sent."""
    await linked.link.stop()
    await linked.bot_server.close()
    port = HttpGameServer(linked.db, linked.clock.now)
    desk = Desk(linked.db, Chats([linked.chat]), port, linked.clock, linked.desk.config, ManualTimers())
    await desk.start()
    link = GameServerLink(desk, desk.config.gameserver, linked.link.keys, clock=linked.clock.now)
    link.worker.rng = random.Random(7)
    linked.desk, linked.link = desk, link
    linked.bot_server = TestServer(link.app, host="127.0.0.1", port=linked.bot_server.port)
    await linked.bot_server.start_server()
    await link.feed.resync()  # the link's start, but its worker: the test sends the outbox (`flush`)
    await linked.flush()


def table_lines(linked: Linked, game: int) -> list[str]:
    return [sent.text for sent in linked.chat.to(f"table:{game}")]


async def trial(linked: Linked, caller: str, referee: str, number: int | None) -> None:
    reply = await linked.desk.calls.call(await linked.get(caller), number)
    assert reply.ok, reply.text
    call = await linked.db.calls.pending_by_caller((await linked.get(caller)).id)
    assert call is not None
    assert (await linked.desk.trials.take(await linked.get(referee), call.id)).ok
    await linked.flush()


async def test_two_restarts_send_no_command_done_already_under_a_new_key(linked: Linked) -> None:
    # An in-game trial stays open across the restarts: its table stays paused.
    paused = linked.table(520)
    for _ in range(3):
        await paused.step()
    await trial(linked, "ana", "sudija1", None)
    assert paused.paused
    # An out-of-game trial with a plavac verdict: the caller's offers blocked, then unblocked; the plavac runs.
    ended = linked.table(521, ("jelena", "zoran", "ivana"))
    while await ended.step():
        pass
    await trial(linked, "jelena", "sudija2", 521)
    drafted = await linked.desk.draft(await linked.get("sudija2"), Draft(Penalty("zoran", plavac_days=3), "x"))
    assert drafted.ok, drafted.text
    assert (await linked.desk.finish(await linked.get("sudija2"))).ok
    await linked.flush()
    # An in-game trial of a game an administrator closes: interrupted, its table told, never resumed.
    closed = linked.table(522, ("mira", "bojan", "vesna"))
    for _ in range(3):
        await closed.step()
    await trial(linked, "mira", "sudija3", None)
    await closed.admin_close()
    await linked.flush()
    assert any("zatvorena na serveru igre" in said for said in table_lines(linked, 522))
    assert not any("igra se nastavlja" in said for said in table_lines(linked, 522))
    done = list(linked.ref.received)
    kinds = sorted(kind for _, kind, _ in done)
    assert kinds == sorted(["pause_table", "block_offers", "unblock_offers", "set_plavac", "pause_table"]), kinds
    keys = {kind: key for key, kind, data in done if kind != "pause_table"}
    assert keys["block_offers"].startswith("block:jelena:trial:")
    assert keys["set_plavac"].startswith("plavac:zoran:")
    assert {key for key, kind, _ in done if kind == "pause_table"} == {
        f"pause:520:trial:{(await linked.db.trials.for_game(520))[0].id}",
        f"pause:522:trial:{(await linked.db.trials.for_game(522))[0].id}",
    }
    rows = len(await OutboxStore(linked.db).listing())
    for _ in range(2):
        await restart(linked)
        assert linked.ref.received == done  # nothing done again, nothing new under another key
        assert len(await OutboxStore(linked.db).listing()) == rows  # nor even written
        assert linked.ref.posted == len(done)  # not even posted again: the outbox knew it was sent
    assert not any(kind == "resume_table" for _, kind, _ in linked.ref.received)


async def test_a_state_asserted_while_its_first_command_waits_is_one_command(linked: Linked) -> None:
    """A crash between the take and the delivery of its pause: the restart's resync and the delivery write the
    pause once, under its state's key, and the game server does it once."""
    table = linked.table(523)
    for _ in range(3):
        await table.step()
    assert (await linked.desk.calls.call(await linked.get("ana"), None)).ok
    call = await linked.db.calls.pending_by_caller((await linked.get("ana")).id)
    assert call is not None
    await linked.ref_server.runner.cleanup()  # the game server is down while the trial opens
    assert (await linked.desk.trials.take(await linked.get("sudija1"), call.id)).ok
    assert await linked.flush() == 0
    linked.ref_server = TestServer(linked.ref.app(), host="127.0.0.1", port=linked.ref_server.port)
    await linked.ref_server.start_server()
    linked.clock.advance(timedelta(minutes=10))
    for _ in range(2):
        await restart(linked)
    trial_id = (await linked.db.trials.for_game(523))[0].id
    assert [(key, kind) for key, kind, _ in linked.ref.received] == [(f"pause:523:trial:{trial_id}", "pause_table")]
    assert table.paused


async def test_a_suspension_is_asserted_again_under_its_key_and_its_end_told_once(
    linked: Linked, tmp_path: Path
) -> None:
    """The third club's suspension "from all tournaments" is told to the game server (set_suspension), never as a
    plavac: two restarts while it runs re-assert it under its state's key, so the game server does it once; when it
    has run out (the bot down at that moment), its end is told once, and a restart after that sends nothing."""
    pack = tmp_path / "ruski.toml"
    pack.write_text('[club]\npack = "ruski_sajt"\n', encoding="utf-8")
    ruski = load(pack)
    linked.desk.config = replace(linked.desk.config, penalties=ruski.penalties, appeals=ruski.appeals)
    ended = linked.table(524, ("jelena", "zoran", "ivana"))
    while await ended.step():
        pass
    await trial(linked, "jelena", "sudija2", 524)
    drafted = await linked.desk.draft(
        await linked.get("sudija2"), Draft(Penalty("zoran", offence="pustanje_misera"), "x")
    )
    assert drafted.ok, drafted.text
    assert (await linked.desk.finish(await linked.get("sudija2"))).ok
    await linked.flush()
    until = linked.clock.now() + timedelta(days=10)
    [(key, data)] = [(key, data) for key, kind, data in linked.ref.received if kind == "set_suspension"]
    assert key == suspension_key("zoran", until)
    assert data["nick"] == "zoran"
    assert not [kind for _, kind, _ in linked.ref.received if kind == "set_plavac"]
    done = list(linked.ref.received)
    for _ in range(2):
        await restart(linked)
        assert linked.ref.received == done  # re-asserted under the same key: nothing done again
    linked.clock.set(until + timedelta(days=3))  # the bot was down when it ran out
    await restart(linked)
    ends = [data for _, kind, data in linked.ref.received if kind == "set_suspension" and data["until"] is None]
    assert ends == [{"nick": "zoran", "until": None}]
    after = list(linked.ref.received)
    await restart(linked)
    assert linked.ref.received == after
