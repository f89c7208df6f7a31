"""A trial's space Discord refuses at run time, through discord.py against the fake: Create Private Threads taken
from the bot while it runs — the referee and the caller told at once, the trial relayed through the bot's direct
messages, the officials told what to fix, then the permission given back and the thread opened with everything
said so far; Manage Threads taken away — a thread that cannot be locked is reported (never told as done) and
locked as soon as the permission is back; the club that ends such a trial instead."""

from __future__ import annotations

from typing import Any

from test_discord import World, answer_of, call_message, link, open_trial, pending_call_id, store_game
from test_discord import world as world

from bot.app import App
from bot.discord import SudijaBot
from bot.messages import Catalogue
from fakes.discord_server import FakeDiscord, Perm, settle
from rules.verdicts import Draft, NoVerdict
from storage.states import EndReason, SpaceState, TrialOutcome

sr = Catalogue("sr")


def deny(fake: FakeDiscord, permission: int) -> dict[str, Any]:
    """The bot's role denied `permission` in a channel (an admin's overwrite)."""
    return {"id": str(fake.bot_role.id), "type": 0, "allow": "0", "deny": str(permission)}


def dms(fake: FakeDiscord, user_id: int) -> list[dict[str, Any]]:
    channel = fake.dm_channel_id(user_id)
    return [] if channel is None else fake.messages_in(channel)


async def revoke(world: World, bot: SudijaBot, permission: int) -> None:
    await world.fake.set_overwrites(world.trials, [deny(world.fake, permission)])
    await world.fake.wait_for_client(bot, lambda: bot.chat.missing() is not None, what="the overwrite seen")


async def test_create_private_threads_revoked_at_run_time_relays_the_trial_until_the_thread_opens(
    world: World,
) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1", "sudija2")
    await store_game(app, 100)
    async with world.running(app) as bot:
        await revoke(world, bot, Perm.CREATE_PRIVATE_THREADS)
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        taken = await answer_of(fake, await fake.press(m["sudija1"].id, int(notice["id"]), f"sudija:take:{call}"))
        trial = await app.db.trials.open_for_game(100)
        assert trial is not None
        assert taken == sr.t("take.ok", game=100, trial=trial.id)
        assert fake.threads_in(world.trials.id) == []  # Discord refused it: no thread
        states = await app.db.trials.space_states(trial.id)
        assert states["discord"][0] is SpaceState.RELAYED
        assert "Create Private Threads" in (states["discord"][1] or "")

        # the referee and the caller told at once, privately: what happened, and the opening (controls for him)
        relayed = sr.t("trial.space_relayed", trial=trial.id, game=100, platform="discord")
        opening = sr.t("trial.opened_out_of_game", game=100, caller="ana", referee="sudija1")
        for nick in ("ana", "sudija1"):
            texts = [d["content"] for d in await await_dms(fake, m[nick].id)]
            assert any(t.startswith(opening) for t in texts), texts
            assert relayed in texts
        controls = next(d for d in dms(fake, m["sudija1"].id) if d.get("components"))
        assert not any(d.get("components") for d in dms(fake, m["ana"].id))
        # the officials told what to fix, in the referees' channel
        officials = sr.t(
            "trial.space_refused_officials",
            trial=trial.id,
            game=100,
            platform="discord",
            problem=sr.t("discord.missing", permissions="Create Private Threads", channel="sudjenja"),
        )
        assert any(msg["content"] == officials for msg in fake.messages_in(world.referees.id))

        # the relay: the caller writes to the bot, the referee reads it; and back
        await fake.user_message(m["ana"].id, fake_dm(fake, m["ana"].id), "Jeste li tu?")
        await fake.wait_until(lambda: "ana: Jeste li tu?" in [d["content"] for d in dms(fake, m["sudija1"].id)])
        await fake.user_message(m["sudija1"].id, fake_dm(fake, m["sudija1"].id), "Tu sam, pričajte.")
        await fake.wait_until(lambda: "sudija1: Tu sam, pričajte." in [d["content"] for d in dms(fake, m["ana"].id)])
        assert [t.text for t in await app.db.trials.messages(trial.id)] == ["Jeste li tu?", "Tu sam, pričajte."]
        press = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:hands:{trial.id}")
        assert (await answer_of(fake, press)).startswith("Partija 100")  # his controls work in the DM

        # the permission given back: the thread opens with the parties, the conversation so far and the controls
        await fake.set_overwrites(world.trials, [])
        thread = await fake.wait_until(lambda: next(iter(fake.threads_in(world.trials.id)), None))
        await fake.wait_until(lambda: any(msg.get("components") for msg in fake.messages_in(thread.id)))
        assert fake.thread_members(thread.id) >= {m["ana"].id, m["sudija1"].id}
        posted = fake.messages_in(thread.id)[-1]["content"]
        assert "ana: Jeste li tu?" in posted
        assert "sudija1: Tu sam, pričajte." in posted
        opened = sr.t("trial.space_opened", trial=trial.id, game=100, platform="discord")
        await fake.wait_until(lambda: opened in [d["content"] for d in dms(fake, m["ana"].id)])
        assert (await app.db.trials.space_states(trial.id))["discord"][0] is SpaceState.OPEN

        # from now on the thread is the trial's space: what the caller writes there is the transcript
        await fake.user_message(m["ana"].id, thread.id, "Sada ovde.")
        await fake.wait_until(lambda: len(bot.chat.threads) == 1)
        await draft_bez(app)  # Završi suđenje records a draft: Bez presude, with its reason
        done = await fake.press(
            m["sudija1"].id, int(fake.messages_in(thread.id)[-2]["id"]), f"sudija:finish:{trial.id}"
        )
        assert (await answer_of(fake, done)) == sr.t("finish.ok", game=100)
        assert (thread.archived, thread.locked) == (True, True)


