"""The operator's command-line text in the club's language: `[club] language = "en"` makes `sudija rezon`,
`arbitar`, `import`, `games` and `outbox` speak English, ``--lang`` overrides it, the JSON is the same in every
language, and the rezon notes the rules write in Serbian are the catalogue's Serbian texts."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from language_story import ALLOWED_LATIN, disagreeing_counts, raw_keys
from test_arbitar import RUINED_BOTH, STEP2_NOT_OBVIOUS
from test_arbitar_cli import write

from bot.cli import main
from bot.i18n.catalogues import languages
from bot.i18n.cyrillic import _KEPT, PROGRAM_COMMANDS
from bot.messages import Catalogue
from rules.arbitar.rezon import NOTES, count_rezons_cards, note_text
from storage.database import migrations

EXAMPLES = Path(__file__).parent.parent / "examples"
ALL_MIGRATIONS = migrations()
CARDS = "KS 9S 8S 9D 8D 7D AH 7H TC 9C"


def english_club(tmp_path: Path) -> str:
    config = tmp_path / "config.toml"
    config.write_text('[club]\nlanguage = "en"\ntimezone = "Europe/Belgrade"\n', encoding="utf-8")
    return str(config)


def test_rezon_speaks_the_clubs_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = english_club(tmp_path)
    args = ["rezon", "--trump", "H", "--cards", CARDS, "--seat", "second", "--first-followed"]
    assert main(["--config", config, *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "rezons: 2, trump tricks: 1, aces: 1 — below the rules, but not obviously"
    assert "  rezons in all: 2, aces: 1" in lines
    assert any(line.startswith("  second defender (the first followed): ") for line in lines)
    assert lines[-1] == "  below the rules, but not obviously"
    assert main(["--config", config, *args, "--lang", "sr"]) == 0  # --lang overrides the club's
    assert capsys.readouterr().out.splitlines()[0].startswith("rezona: 2, adutskih štihova: 1, asova: 1 — ispod")
    assert main(["--config", config, *args, "--lang", "ru"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("резонов: 2, козырных взяток: 1, тузов: 1")


def test_rezon_json_is_the_same_in_every_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rezon", "--trump", "H", "--cards", CARDS, "--json"]
    assert main(args) == 0
    serbian = json.loads(capsys.readouterr().out)
    assert main(["--config", english_club(tmp_path), *args]) == 0
    assert json.loads(capsys.readouterr().out) == serbian
    assert "ukupno rezona: 2, asova: 1" in serbian["explanation"]


def test_arbitar_speaks_the_clubs_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = english_club(tmp_path)
    log = str(write(tmp_path, RUINED_BOTH))
    assert main(["--config", config, "arbitar", log, "--hand", "1", "--fallen", "marko"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Arbitar, game 1, hand 1: the fall moves from marko to petar (step 1)."
    assert lines[1].startswith("Reason: petar's error in trick 8")
    assert "Evidence:" in lines
    log = str(write(tmp_path, STEP2_NOT_OBVIOUS, "other.json"))
    assert main(["--config", config, "arbitar", log, "--hand", "1", "--fallen", "marko"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Arbitar, game 1, hand 1: the fall stays with marko (step 2)."


def test_games_and_outbox_speak_the_clubs_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = english_club(tmp_path)
    db = str(tmp_path / "club.db")
    assert main(["--config", config, "games", "--db", str(tmp_path / "none.db")]) == 1
    assert capsys.readouterr().err.startswith(f"The database {tmp_path / 'none.db'} does not exist;")
    assert main(["--config", config, "import", str(EXAMPLES), "--db", db]) == 0
    assert "Imported 7 games (70 hands) from 3 files; 0 unchanged, 0 refused, 0 files with errors." in (
        capsys.readouterr().out
    )
    assert main(["--config", config, "import", str(EXAMPLES), "--db", db, "--lang", "ru"]) == 0
    assert "Импортировано: 0 партий (0 раздач) из: 3 файла; без изменений 7" in capsys.readouterr().out
    assert main(["--config", config, "games", "--db", db, "--player", "nobody"]) == 0
    assert capsys.readouterr().out == f"No games of nobody in {db}.\n"
    assert main(["--config", config, "games", "--db", db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["game", "status", "rated", "AI"]
    assert "ended (Europe/Belgrade)" in lines[0]
    assert lines[1].split()[2] in ("yes", "no")
    assert lines[-1].index(" 20") + 1 == lines[0].index("ended")  # the columns stay aligned under a long zone
    assert main(["--config", config, "games", "--db", db, "--lang", "sr"]) == 0
    assert capsys.readouterr().out.split()[:3] == ["partija", "stanje", "rejting"]
    assert main(["--config", config, "outbox", "--db", db]) == 0
    assert capsys.readouterr().out == "Outbox: 0 waiting, 0 sent, 0 refused by the game server.\n"
    assert main(["--config", config, "outbox", "--chat", "--db", db]) == 0
    assert capsys.readouterr().out == "Chat outbox: 0 waiting, 0 delivered, 0 failed.\n"


def test_the_rules_serbian_notes_are_the_catalogues() -> None:
    serbian = languages()["sr"].texts
    assert {key: serbian[key] for key in NOTES} == NOTES
    count = count_rezons_cards(CARDS, "H", "", "second", True)
    assert count.explanation == tuple(note_text(k, v, Catalogue("sr").t) for k, v in count.notes)
    assert len(count.notes) == len(count.explanation) >= 4


def test_every_sub_command_takes_the_four_languages() -> None:
    from bot.cli import build_parser  # noqa: PLC0415 (the parser of this run's language)
    from bot.i18n import LANGUAGES  # noqa: PLC0415

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        lang = next((a for a in sub._actions if "--lang" in a.option_strings), None)
        assert lang is not None, name
        assert list(lang.choices or ()) == list(LANGUAGES), name


@pytest.mark.parametrize(
    ("language", "usage", "error", "missing"),
    [
        ("sr", "upotreba: sudija", "sudija papir: greška: ", "nedostaju argumenti: PARTIJA"),
        ("sr-Cyrl", "употреба: sudija", "sudija papir: грешка: ", "недостају аргументи: ПАРТИЈА"),
        ("en", "usage: sudija", "sudija papir: error: ", "the following arguments are required: GAME"),
        ("ru", "использование: sudija", "sudija papir: ошибка: ", "не хватает аргументов: ПАРТИЯ"),
    ],
)
def test_argparse_speaks_the_chosen_language(
    language: str, usage: str, error: str, missing: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main(["papir", "--lang", language])
    assert exit_status.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert error + missing in err
    with pytest.raises(SystemExit):
        main(["ruka", "--lang", language, "--help"])
    shown = capsys.readouterr().out
    assert shown.startswith(usage)
    assert Catalogue(language).t("cli.option.lang") in " ".join(shown.split())
    assert argparse._("usage: ") == "usage: "  # type: ignore[attr-defined]  # argparse's own words are back after


def test_the_clubs_language_is_argparses_without_lang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = english_club(tmp_path)
    with pytest.raises(SystemExit):
        main(["--config", config, "papir"])
    assert "the following arguments are required: GAME" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["papir", "--config", str(tmp_path / "none.toml"), "--lang", "xx"])  # neither: Serbian, and a refusal
    err = capsys.readouterr().err
    assert "upotreba: sudija papir" in err
    assert "nepoznat izbor: 'xx'" in err


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "en", "ru"])
def test_zapisnik_and_its_counts_speak_the_language(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = Catalogue(language)
    assert main(["zapisnik", "1", "--db", str(tmp_path / "none.db"), "--lang", language]) == 1
    assert capsys.readouterr().err == "sudija zapisnik: " + words.t("cli.zapisnik.what") + "\n"
    assert words.t("cli.zapisnik.written", out="z.html", messages=4, seal="ab").startswith(
        {
            "sr": "z.html: 4 poruke",
            "sr-Cyrl": "z.html: 4 поруке",
            "en": "z.html: 4 messages",
            "ru": "z.html: 4 сообщения",
        }[language]
    )


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "en", "ru"])
def test_the_sub_commands_are_listed_and_described_in_the_language(
    language: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = Catalogue(language)
    with pytest.raises(SystemExit):
        main(["--lang", language, "--help"])
    listed = " ".join(capsys.readouterr().out.split())
    assert words.t("cli.description") in listed
    for name in ("arbitar", "gameserver-check", "import", "papir", "zapisnik"):
        assert f"{name} {words.t(f'cli.cmd.{name}')}" in listed
    with pytest.raises(SystemExit):
        main(["--lang", language, "papir", "--help"])  # --lang before the sub-command holds for it
    assert words.t("cli.cmd.papir.about") in " ".join(capsys.readouterr().out.split())


#: English words no Serbian or Russian text holds (Serbian's own "to", "a", "do", "on" are not among them).
ENGLISH = re.compile(
    r"\b(?:the|of|and|with|for|from|is|are|this|that|which|when|only|database|file|files|default|print|show|"
    r"write|wait|after|before|without|every|not|or|its|his|their|game|games|hand|trial|record|found|missing|"
    r"pending|applied|schema|up to date|unreachable|fix|warning|fatal|checked|nothing|answer|event|events)\b",
    re.IGNORECASE,
)
#: What a command line's text holds as it is typed or named, in any language: options, choices, code in
#: backticks, the program's commands, settings (``[club] language``), files, and what the Cyrillic keeps Latin.
_TYPED = re.compile(
    r"[\w./-]*\.(?:md|db|lock|toml|jsonl?|gz|html|png|csv)\b|--?\w[\w-]*|\{[^{}]*\}|`[^`]*`"
    r"|\bsudija(?: (?:" + "|".join(map(re.escape, PROGRAM_COMMANDS)) + r"))?\b|\[[\w.]+\](?:\s+\w+)?|\bJSON Lines\b"
)
#: Besides: what the Cyrillic keeps Latin (capitals, words with a digit or an underscore, names of platforms).
_KEPT_LATIN = re.compile(_KEPT.pattern)
_LISTED = re.compile(r"^\s+(?:" + "|".join(map(re.escape, PROGRAM_COMMANDS)) + r")\b", re.MULTILINE)


def foreign_text(language: str, text: str) -> list[str]:
    """What a reader of `language` should not meet in a command line's output: an English word in Serbian or
    Russian, a Latin word in Serbian Cyrillic or Russian (beyond what is typed or named), a catalogue key, a count
    outside its plural form."""
    typed_out = _TYPED.sub(" ", _LISTED.sub(" ", text))
    rest = _KEPT_LATIN.sub(" ", typed_out)
    found = [f"raw key {key!r}" for key in raw_keys(typed_out, ())]
    found += [f"count {count!r}" for count in disagreeing_counts(language, text, ())]
    if language != "en":
        found += [f"English {word!r}" for word in ENGLISH.findall(rest)]
    if language in ("sr-Cyrl", "ru"):
        latin = re.findall(r"[A-Za-zČĆĐŠŽčćđšž]{2,}", rest)
        found += [f"Latin {word!r}" for word in latin if word not in ALLOWED_LATIN]
    return found


def sub_commands() -> list[str]:
    from bot.cli import build_parser  # noqa: PLC0415 (the parser of this run's language)

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(commands.choices)


def test_the_program_commands_are_the_transliterations_kept_list() -> None:
    assert sorted(PROGRAM_COMMANDS) == sub_commands()


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "en", "ru"])
def test_every_help_speaks_the_language(language: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``sudija --help`` and ``sudija SUB --help`` of every sub-command: each option's help and each placeholder
    in the language (``--verify DATOTEKA``, ``--verify ФАЙЛ``), the options and the commands as they are typed."""
    problems: list[str] = []
    for command in ["", *sub_commands()]:
        with pytest.raises(SystemExit):
            main(["--lang", language, *([command] if command else []), "--help"])
        shown = capsys.readouterr().out
        problems += [f"sudija {command} --help: {problem}" for problem in foreign_text(language, shown)]
    assert problems == []
    with pytest.raises(SystemExit):
        main(["zapisnik", "--lang", language, "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    words = Catalogue(language)
    assert f"--verify {words.t('cli.metavar.file')} {words.t('cli.opt.zapisnik.verify')}" in shown
    assert f"[--as {words.t('cli.metavar.nick')}]" in shown


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
def test_migrate_speaks_the_language(language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every answer of `sudija migrate`: a database not there yet, one up to date, one with a migration pending
    (checked, then backed up and migrated), one a newer release migrated, one a running bot holds."""
    import socket  # noqa: PLC0415 (imported where the test needs it)
    import sqlite3  # noqa: PLC0415 (imported where the test needs it)

    from test_migrate_cli import older_database  # noqa: PLC0415 (imported where the test needs it)

    from bot.dblock import DatabaseLock, lock_path  # noqa: PLC0415 (imported where the test needs it)

    db = tmp_path / "club.db"
    words = Catalogue(language)

    def migrate(*args: str) -> tuple[int, str]:
        status = main(["migrate", "--lang", language, "--db", str(db), *args])
        captured = capsys.readouterr()
        return status, captured.out + captured.err

    said: list[str] = []
    for args, status in ((["--check"], 1), ([], 0), (["--check"], 0), ([], 0)):
        got, text = migrate(*args)
        assert got == status, text
        said.append(text)
    assert said[0].startswith(words.t("cli.migrate.absent", where=str(db), count=len(ALL_MIGRATIONS)))
    db.unlink()
    older_database(db)
    with DatabaseLock(str(db)):  # a running bot holds it
        said.append(migrate()[1])
    assert words.t("cli.holder.unknown") not in said[-1]
    assert said[-1].endswith(f" {lock_path(str(db))})\n")
    said[-1] = said[-1].replace(socket.gethostname(), "")  # the host's name is a name
    for args, status in ((["--check"], 1), (["--backup-dir", str(tmp_path / "copies")], 0)):
        got, text = migrate(*args)
        assert got == status, text
        said.append(text)
    pending = f"{ALL_MIGRATIONS[-1][0]:04d}_{ALL_MIGRATIONS[-1][1]}"
    current = f"{ALL_MIGRATIONS[-2][0]:04d}"
    assert said[-2] == words.t("cli.migrate.pending", where=str(db), current=current, count=1, names=pending) + "\n"
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES (9998, 'from_the_future', '2099-01-01')")
    connection.close()
    for args in (["--check"], []):
        got, text = migrate(*args)
        assert got == 2
        said.append(text)
    assert said[-1] == words.t("cli.migrate.too_new", where=str(db), count=1, newer="9998") + "\n"
    problems = [
        f"{line}: {problem}" for text in said for line in text.splitlines() for problem in foreign_text(language, line)
    ]
    assert problems == []
    assert len(set(said)) == len(said) - 1  # each answer its own (only --check and migrate on a newer one agree)


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
def test_the_command_lines_refusals_speak_the_language(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the commands answer to input they cannot take — a hand nobody fell in, a player who is not at the
    table, ten cards that are not ten, a talon of one card, a game number that is none, a picture that cannot be
    written — in the language (the issue's "did not fall in hand 3")."""
    log = str(write(tmp_path, RUINED_BOTH))
    words = Catalogue(language)
    said = []
    for args in (
        ["arbitar", log, "--hand", "1", "--fallen", "petar"],
        ["arbitar", log, "--hand", "1", "--fallen", "ana"],
        ["arbitar", log, "--hand", "7", "--fallen", "marko"],
        ["arbitar", log, "--hand", "1", "--fallen", "nobody"],
        ["rezon", "--trump", "H", "--cards", "AS 9S"],
        ["rezon", "--trump", "H", "--cards", CARDS, "--talon", "8D"],
        ["arbitar", log, "--hand", "1", "--fallen", "marko", "--png", str(tmp_path / "no" / "such.png")],
        ["clan"],
        ["import", "--db", str(tmp_path / "club.db")],
    ):
        assert main([*args, "--lang", language]) in (1, 2)
        said.append(capsys.readouterr().err)
    for args in (
        ["papir", "x"],
        ["rezon", "--trump", "X", "--cards", CARDS],
        ["zapisnik", "abc", "--html"],
        ["zapisnik", "0", "--html"],
        ["statistika", "--od", "2026-13-01"],
        ["outbox", "--retry", "abc"],
        ["gameserver-check", "http://127.0.0.1:9", "--timeout", "soon"],
    ):
        with pytest.raises(SystemExit):
            main([*args, "--lang", language])
        said.append(capsys.readouterr().err.splitlines()[-1])
    assert said[-2].endswith(words.t("cli.type.whole", value="'abc'"))  # never argparse's "(int)"
    assert said[-1].endswith(words.t("cli.type.number", value="'soon'"))
    del said[-2:]
    assert said[-3].endswith(words.t("cli.type.trial", value="'abc'"))
    assert said[-2].endswith(words.t("cli.type.trial_range", value="0"))
    assert said[-1].endswith(words.t("cli.type.date", value="'2026-13-01'"))
    assert words.t("arbitar.refused.not_fallen", nick="petar", hand=1) in said[0]
    assert words.t("cli.rezon.cards", given=2) in said[4]
    assert said[7:9] == [words.t("cli.clan.usage") + "\n", words.t("cli.import.usage") + "\n"]
    names = re.compile(r"\b(?:petar|ana|marko|nobody|bojan|sanja)\b|'[^'\n]*'|/\S+")  # the log's players, values
    problems = [f"{text}: {p}" for text in said for p in foreign_text(language, names.sub(" ", text))]
    assert problems == []
