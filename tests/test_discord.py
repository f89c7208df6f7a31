"""The Discord adapter end to end: the real discord.py client (bot/discord/) against the fake Discord
(tests/fakes/discord_server.py), with the real desk on a manual clock and a database in tmp_path.

What a member would see is asserted on the fake's records: messages, edits, ephemeral answers, threads and their
members, and who each message pinged.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.app import App, build_app
from bot.config import Config, DiscordConfig
from bot.discord import SudijaBot, attach_discord
from bot.discord.port import relaying_from_discord
from bot.metrics import REGISTRY
from bot.ports import ManualClock, ManualTimers
from fakes.discord_server import (
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMember,
    FakeRole,
    Perm,
    pointed_at,
    run_client,
    settle,
)
from rules.gamelog import GameStatus
from rules.generator import generate_game
from rules.members import Role
from rules.paper import compute_paper
from rules.paper_hand import DefenceShape
from storage.games import PreparedGame

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@dataclass
class World:
    fake: FakeDiscord
    tmp: Path
    referee_role: FakeRole
    councilor_role: FakeRole
    referees: FakeChannel
    councilors: FakeChannel
    trials: FakeChannel
    m: dict[str, FakeMember]
    clock: ManualClock
    apps: list[App]

    def config(self, club: dict[str, Any] | None = None, **discord_settings: Any) -> Config:
        return Config(
            **(club or {}),
            discord=DiscordConfig(
                guild_id=self.fake.guild_id,
                referees_channel_id=self.referees.id,
                trials_channel_id=self.trials.id,
                councilors_channel_id=self.councilors.id,
                roles={"referee": self.referee_role.id, "councilor": self.councilor_role.id},
                **discord_settings,
            ),
        )

    async def app(self, club: dict[str, Any] | None = None, **discord_settings: Any) -> App:
        app = await build_app(
            self.config(club, **discord_settings),
            clock=self.clock,
            timers=ManualTimers(),
            database=str(self.tmp / "club.db"),
        )
        self.apps.append(app)
        return app

    @asynccontextmanager
    async def running(self, app: App) -> AsyncIterator[SudijaBot]:
        bot = attach_discord(app, guild_ready_timeout=0.05)
        await app.desk.start()
        async with run_client(bot, self.fake) as client:
            assert isinstance(client, SudijaBot)
            await self.fake.wait_for_client(client, lambda: client.is_ready(), what="ready")
            yield client


@asynccontextmanager
async def make_world(tmp_path: Path) -> AsyncIterator[World]:
    """A fake server with two referees, a councilor, three players and ceca; the referees', councilors' and trials
    channels; discord.py pointed at it. Every app a test opened is closed at the end, even when the test failed."""
    async with FakeDiscord() as fake:
        referee = fake.add_role("Sudija")  # unmarked: not hoisted, no colour
        councilor = fake.add_role("Većnik")
        roles = {"sudija1": [referee.id], "sudija2": [referee.id], "vecnik": [councilor.id]}
        members = {
            nick: fake.add_member(nick, roles=roles.get(nick, []))
            for nick in ("ana", "marko", "petar", "ceca", "sudija1", "sudija2", "vecnik")
        }
        referees = fake.add_text_channel("sudije", private_to=[referee.id])
        councilors = fake.add_text_channel("vecnici", private_to=[councilor.id])
        trials = fake.add_text_channel("sudjenja")
        with pointed_at(fake):
            made = World(
                fake, tmp_path, referee, councilor, referees, councilors, trials, members, ManualClock(NOW), []
            )
            try:
                yield made
            finally:
                for app in made.apps:  # an open database would keep its thread alive
                    await app.close()
        fake.assert_clean()


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def link(app: App, world: World, *nicks: str) -> None:
    """Link the accounts; a member whose Discord role shows a function holds it by the club's acts too (the acts
    are the truth: the bot writes the roles from them, decisions.md)."""
    functions = {world.referee_role.id: "referee", world.councilor_role.id: "councilor"}
    for nick in nicks:
        member = await app.db.members.link("discord", str(world.m[nick].id), nick, world.clock.now())
        for role_id in world.m[nick].roles:
            if role_id in functions:
                await app.db.members.set_role(member.id, Role(functions[role_id]), True, None, world.clock.now())


async def store_game(
    app: App,
    number: int,
    players: tuple[str, str, str] = ("ana", "marko", "petar"),
    *,
    ended_ago: timedelta = timedelta(hours=1),
    status: GameStatus = GameStatus.FINISHED,
) -> None:
    end = NOW - ended_ago
    game = generate_game(
        random.Random(number), number, hands=4, status=status, players=players, start=end - timedelta(hours=2)
    )
    if status is not GameStatus.IN_PROGRESS:
        game = replace(game, ended_at=end)
    await app.db.games.store([PreparedGame.of(game)], NOW)


async def answer_of(fake: FakeDiscord, ix: FakeInteraction) -> str:
    """The text the member saw: the followups replacing a deferred answer (ephemeral), or the answer itself."""
    first = await fake.wait_for_response(ix.id)
    if first["type"] == 4:
        return str(first["data"]["content"])
    assert first["type"] == 5, "deferred, and only for him"
    assert first["data"]["flags"] & 64, "deferred, and only for him"
    return "\n".join(str(m["content"]) for m in fake.followups(ix.id))


def button_ids(message: dict[str, Any]) -> list[str]:
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


async def call_message(world: World, call: int) -> dict[str, Any]:
    return await world.fake.wait_for_message(world.referees.id, lambda m: f"sudija:take:{call}" in button_ids(m))


async def pending_call_id(app: App, game: int) -> int:
    call = await app.db.calls.pending_for_game(game)
    assert call is not None
    return call.id


async def nick_of(app: App, member_id: int) -> str:
    member = await app.db.members.get(member_id)
    assert member is not None
    return member.nick


async def member_says(bot: SudijaBot, fake: FakeDiscord, who: FakeMember, thread: FakeChannel, text: str) -> None:
    """A member types in a thread; returns once the bot has received it and its handlers have finished."""
    seen = bot.wait_for("message", check=lambda msg: msg.content == text and msg.author.id == who.id)
    await fake.user_message(who.id, thread.id, text)
    await asyncio.wait_for(seen, timeout=5)
    await settle()


# ---------------------------------------------------------------------- the whole trial


async def test_call_press_race_thread_draft_replace_finish_and_presude(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")  # ceca is not linked
    await store_game(app, 100)
    async with world.running(app) as bot:
        # slash command: deferred, then the caller alone sees the answer with his Povuci poziv button
        ix = await fake.slash(m["ana"].id, "sudija", {"partija": 100})
        answer = await answer_of(fake, ix)
        assert "Pozvan je sudija za partiju 100" in answer
        call = await pending_call_id(app, 100)
        assert button_ids(fake.followups(ix.id)[-1]) == [f"sudija:withdraw:{call}"]

        # the referees' channel: one message, the Sudi button, pinging exactly the two eligible referees
        notice = await call_message(world, call)
        pings = fake.pings[int(notice["id"])]
        assert pings.users == {m["sudija1"].id, m["sudija2"].id}
        assert not pings.everyone
        assert not pings.roles
        assert notice["components"][0]["components"][0]["label"] == "Sudi"
        # the call's deadline as a Discord timestamp: each client shows it in its own time, and how far off it is
        until = int((NOW + timedelta(minutes=5)).timestamp())
        assert f"Važi do <t:{until}:f> (<t:{until}:R>)." in notice["content"]

        # both referees press at once: exactly one wins, the other is told who did
        a, b = await asyncio.gather(
            fake.press(m["sudija1"].id, int(notice["id"]), f"sudija:take:{call}"),
            fake.press(m["sudija2"].id, int(notice["id"]), f"sudija:take:{call}"),
        )
        by_presser = {"sudija1": await answer_of(fake, a), "sudija2": await answer_of(fake, b)}
        trial = await app.db.trials.open_for_game(100)
        assert trial is not None
        assert len(await app.db.trials.for_game(100)) == 1
        winner = await nick_of(app, trial.referee)
        loser = "sudija2" if winner == "sudija1" else "sudija1"
        assert by_presser[winner] == f"Sudite u partiji 100 (suđenje {trial.id})."
        assert by_presser[loser] in (
            f"Poziv za partiju 100 je već prihvatio sudija {winner}.",  # after his write
            f"Poziv za partiju 100 upravo prihvata sudija {winner}.",
        )  # during it

        # every copy of the call edited: taken, the button gone
        edited = fake.message(int(notice["id"]))
        assert f"prihvatio sudija {winner}" in edited["content"]
        assert edited["components"] == []

        # a private thread, not invitable, with exactly the caller, the referee and the bot
        (thread,) = fake.threads_in(world.trials.id)
        assert thread.type == 12
        assert not thread.invitable
        assert thread.name == f"Suđenje #{trial.id}"
        assert fake.thread_members(thread.id) == {fake.bot_user.id, m["ana"].id, m[winner].id}
        assert m[loser].id not in fake.thread_members(thread.id)
        (controls,) = fake.messages_in(thread.id)
        assert button_ids(controls) == [
            f"sudija:{action}:{trial.id}"
            for action in (
                "hands",
                "history",
                "finish",
                "leave",
                "nacrt_kazna",
                "nacrt_svodjenje",
                "nacrt_niko",
                "nacrt_bez",
            )
        ]

        # the caller writes in the thread: it is the transcript, and it is not echoed back
        await member_says(bot, fake, m["ana"], thread, "Petar je namerno napustio partiju.")
        assert [msg.text for msg in await app.db.trials.messages(trial.id)] == ["Petar je namerno napustio partiju."]
        assert len(fake.messages_in(thread.id)) == 2

        # the draft, through the button's modal; then a replacement
        referee = m[winner].id
        press = await fake.press(referee, int(controls["id"]), f"sudija:nacrt_kazna:{trial.id}")
        modal = await fake.wait_for_response(press.id)
        assert modal["type"] == 9
        fields = [c["component"]["custom_id"] for c in modal["data"]["components"]]
        assert [c["type"] for c in modal["data"]["components"]] == [18] * 5  # labelled text inputs
        assert fields == ["culprit", "plavac", "league", "abandoned", "reason"]
        first = await fake.submit_modal(press.id, {"culprit": "petar", "plavac": "2", "reason": "namerno"})
        assert "plavac 2" in await answer_of(fake, first)
        again = await fake.press(referee, int(controls["id"]), f"sudija:nacrt_kazna:{trial.id}")
        await fake.wait_for_response(again.id)
        second = await fake.submit_modal(
            again.id,
            {
                "culprit": "petar",
                "plavac": "3",
                "league": "2",
                "reason": f"@everyone namerno <@&{world.referee_role.id}>",
            },
        )
        assert "plavac 3" in await answer_of(fake, second)

        # Završi suđenje: recorded; the last word in the thread pings nobody; the thread archived and locked
        done = await fake.press(referee, int(controls["id"]), f"sudija:finish:{trial.id}")
        assert "upisana" in await answer_of(fake, done)
        last = fake.messages_in(thread.id)[-1]
        assert "@everyone namerno <@&" in last["content"]
        assert fake.pings[int(last["id"])].nobody
        assert thread.archived
        assert thread.locked
        finished = await app.db.trials.get(trial.id)
        assert finished is not None
        assert finished.outcome == "verdict"
        assert finished.verdict is not None
        assert finished.verdict["plavac_days"] == 3

        # /presude: the verdict, to any member, the referee's name hidden from members; an unproven account
        # (ceca) can do nothing but ask to be linked
        shown = await answer_of(fake, await fake.slash(m["marko"].id, "presude", {"partija": 100}))
        assert "Kazna za petar" in shown
        assert "plavac 3" in shown
        assert "@everyone namerno" in shown
        assert winner not in shown
        # the caller (a player) sees the conversation too, and a trial's page of it by its number
        page = await answer_of(
            fake, await fake.slash(m["ana"].id, "presude", {"partija": 100, "sudjenje": trial.id, "strana": 1})
        )
        assert page.startswith(f"Suđenje #{trial.id} u partiji 100: poruke")
        assert winner not in page
        assert "/nadimak" in await answer_of(fake, await fake.slash(m["ceca"].id, "presude", {"partija": 100}))


async def open_trial(world: World, app: App, game: int, caller: str, referee: str) -> tuple[int, FakeChannel]:
    fake, m = world.fake, world.m
    await answer_of(fake, await fake.slash(m[caller].id, "sudija", {"partija": game}))
    call = await pending_call_id(app, game)
    notice = await call_message(world, call)
    taken = await answer_of(fake, await fake.press(m[referee].id, int(notice["id"]), f"sudija:take:{call}"))
    assert taken.startswith("Sudite"), taken
    trial = await app.db.trials.open_for_game(game)
    assert trial is not None
    (thread,) = [t for t in fake.threads_in(world.trials.id) if t.name == f"Suđenje #{trial.id}"]
    return trial.id, thread


# ---------------------------------------------------------------------- commands


async def test_commands_have_serbian_names_english_localizations_and_sync_to_the_guild(world: World) -> None:
    app = await world.app()
    async with world.running(app):
        commands = world.fake.guild_commands
        assert {
            "sudija",
            "povuci",
            "presude",
            "papir",
            "dezurstvo",
            "nadimak",
            "ruke",
            "sudjenja",
            "vecnik",
            "promeni",
            "presuda",
            "zavrsi",
            "napusti",
        } <= set(commands)
        assert world.fake.global_commands == {}
        sudija = commands["sudija"]
        assert sudija["name_localizations"]["en-US"] == "referee"
        assert sudija["description"].startswith("Pozovi sudiju")
        assert sudija["description_localizations"]["en-GB"].startswith("Call a referee")
        (option,) = sudija["options"]
        assert option["name"] == "partija"
        assert option["name_localizations"]["en-US"] == "game"
        assert option["autocomplete"] is True
        assert option["required"] is False
        assert option["type"] == 4
        kinds = commands["presuda"]["options"][0]["choices"]
        assert [c["value"] for c in kinds] == ["bule", "bula", "kazna", "svodjenje", "niko", "bez"]
        assert kinds[0]["name"] == "Promena bula"
        assert kinds[0]["name_localizations"]["en-US"] == "Bule change"


async def test_autocomplete_offers_the_callers_recent_games_and_the_desk_still_checks_the_number(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    await store_game(app, 101, status=GameStatus.IN_PROGRESS)
    await store_game(app, 102, ended_ago=timedelta(days=10))
    await store_game(app, 103, ("marko", "petar", "ceca"))
    async with world.running(app):
        ix = await fake.autocomplete(m["ana"].id, "sudija", "partija", "")
        body = await fake.wait_for_response(ix.id)
        assert body["type"] == 8
        assert sorted(c["value"] for c in body["data"]["choices"]) == [100, 101]
        assert any("ana, marko, petar" in c["name"] for c in body["data"]["choices"])
        narrowed = await fake.autocomplete(m["ana"].id, "presude", "partija", "101")
        assert [c["value"] for c in (await fake.wait_for_response(narrowed.id))["data"]["choices"]] == [101]
        nobody = await fake.autocomplete(m["ceca"].id, "sudija", "partija", "")  # not linked: nothing to offer
        assert (await fake.wait_for_response(nobody.id))["data"]["choices"] == []
        # a number typed past the suggestions is checked by the desk like any other
        refused = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 103}))
        assert "niste igrali" in refused
        assert await app.db.calls.pending_for_game(103) is None
        assert fake.messages_in(world.referees.id) == []


async def test_papir_and_unlinked_member(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ceca")
    await store_game(app, 100)
    async with world.running(app):
        unlinked = await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        assert "/nadimak" in unlinked
        assert "/nadimak" in await answer_of(fake, await fake.slash(m["ana"].id, "papir", {"partija": 100}))
        ix = await fake.slash(m["ceca"].id, "papir", {"partija": 100})
        await answer_of(fake, ix)
        paper = fake.followups(ix.id)
        assert paper
        assert all(p["content"].startswith("```") and len(p["content"]) <= 2000 for p in paper)
        assert all(p["flags"] & 64 for p in paper)


# ---------------------------------------------------------------------- buttons


async def test_a_restart_between_the_call_and_the_press_still_works(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
    assert not fake.connected
    await app.close()  # the process ends
    world.apps.remove(app)

    restarted = await world.app()  # a new process: same database, nothing in memory
    async with world.running(restarted):
        press = await fake.press(m["sudija1"].id, int(notice["id"]), f"sudija:take:{call}")
        assert (await answer_of(fake, press)).startswith("Sudite u partiji 100")
        assert "prihvatio sudija sudija1" in fake.message(int(notice["id"]))["content"]
        (thread,) = fake.threads_in(world.trials.id)
        assert fake.thread_members(thread.id) == {fake.bot_user.id, m["ana"].id, m["sudija1"].id}
    assert len(fake.identifies) == 2


async def test_a_press_by_a_non_referee_gets_an_ephemeral_refusal(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "ceca", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        before = len(fake.messages_in(world.referees.id))
        press = await fake.press(m["ceca"].id, int(notice["id"]), f"sudija:take:{call}")
        assert await answer_of(fake, press) == "Samo sudije mogu prihvatiti poziv."
        assert all(f["flags"] & 64 for f in fake.followups(press.id))
        stranger = await fake.press(m["petar"].id, int(notice["id"]), f"sudija:take:{call}")  # not linked
        assert "/nadimak" in await answer_of(fake, stranger)
        # a forged payload (a custom_id naming another call): re-checked against the database, nothing happens
        fake.message(int(notice["id"]))["components"][0]["components"][0]["custom_id"] = "sudija:take:999"
        forged = await fake.press(m["sudija1"].id, int(notice["id"]), "sudija:take:999")
        assert await answer_of(fake, forged) == "Taj poziv ne postoji."
        assert await app.db.calls.pending_for_game(100) is not None
        assert len(fake.messages_in(world.referees.id)) == before
        refusal = fake.followups(press.id)[0]
        assert refusal in fake.ephemeral_messages(m["ceca"].id)


async def test_direct_messages_closed_dms_and_every_copy_edited_on_withdraw(world: World) -> None:
    fake, m = world.fake, world.m
    fake.close_dms(m["sudija2"].id)
    app = await world.app(direct_messages=True)
    await link(app, world, "ana", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app):
        ix = await fake.slash(m["ana"].id, "sudija", {"partija": 100})
        await answer_of(fake, ix)
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        dm = fake.dm_channel_id(m["sudija1"].id)
        assert dm is not None
        (direct,) = fake.messages_in(dm)
        assert button_ids(direct) == [f"sudija:take:{call}"]
        closed = fake.dm_channel_id(m["sudija2"].id)
        assert closed is None or fake.messages_in(closed) == []  # 403 / 50007 handled: the call went out anyway
        assert len(await app.db.calls.notices(f"call:{call}")) == 2

        # the caller withdraws with the button on his own answer: every copy is edited, buttons gone
        own = fake.followups(ix.id)[-1]
        withdraw = await fake.press(m["ana"].id, int(own["id"]), f"sudija:withdraw:{call}")
        assert "povučen" in await answer_of(fake, withdraw) or "povuk" in await answer_of(fake, withdraw)
        for copy in (fake.message(int(notice["id"])), fake.message(int(direct["id"]))):
            assert "povučen" in copy["content"]
            assert copy["components"] == []


async def test_expiry_on_the_manual_clock_edits_the_call_and_tells_the_caller(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        world.clock.advance(timedelta(minutes=app.config.call_minutes, seconds=1))
        await app.desk.run_due()
        edited = fake.message(int(notice["id"]))
        assert "istekao" in edited["content"]
        assert edited["components"] == []
        dm = fake.dm_channel_id(m["ana"].id)
        assert dm is not None
        assert "Nijedan sudija" in fake.messages_in(dm)[-1]["content"]


# ---------------------------------------------------------------------- trials


async def test_in_game_trial_has_the_whole_table_and_the_bula_change_modal(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1")
    await store_game(app, 200, status=GameStatus.IN_PROGRESS)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 200, "marko", "sudija1")
        assert fake.thread_members(thread.id) == {fake.bot_user.id} | {
            m[n].id for n in ("ana", "marko", "petar", "sudija1")
        }
        controls = fake.messages_in(thread.id)[0]
        assert [c.split(":")[1] for c in button_ids(controls)] == [
            "hands",
            "history",
            "councilor",
            "finish",
            "leave",
            "nacrt_bule",
            "nacrt_bula",
            "nacrt_bez",
        ]
        # a player pressing the referee's draft button gets no modal
        nosy = await fake.press(m["ana"].id, int(controls["id"]), f"sudija:nacrt_bule:{trial_id}")
        body = await fake.wait_for_response(nosy.id)
        assert body["type"] == 4
        assert body["data"]["flags"] & 64
        assert "ne sudite" in body["data"]["content"].lower()
        press = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:nacrt_bule:{trial_id}")
        assert (await fake.wait_for_response(press.id))["type"] == 9
        bad = await fake.submit_modal(press.id, {"amounts": "ana četiri", "reason": "x"})
        assert "Broj bula" in await answer_of(fake, bad)
        again = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:nacrt_bule:{trial_id}")
        await fake.wait_for_response(again.id)
        good = await fake.submit_modal(again.id, {"hand": "3", "amounts": "ana +4, petar -2", "reason": "vređanje"})
        assert "ana +4, petar -2" in await answer_of(fake, good)
        hands = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:hands:{trial_id}")
        shown = await answer_of(fake, hands)
        assert "Ruka 1" in shown
        done = await answer_of(fake, await fake.slash(m["sudija1"].id, "zavrsi", channel_id=thread.id))
        assert "upisana" in done
        changes = await app.db.paper_changes.for_game(200)
        assert len(changes) == 1
        assert changes[0].hand == 3
        assert thread.archived
        assert thread.locked


async def test_relay_from_another_platform_pings_nobody_and_own_messages_are_not_echoed(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app) as bot:
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        count = len(fake.messages_in(thread.id))
        space = await app.desk.lookups.trial_space_by_id(trial_id)
        assert space is not None
        token = relaying_from_discord.set(ana.id)
        try:
            await bot.chat.say_in_trial(space, "already in the thread", ana)
        finally:
            relaying_from_discord.reset(token)
        assert len(fake.messages_in(thread.id)) == count
        await bot.chat.say_in_trial(space, f"@everyone @here <@{m['sudija1'].id}> <@&{world.referee_role.id}>", ana)
        relayed = fake.messages_in(thread.id)[-1]
        assert relayed["content"].startswith("ana: @everyone")
        assert fake.pings[int(relayed["id"])].nobody


# ---------------------------------------------------------------------- members: link, roles, presence, leaving


async def test_nadimak_links_and_the_discord_roles_decide_nobodys_function(world: World) -> None:
    """The acts are the truth (decisions.md): a Discord role the acts do not give makes nobody a referee, and a
    role changed by hand changes no function (it is reported to the councilors: tests/test_discord_governance.py)."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "vecnik")
    vecnik = await app.db.members.by_nick("vecnik")
    assert vecnik is not None
    await app.db.members.set_role(vecnik.id, "moderator", True, None, NOW)  # a desk function, not a Discord role
    async with world.running(app) as bot:
        asked = await answer_of(fake, await fake.slash(m["sudija1"].id, "nadimak", {"nadimak": "Sudija1"}))
        assert asked.startswith("Zahtev za nadimak Sudija1 čeka odobrenje")
        assert await app.db.members.by_nick("sudija1") is None  # only asked: nobody, no role, no account
        approved = await answer_of(
            fake, await fake.slash(m["vecnik"].id, "povezi", {"nadimak": "sudija1", "odluka": "odobri"})
        )
        assert approved == "Odobreno: nalog igrača Sudija1 je povezan na platformi discord."
        member = await app.db.members.by_nick("sudija1")
        assert member is not None
        assert member.roles == frozenset()  # his Discord role is no act
        assert member.online
        taken = await answer_of(fake, await fake.slash(m["ceca"].id, "nadimak", {"nadimak": "sudija1"}))
        assert "već povezan" in taken
        assert (await app.db.members.by_account("discord", str(m["ceca"].id))) is None

        updated = bot.wait_for("member_update", check=lambda before, after: after.id == m["sudija1"].id)
        await fake.set_roles(m["sudija1"].id, [world.councilor_role.id])
        await asyncio.wait_for(updated, timeout=5)
        await settle()
        member = await app.db.members.by_nick("sudija1")
        assert member is not None
        assert member.roles == frozenset()


