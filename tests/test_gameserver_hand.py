"""The hand in progress for the referee (protocol v1.1 ``hand_in_progress``), over loopback HTTP with the reference
game server and with a v1 one, a lying one and one that is down: asked when a referee takes an in-game call and
whenever he opens Prikaz ruke, shown to him alone, stored nowhere; a game server without it, and an answer that
does not fit, are said to be so."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from linked import Linked, live_game, make_linked

from bot.gameserver.reference import ReferenceGameServer, hand_moves, partial_hand
from bot.ports import Reply
from rules.gamelog import GameStatus, game_to_doc
from rules.live_hand import LiveHandError, with_hand_in_progress
from storage.gameserver import LiveFeedStore


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        await members(club)
        yield club
    finally:
        await club.close()


async def members(club: Linked) -> None:
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")


async def into_hand_two(linked: Linked, number: int, moves: int) -> None:
    """The table finishes hand 1 and plays `moves` moves of hand 2."""
    table = linked.table(number)
    while table.hand < 1:
        await table.step()
    for _ in range(min(moves, len(hand_moves(table.game.hands[1])) - 1)):  # hand 2 still in progress
        await table.step()


async def taken(linked: Linked, number: int) -> Reply:
    assert (await linked.desk.calls.call(await linked.get("ana"), None)).ok
    call = await linked.db.calls.pending_for_game(number)
    assert call is not None
    reply = await linked.desk.trials.take(await linked.get("sudija1"), call.id)
    assert reply.ok, reply.text
    return reply


def deal_line(linked: Linked, number: int, hand: int, seat: int) -> str:
    """How Prikaz ruke writes a player's cards of a hand of the table's game."""
    from rules.cards import display_hand  # noqa: PLC0415 (imported where the test needs it)

    game = linked.ref.tables[number].game
    return f"{game.players[seat]:>12}: {display_hand(game.hands[hand - 1].deal[seat])}"


async def test_the_referee_sees_the_hand_in_progress_when_he_takes_and_in_prikaz_ruke(linked: Linked) -> None:
    table_moves = 4
    await into_hand_two(linked, 540, table_moves)
    digest = await LiveFeedStore(linked.db).digest(540)
    reply = await taken(linked, 540)
    dealer = linked.ref.tables[540].game.players[linked.ref.tables[540].game.hands[1].dealer]
    assert f"Ruka 2, deli {dealer} (u toku)" in reply.text
    for seat in range(3):
        assert deal_line(linked, 540, 2, seat) in reply.text
    shown = await linked.desk.show_hands(await linked.get("sudija1"))
    assert shown.ok, shown.text
    assert all(deal_line(linked, 540, 2, seat) in shown.text for seat in range(3))
    assert deal_line(linked, 540, 1, 0) in shown.text  # the finished hands too
    assert len(linked.ref.asked) == 2  # asked at the take and at Prikaz ruke
    # Shown to the referee alone: no player, spectator or chat place got the cards of the hand in progress, and
    # the players may not open Prikaz ruke; nothing of it was stored.
    hidden = deal_line(linked, 540, 2, 0)
    assert not any(hidden in sent.text for sent in linked.chat.sent)
    assert not (await linked.desk.show_hands(await linked.get("ana"))).ok
    assert await LiveFeedStore(linked.db).digest(540) == digest
    game = await linked.db.games.get(540)
    assert game is not None
    assert [h.n for h in game.hands] == [1]


async def test_the_trick_being_played_and_an_unseen_talon_are_said(linked: Linked) -> None:
    table = linked.table(541)
    await table.step()
    hand = table.game.hands[0]
    moves = hand_moves(hand)
    first_card = next(i for i, m in enumerate(moves) if m.what.startswith("card"))
    while table.move < first_card + 1:  # one card of the first trick played
        await table.step()
    reply = await taken(linked, 541)
    assert "Štih u toku (ruka 1):" in reply.text
    assert not hand.contract or hand.contract.igra or "sto još nije video" not in reply.text


class V1(ReferenceGameServer):
    """A game server of protocol v1: it knows no `hand_in_progress`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers_queries = False


