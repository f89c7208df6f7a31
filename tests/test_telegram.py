"""The Telegram adapter end to end: the real python-telegram-bot `Application` against the fake Bot API
(tests/fakes/telegram_server.py) over loopback, with the real desk and database on a manual clock.

Proves: /sudija in the group → the referees' group message (Sudi button, referees mentioned) and private pings →
two presses at once → one winner, every copy edited → the trial relayed through private chats → draft, replace,
Završi suđenje → /presude; a restart between call and press; forged callbacks refused; a party who never started
the bot invited by deep link, his messages kept and delivered (also across a restart); leaving the club group
ends the trial; expiry by the manual clock; the command menus; nothing a member typed is formatted or pings.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from telegram import Update
from telegram.error import BadRequest, RetryAfter
from telegram.ext import CallbackQueryHandler

from bot.app import App, build_app
from bot.config import Config, ConfigError, TelegramConfig
from bot.messages import Catalogue
from bot.ports import LoggingGameServer, ManualClock, ManualTimers
from bot.telegram import TelegramAdapter, run_telegram
from bot.telegram.handlers import GROUP_COMMANDS, PRIVATE_COMMANDS
from bot.telegram.limiter import ClubRateLimiter
from club import Club
from fakes.chat import RecordingChat
from fakes.telegram_server import FakeChat, FakeTelegram, FakeUser, RecordedRequest, StoredMessage, running
from rules.appeals import AppealKind, AppealRules
from storage.members import Member

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
sr = Catalogue("sr")


def t(key: str, **params: object) -> str:
    return sr.t(key, **params)


@dataclass
class Scene:
    """A club on Telegram: the fake Bot API, the club group and the referees' group, users, and the App."""

    fake: FakeTelegram
    tmp: Path
    clock: ManualClock
    club: FakeChat
    referees: FakeChat
    users: dict[str, FakeUser]
    app: App | None = None
    adapters: list[TelegramAdapter] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)  # the rate limiter's flood waits, never slept for real
    fake_now: float = NOW.timestamp()  # the fake Bot API's clock: deadlines and flood control run on it

    async def sleep(self, seconds: float) -> None:
        """The rate limiter's wait: it moves the fake's clock instead of waiting."""
        self.waits.append(seconds)
        self.fake_now += seconds
        await asyncio.sleep(0)

    def config(self) -> Config:
        return Config(
            telegram=TelegramConfig(
                club_group_id=self.club.id, referees_group_id=self.referees.id, base_url=self.fake.base_url
            )
        )

    async def open(self) -> App:
        """Open (or reopen, after a restart) the App on the scene's database."""
        self.app = await build_app(
            self.config(), clock=self.clock, timers=ManualTimers(), database=str(self.tmp / "club.db")
        )
        return self.app

    @property
    def a(self) -> App:
        assert self.app is not None
        return self.app

    @asynccontextmanager
    async def running(
        self, *, concurrent: bool = False, limiter: ClubRateLimiter | None = None
    ) -> AsyncIterator[TelegramAdapter]:
        """The wiring `sudija run` does: build the adapter, attach its port, start it, then start the desk."""
        # flood waits move the fake's clock; no pacing (tests never wait for real; test_telegram_limits paces)
        limiter = limiter or ClubRateLimiter(sleep=self.sleep, clock=lambda: self.fake_now, paced=False)
        adapter = TelegramAdapter(
            self.a.desk, self.a.config.telegram, poll_timeout=1.0, concurrent_updates=concurrent, rate_limiter=limiter
        )
        self.a.attach(adapter.port)
        await adapter.start()
        try:
            await self.a.desk.start()
            yield adapter
        finally:
            await adapter.stop()
            self.a.chats.ports.remove(adapter.port)

    async def link(self, nick: str, *roles: str) -> Member:
        member = await self.a.db.members.link("telegram", str(self.users[nick].id), nick, self.clock.now())
        for role in roles:
            await self.a.db.members.set_role(member.id, role, True, None, self.clock.now())
        return member

    async def game(self, number: int, players: tuple[str, str, str] = ("ana", "marko", "petar")) -> None:
        club = Club(
            self.a.db, self.a.desk, RecordingChat(), self.clock, ManualTimers(), LoggingGameServer(), self.a.config
        )
        await club.game(number, players)

    async def member(self, nick: str) -> Member:
        member = await self.a.db.members.by_nick(nick)
        assert member is not None
        return member

    def u(self, nick: str) -> FakeUser:
        return self.users[nick]

    def last(self, nick: str) -> StoredMessage:
        return self.fake.bot_messages(self.u(nick))[-1]

    def texts(self, nick: str) -> list[str]:
        return [m.text for m in self.fake.bot_messages(self.u(nick))]

    async def said(self, nick: str, count: int = 1, since: int = 0) -> list[str]:
        """Wait until the bot wrote `count` private messages to `nick` from request `since` on; their texts."""

        def sent() -> list[RecordedRequest]:
            return [
                r
                for r in self.fake.calls("sendMessage")
                if r.ok and r.index >= since and r.params["chat_id"] == self.u(nick).id
            ]

        await self.fake.wait_until(lambda: len(sent()) >= count)
        return [self.fake.message(self.u(nick), r.result["message_id"]).text for r in sent()[:count]]

    async def got(self, nick: str, wanted: str | Callable[[str], bool], since: int = 0) -> StoredMessage:
        """Wait until the bot wrote `nick` privately (from request `since` on) a message that is `wanted`."""

        def match(text: str) -> bool:
            return wanted(text) if callable(wanted) else text == wanted

        def found() -> StoredMessage | None:
            for r in self.fake.calls("sendMessage"):
                if r.ok and r.index >= since and r.params["chat_id"] == self.u(nick).id:
                    message = self.fake.message(self.u(nick), r.result["message_id"])
                    if match(message.text):
                        return message
            return None

        await self.fake.wait_until(lambda: found() is not None)
        message = found()
        assert message is not None
        return message

    async def pressed(self, nick: str, query: str, wanted: str | Callable[[str], bool], since: int = 0) -> str:
        """A press is answered at once with the short line; the desk's answer then comes privately: its text."""
        await self.fake.wait_for("answerCallbackQuery", where=lambda p: p["callback_query_id"] == query, since=since)
        assert self.fake.answer_of(query) == {"callback_query_id": query, "text": t("telegram.pressed")}
        return (await self.got(nick, wanted, since)).text


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeTelegram]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # httpx honours HTTP(S)_PROXY even for loopback
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", "123456789:TEST-fake-bot-token")
    async with FakeTelegram() as server:
        yield server
    leaked = [task for task in asyncio.all_tasks() if task is not asyncio.current_task() and not task.done()]
    assert leaked == [], f"leaked tasks: {leaked}"


