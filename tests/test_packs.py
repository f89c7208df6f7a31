"""The rule packs (packs/*.toml), each run through scenarios written from its own text: `config.toml` includes the
pack by name, the desk runs on what it loads. The first club's: only the lifting of a wrongly given penalty; the
federation's catalogue: warnings, then per-minute shares of a top, assigned results, 50% then 100%; the Russian
site's: appeal windows of 30 and 90 days, an appeal restriction that refuses the next appeal, suspensions growing
10 → 14 days within three months of the end of the last one."""

from __future__ import annotations

from datetime import UTC, timedelta
from pathlib import Path

import pytest
from test_penalties import judge

from bot.config import Config, ConfigError, load
from bot.desk.statistics import council_figures, figures_text
from bot.messages import Catalogue
from bot.ports import Upload
from club import NOW, Club
from rules.penalty_model import (
    Earlier,
    PenaltyKind,
    PenaltyModelError,
    PenaltyRefused,
    PenaltyRule,
    find_rule,
    parse_rules,
    price,
)
from rules.verdicts import Draft, Nobody, Penalty
from storage.members import Member

SR = Catalogue("sr")


def with_pack(tmp_path: Path, name: str, extra: str = "") -> Config:
    file = tmp_path / "config.toml"
    file.write_text(f'[club]\npack = "{name}"\n{extra}', encoding="utf-8")
    return load(file)


def rule(config: Config, name: str) -> PenaltyRule:
    found = find_rule(config.penalties.rules, name)
    assert found is not None, name
    return found


async def recorded(club: Club, config: Config, number: int = 100) -> int:
    club.desk.config = config
    for nick in ("ana", "marko", "petar"):
        if await club.db.members.by_nick(nick) is None:
            await club.member(nick)
    if await club.db.members.by_nick("sudija1") is None:
        await club.member("sudija1", "referee")
        for nick in ("v1", "v2", "v3"):
            await club.member(nick, "councilor")
    await club.game(number)
    await judge(club, number, Draft(Penalty("petar", plavac_days=3), "vređanje"))
    return (await club.db.trials.for_game(number))[-1].id


# The first club ----------------------------------------------------------------------------------------------


def test_the_first_clubs_pack_is_the_defaults(tmp_path: Path) -> None:
    assert with_pack(tmp_path, "prvi_klub") == Config(pack="prvi_klub")


async def test_first_club_an_appeal_can_only_lift_a_penalty_given_to_an_innocent_player(
    club: Club, tmp_path: Path
) -> None:
    config = with_pack(tmp_path, "prvi_klub")
    trial = await recorded(club, config)
    desk = club.desk
    assert (await desk.appeals.file_appeal(await club.get("petar"), trial, None, "nisam ja")).ok
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    assert (await desk.draft(v1, Draft(Penalty("petar", plavac_days=5), "još strože"))).ok
    refused = await desk.finish(v1)
    assert not refused.ok
    assert "samo ukinuti kazna data nevinom igraču" in refused.text
    assert (await desk.draft(v1, Draft(Nobody(), "sudija je kaznio nevinog igrača"))).ok
    assert (await desk.finish(v1)).ok
    card = await desk.penalties.member_card(await club.get("petar"))
    assert card.plavac_until is None  # lifted


# The bridge federation ---------------------------------------------------------------------------------------


def test_federation_a_first_lateness_is_a_warning_then_ten_percent_a_minute_after_the_first(tmp_path: Path) -> None:
    config = with_pack(tmp_path, "nsbk")
    late = rule(config, "kasnjenje")
    first = price(late, [], NOW, units=3)
    assert first.kind is PenaltyKind.WARNING
    assert first.repeat == 0
    second = price(late, [Earlier(NOW)], NOW + timedelta(hours=1), units=4)  # 4 minutes: 3 after the first
    assert second.kind is PenaltyKind.TOP_SHARE
    assert second.amount == 30
    assert price(rule(config, "kasnjenje_imp"), [Earlier(NOW)], NOW + timedelta(hours=1), units=4).amount == 3
    with pytest.raises(PenaltyRefused) as missing:
        price(late, [Earlier(NOW)], NOW + timedelta(hours=1))
    assert missing.value.key == "penalty_model.units_needed"
    assert missing.value.params["unit"] == "minut"
    # the next tournament starts afresh: a warning again
    assert price(late, [Earlier(NOW)], NOW + timedelta(days=7), units=4).kind is PenaltyKind.WARNING


