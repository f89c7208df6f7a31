"""Proven identity at the desk (`bot.desk.links`): /nadimak only asks; a one-time code from the game server or a
moderator's approval proves; the owner is configuration; acts in /akti; unlinking; membership and presence as the
union over platforms; a leaving member's trials end, every one of them."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.commands import Commands
from bot.config import Config, ConfigError, check_owner, from_dict
from bot.desk import Desk
from bot.desk.links import CODE_MINUTES, LOCK_TIME, WRONG_CODES
from bot.desk.refused import Refused
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers, Reply
from club import NOW, Club
from fakes.chat import RecordingChat
from storage.database import open_database

ROOT = Path(__file__).resolve().parent.parent


class CodeServer(LoggingGameServer):
    """A game server that delivers link codes: the test reads what the player would see in the game."""

    delivers_link_codes = True

    def __init__(self) -> None:
        super().__init__()
        self.codes: list[tuple[str, str]] = []

    async def deliver_link_code(self, nick: str, code: str) -> None:
        self.codes.append((nick, code))

    def last_code(self, nick: str) -> str:
        return next(c for n, c in reversed(self.codes) if n == nick)


async def make(tmp_path: Path, server: LoggingGameServer, **settings: object) -> Club:
    config = Config(owner="vesna", owner_accounts=("telegram:9000",), **settings)  # type: ignore[arg-type]
    db = await open_database(tmp_path / "club.db")
    chat = RecordingChat()
    clock = ManualClock(NOW)
    desk = Desk(db, Chats([chat]), server, clock, config, ManualTimers())
    await desk.start()
    club = Club(db, desk, chat, clock, ManualTimers(), server, config)
    await club.member("ana", "referee")
    await club.member("marko")
    await club.member("mod", "moderator")
    return club


@pytest.fixture
async def coded(tmp_path: Path) -> AsyncIterator[tuple[Club, CodeServer]]:
    server = CodeServer()
    club = await make(tmp_path, server)
    yield club, server
    await club.db.close()


@pytest.fixture
async def plain(tmp_path: Path) -> AsyncIterator[Club]:
    club = await make(tmp_path, LoggingGameServer())
    yield club
    await club.db.close()


def dump(club: Club) -> str:
    with sqlite3.connect(club.db.path) as conn:
        return "\n".join(conn.iterdump())


async def test_the_owner_is_linked_by_the_configuration_and_nobody_asks_for_his_nickname(plain: Club) -> None:
    desk = plain.desk
    owner = await desk.member_for("telegram", "9000")
    assert owner is not None
    assert owner.nick == "vesna"
    assert desk.lookups.is_owner(owner)
    before = dump(plain)
    for platform, account in (("telegram", "666"), ("discord", "667")):
        reply = await desk.links.ask_link(platform, account, "Vesna", "Vesna")
        assert not reply.ok
        assert "owner_accounts" in reply.text
        assert "Ništa nije sačuvano" in reply.text
    assert dump(plain) == before  # nothing stored
    # the owner's nickname on a platform without his account: no owner powers, even if an admin links it
    impostor = await plain.db.members.link("console", "vesna2", "vesna", NOW)
    assert impostor.nick == "vesna"
    assert not desk.lookups.is_owner(replace(impostor, accounts=frozenset({"console:vesna2"})))
    mod = await plain.get("mod")
    assert not (await desk.links.unlink(mod, "vesna")).ok  # the configuration's link stays
    # the configuration names another account: at the next start the old one no longer speaks for the owner
    desk.config = replace(desk.config, owner_accounts=("discord:9001",))
    await desk.start()
    assert await desk.member_for("telegram", "9000") is None
    assert await desk.member_for("console", "vesna2") is None
    owner = await desk.member_for("discord", "9001")
    assert owner is not None
    assert desk.lookups.is_owner(owner)
    assert owner.accounts == {"discord:9001"}


async def test_a_stranger_asking_for_a_referee_or_a_player_gets_only_a_pending_request(plain: Club) -> None:
    desk = plain.desk
    for nick in ("ana", "marko"):
        account = f"stranger-{nick}"
        asked = await desk.links.ask_link("telegram", account, "Stranger", nick)
        assert asked.ok
        assert "čeka odobrenje moderatora" in asked.text
        refused = await desk.actor("telegram", account)
        assert isinstance(refused, Reply)
        assert not refused.ok
        assert "nije dokazan" in refused.text
        assert await desk.member_for("telegram", account) is None
    assert (await plain.get("ana")).roles == {"referee"}
    assert (await plain.get("ana")).accounts == {"test:ana"}
    # the moderator is told, with the buttons
    told = [s for s in plain.chat.sent if s.where == "dm:mod"]
    assert len(told) == 2
    assert [b.action for b in told[0].buttons] == ["link_approve", "link_deny"]
    # a code is not offered without a game server
    code = await desk.links.ask_link("telegram", "stranger-ana", "Stranger", "ana", "123456")
    assert not code.ok
    assert "nema vezu sa igračkim serverom" in code.text


async def test_the_code_path_wrong_expired_reused_another_accounts_and_the_lockout(
    coded: tuple[Club, CodeServer],
) -> None:
    club, server = coded
    desk = club.desk
    sent = await desk.links.ask_link("discord", "111", "Jovan", "jovan")
    assert sent.ok
    assert "kod" in sent.text
    assert server.codes[-1][0] == "jovan"
    code = server.last_code("jovan")
    with sqlite3.connect(club.db.path) as conn:  # stored hashed, never as typed
        assert code not in dump(club)
        assert conn.execute("SELECT code_hash FROM link_requests").fetchone()[0]
    again = await desk.links.ask_link("discord", "111", "Jovan", "jovan")
    assert again.ok
    assert "već poslat" in again.text
    assert len(server.codes) == 1
    # another account's code: the code is bound to the asking account
    await desk.links.ask_link("discord", "222", "Other", "jovan")
    other = await desk.links.ask_link("discord", "222", "Other", "jovan", code)
    assert not other.ok
    assert "nije ispravan" in other.text
    # wrong, then expired
    wrong = "000000" if code != "000000" else "111111"
    assert "Preostalo pokušaja: 4" in (await desk.links.ask_link("discord", "111", "Jovan", "jovan", wrong)).text
    club.clock.advance(timedelta(minutes=CODE_MINUTES, seconds=1))
    expired = await desk.links.ask_link("discord", "111", "Jovan", "jovan", code)
    assert not expired.ok
    assert "istekao" in expired.text
    assert await desk.member_for("discord", "111") is None
    # a fresh code proves it; the same code a second time is no proof any more
    await desk.links.ask_link("discord", "111", "Jovan", "jovan")
    fresh = server.last_code("jovan")
    told = [x for x in club.chat.sent if x.where == "dm:mod" and "jovan" in x.text]
    assert len(told) == 2  # one per request (accounts 111 and 222), not one per code
    proven = await desk.links.ask_link("discord", "111", "Jovan", "jovan", fresh)
    assert proven.ok
    assert proven.text == "Nalog je povezan sa nadimkom jovan."
    jovan = await desk.member_for("discord", "111")
    assert jovan is not None
    assert jovan.accounts == {"discord:111"}
    reused = await desk.links.ask_link("discord", "222", "Other", "jovan", fresh)
    assert not reused.ok
    assert "već povezan sa drugim nalogom" in reused.text
    # lockout: five wrong codes lock the account's tries for an hour, even the right code
    await desk.links.ask_link("telegram", "333", "Mira", "mira")
    right = server.last_code("mira")
    bad = "999999" if right != "999999" else "888888"
    for _ in range(WRONG_CODES - 1):
        assert "nije ispravan" in (await desk.links.ask_link("telegram", "333", "Mira", "mira", bad)).text
    locked = await desk.links.ask_link("telegram", "333", "Mira", "mira", bad)
    assert not locked.ok
    assert "Previše pogrešnih kodova" in locked.text
    assert "Previše pogrešnih" in (await desk.links.ask_link("telegram", "333", "Mira", "mira", right)).text
    assert "Previše pogrešnih" in (await desk.links.ask_link("telegram", "333", "Mira", "mira")).text
    club.clock.advance(LOCK_TIME + timedelta(seconds=1))
    await desk.links.ask_link("telegram", "333", "Mira", "mira")
    assert (await desk.links.ask_link("telegram", "333", "Mira", "mira", server.last_code("mira"))).ok
    # every proof is an act
    acts = await desk.governance.acts(await club.get("mod"))
    assert "jovan (discord): nalog je povezan (odluka: jovan), kodom iz igre" in acts.text
    assert "mira (telegram): nalog je povezan (odluka: mira), kodom iz igre" in acts.text


async def test_approval_denial_relinking_and_the_acts(plain: Club) -> None:
    desk, commands = plain.desk, Commands(plain.desk)
    mod, marko = await plain.get("mod"), await plain.get("marko")
    await desk.links.ask_link("discord", "500", "Jelena J.\u202e", "jelena")
    await desk.links.ask_link("discord", "501", "Impostor", "jelena")
    listing = await commands.handle(mod, "/povezi")
    assert listing is not None
    assert listing.ok
    assert "jelena — discord nalog 500 (Jelena J.\ufffd)" in listing.text
    assert [b.action for b in listing.buttons] == ["link_approve", "link_deny"] * 2
    refused = await commands.handle(marko, "/povezi")  # a player does not approve
    assert refused is not None
    assert not refused.ok
    several = await commands.handle(mod, "/povezi jelena odobri")
    assert several is not None
    assert not several.ok
    assert "#" in several.text
    first, second = (await plain.db.links.pending())[:2]
    assert (await desk.press(marko, "link_approve", first.id)).ok is False  # the button re-checks the presser
    assert (await desk.press(mod, "link_deny", second.id)).ok
    approved = await desk.press(mod, "link_approve", first.id)
    assert approved.ok
    assert approved.text == "Odobreno: nalog igrača jelena je povezan na platformi discord."
    assert not (await desk.press(mod, "link_approve", first.id)).ok  # used
    jelena = await desk.member_for("discord", "500")
    assert jelena is not None
    assert jelena.nick == "jelena"
    # one nickname per account: another nickname needs the unlink first, then the same proof
    relink = await desk.links.ask_link("discord", "500", "Jelena", "marko")
    assert not relink.ok
    assert "/odvezi" in relink.text
    unlinked = await commands.handle(mod, "/odvezi jelena discord -- zamena naloga")
    assert unlinked is not None
    assert unlinked.ok
    assert await desk.member_for("discord", "500") is None
    assert (await desk.links.ask_link("discord", "500", "Jelena", "marko")).text.startswith("Zahtev za nadimak marko")
    acts = (await commands.handle(mod, "/akti")).text  # type: ignore[union-attr]
    assert "jelena (discord): nalog je odvezan (odluka: mod). Razlog: zamena naloga" in acts
    assert "jelena (discord): nalog je povezan (odluka: mod), odobrenjem" in acts
    assert "jelena (discord): zahtev je odbijen (odluka: mod)" in acts
    for line in ("/odvezi", "/odvezi jelena mars", "/povezi jelena mozda", "/odvezi ana\u200b"):
        reply = await commands.handle(mod, line)
        assert reply is not None, line
        assert not reply.ok, line
    assert "U+200B" in (await commands.handle(mod, "/odvezi ana\u200b")).text  # type: ignore[union-attr]


async def test_presence_and_membership_are_the_union_over_platforms(plain: Club) -> None:
    desk = plain.desk
    zoran = await plain.db.members.link("discord", "700", "zoran", NOW)
    zoran = await plain.db.members.link("telegram", "701", "zoran", NOW)
    await desk.presence(zoran, True, "telegram")
    await desk.presence(zoran, False, "discord")
    assert (await plain.get("zoran")).online  # online on one of them
    await desk.presence(zoran, False, "telegram")
    assert not (await plain.get("zoran")).online
    await desk.trials.member_left_club(zoran, "discord")
    assert (await plain.get("zoran")).in_club  # still in the Telegram group
    await desk.trials.member_left_club(zoran, "telegram")
    gone = await plain.get("zoran")
    assert not gone.in_club
    commands = Commands(desk)
    for line in ("/sudija 100", "/prihvatam", "/dezurstvo"):
        reply = await commands.handle(gone, line)
        assert reply is not None, line
        assert not reply.ok, line
        assert "niste više član kluba" in reply.text.casefold(), line
    assert not (await desk.press(gone, "take", 1)).ok
    assert await desk.actor("telegram", "701") == desk.voice.refuse("member.left")
    await desk.trials.member_joined(gone, "telegram")
    assert (await plain.get("zoran")).in_club


async def test_a_leaving_member_ends_every_trial_he_is_in(plain: Club) -> None:
    """petar calls a referee for one game and, as a referee, judges another at the same time: he leaves, both end."""
    desk = plain.desk
    petar = await plain.member("petar", "referee")
    await plain.member("jovan", "referee")
    await plain.game(100, ("petar", "marko", "mod"))
    await plain.game(200, ("marko", "mod", "ana"))
    await desk.calls.call(petar, 100)
    call = await plain.db.calls.pending_for_game(100)
    assert call is not None
    assert (await desk.trials.take(await plain.get("jovan"), call.id)).ok
    await desk.calls.call(await plain.get("marko"), 200)
    other = await plain.db.calls.pending_for_game(200)
    assert other is not None
    assert (await desk.trials.take(await plain.get("petar"), other.id)).ok
    assert len(await plain.db.trials.open_trials()) == 2
    await plain.game(300, ("petar", "ana", "mod"))
    assert (await desk.calls.call(await plain.get("petar"), 300)).ok  # and a call of his is pending
    await desk.trials.member_left_club(await plain.get("petar"))
    assert await plain.db.trials.open_trials() == []
    assert await plain.db.calls.pending_by_caller(petar.id) is None  # withdrawn: nobody takes it now
    reasons = sorted([(await plain.db.trials.for_game(g))[0].end_reason or "" for g in (100, 200)])
    assert reasons == ["caller_left", "referee_left"]


async def test_unlinking_mid_trial_silences_the_account_and_with_no_account_left_his_trial_ends(plain: Club) -> None:
    desk = plain.desk
    await plain.game(100, ("marko", "mod", "petar"))
    await desk.calls.call(await plain.get("marko"), 100)
    call = await plain.db.calls.pending_for_game(100)
    assert call is not None
    assert (await desk.trials.take(await plain.get("ana"), call.id)).ok
    trial = await plain.db.trials.open_for_game(100)
    assert trial is not None
    unlinked = await desk.links.unlink(await plain.get("mod"), "marko", None, "tuđi nalog")
    assert unlinked.ok
    assert await desk.member_for("test", "marko") is None
    ended = await plain.db.trials.get(trial.id)
    assert ended is not None
    assert ended.outcome == "interrupted"
    assert ended.end_reason == "caller_left"


def test_the_configuration_names_the_owner_by_nickname_and_accounts(tmp_path: Path) -> None:
    config = from_dict({"club": {"owner": "vesna", "owner_accounts": ["discord:123", "telegram:456"]}})
    assert config.owner_accounts == ("discord:123", "telegram:456")
    for bad in (["discord:abc"], ["mars:1"], "discord:1", ["discord:1", "discord:2"], ["telegram:١٢"]):
        with pytest.raises(ConfigError, match="owner_accounts"):
            from_dict({"club": {"owner": "vesna", "owner_accounts": bad}})
    with pytest.raises(ConfigError, match="U\\+202E"):
        from_dict({"club": {"owner": "ves\u202ena"}})
    with pytest.raises(ConfigError, match="owner is not set"):
        check_owner(Config(), ["discord"])
    with pytest.raises(ConfigError, match=r'owner_accounts = \["telegram:'):
        check_owner(replace(config, owner_accounts=("discord:1",)), ["telegram"])
    check_owner(config, ["discord", "telegram"])


def test_sudija_run_refuses_a_club_whose_owner_has_no_account_on_an_enabled_platform(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[club]\nowner = "vesna"\n', encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "SUDIJA_TELEGRAM_TOKEN": "1:fake"}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "owner_accounts" in done.stderr
    assert "telegram:" in done.stderr
    assert not (tmp_path / "sudija.db").exists()  # refused before anything opened


async def test_links_claimed_before_proofs_existed_become_requests(tmp_path: Path) -> None:
    """Migration 0006: a Discord or Telegram link of an older database was a claim, so it becomes a pending request
    (a moderator approves it, or the member proves it); the console's links were the admin's and stay."""
    from storage.database import _statements, migrations  # noqa: PLC0415 (imported where the test needs it)

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for version, name, sql in migrations():
            if version >= 6:
                break
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, "2026-11-01"))
        conn.execute("INSERT INTO members (nick, created_at) VALUES ('vesna', 'x'), ('ana', 'x')")
        conn.execute(
            "INSERT INTO accounts (platform, account, member) VALUES ('telegram', '66', 1), ('console', 'ana', 2)"
        )
    db = await open_database(path)
    try:
        assert await db.members.by_account("telegram", "66") is None
        request = await db.links.for_account("telegram", "66")
        assert request is not None
        assert request.nick == "vesna"
        assert request.code_hash is None
        ana = await db.members.by_account("console", "ana")
        assert ana is not None
        assert ana.accounts == {"console:ana"}
    finally:
        await db.close()


async def test_who_acts_is_refused_in_the_core_as_a_domain_exception_and_rendered_by_the_facade(plain: Club) -> None:
    desk = plain.desk
    with pytest.raises(Refused) as unlinked:
        await desk.links.actor("telegram", "nobody")
    assert unlinked.value.key == "link.needed"
    assert await desk.actor("telegram", "nobody") == desk.voice.refuse("link.needed")
    zoran = await plain.db.members.link("telegram", "701", "zoran", NOW)
    desk.links.gate(zoran)  # in the club: nothing to refuse
    await desk.trials.member_left_club(zoran, "telegram")
    gone = await plain.get("zoran")
    with pytest.raises(Refused) as left:
        desk.links.gate(gone)
    assert left.value.key == "member.left"
    with pytest.raises(Refused):
        await desk.links.actor("telegram", "701")


async def test_a_member_the_front_end_knows_asking_for_another_nickname_is_told_he_is_linked(club: Club) -> None:
    """The console (any `Commands.handle` caller) knows who types: `/nadimak` is answered as a linked account is,
    never filed as a request of a made-up account for a second nickname (and the nickname's holder never warned)."""
    dragan = await club.member("dragan", "moderator")
    await club.member("zoran")
    commands = Commands(club.desk)
    other = await commands.handle(dragan, "/nadimak zoran")
    assert other is not None
    assert not other.ok
    assert other.text == club.desk.t("link.relink", nick="dragan")
    same = await commands.handle(dragan, "/nadimak DRAGAN")
    assert same is not None
    assert same.text == club.desk.t("link.already", nick="dragan")
    assert await club.db.links.pending() == []
