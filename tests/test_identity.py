"""One identity for a nickname (issue 33, decisions.md "Where the game lives"): every invisible character and every
look-alike is refused at import and at linking with the character and its position named; a nickname imitating
one the club knows is refused naming it; `čeda`, `Čeda`, `ČEDA` resolve to one member and `Чеда` the same way on
SQLite and on PostgreSQL; the nicknames stored before the identity keys are registered, their clashes reported."""

from __future__ import annotations

import logging
import unicodedata
from pathlib import Path

import pytest
from test_nicknames import game_file

from bot.config import ConfigError, from_dict
from bot.importer import Importer
from club import NOW, Club, database_for, make_club
from rules.confusables import prototypes, skeleton
from rules.nicknames import NickRefused, check_nick, check_scripts, identity_key
from storage.database import open_database
from storage.nicknames import NickClash

#: (what, nickname, the character the message must name) — the owner is `vesna`
INVISIBLE = [
    ("combining grapheme joiner", "vesna\u034f", "U+034F"),
    ("variation selector 16", "ves\ufe0fna", "U+FE0F"),
    ("hangul filler", "\u3164vesna", "U+3164"),
    ("hangul choseong filler", "ves\u115fna", "U+115F"),
    ("mongolian free variation selector", "vesna\u180b", "U+180B"),
    ("variation selector 17", "vesna\U000e0100", "U+E0100"),
    ("braille blank", "vesna\u2800", "U+2800"),
    ("khmer inherent aq", "ve\u17b4sna", "U+17B4"),
    ("tag letter", "vesna\U000e0041", "U+E0041"),
    ("soft hyphen", "ves\u00adna", "U+00AD"),
    ("halfwidth hangul filler", "vesna\uffa0", "U+FFA0"),
]
LOOK_ALIKES = [
    ("fullwidth", "ｖｅｓｎａ", "U+FF56"),
    ("one fullwidth capital", "Ｖesna", "U+FF36"),
    ("mathematical bold", "𝐯𝐞𝐬𝐧𝐚", "U+1D42F"),
    ("all Cyrillic", "весна", "U+0432"),
]
HOSTILE = INVISIBLE + LOOK_ALIKES


def position_of(nick: str, named: str) -> int:
    text = unicodedata.normalize("NFC", nick)
    return next(i for i, c in enumerate(text, start=1) if f"U+{ord(c):04X}" == named)


