"""Proof that the real discord.py client works against tests/fakes/discord_server.py for every protocol path
the Discord adapter uses: login and READY, slash commands (immediate, deferred + followup, ephemeral,
autocomplete), DynamicItem buttons (also after a client restart and when pressed twice at once), modals,
allowed_mentions, private threads and their members, archiving and locking, closed DMs, presences, members
leaving, and the fake's own guarantees (single acknowledgement, patching restored, nothing left running)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import discord.utils
import pytest
from discord import app_commands

from fakes.discord_server import FakeDiscord, FakeDiscordError, FakeMember, Perm, pointed_at, run_client, settle

ORIGINAL_BASE = discord.http.Route.BASE
ORIGINAL_GATEWAY = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


# ---------------------------------------------------------------------- the minimal bot under test


class CallButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"sudi:(?P<call>[0-9]+)"):
    """A button that survives restarts: everything it needs is in its custom_id."""

    def __init__(self, call: int) -> None:
        super().__init__(discord.ui.Button(label="Sudi", style=discord.ButtonStyle.primary, custom_id=f"sudi:{call}"))
        self.call = call

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CallButton:
        return cls(int(match["call"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: ProofBot = interaction.client
        bot.presses.append((self.call, interaction.user.id))
        await interaction.response.send_message(f"call {self.call} taken", ephemeral=True)


class ReasonModal(discord.ui.Modal, title="Razlog"):
    reason: discord.ui.TextInput[ReasonModal] = discord.ui.TextInput(label="Razlog", custom_id="reason")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        bot: ProofBot = interaction.client
        bot.reasons.append(self.reason.value)
        # typed by a member: echoed with every mention disabled
        await interaction.response.send_message(
            f"noted: {self.reason.value}", allowed_mentions=discord.AllowedMentions.none()
        )


class ConfirmView(discord.ui.View):
    @discord.ui.button(label="Potvrdi", custom_id="confirm")
    async def confirm(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="confirmed", view=self)
        self.stop()

    @discord.ui.button(label="Kasnije", custom_id="later")
    async def later(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()  # type 6: acknowledged, nothing shown yet
        await interaction.edit_original_response(content="later, then")  # edits the message it is on


class ProofBot(discord.Client):
    def __init__(self, guild_id: int, *, presences: bool = True, message_content: bool = True) -> None:
        intents = discord.Intents.default()
        intents.members = True
        intents.presences = presences
        intents.message_content = message_content
        super().__init__(intents=intents, guild_ready_timeout=0.05)
        self.guild_obj = discord.Object(guild_id)
        self.tree = app_commands.CommandTree(self)
        self.presses: list[tuple[int, int]] = []
        self.reasons: list[str] = []
        self.seen_messages: list[discord.Message] = []
        self.removed: list[int] = []
        self.slow_gate = asyncio.Event()
        self._register()

    def _register(self) -> None:
        guild = self.guild_obj

        @self.tree.command(name="echo", description="Repeat", guild=guild)
        @app_commands.describe(tekst="what to repeat")
        async def echo(interaction: discord.Interaction[Any], tekst: str, puta: int = 1) -> None:
            await interaction.response.send_message(f"{tekst} x{puta}")

        @self.tree.command(name="slow", description="Defer, then answer", guild=guild)
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await self.slow_gate.wait()
            await interaction.followup.send("done after the slow part")

        @self.tree.command(name="izmena", description="Answer, then edit the answer", guild=guild)
        async def izmena(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("prva verzija")
            await interaction.edit_original_response(content="druga verzija")
            await interaction.followup.send("samo za tebe", ephemeral=True)

        @self.tree.command(name="tajno", description="Ephemeral answer", guild=guild)
        async def tajno(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("samo ti", ephemeral=True)

        @self.tree.command(name="razlog", description="Ask for a reason", guild=guild)
        async def razlog(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_modal(ReasonModal())

        @self.tree.command(name="potvrda", description="A message with a view", guild=guild)
        async def potvrda(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("confirm?", view=ConfirmView(timeout=None))

        async def recent_games(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
            games = {101: "partija 101", 102: "partija 102", 230: "partija 230"}
            return [app_commands.Choice(name=n, value=g) for g, n in games.items() if str(g).startswith(current)]

        @self.tree.command(name="presude", description="Verdicts of a game", guild=guild)
        @app_commands.autocomplete(partija=recent_games)
        async def presude(interaction: discord.Interaction[Any], partija: int) -> None:
            await interaction.response.send_message(f"presude za {partija}")

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CallButton)
        await self.tree.sync(guild=self.guild_obj)

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append(message)

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        self.removed.append(payload.user.id)


# ---------------------------------------------------------------------- fixtures


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        with pointed_at(server):
            yield server
        server.assert_clean()
    assert discord.http.Route.BASE == ORIGINAL_BASE
    assert discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY == ORIGINAL_GATEWAY
    await asyncio.sleep(0)  # let cancelled callbacks finish unwinding before the leak check
    leftover = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    assert leftover == [], f"tasks left running: {leftover}"


@pytest.fixture
def members(fake: FakeDiscord) -> dict[str, FakeMember]:
    referee = fake.add_role("Sudija")  # unmarked: no hoist, no colour
    return {
        "ana": fake.add_member("ana", roles=[referee.id]),
        "boris": fake.add_member("boris", roles=[referee.id]),
        "ceca": fake.add_member("ceca", status="idle"),
    }


def ids(*items: FakeMember) -> set[int]:
    return {m.id for m in items}


# ---------------------------------------------------------------------- login, gateway, commands


async def test_login_ready_guild_cache_and_command_sync(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert bot.is_ready()
        assert bot.user is not None
        assert bot.user.id == fake.bot_user.id
        assert bot.application_id == fake.application_id
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        assert guild.get_member(members["ana"].id) is not None
        assert guild.get_member(members["ceca"].id).status is discord.Status.idle  # type: ignore[union-attr]
        assert guild.get_channel(fake.general.id) is not None
        # the gateway used the transport compression discord.py asked for, and the client identified
        (query,) = fake.gateway_queries
        assert query["compress"] == discord.utils._ActiveDecompressionContext.COMPRESSION_TYPE == "zlib-stream"
        assert query["encoding"] == "json"
        assert query["v"] == "10"
        (identify,) = fake.identifies
        assert identify["intents"] & (1 << 1)
        assert identify["intents"] & (1 << 8)
        assert fake.received_ops(1), "heartbeat after HELLO"
        # commands synced to the guild with their options
        assert set(fake.guild_commands) == {"echo", "slow", "izmena", "tajno", "razlog", "potvrda", "presude"}
        options = {o["name"]: o for o in fake.guild_commands["echo"]["options"]}
        assert options["tekst"]["required"] is True
        assert options["puta"]["type"] == 4
        assert fake.requests_to("GET", r"/users/@me")
        assert fake.requests_to("GET", r"/oauth2/applications/@me")
        shards, url, _limits = await bot.http.get_bot_gateway()
        assert shards == 1
        assert url == fake.gateway_url
    assert not fake.connected


async def test_wrong_token_is_a_login_failure(fake: FakeDiscord) -> None:
    bot = ProofBot(fake.guild_id)
    try:
        with pytest.raises(discord.LoginFailure):
            await bot.login("not-the-token")
    finally:
        await bot.close()


async def test_slash_command_with_options_reaches_handler(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake):
        ix = await fake.slash(members["ana"].id, "echo", {"tekst": "zdravo", "puta": 3})
        body = await fake.wait_for_response(ix.id)
        assert body["type"] == 4
        assert body["data"]["content"] == "zdravo x3"
        (msg,) = fake.messages_in(fake.general.id)
        assert msg["content"] == "zdravo x3"
        assert msg["interaction_metadata"]["user"]["id"] == str(members["ana"].id)
        with pytest.raises(FakeDiscordError, match="required option 'tekst'"):
            await fake.slash(members["ana"].id, "echo", {})
        with pytest.raises(FakeDiscordError, match="not registered"):
            await fake.slash(members["ana"].id, "nope")


async def test_deferred_response_then_followup(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        ix = await fake.slash(members["boris"].id, "slow")
        first = await fake.wait_for_response(ix.id, settled=False)  # the handler waits on slow_gate
        assert first["type"] == 5
        loading = fake.original_response(ix.id)
        assert loading is not None
        assert loading["flags"] & 128
        bot.slow_gate.set()
        await fake.wait_until(lambda: fake.followups(ix.id), what="the followup")
        (followup,) = fake.followups(ix.id)
        # Discord: the first followup after a thinking defer replaces the loading message
        assert followup["id"] == loading["id"]
        assert followup["content"] == "done after the slow part"
        assert not followup["flags"] & 128
        assert fake.interaction_responses(ix.id) == [first]
        assert fake.requests_to("POST", rf"/webhooks/{fake.application_id}/[^/]+")


async def test_edit_original_response_and_ephemeral_followup(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake):
        ix = await fake.slash(members["ana"].id, "izmena")
        await fake.wait_for_response(ix.id)
        original = fake.original_response(ix.id)
        assert original is not None
        assert original["content"] == "druga verzija"
        (edit,) = fake.edits[int(original["id"])]
        assert edit["content"] == "druga verzija"
        assert fake.requests_to("PATCH", rf"/webhooks/{fake.application_id}/[^/]+/messages/@original")
        (followup,) = fake.followups(ix.id)
        assert followup["flags"] & 64
        assert followup in fake.ephemeral_messages(members["ana"].id)
        assert [m["content"] for m in fake.messages_in(fake.general.id)] == ["druga verzija"]


async def test_ephemeral_reply_has_flag_64_and_is_not_in_the_channel(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    async with run_client(ProofBot(fake.guild_id), fake):
        ix = await fake.slash(members["ceca"].id, "tajno")
        body = await fake.wait_for_response(ix.id)
        assert body["type"] == 4
        assert body["data"]["flags"] & 64
        assert fake.messages_in(fake.general.id) == []
        (secret,) = fake.ephemeral_messages(members["ceca"].id)
        assert secret["content"] == "samo ti"
        assert fake.ephemeral_messages(members["ana"].id) == []


async def test_autocomplete_offers_choices(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake):
        ix = await fake.autocomplete(members["ana"].id, "presude", "partija", "10")
        body = await fake.wait_for_response(ix.id)
        assert body["type"] == 8
        assert [c["value"] for c in body["data"]["choices"]] == [101, 102]
        run = await fake.slash(members["ana"].id, "presude", {"partija": 102})
        assert (await fake.wait_for_response(run.id))["data"]["content"] == "presude za 102"


# ---------------------------------------------------------------------- components and modals


async def send_call(bot: discord.Client, channel_id: int, call: int, referees: list[FakeMember]) -> discord.Message:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View(timeout=None)
    view.add_item(CallButton(call))
    mentions = " ".join(f"<@{m.id}>" for m in referees)
    return await channel.send(
        f"Poziv {call}: {mentions} @everyone",
        view=view,
        allowed_mentions=discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(m.id) for m in referees]
        ),
    )


async def test_dynamic_button_message_with_allowed_mentions_limited_to_two_users(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    referee_role = members["ana"].roles[0]
    referees_channel = fake.add_text_channel("sudije", private_to=[referee_role])
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        private = guild.get_channel(referees_channel.id)
        ana, ceca = guild.get_member(members["ana"].id), guild.get_member(members["ceca"].id)
        assert private is not None
        assert ana is not None
        assert ceca is not None
        assert private.permissions_for(ana).view_channel
        assert not private.permissions_for(ceca).view_channel
        sent = await send_call(bot, referees_channel.id, 7, [members["ana"], members["boris"]])
        stored = fake.message(sent.id)
        (post,) = fake.requests_to("POST", rf"/channels/{referees_channel.id}/messages")
        allowed = post.json["allowed_mentions"]
        assert allowed["parse"] == []
        assert {int(u) for u in allowed["users"]} == ids(members["ana"], members["boris"])
        pings = fake.pings[sent.id]
        assert pings.users == ids(members["ana"], members["boris"])
        assert not pings.everyone
        assert not pings.roles
        (button,) = stored["components"][0]["components"]
        assert button["custom_id"] == "sudi:7"
        assert button["label"] == "Sudi"
        assert {m.id for m in sent.mentions} == ids(members["ana"], members["boris"])
        # the call is taken: the message is edited and the button removed; an edit pings nobody anew
        await sent.edit(content="Poziv 7: preuzet", view=None)
        assert stored["content"] == "Poziv 7: preuzet"
        assert stored["components"] == []
        assert fake.edits[sent.id][-1]["components"] == []
        assert fake.pings[sent.id].users == ids(members["ana"], members["boris"])  # from the creation only


async def test_two_presses_at_once_are_both_dispatched(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        sent = await send_call(bot, fake.general.id, 11, [members["ana"], members["boris"]])
        a, b = await asyncio.gather(
            fake.press(members["ana"].id, sent.id, "sudi:11"),
            fake.press(members["boris"].id, sent.id, "sudi:11"),
        )
        await asyncio.gather(fake.wait_for_response(a.id), fake.wait_for_response(b.id))
        assert sorted(bot.presses) == sorted([(11, members["ana"].id), (11, members["boris"].id)])
        for ix in (a, b):
            (body,) = fake.interaction_responses(ix.id)
            assert body["data"]["flags"] & 64
            assert body["data"]["content"] == "call 11 taken"
        with pytest.raises(FakeDiscordError, match="no component"):
            await fake.press(members["ana"].id, sent.id, "sudi:12")


async def test_view_button_updates_its_message_and_disabled_buttons_cannot_be_pressed(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    async with run_client(ProofBot(fake.guild_id), fake):
        ix = await fake.slash(members["ana"].id, "potvrda")
        await fake.wait_for_response(ix.id)
        original = fake.original_response(ix.id)
        assert original is not None
        later = await fake.press(members["ana"].id, int(original["id"]), "later")
        assert (await fake.wait_for_response(later.id))["type"] == 6
        assert fake.message(int(original["id"]))["content"] == "later, then"
        press = await fake.press(members["ana"].id, int(original["id"]), "confirm")
        body = await fake.wait_for_response(press.id)
        assert body["type"] == 7
        updated = fake.message(int(original["id"]))
        assert updated["content"] == "confirmed"
        assert updated["components"][0]["components"][0]["disabled"] is True
        with pytest.raises(FakeDiscordError, match="disabled"):
            await fake.press(members["boris"].id, int(original["id"]), "confirm")


async def test_modal_shown_and_submitted(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        ix = await fake.slash(members["ana"].id, "razlog")
        shown = await fake.wait_for_response(ix.id)
        assert shown["type"] == 9
        assert shown["data"]["title"] == "Razlog"
        submit = await fake.submit_modal(ix.id, {"reason": "kasni 10 minuta @everyone"})
        answer = await fake.wait_for_response(submit.id)
        assert bot.reasons == ["kasni 10 minuta @everyone"]
        assert answer["type"] == 4
        echoed = fake.original_response(submit.id)
        assert echoed is not None
        assert echoed["content"] == "noted: kasni 10 minuta @everyone"
        assert fake.pings[int(echoed["id"])].nobody
        # the same text sent without allowed_mentions would have pinged everybody
        channel = bot.get_channel(fake.general.id)
        assert isinstance(channel, discord.TextChannel)
        careless = await channel.send("kasni 10 minuta @everyone")
        assert fake.pings[careless.id].everyone
        with pytest.raises(FakeDiscordError, match="no fields"):
            await fake.submit_modal(ix.id, {"reason": "x", "other": "y"})
        with pytest.raises(FakeDiscordError, match="required"):
            await fake.submit_modal(ix.id, {})


# ---------------------------------------------------------------------- threads, DMs, presence, members


async def test_private_thread_members_messages_archive_and_lock(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    trials = fake.add_text_channel("sudjenja")
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        channel = bot.get_channel(trials.id)
        assert isinstance(channel, discord.TextChannel)
        thread = await channel.create_thread(name="Suđenje 7", type=discord.ChannelType.private_thread, invitable=False)
        (create,) = fake.requests_to("POST", rf"/channels/{trials.id}/threads")
        assert create.json["type"] == 12
        assert create.json["invitable"] is False
        (stored,) = fake.threads_in(trials.id)
        assert stored.id == thread.id
        assert stored.type == 12
        assert stored.invitable is False
        await thread.add_user(discord.Object(members["ana"].id))
        await thread.add_user(discord.Object(members["ceca"].id))
        assert fake.thread_members(thread.id) == {fake.bot_user.id} | ids(members["ana"], members["ceca"])
        assert len(fake.requests_to("PUT", rf"/channels/{thread.id}/thread-members/\d+")) == 2
        # the client learns of the thread and its members through the gateway (THREAD_CREATE,
        # THREAD_MEMBERS_UPDATE)
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        cached = await fake.wait_for_client(bot, lambda: guild.get_thread(thread.id), what="thread in cache")
        assert cached.is_private()
        assert not cached.invitable
        await fake.wait_for_client(bot, lambda: {m.id for m in cached.members} >= ids(members["ana"], members["ceca"]))
        await fake.thread_member_leave(thread.id, members["ceca"].id)
        await fake.wait_for_client(bot, lambda: members["ceca"].id not in {m.id for m in cached.members})

        # a member writes in the thread: MESSAGE_CREATE reaches on_message, and history returns the transcript
        await thread.send("Počinje suđenje.")
        await fake.user_message(members["ana"].id, thread.id, "Moja izjava")
        await fake.wait_for_client(bot, lambda: any(m.content == "Moja izjava" for m in bot.seen_messages))
        seen = next(m for m in bot.seen_messages if m.content == "Moja izjava")
        assert isinstance(seen.channel, discord.Thread)
        assert seen.channel.id == thread.id
        transcript = [m.content async for m in thread.history(oldest_first=True)]
        assert transcript == ["Počinje suđenje.", "Moja izjava"]

        await thread.edit(archived=True, locked=True)
        assert stored.archived
        assert stored.locked
        (patch,) = fake.requests_to("PATCH", rf"/channels/{thread.id}")
        assert patch.json == {"archived": True, "locked": True}
        with pytest.raises(discord.HTTPException) as err:
            await thread.send("too late")
        assert err.value.code == 50083


async def test_a_non_invitable_private_thread_takes_others_only_from_a_moderator_and_hides_from_the_blind(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    """Discord's ``invitable=false``: only a member with Manage Threads adds others; and a member who cannot view
    the parent channel neither reads nor writes in its threads, even as a member of one."""
    trials = fake.add_text_channel("sudjenja")
    trials.permission_overwrites.append(
        {"id": str(fake.bot_role.id), "type": 0, "allow": "0", "deny": str(Perm.MANAGE_THREADS)}
    )
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        channel = bot.get_channel(trials.id)
        assert isinstance(channel, discord.TextChannel)
        closed = await channel.create_thread(name="Suđenje 8", type=discord.ChannelType.private_thread, invitable=False)
        with pytest.raises(discord.Forbidden) as refused:
            await closed.add_user(discord.Object(members["ana"].id))
        assert refused.value.code == 50013
        assert fake.thread_members(closed.id) == {fake.bot_user.id}
        trials.permission_overwrites.pop()  # Manage Threads given back: the bot adds her
        await closed.add_user(discord.Object(members["ana"].id))
        trials.permission_overwrites.append(
            {"id": str(members["ana"].id), "type": 1, "allow": "0", "deny": str(Perm.VIEW_CHANNEL)}
        )
        assert not fake.can_read(members["ana"].id, fake.channels[closed.id])
        with pytest.raises(FakeDiscordError, match="cannot view the parent channel"):
            await fake.user_message(members["ana"].id, closed.id, "Vidim li ovo?")


async def test_dm_to_closed_user_raises_forbidden_50007(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    fake.close_dms(members["boris"].id)
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        boris = guild.get_member(members["boris"].id)
        ana = guild.get_member(members["ana"].id)
        assert boris is not None
        assert ana is not None
        with pytest.raises(discord.Forbidden) as err:
            await boris.send("Poziv")
        assert err.value.code == 50007
        assert err.value.status == 403
        await ana.send("Poziv")  # open DMs work
        dm = fake.dm_channel_id(ana.id)
        assert dm is not None
        assert [m["content"] for m in fake.messages_in(dm)] == ["Poziv"]


async def test_presence_update_and_member_leaving_reach_the_cache(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        ana = guild.get_member(members["ana"].id)
        assert ana is not None
        assert ana.status is discord.Status.online
        changed = bot.wait_for("presence_update", check=lambda before, after: after.id == members["ana"].id)
        assert await fake.set_presence(members["ana"].id, "offline") == 1
        before, after = await asyncio.wait_for(changed, timeout=5)
        assert before.status is discord.Status.online
        assert after.status is discord.Status.offline
        assert guild.get_member(members["ana"].id).status is discord.Status.offline  # type: ignore[union-attr]

        await fake.set_roles(members["ana"].id, [])
        ana_id = members["ana"].id
        await fake.wait_for_client(bot, lambda: [r.id for r in guild.get_member(ana_id).roles] == [guild.id])  # type: ignore[union-attr]
        await fake.member_leave(members["ceca"].id)
        await fake.wait_for_client(bot, lambda: guild.get_member(members["ceca"].id) is None)
        assert bot.removed == [members["ceca"].id]


async def test_presences_are_dropped_without_the_intent(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id, presences=False), fake) as bot:
        assert await fake.set_presence(members["ana"].id, "dnd") == 0
        assert fake.dropped_events[-1][1] == "PRESENCE_UPDATE"
        # without presences the guild arrives with only the bot; discord.py then chunks members (op 8)
        assert fake.received_ops(8)
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        assert guild.get_member(members["ana"].id) is not None


def _sent(fake: FakeDiscord, event: str) -> list[dict[str, Any]]:
    return [f.payload["d"] for f in fake.gateway_sent if f.payload.get("t") == event]


async def test_member_requests_are_answered_in_chunks_and_bounded_as_discord_does(fake: FakeDiscord) -> None:
    """Op 8 as Discord answers it: the whole list in chunks of at most 1,000, once per guild in 30 seconds (then
    RATE_LIMITED with the request's nonce), a prefix query at most 100, the ids not found named, a nonce over 32
    bytes dropped."""
    ana = fake.add_member("ana", status="offline")
    for i in range(1200):
        fake.add_member(f"clan{i:04d}", status="offline")
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None
        assert guild.chunked
        assert len(guild.members) == len(fake.members)
        assert [len(c["members"]) for c in fake.chunks_sent()] == [1000, len(fake.members) - 1000]
        ws = bot._get_websocket(fake.guild_id)

        await ws.request_chunks(fake.guild_id, query="", limit=0, nonce="again")  # within 30 s of the first
        (limited,) = await fake.wait_until(lambda: _sent(fake, "RATE_LIMITED"), what="RATE_LIMITED")
        assert limited["opcode"] == 8
        assert limited["meta"] == {"guild_id": str(fake.guild_id), "nonce": "again"}
        assert 0 < limited["retry_after"] <= 30
        assert not fake.chunks_sent("again")
        fake.age_member_requests(30)
        await ws.request_chunks(fake.guild_id, query="", limit=0, nonce="later")
        later = await fake.wait_until(lambda: len(fake.chunks_sent("later")) == 2 and fake.chunks_sent("later"))
        assert [(c["chunk_index"], c["chunk_count"]) for c in later] == [(0, 2), (1, 2)]

        found = await guild.query_members("clan", limit=100)  # discord.py's own bound is Discord's
        assert len(found) == 100
        await ws.request_chunks(fake.guild_id, query="clan", limit=500, nonce="wide")
        (wide,) = await fake.wait_until(lambda: fake.chunks_sent("wide"), what="the prefix query's chunk")
        assert len(wide["members"]) == 100

        await ws.request_chunks(fake.guild_id, user_ids=[ana.id, 12345], limit=2, nonce="n" * 33)
        chunk = await fake.wait_until(lambda: next((c for c in fake.chunks_sent() if c.get("not_found")), None))
        assert "nonce" not in chunk
        assert chunk["not_found"] == ["12345"]
        assert [m["user"]["id"] for m in chunk["members"]] == [str(ana.id)]
    assert not fake.unanswered_member_requests


async def test_the_whole_member_list_without_the_members_intent_gets_no_answer(fake: FakeDiscord) -> None:
    """Discord leaves the whole list unanswered without the GUILD_MEMBERS intent (the connection stays); a prefix
    query is answered, without presences when the client lacks the GUILD_PRESENCES intent."""
    fake.add_member("ana", status="online")
    client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)
    async with run_client(client, fake) as bot:
        assert not fake.received_ops(8)  # without the intent discord.py does not chunk at start
        ws = bot._get_websocket(fake.guild_id)
        await ws.request_chunks(fake.guild_id, query="", limit=0, nonce="all")
        await ws.request_chunks(fake.guild_id, query="an", limit=5, presences=True, nonce="some")
        (some,) = await fake.wait_until(lambda: fake.chunks_sent("some"), what="the prefix query's chunk")
        assert [m["user"]["username"] for m in some["members"]] == ["ana"]
        assert "presences" not in some
        ((data, why),) = fake.unanswered_member_requests
        assert data["nonce"] == "all"
        assert why == "the whole member list without the GUILD_MEMBERS intent"
        assert not fake.chunks_sent("all")
        assert fake.connected


async def test_member_requests_discord_leaves_unanswered_get_no_answer(fake: FakeDiscord) -> None:
    """Neither a query nor user_ids, a query without a limit, another guild: Discord sends nothing back."""
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        ws = bot._get_websocket(fake.guild_id)
        chunks = len(fake.chunks_sent())
        for data in (
            {"guild_id": str(fake.guild_id), "nonce": "bare"},
            {"guild_id": str(fake.guild_id), "query": "a", "nonce": "nolimit"},
            {"guild_id": "1234", "query": "", "limit": 0, "nonce": "elsewhere"},
        ):
            await ws.send_as_json({"op": 8, "d": data})
        await fake.wait_until(lambda: len(fake.unanswered_member_requests) == 3, what="three requests refused")
        assert [(d["nonce"], why) for d, why in fake.unanswered_member_requests] == [
            ("bare", "neither query nor user_ids"),
            ("nolimit", "a query without a limit"),
            ("elsewhere", "not the bot's guild"),
        ]
        assert len(fake.chunks_sent()) == chunks
        assert fake.connected


async def test_message_content_is_blank_without_the_intent(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id, message_content=False), fake) as bot:
        assert isinstance(bot, ProofBot)
        await fake.user_message(members["ana"].id, fake.general.id, "vidiš li me")
        await fake.user_message(members["ana"].id, fake.general.id, f"<@{fake.bot_user.id}> a sada?")
        await fake.wait_for_client(bot, lambda: len(bot.seen_messages) == 2)
        assert [m.content for m in bot.seen_messages] == ["", f"<@{fake.bot_user.id}> a sada?"]


async def test_privileged_intent_not_enabled_in_the_portal_is_refused() -> None:
    async with FakeDiscord(privileged_intents=("members",)) as strict:
        with pointed_at(strict):
            # with reconnect (as client.start()/run() do) discord.py turns close code 4014 into this error;
            # with reconnect=False it surfaces as ConnectionClosed(code=4014)
            with pytest.raises(RuntimeError) as err:
                async with run_client(ProofBot(strict.guild_id), strict, reconnect=True):
                    pass
            assert isinstance(err.value.__cause__, discord.PrivilegedIntentsRequired)
            with pytest.raises(RuntimeError) as err:
                async with run_client(ProofBot(strict.guild_id), strict):
                    pass
            assert isinstance(err.value.__cause__, discord.ConnectionClosed)
            assert err.value.__cause__.code == 4014
            async with run_client(ProofBot(strict.guild_id, presences=False, message_content=False), strict):
                pass  # only the enabled privileged intent (members): accepted
    assert discord.http.Route.BASE == ORIGINAL_BASE


async def test_dropped_connection_resumes_and_keeps_working(fake: FakeDiscord, members: dict[str, FakeMember]) -> None:
    async with run_client(ProofBot(fake.guild_id), fake, reconnect=True) as bot:
        resumed = bot.wait_for("resumed")
        seen = bot.wait_for("raw_member_remove")
        await fake.disconnect_clients(4000)
        await fake.member_leave(members["ceca"].id)  # while the bot is away: replayed when it resumes
        await asyncio.wait_for(resumed, timeout=5)
        assert (await asyncio.wait_for(seen, timeout=5)).user.id == members["ceca"].id
        order = [
            f.payload.get("t") for f in fake.gateway_sent if f.payload.get("t") in ("RESUMED", "GUILD_MEMBER_REMOVE")
        ]
        assert order == ["RESUMED", "GUILD_MEMBER_REMOVE"]  # replayed on resuming, not sent into the void
        (resume,) = fake.received_ops(6)
        ready = next(f.payload for f in fake.gateway_sent if f.payload.get("t") == "READY")
        assert resume["d"]["session_id"] == ready["d"]["session_id"]
        assert any(f.payload.get("t") == "RESUMED" for f in fake.gateway_sent)
        assert len(fake.identifies) == 1
        ix = await fake.slash(members["ana"].id, "echo", {"tekst": "opet"})
        assert (await fake.wait_for_response(ix.id))["data"]["content"] == "opet x1"


# ---------------------------------------------------------------------- restart


async def test_dynamic_button_on_an_old_message_works_after_a_restart(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as first:
        sent = await send_call(first, fake.general.id, 42, [members["ana"]])
        message_id = sent.id
    assert not fake.connected
    second = ProofBot(fake.guild_id)
    async with run_client(second, fake):
        ix = await fake.press(members["ana"].id, message_id, "sudi:42")
        body = await fake.wait_for_response(ix.id)
        assert body["data"]["content"] == "call 42 taken"
        assert second.presses == [(42, members["ana"].id)]
    assert len(fake.identifies) == 2


# ---------------------------------------------------------------------- the fake's own guarantees


async def test_interaction_can_be_acknowledged_only_once_and_only_in_time(
    fake: FakeDiscord, members: dict[str, FakeMember]
) -> None:
    async with run_client(ProofBot(fake.guild_id), fake) as bot:
        assert isinstance(bot, ProofBot)
        failures: list[app_commands.AppCommandError] = []

        async def on_tree_error(interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
            failures.append(error)

        bot.tree.on_error = on_tree_error  # type: ignore[method-assign]
        ix = await fake.slash(members["ana"].id, "tajno")
        await fake.wait_for_response(ix.id)
        url = f"{fake.api_base}/interactions/{ix.id}/{ix.token}/callback"
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json={"type": 4, "data": {"content": "again"}}) as resp:
                assert resp.status == 400
                assert (await resp.json())["code"] == 40060
            # too late (here: a zero deadline): discord.py raises NotFound 10062 inside the command
            fake.ack_deadline = 0.0
            late = await fake.slash(members["ana"].id, "echo", {"tekst": "x"})
            await fake.wait_until(lambda: late.rejected, what="the bot's late attempt")
            await settle()
            assert late.rejected[0][0] == 10062
            assert late.responses == []
            (failure,) = failures
            assert isinstance(failure, app_commands.CommandInvokeError)
            assert isinstance(failure.original, discord.NotFound)
            assert failure.original.code == 10062
            fake.ack_deadline = 3.0
            stale = await fake.slash(members["ana"].id, "echo", {"tekst": "y"})
            await fake.wait_for_response(stale.id)
            fake.expire_interaction(stale.id)
            url = f"{fake.api_base}/interactions/{stale.id}/{stale.token}/callback"
            async with session.post(url, json={"type": 4, "data": {"content": "late"}}) as resp:
                assert resp.status == 400  # already acknowledged wins over expiry
        assert len(fake.interaction_responses(ix.id)) == 1
        assert fake.interaction(ix.id).rejected[0][0] == 40060


def test_pointed_at_restores_on_error() -> None:
    server = FakeDiscord()
    server.port = 1
    with pytest.raises(RuntimeError), pointed_at(server):  # noqa: PT012 (the setup belongs to the case)
        assert discord.http.Route.BASE == "http://127.0.0.1:1/api/v10"
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:1/gateway"
        raise RuntimeError("boom")
    assert discord.http.Route.BASE == ORIGINAL_BASE
    assert discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY == ORIGINAL_GATEWAY
