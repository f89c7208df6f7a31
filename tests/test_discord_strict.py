"""The Discord adapter against a fake as strict as Discord: permissions and channel overwrites (403 50013 /
50001), the 15-minute interaction token, 429 with retry_after and the rate-limit headers, and draft forms that
outlive a restart. Each strictness has a test the adapter passes and one a wrong client (or a wrong setup)
fails."""

from __future__ import annotations

import aiohttp
import discord
import pytest
from test_discord import World, answer_of, call_message, link, open_trial, pending_call_id, store_game
from test_discord import world as world

from fakes.discord_server import Perm


async def test_a_draft_form_opened_before_a_restart_is_answered_after_it(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        controls = fake.messages_in(thread.id)[0]
        press = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:nacrt_kazna:{trial_id}")
        assert (await fake.wait_for_response(press.id))["type"] == 9  # the form is open on his screen
    await app.close()  # the bot restarts while he fills it in
    world.apps.remove(app)
    app = await world.app()
    async with world.running(app):
        submitted = await fake.submit_modal(press.id, {"culprit": "petar", "plavac": "2", "reason": "namerno"})
        answer = await answer_of(fake, submitted)
    assert answer.startswith("Nacrt presude")
    assert "plavac 2" in answer


async def test_a_form_for_a_trial_that_is_over_is_refused(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        controls = fake.messages_in(thread.id)[0]
        press = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:nacrt_niko:{trial_id}")
        await fake.wait_for_response(press.id)
        left = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:leave:{trial_id}")
        await answer_of(fake, left)
        late = await fake.submit_modal(press.id, {"reason": "kasno"})
        assert await answer_of(fake, late) == app.desk.t("trial.not_your_trial")


async def test_the_old_advice_denies_the_bot_its_trial_thread_and_the_fixed_docs_allow_it(world: World) -> None:
    fake = world.fake
    world.trials.permission_overwrites.append(
        {
            "id": str(fake.guild_id),
            "type": 0,
            "allow": "0",
            "deny": str(Perm.CREATE_PRIVATE_THREADS | Perm.SEND_MESSAGES),
        }
    )
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    async with world.running(app) as bot:
        channel = bot.get_channel(world.trials.id)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.Forbidden) as refused:  # what real Discord answers: 403, Missing Permissions
            await channel.create_thread(name="x", type=discord.ChannelType.private_thread)
        assert refused.value.code == 50013
        with pytest.raises(discord.Forbidden):
            await channel.send("the channel itself stays empty")
    # docs/discord.md now: the bot's own role gets the allow on the trials channel
    world.trials.permission_overwrites.append(
        {
            "id": str(fake.bot_role.id),
            "type": 0,
            "allow": str(Perm.CREATE_PRIVATE_THREADS | Perm.SEND_MESSAGES_IN_THREADS | Perm.MANAGE_THREADS),
            "deny": "0",
        }
    )
    await app.close()
    world.apps.remove(app)
    app = await world.app()
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        assert thread.name == f"Suđenje #{trial_id}"
        assert world.m["ana"].id in fake.thread_members(thread.id)


async def test_a_channel_the_bot_cannot_see_answers_missing_access(world: World) -> None:
    fake = world.fake
    hidden = fake.add_text_channel("tajno", private_to=[world.referee_role.id])
    hidden.permission_overwrites = [o for o in hidden.permission_overwrites if o["id"] != str(fake.bot_role.id)]
    app = await world.app()
    async with world.running(app) as bot:
        with pytest.raises(discord.Forbidden) as refused:
            await bot.get_partial_messageable(hidden.id).send("zdravo")
    assert refused.value.code == 50001


async def test_an_answer_after_the_15_minute_token_goes_by_direct_message(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    real = app.desk.verdicts

    async def slow(*args: object, **kwargs: object) -> object:
        for ix in list(fake.interactions.values()):
            fake.age_interaction(ix.id, 16 * 60)  # the work outlasts the interaction's token
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    app.desk.verdicts = slow  # type: ignore[method-assign]
    async with world.running(app):
        ix = await fake.slash(m["ana"].id, "presude", {"partija": 100})
        await fake.wait_for_response(ix.id)
        await fake.wait_until(
            lambda: (
                fake.dm_channel_id(m["ana"].id) is not None
                and bool(fake.messages_in(fake.dm_channel_id(m["ana"].id) or 0))
            )
        )
    stale = [r for r in fake.requests_to("POST", r"/webhooks/.*") if r.status == 401]
    assert stale
    assert stale[0].response["code"] == 50027
    [answer] = fake.messages_in(fake.dm_channel_id(m["ana"].id) or 0)
    assert "100" in answer["content"]


async def test_a_rate_limited_call_is_retried_and_a_client_that_ignores_429_loses_it(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    fake.rate_limit(rf"/channels/{world.referees.id}/messages$", retry_after=0.05)
    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        notice = await call_message(world, await pending_call_id(app, 100))
    posts = fake.requests_to("POST", rf"/channels/{world.referees.id}/messages")
    assert [r.status for r in posts] == [429, 200]
    assert notice["content"].startswith("🔴")
    assert posts[0].response["retry_after"] == 0.05
    # the wrong client: one plain request, no retry — the message is simply not posted
    fake.rate_limit(rf"/channels/{world.referees.id}/messages$", retry_after=2.5)
    before = len(fake.messages_in(world.referees.id))
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{fake.api_base}/channels/{world.referees.id}/messages",
            json={"content": "x"},
            headers={"Authorization": f"Bot {fake.token}"},
        ) as answer,
    ):
        body = await answer.json()
        assert answer.status == 429
        assert body["retry_after"] == 2.5
        assert answer.headers["Via"]
        assert answer.headers["X-RateLimit-Remaining"] == "0"
        assert answer.headers["X-RateLimit-Reset-After"] == "2.500"
        assert answer.headers["Retry-After"] == "3"
    assert len(fake.messages_in(world.referees.id)) == before


async def test_a_press_is_acknowledged_before_slow_work_so_the_3_second_deadline_holds(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "marko", "petar", "sudija1", "sudija2")
    await store_game(app, 100)
    real = app.desk.press

    async def slow(*args: object) -> object:
        for ix in list(fake.interactions.values()):
            fake.age_interaction(ix.id, 10)  # the work takes 10 s: far past Discord's 3 s to acknowledge
        return await real(*args)  # type: ignore[arg-type]

    async with world.running(app):
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        notice = await call_message(world, await pending_call_id(app, 100))
        app.desk.press = slow  # type: ignore[method-assign]
        press = await fake.press(
            m["sudija1"].id, int(notice["id"]), notice["components"][0]["components"][0]["custom_id"]
        )
        taken = await answer_of(fake, press)
    assert taken.startswith("Sudite")
    assert fake.interaction(press.id).rejected == []


async def test_component_and_length_limits_the_adapter_keeps_and_a_wrong_client_breaks(world: World) -> None:
    from bot.discord.components import DeskButton, view_of  # noqa: PLC0415 (imported where the test needs it)
    from bot.ports import Button  # noqa: PLC0415 (imported where the test needs it)

    fake = world.fake
    app = await world.app()
    async with world.running(app) as bot:
        channel = bot.get_partial_messageable(world.referees.id)
        # the adapter: a long text in messages of at most 2,000 characters, a long label cut to 80
        long_line = "riječ " * 1000
        last = await bot.chat._send(channel, long_line, view_of([Button("x" * 100, "take", 1)]))
        sent = fake.messages_in(world.referees.id)
        assert len(sent) == 3
        assert all(len(m["content"]) <= 2000 for m in sent)
        assert sent[-1]["id"] == str(last.id)
        assert sent[-1]["components"][0]["components"][0]["label"] == "x" * 80
        assert len(DeskButton("take", 10**18).item.custom_id or "") <= 100
        # a wrong client: each limit broken is 400 Invalid Form Body (50035), nothing posted
        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x" * 2001)
        assert too_long.value.code == 50035
    button = {"type": 2, "style": 1, "label": "Sudi", "custom_id": "a"}
    wrong = {
        "six in a row": [{"type": 1, "components": [{**button, "custom_id": str(i)} for i in range(6)]}],
        "custom_id of 101": [{"type": 1, "components": [{**button, "custom_id": "c" * 101}]}],
        "label of 81": [{"type": 1, "components": [{**button, "label": "l" * 81}]}],
    }
    before = len(fake.messages_in(world.referees.id))
    async with aiohttp.ClientSession() as http:
        for name, components in wrong.items():
            async with http.post(
                f"{fake.api_base}/channels/{world.referees.id}/messages",
                json={"content": "x", "components": components},
                headers={"Authorization": f"Bot {fake.token}"},
            ) as answer:
                assert answer.status == 400, name
                assert (await answer.json())["code"] == 50035, name
    assert len(fake.messages_in(world.referees.id)) == before


async def test_giving_a_role_follows_discords_role_hierarchy(world: World) -> None:
    """Discord lets a bot give or take only roles below its own highest role, and only with Manage Roles. Sudija
    never gives roles (the Discord roles are the club's, docs/discord.md section 3), so `sudija check` asks for
    neither; a client that tried, with its role below the referee role, gets what real Discord answers."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana")
    async with world.running(app) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        ana, referee = guild.get_member(m["ana"].id), guild.get_role(world.referee_role.id)
        assert ana is not None
        assert referee is not None
        assert fake.top_role(fake.bot_user.id).position < world.referee_role.position
        with pytest.raises(discord.Forbidden) as refused:  # no Manage Roles
            await ana.add_roles(referee)
        assert refused.value.code == 50013
        fake.bot_role.permissions |= Perm.MANAGE_ROLES
        with pytest.raises(discord.Forbidden) as refused:  # Manage Roles, but the role is above the bot's
            await ana.add_roles(referee)
        assert refused.value.code == 50013
        assert world.referee_role.id not in m["ana"].roles
        fake.bot_role.position = max(r.position for r in fake.roles.values()) + 1  # dragged above it
        await ana.add_roles(referee)
        assert world.referee_role.id in m["ana"].roles
        await ana.remove_roles(referee)
        assert world.referee_role.id not in m["ana"].roles
        with pytest.raises(discord.Forbidden) as refused:  # the bot's own (highest) role is not below itself
            await ana.add_roles(discord.Object(fake.bot_role.id))
        assert refused.value.code == 50013