@pytest.fixture
async def scene(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Scene]:
    users = {
        nick: fake.user(nick.title(), started=nick != "jelena") for nick in ("ana", "mira", "zoran", "jelena", "marko")
    }
    club = fake.group("Klub", members=users.values())
    referees = fake.group("Sudije", members=[users["mira"], users["zoran"]])
    made = Scene(fake, tmp_path, ManualClock(NOW), club, referees, users)
    fake.clock = lambda: made.fake_now
    await made.open()
    await made.link("mira", "referee")
    await made.link("zoran", "referee")
    await made.link("jelena")
    await made.game(100)
    yield made
    await made.a.close()


async def call_game(scene: Scene, number: int = 100, caller: str = "ana") -> tuple[StoredMessage, int]:
    """`caller` types /sudija in the club group; returns the referees' group message and the call id."""
    fake = scene.fake
    mark = fake.mark()
    fake.push_command(scene.club, scene.u(caller), "sudija", str(number))
    [posted] = await fake.wait_for("sendMessage", chat=scene.referees, since=mark)
    call = await scene.a.db.calls.pending_for_game(number)
    assert call is not None
    await fake.wait_for("sendMessage", chat=scene.u(caller), since=mark)
    return fake.message(scene.referees, posted.result["message_id"]), call.id


@pytest.mark.parametrize("concurrent", [False, True], ids=["in_order", "concurrent_updates"])
async def test_call_race_trial_relay_verdict_and_presude(scene: Scene, concurrent: bool) -> None:
    fake = scene.fake
    async with scene.running(concurrent=concurrent):
        # Linking from the group only asks; the answer comes privately (Ana has started the bot). A moderator
        # (mira) approves it in her private chat.
        mira = await scene.member("mira")
        await scene.a.db.members.set_role(mira.id, "moderator", True, None, NOW)
        fake.push_command(scene.club, scene.u("ana"), "nadimak", "ana")
        assert await scene.said("ana") == [t("link.asked", nick="ana")]
        mark = fake.mark()
        fake.push_command(scene.u("mira"), scene.u("mira"), "povezi", "ana", "odobri")
        await fake.wait_for("sendMessage", chat=scene.u("ana"), since=mark)
        assert scene.last("ana").text == t("link.told_approved", nick="ana")
        assert (await scene.member("ana")).online  # Telegram shows no presence: a linked member is online

        group_msg, call_id = await call_game(scene)
        call = await scene.a.db.calls.get(call_id)
        assert call is not None
        notice = t("call.notice_out_of_game", game=100, caller="ana", until=call.deadline)
        assert group_msg.text == f"{notice}\nmira, zoran"
        mentions = [(e["type"], e["user"]["id"]) for e in group_msg.entities]
        assert mentions == [("text_mention", scene.u("mira").id), ("text_mention", scene.u("zoran").id)]
        assert group_msg.button_texts() == ["Sudi"]
        assert group_msg.callback_data() == [f"take:{call_id}"]
        assert scene.last("ana").text == t("call.ok", game=100, minutes=5)
        assert scene.last("ana").button_texts() == ["Povuci poziv"]
        pings = {nick: scene.last(nick) for nick in ("mira", "zoran")}
        assert all(p.text == notice and p.callback_data() == [f"take:{call_id}"] for p in pings.values())
        await fake.wait_for("deleteMessage", count=2)
        assert fake.messages(scene.club) == []  # the command deleted, nothing from the bot in the club group

        # Two referees press at once: Mira in the referees' group, Zoran on his private copy. Each press is
        # answered at once with the short line; the outcome comes privately.
        mark = fake.mark()
        first = fake.push_callback(scene.u("mira"), group_msg, f"take:{call_id}")
        second = fake.push_callback(scene.u("zoran"), pings["zoran"], f"take:{call_id}")
        outcome = {
            nick: await scene.pressed(nick, query, lambda x: x.startswith(("Sudite", "Poziv")), since=mark)
            for nick, query in (("mira", first), ("zoran", second))
        }
        batches = [{u.get("callback_query", {}).get("id") for u in r.result} for r in fake.calls("getUpdates") if r.ok]
        assert any({first, second} <= batch for batch in batches)  # both came in one getUpdates answer: at once
        won = [nick for nick, text in outcome.items() if text.startswith("Sudite")]
        assert len(won) == 1
        winner, loser = won[0], ({"mira", "zoran"} - set(won)).pop()
        trial = await scene.a.db.trials.open_for_game(100)
        assert trial is not None
        assert trial.referee == (await scene.member(winner)).id
        assert outcome[winner] == t("take.ok", game=100, trial=trial.id)
        assert outcome[loser] in (
            t("take.taken", game=100, referee=winner),  # after the winner's write
            t("take.in_progress", game=100, referee=winner),
        )  # during it
        taken = t("call.notice_taken", game=100, caller="ana", referee=winner)
        for copy in (group_msg, pings["mira"], pings["zoran"]):
            assert copy.text == taken
            assert copy.keyboard == []

        # The trial: each party privately; the referee's controls under his message.
        opened = t("trial.opened_out_of_game", game=100, caller="ana", referee=winner)
        assert scene.last("ana").text == f"{opened}\n\n{t('telegram.trial_party')}"
        controls = next(m for m in fake.bot_messages(scene.u(winner)) if m.text.startswith(opened))
        assert controls.text == f"{opened}\n\n{t('telegram.trial_referee')}"
        assert controls.button_texts() == ["Prikaz ruke", "Suđenja", "Završi suđenje", "Napusti suđenje"]
        assert all(len(d.encode()) <= 64 for d in controls.callback_data())

        # The relay, both ways, with the sender's nickname; the transcript is kept.
        mark = fake.mark()
        fake.push_message(scene.u("ana"), scene.u("ana"), "Petar je namerno napustio partiju.")
        assert await scene.said(winner, since=mark) == ["ana: Petar je namerno napustio partiju."]
        mark = fake.mark()
        fake.push_message(scene.u(winner), scene.u(winner), "Kada tačno?")
        assert await scene.said("ana", since=mark) == [f"{winner}: Kada tačno?"]
        assert [m.text for m in await scene.a.db.trials.messages(trial.id)] == [
            "Petar je namerno napustio partiju.",
            "Kada tačno?",
        ]

        # Draft, replace, Završi suđenje (the button).
        mark = fake.mark()
        fake.push_message(scene.u(winner), scene.u(winner), "/presuda kazna petar plavac 2 -- namerno")
        [drafted] = await scene.said(winner, since=mark)
        assert drafted.startswith("Nacrt presude")
        assert "plavac 2" in drafted
        mark = fake.mark()
        fake.push_message(scene.u(winner), scene.u(winner), "/presuda kazna petar plavac 3 liga 2 -- namerno")
        [replaced] = await scene.said(winner, since=mark)
        assert "plavac 3" in replaced
        assert not any("Nacrt" in text for text in scene.texts("ana"))  # the draft is the referee's alone
        mark = fake.mark()
        finish = fake.push_press(scene.u(winner), controls, "Završi suđenje")
        assert await scene.pressed(winner, finish, t("finish.ok", game=100), since=mark) == t("finish.ok", game=100)
        assert controls.keyboard == []
        closed = await scene.a.db.trials.get(trial.id)
        assert closed is not None
        assert closed.outcome == "verdict"
        assert closed.verdict is not None
        assert closed.verdict["plavac_days"] == 3
        assert closed.verdict["league_points"] == 2
        assert scene.last("ana").text.startswith("Suđenje za partiju 100 je završeno.")
        assert scene.last("ana").text in scene.texts(winner)

        # /presude in the group: privately for Ana (no referee named), and her command is gone from the group;
        # Jelena, who never started the bot, gets one neutral line there and the answer when she starts it.
        mark = fake.mark()
        command = fake.push_command(scene.club, scene.u("ana"), "presude", "100")
        [listing] = await scene.said("ana", since=mark)
        assert listing.startswith("Suđenja u partiji 100:")
        assert "sudi sudija," in listing
        assert winner not in listing
        await fake.wait_for("deleteMessage", since=mark)
        assert command.deleted
        fake.push_command(scene.club, scene.u("jelena"), "presude", "100")
        [public] = await fake.wait_for("sendMessage", chat=scene.club, since=mark)
        shown = fake.message(scene.club, public.result["message_id"])
        assert shown.text == t("telegram.answer_waiting", nick="Jelena", link="https://t.me/sudija_test_bot")
        assert shown.entities[0]["user"]["id"] == scene.u("jelena").id
        assert "100" not in shown.text
        assert winner not in shown.text
        await fake.wait_for("deleteMessage", count=2, since=mark)
        assert [m.sender for m in fake.messages(scene.club)] == [fake.bot]  # no command, no call: one neutral line
        mark = fake.mark()
        fake.open_deep_link(scene.u("jelena"), "https://t.me/sudija_test_bot?start=x")
        got = await scene.said("jelena", count=2, since=mark)
        assert got[1].startswith("Suđenja u partiji 100:")
    assert all(r.ok for r in fake.calls() if r.method != "sendMessage" or r.params["chat_id"] != scene.u("jelena").id)
    assert not any("parse_mode" in r.params for r in fake.calls())


