"""The players' corrections through the desk and the text commands: Odlazak u bulu umesto drugog (chosen,
cancelled, repeated, too late), the Arbitar (offer, acceptance with a transfer that can never be cancelled, a fall
that stays, refusal with and without the referee hint) and Ispravka (proposal, consent, reduction to 2 bule,
replacement, cancellation, one per hand, only the erring player) in rated, unrated and AI games.

The Arbitar's procedure is another module's (tested there); here a fake `rules.arbitar.procedure` returns the
verdict each test chooses, so the tests follow the flow."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import types
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta

import pytest

from bot.commands import Commands
from bot.ports import Reply
from club import NOW, Club
from rules.arbitar.verdict import NOT_OBVIOUS, STAYS, TRANSFER, ArbitarVerdict
from rules.gamelog import Game, GameStatus, game_to_doc
from rules.generator import generate_game
from rules.paper import NOTE_REDUCED, ChangeKind, Paper, PaperChange, compute_paper
from rules.paper_changes import check_change
from rules.paper_hand import DefenceShape
from storage.games import PreparedGame

PLAYERS = ("ana", "marko", "petar")
AI_PLAYERS = ("ana", "marko", "robot_mile")


@dataclass(frozen=True)
class Fall:
    """A hand in which exactly one defender fell while both followed."""

    game: Game
    hand: int
    declarer: str
    fallen: str
    other: str
    value: int


def _generate(number: int, players: tuple[str, str, str], hands: int, rated: bool, ai: bool, bule: int = 60) -> Game:
    return generate_game(
        random.Random(number),
        number,
        hands=hands,
        status=GameStatus.IN_PROGRESS,
        rated=rated,
        ai=ai,
        players=players,
        start=NOW - timedelta(hours=2),
        bule=bule,
    )


def _defender_fall(game: Game, paper: Paper, n: int) -> Fall | None:
    score = paper.hands[n - 1].score
    if score is None or score.declarer is None or score.shape is not DefenceShape.BOTH:
        return None
    fallen = [s for s in score.fallen if s != score.declarer]
    if len(fallen) != 1 or score.declarer in score.fallen:
        return None
    other = 3 - score.declarer - fallen[0]
    names = game.players
    return Fall(game, n, names[score.declarer], names[fallen[0]], names[other], score.value)


async def store(club: Club, game: Game) -> Game:
    await club.db.games.store([PreparedGame.of(game)], club.clock.now())
    return game


async def fall_game(
    club: Club,
    *,
    players: tuple[str, str, str] = PLAYERS,
    rated: bool = True,
    ai: bool = False,
    hands: int = 6,
    back: int = 0,
    want: Callable[[Fall], bool] = lambda fall: True,
) -> Fall:
    """An in-progress game (its last hand unfinished) whose completed hand `back` hands before the last completed
    one had exactly one defender fall (and meets `want`); generated deterministically and stored."""
    for number in range(1, 3000):
        game = _generate(number, players, hands, rated, ai)
        n = hands - 1 - back
        found = _defender_fall(game, compute_paper(game), n)
        if found is not None and want(found):
            await store(club, game)
            return found
    raise AssertionError("no such game generated")


def fake_arbitar(
    monkeypatch: pytest.MonkeyPatch, decide: Callable[[Game, int, int], ArbitarVerdict]
) -> list[tuple[int, int, int]]:
    """Put a fake `rules.arbitar.procedure` in place; returns the list of calls it gets."""
    calls: list[tuple[int, int, int]] = []
    module = types.ModuleType("rules.arbitar.procedure")

    def arbitrate(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
        calls.append((game.number, hand, fallen))
        return decide(game, hand, fallen)

    module.arbitrate = arbitrate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rules.arbitar.procedure", module)
    return calls


def transfer(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    score = compute_paper(game).hands[hand - 1].score
    assert score is not None
    assert score.declarer is not None
    return ArbitarVerdict(
        TRANSFER,
        3 - score.declarer - fallen,
        1,
        "Drugi pratilac je odigrao KS umesto 7S.",
        {"trick": 3, "card": "KS", "better": "7S", "layouts": "812/1000"},
    )


def stays(game: Game, hand: int, fallen: int) -> ArbitarVerdict:
    return ArbitarVerdict(STAYS, None, 2, NOT_OBVIOUS, {"rezons": "2 / 1"})


async def join(club: Club, *nicks: str) -> Commands:
    for nick in nicks:
        await club.member(nick)
    return Commands(club.desk)


async def say(commands: Commands, club: Club, nick: str, line: str) -> Reply:
    reply = await commands.handle(await club.get(nick), line)
    assert reply is not None
    return reply


async def paper_of(club: Club, game: Game) -> Paper:
    return compute_paper(game, await club.db.paper_changes.for_game(game.number))


def bule_after(paper: Paper, hand: int) -> tuple[int, int, int]:
    return paper.hands[hand - 1].bule_after


async def events(club: Club) -> list[str]:
    return [e.kind for e in reversed(await club.db.events.listing())]


async def feed_next_hand(club: Club, game: Game) -> Game:
    """The live feed finishes the hand after: the stored log grows by one completed hand (as the game server's
    feed would write it, raising the paper's version with it), keeping the changes already attached to earlier
    hands."""
    longer = _generate(game.number, game.players, len(game.hands) + 1, game.rated, game.ai)
    assert longer.hands[: len(game.hands) - 1] == game.hands[:-1]
    raw = json.dumps(game_to_doc(longer), separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()
    async with club.db.transaction() as conn:
        await conn.execute(
            "UPDATE games SET log = ?, hand_count = ?, digest = ?, version = version + 1 WHERE number = ?",
            (zlib.compress(raw), len(longer.hands), f"fed-{len(longer.hands)}", game.number),
        )
    stored = await club.db.games.get(game.number)
    assert stored is not None
    assert stored.hands[len(game.hands) - 1].completed
    return stored


# Odlazak u bulu umesto drugog ---------------------------------------------------------------------------------


async def test_the_player_who_did_not_fall_goes_into_the_bule_at_once(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    before = bule_after(await paper_of(club, game), n)
    refused = await say(commands, club, fall.fallen, f"/bula {n}")
    assert not refused.ok
    assert "pali" in refused.text
    declarer = await say(commands, club, fall.declarer, f"/bula {n}")
    assert not declarer.ok
    assert "odigravač" in declarer.text
    done = await say(commands, club, fall.other, f"/bula {n}")
    assert done.ok, done.text
    after = bule_after(await paper_of(club, game), n)
    seats = {nick: game.seat_of(nick) for nick in PLAYERS}
    assert after[seats[fall.fallen]] == before[seats[fall.fallen]] - fall.value  # type: ignore[index]
    assert after[seats[fall.other]] == before[seats[fall.other]] + fall.value  # type: ignore[index]
    rows = await club.db.paper_changes.rows(game.number)
    assert [(r.kind, r.hand, r.data["player"]) for r in rows] == [("odlazak_u_bulu", n, seats[fall.other])]
    assert rows[0].by_member == (await club.get(fall.other)).id
    told = club.chat.to(f"dm:{fall.fallen}")[-1]
    assert f"/ponisti {n}" in told.text
    assert [b.action for b in told.buttons] == ["cancel_change"]
    assert any(fall.other in s.text for s in club.chat.to(f"table:{game.number}"))
    assert "odlazak_chosen" in await events(club)
    twice = await say(commands, club, fall.other, f"/bula {n}")
    assert not twice.ok
    assert "već prebačen odlaskom" in twice.text


async def test_the_fallen_player_cancels_and_the_other_may_go_again(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    played = bule_after(await paper_of(club, game), n)
    assert (await say(commands, club, fall.other, f"/bula {n}")).ok
    assert not (await say(commands, club, fall.other, f"/ponisti {n}")).ok  # only the fallen player cancels
    assert not (await say(commands, club, fall.declarer, f"/ponisti {n}")).ok
    cancelled = await say(commands, club, fall.fallen, f"/ponisti {n}")
    assert cancelled.ok, cancelled.text
    assert bule_after(await paper_of(club, game), n) == played
    assert await club.db.paper_changes.for_game(game.number) == []
    again = await say(commands, club, fall.other, f"/bula {n}")
    assert again.ok, again.text
    # The cancel button under the message carries the change's id; it is re-checked like the command.
    told = club.chat.to(f"dm:{fall.fallen}")[-1]
    change_id = told.buttons[0].ref
    assert not (await club.desk.press(await club.get(fall.other), "cancel_change", change_id)).ok
    assert (await club.desk.press(await club.get(fall.fallen), "cancel_change", change_id)).ok
    assert (await say(commands, club, fall.other, f"/bula {n}")).ok
    kinds = await events(club)
    assert kinds.count("odlazak_chosen") == 3
    assert kinds.count("odlazak_cancelled") == 2


async def test_odlazak_is_too_late_once_the_next_hand_has_ended(club: Club) -> None:
    fall = await fall_game(club, back=1)  # hand n+1 is already over
    commands = await join(club, *PLAYERS)
    late = await say(commands, club, fall.other, f"/bula {fall.hand} {fall.game.number}")
    assert not late.ok
    assert "Prekasno" in late.text
    assert f"ruka {fall.hand + 1}" in late.text
    assert await club.db.paper_changes.for_game(fall.game.number) == []


async def test_cancelling_is_too_late_once_the_next_hand_has_ended(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    await feed_next_hand(club, fall.game)
    late = await say(commands, club, fall.fallen, f"/ponisti {fall.hand} {fall.game.number}")
    assert not late.ok
    assert "Prekasno" in late.text
    assert len(await club.db.paper_changes.for_game(fall.game.number)) == 1


async def test_a_finished_game_takes_no_more_corrections(club: Club) -> None:
    fall = await fall_game(club)
    await store(
        club,
        replace(
            fall.game,
            number=fall.game.number + 100000,
            status=GameStatus.FINISHED,
            ended_at=NOW - timedelta(minutes=5),
            hands=fall.game.hands[:-1],
        ),
    )
    commands = await join(club, *PLAYERS)
    refused = await say(commands, club, fall.other, f"/bula {fall.hand} {fall.game.number + 100000}")
    assert not refused.ok
    assert "završena" in refused.text


async def test_a_member_who_did_not_play_and_an_unknown_hand_are_refused(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS, "jelena")
    stranger = await say(commands, club, "jelena", f"/bula {fall.hand} {fall.game.number}")
    assert not stranger.ok
    assert "niste igrali" in stranger.text
    unknown = await say(commands, club, fall.other, "/bula 99")
    assert not unknown.ok
    assert "ne postoji" in unknown.text
    unfinished = await say(commands, club, fall.other, f"/bula {len(fall.game.hands)}")
    assert not unfinished.ok
    usage = await say(commands, club, fall.other, "/bula")
    assert not usage.ok
    assert "/bula RUKA" in usage.text


# The Arbitar --------------------------------------------------------------------------------------------------


async def test_arbitar_accepted_moves_the_fall_and_nobody_can_cancel_it(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    seat = {nick: game.seat_of(nick) for nick in PLAYERS}
    before = bule_after(await paper_of(club, game), n)
    assert not (await say(commands, club, fall.other, f"/arbitar {n}")).ok  # only the fallen player offers
    assert not (await say(commands, club, fall.declarer, f"/arbitar {n}")).ok
    offered = await say(commands, club, fall.fallen, f"/arbitar {n}")
    assert offered.ok, offered.text
    asked = club.chat.to(f"dm:{fall.other}")[-1]
    assert {b.action for b in asked.buttons} == {"consent", "decline"}
    assert calls == []  # nothing is decided before the other defender agrees
    assert not (await say(commands, club, fall.declarer, "/prihvatam")).ok  # the declarer is not asked
    accepted = await club.desk.press(await club.get(fall.other), "consent", asked.buttons[0].ref)
    assert accepted.ok, accepted.text
    assert calls == [(game.number, n, seat[fall.fallen])]
    assert "prebacuje" in accepted.text
    assert "KS" in accepted.text
    after = bule_after(await paper_of(club, game), n)
    assert after[seat[fall.fallen]] == before[seat[fall.fallen]] - fall.value  # type: ignore[index]
    assert after[seat[fall.other]] == before[seat[fall.other]] + fall.value  # type: ignore[index]
    rows = await club.db.paper_changes.rows(game.number)
    assert len(rows) == 1
    assert rows[0].by_member is None
    assert rows[0].data["arbitar"] is True
    assert rows[0].data["who"] == "Arbitar"
    assert rows[0].reason.startswith("Arbitar")
    assert any("prebacuje" in s.text for s in club.chat.to(f"dm:{fall.fallen}"))
    for nick in (fall.fallen, fall.other, fall.declarer):
        refused = await say(commands, club, nick, f"/ponisti {n}")
        assert not refused.ok
    refused = await say(commands, club, fall.fallen, f"/ponisti {n} bula")
    assert "Arbitar" in refused.text
    assert not (await club.desk.press(await club.get(fall.fallen), "cancel_change", rows[0].id)).ok
    assert not (
        await club.desk.corrections_store.cancel_change(
            rows[0].id, game.number, 1, NOW, await club.desk.corrections_store.standing_ids(game.number), "test"
        )
    )
    assert len(await club.db.paper_changes.for_game(game.number)) == 1
    again = await say(commands, club, fall.fallen, f"/arbitar {n}")
    assert not again.ok
    assert not (await say(commands, club, fall.other, f"/bula {n}")).ok  # the hand has its odlazak
    kinds = await events(club)
    assert {"arbitar_requested", "correction_answer", "correction_decided", "paper_change"} <= set(kinds)


async def test_arbitar_accepted_leaves_the_fall_and_says_why(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_arbitar(monkeypatch, stays)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    before = await paper_of(club, game)
    assert (await say(commands, club, fall.fallen, f"/arbitar {n}")).ok
    decided = await say(commands, club, fall.other, "/prihvatam")
    assert decided.ok
    assert "ostaje" in decided.text
    assert NOT_OBVIOUS in decided.text
    told = club.chat.to(f"dm:{fall.fallen}")[-1].text
    assert NOT_OBVIOUS in told
    assert f"/sudija {game.number}" in told
    assert await club.db.paper_changes.for_game(game.number) == []
    assert (await paper_of(club, game)).hands == before.hands
    requests = await club.desk.corrections_store.for_game(game.number)
    assert requests[0].state == "decided"
    assert requests[0].verdict is not None
    assert requests[0].verdict["decision"] == "stays"
    # The verdict binds: no second offer; the other defender may still go into the bule of his own will.
    assert not (await say(commands, club, fall.fallen, f"/arbitar {n}")).ok
    assert (await say(commands, club, fall.other, f"/bula {n}")).ok


async def test_arbitar_refused_in_a_rated_game_points_to_a_referee(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    refused = await say(commands, club, fall.other, "/odbijam")
    assert refused.ok
    assert "ništa se ne menja" in refused.text
    told = club.chat.to(f"dm:{fall.fallen}")[-1].text
    assert "ništa se ne menja" in told
    assert f"/sudija {fall.game.number}" in told
    assert calls == []
    assert await club.db.paper_changes.for_game(fall.game.number) == []
    assert not (await say(commands, club, fall.other, "/prihvatam")).ok  # nothing waits any more
    assert not (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok


async def test_arbitar_refused_in_an_unrated_game_has_no_referee_hint(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club, rated=False)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    assert (await say(commands, club, fall.other, "/odbijam")).ok
    told = club.chat.to(f"dm:{fall.fallen}")[-1].text
    assert "ništa se ne menja" in told
    assert "/sudija" not in told


async def test_arbitar_offer_lapses_when_the_other_goes_into_the_bule(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    late = await say(commands, club, fall.other, "/prihvatam")
    assert not late.ok
    assert calls == []
    requests = await club.desk.corrections_store.for_game(fall.game.number)
    assert requests[0].state == "lapsed"


async def test_arbitar_in_an_ai_game_is_accepted_by_the_ai(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club, players=AI_PLAYERS, ai=True, rated=False, want=lambda f: f.other == "robot_mile")
    commands = await join(club, "ana", "marko")
    decided = await say(commands, club, fall.fallen, f"/arbitar {fall.hand} {fall.game.number}")
    assert decided.ok, decided.text
    assert "prebacuje" in decided.text, decided.text
    assert len(calls) == 1
    rows = await club.db.paper_changes.rows(fall.game.number)
    assert rows[0].data["arbitar"] is True
    assert rows[0].data["player"] == fall.game.seat_of("robot_mile")


async def test_arbitar_without_the_procedure_installed_is_unavailable(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rules.arbitar.procedure", None)  # importing it fails
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    refused = await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")
    assert not refused.ok
    assert "nije dostupan" in refused.text


# Ispravka -----------------------------------------------------------------------------------------------------


async def test_ispravka_applies_when_both_others_agree(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    seat = game.seat_of(fall.fallen)
    assert seat is not None
    before = bule_after(await paper_of(club, game), n)
    assert not (await say(commands, club, fall.other, f"/ispravka {n}")).ok  # he did not err
    assert not (await say(commands, club, fall.declarer, f"/ispravka {n}")).ok  # he passed
    proposed = await say(commands, club, fall.fallen, f"/ispravka {n} -- klik na pogrešnu kartu")
    assert proposed.ok, proposed.text
    assert f"-{fall.value}" in proposed.text, proposed.text
    for nick in (fall.other, fall.declarer):
        asked = club.chat.to(f"dm:{nick}")[-1]
        assert "klik na pogrešnu kartu" in asked.text
        assert {b.action for b in asked.buttons} == {"consent", "decline"}
    assert not (await say(commands, club, fall.fallen, "/prihvatam")).ok  # not his to answer
    first = await say(commands, club, fall.other, "/prihvatam")
    assert first.ok
    assert fall.declarer in first.text
    assert await club.db.paper_changes.for_game(game.number) == []  # one consent is not enough
    applied = await say(commands, club, fall.declarer, "/prihvatam")
    assert applied.ok
    assert "upisana" in applied.text
    after = bule_after(await paper_of(club, game), n)
    assert after[seat] == before[seat] - fall.value
    changes = await club.db.paper_changes.for_game(game.number)
    assert [(c.kind, c.player, c.who, c.why) for c in changes] == [
        (ChangeKind.ISPRAVKA, seat, fall.fallen, "klik na pogrešnu kartu")
    ]
    assert {"ispravka_requested", "correction_applied"} <= set(await events(club))
    # The fall is corrected: the other cannot also take it.
    assert not (await say(commands, club, fall.other, f"/bula {n}")).ok


async def test_ispravka_refused_by_one_changes_nothing(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    assert (await say(commands, club, fall.other, "/prihvatam")).ok
    assert (await say(commands, club, fall.declarer, "/odbijam")).ok
    assert await club.db.paper_changes.for_game(fall.game.number) == []
    assert any("ne slaže" in s.text for s in club.chat.to(f"dm:{fall.fallen}"))


async def test_ispravka_is_replaced_cancelled_and_one_per_hand(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    n, game = fall.hand, fall.game
    played = bule_after(await paper_of(club, game), n)
    # A second proposal while one waits replaces it (one pending per hand).
    first = await say(commands, club, fall.fallen, f"/ispravka {n} -- prvi")
    second = await say(commands, club, fall.fallen, f"/ispravka {n} -- drugi")
    assert first.ok
    assert second.ok
    requests = await club.desk.corrections_store.for_game(game.number)
    assert [r.state for r in requests] == ["replaced", "pending"]
    assert not (await club.desk.corrections.answer(await club.get(fall.other), requests[0].id, True)).ok
    for nick in (fall.other, fall.declarer):
        assert (await say(commands, club, nick, "/prihvatam")).ok
    # A new one for the same hand replaces the standing one, again only with consent.
    assert (await say(commands, club, fall.fallen, f"/ispravka {n} -- treći")).ok
    assert [c.why for c in await club.db.paper_changes.for_game(game.number)] == ["drugi"]
    for nick in (fall.other, fall.declarer):
        assert (await say(commands, club, nick, "/prihvatam")).ok
    standing = await club.db.paper_changes.for_game(game.number)
    assert [(c.kind, c.why) for c in standing] == [(ChangeKind.ISPRAVKA, "treći")]
    assert len(await club.db.paper_changes.rows(game.number, include_cancelled=True)) == 2
    # Only the corrected player cancels it.
    assert not (await say(commands, club, fall.other, f"/ponisti {n} ispravka")).ok
    cancelled = await say(commands, club, fall.fallen, f"/ponisti {n}")
    assert cancelled.ok, cancelled.text
    assert await club.db.paper_changes.for_game(game.number) == []
    assert bule_after(await paper_of(club, game), n) == played
    assert "ispravka_cancelled" in await events(club)


async def test_a_proposer_withdraws_his_pending_ispravka(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    withdrawn = await say(commands, club, fall.fallen, f"/ponisti {fall.hand} predlog")
    assert withdrawn.ok
    assert not (await say(commands, club, fall.other, "/prihvatam")).ok
    assert [r.state for r in await club.desk.corrections_store.for_game(fall.game.number)] == ["withdrawn"]


async def test_ispravka_is_reduced_so_that_two_bule_stay(club: Club) -> None:
    commands = await join(club, *PLAYERS)
    for number in range(1, 5000):
        game = _generate(number, PLAYERS, 6, True, False, bule=8)
        paper = compute_paper(game)
        score = paper.hands[4].score
        if paper.ended or score is None or score.declarer is None or score.declarer not in score.fallen:
            continue
        probe = PaperChange(ChangeKind.ISPRAVKA, 5, "x", NOW, player=score.declarer)
        try:
            applied = check_change(game, [], probe)
        except ValueError:
            continue
        if applied.note == NOTE_REDUCED:
            break
    else:
        raise AssertionError("no game where an ispravka must be reduced")
    await store(club, game)
    declarer = game.players[score.declarer]
    others = [p for p in PLAYERS if p != declarer]
    proposed = await say(commands, club, declarer, f"/ispravka 5 {game.number}")
    assert proposed.ok, proposed.text
    assert "2 bule" in proposed.text, proposed.text
    for nick in others:
        reply = await say(commands, club, nick, "/prihvatam")
        assert reply.ok, reply.text
    assert "2 bule" in reply.text
    paper = await paper_of(club, game)
    assert paper.hands[4].changes[0].note == NOTE_REDUCED
    assert sum(paper.hands[4].bule_after) == 2
    assert applied.requested == -2 * score.value


async def test_ispravka_in_an_ai_game_needs_only_the_human(club: Club) -> None:
    fall = await fall_game(club, players=AI_PLAYERS, ai=True, want=lambda f: f.fallen != "robot_mile")
    commands = await join(club, "ana", "marko")
    human = next(p for p in ("ana", "marko") if p != fall.fallen)
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand} {fall.game.number}")).ok
    applied = await say(commands, club, human, "/prihvatam")
    assert applied.ok, applied.text
    assert "upisana" in applied.text, applied.text
    changes = await club.db.paper_changes.for_game(fall.game.number)
    assert [c.kind for c in changes] == [ChangeKind.ISPRAVKA]


async def test_odlazak_works_in_an_unrated_game(club: Club) -> None:
    fall = await fall_game(club, rated=False)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    assert (await say(commands, club, fall.fallen, f"/ponisti {fall.hand}")).ok


async def test_an_unlinked_player_is_asked_but_cannot_answer_until_he_links(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *(p for p in PLAYERS if p != fall.declarer))
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    assert (await say(commands, club, fall.other, "/prihvatam")).ok
    assert await club.db.paper_changes.for_game(fall.game.number) == []
    await club.member(fall.declarer)
    assert (await say(commands, club, fall.declarer, "/prihvatam")).ok
    assert len(await club.db.paper_changes.for_game(fall.game.number)) == 1


async def test_answers_pressed_at_once_apply_one_ispravka_and_run_the_arbitar_once(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    other, declarer = await club.get(fall.other), await club.get(fall.declarer)
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    request = club.chat.to(f"dm:{fall.other}")[-1].buttons[0].ref
    replies = await asyncio.gather(
        club.desk.press(other, "consent", request),
        club.desk.press(declarer, "consent", request),
        club.desk.press(other, "consent", request),
    )
    assert sum(1 for r in replies if "upisana" in r.text) == 1
    assert len(await club.db.paper_changes.for_game(fall.game.number)) == 1
    assert (await say(commands, club, fall.fallen, f"/ponisti {fall.hand}")).ok
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    offer = club.chat.to(f"dm:{fall.other}")[-1].buttons[0].ref
    both = await asyncio.gather(club.desk.press(other, "consent", offer), club.desk.press(other, "consent", offer))
    assert len(calls) == 1
    assert sum(1 for r in both if r.ok) == 1
    assert len(await club.db.paper_changes.for_game(fall.game.number)) == 1


async def test_with_two_requests_waiting_the_answer_names_one(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_arbitar(monkeypatch, stays)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    which = await say(commands, club, fall.other, "/prihvatam")
    assert not which.ok
    assert "navedite broj" in which.text
    requests = await club.desk.corrections_store.for_game(fall.game.number)
    offer = next(r for r in requests if r.kind == "arbitar")
    declined = await club.desk.press(await club.get(fall.other), "decline", offer.id)
    assert declined.ok
    assert "Odbili" in declined.text
    assert (await say(commands, club, fall.other, "/prihvatam")).ok  # only the ispravka waits now
    assert not (await say(commands, club, fall.other, "/prihvatam x")).ok


async def test_korekcije_lists_what_stands_and_what_waits(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_arbitar(monkeypatch, transfer)
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    empty = await say(commands, club, fall.declarer, "/korekcije")
    assert empty.ok
    assert "nema korekcija" in empty.text
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    assert (await say(commands, club, fall.fallen, f"/arbitar {fall.hand}")).ok
    waiting = await say(commands, club, fall.declarer, f"/korekcije {fall.game.number}")
    assert "traži ispravku" in waiting.text
    assert "nudi Arbitra" in waiting.text
    offer = next(r for r in await club.desk.corrections_store.for_game(fall.game.number) if r.kind == "arbitar")
    assert (await club.desk.corrections.answer(await club.get(fall.other), offer.id, True)).ok
    listing = await say(commands, club, fall.declarer, "/korekcije")
    assert "Arbitar je prebacio pad na igrača " + fall.other in listing.text
    assert "nudi Arbitra" not in listing.text
    # The ispravka proposed for that fall lapsed when the fall moved: nothing waits any more.
    assert not (await say(commands, club, fall.other, "/prihvatam")).ok
    assert any("ispravke za ruku" in s.text and "više ne važi" in s.text for s in club.chat.to(f"dm:{fall.fallen}"))
    assert "traži ispravku" not in (await say(commands, club, fall.declarer, "/korekcije")).text


async def test_ispravka_has_no_next_hand_limit_and_an_interrupted_game_still_takes_corrections(club: Club) -> None:
    fall = await fall_game(club, back=1)
    commands = await join(club, *PLAYERS)
    assert not (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok  # the next hand has ended
    assert (await say(commands, club, fall.fallen, f"/ispravka {fall.hand}")).ok
    for nick in (fall.other, fall.declarer):
        assert (await say(commands, club, nick, "/prihvatam")).ok
    assert len(await club.db.paper_changes.for_game(fall.game.number)) == 1
    later = await fall_game(club, want=lambda f: f.game.number != fall.game.number)
    interrupted = replace(
        later.game,
        number=later.game.number + 200000,
        status=GameStatus.INTERRUPTED,
        ended_at=NOW - timedelta(minutes=5),
    )
    await store(club, interrupted)
    assert (await say(commands, club, later.other, f"/bula {later.hand} {interrupted.number}")).ok
