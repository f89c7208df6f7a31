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
from rules.phrases import Phrase, Sentences

HEALTHZ = Phrase.of("gscheck.name.healthz")
TEST_TABLE = Phrase.of("gscheck.name.test_table")
STARTED = Phrase.of("gscheck.name.started")


@dataclass(frozen=True, slots=True)
class Check:
    """One check: its name and what it found, in the reader's language with `Phrase.text` (``gscheck.*``)."""

    name: Phrase
    ok: bool
    detail: Phrase


@dataclass
class Answer:
    """What the game server answered: its status and JSON, or why there was no answer (`missing`)."""

    status: int = 0
    doc: Any = None
    text: str = ""
    missing: Phrase | None = None

    @property
    def json(self) -> bool:
        return isinstance(self.doc, dict) and isinstance(self.doc.get("ok"), bool)

    def shown(self) -> Phrase:
        return self.missing or Phrase.of("gscheck.answer", status=self.status, text=self.text[:200])


@dataclass
class EventsSide:
    """The check's events endpoint: it takes the test table's events as the bot would and notes every fault."""

    keys: Keyring
    clock: Callable[[], datetime]
    window: int
    events: list[dict[str, Any]] = field(default_factory=list)
    faults: dict[str, list[Phrase]] = field(default_factory=dict)
    ids: dict[str, bytes] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)
    started: asyncio.Event = field(default_factory=asyncio.Event)

    def fault(self, what: str, detail: Phrase) -> None:
        self.faults.setdefault(what, []).append(detail)

    def app(self) -> web.Application:
        async def events(request: web.Request) -> web.Response:
            body = await request.content.read(MAX_BODY + 1)
            try:
                verify(self.keys, request.headers, body, self.clock(), self.window)
            except ProtocolError as problem:
                self.fault("signature", Phrase.of("gscheck.fault.signature", message=problem.message))
                return web.json_response(problem.body(), status=problem.status)
            try:
                event = parse_event(decode(body))
            except ProtocolError as problem:
                self.fault("schema", Phrase.of("gscheck.fault.schema", field=problem.field, message=problem.message))
                return web.json_response(problem.body(), status=problem.status)
            doc = json.loads(body)
            seen = self.ids.get(event.id)
            if seen is not None:
                if json.loads(seen) != doc:
                    self.fault("ids", Phrase.of("gscheck.fault.resent", id=repr(event.id)))
                return web.json_response({"ok": True, "duplicate": True, "last_seq": self.last.get(event.game or 0, 0)})
            if event.game is not None:
                last = self.last.get(event.game, 0)
                if event.seq != last + 1:
                    self.fault(
                        "seq", Phrase.of("gscheck.fault.seq_after", game=event.game, seq=str(event.seq), last=last)
                    )
                    return web.json_response(
                        {"ok": False, "error": f"send the events after {last}", "field": "seq", "last_seq": last},
                        status=409,
                    )
                if (event.seq == 1) != (event.type == "game_started"):
                    self.fault(
                        "seq", Phrase.of("gscheck.fault.seq_type", game=event.game, seq=event.seq, type=event.type)
                    )
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

    def note(self, name: Phrase, ok: bool, detail: Phrase) -> None:
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
            return Answer(missing=self.timed_out())
        except aiohttp.ClientConnectorError as exc:
            return Answer(missing=Phrase.of("gscheck.no_connection", error=str(exc.os_error or exc)))
        except (aiohttp.ClientError, OSError) as exc:
            return Answer(missing=Phrase.of("gscheck.no_answer", error=f"{type(exc).__name__}: {exc}"))

    def timed_out(self) -> Phrase:
        return Phrase.of("gscheck.timed_out", timeout=f"{self.client.timeout.total:g}")

    async def send(self, kind: str, data: dict[str, Any], key: str | None = None) -> tuple[str, Answer]:
        key = key or f"check-{secrets.token_hex(8)}"
        body = encode(command_doc(kind, data, key))
        headers = {**signed_headers(self.keys.signing, body, self.clock()), IDEMPOTENCY_HEADER: key}
        return key, await self.post(body, headers)

    def done(self, name: Phrase, answer: Answer) -> bool:
        """A 2xx JSON answer (`{"ok": true, …}`)."""
        ok = 200 <= answer.status < 300 and answer.json and answer.doc["ok"] is True
        if ok:
            detail = Phrase.of("gscheck.done", status=answer.status)
        elif answer.status and not answer.json:
            detail = Phrase.of("gscheck.not_json", answer=answer.shown())
        else:
            detail = answer.shown()
        self.note(name, ok, detail)
        return ok

    def refused(self, name: Phrase, answer: Answer, status: int, named: str | tuple[str, ...] | None) -> None:
        """Refused with `status` as JSON naming the field `named` (one of them; None: any)."""
        fields = (named,) if isinstance(named, str) else named
        json_ok = answer.json and answer.doc["ok"] is False and isinstance(answer.doc.get("error"), str)
        field_ok = fields is None or (json_ok and answer.doc.get("field") in fields)
        ok = answer.status == status and json_ok and field_ok
        shown_fields = " | ".join(f"'{f}'" for f in fields or ())
        wanted = (
            Phrase.of("gscheck.wanted_field", status=status, fields=shown_fields)
            if fields
            else Phrase.of("gscheck.wanted", status=status)
        )
        good = Phrase.of("gscheck.refused_ok", status=answer.status, wanted=wanted)
        self.note(name, ok, good if ok else Phrase.of("gscheck.refused_bad", answer=answer.shown(), wanted=wanted))

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
                shown = Phrase.of("gscheck.answer", status=response.status, text=text[:100] + (minor if good else ""))
                self.note(HEALTHZ, good, shown)
                return True
        except TimeoutError:
            self.note(HEALTHZ, False, self.timed_out())
        except aiohttp.ClientConnectorError as exc:
            self.note(HEALTHZ, False, Phrase.of("gscheck.no_connection", error=str(exc.os_error or exc)))
        except (aiohttp.ClientError, OSError) as exc:
            self.note(HEALTHZ, False, Phrase.of("gscheck.no_answer", error=f"{type(exc).__name__}: {exc}"))
        return False

    async def test_table(self) -> tuple[int, str] | None:
        _, answer = await self.send("test_table", {"events_url": self.events_url})
        doc = answer.doc if answer.json else {}
        game, nick = doc.get("game"), doc.get("nick")
        if 200 <= answer.status < 300 and type(game) is int and isinstance(nick, str) and nick:
            self.note(TEST_TABLE, True, Phrase.of("gscheck.table_ok", game=game, nick=nick))
            return game, nick
        self.note(TEST_TABLE, False, Phrase.of("gscheck.no_table", answer=answer.shown()))
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
            ("unsigned", {"Content-Type": "application/json"}, (TIMESTAMP_HEADER, SIGNATURE_HEADER)),
            ("no_timestamp", {SIGNATURE_HEADER: good[SIGNATURE_HEADER]}, TIMESTAMP_HEADER),
            ("wrong_signature", wrong, SIGNATURE_HEADER),
            ("stale", stale, TIMESTAMP_HEADER),
            ("future", future, TIMESTAMP_HEADER),
            ("unknown_key", unknown, SIGNATURE_HEADER),
        )
        for name, headers, named in cases:
            answer = await self.post(body, {**headers, IDEMPOTENCY_HEADER: key})
            self.refused(Phrase.of(f"gscheck.name.{name}"), answer, 401, named)
        raw = b"{not json"
        self.refused(
            Phrase.of("gscheck.name.not_json"),
            await self.post(raw, signed_headers(self.keys.signing, raw, now)),
            400,
            None,
        )
        _, answer = await self.send("dance", {"game": game})
        self.refused(Phrase.of("gscheck.name.unknown_command"), answer, 422, "type")
        mismatch = {**good, IDEMPOTENCY_HEADER: key + "-other"}
        self.refused(
            Phrase.of("gscheck.name.idempotency"),
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
            self.done(Phrase.of("gscheck.name.done", kind=kind), (await self.send(kind, data))[1])
        _, answer = await self.send("undo_move", {"game": game, "hand": 1, "move": 1})
        if 200 <= answer.status < 300:
            self.done(Phrase.of("gscheck.name.undo"), answer)
        else:
            self.refused(Phrase.of("gscheck.name.undo_refused"), answer, 409, "data.move")
        _, answer = await self.send("hand_in_progress", {"game": game})
        hand = answer.doc.get("hand") if answer.json else None
        shape = hand is None or (isinstance(hand, dict) and {"n", "dealer", "deal"} <= set(hand))
        ok = 200 <= answer.status < 300 and answer.json and shape
        shown = Phrase.of("gscheck.hand_ok", status=answer.status) if ok else answer.shown()
        self.note(Phrase.of("gscheck.name.hand"), ok, shown)

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
            name = Phrase.of("gscheck.name.once", kind=kind)
            key, answer = await self.send(kind, data)
            first = await self.state()
            if first is None or not self.done_quietly(answer) or first.get(what) != on:
                shown = answer.shown()
                self.note(
                    name,
                    False,
                    Phrase.of(
                        "gscheck.not_set", kind=kind, what=what, value=json.dumps(on), state=str(first), answer=shown
                    ),
                )
                continue
            _, answer = await self.send(undo, undo_data)
            second = await self.state()
            if second is None or second.get(what) != off:
                undone = Phrase.of("gscheck.not_undone", kind=undo, what=what, value=json.dumps(off), state=str(second))
                self.note(name, False, undone)
                continue
            _, answer = await self.send(kind, data, key)
            third = await self.state()
            if not self.done_quietly(answer):
                self.note(name, False, Phrase.of("gscheck.not_acked", kind=kind, key=key, answer=answer.shown()))
            elif third is None or third.get(what) != off:
                again = json.dumps(third.get(what)) if third else "?"
                twice = Phrase.of("gscheck.twice", kind=kind, key=key, undo=undo, what=what, value=again)
                self.note(name, False, twice)
            else:
                self.note(
                    name, True, Phrase.of("gscheck.once_ok", kind=kind, key=key, what=what, value=json.dumps(off))
                )

    @staticmethod
    def done_quietly(answer: Answer) -> bool:
        return 200 <= answer.status < 300 and answer.json and answer.doc["ok"] is True

    async def events_seen(self) -> None:
        faults = self.events.faults
        count = len(self.events.events)
        for what, name in (
            ("signature", "events_signed"),
            ("schema", "events_schema"),
            ("ids", "events_ids"),
            ("seq", "events_seq"),
        ):
            found = faults.get(what, [])
            detail = (
                Phrase.of("gscheck.faults", faults=Sentences(tuple(found[:3])))
                if found
                else Phrase.of("gscheck.events", count=count)
            )
            self.note(Phrase.of(f"gscheck.name.{name}"), not found and count > 0, detail)


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
            check.note(STARTED, True, Phrase.of("gscheck.started_ok", url=check.events_url))
        except TimeoutError:
            late = Phrase.of("gscheck.started_late", url=check.events_url, timeout=f"{events_seconds:g}")
            check.note(STARTED, False, late)
        await check.signatures(game)
        await check.commands(game, nick)
        await check.once_per_key(game, nick)
        check.done(Phrase.of("gscheck.name.close"), (await check.send("close_game", {"game": game}))[1])
        await check.events_seen()
        return check.checks
    finally:
        with contextlib.suppress(Exception):
            await runner.cleanup()
        if own:
            await client.close()
