"""Korekcija's parties told, over loopback HTTP: the request agreed (both consenting players hear it), refused by a
player (the requester and the other player hear it), lapsed at the next move or at the hand's end, refused by the
game server or given up while it was down (each player told, the request lapsed) — and its undo dated by the clock
of the outbox's worker, so a console club whose own clock is days ahead sends it at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from linked import Linked, make_linked, players_linked

from bot.commands import Commands
from bot.gameserver.protocol import encode
from bot.gameserver.reference import ReferenceGameServer, hand_moves
from bot.ports import ManualClock
from storage.errors import DatabaseBusy
from storage.gameserver import LiveFeedStore
from storage.states import KorekcijaState


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    async with players_linked(tmp_path) as club:
        yield club


async def requested(linked: Linked, number: int) -> tuple[Commands, str, list[str], int]:
    """A table whose first move was just played, and its player's korekcija asked: (commands, mover, the two
    others, the request's id)."""
    table = linked.table(number)
    await table.step()
    await table.step()
    last = await LiveFeedStore(linked.db).last_move(number)
    assert last is not None
    commands = Commands(linked.desk)
    asked = await commands.handle(await linked.get(last.player), "/korekcija")
    assert asked is not None
    assert asked.ok, asked.text
    korekcija = await LiveFeedStore(linked.db).pending_korekcija(number)
    assert korekcija is not None
    return commands, last.player, [n for n in table.game.players if n != last.player], korekcija.id


def heard(linked: Linked, nick: str, text: str) -> int:
    return sum(1 for sent in linked.chat.to(f"dm:{nick}") if text in sent.text)


async def agree(linked: Linked, commands: Commands, others: list[str]) -> None:
    for nick in others:
        reply = await commands.handle(await linked.get(nick), "/korekcija da")
        assert reply is not None
        assert reply.ok, reply.text


async def test_both_consenting_players_and_the_requester_hear_it_agreed(linked: Linked) -> None:
    commands, mover, others, _ = await requested(linked, 530)
    await agree(linked, commands, others)
    assert heard(linked, mover, "Oba igrača su se složila") == 1
    assert heard(linked, others[0], "Oba igrača su se složila") == 1  # the first to consent hears it too
    assert heard(linked, others[1], "Oba igrača su se složila") == 0  # the second is answered instead


async def test_a_refusal_is_heard_by_the_requester_and_the_other_player(linked: Linked) -> None:
    commands, mover, others, _ = await requested(linked, 531)
    reply = await commands.handle(await linked.get(others[0]), "/korekcija ne")
    assert reply is not None
    assert reply.ok
    assert heard(linked, mover, f"{others[0]} se ne slaže") == 1
    assert heard(linked, others[1], f"{others[0]} se ne slaže") == 1


async def test_a_request_lapsed_by_the_next_move_is_told_to_every_party(linked: Linked) -> None:
    _, mover, others, request = await requested(linked, 532)
    await linked.ref.tables[532].step()  # the next move, before anyone answered
    for nick in (mover, *others):
        assert heard(linked, nick, "odigran je sledeći potez") == 1, nick
    korekcija = await LiveFeedStore(linked.db).korekcija(request)
    assert korekcija is not None
    assert korekcija.state is KorekcijaState.LAPSED
    await linked.ref.tables[532].step()  # told once: a later move lapses nothing more
    assert heard(linked, mover, "odigran je sledeći potez") == 1


