"""The console club: the input language, the console adapter (tags, buttons, edits, who sees what) and the
runner (scripts, errors with line numbers, presence, seats, the clock, restarts, the demo club)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Config
from bot.console.adapter import ConsoleChat, fold_label
from bot.console.language import (
    ClockStep,
    Help,
    LineError,
    Presence,
    Press,
    Say,
    Sit,
    Who,
    parse_line,
    parse_step,
)
from bot.console.runner import run_console
from bot.demo import GENERATED, MEMBERS, OWNER, ROLES, TABLE, demo_games
from bot.messages import Catalogue
from bot.ports import Button, CallPost, ManualClock, Party, Reply, TrialSpace, repeated_delivery
from bot.registry.spec import usage_lines
from rules.gamelog import GameStatus
from rules.members import Member, PartyRole
from storage.database import open_database

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SR = Catalogue("sr")


# The input language ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "action"),
    [
        ("@marko /sudija 1847258", Say("marko", "/sudija 1847258")),
        ("  @ana   Ivana je gledala karte  ", Say("ana", "Ivana je gledala karte")),
        ("@marko !!! to nije fer", Say("marko", "!!! to nije fer")),
        ("@ana !press Sudi", Press("ana", "Sudi")),
        ("@ana !press Završi suđenje", Press("ana", "Završi suđenje")),
        ("@ana !online", Presence("ana", True)),
        ("@ana !OFFLINE", Presence("ana", False)),
        ("@ana !sit 1847320", Sit("ana", 1847320)),
        ("@ana !stand", Sit("ana", None)),
        ("!clock +5m", ClockStep(timedelta(minutes=5))),
        ("!clock", ClockStep(None)),
        ("!who", Who()),
        ("help", Help()),
    ],
)
def test_lines_read_as_actions(line: str, action: object) -> None:
    assert parse_line(line) == action


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "  # indented comment"])
def test_blank_lines_and_comments_are_nothing(line: str) -> None:
    assert parse_line(line) is None


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("marko /sudija", "console.bad_line"),
        ("@ /sudija", "console.bad_line"),
        ("@marko", "console.no_text"),
        ("@marko !press", "console.press_label"),
        ("@marko !sit", "console.sit_game"),
        ("@marko !sit prvi", "console.sit_game"),
        ("@marko !online sada", "console.no_argument"),
        ("@marko !dance", "console.unknown_action"),
        ("!dance", "console.unknown_action"),
        ("!press Sudi", "console.bad_line"),
        ("!clock sutra", "console.bad_clock"),
        ("!who ana", "console.no_argument"),
    ],
)
def test_malformed_lines_say_why(line: str, key: str) -> None:
    with pytest.raises(LineError) as raised:
        parse_line(line)
    assert raised.value.key == key
    assert SR.t(raised.value.key, **raised.value.params)  # the message exists and formats


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("+5m", timedelta(minutes=5)),
        ("90s", timedelta(seconds=90)),
        ("+2d", timedelta(days=2)),
        ("+1h30m", timedelta(hours=1, minutes=30)),
        ("+0s", timedelta()),
    ],
)
def test_clock_steps(text: str, delta: timedelta) -> None:
    assert parse_step(text) == delta


def test_button_labels_fold_case_and_diacritics() -> None:
    assert fold_label("zavrsi sudjenje") == fold_label("Završi  suđenje")
    assert fold_label("UKLJUČI SE") == fold_label("Uključi se")
    assert fold_label("Sudi") != fold_label("Suđenja")


# The adapter -----------------------------------------------------------------------------------------------


def _member(mid: int, nick: str, *roles: str) -> Member:
    accounts = frozenset() if nick == "ghost" else frozenset({f"console:{nick}"})
    return Member(mid, nick, frozenset(roles), True, True, True, None, None, accounts)


ANA = _member(1, "ana", "referee")
MARKO = _member(2, "marko")
NIKOLA = _member(3, "nikola", "councilor")
GHOST = _member(4, "ghost", "referee")  # a member with no console account


def _chat() -> tuple[ConsoleChat, list[str]]:
    lines: list[str] = []
    return ConsoleChat(lines.append, SR), lines


async def test_a_call_is_printed_in_the_channel_with_mentions_and_its_button() -> None:
    chat, lines = _chat()
    take = Button("Sudi", "take", 7)
    notices = await chat.post_call(CallPost("call:7", "Poziv 1847258", (ANA, GHOST), (take,), (ANA, GHOST)))
    assert lines == ["[#sudije] @ana Poziv 1847258  [Sudi]", "[dm ana] Poziv 1847258  [Sudi]"]
    assert [(n.platform, n.place) for n in notices] == [("console", "#sudije"), ("console", "dm:ana")]
    assert chat.find_button(ANA, "ana", "sudi") == take
    assert chat.find_button(NIKOLA, "nikola", "Sudi") == take  # councilors see the channel
    assert chat.find_button(MARKO, "marko", "Sudi") is None  # a plain member does not

    await chat.edit_notices(notices, "Prihvatio petar.")
    assert lines[-2:] == ["[#sudije] (izmena) Prihvatio petar.", "[dm ana] (izmena) Prihvatio petar."]
    assert chat.find_button(ANA, "ana", "Sudi") is None  # the edit disabled the button everywhere


async def test_the_newest_message_showing_a_label_wins() -> None:
    chat, _ = _chat()
    await chat.post_call(CallPost("call:1", "prvi", (ANA,), (Button("Sudi", "take", 1),)))
    await chat.tell(ANA, "drugi", (Button("Sudi", "take", 2),))
    assert chat.find_button(ANA, "ana", "Sudi") == Button("Sudi", "take", 2)
    assert chat.find_button(NIKOLA, "nikola", "Sudi") == Button("Sudi", "take", 1)  # ana's DM is hers alone


async def test_members_without_a_console_account_are_skipped() -> None:
    chat, lines = _chat()
    await chat.tell(GHOST, "tajna")
    assert lines == []


async def test_trial_spaces_show_their_buttons_to_their_members_until_closed() -> None:
    chat, lines = _chat()
    finish = Button("Završi suđenje", "finish", 3)
    space = TrialSpace(
        3,
        1847258,
        False,
        True,
        (Party(ANA, PartyRole.REFEREE), Party(MARKO, PartyRole.CALLER), Party(GHOST, PartyRole.PLAYER)),
    )
    await chat.open_trial_space(space, "Suđenje.", [finish])
    assert lines == ["[trial 3] Suđenje.  [Završi suđenje]", "[trial 3] u prostoru: ana, marko"]
    assert chat.find_button(MARKO, "marko", "zavrsi sudjenje") == finish
    assert chat.find_button(NIKOLA, "nikola", "Završi suđenje") is None
    await chat.add_to_trial_space(space, NIKOLA, "Većnik nikola je tu.")
    assert chat.find_button(NIKOLA, "nikola", "Završi suđenje") == finish
    await chat.say_in_trial(space, "Karte su bile\n\nnamerno otkrivene", MARKO)
    assert lines[-3:] == ["[trial 3] marko: Karte su bile", "", "          namerno otkrivene"]
    await chat.close_trial_space(space, "Kraj.")
    assert lines[-1] == "[trial 3] Kraj."
    assert chat.find_button(ANA, "ana", "Završi suđenje") is None


async def test_a_repeated_line_in_a_trial_space_shows_as_an_edit_of_itself() -> None:
    """The chat outbox repeats an arrival or a line it had begun before a crash: the console marks it so."""
    chat, lines = _chat()
    space = TrialSpace(3, 1847258, True, True, (Party(ANA, PartyRole.REFEREE), Party(NIKOLA, PartyRole.COUNCILOR)))
    token = repeated_delivery.set(True)
    try:
        await chat.add_to_trial_space(space, NIKOLA, "Većnik nikola je tu.")
        await chat.say_in_trial(space, "Poziv većniku je istekao.")
    finally:
        repeated_delivery.reset(token)
    edited = chat.messages.t("console.edited")
    assert lines == [f"[trial 3] {edited} Većnik nikola je tu.", f"[trial 3] {edited} Poziv većniku je istekao."]


async def test_tables_and_replies_are_tagged() -> None:
    chat, lines = _chat()
    await chat.tell_table(1847320, [], "Igra je zaustavljena.")
    chat.show_reply("marko", Reply("Pozvan je sudija.", (Button("Povuci poziv", "withdraw", 4, "danger"),)))
    assert lines == ["[table 1847320] Igra je zaustavljena.", "[dm marko] Pozvan je sudija.  [Povuci poziv]"]
    assert chat.find_button(MARKO, "marko", "povuci poziv") == Button("Povuci poziv", "withdraw", 4, "danger")
    assert chat.find_button(ANA, "ana", "povuci poziv") is None


# The runner ------------------------------------------------------------------------------------------------


async def _run(db: Path, script: str, clock: datetime = NOW) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(Config(), str(db), True, io.StringIO(script), out, err, ManualClock(clock))
    return status, out.getvalue(), err.getvalue()


async def test_the_demo_club_has_its_members_roles_games_and_table(tmp_path: Path) -> None:
    status, out, _ = await _run(tmp_path / "demo.db", "!who\n")
    assert status == 0
    assert SR.t("console.demo_created", members=12, games=12, table=TABLE) in out
    db = await open_database(tmp_path / "demo.db")
    try:
        members = {m.nick: m for m in await db.members.all()}
        assert sorted(members) == sorted(MEMBERS)
        assert len(members) == 12
        assert all(m.online for m in members.values())
        for nick, roles in ROLES.items():
            assert members[nick].roles == frozenset(roles)
            if {"referee", "councilor"} & set(roles):
                assert members[nick].on_duty
        assert sum("referee" in m.roles for m in members.values()) == 3
        assert sum("councilor" in m.roles for m in members.values()) == 2
        assert sum("moderator" in m.roles for m in members.values()) == 1
        assert OWNER in members
        assert not members[OWNER].roles
        for m in members.values():
            assert await db.members.accounts(m.id) == {"console": m.nick}
        table = await db.games.summary(TABLE)
        assert table is not None
        assert table.status is GameStatus.IN_PROGRESS
        assert {m.nick for m in await db.members.seated_at(TABLE)} == set(table.players)
        summaries = await db.games.listing()
        ended = [s for s in summaries if s.ended_at is not None]
        assert sum(NOW - s.ended_at > timedelta(days=7) for s in ended if s.ended_at) == 1
        assert (
            sum(
                s.judgeable and s.status is GameStatus.FINISHED and NOW - s.ended_at <= timedelta(days=7)
                for s in ended
                if s.ended_at
            )
            >= 3
        )
        assert any(not s.rated for s in summaries)
        assert any(s.ai for s in summaries)
        assert any(s.status is GameStatus.INTERRUPTED for s in summaries)
        assert all(s.started_at <= NOW and (s.ended_at is None or s.ended_at <= NOW) for s in summaries)
    finally:
        await db.close()
    assert "vesna      Vlasnik · na mreži" in out


def test_demo_games_are_timed_relative_to_the_clock() -> None:
    later = NOW + timedelta(days=40)
    games = {g.number: g for g in demo_games(later)}
    assert later - games[TABLE].started_at <= timedelta(minutes=46)
    for spec in GENERATED:
        assert games[spec.number].ended_at == later - spec.ended_ago


async def test_a_script_runs_every_line_and_exits_0(tmp_path: Path) -> None:
    status, out, err = await _run(tmp_path / "d.db", "# komentar\n\n@marko /sudija\n@ana !press Sudi\n")
    assert (status, err) == (0, "")
    assert "> @marko /sudija" in out
    assert "# komentar" in out
    assert "[#sudije] @ana @jelena @petar " in out
    assert "[#sudije] (izmena) " + SR.t("call.notice_taken", game=TABLE, caller="marko", referee="ana") in out
    assert "[dm ana] " + SR.t("take.ok", game=TABLE, trial=1) in out


@pytest.mark.parametrize(
    ("script", "line", "key", "params"),
    [
        ("help\n@nepoznat /sudija\n", 2, "console.unknown_nick", {"nick": "nepoznat"}),
        ("\n# x\n\nmarko /sudija\n", 4, "console.bad_line", {"line": "marko /sudija"}),
        ("@marko /sudija\n@marko !press Sudi\n", 2, "console.no_button", {"nick": "marko", "label": "Sudi"}),
        ("@ana !sit 999\n", 1, "call.unknown_game", {"game": 999}),
    ],
)
async def test_a_script_stops_at_the_first_bad_line_with_its_number(
    tmp_path: Path, script: str, line: int, key: str, params: dict[str, object]
) -> None:
    status, _, err = await _run(tmp_path / "d.db", script + "!who\n")
    assert status == 1
    assert err == f"line {line}: {SR.t(key, **params)}\n"


async def test_text_outside_a_trial_is_heard_by_nobody(tmp_path: Path) -> None:
    _, out, _ = await _run(tmp_path / "d.db", "@bojan zdravo svima\n")
    assert SR.t("console.unheard", nick="bojan") in out


async def test_a_seated_referee_is_not_pinged_and_standing_up_brings_the_call(tmp_path: Path) -> None:
    script = "@ana !sit 1847302\n@jelena !offline\n@marko /sudija\n@ana !stand\n@jelena !online\n"
    _, out, _ = await _run(tmp_path / "d.db", script)
    assert "[#sudije] @petar " in out  # ana seated, jelena offline
    notice = SR.t("call.notice_in_game", game=TABLE, caller="marko", until=NOW + timedelta(minutes=5))
    assert f"[dm ana] {notice}  [Sudi]" in out
    assert f"[dm jelena] {notice}  [Sudi]" in out


async def test_the_clock_expires_a_call(tmp_path: Path) -> None:
    _, out, _ = await _run(tmp_path / "d.db", "@marko /sudija\n!clock +4m59s\n!clock +1s\n")
    expired = "[#sudije] (izmena) " + SR.t("call.notice_expired", game=TABLE, caller="marko")
    assert out.count(expired) == 1
    assert out.index(expired) > out.index(SR.t("console.clock", now=NOW + timedelta(minutes=5)))
    assert "[table 1847320] " + SR.t("table.expired") in out


async def test_a_referee_offline_beyond_the_grace_period_interrupts_his_trial(tmp_path: Path) -> None:
    script = "@marko /sudija\n@ana !press Sudi\n@ana !offline\n!clock +1m\n!clock +1m\n"
    _, out, _ = await _run(tmp_path / "d.db", script)
    interrupted = SR.t("trial.interrupted", game=TABLE, why=SR.t("end.referee_disconnected"))
    assert out.count(f"[trial 1] {interrupted}") == 1
    assert out.index(interrupted) > out.index(SR.t("console.clock", now=NOW + timedelta(minutes=2)))


async def test_a_restart_keeps_the_club_and_edits_the_stored_notices(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    await _run(db, "@marko /sudija\n")
    status, out, _ = await _run(db, "!who\n", NOW + timedelta(minutes=10))
    assert status == 0
    assert SR.t("console.demo_created", members=12, games=12, table=TABLE) not in out  # built once
    assert "[#sudije] (izmena) " + SR.t("call.notice_expired", game=TABLE, caller="marko") in out
    assert "[dm marko] " + SR.t("call.expired", game=TABLE, minutes=5) in out


async def test_without_demo_an_empty_database_stays_empty(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(
        Config(), str(tmp_path / "e.db"), False, io.StringIO("@ana /sudija\n"), out, err, ManualClock(NOW)
    )
    assert status == 1
    assert err.getvalue() == "line 1: " + SR.t("console.unknown_nick", nick="ana") + "\n"


async def test_help_shows_the_input_language_and_the_commands(tmp_path: Path) -> None:
    _, out, _ = await _run(tmp_path / "d.db", "help\n")
    assert SR.t("console.help") in out
    assert all(line in out for line in usage_lines(SR.t("usage.presuda")))  # each form of /presuda on its line


async def test_help_lists_every_action_before_it_explains_the_output(tmp_path: Path) -> None:
    _, out, _ = await _run(tmp_path / "d.db", "help\n")
    lines = out.splitlines()
    output = lines.index(SR.t("console.help_output"))
    for action in ("console.help_down", "console.help_close", "console.help_attach"):
        assert lines.index(SR.t(action)) < output
    assert lines[output + 1] == SR.t("console.commands")


async def test_a_file_that_cannot_be_attached_is_said_why_in_the_consoles_words(tmp_path: Path) -> None:
    missing = tmp_path / "nema.txt"
    status, _, err = await _run(tmp_path / "d.db", f"@marko !attach {missing}\n")
    assert status == 1
    why = SR.t("oserror.enoent")
    assert err == f"line 1: {SR.t('console.attach_unreadable', path=str(missing), why=why)}\n"  # never "No such file"


async def test_english_club(tmp_path: Path) -> None:
    out = io.StringIO()
    await run_console(
        Config(language="en"),
        str(tmp_path / "d.db"),
        True,
        io.StringIO("@marko /sudija\n"),
        out,
        io.StringIO(),
        ManualClock(NOW),
    )
    assert "[#referees] @ana @jelena @petar 🔴 Referee call for game 1847320" in out.getvalue()


async def test_the_demo_owner_is_set_only_over_the_demo_club(tmp_path: Path) -> None:
    _, out, _ = await _run(tmp_path / "d.db", "!who\n")
    assert "vesna      Vlasnik · na mreži" in out
    db = await open_database(tmp_path / "real.db")
    await db.members.link("console", "vesna", "vesna", NOW)
    await db.close()
    out_io = io.StringIO()
    status = await run_console(
        Config(owner="zoran"),
        str(tmp_path / "real.db"),
        True,
        io.StringIO("!who\n"),
        out_io,
        io.StringIO(),
        ManualClock(NOW),
    )
    assert status == 0
    assert "  vesna      van mreže\n" in out_io.getvalue()  # not a demo club: the configured owner stays
    assert SR.t("console.demo_created", members=12, games=12, table=TABLE) not in out_io.getvalue()