async def test_roles_and_presence_are_synced_on_ready_and_presence_updates_reach_the_desk(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "sudija1", "ceca")
    ceca = await app.db.members.by_nick("ceca")
    assert ceca is not None
    await app.db.members.set_role(ceca.id, "referee", True, None, NOW)  # an act; Discord shows no role yet
    fake.members[m["sudija1"].id].status = "idle"
    async with world.running(app) as bot:
        sudija1 = await app.db.members.by_nick("sudija1")
        ceca = await app.db.members.by_nick("ceca")
        assert sudija1 is not None
        assert sudija1.roles == {"referee"}
        assert sudija1.online
        assert ceca is not None
        assert ceca.roles == {"referee"}  # the act stands: the bot writes the role (without Manage Roles: logged)
        assert ceca.online
        changed = bot.wait_for("presence_update", check=lambda before, after: after.id == m["sudija1"].id)
        await fake.set_presence(m["sudija1"].id, "offline")
        await asyncio.wait_for(changed, timeout=5)
        await settle()
        sudija1 = await app.db.members.by_nick("sudija1")
        assert sudija1 is not None
        assert not sudija1.online


async def test_a_large_guilds_members_reach_the_bot_in_chunks_and_are_synced(world: World) -> None:
    """A guild of 2,300: GUILD_CREATE carries only those online, with a role or a nickname; discord.py asks for the
    rest (op 8) and gets them in chunks of at most 1,000 with one nonce; a linked member who is in none but the
    last chunk is synced on ready all the same (the acts make him a referee: the bot writes the role)."""
    fake = world.fake
    fake.bot_role.permissions |= Perm.MANAGE_ROLES
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    for i in range(2300 - len(fake.members) - 1):
        fake.add_member(f"clan{i:04d}", status="offline")
    zeta = fake.add_member("zeta", status="offline")  # no role, no nickname, offline: only in a chunk
    app = await world.app()
    member = await app.db.members.link("discord", str(zeta.id), "zeta", NOW)
    await app.db.members.set_role(member.id, Role.REFEREE, True, None, NOW)
    async with world.running(app) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        assert guild.large
        assert guild.chunked
        assert len(guild.members) == len(fake.members) == 2300
        assert guild.get_member(zeta.id) is not None
        created = next(f.payload["d"] for f in fake.gateway_sent if f.payload.get("t") == "GUILD_CREATE")
        assert created["large"]
        assert zeta.id not in {int(x["user"]["id"]) for x in created["members"]}
        assert len(created["members"]) < 100
        (request,) = fake.received_ops(8)
        assert request["d"]["query"] == ""
        assert request["d"]["limit"] == 0
        chunks = fake.chunks_sent()
        assert [len(c["members"]) for c in chunks] == [1000, 1000, 300]
        assert [(c["chunk_index"], c["chunk_count"]) for c in chunks] == [(0, 3), (1, 3), (2, 3)]
        assert {c["nonce"] for c in chunks} == {request["d"]["nonce"]}
        assert str(zeta.id) in {x["user"]["id"] for x in chunks[-1]["members"]}
        await fake.wait_until(lambda: world.referee_role.id in fake.members[zeta.id].roles, what="zeta's role")
    assert not fake.unanswered_member_requests


