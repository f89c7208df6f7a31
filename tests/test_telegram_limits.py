"""Telegram's flood limits kept by the bot's own rate limiter (bot/telegram/limiter.py): a flood wait holds only
the chat Telegram named, a press is answered whatever is held, every chat is paced as Telegram documents.

End to end through python-telegram-bot against the fake Bot API (its per-chat flood control, and with ``limits``
its documented rates), and the schedule itself as a property: whatever arrives, no window is overrun.
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
import re
from collections.abc import Hashable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from test_telegram import Scene, call_game, fake, scene, t

from bot.chat_outbox import ChatOutbox
from bot.telegram.limiter import BOT_RATE, CHAT_RATE, GROUP_RATE, ClubRateLimiter, Rate, Schedule

__all__ = ["fake", "scene"]  # the fixtures, shared with the Telegram tests


class Timeline:
    """The fake Bot API's clock, moved only by the test: a sleep of the rate limiter waits until then."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.moved = asyncio.Condition()
        self.sleeping = 0
        self.released = False  # every sleep ends at once (the test is over)

    def now(self) -> float:
        return self.scene.fake_now

    async def sleep(self, seconds: float) -> None:
        until = self.now() + seconds
        async with self.moved:
            self.sleeping += 1
            self.moved.notify_all()
            try:
                await self.moved.wait_for(lambda: self.released or self.now() >= until)
            finally:
                self.sleeping -= 1

    async def asleep(self, count: int) -> None:
        """Until `count` sleeps wait for the clock."""
        async with asyncio.timeout(5), self.moved:
            await self.moved.wait_for(lambda: self.sleeping >= count)

    async def advance(self, seconds: float) -> None:
        self.scene.fake_now += seconds
        async with self.moved:
            self.moved.notify_all()

    async def release(self) -> None:
        self.released = True
        async with self.moved:
            self.moved.notify_all()