async def draft_bez(app: App) -> None:
    referee = await app.db.members.by_nick("sudija1")
    assert referee is not None
    assert (await app.desk.draft(referee, Draft(NoVerdict(), "nema osnova"))).ok


async def await_dms(fake: FakeDiscord, user_id: int) -> list[dict[str, Any]]:
    await fake.wait_until(lambda: len(dms(fake, user_id)) >= 2)
    return dms(fake, user_id)


def fake_dm(fake: FakeDiscord, user_id: int) -> int:
    channel = fake.dm_channel_id(user_id)
    assert channel is not None
    return channel


async def test_a_thread_that_cannot_be_locked_is_reported_and_locked_when_the_permission_is_back(
    world: World,
) -> None:
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app) as bot:
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        controls = fake.messages_in(thread.id)[0]
        await revoke(world, bot, Perm.MANAGE_THREADS)
        await draft_bez(app)  # Završi suđenje records a draft: Bez presude, with its reason
        done = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:finish:{trial_id}")
        answer = await answer_of(fake, done)
        problem = sr.t("discord.missing", permissions="Manage Threads", channel="sudjenja")
        # recorded, and not told as done: the referee reads that the thread is not locked yet
        assert answer == "\n".join(
            [sr.t("finish.ok", game=100), sr.t("finish.unlocked", platform="discord", problem=problem)]
        )
        assert not thread.locked
        assert (await app.db.trials.space_states(trial_id))["discord"] == (SpaceState.UNLOCKED, problem)
        unlocked = sr.t("trial.space_unlocked", trial=trial_id, game=100, platform="discord", problem=problem)
        assert any(msg["content"] == unlocked for msg in fake.messages_in(world.referees.id))
        closed = await app.db.trials.get(trial_id)
        assert closed is not None
        assert closed.outcome is TrialOutcome.NO_VERDICT
        await fake.set_overwrites(world.trials, [])
        await fake.wait_until(lambda: thread.locked)
        await settle()  # the channel update's handler records the lock after Discord's answer
        assert thread.archived
        assert (await app.db.trials.space_states(trial_id))["discord"][0] is SpaceState.LOCKED