async def test_a_v1_game_server_the_referee_is_told_it_is_not_available(tmp_path: Path) -> None:
    linked = await make_linked(tmp_path, server=V1)
    try:
        await members(linked)
        await into_hand_two(linked, 542, 3)
        reply = await taken(linked, 542)
        assert "Ruka u toku (partija 542) nije dostupna: server igre ne daje ruku u toku (govori protokol v1)." in (
            reply.text
        )
        shown = await linked.desk.show_hands(await linked.get("sudija1"))
        assert shown.ok
        assert "nije dostupna" in shown.text
        assert deal_line(linked, 542, 1, 0) in shown.text  # the stored hands are shown still
        await linked.flush()
        assert [kind for _, kind, _ in linked.ref.received] == ["pause_table"]  # the trial goes on as ever
    finally:
        await linked.close()


async def test_an_answer_that_does_not_fit_and_a_game_server_down_are_said(linked: Linked) -> None:
    await into_hand_two(linked, 543, 2)
    table = linked.ref.tables[543]
    original = table.hand_in_progress

    def lying() -> dict[str, Any]:
        answer = original()
        answer["hand"] = {**answer["hand"], "n": 5}  # not the next hand of the stored game
        return answer

    table.hand_in_progress = lying  # type: ignore[method-assign]
    reply = await taken(linked, 543)
    assert "nije dostupna: odgovor servera igre se ne slaže sa partijom kakvu bot zna" in reply.text
    assert "(u toku)" not in reply.text
    await linked.ref_server.runner.cleanup()
    shown = await linked.desk.show_hands(await linked.get("sudija1"))
    assert "nije dostupna: server igre nije odgovorio na vreme" in shown.text


async def test_a_hand_just_dealt_and_none_being_played(linked: Linked) -> None:
    await into_hand_two(linked, 544, 0)  # hand 2 dealt, nobody has bid yet
    reply = await taken(linked, 544)
    assert "Ruka 2, deli" in reply.text
    assert "dalje" not in reply.text  # no auction yet: not an all-pass hand
    table = linked.ref.tables[544]
    table.hand_in_progress = lambda: {"ok": True, "hand": None}  # type: ignore[method-assign]
    shown = await linked.desk.show_hands(await linked.get("sudija1"))
    assert "nije dostupna: za stolom se sada ne igra nijedna ruka" in shown.text


def test_every_prefix_of_a_hand_is_a_hand_in_progress_that_fits() -> None:
    for seed in range(12):
        game = live_game(3000 + seed, ("ana", "marko", "petar"), 3)
        for index, hand in enumerate(game.hands):
            before = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=game.hands[:index])
            for played in range(len(hand_moves(hand)) + 1):
                shown, trick, seen = partial_hand(hand, played)
                doc = game_to_doc(replace(game, hands=(shown,)))["hands"][0]
                doc["n"] = index + 1
                answer = {"hand": doc, "current_trick": [str(c) for c in trick], "talon_seen": seen}
                live = with_hand_in_progress(before, answer)
                assert live.hand.bids == shown.bids
                assert [card for _, card in live.current_trick] == list(trick)


def test_a_withheld_talon_is_the_two_cards_nobody_holds_and_unseen() -> None:
    game = live_game(3100, ("ana", "marko", "petar"), 2)
    before = replace(game, status=GameStatus.IN_PROGRESS, ended_at=None, hands=())
    shown, _, _ = partial_hand(game.hands[0], 1)
    doc = game_to_doc(replace(game, hands=(shown,)))["hands"][0]
    del doc["deal"]["talon"]
    live = with_hand_in_progress(before, {"hand": doc})
    assert set(live.hand.talon) == set(game.hands[0].talon)
    assert not live.talon_seen
    for wrong in ({"hand": "x"}, {"hand": doc, "talon_seen": "no"}, {"hand": doc, "current_trick": ["AS"] * 3}):
        with pytest.raises(LiveHandError):
            with_hand_in_progress(before, wrong)