async def test_restart_between_call_and_press(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, call_id = await call_game(scene)
        zoran_copy = scene.last("zoran")
    await scene.a.close()  # the whole process goes down: new App, new desk, new Application, same DB and fake
    query = fake.push_press(scene.u("mira"), group_msg, "Sudi")  # pressed while the bot is down
    await scene.open()
    mark = fake.mark()
    async with scene.running():
        await fake.wait_for("sendMessage", chat=scene.u("ana"), since=mark)
        took = await scene.pressed("mira", query, lambda x: x.startswith("Sudite"), since=mark)
    trial = await scene.a.db.trials.open_for_game(100)
    assert trial is not None
    assert trial.call == call_id
    assert took == t("take.ok", game=100, trial=trial.id)
    taken = t("call.notice_taken", game=100, caller="ana", referee="mira")
    assert group_msg.text == taken
    assert zoran_copy.text == taken
    assert group_msg.keyboard == []
    assert zoran_copy.keyboard == []
    assert len([r for r in fake.calls("sendMessage") if r.params["chat_id"] == scene.referees.id]) == 1


async def test_forged_and_foreign_presses_are_refused(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    await scene.link("marko")
    await scene.game(200, ("jelena", "mira", "marko"))
    async with scene.running() as adapter:
        group_msg, call_id = await call_game(scene)
        other = await call_game(scene, 200, caller="marko")
        other_id = other[1]
        mark = fake.mark()
        presses = {
            "non_referee": fake.push_callback(scene.u("jelena"), group_msg, f"take:{call_id}"),
            # Mira played game 200: a Sudi on call 100's message carrying call 200's id is re-checked as such
            "other_call": fake.push_callback(scene.u("mira"), group_msg, f"take:{other_id}", forged=True),
            "no_such_call": fake.push_callback(scene.u("mira"), group_msg, "take:999", forged=True),
            "withdraw_not_his": fake.push_callback(scene.u("mira"), group_msg, f"withdraw:{call_id}", forged=True),
            "finish_no_trial": fake.push_callback(scene.u("zoran"), group_msg, "finish:1", forged=True),
            "garbage": fake.push_callback(scene.u("zoran"), group_msg, "take:1;DROP", forged=True),
            "unknown_action": fake.push_callback(scene.u("zoran"), group_msg, "grant:1", forged=True),
        }
        stranger = fake.user("Niko", started=True)
        scene.club.members[stranger.id] = "member"
        presses["unlinked"] = fake.push_callback(stranger, group_msg, f"take:{call_id}")
        await fake.wait_for("answerCallbackQuery", count=len(presses), since=mark)
        pressers = {
            "non_referee": "jelena",
            "other_call": "mira",
            "no_such_call": "mira",
            "withdraw_not_his": "mira",
            "finish_no_trial": "zoran",
            "garbage": "zoran",
            "unknown_action": "zoran",
        }
        scene.users["niko"] = stranger
        pressers["unlinked"] = "niko"
        expected = {
            "other_call": t("take.played", game=200),
            "no_such_call": t("take.unknown"),
            "withdraw_not_his": t("withdraw.not_yours"),
            "finish_no_trial": t("trial.not_your_trial"),
            "garbage": t("button.unknown"),
            "unknown_action": t("button.unknown"),
            "unlinked": t("link.needed"),
        }
        for name, wanted in expected.items():
            assert await scene.pressed(pressers[name], presses[name], wanted, since=mark), name
        # Jelena never started the bot: her refusal waits for her /start, and the referees' group, where she
        # pressed, gets one neutral line pointing her to the private chat
        assert fake.answer_of(presses["non_referee"])["text"] == t("telegram.pressed")  # type: ignore[index]
        await fake.wait_until(lambda: any(m.text.startswith("Jelena,") for m in fake.bot_messages(scene.referees)))
        assert [p.text for p in adapter.port.outbox[scene.u("jelena").id]] == [t("take.not_referee")]
    assert [c.id for c in await scene.a.db.calls.pending()] == [call_id, other_id]
    assert await scene.a.db.trials.open_trials() == []
    assert group_msg.callback_data() == [f"take:{call_id}"]  # untouched


async def test_party_who_never_started_the_bot_is_invited_and_gets_what_waited(scene: Scene) -> None:
    fake = scene.fake
    await scene.game(300, ("jelena", "marko", "petar"))
    async with scene.running():
        mark = fake.mark()
        fake.push_command(scene.club, scene.u("jelena"), "sudija", "300")
        [posted] = await fake.wait_for("sendMessage", chat=scene.referees, since=mark)
        # She cannot be written to: one neutral line in the group (no game, no call), the answer kept for later.
        [answer] = await fake.wait_for("sendMessage", chat=scene.club, since=mark)
        assert fake.message(scene.club, answer.result["message_id"]).text == t(
            "telegram.answer_waiting", nick="Jelena", link="https://t.me/sudija_test_bot"
        )
        mark = fake.mark()
        fake.push_press(scene.u("mira"), fake.message(scene.referees, posted.result["message_id"]), "Sudi")
        await fake.wait_for("answerCallbackQuery", since=mark)
        [invite] = await fake.wait_for("sendMessage", chat=scene.club, since=mark)
        trial = await scene.a.db.trials.open_for_game(300)
        assert trial is not None
        link = f"https://t.me/sudija_test_bot?start=sudjenje_{trial.id}"
        invitation = fake.message(scene.club, invite.result["message_id"])
        assert invitation.text == t("telegram.invite", nick="jelena", link=link)
        assert [(e["type"], e["user"]["id"]) for e in invitation.entities] == [("text_mention", scene.u("jelena").id)]
        assert "mira" not in invitation.text  # the club group never learns the referee's name
        mark = fake.mark()
        fake.push_message(scene.u("mira"), scene.u("mira"), "Jelena, opišite šta se desilo.")
        fake.push_message(scene.u("mira"), scene.u("mira"), "Čekam.")
        await fake.wait_for("sendMessage", where=lambda p: p["chat_id"] == scene.u("jelena").id, count=2, since=mark)
        assert fake.messages(scene.u("jelena")) == []
        assert [m.text for m in fake.bot_messages(scene.club)] == [
            t("telegram.answer_waiting", nick="Jelena", link="https://t.me/sudija_test_bot"),
            invitation.text,
        ]

        mark = fake.mark()
        fake.open_deep_link(scene.u("jelena"), link)
        got = await scene.said("jelena", count=5, since=mark)
        opened = t("trial.opened_out_of_game", game=300, caller="jelena", referee="mira")
        assert got == [
            t("telegram.welcome"),
            t("call.ok", game=300, minutes=5),
            f"{opened}\n\n{t('telegram.trial_party')}",
            "mira: Jelena, opišite šta se desilo.",
            "mira: Čekam.",
        ]
        mark = fake.mark()
        fake.push_message(scene.u("jelena"), scene.u("jelena"), "Marko je otišao usred ruke.")
        assert await scene.said("mira", since=mark) == ["jelena: Marko je otišao usred ruke."]


async def test_after_a_restart_a_late_party_gets_the_trial_from_the_database(scene: Scene) -> None:
    fake = scene.fake
    await scene.game(300, ("jelena", "marko", "petar"))
    async with scene.running():
        mark = fake.mark()
        fake.push_command(scene.club, scene.u("jelena"), "sudija", "300")
        [posted] = await fake.wait_for("sendMessage", chat=scene.referees, since=mark)
        fake.push_press(scene.u("zoran"), fake.message(scene.referees, posted.result["message_id"]), "Sudi")
        await fake.wait_for("answerCallbackQuery", since=mark)
        mark = fake.mark()
        fake.push_message(scene.u("zoran"), scene.u("zoran"), "Ima li koga?")
        await fake.wait_for("sendMessage", where=lambda p: p["chat_id"] == scene.u("jelena").id, since=mark)
    await scene.a.close()
    await scene.open()
    async with scene.running():
        mark = fake.mark()
        fake.open_deep_link(scene.u("jelena"), "https://t.me/sudija_test_bot?start=sudjenje_1")
        got = await scene.said("jelena", count=2, since=mark)
    assert got[1].split("\n") == [
        t("telegram.replay", game=300, caller="jelena"),
        "zoran: Ima li koga?",
        "",
        t("telegram.trial_party"),
    ]
    assert fake.bot_messages(scene.u("jelena"))[-1].keyboard == []  # controls are the referee's alone


async def test_leaving_the_club_group_ends_the_callers_trial(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("zoran"), group_msg, "Sudi")
        await scene.pressed("zoran", query, lambda x: x.startswith("Sudite"))
        controls = next(m for m in fake.bot_messages(scene.u("zoran")) if m.keyboard)
        assert controls.keyboard != []
        mark = fake.mark()
        fake.push_chat_member(scene.referees, scene.u("mira"), "member", "left")  # not the club group: nothing
        fake.push_chat_member(scene.club, scene.u("ana"), "member", "left")
        [ended] = await scene.said("zoran", since=mark)
    trial = await scene.a.db.trials.get(1)
    assert trial is not None
    assert trial.outcome == "interrupted"
    assert trial.end_reason == "caller_left"
    assert ended == t("trial.interrupted", game=100, why=t("end.caller_left"))
    assert controls.keyboard == []
    assert not (await scene.member("ana")).in_club
    assert (await scene.member("mira")).in_club


async def test_an_unanswered_call_expires_on_the_manual_clock(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        mark = fake.mark()
        scene.clock.advance(timedelta(minutes=5))
        await scene.a.desk.run_due()  # what the scheduler does at the deadline
        expired = t("call.notice_expired", game=100, caller="ana")
        assert group_msg.text == expired
        assert group_msg.keyboard == []
        assert scene.last("mira").text == expired
        assert scene.last("zoran").text == expired
        assert scene.last("ana").text == t("call.expired", game=100, minutes=5)
        assert [r.ok for r in fake.calls("editMessageText")[0:]] == [True, True, True]
        assert fake.mark() > mark


async def test_withdraw_duty_and_the_command_menus(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        confirmation = scene.last("ana")
        mark = fake.mark()
        query = fake.push_press(scene.u("ana"), confirmation, "Povuci poziv")
        await scene.pressed("ana", query, t("withdraw.ok", game=100), since=mark)
        assert group_msg.text == t("call.notice_withdrawn", game=100, caller="ana")
        assert confirmation.keyboard == []
        mark = fake.mark()
        fake.push_message(scene.u("mira"), scene.u("mira"), "/dezurstvo ne")
        assert await scene.said("mira", since=mark) == [t("duty.off")]
        assert not (await scene.member("mira")).on_duty
        mark = fake.mark()
        typed = fake.push_command(scene.club, scene.u("mira"), "zavrsi")  # a trial control typed in the group
        assert await scene.said("mira", since=mark) == [t("command.private_only")]  # the core's answer, as everywhere
        await fake.wait_for("deleteMessage", since=mark)
        assert typed.deleted
        assert fake.bot_messages(scene.club) == []
        mark = fake.mark()
        fake.push_message(scene.u("ana"), scene.u("ana"), "Ima li nekog?")  # no trial: nothing to relay
        assert await scene.said("ana", since=mark) == [t("telegram.not_in_trial")]
    for language in ("sr", "en", ""):
        assert [c["command"] for c in fake.commands_for(language_code=language)] == list(PRIVATE_COMMANDS)
        group = fake.commands_for(language_code=language, scope={"type": "all_group_chats"})
        assert [c["command"] for c in group] == list(GROUP_COMMANDS)
    assert fake.commands_for(language_code="en")[0]["description"].startswith("Call a referee")
    assert fake.commands_for(language_code="sr")[0]["description"].startswith("Pozovi sudiju")
    assert "chat_member" in fake.allowed_updates


async def test_typed_text_is_never_formatted_and_never_pings_in_a_group(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        await scene.pressed("mira", query, lambda x: x.startswith("Sudite"))
        typed = "<b>@zoran</b> & *pogledaj* _ovo_ [x](https://t.me) @all"
        mark = fake.mark()
        fake.push_message(scene.u("ana"), scene.u("ana"), typed)
        assert await scene.said("mira", since=mark) == [f"ana: {typed}"]
        assert scene.last("mira").entities == []
        mark = fake.mark()
        fake.push_message(scene.u("mira"), scene.u("mira"), "/presuda niko -- pitati @zoran <i>ponovo</i>")
        await scene.said("mira", since=mark)
        controls = next(m for m in fake.bot_messages(scene.u("mira")) if m.keyboard)
        fake.push_press(scene.u("mira"), controls, "Završi suđenje")
        await fake.wait_for("answerCallbackQuery", count=2)
        await scene.got("mira", t("finish.ok", game=100))
        mark = fake.mark()
        fake.push_command(scene.club, scene.u("jelena"), "presude", "100")  # she never started: a neutral line
        [public] = await fake.wait_for("sendMessage", chat=scene.club, since=mark)
        mark = fake.mark()
        fake.push_command(scene.u("ana"), scene.u("ana"), "presude", "100")
        [listing] = await scene.said("ana", since=mark)
    shown = fake.message(scene.club, public.result["message_id"])
    assert "zoran" not in shown.text
    assert [e["type"] for e in shown.entities] == ["text_mention"]
    assert "pitati @zoran <i>ponovo</i>" in listing
    assert scene.last("ana").entities == []
    assert not any("parse_mode" in r.params for r in fake.calls())


async def test_long_answers_to_a_press_go_privately(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        await scene.pressed("mira", query, lambda x: x.startswith("Sudite"))
        controls = next(m for m in fake.bot_messages(scene.u("mira")) if m.keyboard)
        mark = fake.mark()
        query = fake.push_press(scene.u("mira"), controls, "Prikaz ruke")
        hands = await scene.pressed("mira", query, lambda x: x.startswith("Partija 100"), since=mark)
    assert len(hands) > 200


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_flood_control_is_waited_out_and_the_relay_goes_on(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running() as adapter:
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        await scene.pressed("mira", query, lambda x: x.startswith("Sudite"))
        mark = fake.mark()
        fake.fail_next("sendMessage", 429, "Too Many Requests: retry after 3", retry_after=3)
        fake.push_message(scene.u("ana"), scene.u("ana"), "Jesi li tu?")
        assert await scene.said("mira", since=mark) == ["ana: Jesi li tu?"]
    assert [(r.ok, r.error_code) for r in fake.calls("sendMessage")[-2:]] == [(False, 429), (True, None)]
    assert scene.waits == [3.1]  # the rate limiter waited as Telegram asked (on the test's clock)
    assert adapter.rate_limiter.floods == 1


async def test_a_failed_poll_is_said_and_asked_again_and_a_refused_token_ends_the_polling(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot's own long poll (bot/telegram/polling.py) on Telegram's failures: a 409 (another process polls
    with the token) is logged and the poll asked again after a pause (on the test's clock, never slept for
    real); a token Telegram refuses ends the polling, said once."""
    fake, ana = scene.fake, scene.u("ana")
    conflict = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
    async with scene.running() as adapter:
        await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
        fake.fail_next("getUpdates", 409, conflict)
        mark = fake.mark()
        fake.push_command(ana, ana, "nepostojeca")  # ends the poll under way; the call after it fails
        await fake.wait_for("sendMessage", chat=ana, since=mark)
        await fake.wait_until(lambda: any(r.error_code == 409 for r in fake.calls("getUpdates")))
        [conflicted] = [r for r in fake.calls("getUpdates") if r.error_code == 409]
        await fake.wait_until(lambda: fake.calls("getUpdates")[-1].index > conflicted.index)  # asked again
        assert scene.waits == [1.0]
        assert f"Telegram: getUpdates failed ({conflict}): polling again in 1.0 s" in caplog.text
        assert adapter.poller.polling
        fake.fail_next("getUpdates", 401, "Unauthorized")
        fake.push_command(ana, ana, "nepostojeca")
        assert adapter.poller.task is not None
        await asyncio.wait_for(asyncio.shield(adapter.poller.task), 10)
        assert not adapter.poller.polling
        assert caplog.text.count("Telegram: the token was refused") == 1


async def test_run_telegram_is_the_whole_wiring_and_stops_when_cancelled(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    task = asyncio.create_task(run_telegram(scene.a))
    await fake.wait_until(lambda: bool(fake.calls("getUpdates")))
    group_msg, _ = await call_game(scene)  # the port was attached: the call reached the referees' group
    assert group_msg.callback_data()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not fake.unconfirmed()
    assert not fake.conflicts()
    with pytest.raises(ConfigError, match="NO_SUCH_TOKEN_VARIABLE"):
        TelegramAdapter(scene.a.desk, TelegramConfig(token_env="NO_SUCH_TOKEN_VARIABLE"))


async def test_a_referee_who_never_started_the_bot_gets_his_controls_when_he_does(scene: Scene) -> None:
    fake = scene.fake
    vuk = fake.user("Vuk")  # a referee in both groups who never pressed Start
    scene.users["vuk"] = vuk
    scene.club.members[vuk.id] = scene.referees.members[vuk.id] = "member"
    await scene.link("ana")
    await scene.link("vuk", "referee")
    async with scene.running() as adapter:
        group_msg, _ = await call_game(scene)
        assert [e["user"]["id"] for e in group_msg.entities] == [scene.u(n).id for n in ("mira", "vuk", "zoran")]
        mark = fake.mark()
        query = fake.push_press(vuk, group_msg, "Sudi")
        await fake.wait_for("answerCallbackQuery", since=mark)
        assert fake.answer_of(query) == {"callback_query_id": query, "text": t("telegram.pressed")}
        await fake.wait_until(lambda: vuk.id in adapter.port.outbox and len(adapter.port.outbox[vuk.id]) == 2)
        trial = await scene.a.db.trials.open_for_game(100)
        assert trial is not None
        link = f"https://t.me/sudija_test_bot?start=sudjenje_{trial.id}"
        invitation = fake.bot_messages(scene.referees)[-1]  # one line: the invitation (no second hint)
        assert invitation.text == t("telegram.invite", nick="vuk", link=link)
        assert not any(link in m.text for m in fake.bot_messages(scene.club))  # referees are invited among referees
        mark = fake.mark()
        fake.push_message(scene.u("ana"), scene.u("ana"), "Dobar dan.")
        await fake.wait_for("sendMessage", where=lambda p: p["chat_id"] == vuk.id, since=mark)
        mark = fake.mark()
        fake.open_deep_link(vuk, link)
        got = await scene.said("vuk", count=4, since=mark)
        assert got[1].startswith(t("trial.opened_out_of_game", game=100, caller="ana", referee="vuk"))
        assert got[2] == t("take.ok", game=100, trial=trial.id)
        assert got[3] == "ana: Dobar dan."
        controls = fake.bot_messages(vuk)[1]
        assert controls.button_texts() == ["Prikaz ruke", "Suđenja", "Završi suđenje", "Napusti suđenje"]
        mark = fake.mark()
        query = fake.push_press(vuk, controls, "Napusti suđenje")
        await scene.pressed("vuk", query, lambda x: True, since=mark)
        await fake.wait_until(lambda: controls.keyboard == [])
    ended = await scene.a.db.trials.get(trial.id)
    assert ended is not None
    assert ended.outcome == "interrupted"
    assert ended.end_reason == "referee_left"


# Telegram as strict as it is: the answer deadline, late presses, flood control, rights, 24 hours --------------


async def test_a_press_is_answered_before_the_work_so_slow_work_misses_no_deadline(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    desk = scene.a.desk
    real_press = desk.press

    async def slow_press(*args: object) -> object:
        scene.fake_now += 20  # the work outlasts Telegram's answer deadline (15 s)
        return await real_press(*args)  # type: ignore[arg-type]

    async with scene.running():
        group_msg, _ = await call_game(scene)
        desk.press = slow_press  # type: ignore[method-assign]
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        took = await scene.pressed("mira", query, lambda x: x.startswith("Sudite"))
    assert took.startswith("Sudite u partiji 100")
    assert not fake.callback_queries[query].late


async def test_a_client_that_answers_after_the_work_misses_the_deadline(fake: FakeTelegram) -> None:
    """The deliberately wrong client: it answers the press only after 20 s of work — Telegram refuses it."""
    now = [NOW.timestamp()]
    fake.clock = lambda: now[0]
    ana = fake.user("Ana", started=True)
    failures: list[str] = []

    async def on_press(update: Update, context: object) -> None:
        assert update.callback_query is not None
        now[0] += 20
        try:
            await update.callback_query.answer("gotovo")
        except BadRequest as refused:
            failures.append(refused.message)

    application = fake.application_builder().build()
    application.add_handler(CallbackQueryHandler(on_press))
    message = fake._store(
        fake.private_chat(ana),
        fake.bot,
        "x",
        reply_markup={"inline_keyboard": [[{"text": "Sudi", "callback_data": "take:1"}]]},
    )
    async with running(application):
        query = fake.push_callback(ana, message, "take:1")
        await fake.wait_for("answerCallbackQuery")
    assert fake.callback_queries[query].late
    assert failures
    assert "too old" in failures[0]


async def test_a_press_too_old_for_telegram_is_still_answered_by_a_message(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
    query = fake.push_press(scene.u("mira"), group_msg, "Sudi")  # pressed while the bot is down
    scene.fake_now += 60
    async with scene.running():
        await fake.wait_for("answerCallbackQuery")
        took = await scene.got("mira", lambda x: x.startswith("Sudite"))
    assert fake.callback_queries[query].late  # Telegram refused the answer: the message is the answer
    assert took.text.startswith("Sudite u partiji 100")


async def test_a_press_older_than_a_day_never_arrives(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
    fake.push_press(scene.u("mira"), group_msg, "Sudi")
    scene.fake_now += 25 * 3600  # the bot was down for more than a day: Telegram dropped the press
    scene.clock.advance(timedelta(hours=25))
    async with scene.running():
        await fake.wait_until(lambda: len(fake.dropped_updates) == 1)
    assert "callback_query" in fake.dropped_updates[0]
    assert fake.calls("answerCallbackQuery") == []
    assert group_msg.text == t("call.notice_expired", game=100, caller="ana")
    assert group_msg.keyboard == []


async def test_without_the_right_to_delete_the_command_stays_and_the_answer_is_private(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    scene.club.can_delete = False
    async with scene.running():
        mark = fake.mark()
        command = fake.push_command(scene.club, scene.u("ana"), "sudija", "100")
        await scene.got("ana", t("call.ok", game=100, minutes=5), since=mark)
        [refused] = await fake.wait_for("deleteMessage", since=mark)
    assert refused.ok is False
    assert not command.deleted
    assert fake.bot_messages(scene.club) == []


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_flood_storm_leaves_every_call_message_as_the_database_says_and_every_press_answered(
    scene: Scene,
) -> None:
    fake = scene.fake
    await scene.link("ana")
    await scene.link("marko")
    await scene.game(200, ("jelena", "petar", "marko"))
    async with scene.running() as adapter:
        first, first_id = await call_game(scene)
        second, second_id = await call_game(scene, 200, caller="marko")
        pings = {nick: [m for m in fake.bot_messages(scene.u(nick)) if m.callback_data()] for nick in ("mira", "zoran")}
        mark = fake.mark()
        # Telegram answers 429 to every call but the polling for 30 s (on the fake's clock); python-telegram-bot's
        # updater waits out a 429 on getUpdates by itself, in real time, so the storm spares it here
        fake.flood(30, retry_after=5, spare=["getUpdates"])
        presses = [
            ("mira", fake.push_press(scene.u("mira"), first, "Sudi")),
            ("zoran", fake.push_press(scene.u("zoran"), pings["zoran"][0], "Sudi")),
            ("zoran", fake.push_press(scene.u("zoran"), second, "Sudi")),
            ("ana", fake.push_press(scene.u("ana"), first, "Sudi")),
        ]
        for _nick, query in presses:
            await fake.wait_until(
                lambda q=query: (
                    fake.callback_queries[q].answer is not None  # type: ignore[misc]
                    or fake.callback_queries[q].late
                ),
                timeout=20,
            )
        outcomes = ("Sudite", "Poziv za partiju", "Samo sudije")

        def results(nick: str) -> list[str]:
            return [
                fake.message(scene.u(nick), r.result["message_id"]).text
                for r in fake.calls("sendMessage")
                if r.ok
                and r.index >= mark
                and r.params["chat_id"] == scene.u(nick).id
                and r.params["text"].startswith(outcomes)
            ]

        # every press answered: each presser got his outcome privately, also those Telegram refused to answer
        await fake.wait_until(lambda: [len(results(n)) for n in ("mira", "zoran", "ana")] == [1, 2, 1], timeout=20)
        await fake.wait_until(
            lambda: all(m.keyboard == [] for m in (first, second, *pings["mira"], *pings["zoran"])), timeout=20
        )
    assert adapter.rate_limiter.floods > 0
    assert sum(scene.waits) >= 30
    for call_id, message in ((first_id, first), (second_id, second)):
        call = await scene.a.db.calls.get(call_id)
        assert call is not None
        assert call.state == "taken"
        trial = await scene.a.db.trials.open_for_game(call.game)
        assert trial is not None
        referee = await scene.a.db.members.get(trial.referee)
        assert referee is not None
        caller = "ana" if call.game == 100 else "marko"
        assert message.text == t("call.notice_taken", game=call.game, caller=caller, referee=referee.nick)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's own RetryAfter
async def test_a_client_without_the_rate_limiter_fails_in_a_flood(fake: FakeTelegram) -> None:
    """The deliberately wrong client: no rate limiter, so a 429 is an error, not a wait."""
    now = [NOW.timestamp()]
    fake.clock = lambda: now[0]
    ana = fake.user("Ana", started=True)
    application = fake.application_builder().build()
    async with application:
        fake.flood(30, retry_after=5)
        with pytest.raises(RetryAfter):
            await application.bot.send_message(ana.id, "zdravo")


async def test_the_referees_controls_are_removed_at_the_end_also_after_a_restart(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running():
        group_msg, _ = await call_game(scene)
        query = fake.push_press(scene.u("mira"), group_msg, "Sudi")
        await scene.pressed("mira", query, lambda x: x.startswith("Sudite"))
        controls = next(m for m in fake.bot_messages(scene.u("mira")) if m.keyboard)
    await scene.a.close()  # the process goes down mid-trial: nothing of the trial lives in memory now
    await scene.open()
    async with scene.running():
        mark = fake.mark()
        fake.push_message(scene.u("mira"), scene.u("mira"), "/napusti")
        await scene.said("mira", since=mark)
        await fake.wait_until(lambda: controls.keyboard == [])
    trial = await scene.a.db.trials.get(1)
    assert trial is not None
    assert trial.outcome == "interrupted"


async def test_a_call_naming_more_referees_than_one_message_holds_pings_every_one(scene: Scene) -> None:
    from bot.ports import Button, CallPost  # noqa: PLC0415 (imported where the test needs it)
    from rules.members import Member as Person  # noqa: PLC0415 (imported where the test needs it)

    fake = scene.fake
    people = [fake.user(f"Sudija{i:03d}") for i in range(300)]
    referees = [
        Person(
            i + 1000,
            f"sudija_sa_dugim_imenom_{i:03d}",
            frozenset({"referee"}),
            True,
            True,
            True,
            None,
            None,
            frozenset({f"telegram:{u.id}"}),
        )
        for i, u in enumerate(people)
    ]
    async with scene.running() as adapter:
        mark = fake.mark()
        notices = await adapter.port.post_call(
            CallPost("call:1", "Pozvan je sudija za partiju 100.", tuple(referees), (Button("Sudi", "take", 1),))
        )
    posted = [
        fake.message(scene.referees, r.result["message_id"])
        for r in fake.calls("sendMessage")
        if r.index >= mark and r.ok and r.params["chat_id"] == scene.referees.id
    ]
    assert len(posted) > 2
    assert posted[0].callback_data() == ["take:1"]
    assert [n.message for n in notices if n.place == str(scene.referees.id)] == [str(posted[0].message_id)]
    pinged = [e["user"]["id"] for m in posted for e in m.entities if e["type"] == "text_mention"]
    assert pinged == [u.id for u in people]  # every one, once, in order
    for message in posted[1:]:
        for entity in message.entities:
            assert message.text[entity["offset"] : entity["offset"] + entity["length"]].startswith("sudija_sa")


async def test_a_presser_who_blocked_the_bot_gets_one_neutral_line_and_the_answer_on_start(scene: Scene) -> None:
    fake = scene.fake
    await scene.link("ana")
    async with scene.running() as adapter:
        group_msg, _ = await call_game(scene)
        fake.block(scene.u("zoran"))  # Telegram now answers 403 "bot was blocked by the user"
        mark = fake.mark()
        query = fake.push_press(scene.u("zoran"), group_msg, "Sudi")
        await fake.wait_for("answerCallbackQuery", since=mark)
        zoran = scene.u("zoran").id
        await fake.wait_until(lambda: len(adapter.port.outbox.get(zoran, [])) >= 2)  # the trial, and the answer
        refused = [r for r in fake.calls("sendMessage") if r.index >= mark and r.params["chat_id"] == zoran]
        assert refused
        assert all(r.description == "Forbidden: bot was blocked by the user" for r in refused)
        lines = [
            fake.message(scene.referees, r.result["message_id"])
            for r in fake.calls("sendMessage")
            if r.index >= mark and r.ok and r.params["chat_id"] == scene.referees.id
        ]
        assert len(lines) == 1
        assert lines[0].entities[0]["user"]["id"] == zoran
        assert "100" not in lines[0].text
        assert fake.answer_of(query) == {
            "callback_query_id": query,
            "text": t("telegram.pressed"),
        }
        mark = fake.mark()
        fake.open_deep_link(scene.u("zoran"), "https://t.me/sudija_test_bot?start=x")  # unblocks, starts
        got = await scene.said("zoran", count=2, since=mark)
    trial = await scene.a.db.trials.open_for_game(100)
    assert trial is not None
    assert t("take.ok", game=100, trial=trial.id) in got or any(x.startswith("Suđenje za partiju 100") for x in got)


def notice_of(fake: FakeTelegram, group: FakeChat) -> StoredMessage | None:
    """The bot's notice in `group` with the Preuzmi button of appeal 1, if there is one."""
    return next((m for m in fake.bot_messages(group) if "appeal_take:1" in m.callback_data()), None)


async def test_a_report_sent_as_a_document_with_its_command_as_the_caption_keeps_the_file(scene: Scene) -> None:
    """Issue 35, item 4 on Telegram: the table's chat is a document whose caption is `/prijava …`; the bot
    downloads it (getFile, then the file) and the report keeps it; a file over the club's limit is not downloaded
    and the member is told the limit. The councilor who takes the report gets the file with his answer."""
    await scene.link("ana")
    mira = await scene.member("mira")
    await scene.a.db.members.set_role(mira.id, "councilor", True, None, scene.clock.now())
    kinds = (AppealKind("apelacija", 30, "", attachment=True),)
    scene.a.desk.config = replace(scene.a.config, appeals=AppealRules(kinds=kinds, reports=True, attachment_max_kb=1))
    fake = scene.fake
    async with scene.running():
        too_big = fake.push_document(scene.u("ana"), scene.u("ana"), "/prijava 100 -- miser", "chat.png", b"x" * 2048)
        assert too_big.document is not None
        await scene.got("ana", t("report.attachment_size", name="chat.png", kb=1))
        assert fake.downloads == []
        chat = b"\x89PNG the table's chat"
        caption = "/prijava 100 apelacija -- pustio miser"
        fake.push_document(scene.u("ana"), scene.u("ana"), caption, "chat.png", chat, "image/png")
        await scene.got("ana", lambda text: text.startswith("Prijava #1 za partiju 100 (apelacija) je predata"))
        # The committee is shown it: the councilor's Preuzmi is answered privately with the table's chat attached.
        await fake.wait_until(lambda: notice_of(fake, scene.referees) is not None)
        notice = notice_of(fake, scene.referees)
        assert notice is not None
        mark = fake.mark()
        press = fake.push_callback(scene.u("mira"), notice, "appeal_take:1")
        taken = await scene.pressed("mira", press, lambda text: text.startswith("Preuzeli ste prijavu #1"), mark)
        assert "Prilozi" in taken
        [sent] = await fake.wait_for("sendDocument", where=lambda p: p["chat_id"] == scene.u("mira").id, since=mark)
        shown = fake.message(scene.u("mira"), sent.result["message_id"])
        assert shown.document is not None
        assert shown.document["file_name"] == "chat.png"
        assert fake.files[shown.document["file_id"]] == chat
    [report] = await scene.a.db.appeals.reports_of_game(100)
    [stored] = await scene.a.db.appeals.files(report.id)
    assert (stored.name, stored.content_type, stored.data) == ("chat.png", "image/png", chat)
    assert len(fake.downloads) == 1