def outbox_on(scene: Scene, time: Timeline) -> ChatOutbox:
    """The scene's chat outbox on the fake Bot API's clock (its retries come when the test moves that clock)."""
    outbox = ChatOutbox(scene.a.desk.delivery, lambda: datetime.fromtimestamp(time.now(), UTC))
    outbox.background = True
    scene.a.desk.deps.chat_outbox = outbox
    return outbox


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_flood_wait_on_the_referees_group_holds_no_press_of_another_chat(scene: Scene) -> None:
    """The issue's case: the winner's take edits the notice in the referees' group, Telegram answers 429 retry
    after 20 for that group; the edit is put off to the chat outbox (nothing of it was shown), so the winner's
    own answer and another referee's press on his private copy are answered at once (Telegram's clock has not
    moved), while the group is still held; the edit goes once the hold is over."""
    fake = scene.fake
    time = Timeline(scene)
    limiter = ClubRateLimiter(clock=time.now, sleep=time.sleep, paced=False)
    outbox = outbox_on(scene, time)
    await scene.link("ana")
    async with scene.running(concurrent=True, limiter=limiter):
        try:
            group_msg, call_id = await call_game(scene)
            copy = scene.last("zoran")
            assert copy.callback_data() == [f"take:{call_id}"]
            notice = group_msg.text
            fake.flood(20, retry_after=20, chat=scene.referees)
            mark = fake.mark()
            pressed_at = scene.fake_now
            first = fake.push_callback(scene.u("mira"), group_msg, f"take:{call_id}")
            await fake.wait_for("answerCallbackQuery", where=lambda p: p["callback_query_id"] == first)
            await fake.wait_until(
                lambda: any(
                    r.method == "editMessageText" and r.error_code == 429 and r.params["chat_id"] == scene.referees.id
                    for r in fake.requests[mark:]
                )
            )
            # the winner's answer in his private chat waits for no hold of the group's
            await scene.got("mira", lambda x: x.startswith("Sudite"), since=mark)
            assert limiter.held(scene.referees.id)
            (edit,) = [e for e in await outbox.store.listing() if e.kind == "edit_notices" and e.state.value != "sent"]
            assert edit.next_at is not None  # put off: tried again by the outbox once the hold is over
            assert edit.next_at > datetime.fromtimestamp(pressed_at + 20, UTC)
            second = fake.push_callback(scene.u("zoran"), copy, f"take:{call_id}")
            await fake.wait_for("answerCallbackQuery", where=lambda p: p["callback_query_id"] == second)
            query = fake.callback_queries[second]
            assert query.answer == {"callback_query_id": second, "text": t("telegram.pressed")}
            assert not query.late
            outcome = await scene.got("zoran", lambda x: x.startswith("Poziv"), since=mark)
            assert outcome.text == t("take.taken", game=100, referee="mira")
            assert scene.fake_now == pressed_at  # all of it with Telegram's clock where it was: nothing waited
            assert limiter.held(scene.referees.id)
            assert group_msg.text == notice  # the group's edit waits for Telegram's 20 seconds
            await time.advance(21)
            outbox.wake()
            taken = t("call.notice_taken", game=100, caller="ana", referee="mira")
            await fake.wait_until(lambda: group_msg.text == taken and copy.text == taken)
            assert not limiter.held(scene.referees.id)
        finally:  # nothing stays held when the adapter stops, whatever failed
            await time.release()
    edits = [r for r in fake.calls("editMessageText") if r.params["chat_id"] == scene.referees.id and r.index >= mark]
    assert [r.error_code for r in edits] == [429, None]  # held, then sent once, not hammered


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_held_chat_holds_its_own_effects_and_no_other_chats(scene: Scene) -> None:
    """Telegram holds mira's private chat (429 retry after 20): what the desk tells her waits in her queue, in
    order, and is sent once after the hold; what it tells zoran in the same breath is sent at once, and the
    decision that wrote both is not kept waiting (Telegram's clock has not moved)."""
    fake = scene.fake
    time = Timeline(scene)
    limiter = ClubRateLimiter(clock=time.now, sleep=time.sleep, paced=False)
    outbox = outbox_on(scene, time)
    desk = scene.a.desk
    mira = await desk.member_for("telegram", str(scene.u("mira").id))
    zoran = await desk.member_for("telegram", str(scene.u("zoran").id))
    assert mira is not None
    assert zoran is not None
    async with scene.running(concurrent=True, limiter=limiter):
        try:
            fake.flood(20, retry_after=20, chat=scene.u("mira"))
            mark = fake.mark()
            at = scene.fake_now
            async with asyncio.timeout(30):  # a guard: the clock never moves by itself, a wait for it would hang
                told = desk.delivery.told
                await desk.delivery.enqueue_effects(
                    [told(mira.id, "prvo za Miru"), told(zoran.id, "za Zorana"), told(mira.id, "drugo")]
                )
            await scene.got("zoran", "za Zorana", since=mark)
            assert scene.fake_now == at  # nothing waited out mira's hold
            assert limiter.held(scene.u("mira").id)
            assert [m.text for m in fake.bot_messages(scene.u("mira")) if m.text in ("prvo za Miru", "drugo")] == []
            await time.advance(21)
            outbox.wake()
            await scene.got("mira", "drugo", since=mark)
        finally:
            await time.release()
    to_mira = [r for r in fake.calls("sendMessage") if r.params["chat_id"] == scene.u("mira").id and r.index >= mark]
    assert [(r.params["text"], r.error_code) for r in to_mira] == [
        ("prvo za Miru", 429),  # put off whole: nothing of it was shown
        ("prvo za Miru", None),
        ("drugo", None),  # behind the first in her queue, never before it
    ]
    assert [e.state.value for e in await outbox.store.listing()].count("pending") == 0


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_put_off_effect_outlives_the_process_and_is_sent_once(scene: Scene) -> None:
    """An effect put off by a held chat is a pending row of the chat outbox, nothing more: the process goes down
    during the hold, the next one (whose rate limiter knows no hold) sends it once the wait is over — once."""
    fake = scene.fake
    time = Timeline(scene)
    outbox_on(scene, time)
    desk = scene.a.desk
    mira = await desk.member_for("telegram", str(scene.u("mira").id))
    assert mira is not None
    mark = fake.mark()
    limiter = ClubRateLimiter(clock=time.now, sleep=time.sleep, paced=False)
    async with scene.running(concurrent=True, limiter=limiter):
        try:
            fake.flood(20, retry_after=20, chat=scene.u("mira"))
            async with asyncio.timeout(30):  # a guard: the clock never moves by itself
                await desk.delivery.enqueue_effects([desk.delivery.told(mira.id, "posle pauze")])
            assert limiter.held(scene.u("mira").id)
        finally:
            await time.release()
    await scene.a.close()  # the whole process goes down while mira's chat is held
    await scene.open()
    time = Timeline(scene)
    outbox = outbox_on(scene, time)
    limiter = ClubRateLimiter(clock=time.now, sleep=time.sleep, paced=False)
    async with scene.running(concurrent=True, limiter=limiter):
        try:
            await time.advance(21)
            outbox.wake()
            await scene.got("mira", "posle pauze", since=mark)
            # Telegram has the message; the bot records it sent once the answer is back. Stopping the adapter
            # before that would cut the request in flight and leave the row to be sent again (at least once).
            async with asyncio.timeout(30):
                while "pending" in [e.state.value for e in await outbox.store.listing()]:  # noqa: ASYNC110 (no event)
                    await asyncio.sleep(0.01)
        finally:
            await time.release()
    to_mira = [r for r in fake.calls("sendMessage") if r.params["chat_id"] == scene.u("mira").id and r.index >= mark]
    assert [(r.params["text"], r.error_code) for r in to_mira] == [("posle pauze", 429), ("posle pauze", None)]
    assert [e.state.value for e in await outbox.store.listing()].count("pending") == 0


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_flood_wait_on_a_callback_answer_is_retried_only_while_the_press_can_be_answered(
    scene: Scene,
) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running(concurrent=True) as adapter:
        group_msg, call_id = await call_game(scene)
        copy = scene.last("zoran")
        fake.fail_next("answerCallbackQuery", 429, "Too Many Requests: retry after 2", retry_after=2)
        query = fake.push_callback(scene.u("mira"), group_msg, f"take:{call_id}")
        await fake.wait_until(lambda: fake.answer_of(query) is not None)
        assert fake.answer_of(query) == {"callback_query_id": query, "text": t("telegram.pressed")}
        assert not fake.callback_queries[query].late
        await scene.got("mira", lambda x: x.startswith("Sudite"))
        mark = fake.mark()
        fake.fail_next("answerCallbackQuery", 429, "Too Many Requests: retry after 30", retry_after=30)
        # his copy's button, pressed before its edit reached his client
        again = fake.push_callback(scene.u("zoran"), copy, f"take:{call_id}", forged=True)
        # Telegram's 30 seconds outlast the press: no retry, the outcome still comes privately
        await scene.got("zoran", lambda x: x.startswith("Poziv"), since=mark)
        assert fake.answer_of(again) is None
    assert [r.error_code for r in fake.calls("answerCallbackQuery")] == [429, None, 429]
    assert adapter.rate_limiter.floods == 2


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_long_text_in_a_private_chat_and_a_burst_to_a_group_keep_telegrams_rates(scene: Scene) -> None:
    """Against a fake that refuses what passes Telegram's documented rates: unpaced, a long transcript split into
    many messages draws 429s; paced, nothing is refused and every part arrives in order."""
    fake = scene.fake
    fake.limits = True
    long_text = "\n".join(f"{i:04d} " + "x" * 200 for i in range(160))  # ~32,000 characters: 8 messages

    async def send_all(limiter: ClubRateLimiter) -> None:
        async with scene.running(limiter=limiter) as adapter:
            await adapter.port.send(scene.u("ana").id, long_text)
            for i in range(26):
                await adapter.port.send(scene.referees.id, f"obaveštenje {i}")

    with pytest.raises(RetryAfter):
        await send_all(ClubRateLimiter(clock=lambda: scene.fake_now, sleep=scene.sleep, paced=False, max_retries=0))
    assert fake.limit_refusals > 0  # the fake is as strict as Telegram: an unpaced burst is refused
    refused, start = fake.limit_refusals, scene.fake_now
    fake.sent_times.clear()
    mark = fake.mark()
    await send_all(ClubRateLimiter(clock=lambda: scene.fake_now, sleep=scene.sleep, max_retries=0))
    assert fake.limit_refusals == refused  # paced: nothing refused
    private = [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] == scene.u("ana").id]
    assert len(private) >= 8
    assert all(r.ok for r in private)
    assert "".join(r.params["text"] for r in private).replace("\n", "") == long_text.replace("\n", "")
    group = [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] == scene.referees.id]
    assert [r.params["text"] for r in group] == [f"obaveštenje {i}" for i in range(26)]
    assert scene.fake_now - start >= (26 - GROUP_RATE.burst) * GROUP_RATE.interval  # a group's minute is kept