def test_federation_one_minute_of_delay_is_tolerated_first_or_further(tmp_path: Path) -> None:
    """ "Jedan minut kašnjenja se toleriše … Za prvo kašnjenje preko jednog minuta par dobija opomenu": a minute
    is no offence (not even a warning), two are; the minutes are needed for the first delay too."""
    config = with_pack(tmp_path, "nsbk")
    for name in ("kasnjenje", "kasnjenje_imp"):
        late = rule(config, name)
        for earlier in ([], [Earlier(NOW)]):
            with pytest.raises(PenaltyRefused) as tolerated:
                price(late, earlier, NOW + timedelta(hours=1), units=1)
            assert tolerated.value.key == "penalty_model.tolerated"
            assert (tolerated.value.params["units"], tolerated.value.params["tolerated"]) == (1, 1)
            with pytest.raises(PenaltyRefused) as missing:
                price(late, earlier, NOW + timedelta(hours=1))
            assert missing.value.key == "penalty_model.units_needed"
        assert price(late, [], NOW, units=2).kind is PenaltyKind.WARNING
        assert price(late, [Earlier(NOW)], NOW + timedelta(hours=1), units=2).amount == (
            10 if name == "kasnjenje" else 1
        )
    with pytest.raises(PenaltyModelError, match="tolerated_units counts"):
        parse_rules([{"name": "x", "tolerated_units": 1, "steps": [{"kind": "warning"}]}])


def test_federation_an_unplayed_board_is_an_assigned_forty_sixty(tmp_path: Path) -> None:
    config = with_pack(tmp_path, "nsbk")
    assigned = price(rule(config, "neodigran_bord"), [], NOW)
    assert (assigned.kind, assigned.amount, assigned.innocent) == (PenaltyKind.ASSIGNED_RESULT, 40, 60)
    assert price(rule(config, "greska_upisa"), [], NOW).amount == 25
    assert price(rule(config, "uvreda_sudije"), [], NOW).kind is PenaltyKind.REFERRAL


def test_federation_unsportsmanlike_conduct_is_at_least_fifty_then_a_hundred(tmp_path: Path) -> None:
    config = with_pack(tmp_path, "nsbk")
    conduct = rule(config, "nesportsko")
    assert price(conduct, [], NOW).amount == 50
    assert price(conduct, [], NOW, chosen=70).amount == 70  # "bar 50%": the referee may give more
    with pytest.raises(PenaltyRefused) as below:
        price(conduct, [], NOW, chosen=40)
    assert below.value.key == "penalty_model.out_of_range"
    assert (
        below.value.params["low"],
        below.value.params["high"],
    ) == (50, 100)
    assert price(conduct, [Earlier(NOW)], NOW + timedelta(minutes=30)).amount == 100
    with pytest.raises(PenaltyRefused) as fixed:
        price(conduct, [Earlier(NOW)], NOW + timedelta(minutes=30), chosen=60)
    assert fixed.value.params["amount"] == 100


# The Russian site ----------------------------------------------------------------------------------------------


CHAT = Upload("stol-100.png", "image/png", b"\x89PNG table chat")


async def russian_club(club: Club, config: Config, number: int = 100) -> None:
    """The Russian site's club: three players of game `number` (ended now), a referee and three councilors."""
    club.desk.config = config
    for nick in ("ana", "marko", "petar"):
        if await club.db.members.by_nick(nick) is None:
            await club.member(nick)
    if await club.db.members.by_nick("sudija1") is None:
        await club.member("sudija1", "referee")
        for nick in ("v1", "v2", "v3"):
            await club.member(nick, "councilor")
    await club.game(number, ended_ago=timedelta(0))


