"""The two discord.py internals the Discord adapter relies on (bot/discord/client.py), for which discord.py (up to
its 2.8 development branch) has no public API: the connection's table of parsers, where the gateway looks each
dispatch up (`SudijaBot.stop_events` empties it at a stop; the client adds RATE_LIMITED, which discord.py drops),
and `ConnectionState.process_chunk_requests` (a member-list request Discord rate limited ends with what it has).
pyproject.toml pins discord.py below 2.8 for them; these tests say, by name, what changed if a release moves them,
before a stop or a restart behaves wrongly in the field."""

from __future__ import annotations

import inspect

import discord
import pytest
from discord.gateway import DiscordWebSocket
from discord.state import ConnectionState

from bot.discord.client import intents

HOW = (
    "discord.py {version} changed an internal bot/discord/client.py relies on: {what}. Look for a public API "
    "that does the same in its release notes, use it, and keep the pin in pyproject.toml until the adapter does."
)


def changed(what: str) -> str:
    return HOW.format(version=discord.__version__, what=what)


async def test_the_gateway_looks_each_dispatch_up_in_the_connection_s_parsers() -> None:
    """`stop_events` (a stop drops every event) and the RATE_LIMITED parser both act on this table."""
    client = discord.Client(intents=intents())
    try:
        parsers = getattr(client._connection, "parsers", None)
        if not isinstance(parsers, dict) or "INTERACTION_CREATE" not in parsers:
            pytest.fail(changed("the client's `_connection.parsers` is no longer the table of gateway parsers"))
        if "client._connection.parsers" not in inspect.getsource(DiscordWebSocket.from_client):
            pytest.fail(changed("the gateway no longer looks its dispatches up in `_connection.parsers`"))
    finally:
        await client.close()


def test_a_chunk_request_is_ended_by_process_chunk_requests() -> None:
    """`parse_rate_limited` ends discord.py's own member request, which no chunk will answer."""
    method = getattr(ConnectionState, "process_chunk_requests", None)
    if method is None:
        pytest.fail(changed("`ConnectionState.process_chunk_requests` is gone"))
    names = list(inspect.signature(method).parameters)
    if names != ["self", "guild_id", "nonce", "members", "complete"]:
        pytest.fail(changed(f"`ConnectionState.process_chunk_requests` now takes {names[1:]}"))
