"""The catalogues (bot/i18n): every key in every language, the same placeholders, plural forms by CLDR,
Serbian Cyrillic equal to the Latin letter by letter, and the import of dict-format entries."""

from __future__ import annotations

import os
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel import Locale
from language_check import counts_before_a_word, gendered, numbers_outside_plural_forms

import bot.i18n.catalogues as catalogues
from bot.config import ConfigError, from_dict
from bot.i18n import FALLBACK, LANGUAGES, LOCALES
from bot.i18n.catalogues import count_of, languages, untranslated
from bot.i18n.clock import discord_times
from bot.i18n.cyrillic import to_cyrillic, to_latin
from bot.i18n.import_dict import main as import_dict
from bot.messages import Catalogue

PLACEHOLDER = re.compile(r"\{(\w+)[^{}]*\}")
SAMPLES = (0, 1, 2, 5, 11, 21, 22, 25, 101, 111)


def forms_of(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return (text,) if isinstance(text, str) else text


def test_every_key_is_in_every_language_or_falls_back_explicitly() -> None:
    every = languages()
    keys = set(every["sr"].texts)
    for language in LANGUAGES:
        own = set(every[language].texts)
        assert not own - keys, f"{language} has keys Serbian lacks: {sorted(own - keys)[:5]}"
        missing = keys - own
        if language in FALLBACK:
            assert not missing - set(every[FALLBACK[language]].texts)
        else:
            assert not missing, f"{language} lacks {sorted(missing)[:5]}"


def test_the_russian_catalogue_translates_every_key() -> None:
    """Every key has Russian text of its own. The English fallback (`bot.i18n.FALLBACK`) only covers a key added
    before anyone has translated it (the import test below), and no such key may be merged."""
    assert untranslated("ru") == []
    assert set(languages()["ru"].texts) == set(languages()["sr"].texts)


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_text_has_the_serbian_placeholders(language: str) -> None:
    every = languages()
    wrong = []
    for key, text in every[language].texts.items():
        expected = {p for form in forms_of(every["sr"].texts[key]) for p in PLACEHOLDER.findall(form)}
        for form in forms_of(text):
            if set(PLACEHOLDER.findall(form)) != expected:
                wrong.append(key)
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_entries_follow_babels_cldr_rule(language: str) -> None:
    """The gettext rule each catalogue carries picks one form per CLDR category of the language, and every
    plural entry has as many forms as the rule and a declared count among its placeholders."""
    lang = languages()[language]
    locale = Locale.parse(LOCALES[language])
    category_of_index: dict[int, str] = {}
    for n in SAMPLES:
        index = lang.plural(n)
        assert 0 <= index < lang.forms
        assert category_of_index.setdefault(index, locale.plural_form(n)) == locale.plural_form(n), n
    assert len(set(category_of_index.values())) == len(category_of_index)
    assert lang.forms == (2 if language == "en" else 3)
    for key, text in lang.texts.items():
        if isinstance(text, tuple):
            assert len(text) == lang.forms, key
            count = count_of(key)
            assert count is not None, key
            assert all(f"{{{count}}}" in form for form in text), key


def test_serbian_plurals_say_1_bula_2_bule_5_bula() -> None:
    sr = languages()["sr"]
    assert [sr.plural(n) for n in SAMPLES] == [2, 0, 1, 2, 2, 0, 1, 2, 0, 2]
    ru = languages()["ru"]
    assert [ru.plural(n) for n in SAMPLES] == [2, 0, 1, 2, 2, 0, 1, 2, 0, 2]


def test_cyrillic_is_the_latin_letter_by_letter() -> None:
    every = languages()
    for key, latin in every["sr"].texts.items():
        cyrillic = every["sr-Cyrl"].texts[key]
        for lat, cyr in zip(forms_of(latin), forms_of(cyrillic), strict=True):
            assert cyr == to_cyrillic(lat, key), key
            assert to_latin(cyr) == lat, key


def test_cyrillic_keeps_what_members_type() -> None:
    assert (
        to_cyrillic("Ljubav, njiva i džep: /sudija {game} RUKA Discord")
        == "Љубав, њива и џеп: /sudija {game} РУКА Discord"
    )  # an argument's name is read, not typed as written: in the reader's script
    assert to_cyrillic("sudija", "name.sudija") == "sudija"
    assert (
        to_cyrillic("/presuda kazna NADIMAK [plavac D] — presuda u suđenju", "usage.presuda")
        == "/presuda kazna НАДИМАК [plavac D] — пресуда у суђењу"
    )
    assert (
        to_cyrillic("Datum GGGG-MM-DD, izvoz u JSON i CSV, karte AS QH, sudija zapisnik --verify DATOTEKA")
        == "Датум ГГГГ-ММ-ДД, извоз у JSON и CSV, карте AS QH, sudija zapisnik --verify ДАТОТЕКА"
    )  # acronyms and cards stay as typed
    assert (
        Catalogue("sr-Cyrl").t("call.notice_taken", game=7, caller="ana", referee="marko")
        == "Позив за партију 7 (ana) је прихватио судија marko."
    )


def test_cyrillic_keeps_files_and_settings_as_written() -> None:
    """An operator finds the file and types the setting: neither is transliterated ("цонфиг.томл ([цлуб] датабасе)"
    was neither), while a section followed by prose leaves the prose to the script."""
    assert (
        to_cyrillic("Navedite bazu u config.toml ([club] database) ili sudija-demo.db (docs/deploy.md).")
        == "Наведите базу у config.toml ([club] database) или sudija-demo.db (docs/deploy.md)."
    )
    assert to_cyrillic("[club] id, bazom; [web] u podešavanjima") == "[club] id, базом; [web] у подешавањима"
    assert to_cyrillic("i/ili, da/ne") == "и/или, да/не"
    shown = Catalogue("sr-Cyrl").t("db.unavailable.cannot_open", db="/srv/klub.db")
    assert "config.toml ([club] database)" in shown


def test_import_dict_adds_new_keys_to_every_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "locale"
    shutil.copytree(catalogues.ROOT, root)
    monkeypatch.setattr(catalogues, "ROOT", root)
    source = tmp_path / "new.py"
    source.write_text(
        "NEW = {\n    # Platform work: a greeting\n"
        '    "hello.new": ("Zdravo, {nick}! Ljudi čekaju.", "Hello, {nick}! People wait."),\n'
        '    "call.ok": ("izmenjeno", "changed"),\n}\n',
        encoding="utf-8",
    )
    assert import_dict([str(source)]) == 0
    assert "1 added, 0 replaced" in capsys.readouterr().out
    catalogues.languages.cache_clear()
    try:
        assert Catalogue("sr").t("hello.new", nick="ana") == "Zdravo, ana! Ljudi čekaju."
        assert Catalogue("sr-Cyrl").t("hello.new", nick="ana") == "Здраво, ana! Људи чекају."
        assert Catalogue("ru").t("hello.new", nick="ana") == "Hello, ana! People wait."
        assert "hello.new" in untranslated("ru")
        assert Catalogue("en").t("call.ok", game=1, minutes=5) != "changed"  # kept without --update
        po = (root / "sr_Latn" / "LC_MESSAGES" / "sudija.po").read_text("utf-8")
        assert '#. Platform work: a greeting\nmsgid "hello.new"' in po
        changed = tmp_path / "changed.py"
        changed.write_text('NEW = {"hello.new": ("Zdravo opet, {nick}!", "Hello again, {nick}!")}\n', encoding="utf-8")
        assert import_dict([str(changed), "--update"]) == 0
        assert "0 added, 1 replaced" in capsys.readouterr().out
        catalogues.languages.cache_clear()
        assert Catalogue("en").t("hello.new", nick="ana") == "Hello again, ana!"  # --update replaces the text
        assert Catalogue("sr-Cyrl").t("hello.new", nick="ana") == "Здраво опет, ana!"
        assert import_dict([str(tmp_path / "absent.py")]) == 2
        assert "no such file" in capsys.readouterr().err
    finally:
        catalogues.languages.cache_clear()


GOLDEN = Path(__file__).parent / "golden"


def golden(name: str, text: str) -> None:
    """Compare with tests/golden/NAME (SUDIJA_UPDATE_GOLDEN=1 rewrites it; the diff is then reviewed)."""
    path = GOLDEN / name
    if os.environ.get("SUDIJA_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def test_every_count_message_at_1_2_5_and_21_in_every_language() -> None:
    lines: list[str] = []
    plural_keys = [k for k, v in languages()["sr"].texts.items() if isinstance(v, tuple)]
    assert len(plural_keys) >= 30
    for key in plural_keys:
        count = count_of(key)
        assert count is not None
        names = {p for form in forms_of(languages()["en"].texts[key]) for p in PLACEHOLDER.findall(form)}
        for language in LANGUAGES:
            for n in (1, 2, 5, 21):
                params: dict[str, object] = {p: f"<{p}>" for p in names}
                params[count] = n
                lines.append(f"{key} [{language}] {n}: {Catalogue(language).t(key, **params)}")
    golden("counts.txt", "\n".join(lines) + "\n")


def test_times_are_on_the_clubs_clock_across_the_daylight_saving_change() -> None:
    """Europe/Belgrade goes from CET (UTC+1) to CEST (UTC+2) at 01:00 UTC on 29 March 2026 and back at 01:00
    UTC on 25 October 2026."""
    sr, en, ru = Catalogue("sr"), Catalogue("en"), Catalogue("ru")
    before, after = datetime(2026, 3, 29, 0, 30, tzinfo=UTC), datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    assert (sr.param(before), sr.param(after)) == ("29.3.2026. 01:30", "29.3.2026. 03:30")
    assert (en.param(before), en.param(after)) == ("29 Mar 2026, 01:30", "29 Mar 2026, 03:30")
    autumn = [datetime(2026, 10, 25, 0, 30, tzinfo=UTC), datetime(2026, 10, 25, 1, 30, tzinfo=UTC)]
    assert [ru.param(m) for m in autumn] == ["25.10.2026 02:30", "25.10.2026 02:30"]  # the hour lived twice
    assert Catalogue("sr", "UTC").param(after) == "29.3.2026. 01:30"
    assert sr.t("call.denied_until", until=after) == "Pravo da pozivate sudiju vam je uskraćeno do 29.3.2026. 03:30."


def test_durations_are_words_with_their_plural_forms() -> None:
    assert Catalogue("sr").param(timedelta(days=3, hours=2, minutes=21)) == "3 dana 2 sata 21 minut"
    assert Catalogue("sr").param(timedelta(days=1, hours=5)) == "1 dan 5 sati"
    assert Catalogue("en").param(timedelta(minutes=1)) == "1 minute"
    assert Catalogue("ru").param(timedelta(days=21, hours=22, minutes=25)) == "21 день 22 часа 25 минут"
    assert Catalogue("sr-Cyrl").param(timedelta(seconds=30)) == "0 минута"


def test_the_club_sets_its_time_zone_and_a_wrong_one_is_refused() -> None:
    assert from_dict({"club": {"timezone": "America/New_York"}}).timezone == "America/New_York"
    assert from_dict({}).timezone == "Europe/Belgrade"
    assert from_dict({"club": {"language": "sr-Cyrl"}}).language == "sr-Cyrl"
    for bad in ("Europe/Novi_Sad", "", "../etc"):
        with pytest.raises(ConfigError, match="timezone"):
            from_dict({"club": {"timezone": bad}})
    with pytest.raises(ConfigError, match="language"):
        from_dict({"club": {"language": "de"}})


MEMBER = r"\{(?:nick|caller|who|whom|councilor|player|fallen|other|culprit)\}"
PARTICIPLE = r"\w+(?:ao|eo|io|uo|la|lo)\b"  # the active past participle (igrao, podnela)
GENDERED = re.compile(
    rf"{MEMBER} (?:je |nije |se |je već |ga je )?{PARTICIPLE}"
    rf"|\b{PARTICIPLE} (?:je )?(?:većnik |igrač |sudija )?{MEMBER}"
)
NOT_PARTICIPLES = {"kao", "pravila", "sela", "cela", "dela", "stola", "bula", "bela", "Napustio"}


def test_no_serbian_text_makes_a_member_a_man_or_a_woman() -> None:
    """A member as the subject never carries a past participle ("milica nije igrao", "jelena je podneo")."""
    wrong = []
    for key, text in languages()["sr"].texts.items():
        for form in forms_of(text):
            for match in GENDERED.finditer(form):
                words = set(re.findall(r"\w+", match.group()))
                if not words & NOT_PARTICIPLES:
                    wrong.append((key, match.group()))
    assert not wrong, wrong


def test_discord_timestamps_replace_the_clubs_times_in_every_language() -> None:
    moment = datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 CEST, the first of the two 02:30s
    epoch = int(moment.timestamp())
    for language in LANGUAGES:
        text = Catalogue(language).t("call.denied_until", until=moment)
        assert f"<t:{epoch}:f>" in discord_times(text, language, "Europe/Belgrade")
        future = discord_times(text, language, "Europe/Belgrade", now=moment - timedelta(minutes=5))
        assert f"<t:{epoch}:f> (<t:{epoch}:R>)" in future
    assert discord_times("ruka 5, partija 1847320", "sr", "Europe/Belgrade") == "ruka 5, partija 1847320"


def test_no_count_stands_before_a_noun_outside_a_plural_form() -> None:
    """A number placeholder outside its entry's plural form may only stand where nothing agrees with it
    (tests/language_check.py): "2 poruka", "najviše 21 dana", "1 pages", "3 d." are what it catches."""
    assert numbers_outside_plural_forms() == []
    assert list(counts_before_a_word("k", "još {more} poruka", None)) == [("more", "poruka")]
    assert list(counts_before_a_word("k", "{pages} pages", None)) == [("pages", "pages")]
    assert list(counts_before_a_word("k", "skraćen za {days} d.", "days")) == [("days", "d.")]
    assert list(counts_before_a_word("k", "poruka: {messages}. Za {yes}, protiv {no} od {all}", None)) == []
    assert list(counts_before_a_word("k", "ruka {hand} je završena", None)) == []


def test_no_text_in_any_language_makes_a_member_a_man_or_a_woman() -> None:
    """Decided once: a member who is the subject of a past or passive participle is named after a noun that
    carries the agreement ("član jelena je razrešen funkcije", "Игрок ana снят"); without one, the phrase fails —
    in Serbian (both scripts) and Russian."""
    wrong = [
        (code, key, phrase)
        for code, language in languages().items()
        for key, text in language.texts.items()
        for form in forms_of(text)
        for phrase in gendered(code, form)
    ]
    assert not wrong, wrong
    assert gendered("sr", "{nick} je razrešen funkcije") == ["{nick} je razrešen"]
    assert gendered("sr", "Vaš zahtev: {nick} nije igrao") == ["{nick} nije igrao"]
    assert gendered("sr", "Član {nick} je razrešen funkcije: {role}.") == []
    assert gendered("sr-Cyrl", "{nick} је постављен") == ["{nick} je postavljen"]
    assert gendered("ru", "{nick} отозвал вызов") == ["{nick} отозвал"]
    assert gendered("ru", "Игрок {nick} снят с должности") == []
