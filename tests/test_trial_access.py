"""Who reads a trial's record, over the whole matrix of readers: every office (none, each function, the owner)
crossed with every tie to the trial (a party, a player of its game who took no part, a stranger, a party who has
since lost his function). Before, a referee who took no part was shown the transcript by `/presude` and refused it
by `/zapisnik`. `/presude GAME TRIAL`, `/zapisnik TRIAL`, `sudija presude --as` and `sudija zapisnik
--as` all answer alike (decisions.md, "Trials": the transcript to the game's players and the club's officials,
the names of who judged only to `referee_names_visible_to`), and as `rules.members` says."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.cli.presude import show
from bot.cli.zapisnik import export
from bot.registry import BY_NAME, run
from bot.registry.spec import Args, Caller, Place
from club import Club, database_for
from rules.gamelog import GameStatus
from rules.members import OFFICIALS, OWNER, Role, sees_names, sees_transcript
from rules.verdicts import Draft, NoVerdict

IN_GAME, OUT_OF_GAME = 200, 300
PLAYERS = ("marko", "ivana", "sanja")
#: A reader per office who is neither a party nor a player (the owner is configured below).
OFFICES: dict[str, tuple[str, ...]] = {
    "niko": (),
    "sudijaMira": ("referee",),
    "vecnikVuk": ("councilor",),
    "modMaja": ("moderator",),
    "sudijaVecnik": ("referee", "councilor"),
    "vlasnik": (),
}


async def trials(club: Club) -> tuple[int, int]:
    """An in-game trial of game 200 (ivana calls; sudijaPera judges, vecnikVera joins; every party speaks) and an
    out-of-game trial of game 300 (sanja calls, sudijaPera judges; marko and ivana played it, took no part)."""
    referee = await club.member("sudijaPera", "referee")
    councilor = await club.member("vecnikVera", "councilor")
    marko, ivana, sanja = [await club.member(n) for n in PLAYERS]
    await club.game(IN_GAME, PLAYERS, status=GameStatus.IN_PROGRESS, hands=1)
    await club.game(OUT_OF_GAME, PLAYERS, hands=1)
    assert (await club.desk.calls.call(ivana, IN_GAME)).ok
    call = await club.db.calls.pending_by_caller(ivana.id)
    assert call is not None
    assert (await club.desk.trials.take(referee, call.id)).ok
    first = await club.db.trials.judging(referee.id)
    assert first is not None
    assert (await club.desk.trials.call_councilor(referee)).ok
    [ccall] = await club.db.calls.pending_councilor_calls()
    assert (await club.desk.trials.join_as_councilor(councilor, ccall.id)).ok
    for speaker, said in ((ivana, "pozivaoca"), (marko, "igrača"), (referee, "sudije"), (councilor, "većnika")):
        await club.desk.trials.say(speaker, f"reč {said}")
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "nije bilo prekršaja"))).ok
    assert (await club.desk.finish(referee)).ok
    assert (await club.desk.calls.call(sanja, OUT_OF_GAME)).ok
    call = await club.db.calls.pending_by_caller(sanja.id)
    assert call is not None
    assert (await club.desk.trials.take(referee, call.id)).ok
    second = await club.db.trials.judging(referee.id)
    assert second is not None
    await club.desk.trials.say(sanja, "reč pozivaoca")
    await club.desk.trials.say(referee, "reč sudije")
    assert (await club.desk.draft(referee, Draft(NoVerdict(), "bez osnova"))).ok
    assert (await club.desk.finish(referee)).ok
    return first.id, second.id


async def readers(club: Club) -> None:
    for nick, roles in OFFICES.items():
        await club.member(nick, *roles)
    club.desk.config = replace(club.desk.config, owner="vlasnik", owner_accounts=("test:vlasnik",))


async def test_presude_and_zapisnik_agree_for_every_reader(club: Club, tmp_path: Path) -> None:
    first, second = await trials(club)
    await readers(club)
    # A party who has since lost his function: the in-game trial's councilor resigns.
    assert (await club.desk.votes.resign(await club.get("vecnikVera"), Role.COUNCILOR)).ok
    zapisnik = BY_NAME["zapisnik"]
    config = club.desk.config
    everyone = [*OFFICES, *PLAYERS, "sudijaPera", "vecnikVera"]
    seen: dict[tuple[str, int], tuple[bool, bool]] = {}
    for nick in everyone:
        member = await club.get(nick)
        for game, trial in ((IN_GAME, first), (OUT_OF_GAME, second)):
            parties = {p.member for p in await club.db.trials.participants(trial)}
            offices = config.offices(member)
            expected = sees_transcript(offices, member.id in parties, nick in PLAYERS)
            named = sees_names(offices, set(config.referee_names_visible_to))
            caller = Caller("test", nick, member, Place.PRIVATE)
            record = await run(club.desk, caller, zapisnik, Args({"sudjenje": trial}))
            page = await club.desk.verdicts(member, game, trial)
            listing = await club.desk.verdicts(member, game)
            assert record.ok is page.ok is expected, (nick, trial)
            assert ("reč sudije" in listing.text) is expected, (nick, trial)  # the game's list shows it alike
            if expected:
                assert (b"sudijaPera" in record.documents[0].data) is named, (nick, trial)
                assert ("sudijaPera" in page.text) is named, (nick, trial)
            else:
                assert "stranke" in record.text
                assert record.documents == ()
            seen[(nick, trial)] = (expected, named)
    # The matrix covers what it must: every office reads (the officials), and so does every tie but a stranger's.
    assert {nick for (nick, _), (read, _) in seen.items() if read} >= {*OFFICES} - {"niko"} | {*PLAYERS}
    assert not seen[("niko", first)][0]
    assert seen[("vecnikVera", first)] == (True, False)  # a party still, an official no more: no names
    assert not seen[("vecnikVera", second)][0]  # ... and no longer an official: not the other trial
    assert seen[("sudijaMira", second)] == (True, True)  # a referee who took no part reads it, with names
    assert {*Role, OWNER} == OFFICIALS
    # The exports answer alike, read from the database as it is.
    path = str(database_for(tmp_path))
    for nick in everyone:
        shown = await cli_presude(path, nick, config)
        for game, trial in ((IN_GAME, first), (OUT_OF_GAME, second)):
            read, named = seen[(nick, trial)]
            entry = next(t for t in shown[game]["trials"] if t["id"] == trial)
            assert (entry["messages"] is not None) is read, (nick, trial)
            assert (entry["referee"] == "sudijaPera") is named, (nick, trial)
            out = tmp_path / f"{nick}-{trial}.html"
            status = await export(trial, path, out=str(out), officials=False, lang="sr", viewer=nick, config=config)
            assert (status == 0) is read, (nick, trial)
            assert out.exists() is read
            if read:
                assert ("sudijaPera" in out.read_text(encoding="utf-8")) is named, (nick, trial)


async def cli_presude(path: str, nick: str, config: Any) -> dict[int, Any]:
    """`sudija presude GAME --json --as NICK` of both games."""
    import contextlib  # noqa: PLC0415 (imported where the test needs it)
    import io  # noqa: PLC0415 (imported where the test needs it)

    shown = {}
    for game in (IN_GAME, OUT_OF_GAME):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert await show(game, path, as_json=True, viewer=nick, config=config) == 0
        shown[game] = json.loads(printed.getvalue())
    return shown
