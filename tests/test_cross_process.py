"""Three bot processes serving one club's PostgreSQL database, the gateway's holder killed with SIGKILL midway
(tests/cross_process.py): one winner per call, every call ended once, every chat effect delivered once, every
deadline acted on, the gateway taken over. A short evening; bench/cross_process.py (``make cross``) plays the full
one and prints how late the deadlines were acted on and how fast the gateway was taken over, against their bound
(times are a bench's to print: a loaded machine stretches them without anything being wrong)."""

from __future__ import annotations

from cross_process import UNPRESSED_EVERY, run

CALLS = 20  # two left to expire, the kill at the tenth
REFEREES = 6  # two pressing Sudi from each process


async def test_three_processes_one_killed_midway_every_call_ends_once_and_every_effect_is_delivered_once(
    pg_url: str,
) -> None:
    times = await run(pg_url, CALLS, REFEREES)
    assert len(times.lateness) == CALLS // UNPRESSED_EVERY  # every unpressed call expired, none before its deadline
    assert times.takeover > 0  # taken over after the kill, by one of the others
