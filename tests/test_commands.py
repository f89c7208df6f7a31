"""The text command language: each command reaches its use case; malformed ones say what is wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.commands import Commands, Usage, parse_draft
from bot.messages import LANGUAGES, MESSAGES, Catalogue
from bot.registry.spec import MAX_HAND, MAX_NUMBER
from club import Club
from rules.gamelog import GameStatus
from rules.verdicts import BulaChange, FallTransfer, Nobody, NoVerdict, Penalty, Settlement


def t(key: str, **params: object) -> str:
    return Catalogue("sr").t(key, **params)


def test_drafts_are_read_exactly() -> None:
    assert parse_draft("bule ruka 3 ana +4 marko -2 -- vređanje", t).verdict == BulaChange({"ana": 4, "marko": -2}, 3)
    assert parse_draft("bule ana 4 kasno", t).verdict == BulaChange({"ana": 4}, None, True)
    assert parse_draft("bula 2 petar -- loš dolaz", t).verdict == FallTransfer(2, "petar")
    draft = parse_draft("kazna petar plavac 3 liga 2 napustio -- namerno", t)
    assert draft.verdict == Penalty("petar", 3, 2, True)
    assert draft.reason == "namerno"
    assert parse_draft("svodjenje potvrdjujem -- dogovor", t).verdict == Settlement(True)
    assert parse_draft("niko -- opravdano", t).verdict == Nobody()
    assert parse_draft("bez -- već presuđeno", t).verdict == NoVerdict()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "nesto",
        "bule",
        "bule ana",
        "bule ana x",
        "bula 2",
        "kazna",
        "kazna ana x",
        "bule ruka x ana 2",
        "kazna ana plavac",
    ],
)
def test_malformed_drafts_are_refused(text: str) -> None:
    with pytest.raises(Usage):
        parse_draft(text, t)


async def test_commands_drive_the_desk_and_explain_mistakes(club: Club) -> None:
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.game(100, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    commands = Commands(club.desk)
    ana, referee = await club.get("ana"), await club.get("sudija1")
    bad = await commands.handle(ana, "/sudija abc")
    assert bad is not None
    assert not bad.ok
    assert "Upotreba: /sudija" in bad.text
    unknown = await commands.handle(ana, "/nepostoji")
    assert unknown is not None
    assert "Nepoznata komanda" in unknown.text
    called = await commands.handle(ana, "/sudija 100")
    assert called is not None
    assert called.ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.press(referee, "take", call.id)
    assert await commands.handle(ana, "Petar me vređa.") is None
    assert club.chat.sent[-1].text == "ana: Petar me vređa."
    drafted = await commands.handle(referee, "/presuda bule ruka 4 petar +4 -- vređanje")
    assert drafted is not None, drafted.text
    assert drafted.ok, drafted.text
    assert (await commands.handle(referee, "/zavrsi")).ok  # type: ignore[union-attr]
    listing = await commands.handle(ana, "/presude 100")
    assert listing is not None
    assert "vređanje" in listing.text
    paper = await commands.handle(ana, "/papir 100")
    assert paper is not None
    assert "100" in paper.text
    assert "(1/" not in commands.help_text()
    assert "/sudija" in commands.help_text()


def test_every_message_key_used_in_the_code_exists_in_every_language() -> None:
    root = Path(__file__).resolve().parent.parent / "bot"
    used: set[str] = set()
    for path in root.rglob("*.py"):
        found = re.findall(r"""(?:\bt|refuse|Phrase\.of)\(\s*["']([a-z_]+\.[a-z_.]+)["']""", path.read_text("utf-8"))
        used |= set(found)
    missing = sorted(k for k in used if k not in MESSAGES)
    assert not missing
    for key, texts in MESSAGES.items():
        assert len(texts) == len(LANGUAGES), key
        assert all(texts), key


@pytest.mark.parametrize(
    ("text", "shown", "low", "high"),
    [
        ("/sudija -5", "'-5'", 1, MAX_NUMBER),
        ("/presude 0", "'0'", 1, MAX_NUMBER),
        ("/sudija 99999999999999999999999", "'99999999999999999999…'", 1, MAX_NUMBER),
        ("/bula 0", "'0'", 1, MAX_HAND),
    ],
)
async def test_a_number_beyond_its_range_is_told_its_range_not_that_it_is_no_number(
    club: Club, text: str, shown: str, low: int, high: int
) -> None:
    """``-5`` is a whole number: the answer says the range it is outside of, never "must be a whole number"."""
    ana = await club.member("ana")
    answer = await Commands(club.desk).handle(ana, text)
    assert answer is not None
    assert not answer.ok
    words = Catalogue("sr")
    assert answer.text.splitlines()[0] == words.t("usage.number_range", word=shown, low=low, high=high)
    assert "ceo broj" not in answer.text
    assert await club.db.calls.pending_for_game(1) is None


def test_a_draft_number_beyond_its_range_is_told_its_range() -> None:
    with pytest.raises(Usage) as raised:
        parse_draft("kazna ana plavac 9999", t)
    assert str(raised.value) == t("usage.number_range", word="'9999'", low=0, high=3650)


@pytest.mark.parametrize(
    ("text", "first_line"),
    [
        ("/ponisti 4 nesto", t("usage.arg.sta")),  # a wrong kind, not a wrong game
        ("/ponisti 4 1847320 nesto", t("usage.arg.sta")),
        ("/ponisti 4 abc bula", t("usage.game_number") + ": 'abc'"),  # two words left: the first is the game
        ("/bula 4 xyz", t("usage.game_number") + ": 'xyz'"),  # nothing after the game: it is the game
    ],
)
async def test_a_word_meant_for_a_later_argument_is_refused_by_that_argument(
    club: Club, text: str, first_line: str
) -> None:
    sanja = await club.member("sanja")
    answer = await Commands(club.desk).handle(sanja, text)
    assert answer is not None
    assert not answer.ok
    assert answer.text.splitlines()[0] == first_line


@pytest.mark.parametrize("line", ["/sudija\u200b 100", "\ufeff/sudija 100", "\u200b/SUDIJA\u2060 100"])
async def test_a_command_pasted_with_invisible_marks_is_the_command_it_shows(club: Club, line: str) -> None:
    """A name that shows as /sudija is /sudija: never "Nepoznata komanda /sudija" for a zero-width space or a byte
    order mark a paste carried along."""
    await club.member("ana")
    await club.game(100, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    ana = await club.get("ana")
    called = await Commands(club.desk).handle(ana, line)
    assert called is not None
    assert called.ok, called.text
    assert await club.db.calls.pending_for_game(100) is not None
    unknown = await Commands(club.desk).handle(ana, "/nepostoji\u200b")
    assert unknown is not None
    assert unknown.text == t("command.unknown", name="nepostoji")
