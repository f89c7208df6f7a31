"""Club governance through the desk and the text commands: who appoints and dismisses, resignation, denying and
restoring the right to call, the list of acts, the member's card (/clan and `sudija clan NICK [--json]`)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from bot.commands import Commands
from club import NOW, Club, database_for, make_club
from rules.verdicts import Draft, NoVerdict, Penalty


async def setup(club: Club) -> None:
    club.desk.config = replace(club.config, owner="vlasnik", owner_accounts=("test:vlasnik",))
    for nick in ("vlasnik", "ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("vecnik", "councilor")
    await club.member("mod", "moderator")


def told(club: Club, nick: str) -> list[str]:
    return [s.text for s in club.chat.to(f"dm:{nick}")]


async def test_owner_and_councilors_appoint_and_dismiss_others_may_not(club: Club) -> None:
    await setup(club)
    desk = club.desk
    owner, councilor, ana = await club.get("vlasnik"), await club.get("vecnik"), await club.get("ana")
    assert (await desk.votes.appoint(owner, "ana", "referee", "iskusna")).ok
    assert (await club.get("ana")).is_referee
    assert "Postavljeni ste" in told(club, "ana")[-1]
    assert not (await desk.votes.appoint(owner, "ana", "referee")).ok  # already
    alone = await desk.votes.appoint(councilor, "marko", "councilor", "dogovor većnika")
    assert not alone.ok
    assert "dogovorom" in alone.text
    assert (await desk.votes.appoint(owner, "marko", "councilor", "dogovor većnika")).ok
    refused = await desk.votes.appoint(ana, "petar", "referee")
    assert not refused.ok
    assert "Nemate pravo" in refused.text
    assert not (await desk.votes.appoint(councilor, "petar", "moderator")).ok  # moderators: the owner only
    assert (await desk.votes.appoint(owner, "petar", "moderator")).ok
    assert not (await desk.votes.dismiss(councilor, "ana", "referee", "")).ok  # a reason is required
    assert (await desk.votes.dismiss(councilor, "ana", "referee", "neaktivna")).ok  # a proposal: the councilors vote
    assert (await club.get("ana")).is_referee
    vote = (await club.db.votes.open_votes())[0]
    assert (await desk.votes.cast(await club.get("marko"), vote.id, True)).ok
    assert not (await club.get("ana")).is_referee
    assert "Razrešeni ste" in told(club, "ana")[-1]
    assert not (await desk.votes.dismiss(owner, "ana", "referee", "opet")).ok  # no longer holds it
    assert not (await desk.votes.appoint(owner, "niko_takav", "referee")).ok


async def test_anyone_resigns_his_own_function(club: Club) -> None:
    await setup(club)
    commands = Commands(club.desk)
    vecnik = await club.get("vecnik")
    reply = await commands.handle(vecnik, "/ostavka vecnik -- nemam vremena")
    assert reply is not None
    assert reply.ok
    assert "councilor" not in (await club.get("vecnik")).roles
    again = await commands.handle(await club.get("vecnik"), "/ostavka vecnik")
    assert again is not None
    assert not again.ok


async def test_a_function_a_platform_role_shows_is_given_and_taken_by_the_acts(club: Club) -> None:
    """The acts are the truth (decisions.md): a function the Discord role mapping shows is appointed, dismissed
    and resigned by the acts as any other — the owner, a councilor's proposal, the admin at the server — and each
    act asks the platforms to show it (a `roles` effect in the member's queue, written with the act)."""
    await setup(club)
    club.desk.config = replace(club.desk.config, discord=replace(club.desk.config.discord, roles={"referee": 7}))
    desk = club.desk
    await club.member("sudija", "referee")
    owner, councilor = await club.get("vlasnik"), await club.get("vecnik")
    assert (await desk.votes.appoint(owner, "ana", "referee", "iskusna")).ok
    assert (await club.get("ana")).is_referee
    assert (await desk.votes.dismiss(None, "sudija", "referee", "neaktivan")).ok
    assert not (await club.get("sudija")).is_referee
    assert (await desk.votes.resign(await club.get("ana"), "referee")).ok
    assert not (await club.get("ana")).is_referee
    rows = await club.db.connection.execute_fetchall("SELECT queue FROM chat_outbox WHERE kind = 'roles'", ())
    ana, sudija = await club.get("ana"), await club.get("sudija")
    assert sorted(str(r[0]) for r in rows) == sorted([f"member:{ana.id}", f"member:{sudija.id}", f"member:{ana.id}"])
    proposal = await desk.votes.appoint(councilor, "petar", "referee", "iskusan")  # a councilor's: a proposal still
    assert "glasati može samo 1 većnik" in proposal.text  # (one councilor: too few to vote)
    assert not (await club.get("petar")).is_referee


async def test_denying_and_restoring_the_right_to_call(club: Club) -> None:
    await setup(club)
    await club.member("sudija1", "referee")
    await club.game(100)
    desk, commands = club.desk, Commands(club.desk)
    ana = await club.get("ana")
    refused = await commands.handle(ana, "/uskrati petar 3 -- vređanje")
    assert refused is not None
    assert not refused.ok
    assert "većnici i Vlasnik" in refused.text
    # a single councilor proposes it: a councilors' vote (decisions.md), carried here by a second councilor's aye
    await club.member("vecnik2", "councilor")
    await club.member("vecnik3", "councilor")
    denied = await commands.handle(await club.get("vecnik"), "/uskrati ana 3 -- često neopravdano zvanje")
    assert denied is not None
    assert denied.ok
    assert "glasanje" in denied.text
    assert (await desk.calls.call(await club.get("ana"), 100)).ok  # not denied yet: only proposed
    await desk.calls.withdraw(await club.get("ana"), None)
    [vote] = await club.db.votes.open_votes()
    aye = await commands.handle(await club.get("vecnik2"), f"/glasaj {vote.id} da")
    assert aye is not None
    assert aye.ok, aye.text
    assert "do 3.12.2026. 13:00" in told(club, "ana")[-1]
    call = await desk.calls.call(await club.get("ana"), 100)
    assert not call.ok
    assert "3.12.2026. 13:00" in call.text
    forever = await commands.handle(await club.get("vlasnik"), "/uskrati marko -- vređanje sudije")
    assert forever is not None
    assert forever.ok
    assert not (await desk.calls.call(await club.get("marko"), 100)).ok
    no_reason = await commands.handle(await club.get("vlasnik"), "/uskrati petar 2")
    assert no_reason is not None
    assert not no_reason.ok
    restored = await commands.handle(await club.get("vecnik"), "/vrati marko -- izvinio se")
    assert restored is not None
    assert restored.ok
    assert (await desk.calls.call(await club.get("marko"), 100)).ok
    # A ban with an end lets the member call again once the date has passed.
    await club.advance(timedelta(days=3))
    await desk.calls.withdraw(await club.get("marko"), None)
    assert (await desk.calls.call(await club.get("ana"), 100)).ok


async def test_every_act_is_listed_with_who_whom_when_why_for_officials_only(club: Club) -> None:
    await setup(club)
    commands = Commands(club.desk)
    owner = await club.get("vlasnik")
    for line in (
        "/postavi ana sudija -- dobro poznaje pravila",
        "/uskrati petar do 2026-12-10 -- vređanje",
        "/razresi ana sudija osnov teze_krsenje -- na lični zahtev većnika",
        "/vrati petar",
    ):
        reply = await commands.handle(owner, line)
        assert reply is not None, (line, reply)
        assert reply.ok, (line, reply)
    await commands.handle(await club.get("vecnik"), "/ostavka vecnik -- odlazim")
    listing = await commands.handle(await club.get("mod"), "/akti")
    assert listing is not None
    assert listing.ok
    lines = listing.text.splitlines()[1:]
    assert "vecnik više nije većnik: ostavka. Razlog: odlazim" in lines[0]
    assert "petar ponovo ima pravo poziva sudije (odluka: vlasnik)" in lines[1]
    assert "ana više nije sudija: razrešenje (odluka: vlasnik). Razlog: na lični zahtev većnika" in lines[2]
    assert "petar nema pravo poziva sudije do 10.12.2026." in lines[3]
    assert "ana postaje sudija (odluka: vlasnik). Razlog: dobro poznaje pravila" in lines[4]
    assert all(line.startswith("30.11.2026. 13:00") for line in lines)
    about_petar = await commands.handle(owner, "/akti petar")
    assert about_petar is not None
    assert len(about_petar.text.splitlines()) == 4
    assert "petar (test): nalog je povezan (odluka: administrator), na serveru" in about_petar.text.splitlines()[-1]
    hidden = await commands.handle(await club.get("jelena"), "/akti")
    assert hidden is not None
    assert not hidden.ok


async def test_moderators_see_referee_names_in_presude_as_configured(club: Club) -> None:
    await setup(club)
    await club.member("sudija1", "referee")
    await club.game(100)
    assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
    call = await club.db.calls.pending_for_game(100)
    assert call is not None
    await club.desk.trials.take(await club.get("sudija1"), call.id)
    await club.desk.draft(await club.get("sudija1"), Draft(NoVerdict(), "već presuđeno"))
    await club.desk.finish(await club.get("sudija1"))
    assert "sudija1" in (await club.desk.verdicts(await club.get("mod"), 100)).text
    assert "sudija1" not in (await club.desk.verdicts(await club.get("jelena"), 100)).text
    club.desk.config = replace(club.desk.config, referee_names_visible_to=("referee", "councilor", "owner"))
    assert "sudija1" not in (await club.desk.verdicts(await club.get("mod"), 100)).text


async def test_clan_card_shows_roles_only_to_the_member_and_officials(club: Club) -> None:
    await setup(club)
    commands = Commands(club.desk)
    own = await commands.handle(await club.get("vecnik"), "/clan")
    assert own is not None
    assert "Funkcije: većnik" in own.text
    assert "Pravo da poziva sudiju: da" in own.text
    other = await commands.handle(await club.get("jelena"), "/clan vecnik")
    assert other is not None
    assert "Funkcije" not in other.text
    assert "Pravo" not in other.text
    assert "plavac: nema" in other.text
    assert "Napustio: 0" in other.text
    owner_view = await commands.handle(await club.get("vlasnik"), "/clan vlasnik")
    assert owner_view is not None
    assert "Vlasnik" in owner_view.text
    bad = await commands.handle(await club.get("vlasnik"), "/liga zatvori 2026-13")
    assert bad is not None
    assert not bad.ok
    assert "GGGG-MM" in bad.text
    not_owner = await commands.handle(await club.get("vecnik"), "/liga zatvori 2026-10")
    assert not_owner is not None
    assert not not_owner.ok
    closed = await commands.handle(await club.get("vlasnik"), "/liga zatvori 2026-10 -- kraj sezone")
    assert closed is not None
    assert closed.ok
    assert await club.db.league.closed("2026-10") is not None
    future = await commands.handle(await club.get("vlasnik"), "/liga zatvori 2027-01")
    assert future is not None
    assert not future.ok


async def _prepared(tmp_path: Path) -> str:
    club = await make_club(tmp_path)
    try:
        await club.member("ana")
        await club.member("marko")
        await club.member("petar", "referee", "councilor")
        await club.member("sudija1", "referee")
        await club.game(100, ("ana", "marko", "jelena"))
        await club.db.members.set_call_ban((await club.get("petar")).id, NOW + timedelta(days=400), None, "test", NOW)
        assert (await club.desk.calls.call(await club.get("ana"), 100)).ok
        call = await club.db.calls.pending_for_game(100)
        assert call is not None
        await club.desk.trials.take(await club.get("sudija1"), call.id)
        await club.desk.draft(
            await club.get("sudija1"), Draft(Penalty("marko", plavac_days=4, league_points=6), "nesportski")
        )
        await club.desk.finish(await club.get("sudija1"))
    finally:
        await club.db.close()
    return str(database_for(tmp_path))


def test_sudija_clan_shows_roles_plavac_league_napustio_and_the_right_to_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = asyncio.run(_prepared(tmp_path))
    assert cli_main(["clan", "marko", "--db", db, "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    now = datetime.now(UTC)
    # The CLI runs on the real clock: the test club's plavac (from 2026-11-30 12:00) may be over already.
    until = NOW + timedelta(days=4)
    assert card["plavac_until"] == (until.strftime("%Y-%m-%dT%H:%M:%SZ") if until > now else None)
    assert card["roles"] == []
    assert card["call"]["allowed"] is True
    assert card["penalties"][0]["league_points"] == 6
    assert card["penalties"][0]["plavac_days"] == 4
    assert set(card["league"]) >= {"month", "open", "points", "penalty_points"}
    assert card["napustio"] == {"total": 0, "this_month": 0}
    assert cli_main(["clan", "petar", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "Funkcije: sudija, većnik" in text or "Funkcije: većnik, sudija" in text
    assert "uskraćeno do" in text
    assert cli_main(["clan", "petar", "vrati", "--db", db, "--razlog", "odslužio"]) == 0
    assert cli_main(["clan", "ana", "postavi", "sudija", "--db", db]) == 0
    assert cli_main(["clan", "ana", "uskrati", "--dana", "5", "--db", db, "--razlog", "test"]) == 0
    assert cli_main(["clan", "ana", "razresi", "sudija", "--db", db]) == 1  # no reason
    capsys.readouterr()
    assert cli_main(["clan", "--akti", "--db", db]) == 0
    acts = capsys.readouterr().out
    assert "petar ponovo ima pravo poziva sudije (odluka: administrator)" in acts
    assert "ana postaje sudija (odluka: administrator)" in acts
    assert cli_main(["clan", "nepoznat", "--db", db]) == 1
    assert cli_main(["clan", "--zatvori-ligu", "2026-10", "--db", db]) == 0
    assert cli_main(["clan", "--zatvori-ligu", "2026-10", "--db", db]) == 1  # closed already


async def test_a_member_the_owner_removed_stays_out_of_the_club_until_readmitted(club: Club) -> None:
    """The removal (`remove_from_club`) is the owner's, with a reason: the member is out of the club at once, his
    pending call withdrawn, and a platform's join of him (`TrialDesk.member_joined`: a join, a sync, the roll
    call) marks his account present and nothing more; the roll call counts him where the records put him, so it
    reports nothing. Readmitted (`readmit`), he is in the club again while one of his accounts is present."""
    await setup(club)
    await club.game(100)
    desk = club.desk
    assert (await desk.calls.call(await club.get("ana"), 100)).ok
    refused = await desk.governance.remove_from_club(await club.get("vecnik"), "ana", "vređanje")
    assert refused == desk.voice.refuse("gov.not_allowed_remove")
    assert await desk.governance.remove_from_club(await club.get("vlasnik"), "ana", " ") == desk.voice.refuse(
        "gov.reason_required"
    )
    removed = await desk.governance.remove_from_club(await club.get("vlasnik"), "ana", "vređanje članova")
    assert removed.ok, removed.text
    assert "Isključeni ste iz Kluba. Razlog: vređanje članova" in told(club, "ana")[-1]
    assert await club.db.calls.pending_by_caller((await club.get("ana")).id) is None  # withdrawn
    await desk.trials.member_joined(await club.get("ana"), "test")
    assert not (await club.get("ana")).in_club
    assert ("ana", True, True) in await club.db.members.accounts_on("test")  # as the records say: nothing to report
    again = await desk.governance.remove_from_club(None, "ana", "opet")
    assert again == desk.voice.refuse("gov.already_removed", nick="ana")
    assert (await desk.governance.readmit(None, "marko")) == desk.voice.refuse("gov.not_removed", nick="marko")
    readmitted = await desk.governance.readmit(await club.get("vlasnik"), "ana", "izvinila se")
    assert readmitted.ok, readmitted.text
    assert (await club.get("ana")).in_club  # her account is present: in the club at once
    assert told(club, "ana")[-1] == "Ponovo ste primljeni u Klub."
    listing = await desk.governance.acts(None, "ana")
    assert "član ana je isključen iz Kluba (odluka: vlasnik). Razlog: vređanje članova" in listing.text
    assert "član ana je ponovo primljen u Klub (odluka: vlasnik). Razlog: izvinila se" in listing.text
