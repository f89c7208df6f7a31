"""The Discord adapter end to end: the real discord.py client (bot/discord/) against the fake Discord
(tests/fakes/discord_server.py), with the real desk on a manual clock and a database in tmp_path.

What a member would see is asserted on the fake's records: messages, edits, ephemeral answers, threads and their
members, and who each message pinged.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fakes.discord_server import (
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMember,
    FakeRole,
    pointed_at,
    run_client,
    settle,
)

from bot.app import App, build_app
from bot.config import Config, DiscordConfig
from bot.discord import SudijaBot, attach_discord
from bot.ports import ManualClock, ManualTimers
from rules.gamelog import GameStatus
from rules.generator import generate_game
from storage.games import PreparedGame

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@dataclass
class World:
    fake: FakeDiscord
    tmp: Path
    referee_role: FakeRole
    councilor_role: FakeRole
    referees: FakeChannel
    trials: FakeChannel
    m: dict[str, FakeMember]
    clock: ManualClock

    def config(self, **discord_settings: Any) -> Config:
        return Config(discord=DiscordConfig(
            guild_id=self.fake.guild_id, referees_channel_id=self.referees.id, trials_channel_id=self.trials.id,
            roles={"referee": self.referee_role.id, "councilor": self.councilor_role.id}, **discord_settings))

    async def app(self, **discord_settings: Any) -> App:
        return await build_app(self.config(**discord_settings), clock=self.clock, timers=ManualTimers(),
                               database=str(self.tmp / "club.db"))

    @asynccontextmanager
    async def running(self, app: App) -> AsyncIterator[SudijaBot]:
        bot = attach_discord(app, guild_ready_timeout=0.05)
        await app.desk.start()
        async with run_client(bot, self.fake) as client:
            assert isinstance(client, SudijaBot)
            await self.fake.wait_for_client(client, lambda: client.is_ready(), what="ready")
            yield client


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with FakeDiscord() as fake:
        referee = fake.add_role("Sudija")  # unmarked: not hoisted, no colour
        councilor = fake.add_role("Većnik")
        members = {nick: fake.add_member(nick, roles=[referee.id] if nick.startswith("sudija") else [])
                   for nick in ("ana", "marko", "petar", "ceca", "sudija1", "sudija2")}
        referees = fake.add_text_channel("sudije", private_to=[referee.id])
        trials = fake.add_text_channel("sudjenja")
        with pointed_at(fake):
            yield World(fake, tmp_path, referee, councilor, referees, trials, members, ManualClock(NOW))
        fake.assert_clean()


async def link(app: App, world: World, *nicks: str) -> None:
    for nick in nicks:
        await app.db.members.link("discord", str(world.m[nick].id), nick, world.clock.now())


async def store_game(app: App, number: int, players: tuple[str, str, str] = ("ana", "marko", "petar"), *,
                     ended_ago: timedelta = timedelta(hours=1), status: GameStatus = GameStatus.FINISHED) -> None:
    end = NOW - ended_ago
    game = generate_game(random.Random(number), number, hands=4, status=status, players=players,
                         start=end - timedelta(hours=2))
    if status is not GameStatus.IN_PROGRESS:
        game = replace(game, ended_at=end)
    await app.db.games.store([PreparedGame.of(game)], NOW)


async def answer_of(fake: FakeDiscord, ix: FakeInteraction) -> str:
    """The text the member saw: the followups replacing a deferred answer (ephemeral), or the answer itself."""
    first = await fake.wait_for_response(ix.id)
    if first["type"] == 4:
        return str(first["data"]["content"])
    assert first["type"] == 5 and first["data"]["flags"] & 64, "deferred, and only for him"
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
    await link(app, world, "ana", "marko", "petar", "ceca", "sudija1", "sudija2")
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
        assert pings.users == {m["sudija1"].id, m["sudija2"].id} and not pings.everyone and not pings.roles
        assert notice["components"][0]["components"][0]["label"] == "Sudi"

        # both referees press at once: exactly one wins, the other is told who did
        a, b = await asyncio.gather(fake.press(m["sudija1"].id, int(notice["id"]), f"sudija:take:{call}"),
                                    fake.press(m["sudija2"].id, int(notice["id"]), f"sudija:take:{call}"))
        by_presser = {"sudija1": await answer_of(fake, a), "sudija2": await answer_of(fake, b)}
        trial = await app.db.trials.open_for_game(100)
        assert trial is not None and len(await app.db.trials.for_game(100)) == 1
        winner = await nick_of(app, trial.referee)
        loser = "sudija2" if winner == "sudija1" else "sudija1"
        assert by_presser[winner] == f"Sudite u partiji 100 (suđenje {trial.id})."
        assert by_presser[loser] == f"Poziv za partiju 100 je već prihvatio sudija {winner}."

        # every copy of the call edited: taken, the button gone
        edited = fake.message(int(notice["id"]))
        assert f"prihvatio sudija {winner}" in edited["content"] and edited["components"] == []

        # a private thread, not invitable, with exactly the caller, the referee and the bot
        (thread,) = fake.threads_in(world.trials.id)
        assert thread.type == 12 and not thread.invitable and thread.name == f"Suđenje #{trial.id}"
        assert fake.thread_members(thread.id) == {fake.bot_user.id, m["ana"].id, m[winner].id}
        assert m[loser].id not in fake.thread_members(thread.id)
        (controls,) = fake.messages_in(thread.id)
        assert button_ids(controls) == [f"sudija:{a}:{trial.id}" for a in (
            "hands", "history", "finish", "leave", "nacrt_penalty", "nacrt_settlement", "nacrt_nobody",
            "nacrt_no_verdict")]

        # the caller writes in the thread: it is the transcript, and it is not echoed back
        await member_says(bot, fake, m["ana"], thread, "Petar je namerno napustio partiju.")
        assert [msg.text for msg in await app.db.trials.messages(trial.id)] == ["Petar je namerno napustio partiju."]
        assert len(fake.messages_in(thread.id)) == 2

        # the draft, through the button's modal; then a replacement
        referee = m[winner].id
        press = await fake.press(referee, int(controls["id"]), f"sudija:nacrt_penalty:{trial.id}")
        modal = await fake.wait_for_response(press.id)
        assert modal["type"] == 9
        fields = [c["components"][0]["custom_id"] for c in modal["data"]["components"]]
        assert fields == ["culprit", "plavac", "league", "abandoned", "reason"]
        first = await fake.submit_modal(press.id, {"culprit": "petar", "plavac": "2", "reason": "namerno"})
        assert "plavac 2" in await answer_of(fake, first)
        again = await fake.press(referee, int(controls["id"]), f"sudija:nacrt_penalty:{trial.id}")
        await fake.wait_for_response(again.id)
        second = await fake.submit_modal(again.id, {"culprit": "petar", "plavac": "3", "league": "2",
                                                    "reason": "@everyone namerno napustio <@&1>"})
        assert "plavac 3" in await answer_of(fake, second)

        # Završi suđenje: recorded; the last word in the thread pings nobody; the thread archived and locked
        done = await fake.press(referee, int(controls["id"]), f"sudija:finish:{trial.id}")
        assert "upisana" in await answer_of(fake, done)
        last = fake.messages_in(thread.id)[-1]
        assert "@everyone namerno napustio" in last["content"] and fake.pings[int(last["id"])].nobody
        assert thread.archived and thread.locked
        finished = await app.db.trials.get(trial.id)
        assert finished is not None and finished.outcome == "verdict"
        assert finished.verdict is not None and finished.verdict["plavac_days"] == 3

        # /presude: the verdict, to anybody (even unlinked), the referee's name hidden from members
        shown = await answer_of(fake, await fake.slash(m["ceca"].id, "presude", {"partija": 100}))
        assert "Kazna za petar" in shown and "plavac 3" in shown and "@everyone namerno" in shown
        assert winner not in shown
    await app.close()