@pytest.mark.parametrize(("kind", "nick", "named"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_rules_refuse_every_invisible_and_look_alike_naming_the_character(kind: str, nick: str, named: str) -> None:
    with pytest.raises(NickRefused) as refused:
        check_scripts(check_nick(nick), ("LATIN",))
    assert named in str(refused.value)
    assert f"position {position_of(nick, named)}" in str(refused.value)
    assert refused.value.values["position"] == position_of(nick, named)


def test_the_identity_key_folds_case_compatibility_and_confusables_alike() -> None:
    assert len({identity_key(n) for n in ("čeda", "Čeda", "ČEDA")}) == 1
    assert identity_key("Чеда") != identity_key("čeda")  # another name, not a look-alike
    assert identity_key("ｖｅｓｎａ") == identity_key("Ｖesna") == identity_key("𝐯𝐞𝐬𝐧𝐚") == identity_key("vesna")
    assert identity_key("rnarko") == identity_key("marko")  # UTS #39: m → rn
    assert identity_key("pаvle") == identity_key("pavle")  # a Cyrillic а
    assert identity_key("mark0") == identity_key("markO") == identity_key("marko")  # 0 → O, folded again
    assert identity_key(identity_key("Marko0")) == identity_key("Marko0")
    assert identity_key("ana") != identity_key("ane")


def test_the_confusables_table_is_unicodes_and_one_pass_is_the_skeleton() -> None:
    table = prototypes()
    assert table["m"] == "rn"
    assert table["\u0430"] == "a"
    assert len(table) > 6000
    assert not [source for source, target in table.items() if any(c in table for c in target)]
    assert skeleton("paypal") == skeleton("pаypаl")


def test_the_club_allows_its_scripts_only() -> None:
    assert check_scripts("Ђорђе", ("CYRILLIC",)) == "Ђорђе"
    assert check_scripts("čeda_1.x", ("LATIN",)) == "čeda_1.x"
    with pytest.raises(NickRefused, match=r"U\+0416 CYRILLIC CAPITAL LETTER ZHE at position 1"):
        check_scripts("Жика", ("LATIN",))
    config = from_dict({"club": {"scripts": ["latin", "cyrillic"]}})
    assert config.scripts == ("LATIN", "CYRILLIC")
    assert from_dict({}).scripts == ("LATIN",)
    with pytest.raises(ConfigError, match="not a script name"):
        from_dict({"club": {"scripts": ["klingon"]}})
    with pytest.raises(ConfigError, match=r"club.owner: .*U\+0432"):
        from_dict({"club": {"owner": "весна"}})


async def test_the_import_refuses_every_invisible_and_look_alike_with_the_message(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    game_file(logs, 100, ("vesna", "marko", "petar"))
    for i, (_, nick, _) in enumerate(HOSTILE):
        game_file(logs, 500 + i, ("ana", nick, "petar"))
    report = await Importer(str(database_for(tmp_path)), jobs=1, now=lambda: NOW).run([logs])
    assert report.imported == 1, report.messages()
    text = "\n".join(report.messages())
    for kind, nick, named in HOSTILE:
        line = next((m for m in report.messages() if f"{500 + HOSTILE.index((kind, nick, named))}.json" in m), "")
        assert named in line, (kind, text)
        assert f"position {position_of(nick, named)}" in line, (kind, line)
    db = await open_database(database_for(tmp_path))
    try:
        assert await db.games.summary(500) is None
        assert await db.games.summary(100) is not None
        assert await db.nicknames.spelling("VESNA") == "vesna"
    finally:
        await db.close()


async def test_the_import_refuses_a_nickname_imitating_one_the_club_knows(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    game_file(logs, 100, ("vesna", "marko", "Čeda"))
    report = await Importer(str(database_for(tmp_path)), jobs=1, now=lambda: NOW).run([logs])
    assert report.imported == 1
    more = tmp_path / "more"
    more.mkdir()
    game_file(more, 101, ("ana", "rnarko", "petar"))  # m → rn
    game_file(more, 102, ("ana", "čeda", "petar"))  # another spelling of Čeda
    game_file(more, 103, ("ana", "marko", "Čeda"))  # the same spellings: fine
    report = await Importer(str(database_for(tmp_path)), jobs=1, now=lambda: NOW).run([more])
    assert report.imported == 1
    refused = "\n".join(report.messages())
    assert "game 101: the nickname 'rnarko' imitates 'marko'" in refused
    assert "game 102: the nickname 'čeda' imitates 'Čeda'" in refused


async def test_linking_refuses_every_invisible_and_look_alike_with_the_message(club: Club) -> None:
    desk = club.desk
    club.desk.config = club.config = from_dict({"club": {"owner": "vesna", "owner_accounts": ["telegram:9000"]}})
    for i, (kind, nick, named) in enumerate(HOSTILE):
        reply = await desk.links.ask_link("telegram", f"stranger-{i}", "Stranger", nick)
        assert not reply.ok, kind
        assert named in reply.text, (kind, reply.text)
        assert f"na mestu {position_of(nick, named)}" in reply.text, (kind, reply.text)
    assert await club.db.links.pending() == []


async def test_linking_refuses_a_look_alike_of_a_member_naming_him(club: Club) -> None:
    await club.member("marko")
    reply = await club.desk.links.ask_link("telegram", "stranger", "Stranger", "rnarko")
    assert not reply.ok
    assert "rnarko" in reply.text
    assert "marko" in reply.text.replace("rnarko", "")
    asked = await club.desk.links.ask_link("telegram", "marko-himself", "Marko", "MARKO")  # only the case differs
    assert asked.ok
    assert [r.nick for r in await club.db.links.pending()] == ["marko"]
    with pytest.raises(NickClash):
        await club.db.members.ensure("Marko", NOW)


async def test_ceda_is_one_member_however_written_on_both_backends(club: Club) -> None:
    ceda = await club.member("Čeda", "councilor")
    for typed in ("čeda", "Čeda", "ČEDA"):
        found = await club.db.members.by_nick(typed)
        assert found is not None, typed
        assert found.id == ceda.id, typed
    assert await club.db.members.by_nick("Чеда") is None
    # a command naming him: the server admin (no actor) appoints him referee, whatever the case typed
    reply = await club.desk.votes.appoint(None, "ČEDA", "referee")
    assert reply.ok, reply.text
    assert "referee" in (await club.get("Čeda")).roles
    refused = await club.desk.votes.appoint(None, "Чеда", "referee")  # the club's scripts are Latin only
    assert not refused.ok
    assert "U+0427" in refused.text
    assert "na mestu 1" in refused.text
    club.desk.config = club.config = from_dict({"club": {"scripts": ["latin", "cyrillic"]}})
    unknown = await club.desk.votes.appoint(None, "Чеда", "referee")  # allowed, and nobody
    assert not unknown.ok
    assert "Чеда" in unknown.text
    assert "U+0427" not in unknown.text


async def test_the_existing_nicknames_are_registered_and_their_clashes_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    made = await make_club(tmp_path)
    await made.member("Čeda")
    await made.game(300, ("ana", "marko", "petar"))
    async with made.db.transaction() as conn:  # as a database written before migration 0025 held them
        await conn.execute("DELETE FROM nicknames")
        await conn.execute("DELETE FROM nicknames_registered")
        await conn.execute("INSERT INTO members (nick, created_at) VALUES ('rnarko', '2026-01-01T00:00:00.000000Z')")
        await conn.execute("UPDATE game_players SET nick = 'čeda' WHERE game = 300 AND seat = 0")
    await made.db.close()
    with caplog.at_level(logging.WARNING, logger="storage.nicknames"):
        db = await open_database(database_for(tmp_path))
    try:
        clashes = {(c.nick, c.imitates) for c in await db.nicknames.clashes()}
        assert clashes == {("čeda", "Čeda"), ("marko", "rnarko")}
        assert "'čeda'" in caplog.text
        assert await db.nicknames.spelling("ČEDA") == "Čeda"
        assert await db.nicknames.spelling("petar") == "petar"
    finally:
        await db.close()
    again = await open_database(database_for(tmp_path))  # registered once: the next start finds nothing new
    try:
        assert len(await again.nicknames.clashes()) == 2
    finally:
        await again.close()


async def test_presence_is_told_changed_only_when_it_changes(club: Club) -> None:
    """A member's every action on Telegram says he is online: what is so already is only read. The answers are
    the same as when it is written: online on any linked platform; whether his presence changed."""
    members = club.db.members
    now = club.clock.now()
    ana = await club.member("ana", online=False)
    await members.link("telegram", "42", "ana", now)  # a second account
    assert await members.set_account_presence(ana.id, "telegram", True) is True
    assert await members.set_account_presence(ana.id, "telegram", True) is True  # so already: online anywhere
    assert await members.set_account_presence(ana.id, "test", False) is True  # still online on Telegram
    assert await members.set_account_presence(ana.id, "test", False) is True
    assert await members.set_account_presence(ana.id, "telegram", False) is False
    assert await members.set_account_presence(ana.id, "telegram", False) is False
    assert await members.set_presence(ana.id, True, now) is True
    assert await members.set_presence(ana.id, True, now) is False
    assert (await club.get("ana")).online
    assert await members.set_presence(ana.id, False, now) is True
    assert await members.set_presence(ana.id, False, now) is False
    assert not (await club.get("ana")).online
    assert await members.set_presence(10_000, True, now) is False  # nobody: nothing changed
