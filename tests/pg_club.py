"""A bot process serving the club's PostgreSQL database beside others, for tests/test_cross_process.py: built as
`sudija run` builds it on PostgreSQL (the real clock, the real timers, the safety sweep, the chat outbox worker,
LISTEN/NOTIFY), acting on deadlines and delivering from the start, and standing by for the club's gateway; once it
holds the gateway, a recording chat platform is attached and every delivery it makes is printed.

    python tests/pg_club.py URL

It prints ``ready`` once it serves, ``gateway`` when it holds the gateway, and for every delivery ``fx`` and a
JSON object (the effect's id, the port's method, whether it was a repeat). It reads commands on standard input:
``press CALL NICK,NICK,…`` — those referees press Sudi on CALL at once, and one who wins judges the trial to its
end (no verdict) — answered ``won CALL NICK`` or ``lost CALL``; ``quit`` ends it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bot.app import App, build_app, take_gateway
from bot.chat_outbox import delivering
from bot.config import Config
from bot.ports import repeated_delivery
from fakes.chat import RecordingChat
from rules.members import Member
from rules.verdicts import Draft, NoVerdict

METHODS = (
    "post_call",
    "offer_call",
    "edit_notices",
    "tell",
    "tell_table",
    "open_trial_space",
    "add_to_trial_space",
    "say_in_trial",
    "close_trial_space",
)


class PrintingChat(RecordingChat):
    """The recording platform, printing each delivery the chat outbox asks of it."""

    def __getattribute__(self, name: str) -> Any:
        method = super().__getattribute__(name)
        if name not in METHODS:
            return method

        async def printed(*args: Any, **kwargs: Any) -> Any:
            result = await method(*args, **kwargs)
            part = delivering.get()
            line = {"effect": part and part.effect, "method": name, "repeat": repeated_delivery.get()}
            print("fx", json.dumps(line), flush=True)
            return result

        return printed


async def judge(app: App, referees: list[Member], call: int) -> str:
    presses = await asyncio.gather(*(app.desk.trials.take(r, call) for r in referees))
    winners = [r for r, reply in zip(referees, presses, strict=True) if reply.ok]
    if not winners:
        return f"lost {call}"
    assert len(winners) == 1, winners
    assert (await app.desk.draft(winners[0], Draft(NoVerdict(), "cross-process"))).ok
    assert (await app.desk.finish(winners[0])).ok
    return f"won {call} {winners[0].nick}"


async def serve(url: str) -> None:
    app = await build_app(Config(), database=url)
    members: dict[str, Member] = {}

    async def member(nick: str) -> Member:
        if nick not in members:
            found = await app.db.members.by_nick(nick)
            assert found is not None, nick
            members[nick] = found
        return members[nick]

    async def gateway() -> None:
        held = await take_gateway(app)
        app.attach(PrintingChat())
        print("gateway", flush=True)
        await app.desk.delivery.deliver_effects()
        await held.watch()

    try:
        await app.desk.start()
        holding = asyncio.ensure_future(gateway())
        print("ready", flush=True)
        read: Callable[[], Awaitable[str]] = lambda: asyncio.to_thread(sys.stdin.readline)  # noqa: E731
        while (line := (await read()).split()) and line[0] != "quit":
            _, call, nicks = line
            print(await judge(app, [await member(n) for n in nicks.split(",")], int(call)), flush=True)
        holding.cancel()
    finally:
        await app.close()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1]))