class Pauses:
    """The bot's pause before it asks Discord again for the member list (`MemberList.sleep`), on the club's manual
    clock: it ends when the test moves that clock past it, never by waiting for real."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.moved = asyncio.Condition()
        self.asked: list[float] = []  # the seconds of each pause, in order

    async def sleep(self, seconds: float) -> None:
        until = self.clock.now() + timedelta(seconds=seconds)
        async with self.moved:
            self.asked.append(seconds)
            self.moved.notify_all()
            await self.moved.wait_for(lambda: self.clock.now() >= until)

    async def paused(self, count: int) -> float:
        """The seconds of pause number `count`, once the bot has begun it."""
        async with asyncio.timeout(5), self.moved:
            await self.moved.wait_for(lambda: len(self.asked) >= count)
        return self.asked[count - 1]

    async def advance(self, seconds: float) -> None:
        self.clock.advance(timedelta(seconds=seconds))
        async with self.moved:
            self.moved.notify_all()


def rate_limits(app: App) -> float:
    """The rate limited member lists counted in /metrics for the app's club (in this process: every test's)."""
    labels = {"club": app.config.club_id, "platform": "discord", "request": "members"}
    return REGISTRY.get_sample_value("sudija_platform_rate_limited_total", labels) or 0.0


@dataclass
class Restart:
    bot: SudijaBot
    app: App
    zeta: FakeMember
    pauses: Pauses
    counted_before: float  # the process's count of rate limits before this restart

    def rate_limits(self) -> float:
        return rate_limits(self.app) - self.counted_before

    @property
    def guild(self) -> discord.Guild:
        guild = self.bot.get_guild(self.app.config.discord.guild_id)
        assert guild is not None
        return guild


@asynccontextmanager
async def restarted_within_30_s(world: World) -> AsyncIterator[Restart]:
    """A guild of 1,110 whose whole member list the bot received at its first start; an act makes zeta — offline, no
    role, no nickname: only in the last chunk — a referee while the bot is down; it starts again at once and Discord
    rate limits its request for the member list. Yields the restarted bot, ready."""
    fake = world.fake
    fake.bot_role.permissions |= Perm.MANAGE_ROLES
    fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1
    for i in range(1110 - len(fake.members) - 1):
        fake.add_member(f"clan{i:04d}", status="offline")
    zeta = fake.add_member("zeta", status="offline")
    app = await world.app()
    member = await app.db.members.link("discord", str(zeta.id), "zeta", NOW)
    async with world.running(app) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        assert guild.chunked
        assert guild.get_member(zeta.id) is not None
    await app.close()  # the process ends
    world.apps.remove(app)
    restarted = await world.app()
    await restarted.db.members.set_role(member.id, Role.REFEREE, True, None, NOW)  # an act while the bot is down
    bot = attach_discord(restarted, guild_ready_timeout=0.05)
    pauses = Pauses(world.clock)
    bot.member_list.sleep = pauses.sleep
    counted = rate_limits(restarted)
    await restarted.desk.start()
    async with run_client(bot, fake) as client:
        assert isinstance(client, SudijaBot)
        await fake.wait_for_client(client, lambda: client.is_ready(), what="ready")
        yield Restart(client, restarted, zeta, pauses, counted)


def members_rate_limited(fake: FakeDiscord) -> list[dict[str, Any]]:
    return [f.payload["d"] for f in fake.gateway_sent if f.payload.get("t") == "RATE_LIMITED"]


async def test_a_member_list_rate_limited_after_a_restart_is_asked_again_and_synced(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart within 30 s: Discord answers discord.py's request for the whole member list with RATE_LIMITED, and
    the bot is ready with only the members GUILD_CREATE carried — zeta, made a referee while it was down, is not
    among them and has no role. The bot says so once, counts it, pauses as long as Discord said (on the injected
    clock), asks again, and syncs every member that came: zeta's referee role is written."""
    fake = world.fake
    with caplog.at_level(logging.INFO, logger="bot.member_list"):
        async with restarted_within_30_s(world) as restart:
            guild, zeta, pauses = restart.guild, restart.zeta, restart.pauses
            (limited,) = members_rate_limited(fake)
            _first, again = (r["d"] for r in fake.received_ops(8))  # the first start's, the restart's
            assert limited["meta"] == {"guild_id": str(fake.guild_id), "nonce": again["nonce"]}
            assert not fake.chunks_sent(again["nonce"])
            assert not guild.chunked
            assert guild.get_member(zeta.id) is None
            assert world.referee_role.id not in fake.members[zeta.id].roles
            assert restart.rate_limits() == 1
            await restart.bot.ready_once.wait()
            # a list not whole says nothing of who left: zeta, missing from it, is in the club as recorded
            assert await restart.app.db.members.accounts_on("discord") == [(str(zeta.id), True, True)]

            wait = await pauses.paused(1)
            assert wait == limited["retry_after"]
            assert 0 < wait <= 30
            assert len(fake.received_ops(8)) == 2  # nothing asked before the pause ends
            fake.age_member_requests(30)
            await pauses.advance(wait)

            await fake.wait_until(lambda: world.referee_role.id in fake.members[zeta.id].roles, what="zeta's role")
            third = fake.received_ops(8)[-1]["d"]
            assert (third["query"], third["limit"]) == ("", 0)
            chunks = fake.chunks_sent(third["nonce"])
            assert [(c["chunk_index"], c["chunk_count"]) for c in chunks] == [(0, 2), (1, 2)]
            assert str(zeta.id) in {x["user"]["id"] for x in chunks[-1]["members"]}
            assert guild.chunked
            assert len(guild.members) == len(fake.members) == 1110
            assert pauses.asked == [wait]
            assert restart.rate_limits() == 1
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "bot.member_list"]
    assert len(warnings) == 1
    assert "rate limited" in warnings[0].getMessage()
    assert not fake.unanswered_member_requests


