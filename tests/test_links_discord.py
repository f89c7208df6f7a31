"""Proven identity on Discord, end to end: the real discord.py client against the fake Discord, the real desk.

A stranger's /nadimak of the owner, of a referee and of another player: refused or only pending, nothing granted,
told what proof is needed; the code path (wrong, expired, reused, another account's code, lockout) with a game
server that delivers codes; the approval path through the Approve button a moderator gets in his direct
messages; an approved link that then works; unlinking mid-trial; leaving one platform is not leaving the club.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from test_discord import NOW, World, answer_of, button_ids, link, make_world, open_trial, store_game
from test_links import CodeServer

from bot.app import App, build_app
from bot.desk.links import CODE_MINUTES, WRONG_CODES
from bot.ports import LoggingGameServer, ManualTimers
from fakes.discord_server import settle


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def club_app(world: World, server: LoggingGameServer) -> App:
    """marko is the owner (his Discord account in the configuration); vecnik is a moderator; sudija1 (a Discord
    referee) and ana are linked; sudija2 is a referee known only on Telegram; petar and ceca are strangers."""
    owner = {"owner": "marko", "owner_accounts": (f"discord:{world.m['marko'].id}",)}
    app = await build_app(
        world.config(owner),
        clock=world.clock,
        timers=ManualTimers(),
        game_server=server,
        database=str(world.tmp / "club.db"),
    )
    world.apps.append(app)
    await link(app, world, "sudija1", "ana", "vecnik")
    vecnik = await app.db.members.by_nick("vecnik")
    assert vecnik is not None
    await app.db.members.set_role(vecnik.id, "moderator", True, None, NOW)
    sudija2 = await app.db.members.link("telegram", "4242", "sudija2", NOW)
    await app.db.members.set_role(sudija2.id, "referee", True, None, NOW)
    await store_game(app, 100, ("ana", "petar", "ceca"))
    return app


def dump(app: App) -> str:
    with sqlite3.connect(app.db.path) as conn:
        return "\n".join(conn.iterdump())


async def test_a_stranger_gains_nothing_by_typing_a_nickname(world: World) -> None:
    fake, m = world.fake, world.m
    app = await club_app(world, LoggingGameServer())
    async with world.running(app):
        before = dump(app)
        owner = await answer_of(fake, await fake.slash(m["ceca"].id, "nadimak", {"nadimak": "marko"}))
        assert "owner_accounts" in owner
        assert "Ništa nije sačuvano" in owner
        referee = await answer_of(fake, await fake.slash(m["ceca"].id, "nadimak", {"nadimak": "sudija1"}))
        assert "već povezan sa drugim nalogom" in referee
        assert "Ništa nije sačuvano" in referee
        assert dump(app) == before  # refused: nothing stored
        # a referee not linked on Discord, and another player: only asked, nothing granted
        pending = await answer_of(fake, await fake.slash(m["ceca"].id, "nadimak", {"nadimak": "sudija2"}))
        assert "čeka odobrenje moderatora ili Vlasnika" in pending
        assert await app.db.members.by_account("discord", str(m["ceca"].id)) is None
        sudija2 = await app.db.members.by_nick("sudija2")
        assert sudija2 is not None
        assert sudija2.roles == {"referee"}
        assert sudija2.accounts == {"telegram:4242"}
        refused = await answer_of(fake, await fake.slash(m["ceca"].id, "sudija", {"partija": 100}))
        assert "nije dokazan" in refused
        assert "moderator" in refused
        assert await app.db.calls.pending_for_game(100) is None
        player = await answer_of(fake, await fake.slash(m["petar"].id, "nadimak", {"nadimak": "ana"}))
        assert "već povezan" in player
        # a code means nothing without a game server: approval is the proof
        coded = await answer_of(
            fake, await fake.slash(m["ceca"].id, "nadimak", {"nadimak": "sudija2", "kod": "123456"})
        )
        assert "nema vezu sa igračkim serverom" in coded
        # the owner is the owner by his configured account, and only he
        acts = await answer_of(fake, await fake.slash(m["marko"].id, "akti", {}))
        assert "marko (discord): nalog je povezan (odluka: podešavanja Kluba), podešavanjima" in acts


async def test_the_code_path_through_slash_commands(world: World) -> None:
    fake, m = world.fake, world.m
    server = CodeServer()
    app = await club_app(world, server)
    async with world.running(app):

        async def nadimak(who: str, nick: str, code: str | None = None) -> str:
            options = {"nadimak": nick} | ({"kod": code} if code is not None else {})
            return await answer_of(fake, await fake.slash(m[who].id, "nadimak", options))

        assert "poslao jednokratni kod nadimku petar" in await nadimak("petar", "petar")
        code = server.last_code("petar")
        wrong = "000000" if code != "000000" else "111111"
        assert "Preostalo pokušaja: 4" in await nadimak("petar", "petar", wrong)
        await nadimak("ceca", "petar")  # ceca asks for the same nickname: her own code, bound to her account
        assert "nije ispravan" in await nadimak("ceca", "petar", code)  # petar's code is not hers
        world.clock.advance(timedelta(minutes=CODE_MINUTES, seconds=1))
        assert "istekao" in await nadimak("petar", "petar", code)
        await nadimak("petar", "petar")
        fresh = server.last_code("petar")
        assert await nadimak("petar", "petar", fresh) == "Nalog je povezan sa nadimkom petar."
        assert "već povezan sa drugim nalogom" in await nadimak("ceca", "petar", fresh)  # reused: no proof
        # the proven link works at once
        called = await answer_of(fake, await fake.slash(m["petar"].id, "sudija", {"partija": 100}))
        assert "Pozvan je sudija za partiju 100" in called
        # ceca's tries run out: locked for an hour, even with a code that would be right
        await nadimak("ceca", "ceca")
        right = server.last_code("ceca")
        bad = "999999" if right != "999999" else "888888"
        for _ in range(WRONG_CODES - 1):
            await nadimak("ceca", "ceca", bad)
        assert "Previše pogrešnih kodova" in await nadimak("ceca", "ceca", bad)
        assert "Previše pogrešnih kodova" in await nadimak("ceca", "ceca", right)
        assert await app.db.members.by_account("discord", str(m["ceca"].id)) is None
        assert all(c != right for _, c in server.calls)  # the log never holds a code


async def test_approval_by_the_moderators_button_then_the_link_works(world: World) -> None:
    fake, m = world.fake, world.m
    app = await club_app(world, LoggingGameServer())
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["petar"].id, "nadimak", {"nadimak": "petar"}))
        request = await app.db.links.for_account("discord", str(m["petar"].id))
        assert request is not None
        dm = fake.dm_channel_id(m["vecnik"].id)
        assert dm is not None
        told = await fake.wait_for_message(dm, lambda msg: f"sudija:link_approve:{request.id}" in button_ids(msg))
        assert "petar" in told["content"]
        assert button_ids(told) == [
            f"sudija:link_approve:{request.id}",
            f"sudija:link_deny:{request.id}",
        ]
        # a player cannot approve, even with the payload forged; the moderator's list has the buttons too
        ix = await fake.slash(m["vecnik"].id, "povezi", {})
        assert f"#{request.id} petar — discord nalog {m['petar'].id}" in await answer_of(fake, ix)
        assert button_ids(fake.followups(ix.id)[-1]) == button_ids(told)
        forged = await fake.press(m["ana"].id, int(told["id"]), f"sudija:link_approve:{request.id}")
        assert "samo moderatori i Vlasnik" in await answer_of(fake, forged)
        assert await app.db.members.by_account("discord", str(m["petar"].id)) is None
        approved = await fake.press(m["vecnik"].id, int(told["id"]), f"sudija:link_approve:{request.id}")
        assert await answer_of(fake, approved) == "Odobreno: nalog igrača petar je povezan na platformi discord."
        again = await fake.press(m["vecnik"].id, int(told["id"]), f"sudija:link_approve:{request.id}")
        assert "više ne postoji" in await answer_of(fake, again)
        called = await answer_of(fake, await fake.slash(m["petar"].id, "sudija", {"partija": 100}))
        assert "Pozvan je sudija za partiju 100" in called
        acts = await answer_of(fake, await fake.slash(m["marko"].id, "akti", {"clan": "petar"}))
        assert "petar (discord): nalog je povezan (odluka: vecnik), odobrenjem" in acts


async def test_unlinking_mid_trial_and_leaving_one_platform(world: World) -> None:
    fake, m = world.fake, world.m
    app = await club_app(world, LoggingGameServer())
    ana = await app.db.members.by_nick("ana")
    assert ana is not None
    await app.db.members.link("telegram", "777", "ana", NOW)  # ana is also in the Telegram group
    async with world.running(app) as bot:
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        # leaving the Discord server is not leaving the club while she is still on Telegram
        left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
        await fake.member_leave(m["ana"].id)
        await asyncio.wait_for(left, timeout=5)
        await settle()
        assert (await app.db.members.by_nick("ana")).in_club  # type: ignore[union-attr]
        still = await app.db.trials.get(trial_id)
        assert still is not None
        assert still.is_open
        # the moderator unlinks her Discord account, then her Telegram one: no account speaks for her, it ends
        unlinked = await answer_of(
            fake, await fake.slash(m["vecnik"].id, "odvezi", {"clan": "ana", "platforma": "discord"})
        )
        assert unlinked == "Nalog igrača ana je odvezan: discord."
        assert "/nadimak" in (await app.desk.actor("discord", str(m["ana"].id))).text  # type: ignore[union-attr]
        assert (await app.db.trials.get(trial_id)).is_open  # type: ignore[union-attr]
        await answer_of(fake, await fake.slash(m["vecnik"].id, "odvezi", {"clan": "ana"}))
        ended = await app.db.trials.get(trial_id)
        assert ended is not None
        assert ended.outcome == "interrupted"
        assert ended.end_reason == "caller_left"
        await fake.wait_until(lambda: thread.archived)
        # the referee's roles stay his: unlinking another member moves no role
        sudija1 = await app.db.members.by_nick("sudija1")
        assert sudija1 is not None
        assert sudija1.roles == {"referee"}
        acts = await answer_of(fake, await fake.slash(m["marko"].id, "akti", {"clan": "ana"}))
        assert len(re.findall(r"ana \((?:discord|telegram)\): nalog je odvezan \(odluka: vecnik\)", acts)) == 2
        # the acts are the truth (decisions.md): a function stays with the member when his Discord account goes
        await answer_of(fake, await fake.slash(m["vecnik"].id, "odvezi", {"clan": "sudija1"}))
        sudija1 = await app.db.members.by_nick("sudija1")
        assert sudija1 is not None
        assert sudija1.roles == {"referee"}
        assert not sudija1.accounts
