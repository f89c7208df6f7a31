"""A call naming more referees than one message may mention, on both platforms through their real libraries:
Telegram keeps at most 50 mentions a message (it ignores entities past the 100th, and the fake ignores them too),
Discord at most 100 users in a message's allowed_mentions and 2,000 characters; the rest go in further messages,
and a referee no message could name (past the messages a call may take) gets the call privately."""

from __future__ import annotations

from dataclasses import replace

from test_discord import World, link
from test_discord import world as world
from test_telegram import Scene, fake, scene

from bot.discord import SudijaBot
from bot.ports import Action, Button, CallPost
from bot.telegram import TelegramAdapter
from bot.telegram.format import MENTIONS_PER_MESSAGE, TEXT_LIMIT, call_messages, utf16_len
from rules.members import Member, Role

__all__ = ["fake", "scene", "world"]  # the fixtures, shared with the platforms' tests

NOTICE = "Pozvan je sudija za partiju 100."
SUDI = (Button("Sudi", Action.TAKE, 1),)


def referee(number: int, account: str) -> Member:
    return Member(
        10_000 + number,
        f"sudija{number:03d}",
        frozenset({Role.REFEREE}),
        True,
        True,
        True,
        None,
        None,
        frozenset({account}),
    )


def test_the_notice_and_its_mentions_are_cut_at_50_and_at_the_length() -> None:
    people = [(f"s{i:03d}", i) for i in range(120)]
    messages, left = call_messages(NOTICE, people)
    assert [len(m.people) for m in messages] == [50, 50, 20]
    assert left == []
    assert messages[0].text.startswith(NOTICE + "\n")
    assert [p for m in messages for p in m.people] == people
    long_names = [("x" * 1000, i) for i in range(10)]  # four of them fill a message
    messages, left = call_messages(NOTICE, long_names, messages=2)
    assert [len(m.people) for m in messages] == [4, 4]
    assert all(utf16_len(m.text) <= TEXT_LIMIT for m in messages)
    assert left == long_names[8:]
    for message in messages:
        assert len(message.entities) == len(message.people) <= MENTIONS_PER_MESSAGE


async def telegram_call(scene: Scene, adapter: TelegramAdapter, count: int) -> tuple[list[Member], list[int]]:
    users = [scene.fake.user(f"Sudija{i:03d}", started=True) for i in range(count)]
    referees = [referee(i, f"telegram:{u.id}") for i, u in enumerate(users)]
    await adapter.port.post_call(CallPost("call:1", NOTICE, tuple(referees), SUDI))
    return referees, [u.id for u in users]


async def test_a_call_naming_120_referees_on_telegram_takes_three_messages_of_at_most_50_mentions(
    scene: Scene,
) -> None:
    fake = scene.fake
    scene.a.config = replace(scene.a.config, telegram=replace(scene.a.config.telegram, direct_messages=False))
    async with scene.running() as adapter:
        mark = fake.mark()
        _, ids = await telegram_call(scene, adapter, 120)
    posted = [
        fake.message(scene.referees, r.result["message_id"])
        for r in fake.calls("sendMessage")
        if r.index >= mark and r.ok and r.params["chat_id"] == scene.referees.id
    ]
    assert [len(m.entities) for m in posted] == [50, 50, 20]
    assert posted[0].callback_data() == ["take:1"]
    assert [m.callback_data() for m in posted[1:]] == [[], []]
    pinged = [e["user"]["id"] for m in posted for e in m.entities if e["type"] == "text_mention"]
    assert pinged == ids  # every one, once, in order: none past Telegram's 100th entity
    assert not [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] > 0]


async def test_telegram_referees_past_the_messages_a_call_may_take_get_it_privately(scene: Scene) -> None:
    fake = scene.fake
    scene.a.config = replace(scene.a.config, telegram=replace(scene.a.config.telegram, direct_messages=False))
    async with scene.running() as adapter:
        adapter.port.mention_messages = 2
        mark = fake.mark()
        users = [scene.fake.user(f"Sudija{i:03d}", started=True) for i in range(120)]
        referees = [referee(i, f"telegram:{u.id}") for i, u in enumerate(users)]
        notices = await adapter.port.post_call(CallPost("call:1", NOTICE, tuple(referees), SUDI))
    in_group = [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] == scene.referees.id]
    pinged = [e["user"]["id"] for r in in_group for e in r.result["entities"]]
    assert pinged == [u.id for u in users[:100]]
    privately = [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] > 0]
    assert [r.params["chat_id"] for r in privately] == [u.id for u in users[100:]]
    assert all(r.result["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "take:1" for r in privately)
    # every copy is a notice: each is edited (its button removed) when the call is taken
    assert sorted(int(n.place) for n in notices if int(n.place) > 0) == [u.id for u in users[100:]]


async def discord_call(world: World, bot: SudijaBot, count: int) -> tuple[list[Member], list[int]]:
    members = [world.fake.add_member(f"sudija{i:03d}", roles=[world.referee_role.id]) for i in range(count)]
    referees = [referee(i, f"discord:{m.id}") for i, m in enumerate(members)]
    await bot.chat.post_call(CallPost("call:1", NOTICE, tuple(referees), SUDI))
    return referees, [m.id for m in members]


async def test_a_call_naming_120_referees_on_discord_stays_within_allowed_mentions_and_the_length(
    world: World,
) -> None:
    fake = world.fake
    app = await world.app()
    await link(app, world, "ana")
    async with world.running(app) as bot:
        before = len(fake.messages_in(world.referees.id))
        _, ids = await discord_call(world, bot, 120)
        posted = fake.messages_in(world.referees.id)[before:]
    assert len(posted) == 2
    assert all(len(m["content"]) <= 2000 for m in posted)
    assert all(len(m["_allowed_mentions"]["users"]) <= 100 for m in posted)
    assert posted[0]["components"]
    pinged = [u for m in posted for u in sorted(fake.pings[int(m["id"])].users)]
    assert sorted(pinged) == sorted(ids)  # every one pinged, once
    assert all(fake.pings[int(m["id"])].roles == frozenset() for m in posted)


async def test_discord_referees_past_the_messages_a_call_may_take_get_it_by_direct_message(world: World) -> None:
    fake = world.fake
    app = await world.app()
    async with world.running(app) as bot:
        bot.chat.mention_messages = 1
        before = len(fake.messages_in(world.referees.id))
        _, ids = await discord_call(world, bot, 120)
        posted = fake.messages_in(world.referees.id)[before:]
        assert len(posted) == 1
        named = sorted(fake.pings[int(posted[0]["id"])].users)
        assert len(named) <= 100
        rest = [i for i in ids if i not in named]
        assert rest
        for user in rest:
            channel = fake.dm_channel_id(user)
            assert channel is not None
            [copy] = fake.messages_in(channel)
            assert copy["components"]  # the Sudi button, privately
