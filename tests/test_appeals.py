"""Appeals (issue 19) through the desk, its Preuzmi button and the typed commands: who may file, the window of its
kind, the claim race (20 councilors at once, one winner), the hearing, the decision (upheld by a new verdict that
supersedes the old one, rejected with an appeal restriction), the reminders, and /presude listing it all."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

from test_penalties import judge, plavac_calls

from bot.commands import Commands
from bot.config import Config
from club import Club
from rules.appeals import AppealKind, AppealRules
from rules.verdicts import Draft, Nobody, Penalty
from storage.states import AppealState, TrialOutcome


async def setup(club: Club, councilors: int = 3, appeals: AppealRules | None = None) -> int:
    """Game 100 judged by sudija1 at ana's call: petar gets 3 days of plavac; the trial's id."""
    config: Config = club.desk.config
    if appeals is not None:
        club.desk.config = replace(config, appeals=appeals)
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("vecnik0", "councilor", "referee")  # a councilor who is a referee too
    for i in range(1, councilors + 1):
        await club.member(f"v{i}", "councilor")
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", plavac_days=3), "vređanje"))
    trials = await club.db.trials.for_game(100)
    return trials[-1].id


def told(club: Club, nick: str) -> list[str]:
    return [s.text for s in club.chat.to(f"dm:{nick}")]


async def test_a_party_files_within_the_window_and_others_may_not(club: Club) -> None:
    trial = await setup(club)
    desk = club.desk
    stranger = await desk.appeals.file_appeal(await club.get("jelena"), trial, None, "")
    assert not stranger.ok
    assert "strana" in stranger.text
    unknown_kind = await desk.appeals.file_appeal(await club.get("petar"), trial, "sgovor", "")
    assert not unknown_kind.ok
    assert "zalba (7)" in unknown_kind.text
    club.clock.advance(timedelta(days=7, minutes=1))  # the first club's kind: 7 days from the verdict
    late = await desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam kriv")
    assert not late.ok
    assert "istekao" in late.text
    assert await club.db.appeals.undecided() == []


async def test_the_culprit_appeals_once_and_the_councilors_are_pinged(club: Club) -> None:
    trial = await setup(club)
    commands = Commands(club.desk)
    petar = await club.get("petar")
    filed = await commands.handle(petar, f"/zalba {trial} -- nisam vređao, to je bio drugi igrač")
    assert filed is not None
    assert filed.ok
    assert "Žalba #1" in filed.text
    post = next(s for s in club.chat.of("post") if "Žalba #1" in s.text)
    assert [b.action for b in post.buttons] == ["appeal_take"]
    assert post.buttons[0].label == "Preuzmi"
    assert set(post.mention) == {"v1", "v2", "v3", "vecnik0"}  # the councilors in the lobby
    again = await commands.handle(petar, f"/zalba {trial}")
    assert again is not None
    assert not again.ok
    assert "Već ste" in again.text
    listing = await commands.handle(await club.get("v1"), "/zalbe")
    assert listing is not None
    assert "#1 na suđenje #1 (partija 100, zalba), petar: čeka većnika" in listing.text
    assert [b.action for b in listing.buttons] == ["appeal_take"]
    hidden = await commands.handle(petar, "/zalbe")
    assert hidden is not None
    assert not hidden.ok


async def test_twenty_councilors_press_preuzmi_at_once_and_one_wins(club: Club) -> None:
    trial = await setup(club, councilors=20)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam kriv")).ok
    appeal = (await club.db.appeals.undecided())[0]
    councilors = [await club.get(f"v{i}") for i in range(1, 21)]
    replies = await asyncio.gather(*(club.desk.press(c, "appeal_take", appeal.id) for c in councilors))
    winners = [c.nick for c, r in zip(councilors, replies, strict=True) if r.ok]
    assert len(winners) == 1
    losers = [r for r in replies if not r.ok]
    assert all(f"već preuzeo drugi većnik: {winners[0]}" in r.text for r in losers)
    fresh = await club.db.appeals.get(appeal.id)
    assert fresh is not None
    assert fresh.state is AppealState.TAKEN
    assert fresh.hearing is not None
    hearing = await club.db.trials.get(fresh.hearing)
    assert hearing is not None
    assert hearing.is_open
    assert hearing.referee == fresh.councilor
    assert len([t for t in await club.db.trials.for_game(100) if t.is_open]) == 1


async def test_a_councilor_who_took_part_is_neither_offered_nor_may_take_it(club: Club) -> None:
    trial = await setup(club)
    # sudija1 judged the trial; make him a councilor too: he may not hear the appeal against his own verdict
    sudija = await club.get("sudija1")
    await club.db.members.set_role(sudija.id, "councilor", True, None, club.clock.now())
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    post = next(s for s in club.chat.of("post") if "Žalba #1" in s.text)
    assert "sudija1" not in post.mention
    refused = await club.desk.press(await club.get("sudija1"), "appeal_take", 1)
    assert not refused.ok
    assert "Učestvovali ste" in refused.text


async def test_the_councilor_sees_the_trial_hears_the_appellant_and_upholds_by_lifting(club: Club) -> None:
    """The first club: "Jedina promena može biti ukidanje kazne … samo u slučaju da je sudija greškom kaznio nevinog
    igrača" — the new verdict is (niko); the plavac is lifted; the old record stays as it was."""
    trial = await setup(club)
    desk, commands = club.desk, Commands(club.desk)
    old = await club.db.trials.get(trial)
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam ja")).ok
    v1 = await club.get("v1")
    took = await desk.press(v1, "appeal_take", 1)
    assert took.ok
    assert "vređanje" in took.text
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.hearing is not None
    opened = club.chat.of("open")[-1]
    assert opened.where == f"trial:{appeal.hearing}"
    assert set(opened.members) >= {"v1", "petar"}
    await desk.trials.say(await club.get("petar"), "Nisam napisao tu poruku.")
    assert [m.text for m in await club.db.trials.messages(appeal.hearing)] == ["Nisam napisao tu poruku."]
    # Only a lifting: another penalty is refused at Završi suđenje
    assert (await desk.draft(v1, Draft(Penalty("marko", plavac_days=1), "ipak marko"))).ok
    refused = await desk.finish(v1)
    assert not refused.ok
    assert "ukinuti kazna" in refused.text
    assert (await desk.draft(v1, Draft(Nobody(), "kažnjen je nevin igrač"))).ok
    upheld = await commands.handle(v1, "/resi 1 usvojena")
    assert upheld is not None
    assert upheld.ok
    assert "usvojena" in upheld.text
    assert plavac_calls(club, "petar")[-1] is None  # the plavac is lifted by the one-penalty rule
    assert await club.db.trials.get(trial) == old  # the old record is never edited
    hearing = await club.db.trials.get(appeal.hearing)
    assert hearing is not None
    assert hearing.outcome is TrialOutcome.VERDICT
    assert any("je usvojena" in t and "Nova presuda" in t for t in told(club, "petar"))
    listing = await desk.verdicts(await club.get("ana"), 100)
    assert f"žalba #1 na suđenje #{trial} (zalba), petar" in listing.text
    assert "usvojena" in listing.text
    assert "v1" not in listing.text.split("Žalbe:")[1]  # the councilor's name only to officials


