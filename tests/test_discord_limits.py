"""The Discord adapter at Discord's limits, through discord.py against the fake: a global rate limit holds no
interaction's acknowledgement (discord.py answers interactions through their own webhook route, outside the bot's
global lock and its route buckets); the commands are synced only when they changed (Discord caps the commands an
application creates a day); a trial's thread is found after a restart however many threads are archived."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from test_discord import World, answer_of, call_message, link, open_trial, pending_call_id, store_game
from test_discord import world as world

from bot.app import App
from fakes.discord_server import FakeChannel


async def test_a_global_rate_limit_on_the_referees_channel_holds_no_acknowledgement(world: World) -> None:
    """The winner's take edits the call's notice; Discord answers 429, global, for a second: every REST request
    of the bot waits. Another referee's press in that second is still acknowledged at once."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        custom = notice["components"][0]["components"][0]["custom_id"]
        edits = rf"/channels/{world.referees.id}/messages/{notice['id']}$"
        fake.rate_limit(edits, retry_after=1.0, global_=True)
        first = await fake.press(m["sudija1"].id, int(notice["id"]), custom)
        await fake.wait_until(lambda: any(r.status == 429 for r in fake.requests_to("PATCH", edits)))
        second = await fake.press(m["sudija2"].id, int(notice["id"]), custom)
        await fake.wait_for_response(second.id)
        await fake.wait_until(lambda: any(r.status == 200 for r in fake.requests_to("PATCH", edits)), timeout=10)
        retried = next(
            i
            for i, r in enumerate(fake.requests)
            if r.method == "PATCH" and r.status == 200 and re.search(edits, r.path)
        )
        acknowledged = next(i for i, r in enumerate(fake.requests) if r.path.startswith(f"/interactions/{second.id}/"))
        assert acknowledged < retried  # acknowledged while the global limit held every other request
        await fake.wait_for_response(first.id)
    assert fake.interaction(second.id).rejected == []
    assert fake.interaction(first.id).rejected == []


# Commands synced only when they changed ------------------------------------------------------------------------


async def test_commands_are_synced_only_when_the_declared_tree_differs_from_the_synced_one(world: World) -> None:
    fake = world.fake
    puts = rf"/applications/{fake.application_id}/guilds/{fake.guild_id}/commands$"
    app = await world.app()
    async with world.running(app):
        pass
    assert len(fake.requests_to("PUT", puts)) == 1
    synced = dict(fake.guild_commands)
    assert synced
    async with world.running(app):  # a restart: the same commands
        pass
    assert len(fake.requests_to("PUT", puts)) == 1
    assert fake.guild_commands == synced
    fake.guild_commands.clear()  # deleted by hand in Discord: synced again
    async with world.running(app):
        pass
    assert len(fake.requests_to("PUT", puts)) == 2
    assert set(fake.guild_commands) == set(synced)
    what = f"commands:{fake.application_id}:{fake.guild_id}"
    await app.desk.record_synced("discord", what, "the digest of an older tree")  # the declared tree changed
    async with world.running(app):
        pass
    assert len(fake.requests_to("PUT", puts)) == 3
    assert await app.desk.synced("discord", what) != "the digest of an older tree"


# A trial's thread after a restart, however many are archived -------------------------------------------------


async def archived_behind(world: World, thread: FakeChannel, newer: int) -> None:
    """The trial's thread archived long ago, and `newer` threads of other trials archived since."""
    long_ago = datetime(2026, 1, 1, tzinfo=UTC)
    thread.archived = True
    thread.archive_timestamp = long_ago.isoformat()
    for i in range(newer):
        world.fake.add_thread(world.trials, f"Suđenje #{5000 + i}", archived_at=long_ago + timedelta(minutes=i + 1))


async def restart_and_close(world: World, app: App, trial_id: int) -> App:
    await app.close()
    world.apps.remove(app)
    restarted = await world.app()
    async with world.running(restarted) as bot:
        space = await restarted.desk.lookups.trial_space_by_id(trial_id)
        assert space is not None
        await bot.chat.close_trial_space(space, "Suđenje je završeno.")
    return restarted


async def test_an_archived_thread_is_found_by_its_stored_id_after_a_restart(world: World) -> None:
    fake = world.fake
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
    await archived_behind(world, thread, 150)
    listed = len(fake.requests_to("GET", rf"/channels/{world.trials.id}/threads/archived/private"))
    await restart_and_close(world, app, trial_id)
    assert fake.messages_in(thread.id)[-1]["content"] == "Suđenje je završeno."
    assert (thread.archived, thread.locked) == (True, True)
    # found by the id kept when it was opened: no page of archived threads was read
    assert len(fake.requests_to("GET", rf"/channels/{world.trials.id}/threads/archived/private")) == listed


async def test_an_archived_thread_opened_before_its_place_was_kept_is_found_past_the_first_100(world: World) -> None:
    fake = world.fake
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
    async with app.db.transaction() as conn:  # as a thread opened by a bot that kept no place
        await conn.execute("DELETE FROM notices WHERE subject = ?", (f"space:{trial_id}",))
    await archived_behind(world, thread, 150)
    await restart_and_close(world, app, trial_id)
    assert fake.messages_in(thread.id)[-1]["content"] == "Suđenje je završeno."
    assert (thread.archived, thread.locked) == (True, True)
    pages = fake.requests_to("GET", rf"/channels/{world.trials.id}/threads/archived/private")
    assert len(pages) >= 2  # past Discord's page of 100
