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