async def test_a_rejected_appeal_brings_a_restriction_that_refuses_the_next_appeal_not_calls(club: Club) -> None:
    rules = AppealRules(
        kinds=(AppealKind("zalba", 30),),
        rejected_restriction_days=30,
        inadmissible_restriction_days=30,
        restriction_min_days=30,
        restriction_max_days=365,
    )
    trial = await setup(club, appeals=rules)
    desk = club.desk
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    v2 = await club.get("v2")
    assert (await desk.press(v2, "appeal_take", 1)).ok
    out_of_range = await desk.appeals.decide_appeal(v2, 1, "odbijena", 400, "neosnovana")
    assert not out_of_range.ok
    assert "od 30 do 365 dana" in out_of_range.text
    no_reason = await desk.appeals.decide_appeal(v2, 1, "odbijena", None, " ")
    assert not no_reason.ok
    assert (await desk.appeals.decide_appeal(v2, 1, "odbijena", 60, "neosnovana")).ok
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.REJECTED
    assert appeal.restriction_days == 60
    assert any("60 dana" in t for t in told(club, "petar"))
    assert plavac_calls(club, "petar")[-1] is not None  # the penalty stands
    # marko, another party, appealed nothing; petar's next appeal (another trial) is refused; he may still call
    await club.game(101, ("petar", "marko", "ana"))
    await judge(club, 101, Draft(Penalty("petar", league_points=2), "kašnjenje"), caller="marko")
    second = (await club.db.trials.for_game(101))[-1].id
    refused = await desk.appeals.file_appeal(await club.get("petar"), second, None, "")
    assert not refused.ok
    assert "Ograničeno vam je pravo žalbe" in refused.text
    await club.game(102, ("petar", "marko", "ana"))
    assert (await desk.calls.call(await club.get("petar"), 102)).ok


