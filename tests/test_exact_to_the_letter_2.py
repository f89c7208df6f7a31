"""Issue 35, item by item, each at the boundary where the desk differed from the clubs' rules: a settlement and
the penalties compose in any order (1); time as the rules measure it — an expired call, councilor call and vote
end at their deadline, however late the bot acts (2); and the smaller points (6)."""

from __future__ import annotations

import itertools

import pytest
from test_penalties import judge, settle_case

from bot.config import Config
from bot.messages import Catalogue
from club import Club
from rules.verdicts import Draft, Nobody, Penalty, Settlement

SR = Catalogue("sr")


async def settlement_people(club: Club) -> None:
    for nick in ("ana", "bojan", "ceca"):
        await club.member(nick)
    for referee in ("sudija1", "sudija2"):
        await club.member(referee, "referee")


# 1. A settlement and the penalties compose in any order ---------------------------------------------------------

ACTS = {
    "P": Draft(Penalty("ceca", plavac_days=2, league_points=3), "odbila nastavak"),  # a penalty
    "N": Draft(Nobody(), "niko nije kriv"),  # (niko): lifts it
    "L": Draft(Penalty("bojan", league_points=2), "ipak bojan"),  # another penalty: lifts the earlier one
    "S": Draft(Settlement(True), "dogovor"),  # the settlement: lifts nothing
}


@pytest.mark.parametrize("order", ["".join(p) for p in itertools.permutations("PNLS")])
async def test_penalties_niko_lifts_and_a_settlement_compose_in_any_order(club: Club, order: str) -> None:
    """Whatever the order, the penalty standing is the last one of the penalties and (niko) — the settlement
    lifts none and cancels no penalty's points — and the settled game counts nobody as having abandoned it."""
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    callers = itertools.cycle(("ana", "bojan", "ceca"))
    for act in order:
        await judge(club, 500, ACTS[act], caller=next(callers), referee="sudija1")
    last = next(act for act in reversed(order) if act != "S")
    expected = {"P": {"ceca": 3, "bojan": 0}, "L": {"ceca": 0, "bojan": 2}, "N": {"ceca": 0, "bojan": 0}}[last]
    for nick, points in expected.items():
        card = await club.desk.member_card(await club.get(nick))
        assert card.standing.penalty_points == points, (order, nick)
        assert card.standing.abandon_points == 0
    ceca = await club.desk.member_card(await club.get("ceca"))
    assert (ceca.plavac_until is not None) is (last == "P"), order
    assert await club.db.penalties.settled(500) is not None
    assert (await club.db.penalties.napustio(500)).counted is None  # type: ignore[union-attr]
    assert [c for c in club.server.calls if c[0] == "close_game"] == [("close_game", 500)]
    for nick in ("ceca", "bojan"):
        assert not any("poništen" in s.text for s in club.chat.to(f"dm:{nick}")), (order, nick)


async def test_a_penalty_with_napustio_then_a_settlement_keeps_the_points_and_says_so(club: Club) -> None:
    """The audit's case: 2 league points and napustio, then svođenje. The player is told the abandoned game no
    longer counts and the referee's penalty stands; his 2 points stay."""
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    await judge(club, 500, Draft(Penalty("ceca", league_points=2, abandoned=True), "napustila"))
    assert (await club.desk.member_card(await club.get("ceca"))).napustio_total == 1
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    ceca = await club.desk.member_card(await club.get("ceca"))
    assert (ceca.standing.penalty_points, ceca.napustio_total, ceca.standing.abandon_points) == (2, 0, 0)
    told = [s.text for s in club.chat.to("dm:ceca")]
    assert told[-1] == SR.t("settlement.napustio_cancelled", game=500, league=Config().penalties.league_name)


async def test_a_settlement_then_the_same_penalty_stands_as_well(club: Club) -> None:
    await settlement_people(club)
    await settle_case(club, minutes=120, left=40)
    await judge(club, 500, Draft(Settlement(True), "dogovor"), caller="bojan", referee="sudija2")
    await judge(club, 500, Draft(Penalty("ceca", league_points=2), "vređala"))
    assert (await club.desk.member_card(await club.get("ceca"))).standing.penalty_points == 2