async def test_a_club_that_ends_such_a_trial_interrupts_it_and_tells_the_officials(world: World) -> None:
    fake, m = world.fake, world.m
    app = await world.app({"space_refused": "interrupt"})
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app) as bot:
        await revoke(world, bot, Perm.CREATE_PRIVATE_THREADS)
        await answer_of(fake, await fake.slash(m["ana"].id, "sudija", {"partija": 100}))
        call = await pending_call_id(app, 100)
        notice = await call_message(world, call)
        await answer_of(fake, await fake.press(m["sudija1"].id, int(notice["id"]), f"sudija:take:{call}"))
        trial = await app.db.trials.for_game(100)
        assert [t.outcome for t in trial] == [TrialOutcome.INTERRUPTED]
        assert trial[0].end_reason == EndReason.SPACE_REFUSED
        ended = sr.t("trial.interrupted", game=100, why=sr.t("end.space_refused"))
        await fake.wait_until(lambda: ended in [d["content"] for d in dms(fake, m["ana"].id)])
        problem = sr.t("discord.missing", permissions="Create Private Threads", channel="sudjenja")
        told = sr.t("trial.space_refused_interrupted", trial=trial[0].id, game=100, platform="discord", problem=problem)
        assert any(msg["content"] == told for msg in fake.messages_in(world.referees.id))
        assert fake.threads_in(world.trials.id) == []


async def test_a_403_at_run_time_is_reported_meanwhile_and_retried_when_the_permission_is_back(world: World) -> None:
    """Send Messages in Threads taken from the bot while a trial is open: the trial's last word cannot be posted.
    The referee's answer says the space is not closed yet, the officials are told meanwhile (once), and the moment
    Discord tells the bot its permissions allow it, the last word is posted and the thread locked."""
    fake, m = world.fake, world.m
    app = await world.app()
    await link(app, world, "ana", "sudija1")
    await store_game(app, 100)
    async with world.running(app):
        trial_id, thread = await open_trial(world, app, 100, "ana", "sudija1")
        controls = fake.messages_in(thread.id)[0]
        await fake.set_overwrites(world.trials, [deny(fake, Perm.SEND_MESSAGES_IN_THREADS)])
        await settle()
        await draft_bez(app)  # Završi suđenje records a draft: Bez presude, with its reason
        done = await fake.press(m["sudija1"].id, int(controls["id"]), f"sudija:finish:{trial_id}")
        answer = (await answer_of(fake, done)).split("\n")
        assert answer[0] == sr.t("finish.ok", game=100)
        assert answer[1].startswith(sr.t("finish.not_closed", error="discord: Forbidden").split("(")[0])
        assert "Missing Permissions" in answer[1]
        assert not thread.locked
        [trial] = await app.db.trials.for_game(100)
        [(closing, error)] = await app.desk.delivery.chat_outbox.store.waiting(
            f"call:{trial.call}", "close_trial_space"
        )
        assert closing["trial"] == trial_id
        assert error is not None
        assert error.startswith("discord: Forbidden")
        problem = sr.t("discord.missing", permissions="Missing Permissions", channel=f"Suđenje #{trial_id}")
        told = sr.t("outbox.platform_refused", platform="discord", problem=problem)
        assert [msg["content"] for msg in fake.messages_in(world.referees.id)].count(told) == 1  # told meanwhile
        await fake.set_overwrites(world.trials, [])
        await fake.wait_until(lambda: thread.locked)
        await settle()
        last = fake.messages_in(thread.id)[-1]["content"]
        assert last.startswith(sr.t("trial.finished", game=100, verdict="—", reason="—").split(".")[0])
        assert await app.desk.delivery.chat_outbox.store.waiting(f"call:{trial.call}", "close_trial_space") == []
