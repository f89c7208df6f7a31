"""`sudija zapisnik TRIAL --html` and `--verify`: the record of an in-game trial with a councilor, a transcript and
a bula change, in the members' view (referee and councilor by function) and the officials' view; the chain is the
same in both; `--verify` passes the file and finds a one-byte change anywhere; the page opened in headless
Chromium (Debian's package) renders every message and requests nothing from the network."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.cli import main
from bot.records.signing import ClubKey, fingerprint
from bot.records.zapisnik import CSP
from club import Club, database_for, make_club
from rules.gamelog import GameStatus
from rules.verdicts import BulaChange, Draft

MESSAGES = [
    "Marko je namerno kasnio <b>tri</b> puta & više",
    "Nisam, veza mi je pala.",
    "Proveriću dnevnik partije.",
    "Slažem se: kazna je opravdana. 😀",
]


async def judged(club: Club) -> int:
    """An in-game trial of game 200: ivana calls, sudijaPera judges, vecnikVera joins, four messages, a verdict."""
    referee = await club.member("sudijaPera", "referee")
    councilor = await club.member("vecnikVera", "councilor")
    marko, ivana, sanja = [await club.member(n) for n in ("marko", "ivana", "sanja")]
    await club.game(200, ("marko", "ivana", "sanja"), status=GameStatus.IN_PROGRESS)
    assert (await club.desk.calls.call(ivana, 200)).ok
    call = await club.db.calls.pending_by_caller(ivana.id)
    assert call is not None
    assert (await club.desk.trials.take(referee, call.id)).ok
    trial = await club.db.trials.judging(referee.id)
    assert trial is not None
    assert (await club.desk.trials.call_councilor(referee)).ok
    [ccall] = await club.db.calls.pending_councilor_calls()
    assert (await club.desk.trials.join_as_councilor(councilor, ccall.id)).ok
    await club.desk.trials.say(ivana, MESSAGES[0])
    await club.desk.trials.say(marko, MESSAGES[1])
    await club.desk.trials.say(referee, MESSAGES[2])
    await club.desk.trials.say(councilor, MESSAGES[3])
    assert sanja.nick == "sanja"
    assert (await club.desk.draft(referee, Draft(BulaChange({"marko": 2}), "kašnjenje"))).ok
    assert (await club.desk.finish(referee)).ok
    return trial.id


@pytest.fixture
def trial(tmp_path: Path) -> int:
    """The club's database in tmp_path/club.db (closed again) and the trial's number."""

    async def build() -> int:
        club = await make_club(tmp_path)
        try:
            return await judged(club)
        finally:
            await club.db.close()

    return asyncio.run(build())


def export(tmp_path: Path, trial: int, *extra: str) -> tuple[Path, str]:
    out = tmp_path / f"zapisnik-{trial}{'-officials' if extra else ''}.html"
    assert main(["zapisnik", str(trial), "--html", "--db", str(database_for(tmp_path)), "--out", str(out), *extra]) == 0
    return out, out.read_text(encoding="utf-8")


def data_of(document: str) -> dict[str, object]:
    block = re.search(r'<script type="application/json" id="zapisnik-data">(.*?)</script>', document, re.S)
    assert block is not None
    parsed: dict[str, object] = json.loads(block.group(1))
    return parsed


def test_members_view_hides_the_referee_and_the_councilor(
    trial: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, document = export(tmp_path, trial)
    printed = capsys.readouterr().out
    assert f"{path}: 4 poruke, SHA-256: " in printed  # 4 takes the few form (not "4 poruka")
    assert "sudijaPera" not in document
    assert "vecnikVera" not in document
    assert '<span class="who">sudija</span>' in document
    assert '<span class="who">većnik</span>' in document
    assert '<span class="who">ivana</span>' in document
    assert '<span class="who">marko</span>' in document
    assert "Marko je namerno kasnio &lt;b&gt;tri&lt;/b&gt; puta &amp; više" in document  # escaped, not markup
    assert "Promena bula" in document
    assert "<td>promena bula, ruka" in document
    assert "<td>+2</td>" in document  # marko's bule in the effect on the paper
    assert document.count('src="data:image/png;base64,') == 1 + 4  # the paper and the game's four hands
    assert not re.search(r'(src|href)="(?!data:)', document)  # nothing to fetch
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in document  # nor may anything be
    seal = printed.split("SHA-256: ")[1].strip()
    assert f'id="seal" data-link="{seal}">{seal}<' in document


def test_officials_view_names_them_and_carries_the_same_chain(trial: int, tmp_path: Path) -> None:
    _, members = export(tmp_path, trial)
    _, officials = export(tmp_path, trial, "--officials")
    assert '<span class="who">sudijaPera</span>' in officials
    assert '<span class="who">vecnikVera</span>' in officials
    assert "sudijaPera, " in officials  # who took the call
    assert data_of(members)["links"] == data_of(officials)["links"]


def test_verify_passes_an_intact_file_and_finds_a_one_byte_change(
    trial: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, document = export(tmp_path, trial)
    capsys.readouterr()
    club_db = ["--db", str(database_for(tmp_path))]  # the club's public key is in its database
    assert main(["zapisnik", "--verify", str(path), *club_db]) == 0
    assert "ispravan" in capsys.readouterr().out
    raw = path.read_bytes()
    for needle in (b"Nisam, veza", b"Partija", b"kasnio", b"<style>"):  # a message, a header, the data, the style
        at = raw.index(needle) + 1
        changed = raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]
        assert len(changed) == len(raw)
        assert changed != raw
        bad = tmp_path / "bad.html"
        bad.write_bytes(changed)
        assert main(["zapisnik", "--verify", str(bad), *club_db]) == 1, needle
        assert ": izmenjen" in capsys.readouterr().err
    # a message changed consistently in the data and on the page (the digest recomputed): the chain still breaks
    forged = document.replace("Nisam, veza mi je pala.", "Jesam, veza mi je pala.")
    import hashlib  # noqa: PLC0415 (imported where the test needs it)

    from bot.records.zapisnik import DIGEST_ZERO  # noqa: PLC0415 (imported where the test needs it)

    digest = re.search(r"sha256:([0-9a-f]{64})", forged)
    assert digest is not None
    zeroed = forged.replace(digest.group(1), DIGEST_ZERO, 1)
    forged = zeroed.replace(DIGEST_ZERO, hashlib.sha256(zeroed.encode()).hexdigest(), 1)
    bad.write_text(forged, encoding="utf-8")
    assert main(["zapisnik", "--verify", str(bad), *club_db, "--lang", "en"]) == 1
    assert "the chain breaks at message 2" in capsys.readouterr().err


def test_bad_input_is_a_message_not_a_traceback(trial: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(database_for(tmp_path))
    assert main(["zapisnik", "99", "--html", "--db", db, "--lang", "en"]) == 1
    assert "there is no trial 99" in capsys.readouterr().err
    assert main(["zapisnik", "1", "--db", db, "--lang", "en"]) == 1
    assert "give a trial and --html" in capsys.readouterr().err
    assert main(["zapisnik", "--verify", str(tmp_path / "none.html"), "--lang", "en"]) == 1
    assert "cannot read" in capsys.readouterr().err
    junk = tmp_path / "junk.html"
    junk.write_bytes(b"\xff\xfe not a record")
    assert main(["zapisnik", "--verify", str(junk), "--lang", "en"]) == 1
    assert "not UTF-8" in capsys.readouterr().err


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium's own services (time, updates, accounts, dictionaries): requests of the browser, not of the page
_BROWSER_HOSTS = re.compile(r"https?://([a-z0-9.-]+\.)?(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)/")


def open_in_chromium(page: Path, work: Path) -> tuple[str, set[str]]:
    """The DOM Chromium rendered, and every URL it requested that is not the page, a data: URI or Chromium's own
    service (every host name is unresolvable: nothing can leave the machine)."""
    assert CHROMIUM is not None
    netlog = work / "net.json"
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={work / 'profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--log-net-log={netlog}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    urls = set(re.findall(r'"url":"([^"]*)"', netlog.read_text(encoding="utf-8", errors="replace")))
    external = {u for u in urls if not u.startswith(("file:", "data:")) and not _BROWSER_HOSTS.match(u)}
    return result.stdout, external


@pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium); .ci/run installs it"
)
def test_the_record_renders_in_headless_chromium_without_any_request(trial: int, tmp_path: Path) -> None:
    path, _ = export(tmp_path, trial)
    dom, external = open_in_chromium(path, tmp_path)
    assert external == set()
    for text in MESSAGES:
        assert text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in dom
    assert dom.count('<li class="msg') == len(MESSAGES)
    # the check can fail: a page with an external picture is caught
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"></body></html>')
    _, caught = open_in_chromium(leaky, tmp_path / "second")
    assert caught == {"http://example.invalid/x.png"}


async def test_zapisnik_command_for_the_parties_and_the_officials(club: Club) -> None:
    from bot.records.zapisnik import verify_html  # noqa: PLC0415 (imported where the test needs it)
    from bot.registry import BY_NAME, run  # noqa: PLC0415 (imported where the test needs it)
    from bot.registry.spec import Args, Caller, Place  # noqa: PLC0415 (imported where the test needs it)

    trial_id = await judged(club)
    command = BY_NAME["zapisnik"]

    async def ask(nick: str, number: int = trial_id) -> Any:
        member = await club.get(nick)
        return await run(club.desk, Caller("test", nick, member, Place.PRIVATE), command, Args({"sudjenje": number}))

    caller = await ask("ivana")
    assert caller.ok
    assert "4 poruke" in caller.text
    [document] = caller.documents
    assert document.name == f"zapisnik-{trial_id}.html"
    assert document.mime == "text/html"
    assert b"sudijaPera" not in document.data  # a party outside referee_names_visible_to: the members' view
    result = verify_html(document.data)
    assert result.ok
    assert result.seal is not None
    assert result.seal in caller.text
    referee = await ask("sudijaPera")
    assert referee.ok
    assert b"sudijaPera" in referee.documents[0].data
    await club.member("mod", "moderator")
    assert (await ask("mod")).ok
    await club.member("stranac")
    stranger = await ask("stranac")
    assert not stranger.ok
    assert "stranke" in stranger.text
    assert stranger.documents == ()
    assert not (await ask("ivana", 999)).ok
    # an out-of-game trial: a player of the game who took no part in it gets the record too, once it has ended
    await club.game(300, ("marko", "ivana", "sanja"))
    sanja = await club.get("sanja")
    assert (await club.desk.calls.call(sanja, 300)).ok
    call = await club.db.calls.pending_by_caller(sanja.id)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudijaPera"), call.id)).ok
    assert {p.member for p in await club.db.trials.participants(trial_id + 1)} == {
        sanja.id,
        (await club.get("sudijaPera")).id,
    }
    still_on = await ask("ivana", trial_id + 1)
    assert not still_on.ok
    assert "u toku" in still_on.text
    assert (await club.desk.trials.leave(await club.get("sudijaPera"))).ok
    assert (await ask("ivana", trial_id + 1)).ok
    assert not (await ask("stranac", trial_id + 1)).ok


def _forged(document: str, attacker: ClubKey) -> str:
    """The issue's forgery: a party's words, the verdict (+2 → +20) and the referee's name changed in the page and
    in its data alike, the chain recomputed, signed again — with a key of the forger's own, shown as the record's."""
    from bot.records.zapisnik import (  # noqa: PLC0415 (imported where the test needs it)
        DIGEST_ZERO,
        SEAL_ZERO,
        SIGNATURE_ZERO,
        _page,
        record_of,
    )

    block = re.search(r'<script type="application/json" id="zapisnik-data">(.*?)</script>', document, re.S)
    assert block is not None
    data = json.loads(block.group(1))["record"]
    data["lines"] = [
        {**line, "text": line["text"].replace("Nisam, veza mi je pala.", "Priznajem, kasnio sam namerno.")}
        for line in data["lines"]
    ]
    data["verdict_text"] = data["verdict_text"].replace("+2", "+20")
    data["taken_by"] = "nevinaVesna"
    pictures = [base64.b64decode(p) for p in re.findall(r'src="data:image/png;base64,([^"]*)"', document)]
    page = _page(record_of(data, pictures), attacker.public_text)
    signature = attacker.sign(page.encode("utf-8"))
    page = page.replace(f"ed25519:{SIGNATURE_ZERO}", f"ed25519:{signature}", 1)
    seal = fingerprint(signature)
    page = page.replace(f'data-link="{SEAL_ZERO}">{SEAL_ZERO}<', f'data-link="{seal}">{seal}<', 1)
    return page.replace(DIGEST_ZERO, hashlib.sha256(page.encode("utf-8")).hexdigest(), 1)


def test_a_resealed_forgery_fails_naming_what_differs(
    trial: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, document = export(tmp_path, trial)
    capsys.readouterr()
    bad = tmp_path / "forged.html"
    bad.write_text(_forged(document, ClubKey(Ed25519PrivateKey.generate())), encoding="utf-8")
    assert main(["zapisnik", "--verify", str(bad), "--db", str(database_for(tmp_path)), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert "CHANGED" in err
    assert "not the club's" in err  # the forger's key is not the club's
    assert "the signature does not verify with the club's public key" in err
    assert "message 2 (text): the file says 'Priznajem, kasnio sam namerno.', the club's record 'Nisam" in err
    assert "verdict: the file says 'Promena bula za partiju u celini: marko +20'" in err
    assert "taken by: the file says 'nevinaVesna', the club's record 'sudija'" in err


def test_an_untouched_record_verifies_with_the_public_key_only(
    trial: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, document = export(tmp_path, trial)
    capsys.readouterr()
    assert main(["zapisnik", "--public-key", "--db", str(database_for(tmp_path))]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("ed25519:")
    assert f'id="public-key">{key}<' in document  # the record shows the club's public key
    alone = tmp_path / "elsewhere" / "record.html"  # a copy checked far from the club's database
    alone.parent.mkdir()
    alone.write_text(document, encoding="utf-8")
    nowhere = str(tmp_path / "elsewhere" / "no-such.db")
    assert main(["zapisnik", "--verify", str(alone), "--key", key, "--db", nowhere]) == 0
    out = capsys.readouterr().out
    assert "ispravan" in out
    seal = re.search(r'id="seal" data-link="([0-9a-f]{32})"', document)
    assert seal is not None
    assert seal.group(1) in out
    signature = re.search(r'content="ed25519:([^"]+)"', document)
    assert signature is not None
    assert seal.group(1) == fingerprint(signature.group(1))  # the seal is the signature's fingerprint
    other = ClubKey(Ed25519PrivateKey.generate()).public_text
    assert main(["zapisnik", "--verify", str(alone), "--key", other, "--db", nowhere, "--lang", "en"]) == 1
    assert "the signature does not verify with the club's public key" in capsys.readouterr().err
    assert main(["zapisnik", "--verify", str(alone), "--db", nowhere, "--lang", "en"]) == 1  # no key: not "intact"
    assert "no public key" in capsys.readouterr().err
    assert main(["zapisnik", "--verify", str(alone), "--key", "ed25519:nope", "--db", nowhere, "--lang", "en"]) == 1
    assert "the public key: an Ed25519 public key is 32 bytes" in capsys.readouterr().err


def test_the_record_carries_the_bots_events_in_the_conversation(trial: int, tmp_path: Path) -> None:
    _, document = export(tmp_path, trial)
    events = re.findall(
        r'<li class="event bot"[^>]*><time>[^<]*</time> <span class="who">Sudija \(bot\)</span>: '
        r'<span class="text">([^<]*)</span>',
        document,
    )
    assert events == [
        "Poziv preuzima: sudija",
        "Poziv većniku (šalje: sudija)",
        "Većnik u suđenju: većnik",
        "Nacrt presude je sačuvan",
        "Završi suđenje: presuda je doneta",
    ]
    assert document.count('<li class="msg') == len(MESSAGES)
    _, officials = export(tmp_path, trial, "--officials")
    assert "Poziv preuzima: sudijaPera" in officials
    assert "Većnik u suđenju: vecnikVera" in officials
    assert data_of(document)["links"] == data_of(officials)["links"]  # the events chained alike in both views


async def test_the_club_key_is_made_at_the_first_start_and_kept(tmp_path: Path) -> None:
    club = await make_club(tmp_path)
    try:
        first = await club.db.signing_key.get()
        assert first is not None
        assert first.public_key.startswith("ed25519:")
        await club.desk.start()
        assert await club.db.signing_key.get() == first
    finally:
        await club.db.close()
