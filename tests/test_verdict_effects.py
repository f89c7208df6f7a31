"""The plan of a verdict's effects (rules.verdict_effects), decided without storage: what each out-of-game verdict
lifts, imposes, settles, and whom the interrupted game counts as abandoned by afterwards."""

from __future__ import annotations

from rules.verdict_effects import EffectsPlan, NapustioSource, PenaltyPlan, plan_effects
from rules.verdicts import BulaChange, Nobody, NoVerdict, Penalty, Settlement

PLAYERS = ("Ana", "marko", "petar")


def test_a_penalty_lifts_the_earlier_ones_and_names_its_culprit_as_the_log_spells_him() -> None:
    plan = plan_effects(Penalty("ana", plavac_days=3, league_points=5, abandoned=True), PLAYERS, 60, 50)
    assert plan == EffectsPlan(lift_earlier=True, penalty=PenaltyPlan("Ana", 3, 5, True))
    assert not plan.settles
    assert plan.with_culprit("ANA").penalty == PenaltyPlan("ANA", 3, 5, True)


def test_niko_lifts_and_counts_nobody_and_a_settlement_lifts_nothing_and_settles() -> None:
    assert plan_effects(Nobody(), PLAYERS, 60, 50) == EffectsPlan(lift_earlier=True, nobody=True)
    big = plan_effects(Settlement(), PLAYERS, 60, 50)
    small = plan_effects(Settlement(), PLAYERS, 40, 50)
    assert big == EffectsPlan(lift_earlier=False, settle=True)
    assert small == EffectsPlan(lift_earlier=False, settle=False)
    assert big.settles
    assert small.settles  # a small game is settled all the same; it only does not count as finished


def test_the_papers_verdicts_and_no_verdict_have_no_such_effects() -> None:
    assert plan_effects(BulaChange({"Ana": 2}), PLAYERS, 60, 50) is None
    assert plan_effects(NoVerdict(), PLAYERS, 60, 50) is None


def test_whom_the_game_counts_as_abandoned_by_after_each_verdict() -> None:
    log = (None, NapustioSource.LOG)
    abandoned = plan_effects(Penalty("marko", abandoned=True), PLAYERS, 60, 50)
    not_abandoned = plan_effects(Penalty("marko", plavac_days=1), PLAYERS, 60, 50)
    nobody = plan_effects(Nobody(), PLAYERS, 60, 50)
    settled = plan_effects(Settlement(), PLAYERS, 60, 50)
    assert abandoned is not None
    assert not_abandoned is not None
    assert nobody is not None
    assert settled is not None
    assert abandoned.napustio("petar", "petar", NapustioSource.LOG) == ("marko", NapustioSource.VERDICT)
    assert not_abandoned.napustio("petar", "marko", NapustioSource.VERDICT) == ("petar", NapustioSource.LOG)
    assert nobody.napustio("petar", "petar", NapustioSource.LOG) == (None, NapustioSource.NOBODY)
    assert settled.napustio("petar", "petar", NapustioSource.LOG) == (None, NapustioSource.SETTLEMENT)
    # once settled, a later verdict leaves it settled: nobody abandoned a game that counts as finished
    assert abandoned.napustio("petar", None, NapustioSource.SETTLEMENT) == (None, NapustioSource.SETTLEMENT)
    assert EffectsPlan(lift_earlier=True).napustio("petar", *log) == log