async def test_a_move_whose_lapse_cannot_be_told_is_not_taken_until_it_can(
    linked: Linked, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transaction that takes a move asks how to tell the parties of a request it lapses; when that cannot be
    said (the database busy), the move is not taken (500: the game server sends it again), and the request
    stays open rather than lapsing untold."""
    _, mover, others, request = await requested(linked, 533)
    table = linked.ref.tables[533]
    feed = linked.link.feed

    async def busy(game: int, why: str) -> dict[int, list[Any]]:
        raise DatabaseBusy("the database is busy")

    move = {
        "v": 1,
        "id": "k-533-next",
        "type": "move_played",
        "game": 533,
        "seq": table.seq + 1,
        "data": {"hand": 1, "move": 2, "player": others[0], "what": "dalje"},
    }
    monkeypatch.setattr(feed, "lapses_with", [busy])
    status, answer = await feed.apply(encode(move))
    assert (status, answer["ok"]) == (500, False)
    still = await LiveFeedStore(linked.db).korekcija(request)
    assert still is not None
    assert still.state is KorekcijaState.PENDING
    monkeypatch.undo()
    assert await feed.apply(encode(move)) == (200, {"ok": True, "last_seq": table.seq + 1})
    lapsed = await LiveFeedStore(linked.db).korekcija(request)
    assert lapsed is not None
    assert lapsed.state is KorekcijaState.LAPSED
    for nick in (mover, *others):
        assert heard(linked, nick, "odigran je sledeći potez") == 1, nick


async def test_a_request_lapsed_by_the_hands_end_is_told(linked: Linked) -> None:
    table = linked.table(533)
    await table.step()
    moves = len(hand_moves(table.game.hands[0]))
    while table.move < moves:  # the hand's last move
        await table.step()
    last = await LiveFeedStore(linked.db).last_move(533)
    assert last is not None
    asked = await Commands(linked.desk).handle(await linked.get(last.player), "/korekcija")
    assert asked is not None
    assert asked.ok, asked.text
    await table.step()  # hand_finished
    for nick in table.game.players:
        assert heard(linked, nick, "ruka je završena") == 1, nick


class Stubborn(ReferenceGameServer):
    """A game server that never takes a move back: its table moved on (the protocol's final `409` on
    `data.move`)."""

    async def obey(self, kind: str, data: dict[str, Any]) -> tuple[str, str, int] | None:
        if kind == "undo_move":
            return "data.move", f"move {data['move']} of hand {data['hand']} is no longer the last", 409
        return await super().obey(kind, data)


async def test_an_undo_the_game_server_refuses_is_told_to_every_party(tmp_path: Path) -> None:
    linked = await make_linked(tmp_path, server=Stubborn)
    try:
        for nick in ("ana", "marko", "petar"):
            await linked.member(nick)
        commands, mover, others, request = await requested(linked, 534)
        await agree(linked, commands, others)
        assert await linked.flush() == 1
        for nick in (mover, *others):
            assert heard(linked, nick, "Server igre nije vratio potez u partiji 534") == 1, nick
        korekcija = await LiveFeedStore(linked.db).korekcija(request)
        assert korekcija is not None
        assert korekcija.state is KorekcijaState.LAPSED
        failed = await linked.link.worker.store.listing()
        assert [(c.kind, c.state.value) for c in failed] == [("undo_move", "failed")]
    finally:
        await linked.close()


async def test_an_undo_given_up_while_the_game_server_is_down_is_told(linked: Linked) -> None:
    commands, mover, others, request = await requested(linked, 535)
    await linked.ref_server.runner.cleanup()  # down, and it stays down past the outbox's bound
    await agree(linked, commands, others)
    for _ in range(30):
        await linked.flush()
        linked.clock.advance(timedelta(minutes=10))
    for nick in (mover, *others):
        assert heard(linked, nick, "Server igre se nije odazvao") == 1, nick
    korekcija = await LiveFeedStore(linked.db).korekcija(request)
    assert korekcija is not None
    assert korekcija.state is KorekcijaState.LAPSED


async def test_the_undo_is_dated_by_the_workers_clock(tmp_path: Path) -> None:
    """The console club's clock runs days ahead of the real one the worker uses: the undo is sent at once."""
    linked = await make_linked(tmp_path)
    try:
        for nick in ("ana", "marko", "petar"):
            await linked.member(nick)
        desk_clock = ManualClock(linked.clock.now() + timedelta(days=3))
        linked.desk.deps.clock = desk_clock  # the desk's own clock; the worker keeps the link's
        commands, mover, others, _ = await requested(linked, 536)
        await agree(linked, commands, others)
        assert await linked.flush() == 1
        assert [kind for _, kind, _ in linked.ref.received] == ["undo_move"]
        assert heard(linked, mover, "Potez je vraćen") == 1
    finally:
        await linked.close()