async def test_a_member_list_rate_limited_twice_is_asked_again_until_it_comes(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot's pause ends before Discord's window has (the window is Discord's clock, not the club's): the request
    made then is rate limited too. The bot pauses again as Discord says — no second warning, both counted — and
    asks once more; that one is answered, and zeta's role is written."""
    fake = world.fake
    with caplog.at_level(logging.INFO, logger="bot.member_list"):
        async with restarted_within_30_s(world) as restart:
            guild, zeta, pauses = restart.guild, restart.zeta, restart.pauses
            await pauses.advance(await pauses.paused(1))  # Discord's window still open: refused again
            await pauses.paused(2)
            second, third = fake.received_ops(8)[-2:]
            assert [r["meta"]["nonce"] for r in members_rate_limited(fake)] == [
                second["d"]["nonce"],
                third["d"]["nonce"],
            ]
            assert restart.rate_limits() == 2
            assert not fake.chunks_sent(third["d"]["nonce"])
            assert guild.get_member(zeta.id) is None
            assert world.referee_role.id not in fake.members[zeta.id].roles

            fake.age_member_requests(30)
            await pauses.advance(pauses.asked[1])
            await fake.wait_until(lambda: world.referee_role.id in fake.members[zeta.id].roles, what="zeta's role")
            assert len(fake.received_ops(8)) == 4
            assert len(fake.chunks_sent(fake.received_ops(8)[-1]["d"]["nonce"])) == 2
            assert guild.chunked
            assert len(pauses.asked) == 2
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "bot.member_list"]
    assert len(warnings) == 1
    assert any("again (2 times)" in r.getMessage() for r in caplog.records if r.name == "bot.member_list")