async def test_concurrent_messages_to_one_chat_get_successive_slots_and_other_chats_wait_for_none() -> None:
    """Ten messages at once to one private chat: a burst of three, then one a second; a message to another chat
    and a callback answer at the same moment do not wait."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limiter = ClubRateLimiter(clock=lambda: 1000.0, sleep=sleep, bot_rate=Rate(1000, 1.0, burst=1000))

    async def request(endpoint: str, data: dict[str, object]) -> bool:
        async def call() -> bool:
            return True

        return bool(await limiter.process_request(call, (), {}, endpoint, data, None))

    await asyncio.gather(*(request("sendMessage", {"chat_id": 7, "text": "x"}) for _ in range(10)))
    assert sorted(waits) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    waits.clear()
    await request("sendMessage", {"chat_id": 8, "text": "x"})
    await request("answerCallbackQuery", {"callback_query_id": "1"})
    assert waits == []


# The schedule itself ---------------------------------------------------------------------------------------


def most_in_window(times: list[float], period: float) -> int:
    ordered = sorted(times)
    most, low = 0, 0
    for high, moment in enumerate(ordered):
        while ordered[low] <= moment - period + 1e-9:
            low += 1
        most = max(most, high - low + 1)
    return most


def window_bound(rate: Rate) -> int:
    """What GCRA lets through in any window of the rate's period: its count plus its burst less one."""
    return int(rate.count) + rate.burst - 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 5), st.sampled_from([101, 102, 103, -1001, -1002])),
        min_size=1,
        max_size=150,
    )
)
def test_whatever_arrives_no_chat_group_or_the_bot_passes_its_rate(arrivals: list[tuple[float, int]]) -> None:
    """The limiter's two steps as events in time: a message reserves its chat's (and group's) slot when it
    arrives, and the bot's slot when its chat lets it go. No window of any of them is overrun."""
    schedule = Schedule()
    events: list[tuple[float, int, int]] = []  # (time, order, chat); a chat of 0 marks the bot's step
    now = 0.0
    for order, (gap, chat) in enumerate(arrivals):
        now += gap
        events.append((now, order, chat))
    heapq.heapify(events)
    slots: dict[Hashable, list[float]] = {}
    sent: list[float] = []
    order = len(arrivals)
    while events:
        moment, _, chat = heapq.heappop(events)
        if chat == 0:
            start = schedule.reserve(moment, [("bot", BOT_RATE)])
            assert start >= moment
            sent.append(start)
            continue
        buckets: list[tuple[Hashable, Rate]] = [(("chat", chat), CHAT_RATE)]
        if chat < 0:
            buckets.append((("group", chat), GROUP_RATE))
        start = schedule.reserve(moment, buckets, chat)
        assert start >= moment
        for key, _ in buckets:
            slots.setdefault(key, []).append(start)
        order += 1
        heapq.heappush(events, (start, order, 0))
    assert len(sent) == len(arrivals)
    assert most_in_window(sent, BOT_RATE.period) <= window_bound(BOT_RATE) <= 30
    for (kind, _), times in slots.items():
        rate = CHAT_RATE if kind == "chat" else GROUP_RATE
        assert most_in_window(times, rate.period) <= window_bound(rate)
    assert window_bound(GROUP_RATE) <= 20


def test_a_hold_delays_its_chat_alone() -> None:
    schedule = Schedule()
    schedule.hold(-1001, 20.0)
    assert schedule.reserve(1.0, [(("chat", -1001), CHAT_RATE)], -1001) == 20.0
    assert schedule.reserve(1.0, [(("chat", 55), CHAT_RATE)], 55) == 1.0
    assert schedule.held_until(-1001, 21.0) == 0.0


def test_the_limiter_is_python_telegram_bots_public_interface_and_nothing_private_is_used() -> None:
    assert issubclass(ClubRateLimiter, BaseRateLimiter)
    assert not ClubRateLimiter.__abstractmethods__
    ours = inspect.signature(ClubRateLimiter.process_request).parameters
    assert list(ours) == list(inspect.signature(BaseRateLimiter.process_request).parameters)
    adapter = Path(__file__).resolve().parent.parent / "bot" / "telegram"
    for module in adapter.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        assert not re.search(r"(from|import) telegram(\.ext)?\._", source), module.name
        assert "_run_request" not in source, module.name
        assert "_retry_after_event" not in source, module.name
