"""The conformance check of a game server (`sudija gameserver-check URL`): it exercises ``/healthz`` and
``/v1/commands`` as the bot would — requests that must be refused (unsigned, wrongly signed, stale, not JSON),
every command, and a command repeated under its idempotency key — and reports each check."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp

from bot.gameserver.protocol import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    VERSION,
    command_doc,
    encode,
    signed_headers,
)


def refused(status: int) -> bool:
    return 400 <= status < 500


def done(status: int) -> bool:
    return 200 <= status < 300


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


async def conformance(
    url: str,
    secret: bytes,
    clock: Callable[[], datetime],
    *,
    game: int,
    nick: str,
    close: bool = False,
    session: aiohttp.ClientSession | None = None,
) -> list[Check]:
    own = session is None
    client = session or aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
    base = url.rstrip("/")
    checks: list[Check] = []

    async def post(doc: Any, headers: dict[str, str] | None, raw: bytes | None = None) -> tuple[int, str]:
        body = raw if raw is not None else encode(doc)
        if headers is None:
            headers = signed_headers(secret, body, clock())
            if isinstance(doc, dict) and "id" in doc:
                headers[IDEMPOTENCY_HEADER] = str(doc["id"])
        async with client.post(base + "/v1/commands", data=body, headers=headers) as response:
            return response.status, (await response.text())[:200]

    def command(kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return command_doc(kind, data, f"check-{secrets.token_hex(8)}")

    async def expect(
        name: str,
        doc: Any,
        headers: dict[str, str] | None,
        wanted: Callable[[int], bool],
        what: str,
        raw: bytes | None = None,
    ) -> None:
        try:
            status, text = await post(doc, headers, raw)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            checks.append(Check(name, False, f"no answer: {exc}"))
            return
        checks.append(Check(name, wanted(status), f"{status} {text}" if not wanted(status) else f"{status} ({what})"))

    try:
        try:
            async with client.get(base + "/healthz") as response:
                body = await response.json(content_type=None)
                good = response.status == 200 and isinstance(body, dict) and body.get("protocol") == VERSION
                checks.append(Check("GET /healthz", good, f"{response.status} {body}"))
        except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
            checks.append(Check("GET /healthz", False, f"no answer: {exc}"))
            return checks
        doc = command("resume_table", {"game": game})
        body = encode(doc)
        good = signed_headers(secret, body, clock())
        await expect("unsigned command refused", doc, {"Content-Type": "application/json"}, lambda s: s == 401, "401")
        await expect(
            "command without a timestamp refused",
            doc,
            {SIGNATURE_HEADER: good[SIGNATURE_HEADER]},
            lambda s: s == 401,
            "401",
        )
        await expect(
            "wrong signature refused", doc, signed_headers(secret + b"x", body, clock()), lambda s: s == 401, "401"
        )
        await expect(
            "stale timestamp refused",
            doc,
            signed_headers(secret, body, clock() - timedelta(seconds=600)),
            lambda s: s == 401,
            "401",
        )
        await expect(
            "future timestamp refused",
            doc,
            {**good, TIMESTAMP_HEADER: str(int(clock().timestamp()) + 600), SIGNATURE_HEADER: good[SIGNATURE_HEADER]},
            lambda s: s == 401,
            "401",
        )
        await expect("body that is not JSON refused", None, None, refused, "4xx", raw=b"{not json")
        await expect("unknown command refused", command_doc("dance", {}, "check-x"), None, refused, "4xx")
        code = secrets.token_hex(3).upper()
        plan: list[tuple[str, dict[str, Any]]] = [
            ("pause_table", {"game": game}),
            ("resume_table", {"game": game}),
            ("block_offers", {"nick": nick}),
            ("unblock_offers", {"nick": nick}),
            ("set_plavac", {"nick": nick, "until": None}),
            ("paper_changed", {"game": game, "paper": {"game": game}}),
            ("deliver_link_code", {"nick": nick, "code": code}),
        ]
        if close:
            plan.append(("close_game", {"game": game}))
        for kind, data in plan:
            await expect(f"{kind} done", command(kind, data), None, done, "2xx")
        await expect(
            "undo_move answered (done, or 409 when that move is not the last)",
            command("undo_move", {"game": game, "hand": 1, "move": 1}),
            None,
            lambda s: done(s) or s == 409,
            "2xx or 409",
        )
        again = command("pause_table", {"game": game})
        await expect("pause_table done", again, None, done, "2xx")
        await expect("the same idempotency key again acknowledged", again, None, done, "2xx, not done twice")
        await expect("resume_table done", command("resume_table", {"game": game}), None, done, "2xx")
        return checks
    finally:
        if own:
            await client.close()
