"""The referee's second opinion on Discord: the real discord.py client against the fake Discord. The briefing
(the players' ispravka) reaches the referee by direct message, never the trial's thread; ``/analiza`` and the
Analiza ruke button beside Prikaz ruke answer him alone (ephemeral) with the Arbitar's own output; a player is
refused, and nothing of it lands in the thread or in a player's direct messages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_advice import GAME, cli_text, contains_block, fall_game
from test_discord import World, answer_of, button_ids, link, make_world, open_trial

from bot.desk.advice import ADVICE_REF
from club import NOW
from fakes.discord_server import FakeDiscordError
from storage.games import PreparedGame

SECRET = ("Savet Arbitra", "Izlaz Arbitra", "Arbitar: pad", "Pre presude", "nosi ispravku")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with make_world(tmp_path) as made:
        yield made


async def test_the_referee_alone_is_warned_and_advised_on_discord(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1")
    game = fall_game()
    await app.db.games.store([PreparedGame.of(game)], NOW)
    async with world.running(app):
        marko, ana, petar = [await app.db.members.by_nick(n) for n in ("marko", "ana", "petar")]
        assert marko is not None
        assert ana is not None
        assert petar is not None
        assert (await app.desk.corrections.propose_ispravka(marko, 1, GAME)).ok
        assert (await app.desk.corrections.answer(ana, None, True)).ok
        assert (await app.desk.corrections.answer(petar, None, True)).ok
        trial_id, thread = await open_trial(world, app, GAME, "petar", "sudija1")

        # the briefing: a direct message to the referee
        dm = fake.dm_channel_id(m["sudija1"].id)
        assert dm is not None
        [brief] = [msg for msg in fake.messages_in(dm) if msg["content"].startswith("Pre presude")]
        assert "⚠ ruka 1 nosi ispravku igrača marko: upis kao da je igra prošla" in brief["content"].splitlines()

        # /analiza in the thread: for him alone, the Arbitar's own output
        advice = await answer_of(fake, await fake.slash(m["sudija1"].id, "analiza", {"ruka": 2}, channel_id=thread.id))
        lines = advice.splitlines()
        assert lines[0].startswith(f"Savet Arbitra, partija {GAME}, ruka 2")
        assert "  Arbitar: pad ostaje — nije očigledna greška" in lines
        assert contains_block(lines, cli_text(tmp_path, capsys, game, 2, "marko"))

        # Prikaz ruke carries the analysis buttons; pressing one gives the transfer hand's advice
        controls = fake.messages_in(thread.id)[0]
        hands = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:hands:{trial_id}")
        await answer_of(fake, hands)
        last = fake.followups(hands.id)[-1]
        advice_ids = [f"sudija:advice:{trial_id * ADVICE_REF + n}" for n in (1, 2)]
        assert button_ids(last) == advice_ids
        pressed = await fake.press(m["sudija1"].id, int(last["id"]), advice_ids[0])
        transfer = (await answer_of(fake, pressed)).splitlines()
        assert any(line.startswith("  Arbitar: pad prelazi na petar — ") for line in transfer)
        assert contains_block(transfer, cli_text(tmp_path, capsys, game, 1, "marko"))

        # a player asking, by command or by the button, is refused
        nosy = await answer_of(fake, await fake.slash(m["marko"].id, "analiza", {"ruka": 1}, channel_id=thread.id))
        assert "ne sudite" in nosy.lower()
        with pytest.raises(FakeDiscordError, match="cannot see ephemeral message"):  # his answers are his alone
            await fake.press(m["ana"].id, int(last["id"]), advice_ids[0])

        # nothing of it in the thread or in a player's direct messages
        for msg in fake.messages_in(thread.id):
            assert not any(p in msg["content"] for p in SECRET), msg["content"]
        for nick in ("ana", "marko", "petar"):
            channel = fake.dm_channel_id(m[nick].id)
            for msg in fake.messages_in(channel) if channel is not None else []:
                assert not any(p in msg["content"] for p in SECRET), (nick, msg["content"])
