"""The Discord adapter at Discord's limits, through discord.py against the fake: a global rate limit holds no
interaction's acknowledgement (discord.py answers interactions through their own webhook route, outside the bot's
global lock and its route buckets)."""

from __future__ import annotations

import re

from test_discord import World, answer_of, call_message, link, pending_call_id, store_game
from test_discord import world as world


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