async def test_russian_site_a_report_on_day_29_is_heard_on_day_31_refused(club: Club, tmp_path: Path) -> None:
    """ "Срок давности … 30 дней": counted from the game's end, for any player of the game (no trial needed, and the
    7-day call window does not apply)."""
    await russian_club(club, with_pack(tmp_path, "ruski_sajt"))
    club.clock.advance(timedelta(days=29))
    filed = await club.desk.appeals.file_report(await club.get("petar"), 100, "apelacija", "pustio miser", (CHAT,))
    assert filed.ok, filed.text
    club.clock.advance(timedelta(days=2))  # day 31, another player
    late = await club.desk.appeals.file_report(await club.get("ana"), 100, "apelacija", "", (CHAT,))
    assert not late.ok
    assert "30 dana od kraja partije 100" in late.text


async def test_russian_site_a_collusion_report_on_day_89_is_heard(club: Club, tmp_path: Path) -> None:
    await russian_club(club, with_pack(tmp_path, "ruski_sajt"))
    club.clock.advance(timedelta(days=89))
    report = club.desk.appeals.file_report
    assert not (await report(await club.get("ana"), 100, "timska", "", (CHAT,))).ok  # 30 days for that
    assert (await report(await club.get("petar"), 100, "sgovor", "dogovor ana i marko", (CHAT,))).ok


async def test_russian_site_a_rejected_report_restricts_the_next_one(club: Club, tmp_path: Path) -> None:
    config = with_pack(tmp_path, "ruski_sajt")
    await russian_club(club, config)
    await russian_club(club, config, 101)
    desk = club.desk
    assert (await desk.appeals.file_report(await club.get("petar"), 100, None, "", (CHAT,))).ok
    v1 = await club.get("v1")
    assert (await desk.press(v1, "appeal_take", 1)).ok
    assert (await desk.appeals.decide_appeal(v1, 1, "odbijena", None, "ne spada pod pravila kažnjavanja")).ok
    appeal = await club.db.appeals.get(1)
    assert appeal is not None
    assert appeal.restriction_days == 30
    refused = await desk.appeals.file_report(await club.get("petar"), 101, None, "", (CHAT,))
    assert not refused.ok
    assert "Ograničeno" in refused.text
    club.clock.advance(timedelta(days=30, minutes=1))
    again = await desk.appeals.file_report(await club.get("petar"), 101, "sgovor", "", (CHAT,))
    assert again.ok  # over: he reports again


def test_russian_site_a_repeat_within_three_months_escalates_ten_to_fourteen_not_after_four(tmp_path: Path) -> None:
    config = with_pack(tmp_path, "ruski_sajt")
    misere = rule(config, "pustanje_misera")
    assert price(misere, [], NOW).amount == 10
    served = Earlier(NOW, NOW + timedelta(days=10))
    repeat = price(misere, [served], NOW + timedelta(days=10 + 89))  # three months from serving it
    assert (repeat.kind, repeat.amount, repeat.repeat) == (PenaltyKind.SUSPENSION_DAYS, 14, 1)
    assert price(misere, [served], NOW + timedelta(days=10 + 122)).amount == 10  # four months: no repeat
    # after a repeat the probation is six months
    second = Earlier(NOW + timedelta(days=99), NOW + timedelta(days=113))
    assert price(misere, [served, second], NOW + timedelta(days=113 + 150)).amount == 14
    assert price(misere, [served, second], NOW + timedelta(days=113 + 200)).amount == 10
    # the edges: three months (90 days) from the end of the suspension is still a repeat, a second later it is not
    end = served.ended_at
    assert end is not None
    assert price(misere, [served], end + timedelta(days=90)).amount == 14
    assert price(misere, [served], end + timedelta(days=90, seconds=1)).amount == 10
    after_repeat = NOW + timedelta(days=113)  # the end of the second suspension: a probation of six months from it
    assert price(misere, [served, second], after_repeat + timedelta(days=180)).amount == 14
    assert price(misere, [served, second], after_repeat + timedelta(days=180, seconds=1)).amount == 10
    restriction = rule(config, "neosnovana_zalba")
    with pytest.raises(PenaltyRefused):
        price(restriction, [], NOW, chosen=400)
    assert price(restriction, [], NOW, chosen=365).amount == 365


