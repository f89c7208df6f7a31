"""The conformance check of a game server (`sudija gameserver-check URL`), protocol v1.1. It plays the bot's side,
against the table the game server keeps for it — never a real one: it asks for that table (`test_table`, giving
the address of its own events endpoint), and a game server that keeps none gets no command at all.

Commands: every request that must be refused (unsigned, no timestamp, a wrong signature, a stale or future
timestamp, an unknown key id, a body that is not JSON, an unknown type, an idempotency key that is not the signed
id) and every command, each answer JSON as the protocol says; idempotency for real — a command sent again under
its key after its state was undone must not be done again, which the check sees by asking the table's state
(`test_state`); the hand in progress. Events: it receives the test table's events as the bot would (answering
as the bot answers) and checks their signatures, their ids, their `seq` order and that each fits the protocol.
Each check is reported with what was wrong; an answer that never came says why (a timeout, a refused connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from aiohttp import web

from bot.gameserver.protocol import (
    IDEMPOTENCY_HEADER,
    MAX_BODY,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    VERSION,
    Key,
    Keyring,
    ProtocolError,
    command_doc,
    decode,
    encode,
    parse_event,
    signed_headers,
    verify,
)
from rules.gamelog import format_time


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Answer:
    """What the game server answered: its status and JSON, or why there was no answer (`missing`)."""

    status: int = 0
    doc: Any = None
    text: str = ""
    missing: str = ""

    @property
    def json(self) -> bool:
        return isinstance(self.doc, dict) and isinstance(self.doc.get("ok"), bool)

    def shown(self) -> str:
        return self.missing or f"{self.status} {self.text[:200]}"


@dataclass
class EventsSide:
    """The check's events endpoint: it takes the test table's events as the bot would and notes every fault."""

    keys: Keyring
    clock: Callable[[], datetime]
    window: int
    events: list[dict[str, Any]] = field(default_factory=list)
    faults: dict[str, list[str]] = field(default_factory=dict)
    ids: dict[str, bytes] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)
    started: asyncio.Event = field(default_factory=asyncio.Event)

    def fault(self, what: str, detail: str) -> None:
        self.faults.setdefault(what, []).append(detail)

    def app(self) -> web.Application:
        async def events(request: web.Request) -> web.Response:
            body = await request.content.read(MAX_BODY + 1)
            try:
                verify(self.keys, request.headers, body, self.clock(), self.window)
            except ProtocolError as problem:
                self.fault("signature", problem.message)
                return web.json_response(problem.body(), status=problem.status)
            try:
                event = parse_event(decode(body))
            except ProtocolError as problem:
                self.fault("schema", f"{problem.field}: {problem.message}")
                return web.json_response(problem.body(), status=problem.status)
            doc = json.loads(body)
            seen = self.ids.get(event.id)
            if seen is not None:
                if json.loads(seen) != doc:
                    self.fault("ids", f"the id {event.id!r} was sent again with another body")
                return web.json_response({"ok": True, "duplicate": True, "last_seq": self.last.get(event.game or 0, 0)})
            if event.game is not None:
                last = self.last.get(event.game, 0)
                if event.seq != last + 1:
                    self.fault("seq", f"game {event.game}: seq {event.seq} came after {last}")
                    return web.json_response(
                        {"ok": False, "error": f"send the events after {last}", "field": "seq", "last_seq": last},
                        status=409,
                    )
                if (event.seq == 1) != (event.type == "game_started"):
                    self.fault("seq", f"game {event.game}: seq {event.seq} is a {event.type}")
                self.last[event.game] = last + 1
            self.ids[event.id] = body
            self.events.append(doc)
            if event.type == "game_started":
                self.started.set()
            return web.json_response({"ok": True, "last_seq": self.last.get(event.game or 0, 0)})

        app = web.Application(client_max_size=MAX_BODY + 1)
        app.router.add_post("/v1/events", events)
        return app


class Conformance:
    def __init__(
        self,
        url: str,
        keys: Keyring,
        clock: Callable[[], datetime],
        client: aiohttp.ClientSession,
        events: EventsSide,
        events_url: str,
        wait: float,
    ) -> None:
        self.base = url.rstrip("/")
        self.keys = keys
        self.clock = clock
        self.client = client
        self.events = events
        self.events_url = events_url
        self.wait = wait
        self.checks: list[Check] = []

    def note(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    async def post(self, body: bytes, headers: dict[str, str]) -> Answer:
        try:
            async with self.client.post(self.base + "/v1/commands", data=body, headers=headers) as response:
                text = await response.text()
                try:
                    doc = json.loads(text)
                except ValueError:
                    doc = None
                return Answer(response.status, doc, text)
        except TimeoutError:
            return Answer(missing=f"no answer within {self.client.timeout.total:g} s (timed out)")
        except aiohttp.ClientConnectorError as exc:
            return Answer(missing=f"no connection: {exc.os_error or exc}")
        except (aiohttp.ClientError, OSError) as exc:
            return Answer(missing=f"no answer: {type(exc).__name__}: {exc}")

    async def send(self, kind: str, data: dict[str, Any], key: str | None = None) -> tuple[str, Answer]:
        key = key or f"check-{secrets.token_hex(8)}"
        body = encode(command_doc(kind, data, key))
        headers = {**signed_headers(self.keys.signing, body, self.clock()), IDEMPOTENCY_HEADER: key}
        return key, await self.post(body, headers)

    def done(self, name: str, answer: Answer) -> bool:
        """A 2xx JSON answer (`{"ok": true, …}`)."""
        ok = 200 <= answer.status < 300 and answer.json and answer.doc["ok"] is True
        why = "" if ok else (" (the answer is not JSON with 'ok')" if answer.status and not answer.json else "")
        self.note(name, ok, f"{answer.status} (done)" if ok else answer.shown() + why)
        return ok

    def refused(self, name: str, answer: Answer, status: int, named: str | tuple[str, ...] | None) -> None:
        """Refused with `status` as JSON naming the field `named` (one of them; None: any)."""
        fields = (named,) if isinstance(named, str) else named
        json_ok = answer.json and answer.doc["ok"] is False and isinstance(answer.doc.get("error"), str)
        field_ok = fields is None or (json_ok and answer.doc.get("field") in fields)
        ok = answer.status == status and json_ok and field_ok
        wanted = f"{status} as JSON" + (f" naming '{' or '.join(fields)}'" if fields else "")
        self.note(name, ok, f"{answer.status} ({wanted})" if ok else f"{answer.shown()} — wanted {wanted}")

    async def state(self) -> dict[str, Any] | None:
        _, answer = await self.send("test_state", {})
        return answer.doc if answer.json and 200 <= answer.status < 300 else None

    # The checks ---------------------------------------------------------------------------------------------
    async def healthz(self) -> bool:
        try:
            async with self.client.get(self.base + "/healthz") as response:
                text = await response.text()
                doc = json.loads(text) if text.strip().startswith("{") else None
                good = response.status == 200 and isinstance(doc, dict) and doc.get("protocol") == VERSION
                minor = f", v1.{doc.get('minor', 0)}" if isinstance(doc, dict) else ""
                self.note("GET /healthz", good, f"{response.status} {text[:100]}{minor if good else ''}")
                return True
        except TimeoutError:
            self.note("GET /healthz", False, f"no answer within {self.client.timeout.total:g} s (timed out)")
        except aiohttp.ClientConnectorError as exc:
            self.note("GET /healthz", False, f"no connection: {exc.os_error or exc}")
        except (aiohttp.ClientError, OSError) as exc:
            self.note("GET /healthz", False, f"no answer: {type(exc).__name__}: {exc}")
        return False

    async def test_table(self) -> tuple[int, str] | None:
        _, answer = await self.send("test_table", {"events_url": self.events_url})
        doc = answer.doc if answer.json else {}
        game, nick = doc.get("game"), doc.get("nick")
        if 200 <= answer.status < 300 and type(game) is int and isinstance(nick, str) and nick:
            self.note("the test table", True, f"game {game}, test member {nick}")
            return game, nick
        self.note(
            "the test table",
            False,
            f"{answer.shown()} — the game server keeps no test table (v1.1 `test_table`, answered with its game and "
            "a test member): no command is sent, since the check never acts on a real table",
        )
        return None

    async def signatures(self, game: int) -> None:
        key = f"check-{secrets.token_hex(8)}"
        body = encode(command_doc("resume_table", {"game": game}, key))
        now = self.clock()
        good = {**signed_headers(self.keys.signing, body, now), IDEMPOTENCY_HEADER: key}
        stale = signed_headers(self.keys.signing, body, now - timedelta(seconds=600))
        future = signed_headers(self.keys.signing, body, now + timedelta(seconds=600))
        wrong = signed_headers(Key(self.keys.signing.secret + b"x", self.keys.signing.id), body, now)
        unknown = signed_headers(Key(self.keys.signing.secret, "no-such-key"), body, now)
        cases: tuple[tuple[str, dict[str, str], str | tuple[str, ...]], ...] = (
            ("unsigned command refused", {"Content-Type": "application/json"}, (TIMESTAMP_HEADER, SIGNATURE_HEADER)),
            ("command without a timestamp refused", {SIGNATURE_HEADER: good[SIGNATURE_HEADER]}, TIMESTAMP_HEADER),
            ("wrong signature refused", wrong, SIGNATURE_HEADER),
            ("stale timestamp refused", stale, TIMESTAMP_HEADER),
            ("future timestamp refused", future, TIMESTAMP_HEADER),
            ("unknown key id refused", unknown, SIGNATURE_HEADER),
        )
        for name, headers, named in cases:
            self.refused(name, await self.post(body, {**headers, IDEMPOTENCY_HEADER: key}), 401, named)
        raw = b"{not json"
        self.refused(
            "body that is not JSON refused",
            await self.post(raw, signed_headers(self.keys.signing, raw, now)),
            400,
            None,
        )
        _, answer = await self.send("dance", {"game": game})
        self.refused("unknown command refused", answer, 422, "type")
        mismatch = {**good, IDEMPOTENCY_HEADER: key + "-other"}
        self.refused(
            "an Idempotency-Key that is not the signed id refused",
            await self.post(body, mismatch),
            422,
            IDEMPOTENCY_HEADER,
        )

    async def commands(self, game: int, nick: str) -> None:
        until = format_time(self.clock() + timedelta(days=3))
        for kind, data in (
            ("pause_table", {"game": game}),
            ("resume_table", {"game": game}),
            ("block_offers", {"nick": nick}),
            ("unblock_offers", {"nick": nick}),
            ("set_plavac", {"nick": nick, "until": until}),
            ("set_plavac", {"nick": nick, "until": None}),
            ("paper_changed", {"game": game, "paper": {"game": game}}),
            ("deliver_link_code", {"nick": nick, "code": secrets.token_hex(3).upper()}),
        ):
            self.done(f"{kind} done", (await self.send(kind, data))[1])
        _, answer = await self.send("undo_move", {"game": game, "hand": 1, "move": 1})
        if 200 <= answer.status < 300:
            self.done("undo_move answered", answer)
        else:
            self.refused(
                "undo_move answered (done, or 409 naming data.move when it is not the last)", answer, 409, "data.move"
            )
        _, answer = await self.send("hand_in_progress", {"game": game})
        hand = answer.doc.get("hand") if answer.json else None
        shape = hand is None or (isinstance(hand, dict) and {"n", "dealer", "deal"} <= set(hand))
        ok = 200 <= answer.status < 300 and answer.json and shape
        self.note("hand_in_progress answered", ok, f"{answer.status} (a hand, or none)" if ok else answer.shown())

    async def once_per_key(self, game: int, nick: str) -> None:
        """The same key again must not act again: the state it set is undone, the command sent again under its key,
        and the state asked — it must still be undone."""
        until = format_time(self.clock() + timedelta(days=2))
        plans = (
            ("pause_table", {"game": game}, "resume_table", {"game": game}, "paused", True, False),
            ("block_offers", {"nick": nick}, "unblock_offers", {"nick": nick}, "blocked", True, False),
            (
                "set_plavac",
                {"nick": nick, "until": until},
                "set_plavac",
                {"nick": nick, "until": None},
                "plavac",
                until,
                None,
            ),
        )
        for kind, data, undo, undo_data, what, on, off in plans:
            name = f"{kind} done once per idempotency key"
            key, answer = await self.send(kind, data)
            first = await self.state()
            if first is None or not self.done_quietly(answer) or first.get(what) != on:
                self.note(name, False, f"{kind} did not set '{what}' to {on!r} (test_state: {first}; {answer.shown()})")
                continue
            _, answer = await self.send(undo, undo_data)
            second = await self.state()
            if second is None or second.get(what) != off:
                self.note(name, False, f"{undo} did not set '{what}' back to {off!r} (test_state: {second})")
                continue
            _, answer = await self.send(kind, data, key)
            third = await self.state()
            if not self.done_quietly(answer):
                self.note(name, False, f"{kind} sent again under its key {key} was not acknowledged: {answer.shown()}")
            elif third is None or third.get(what) != off:
                self.note(
                    name,
                    False,
                    f"{kind} was done twice under one idempotency key ({key}): sent again after {undo}, it set "
                    f"'{what}' to {third.get(what) if third else '?'!r} again; a key already done must be answered "
                    "2xx and not done again",
                )
            else:
                self.note(name, True, f"{kind} again under {key}: 2xx, and '{what}' stayed {off!r}")

    @staticmethod
    def done_quietly(answer: Answer) -> bool:
        return 200 <= answer.status < 300 and answer.json and answer.doc["ok"] is True

    async def events_seen(self) -> None:
        faults = self.events.faults
        count = len(self.events.events)
        for what, name in (
            ("signature", "events signed"),
            ("schema", "events fit the protocol"),
            ("ids", "event ids: a resend is the same event"),
            ("seq", "events in seq order, from game_started"),
        ):
            found = faults.get(what, [])
            self.note(name, not found and count > 0, "; ".join(found[:3]) if found else f"{count} events")


async def conformance(
    url: str,
    keys: Keyring | bytes,
    clock: Callable[[], datetime],
    *,
    listen: tuple[str, int] = ("127.0.0.1", 0),
    events_url: str | None = None,
    answer_seconds: float = 10.0,
    events_seconds: float = 10.0,
    window: int = 300,
    session: aiohttp.ClientSession | None = None,
) -> list[Check]:
    """Every check, in order. `listen` is where the check takes the test table's events; `events_url` the address
    the game server posts them to (default: that host and port, path ``/v1/events``). A request waits
    `answer_seconds` for its answer; the test table's first event is awaited `events_seconds`."""
    ring = keys if isinstance(keys, Keyring) else Keyring.shared(keys)
    own = session is None
    client = session or aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=answer_seconds))
    side = EventsSide(ring, clock, window)
    runner = web.AppRunner(side.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, listen[0], listen[1])
    await site.start()
    port = runner.addresses[0][1]
    check = Conformance(
        url, ring, clock, client, side, events_url or f"http://{listen[0]}:{port}/v1/events", events_seconds
    )
    try:
        if not await check.healthz():
            return check.checks
        table = await check.test_table()
        if table is None:
            return check.checks
        game, nick = table
        try:
            await asyncio.wait_for(side.started.wait(), events_seconds)
            check.note("the test table's game_started arrived", True, f"at {check.events_url}")
        except TimeoutError:
            check.note(
                "the test table's game_started arrived",
                False,
                f"no game_started posted to {check.events_url} within {events_seconds:g} s",
            )
        await check.signatures(game)
        await check.commands(game, nick)
        await check.once_per_key(game, nick)
        check.done("close_game done (the test table)", (await check.send("close_game", {"game": game}))[1])
        await check.events_seen()
        return check.checks
    finally:
        with contextlib.suppress(Exception):
            await runner.cleanup()
        if own:
            await client.close()
