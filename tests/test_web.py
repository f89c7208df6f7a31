"""The club's web pages over HTTP on loopback (bot/web), against the club of tests/web_club.py: every page for every
kind of reader, shown or refused by the rules the chat follows — the trials' conversations and the referees'
names exactly as `/presude` shows them to the same member —, a refused page answering 404 with the same body as a
page that is not there, and the pages' own words: the paper as a score sheet, the replay, the council's figures."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import aiohttp
import jinja2
import pytest
from web_club import (
    COUNCILOR,
    IN_GAME,
    MODERATOR,
    OUT_OF_GAME,
    OWNER,
    REFEREE,
    SECOND_COUNCILOR,
    STRANGER,
    Scene,
    build,
    serve,
    signed_in,
    with_web,
)

from bot.registry import BY_NAME, run
from bot.registry.spec import Args, Caller, Place
from club import Club
from rules.appeals import AppealKind, AppealRules
from rules.gamelog import GameStatus

READERS = ("marko", STRANGER, REFEREE, COUNCILOR, MODERATOR, OWNER)
MISSING = "/partije/999999999/sudjenja"  # a page that is not there, for every reader


@dataclass
class Site:
    club: Club
    scene: Scene
    base: str
    sessions: dict[str, aiohttp.ClientSession]

    async def get(self, nick: str, path: str) -> tuple[int, str]:
        session = self.sessions.get(nick)
        if session is None:
            session = self.sessions[nick] = await signed_in(self.club, self.base, nick)
        async with session.get(self.base + path, allow_redirects=False) as answer:
            return answer.status, await answer.text()


@pytest.fixture
async def site(club: Club) -> AsyncIterator[Site]:
    scene = await build(club)
    with_web(club)
    async with serve(club) as base:
        made = Site(club, scene, base, {})
        try:
            yield made
        finally:
            for session in made.sessions.values():
                await session.close()


def pages(scene: Scene) -> dict[str, str]:
    return {
        "partije": "/partije",
        "partija": f"/partije/{OUT_OF_GAME}",
        "partija_u_toku": f"/partije/{IN_GAME}",
        "ruka": f"/partije/{OUT_OF_GAME}/ruke/1",
        "ruka_u_toku": f"/partije/{IN_GAME}/ruke/1",
        "arbitar": f"/partije/{scene.arbitar_game}/ruke/{scene.arbitar_hand}",
        "sudjenja": f"/partije/{IN_GAME}/sudjenja",
        "sudjenja_van": f"/partije/{OUT_OF_GAME}/sudjenja",
        "zapisnik": f"/sudjenja/{scene.in_game_trial}/zapisnik",
        "clan": "/clan",
        "clan_marko": "/clan/marko",
        "vece": "/vece",
        "vece_csv": "/vece/statistika.csv",
    }


#: Who may open which page: the rules of rules.members and bot.records.access, as the chat follows them.
SHOWN: dict[str, set[str]] = {
    "partije": set(READERS),
    "partija": set(READERS),
    "partija_u_toku": set(READERS),
    "ruka": {"marko", REFEREE, COUNCILOR, MODERATOR, OWNER},  # its players and the officials, the game over
    "ruka_u_toku": set(),  # nobody judges game 200 now: its cards stay hidden while it is played
    "arbitar": {REFEREE, COUNCILOR, MODERATOR, OWNER},  # marko did not play game 510
    "sudjenja": set(READERS),
    "sudjenja_van": set(READERS),
    "zapisnik": {"marko", REFEREE, COUNCILOR, MODERATOR, OWNER},  # the transcript's readers (as /zapisnik)
    "clan": set(READERS),
    "clan_marko": {"marko", REFEREE, COUNCILOR, MODERATOR, OWNER},
    "vece": {COUNCILOR, OWNER},
    "vece_csv": {COUNCILOR, OWNER},
}


async def test_every_page_for_every_reader_is_shown_or_not_there(site: Site) -> None:
    """The role matrix over every page: a page is shown to whom the rules show it; to anyone else it is exactly
    the page that does not exist — the same status and the same bytes, so it confirms nothing."""
    for nick in READERS:
        missing_status, missing = await site.get(nick, MISSING)
        assert missing_status == 404
        for name, path in pages(site.scene).items():
            status, body = await site.get(nick, path)
            if nick in SHOWN[name]:
                assert status == 200, (nick, name, status)
            else:
                assert (status, body) == (404, missing), (nick, name)


async def test_not_signed_in_every_page_sends_to_sign_in(site: Site) -> None:
    async with aiohttp.ClientSession() as anonymous:
        for path in [*pages(site.scene).values(), MISSING, "/"]:
            async with anonymous.get(site.base + path, allow_redirects=False) as answer:
                assert answer.status == 303, path
                assert answer.headers["Location"] == "/prijava"


def transcript_lines(text: str) -> set[str]:
    return set(re.findall(r"reč [\wčćšžđ ]+", text))


async def test_trials_show_what_presude_shows_the_same_member(site: Site) -> None:
    """Suđenja: a player reads the conversation with the referee and the councilor by function; a member who
    did not play reads neither the conversation nor who judged; an official reads both — each exactly as
    `/presude GAME` answers him in the chat."""
    club = site.club
    for nick in READERS:
        member = await club.get(nick)
        chat = await run(
            club.desk, Caller("test", nick, member, Place.PRIVATE), BY_NAME["presude"], Args({"partija": IN_GAME})
        )
        assert chat.ok
        _, page = await site.get(nick, f"/partije/{IN_GAME}/sudjenja")
        assert transcript_lines(page) == transcript_lines(chat.text), nick
        for name in (REFEREE, COUNCILOR):
            assert (name in page) == (name in chat.text), (nick, name)
    _, player = await site.get("marko", f"/partije/{IN_GAME}/sudjenja")
    assert "reč većnika" in player
    assert REFEREE not in player
    assert COUNCILOR not in player
    _, stranger = await site.get(STRANGER, f"/partije/{IN_GAME}/sudjenja")
    assert "reč" not in stranger
    assert REFEREE not in stranger
    assert "marko je odugovlačio" in stranger  # the verdict and its reason are every member's
    _, official = await site.get(MODERATOR, f"/partije/{IN_GAME}/sudjenja")
    assert "reč većnika" in official
    assert REFEREE in official
    assert COUNCILOR in official


async def test_the_signed_record_is_the_one_zapisnik_sends(site: Site) -> None:
    club = site.club
    member = await club.get("marko")
    chat = await run(
        club.desk, Caller("test", "marko", member, Place.PRIVATE), BY_NAME["zapisnik"], Args({"sudjenje": 1})
    )
    [document] = chat.documents
    session = await signed_in(club, site.base, "marko")
    try:
        async with session.get(f"{site.base}/sudjenja/{site.scene.in_game_trial}/zapisnik") as answer:
            assert answer.status == 200
            assert answer.headers["Content-Disposition"] == f'attachment; filename="{document.name}"'
            body = await answer.read()
    finally:
        await session.close()
    assert body == document.data  # the same rendering, the same seal


async def test_the_paper_is_a_score_sheet_with_the_verdicts_change_linked(site: Site) -> None:
    status, body = await site.get("marko", f"/partije/{IN_GAME}")
    assert status == 200
    assert body.count('<th scope="colgroup" colspan="3" class="player">') == 3
    change = re.search(r'<tr class="change">.*?</tr>', body, re.S)
    assert change is not None
    assert f'href="/partije/{IN_GAME}/sudjenja#sudjenje-{site.scene.in_game_trial}"' in change.group()
    assert "marko je odugovlačio" in change.group()
    assert REFEREE not in change.group()  # a player does not see who judged
    assert re.search(r'<tr id="ruka-\d+" class="changed">', body)
    _, official = await site.get(MODERATOR, f"/partije/{IN_GAME}")
    assert REFEREE in official


async def test_the_replay_steps_through_every_trick(site: Site) -> None:
    club, scene = site.club, site.scene
    game = await club.db.games.get(scene.arbitar_game)
    assert game is not None
    hand = game.hands[scene.arbitar_hand - 1]
    status, body = await site.get(COUNCILOR, f"/partije/{scene.arbitar_game}/ruke/{scene.arbitar_hand}")
    assert status == 200
    steps = re.findall(r'<li class="step" id="korak-([\w]+)"', body)
    assert steps == ["0", *[str(n) for n in range(1, len(hand.tricks) + 1)], "kraj"]
    assert body.count('class="taker"') == len(hand.tricks)
    assert 'src="/static/replay.js"' in body
    assert "Analiza Arbitra" in body
    assert "checked_" not in body  # the evidence in words


async def test_the_council_desk_lists_the_appeal_the_vote_and_exports_its_figures(site: Site) -> None:
    status, body = await site.get(COUNCILOR, "/vece")
    assert status == 200
    row = re.search(r'<tr(?: class="overdue")?>\s*<th scope="row">1</th>.*?</tr>', body, re.S)
    assert row is not None
    assert "marko" in row.group()
    assert "čeka većnika" in row.group()
    assert f"/partije/{OUT_OF_GAME}/sudjenja#sudjenje-{site.scene.out_of_game_trial}" in body
    assert SECOND_COUNCILOR in body  # who has not voted yet
    assert body.count("<svg") == 3
    status, csv = await site.get(OWNER, "/vece/statistika.csv")
    assert status == 200
    assert "calls,total,2" in csv
    assert f"referee:{REFEREE},trials,2" in csv


async def test_a_member_page_shows_his_penalty_and_league(site: Site) -> None:
    status, body = await site.get("marko", "/clan")
    assert status == 200
    assert f"/partije/{OUT_OF_GAME}/sudjenja#sudjenje-{site.scene.out_of_game_trial}" in body
    assert "Liga" in body


async def test_every_answer_carries_the_security_headers_and_no_inline_script(site: Site) -> None:
    for nick in ("marko", COUNCILOR):
        session = site.sessions.get(nick) or await signed_in(site.club, site.base, nick)
        site.sessions[nick] = session
        for path in [*pages(site.scene).values(), MISSING]:
            async with session.get(site.base + path, allow_redirects=False) as answer:
                headers = answer.headers
                csp = headers["Content-Security-Policy"]
                assert "script-src 'self';" in csp
                assert "default-src 'none'" in csp
                assert "frame-ancestors 'none'" in csp
                assert headers["X-Content-Type-Options"] == "nosniff"
                assert headers["Referrer-Policy"] == "no-referrer"
                assert headers["Cache-Control"] == "no-store"
                if headers["Content-Type"].startswith("text/html") and "zapisnik" not in path:
                    html = await answer.text()
                    assert not re.search(r"<script(?![^>]*\bsrc=)", html), path
                    assert " style=" not in html, path
                    assert not re.search(r"\son[a-z]+=", html), path


async def test_the_member_reads_in_his_own_language(site: Site) -> None:
    club = site.club
    member = await club.get("marko")
    await run(club.desk, Caller("test", "marko", member, Place.PRIVATE), BY_NAME["jezik"], Args({"jezik": "en"}))
    _, body = await site.get("marko", "/partije")
    assert '<html lang="en">' in body
    assert "Games" in body
    _, serbian = await site.get(STRANGER, "/partije")
    assert '<html lang="sr-Latn">' in serbian


async def test_a_failing_page_is_a_plain_error_never_a_traceback(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object) -> None:
        raise RuntimeError("the database is on fire")

    monkeypatch.setattr(site.club.desk.archive, "games_page", broken)
    status, body = await site.get("marko", "/partije")
    assert status == 500
    assert "on fire" not in body
    assert "Traceback" not in body


async def test_trials_list_the_games_reports_as_presude_does(site: Site) -> None:
    """A report of an incident concerns the game, not a trial (the third club's): Suđenja lists it after the
    trials, as /presude does, to every member."""
    club = site.club
    kinds = (AppealKind("apelacija", 30, ""),)
    club.desk.config = replace(club.desk.config, appeals=AppealRules(kinds=kinds, reports=True))
    marko = await club.get("marko")
    filed = await club.desk.appeals.file_report(marko, OUT_OF_GAME, "apelacija", "sanja je psovala za stolom")
    assert filed.ok, filed.text
    [report] = await club.db.appeals.reports_of_game(OUT_OF_GAME)
    for nick in ("marko", STRANGER, COUNCILOR):
        member = await club.get(nick)
        caller = Caller("test", nick, member, Place.PRIVATE)
        chat = await run(club.desk, caller, BY_NAME["presude"], Args({"partija": OUT_OF_GAME}))
        assert f"#{report.id}" in chat.text
        status, page = await site.get(nick, f"/partije/{OUT_OF_GAME}/sudjenja")
        assert status == 200
        section = re.search(r'<section class="appeals reports".*?</section>', page, re.S)
        assert section is not None, nick
        assert "Prijave" in section.group()
        assert f"žalba {report.id}" in section.group()
        assert "(apelacija)" in section.group()
    _, other = await site.get("marko", f"/partije/{IN_GAME}/sudjenja")
    assert 'class="appeals reports"' not in other  # another game's reports are not this one's


async def test_a_games_trials_are_read_at_once_as_one_by_one(site: Site) -> None:
    """Suđenja reads the participants and conversations of all the game's trials in one query each: the same
    rows, in the same order, as the per-trial reads the chat's /presude makes."""
    db = site.club.db
    for number in (IN_GAME, OUT_OF_GAME):
        parties = await db.trials.participants_of_game(number)
        said = await db.trials.messages_of_game(number)
        trials = await db.trials.for_game(number)
        assert trials
        for trial in trials:
            assert parties.get(trial.id, []) == await db.trials.participants(trial.id)
            assert said.get(trial.id, []) == await db.trials.messages(trial.id)
        assert set(parties) | set(said) <= {t.id for t in trials}  # no other game's trial
    assert await db.trials.participants_of_game(999999) == {}


async def test_the_score_sheet_is_made_once_per_paper_and_language(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The paper's score sheet is kept with the kept paper: made once for a version, a language and whether
    names are shown, and made anew when the game's log grows (its version rises) — never a stale sheet."""
    made: list[str] = []
    render = jinja2.Template.render

    def counting(template: jinja2.Template, *args: object, **kwargs: object) -> str:
        if template.name == "_sheet.html":
            made.append(template.name)
        return render(template, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", counting)
    path = f"/partije/{IN_GAME}"
    _, first = await site.get("marko", path)
    _, again = await site.get("ivana", path)  # another player: the same sheet
    assert len(made) == 1
    assert first.count('<tr id="ruka-') == again.count('<tr id="ruka-') == 3
    _, official = await site.get(MODERATOR, path)  # names shown: a sheet of its own
    assert len(made) == 2
    assert REFEREE in official
    await site.club.game(IN_GAME, ("marko", "ivana", "sanja"), status=GameStatus.IN_PROGRESS, hands=4)
    _, grown = await site.get("marko", path)
    assert len(made) == 3
    assert grown.count('<tr id="ruka-') == 4
