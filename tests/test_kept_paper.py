"""The kept paper (bot/papers.py): a game's paper computed once per change of the game, and current after every
write it is computed from — a hand imported, a hand of the live feed, a change written, a verdict, a players'
correction and its cancellation — on SQLite and on PostgreSQL, another process's writes included; and, whatever
the writes, always the paper a fresh computation gives."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linked import Linked, make_linked
from test_corrections import PLAYERS, fall_game, join, say
from test_desk_trials import members, open_trial

import bot.papers
import bot.pictures.attach
from bot.papers import KeptPaper, PaperKeeper
from club import NOW, Club, database_for, make_club
from rules.gamelog import Game, GameStatus
from rules.generator import generate_game
from rules.members import Member
from rules.paper import ChangeKind, Paper, PaperChange, compute_paper
from rules.paper_render import anonymised, paper_text
from rules.verdicts import BulaChange, Draft
from storage.changes import NewPaperChange
from storage.database import Database
from storage.games import PreparedGame

ROOT = Path(__file__).resolve().parent.parent


def in_progress(number: int, hands: int, total: int = 8) -> Game:
    """The first `hands` hands of a generated game in progress (the same game for every `hands`)."""
    game = generate_game(
        random.Random(number),
        number,
        hands=total,
        status=GameStatus.IN_PROGRESS,
        players=PLAYERS,
        start=NOW - timedelta(hours=2),
        bule=200,
    )
    return replace(game, hands=game.hands[:hands])


async def fresh(db: Database, number: int, names: bool = True) -> Paper:
    """The paper computed afresh from what is stored now."""
    game = await db.games.get(number)
    assert game is not None
    changes = await db.paper_changes.for_game(number)
    return compute_paper(game, changes if names else anonymised(changes))


async def assert_current(club: Club | Linked, number: int) -> KeptPaper:
    """The kept paper, both its forms and what /papir shows are what a fresh computation gives."""
    kept = await club.desk.lookups.kept_paper(number)
    assert kept.paper == await fresh(club.db, number)
    assert kept.anonymous == await fresh(club.db, number, names=False)
    assert kept.game == await club.db.games.get(number)
    shown = await club.desk.paper(number)
    assert shown.text == paper_text(kept.game, await fresh(club.db, number, names=False), club.desk.t)
    return kept


def promena(number: int, hand: int, bule: tuple[int, int, int]) -> NewPaperChange:
    change = PaperChange(ChangeKind.PROMENA_BULA, hand, "", NOW, "test", bule=bule)
    return NewPaperChange(number, hand, change.kind, change.data(), None, NOW, "test")


async def test_the_paper_is_computed_and_drawn_once_per_version(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    game = in_progress(40, 6)
    await club.db.games.store([PreparedGame.of(game)], NOW)
    computed: list[int] = []
    drawn: list[int] = []
    compute = bot.papers.compute_paper
    draw = bot.pictures.attach._paper
    monkeypatch.setattr(bot.papers, "compute_paper", lambda g, c=(): computed.append(g.number) or compute(g, c))
    monkeypatch.setattr(bot.pictures.attach, "_paper", lambda g, p, lang: drawn.append(g.number) or draw(g, p, lang))
    replies = [await club.desk.paper(40) for _ in range(5)]
    assert len({r.text for r in replies}) == 1
    assert all(r.pictures and r.pictures[0].png == replies[0].pictures[0].png for r in replies)
    assert (computed, drawn) == ([40], [40])
    await club.db.paper_changes.add(promena(40, 3, (2, 0, 0)))
    changed = await club.desk.paper(40)
    assert changed.text != replies[0].text
    assert (computed, drawn) == ([40, 40], [40, 40])


async def test_a_hand_imported_gives_the_paper_its_hand(club: Club) -> None:
    await club.db.games.store([PreparedGame.of(in_progress(41, 4))], NOW)
    before = await assert_current(club, 41)
    assert len(before.paper.hands) == 4
    outcome = await club.db.games.store([PreparedGame.of(in_progress(41, 5))], NOW)
    assert outcome.imported == 1
    after = await assert_current(club, 41)
    assert (len(after.paper.hands), after.version) == (5, before.version + 1)


async def test_a_change_written_and_cancelled_shows_at_once(club: Club) -> None:
    await club.db.games.store([PreparedGame.of(in_progress(42, 5))], NOW)
    before = await assert_current(club, 42)
    change = await club.db.paper_changes.add(promena(42, 2, (4, -2, 0)))
    written = await assert_current(club, 42)
    assert written.version == before.version + 1
    assert written.paper.hands[1].bule_after != before.paper.hands[1].bule_after
    assert await club.db.paper_changes.cancel(change, None, NOW)
    cancelled = await assert_current(club, 42)
    assert cancelled.version == before.version + 2
    assert cancelled.paper == before.paper


async def test_a_verdict_shows_on_the_paper_it_changed(club: Club) -> None:
    await members(club)
    await club.game(43, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    before = await assert_current(club, 43)
    trial = await open_trial(club, 43, caller="marko")
    referee = await club.get("sudija1")
    assert (await club.desk.draft(referee, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "test"))).ok
    assert await club.desk.lookups.kept_paper(43) is before  # a draft writes nothing the paper is computed from
    assert (await club.desk.finish(referee)).ok
    after = await assert_current(club, 43)
    assert after.version == before.version + 1
    assert [c.trial for c in after.changes] == [trial]
    assert after.paper.hands[3].bule_after != before.paper.hands[3].bule_after


async def test_a_players_correction_and_its_cancelling_show_at_once(club: Club) -> None:
    fall = await fall_game(club)
    commands = await join(club, *PLAYERS)
    before = await assert_current(club, fall.game.number)
    assert (await say(commands, club, fall.other, f"/bula {fall.hand}")).ok
    moved = await assert_current(club, fall.game.number)
    assert [c.kind for c in moved.changes] == [ChangeKind.ODLAZAK_U_BULU]
    assert moved.paper.hands[fall.hand - 1].bule_after != before.paper.hands[fall.hand - 1].bule_after
    cancelled = await say(commands, club, fall.fallen, f"/ponisti {fall.hand} {fall.game.number}")
    assert cancelled.ok, cancelled.text
    back = await assert_current(club, fall.game.number)
    assert back.changes == ()
    assert back.paper == before.paper


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    club = await make_linked(tmp_path)
    try:
        for nick in PLAYERS:
            await club.member(nick)
        yield club
    finally:
        await club.close()


async def test_a_hand_of_the_live_feed_gives_the_paper_its_hand(linked: Linked) -> None:
    table = linked.table(44, hands=3)
    while table.hand < 1:
        await table.step()
    first = await assert_current(linked, 44)
    while table.hand < 2:
        await table.step()
    second = await assert_current(linked, 44)
    assert len(second.game.hands) == len(first.game.hands) + 1
    assert second.version > first.version


async def test_a_paper_read_while_its_game_is_written_is_kept_only_as_it_then_stands(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    await club.db.games.store([PreparedGame.of(in_progress(45, 5))], NOW)
    read = club.db.paper_changes.for_game
    written: list[int] = []

    async def read_while_written(number: int) -> list[PaperChange]:
        changes = await read(number)
        if not written:  # between the game's and the changes' reading and the version read again
            written.append(await club.db.paper_changes.add(promena(45, 1, (2, 0, 0))))
        return changes

    monkeypatch.setattr(club.db.paper_changes, "for_game", read_while_written)
    kept = await club.desk.lookups.kept_paper(45)
    monkeypatch.undo()
    assert written
    assert [c.id for c in kept.changes] == written  # read again, not kept as the older reading
    assert kept is await club.desk.lookups.kept_paper(45)
    await assert_current(club, 45)


async def test_the_keeper_is_bounded_the_least_recently_asked_dropped_first(club: Club) -> None:
    keeper = PaperKeeper(club.db, limit=2)
    for number in (46, 47, 48):
        await club.db.games.store([PreparedGame.of(in_progress(number, 3))], NOW)
    first = await keeper.get(46)
    await keeper.get(47)
    assert await keeper.get(46) is first  # asked again: now the most recent
    await keeper.get(48)
    assert len(keeper) == 2
    assert await keeper.get(46) is first
    assert await keeper.get(47) is not None  # dropped, loaded again
    assert await keeper.get(999) is None


async def test_many_requests_at_once_load_and_draw_once(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    await club.db.games.store([PreparedGame.of(in_progress(49, 6))], NOW)
    loads: list[int] = []
    get = club.db.games.get

    async def counted(number: int) -> Game | None:
        loads.append(number)
        return await get(number)

    monkeypatch.setattr(club.db.games, "get", counted)
    replies = await asyncio.gather(*(club.desk.paper(49) for _ in range(20)))
    assert loads == [49]
    assert len({r.pictures[0].png for r in replies}) == 1


async def test_the_draft_check_reuses_the_kept_game_and_its_scoring(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    await members(club)
    await club.game(50, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    await open_trial(club, 50, caller="marko")
    referee = await club.get("sudija1")
    kept = await club.desk.lookups.kept_paper(50)
    assert kept.paper.scored_hands
    scored: list[int] = []
    hand_facts = compute_paper.__globals__["hand_facts"]
    monkeypatch.setitem(compute_paper.__globals__, "hand_facts", lambda hand: scored.append(hand.n) or hand_facts(hand))
    assert (await club.desk.draft(referee, Draft(BulaChange({"ana": 4, "petar": -2}, hand=4), "test"))).ok
    assert scored == []  # the kept game's hands were scored once, for the kept paper
    assert await club.desk.lookups.load_game(50) is kept.game


def test_another_processs_write_is_seen(tmp_path: Path, backend: str) -> None:
    database = str(database_for(tmp_path))  # on PostgreSQL, several bot processes; on SQLite, the command line

    async def run() -> None:
        club = await make_club(tmp_path, database=database)
        try:
            await club.db.games.store([PreparedGame.of(in_progress(51, 5))], NOW)
            before = await assert_current(club, 51)
            writer = (
                "import asyncio, sys\n"
                "from datetime import UTC, datetime\n"
                "from rules.paper import ChangeKind\n"
                "from storage.changes import NewPaperChange\n"
                "from storage.database import open_database\n"
                "async def main():\n"
                "    db = await open_database(sys.argv[1])\n"
                "    now = datetime(2026, 11, 30, 12, tzinfo=UTC)\n"
                "    await db.paper_changes.add(NewPaperChange(51, 2, ChangeKind.PROMENA_BULA,"
                " {'bule': [2, 2, 0]}, None, now, 'elsewhere'))\n"
                "    await db.close()\n"
                "asyncio.run(main())\n"
            )
            done = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-c", writer, database], cwd=ROOT, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
            after = await assert_current(club, 51)
            assert after.version == before.version + 1
            assert [c.why for c in after.changes] == ["elsewhere"]
            assert "elsewhere" in (await club.desk.paper(51)).text
        finally:
            await club.db.close()

    asyncio.run(run())


# Whatever the writes, the kept paper is the fresh one ------------------------------------------------------------

Step = tuple[str, int, int]
examples: list[int] = []
steps = st.lists(
    st.tuples(st.sampled_from(("grow", "change", "cancel", "read")), st.integers(1, 8), st.integers(-2, 2)),
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=steps)
def test_the_kept_paper_always_equals_a_fresh_computation(tmp_path: Path, backend: str, script: list[Step]) -> None:
    database = database_for(tmp_path)  # one per test: each example plays on games of its own
    examples.append(len(examples))
    number = 1000 + 2 * len(examples)

    async def run() -> None:
        club = await make_club(tmp_path, database=database)
        keeper = PaperKeeper(club.db, limit=1)  # a small keeper: dropping and loading again is exercised too
        try:
            hands = 2
            await club.db.games.store([PreparedGame.of(in_progress(number, hands))], NOW)
            await club.db.games.store([PreparedGame.of(in_progress(number + 1, 3))], NOW)
            ids: list[int] = []
            for what, hand, amount in script:
                if what == "grow" and hands < 8:
                    hands += 1
                    await club.db.games.store([PreparedGame.of(in_progress(number, hands))], NOW)
                elif what == "change" and amount and hand <= hands:
                    ids.append(await club.db.paper_changes.add(promena(number, hand, (2 * amount, 0, -2))))
                elif what == "cancel" and ids:
                    await club.db.paper_changes.cancel(ids.pop(hand % len(ids)), None, NOW)
                else:
                    await keeper.get(number + 1)
                kept = await keeper.get(number)
                assert kept is not None
                assert kept.paper == await fresh(club.db, number)
                assert kept.anonymous == await fresh(club.db, number, names=False)
                assert kept.game == await club.db.games.get(number)
        finally:
            await club.db.close()

    asyncio.run(run())


async def test_a_member_is_told_the_game_is_unknown(club: Club) -> None:
    viewer: Member = await club.member("ana")
    reply = await club.desk.paper(777, viewer)
    assert not reply.ok
    assert "777" in reply.text
    assert len(club.desk.lookups.papers) == 0