async def test_a_member_who_comes_back_and_leaves_at_once_ends_out_of_the_club(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ana, who left, comes back to the server and leaves again at once. discord.py hands each event to a task of
    its own: her join's sync is still reading the records when her leave is done. The sync is done for the account
    as the server shows it then — not on it: nothing — so she ends out of the club, as the server shows her."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana")
    async with world.running(app) as bot:
        left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
        await fake.member_leave(m["ana"].id)
        await asyncio.wait_for(left, timeout=5)
        await settle()
        reading, read = asyncio.Event(), asyncio.Event()
        member_of = bot.member_of

        async def slow_read(account: discord.abc.User) -> Any:  # her join's read of the records takes a moment
            reading.set()
            await read.wait()
            return await member_of(account)

        monkeypatch.setattr(bot, "member_of", slow_read)
        await fake.member_return(m["ana"].id)
        await asyncio.wait_for(reading.wait(), timeout=5)
        left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
        await fake.member_leave(m["ana"].id)
        await asyncio.wait_for(left, timeout=5)
        read.set()
        await settle()
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        assert not ana.in_club


async def test_the_caller_leaving_the_server_ends_his_trial_and_the_thread_is_locked(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app) as bot:
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        left = bot.wait_for("raw_member_remove", check=lambda payload: payload.user.id == m["ana"].id)
        await fake.member_leave(m["ana"].id)
        await asyncio.wait_for(left, timeout=5)
        await settle()
        trial = await app.db.trials.get(trial_id)
        assert trial is not None
        assert trial.outcome == "interrupted"
        assert trial.end_reason == "caller_left"
        assert "prekinuto" in fake.messages_in(thread.id)[-1]["content"]
        assert thread.archived
        assert thread.locked
        ana = await app.db.members.by_nick("ana")
        assert ana is not None
        assert not ana.in_club


