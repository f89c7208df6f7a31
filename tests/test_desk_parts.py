"""The desk as parts: each concern built with its explicit dependencies, the steps one part extends carried out
whole, and refusals raised as keys and values by the parts and rendered only at the edge."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.desk import Desk
from bot.desk.advice import ADVICE_REF
from bot.desk.base import DeskBase
from bot.desk.calls import CallDesk
from bot.desk.refused import Refused
from bot.gameserver.korekcija import korekcija_of
from bot.messages import MESSAGES
from bot.ports import Action
from bot.registry import BY_NAME, Args, Caller, Place, run
from bot.telegram.format import parse_callback
from club import Club
from storage.states import CallState, EndReason

PARTS = ("calls", "trials", "penalties", "catalogue", "advisor", "governance", "links", "votes", "appeals")


async def test_every_part_is_its_own_object_over_the_one_set_of_dependencies(club: Club) -> None:
    desk = club.desk
    parts = [getattr(desk, name) for name in (*PARTS, "corrections")]
    assert len({id(p) for p in parts}) == len(parts)
    for part in parts:
        assert isinstance(part, DeskBase)
        assert not isinstance(part, Desk)
        assert part.deps is desk.deps
    assert desk.trials.calls is desk.calls
    assert desk.penalties.trials is desk.trials
    assert desk.appeals.governance is desk.governance
    desk.config = replace(desk.config, call_minutes=9)  # a desk reconfigured is reconfigured for every part
    assert all(p.config.call_minutes == 9 for p in parts)


async def test_a_part_raises_its_refusal_as_a_key_and_values_and_the_desk_renders_it(club: Club) -> None:
    """A use case's body raises `Refused` (keys and values, no text); its door (`shows_refusals`) renders it."""
    ana = await club.member("ana")
    body = CallDesk.call.__wrapped__  # type: ignore[attr-defined]
    with pytest.raises(Refused) as raised:
        await body(club.desk.calls, ana, 4242)
    assert raised.value.key == "call.unknown_game"
    assert raised.value.values == {"game": 4242}
    reply = await club.desk.calls.call(ana, 4242)
    assert not reply.ok
    assert reply.text == club.desk.t("call.unknown_game", game=4242)
    assert await club.db.calls.pending() == []


async def test_the_registry_renders_a_refusal_raised_below_it(club: Club) -> None:
    ana = await club.member("ana")
    reply = await run(club.desk, Caller("test", "ana", ana, Place.PRIVATE), BY_NAME["povuci"], Args({}))
    assert not reply.ok
    assert reply.text == club.desk.t("withdraw.none")


async def test_a_steps_extension_runs_when_a_part_calls_the_step(club: Club) -> None:
    """The trial's part asks `steps` to interrupt; the appeals' extension of it runs (here: the base step, as no
    hearing is open), and a replaced step on the desk is the one a part reaches."""
    await club.member("ana")
    await club.member("sudija1", "referee")
    await club.game(100)
    ana = await club.get("ana")
    assert (await club.desk.calls.call(ana, 100)).ok
    calls = await club.db.calls.pending()
    referee = await club.get("sudija1")
    assert (await club.desk.trials.take(referee, calls[0].id)).ok
    seen: list[str] = []
    step = club.desk.steps.interrupt

    async def interrupt(trial: object, why: str) -> None:
        seen.append(why)
        await step(trial, why)  # type: ignore[arg-type]

    club.desk.steps.interrupt = interrupt  # type: ignore[method-assign, assignment]
    assert (await club.desk.trials.leave(referee)).ok
    assert seen == ["referee_left"]
    stored = await club.db.calls.get(calls[0].id)
    assert stored is not None
    assert stored.state is CallState.TAKEN


async def test_every_button_action_is_pressable_and_has_its_label(club: Club) -> None:
    """Each `Action` reaches a use case through `Desk.press` (none answers "unknown button"), and its label's
    message exists in every language; a payload naming no action is refused without a look-up."""
    korekcija_of(club.desk)  # the game-server link's buttons are the desk's too
    ana = await club.member("ana")
    unknown = club.desk.t("button.unknown")
    for action in Action:
        assert action.label_key in MESSAGES, action
        assert all(MESSAGES[action.label_key]), action
        assert Action.parse(action.value) is action
        ref = ADVICE_REF + 1 if action is Action.ADVICE else 1  # trial 1, hand 1
        reply = await club.desk.press(ana, action.value, ref)
        assert reply.text != unknown, action
        assert parse_callback(f"{action}:1") == (action, 1)
    assert (await club.desk.press(ana, "sudi_mi", 1)).text == unknown
    assert parse_callback("sudi_mi:1") is None


def test_every_end_reason_names_its_message_and_an_unknown_one_is_shown_as_such() -> None:
    for reason in EndReason:
        assert reason.message_key in MESSAGES, reason
        assert EndReason.key_of(reason.value) == reason.message_key
    assert EndReason.key_of(None) == "end.unknown"
    assert EndReason.key_of("nestao") == "end.unknown"
    assert "end.unknown" in MESSAGES