# Including a pack ----------------------------------------------------------------------------------------------


def test_the_file_overrides_its_pack_and_an_unknown_pack_is_named(tmp_path: Path) -> None:
    config = with_pack(tmp_path, "ruski_sajt", "[appeals]\nreview_days = 60\n")
    assert config.appeals.review_days == 60
    assert [k.name for k in config.appeals.kinds][-1] == "sgovor"
    assert config.appeals.restriction_max_days == 365
    with pytest.raises(ConfigError, match=r"no such pack.*nsbk, prvi_klub, ruski_sajt"):
        with_pack(tmp_path, "treci")
    with pytest.raises(ConfigError, match="pack's name"):
        with_pack(tmp_path, "../etc")


async def test_russian_site_the_referee_suspends_by_the_rule_and_a_repeat_costs_fourteen(
    club: Club, tmp_path: Path
) -> None:
    """Through the verdict: `kazna petar po pustanje_misera` is 10 days of suspension; the next one, within three
    months of its end, 14; a figure of the referee's own is refused (the rule fixes it)."""
    config = with_pack(tmp_path, "ruski_sajt")
    club.desk.config = config
    for nick in ("ana", "marko", "petar"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.game(100)
    await judge(club, 100, Draft(Penalty("petar", offence="pustanje_misera"), "pustio miser"))
    first = (await club.db.trials.for_game(100))[-1]
    assert first.verdict is not None
    assert (first.verdict["suspension_days"], first.verdict["plavac_days"]) == (10, 0)  # a suspension, not a plavac
    club.clock.advance(timedelta(days=10 + 60))
    await club.game(101)
    reply = await club.desk.calls.call(await club.get("ana"), 101)
    assert reply.ok
    call = await club.db.calls.pending_for_game(101)
    assert call is not None
    assert (await club.desk.trials.take(await club.get("sudija1"), call.id)).ok
    fixed = await club.desk.draft(
        await club.get("sudija1"), Draft(Penalty("petar", plavac_days=3, offence="pustanje_misera"), "opet")
    )
    assert not fixed.ok
    assert "ne bira se" in fixed.text
    repeat = await club.desk.draft(
        await club.get("sudija1"), Draft(Penalty("petar", offence="pustanje_misera"), "opet")
    )
    assert repeat.ok
    assert "Ponovljeni prekršaj" in repeat.text
    assert "14" in repeat.text
    assert (await club.desk.finish(await club.get("sudija1"))).ok
    second = (await club.db.trials.for_game(101))[-1]
    assert second.verdict is not None
    assert second.verdict["suspension_days"] == 14


async def nsbk_trial(club: Club, tmp_path: Path, number: int, first: bool = True) -> Member:
    """An out-of-game trial of game `number` taken by sudija1 in the federation's club (ana, marko, petar)."""
    if first:
        club.desk.config = with_pack(tmp_path, "nsbk")
        for nick in ("ana", "marko", "petar"):
            await club.member(nick)
        await club.member("sudija1", "referee")
    await club.game(number)
    assert (await club.desk.calls.call(await club.get("ana"), number)).ok
    call = await club.db.calls.pending_for_game(number)
    assert call is not None
    referee = await club.get("sudija1")
    assert (await club.desk.trials.take(referee, call.id)).ok
    return referee


async def test_a_bridge_kind_is_recorded_as_a_sanction_in_the_clubs_units_saying_so(club: Club, tmp_path: Path) -> None:
    """Issue 35, item 5 (it was refused before, named in English): an unplayed board's assigned result is recorded
    with the catalogue's amounts, and the referee is told this game has no such scoring to apply it to."""
    referee = await nsbk_trial(club, tmp_path, 100)
    reply = await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord"), "x"))
    assert reply.ok, reply.text
    assert SR.t("penalty_model.recorded", kind=SR.t("penalty_kind.assigned_result")) in reply.text
    assert "dodeljeni rezultat 40% (nedužnoj strani 60%)" in reply.text
    assert "assigned_result" not in reply.text
    assert (await club.desk.finish(referee)).ok
    [trial] = await club.db.trials.for_game(100)
    assert trial.verdict is not None
    assert trial.verdict["sanction"] == {"kind": "assigned_result", "amount": 40, "repeat": 0, "innocent": 60}
    assert (trial.verdict["plavac_days"], trial.verdict["league_points"]) == (0, 0)


async def test_the_catalogue_shows_a_packs_rules_and_appeal_kinds(club: Club, tmp_path: Path) -> None:
    club.desk.config = with_pack(tmp_path, "nsbk")
    text = club.desk.catalogue.catalogue_text()
    assert "nema katalog" not in text  # its rules are the catalogue
    assert "kasnjenje: opomena → % topa 0 + 10 po jedinici (minut) posle 1 (ponavljanje u roku od 1 dana)" in text
    assert "neodigran_bord: dodeljeni rezultat % 40/60" in text
    assert "nesportsko: % topa 50–100 → % topa 100" in text
    club.desk.config = with_pack(tmp_path, "ruski_sajt")
    text = club.desk.catalogue.catalogue_text()
    assert "apelacija 30 dana, timska 30 dana, sgovor 90 dana; odluka u roku od 90 dana" in text
    assert "pustanje_misera: suspenzija (dana) 10 → suspenzija (dana) 14" in text


def test_a_wrong_setting_is_refused_naming_it() -> None:
    from bot.config import from_dict  # noqa: PLC0415 (imported where the test needs it)

    cases = [
        ({"governance": {"majority": "1"}}, "governance.majority"),
        ({"governance": {"vote_days": 0}}, "governance.vote_days"),
        ({"appeals": {"kinds": [{"name": "zalba", "days": 0}]}}, "appeals.kinds entry 1"),
        ({"appeals": {"kinds": []}}, "at least one kind"),
        ({"appeals": {"may_change": "sve"}}, "appeals.may_change"),
        (
            {"appeals": {"rejected_restriction_days": 10, "restriction_min_days": 30, "restriction_max_days": 365}},
            "rejected_restriction_days = 10 is outside",
        ),
        ({"penalties": {"rules": [{"name": "x", "steps": [{"kind": "kazna"}]}]}}, "kind must be one of warning"),
        ({"penalties": {"rules": [{"name": "x"}]}}, "at least one"),
        (
            {
                "penalties": {
                    "rules": [{"name": "x", "steps": [{"kind": "top_share", "amount": 10, "low": 50, "high": 100}]}]
                }
            },
            "outside 50 … 100",
        ),
    ]
    for data, message in cases:
        with pytest.raises(ConfigError, match=message):
            from_dict(data)


async def test_federation_a_delay_escalates_warning_then_ten_percent_a_minute_within_the_tournament(
    club: Club, tmp_path: Path
) -> None:
    """ "Za prvo kašnjenje preko jednog minuta par dobija opomenu; za svako dalje kašnjenje kazna iznosi 10%/1 IMP
    za svaki minut nakon prvog." Through the verdict: a warning, then 30% of a top for 4 minutes the same day;
    the next day (the next tournament) a warning again. Each is shown in /presude, on the member's card, in the
    statistics, and told to the culprit."""
    referee = await nsbk_trial(club, tmp_path, 100)
    first = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje", units=3), "kasnio"))
    assert first.ok, first.text
    assert "opomena (kasnjenje; 3 jedinice)" in first.text
    assert (await club.desk.finish(referee)).ok
    assert any("opomena (kasnjenje; 3 jedinice)" in s.text for s in club.chat.to("dm:petar"))
    club.clock.advance(timedelta(hours=2))
    await nsbk_trial(club, tmp_path, 101, first=False)
    missing = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje"), "opet"))
    assert not missing.ok
    assert missing.text == SR.t("penalty_model.units_needed", name="kasnjenje", unit="minut")
    second = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje", units=4), "opet"))
    assert second.ok, second.text
    assert "30% topa (kasnjenje; 4 jedinice; ponavljanje 1)" in second.text
    assert SR.t("penalty_model.repeat", repeat=1, name="kasnjenje") in second.text
    assert (await club.desk.finish(referee)).ok
    listing = await club.desk.verdicts(await club.get("petar"), 101)
    assert "Kazna za petar: 30% topa (kasnjenje; 4 jedinice; ponavljanje 1)" in listing.text
    card = club.desk.penalties.card_text(await club.desk.penalties.member_card(await club.get("petar")), full=False)
    assert SR.t("card.sanctions", count=2) in card
    assert "partija 100" in card
    assert "opomena (kasnjenje; 3 jedinice)" in card
    assert "30% topa" in card
    figures = await council_figures(club.db, None, None, UTC)
    assert figures.sanctions == {"top_share": 1, "warning": 1}
    assert "Sankcije u jedinicama Kluba: % topa 1, opomena 1" in figures_text(figures, "sr", None, None)
    club.clock.advance(timedelta(days=1, hours=1))
    await nsbk_trial(club, tmp_path, 102, first=False)
    again = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje", units=5), "treći dan"))
    assert again.ok
    assert "opomena (kasnjenje; 5 jedinica)" in again.text


async def test_federation_a_tolerated_minute_is_refused_and_counts_for_no_repeat(club: Club, tmp_path: Path) -> None:
    """A delay of one minute is no offence: the referee is told so and nothing is drafted, so the next delay the
    same day is still the first one (a warning). /katalog says what is tolerated."""
    referee = await nsbk_trial(club, tmp_path, 100)
    minute = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje", units=1), "minut"))
    assert not minute.ok
    assert minute.text == SR.t("penalty_model.tolerated", name="kasnjenje", units=1, tolerated=1, unit="minut")
    first = await club.desk.draft(referee, Draft(Penalty("petar", offence="kasnjenje", units=2), "dva minuta"))
    assert first.ok, first.text
    assert "opomena (kasnjenje; 2 jedinice)" in first.text
    assert SR.t("penalty_model.tolerance", tolerated=1, unit="minut") in club.desk.catalogue.catalogue_text()


async def test_federation_unsportsmanlike_conduct_in_a_range_and_out_of_it_in_the_readers_words(
    club: Club, tmp_path: Path
) -> None:
    referee = await nsbk_trial(club, tmp_path, 100)
    below = await club.desk.draft(referee, Draft(Penalty("petar", offence="nesportsko", amount=40), "buka"))
    assert not below.ok
    assert below.text == SR.t("penalty_model.out_of_range", name="nesportsko", low=50, high=100, kind="% topa")
    chosen = await club.desk.draft(referee, Draft(Penalty("petar", offence="nesportsko", amount=70), "buka"))
    assert chosen.ok
    assert "70% topa (nesportsko)" in chosen.text
    imps = await club.desk.draft(referee, Draft(Penalty("petar", offence="nesportsko_imp"), "buka"))
    assert "6 IMP (nesportsko_imp)" in imps.text


def test_federation_noise_that_can_still_be_stopped_is_warned_first(tmp_path: Path) -> None:
    """ "Kada je moguće, sudija će prvo opomenuti … i kazniti ih ukoliko ne prestanu": the warning is a rule of its
    own, so the penalty when the conduct goes on is unsportsmanlike conduct's first (50–100%), not its repeat."""
    config = with_pack(tmp_path, "nsbk")
    assert price(rule(config, "nesportsko_opomena"), [], NOW).kind is PenaltyKind.WARNING
    goes_on = price(rule(config, "nesportsko"), [], NOW + timedelta(minutes=5))
    assert (goes_on.kind, goes_on.amount, goes_on.repeat) == (PenaltyKind.TOP_SHARE, 50, 0)


async def test_federation_a_second_unplayed_board_adds_fifty_percent_and_a_lifted_one_does_not_count(
    club: Club, tmp_path: Path
) -> None:
    referee = await nsbk_trial(club, tmp_path, 100)
    assert (await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord"), "x"))).ok
    assert (await club.desk.finish(referee)).ok
    await nsbk_trial(club, tmp_path, 101, first=False)
    second = await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord"), "opet"))
    assert "dodeljeni rezultat 40% (nedužnoj strani 60%) + 50% topa" in second.text
    assert (await club.desk.draft(referee, Draft(Nobody(), "ne"))).ok
    assert (await club.desk.finish(referee)).ok
    # (niko) in game 100 lifts the first one: it was never the offence, so no repeat follows from it.
    await nsbk_trial(club, tmp_path, 100, first=False)
    assert (await club.desk.draft(referee, Draft(Nobody(), "bord je ipak odigran"))).ok
    assert (await club.desk.finish(referee)).ok
    await nsbk_trial(club, tmp_path, 102, first=False)
    fresh = await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord"), "treći"))
    assert "ponavljanje" not in fresh.text
    card = await club.desk.penalties.member_card(await club.get("petar"))
    assert card.sanctions == ()


async def test_federation_an_unplayed_board_in_imps_is_minus_three_plus_three_then_six_more(
    club: Club, tmp_path: Path
) -> None:
    """ "dodeljeni rezultat od 40%/-3 IMP a nedužna strana … 60%/+3 IMP … dodatna kazna od 50% topa/-6 IMP": the
    IMP twin records each side's IMPs with their sign, the second unplayed board the same day 6 IMP more."""
    config = with_pack(tmp_path, "nsbk")
    first = price(rule(config, "neodigran_bord_imp"), [], NOW)
    assert (first.kind, first.amount, first.innocent, first.also) == (PenaltyKind.ASSIGNED_IMPS, -3, 3, None)
    assert price(rule(config, "vise_neodigranih_imp"), [], NOW).amount == 6
    assert price(rule(config, "zabranjen_blef_imp"), [], NOW).amount == 6
    referee = await nsbk_trial(club, tmp_path, 100)
    drafted = await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord_imp"), "x"))
    assert "dodeljeni rezultat u IMP: -3 (nedužnoj strani +3) (neodigran_bord_imp)" in drafted.text
    assert SR.t("penalty_model.recorded", kind="dodeljeni rezultat IMP") in drafted.text
    assert (await club.desk.finish(referee)).ok
    await nsbk_trial(club, tmp_path, 101, first=False)
    second = await club.desk.draft(referee, Draft(Penalty("petar", offence="neodigran_bord_imp"), "opet"))
    assert "dodeljeni rezultat u IMP: -3 (nedužnoj strani +3) + 6 IMP (neodigran_bord_imp; ponavljanje 1)" in (
        second.text
    )
    assert (await club.desk.finish(referee)).ok
    [trial] = [t for t in await club.db.trials.for_game(101) if t.verdict]
    assert trial.verdict is not None
    assert trial.verdict["sanction"] == {
        "kind": "assigned_imps",
        "amount": -3,
        "repeat": 1,
        "innocent": 3,
        "also": "imps",
        "also_amount": 6,
    }
    assert "neodigran_bord_imp: dodeljeni rezultat IMP -3/+3 → dodeljeni rezultat IMP -3/+3 + IMP 6" in (
        club.desk.catalogue.catalogue_text()
    )
    figures = await council_figures(club.db, None, None, UTC)
    assert figures.sanctions == {"assigned_imps": 2}