async def test_a_councilor_called_into_an_in_game_trial_joins_the_thread(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "vecnik")
    await store_game(app, 200, status=GameStatus.IN_PROGRESS)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 200, "marko", "sudija1")
        controls = fake.messages_in(thread.id)[0]
        asked = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:councilor:{trial_id}")
        assert "pozvani" in await answer_of(fake, asked)
        (notice,) = fake.messages_in(world.councilors.id)
        assert fake.pings[int(notice["id"])].users == {m["vecnik"].id}
        assert fake.messages_in(world.referees.id)[-1]["components"] == []  # only the (taken) referee call there
        (join,) = button_ids(notice)
        joined = await fake.press(m["vecnik"].id, int(notice["id"]), join)
        assert "Uključeni ste" in await answer_of(fake, joined)
        assert m["vecnik"].id in fake.thread_members(thread.id)
        assert "vecnik" in fake.message(int(notice["id"]))["content"]
        assert not fake.message(int(notice["id"]))["components"]
        dm = fake.dm_channel_id(m["vecnik"].id)  # the desk also asks councilors directly
        assert dm is not None
        assert fake.messages_in(dm)[0]["components"] == []


async def test_a_referee_offline_past_the_grace_period_ends_his_trial(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app) as bot:
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        changed = bot.wait_for("presence_update", check=lambda before, after: after.id == m["sudija1"].id)
        await fake.set_presence(m["sudija1"].id, "offline")
        await asyncio.wait_for(changed, timeout=5)
        await settle()
        world.clock.advance(timedelta(seconds=app.config.referee_offline_grace_seconds - 1))
        await app.desk.run_due()
        assert not thread.locked
        world.clock.advance(timedelta(seconds=1))
        await app.desk.run_due()
        trial = await app.db.trials.get(trial_id)
        assert trial is not None
        assert trial.end_reason == "referee_disconnected"
        assert (thread.archived, thread.locked) == (True, True)


