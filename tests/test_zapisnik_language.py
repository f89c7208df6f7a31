"""The trial's record in the reader's language and on the club's clock (issue 37): the game's state in words, the
referee and the councilor named by their function in the reader's words, every moment of the page in the club's
zone; the chained data keeps the moments as stored. A record written before the zone was kept (no ``zone`` in its
data) still renders as it did, and so still verifies."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_zapisnik import data_of, trial  # noqa: F401 (the fixture)

from bot.cli import main
from bot.i18n import LANGUAGES
from bot.messages import Catalogue
from bot.records.signing import ClubKey
from bot.records.zapisnik import record_of, render_html, shown_time, verify_html
from club import database_for

_TAGS = re.compile(r"<script.*?</script>|<style.*?</style>|<[^>]+>", re.S)


def visible(document: str) -> str:
    """The page's text as a reader sees it (no data block, no style, no tags)."""
    return _TAGS.sub(" ", document)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_record_reads_in_the_language_on_the_clubs_clock(trial: int, tmp_path: Path, language: str) -> None:  # noqa: F811
    _, document = _export(tmp_path, trial, language)
    words = Catalogue(language)
    shown = visible(document)
    data = data_of(document)
    record = data["record"]
    assert isinstance(record, dict)
    assert record["zone"] == "Europe/Belgrade"
    assert "in_progress" not in shown
    assert words.t("record.game_status.in_progress") in shown
    assert f"{words.t('role.referee')}, " in shown  # "Принял: судья, …", not "sudija"
    called = datetime.fromisoformat(str(record["call_at"]))
    assert str(record["call_at"]).endswith("Z")  # the chained moment as stored
    assert words.param(called) in shown  # the page's: on the club's clock, the language's way
    assert str(record["call_at"]) not in shown
    if language in ("sr-Cyrl", "ru"):
        assert "sudija" not in shown.replace("Sudija", "").replace("`sudija zapisnik --verify`", "")


def _export(tmp_path: Path, trial: int, language: str) -> tuple[Path, str]:  # noqa: F811
    out = tmp_path / f"zapisnik-{trial}-{language}.html"
    db = str(database_for(tmp_path))
    assert main(["zapisnik", str(trial), "--html", "--db", db, "--out", str(out), "--lang", language]) == 0
    return out, out.read_text(encoding="utf-8")


def test_a_record_without_a_zone_renders_and_verifies_as_before(trial: int, tmp_path: Path) -> None:  # noqa: F811
    _, document = _export(tmp_path, trial, "sr")
    data = data_of(document)["record"]
    assert isinstance(data, dict)
    old = replace(record_of({**data, "pictures": []}, []), zone=None)
    assert shown_time(old, old.call_at) == old.call_at  # as stored: 2026-…Z
    key = ClubKey(Ed25519PrivateKey.generate())
    sealed = render_html(old, key)
    assert "zone" not in data_of(sealed.document)["record"]  # type: ignore[operator]
    assert old.call_at in visible(sealed.document)
    result = verify_html(sealed.document.encode("utf-8"), key.public_text)
    assert result.ok, result.problems


@pytest.mark.parametrize("language", ["sr", "sr-Cyrl", "ru"])
def test_verify_names_what_is_wrong_in_the_language(
    trial: int,  # noqa: F811
    tmp_path: Path,
    language: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`sudija zapisnik --verify` on a one-byte change, on a message changed with the digest recomputed (the chain
    breaks) and on a resealed forgery (another key; the fields and the lines that differ from the club's record):
    every problem in the language, the record's own values (quoted) as they are."""
    from test_cli_language import foreign_text  # noqa: PLC0415 (imported where the test needs it)
    from test_zapisnik import _forged  # noqa: PLC0415 (imported where the test needs it)

    path, document = _export(tmp_path, trial, language)
    club = ["--db", str(database_for(tmp_path)), "--lang", language]
    words = Catalogue(language)
    raw = path.read_bytes()
    at = raw.index(b"<style>") + 1
    bad = tmp_path / "bad.html"
    bad.write_bytes(raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :])
    said = []
    forged = ClubKey(Ed25519PrivateKey.generate())
    for changed in (bad.read_text(encoding="utf-8"), _forged(document, forged)):
        bad.write_text(changed, encoding="utf-8")
        capsys.readouterr()
        assert main(["zapisnik", "--verify", str(bad), *club]) == 1
        said.append(capsys.readouterr().err)
    assert said[0].startswith(words.t("cli.zapisnik.changed", path=bad))
    assert words.t("verify.digest") in said[0]
    assert words.t("verify.signature_club") in said[1]
    assert words.t("verify.field.taken_by") + ": " in said[1]
    assert words.t("verify.line_message", number=2) + f" ({words.t('verify.part.text')}): " in said[1]
    key = ["--key", "ed25519:nope"]  # a key that is not one
    assert main(["zapisnik", "--verify", str(path), *club, *key]) == 1
    said.append(capsys.readouterr().err)
    length = words.t("verify.key.length", length=3)
    assert words.t("verify.bad_key", error=length) in said[-1]
    assert main(["zapisnik", "--verify", str(tmp_path / "none.html"), *club]) == 1  # no such file
    said.append(capsys.readouterr().err)
    assert words.t("oserror.enoent") in said[-1]
    values = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|ed25519:\S+")  # what the file and the club's record hold
    problems = [
        f"{line}: {p}"
        for text in said
        for line in text.splitlines()
        for p in foreign_text(language, values.sub(" ", line))
    ]
    assert problems == []