async def test_nobody_takes_it_within_the_minutes_then_the_review_deadline_reminds(club: Club) -> None:
    trial = await setup(club)
    desk = club.desk
    v3 = await club.get("v3")
    await desk.presence(v3, False)  # not in the lobby: not pinged at first
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    assert not any(s.buttons and "Žalba #1" in s.text for s in club.chat.to("dm:v3"))
    await club.advance(timedelta(minutes=5))
    assert any("čeka više od 5 min" in t for t in told(club, "v3"))
    await club.advance(timedelta(days=12))  # review 14 days, reminded 2 days before
    reminders = [s for s in club.chat.of("post") if "Podsetnik" in s.text and s.where == "#referees"]
    assert len(reminders) == 1
    await club.advance(timedelta(hours=1))
    assert len([s for s in club.chat.of("post") if "Podsetnik" in s.text and s.where == "#referees"]) == 1
    await club.advance(timedelta(days=2))  # the review deadline: the councilors are told once
    await club.advance(timedelta(days=1))
    assert len([s for s in club.chat.of("post") if "je istekao" in s.text]) == 1


async def test_a_councilor_arriving_later_is_offered_it_and_a_hearing_left_waits_again(club: Club) -> None:
    trial = await setup(club)
    desk = club.desk
    v3 = await club.get("v3")
    await desk.presence(v3, False)
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    await desk.presence(await club.get("v3"), True)
    offered = [s for s in club.chat.to("dm:v3") if s.buttons and s.buttons[0].action == "appeal_take"]
    assert len(offered) == 1
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    assert (await desk.trials.leave(v1)).ok  # he leaves the hearing without a decision
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED
    assert appeal.hearing is None
    assert (await desk.press(await club.get("v2"), "appeal_take", 1)).ok


async def test_an_unrecorded_trial_or_a_hearing_cannot_be_appealed(club: Club) -> None:
    trial = await setup(club)
    desk = club.desk
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.hearing is not None
    open_one = await desk.appeals.file_appeal(await club.get("petar"), appeal.hearing, None, "")
    assert not open_one.ok
    assert "nema zabeleženu presudu" in open_one.text
    assert (await desk.appeals.decide_appeal(v1, 1, "nedopustena", None, "nije predmet žalbe")).ok
    of_hearing = await desk.appeals.file_appeal(await club.get("petar"), appeal.hearing, None, "")
    assert not of_hearing.ok
    assert "nema žalbe" in of_hearing.text


async def test_the_appeals_deadlines_survive_a_restart(club: Club) -> None:
    trial = await setup(club)
    v3 = await club.get("v3")
    await club.desk.presence(v3, False)
    assert (await club.desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    appeal = (await club.db.appeals.undecided())[0]
    assert appeal.ping_at in await club.desk.open_deadlines()
    club.clock.advance(timedelta(days=13))  # down past the ping and the reminder
    await club.desk.start()
    assert any("čeka više od 5 min" in t for t in told(club, "v3"))
    assert len([s for s in club.chat.of("post") if "Podsetnik" in s.text and s.where == "#referees"]) == 1


async def test_a_councilor_dismissed_by_vote_stops_hearing_and_the_appeal_waits_again(club: Club) -> None:
    trial = await setup(club, councilors=4)
    desk = club.desk
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "")).ok
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    assert (await desk.votes.dismiss(await club.get("v2"), "v1", "councilor", "pristrasan")).ok
    vote = (await club.db.votes.open_votes())[0]
    for nick in ("v3", "v4"):
        await desk.press(await club.get(nick), "vote_yes", vote.id)
    assert "councilor" not in (await club.get("v1")).roles
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.state is AppealState.FILED
    assert (await desk.press(await club.get("v3"), "appeal_take", 1)).ok


async def test_an_in_game_verdict_is_appealed_by_a_player_and_heard_after_the_game(club: Club) -> None:
    from rules.gamelog import GameStatus  # noqa: PLC0415 (imported where the test needs it)
    from rules.verdicts import BulaChange  # noqa: PLC0415 (imported where the test needs it)

    # A club whose upheld appeal may change any verdict (the first club's may only lift a penalty, so it refuses
    # an appeal against a bula change at once: tests/test_exact_to_the_letter_2.py).
    club.desk.config = replace(club.desk.config, appeals=AppealRules(may_change="any"))
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("v1", "councilor")
    await club.game(200, status=GameStatus.IN_PROGRESS, ended_ago=None, hands=5)
    assert (await club.desk.calls.call(await club.get("marko"), 200)).ok
    call = await club.db.calls.pending_for_game(200)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
    assert (await club.desk.draft(await club.get("sudija1"), Draft(BulaChange({"petar": 4}, hand=4), "x"))).ok
    assert (await club.desk.finish(await club.get("sudija1"))).ok
    trial = (await club.db.trials.for_game(200))[-1]
    assert (
        await club.desk.appeals.file_appeal(await club.get("petar"), trial.id, None, "")
    ).ok  # a player at the table
    refused = await club.desk.press(await club.get("v1"), "appeal_take", 1)
    assert not refused.ok
    assert "još igra" in refused.text