async def test_an_open_trial_survives_a_restart(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        controls = fake.messages_in(thread.id)[0]
    await app.close()
    world.apps.remove(app)

    restarted = await world.app()
    async with world.running(restarted) as bot:
        assert bot.chat.threads == {trial_id: thread.id}  # found again by its name
        await member_says(bot, fake, m["ana"], thread, "Jeste li tu?")
        assert [t.text for t in await restarted.db.trials.messages(trial_id)] == ["Jeste li tu?"]
        press = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:nacrt_niko:{trial_id}")
        assert (await fake.wait_for_response(press.id))["type"] == 9
        drafted = await fake.submit_modal(press.id, {"reason": "nema krivice"})
        assert "niko nije kriv" in await answer_of(fake, drafted)
        done = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:finish:{trial_id}")
        assert "upisana" in await answer_of(fake, done)
        assert "nema krivice" in fake.messages_in(thread.id)[-1]["content"]
        assert (thread.archived, thread.locked) == (True, True)


async def test_a_failing_use_case_is_answered_not_left_thinking(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    fake, m = world.fake, world.m
    app = await world.app()

    async def broken(*args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(app.desk, "verdicts", broken)
    await link(app, world, "ceca")
    async with world.running(app):
        answer = await answer_of(fake, await fake.slash(m["ceca"].id, "presude", {"partija": 1}))
        assert answer == "Nešto nije uspelo. Pokušajte ponovo; ako se ponovi, javite moderatoru."


# ---------------------------------------------------------------------- the players' corrections


async def fall_game(app: App) -> tuple[int, int, str, str, str]:
    """An in-progress game whose last completed hand had exactly one defender fall while both followed:
    (number, hand, fallen, other defender, declarer)."""
    for number in range(300, 3000):
        game = generate_game(
            random.Random(number),
            number,
            hands=6,
            status=GameStatus.IN_PROGRESS,
            players=("ana", "marko", "petar"),
            start=NOW - timedelta(hours=2),
        )
        score = compute_paper(game).hands[4].score
        if score is None or score.declarer is None or score.shape is not DefenceShape.BOTH:
            continue
        fallen = [s for s in score.fallen if s != score.declarer]
        if len(fallen) != 1 or score.declarer in score.fallen:
            continue
        await app.db.games.store([PreparedGame.of(game)], NOW)
        names = game.players
        return number, 5, names[fallen[0]], names[3 - score.declarer - fallen[0]], names[score.declarer]
    raise AssertionError("no such game generated")


async def test_an_ispravka_asked_by_slash_command_and_agreed_with_the_buttons_in_direct_messages(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar")
    number, hand, fallen, other, declarer = await fall_game(app)
    async with world.running(app):
        asked = await fake.slash(
            m[fallen].id, "ispravka", {"ruka": hand, "partija": number, "razlog": "@everyone klik na pogrešnu kartu"}
        )
        assert f"{fallen} -" in await answer_of(fake, asked)
        for nick in (other, declarer):
            dm = fake.dm_channel_id(m[nick].id)
            assert dm is not None
            question = fake.messages_in(dm)[0]  # then, to the second, that the first agreed
            assert "@everyone klik na pogrešnu kartu" in question["content"]
            assert fake.pings[int(question["id"])].nobody
            consent = next(c for c in button_ids(question) if c.startswith("sudija:consent:"))
            press = await fake.press(m[nick].id, int(question["id"]), consent)
            await answer_of(fake, press)
        assert [c.why for c in await app.db.paper_changes.for_game(number)] == ["@everyone klik na pogrešnu kartu"]
        # the fall is corrected: the other cannot also take it
        await answer_of(fake, await fake.slash(m[other].id, "bula", {"ruka": hand, "partija": number}))
        assert len(await app.db.paper_changes.for_game(number)) == 1


async def test_a_party_who_left_the_server_does_not_stop_the_trial_space(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1")
    await store_game(app, 200, status=GameStatus.IN_PROGRESS)
    async with world.running(app):
        fake.members.pop(m["petar"].id)  # gone from the server without the bot hearing of it yet
        trial_id, thread = await open_trial(world, app, 200, "ana", "sudija1")
        assert fake.thread_members(thread.id) == {fake.bot_user.id} | {m[n].id for n in ("ana", "marko", "sudija1")}
        assert button_ids(fake.messages_in(thread.id)[0])[0] == f"sudija:hands:{trial_id}"
