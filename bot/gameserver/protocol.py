"""The wire format of the game-server link, v1.1 (additive to v1): signatures, the event envelope and each
event's fields, and the commands. Pure functions; the HTTP sides are `bot.gameserver.inbound`, `.outbox`,
`.query` and `.reference`.

A request (either way) is signed: ``X-Sudija-Timestamp`` is the sending time in whole Unix seconds, and
``X-Sudija-Signature`` is ``sha256=`` and the hex HMAC-SHA256, keyed with a shared secret, of the timestamp,
a full stop and the raw body (``b"1764590400." + body``); v1.1 puts the key's id before it
(``keyid=2026-12,sha256=…``). The receiver refuses a timestamp more than the window (300 s) away from its clock
and compares signatures in constant time. It accepts every key of its keyring (two during a rotation, the new
one signing): a signature naming a key id is checked with that key alone, one without (v1) with each.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rules.strict_json import StrictJsonError, strict_loads

VERSION = 1  # the envelope's `v`: the major version; v1.1 only adds to v1
MINOR = 1  # this side speaks v1.1 (`GET /healthz` says so)
TIMESTAMP_HEADER = "X-Sudija-Timestamp"
SIGNATURE_HEADER = "X-Sudija-Signature"
IDEMPOTENCY_HEADER = "Idempotency-Key"
WINDOW_SECONDS = 300
MAX_BODY = 1 << 20  # a hand is a few kilobytes; a bigger request is refused unread

# Each event type and the fields of its `data` (name → JSON type); `game` / `seq` are in the envelope.
EVENTS: dict[str, dict[str, str]] = {
    "game_started": {
        "rated": "boolean",
        "ai": "boolean",
        "bule": "integer",
        "refe_limit": "integer",
        "players": "array",
        "started_at": "string",
    },
    "player_sat": {"nick": "string"},
    "player_stood": {"nick": "string"},
    "move_played": {"hand": "integer", "move": "integer", "player": "string", "what": "string"},
    "hand_finished": {"hand": "object"},
    "game_finished": {"ended_at": "string"},
    "game_interrupted": {"ended_at": "string", "abandoned_by": "array"},
    "game_closed": {"ended_at": "string"},
    "korekcija_done": {"hand": "integer", "move": "integer"},
    "offer_made": {"nick": "string", "offer": "string"},
    "offer_withdrawn": {"nick": "string", "offer": "string"},
    "link_code_issued": {"nick": "string", "code": "string"},
}
GAME_EVENTS = frozenset(EVENTS) - {"offer_made", "offer_withdrawn", "link_code_issued"}

# Each command (posted to ``{game server}/v1/commands``) and the fields of its `data`.
COMMANDS: dict[str, dict[str, str]] = {
    "pause_table": {"game": "integer"},
    "resume_table": {"game": "integer"},
    "block_offers": {"nick": "string"},
    "unblock_offers": {"nick": "string"},
    "close_game": {"game": "integer"},
    "set_plavac": {"nick": "string", "until": "string|null"},
    "set_suspension": {"nick": "string", "until": "string|null"},  # v1.1: another club's suspension
    "set_restriction": {"nick": "string", "until": "string"},  # v1.1: no petitions nor forum posts until then
    "paper_changed": {"game": "integer", "paper": "object"},
    "undo_move": {"game": "integer", "hand": "integer", "move": "integer"},
    "deliver_link_code": {"nick": "string", "code": "string"},
    "hand_in_progress": {"game": "integer"},
    "test_table": {"events_url": "string"},
    "test_state": {},
}
#: (v1.1) Commands that ask rather than act: sent at once (not through the outbox), answered with data. The first
#: changes nothing; the other two are the conformance check's (`sudija gameserver-check`): `test_table` (re)starts
#: the table the game server keeps for the check, whose events go to `events_url`, and `test_state` says how that
#: table and its test member stand.
QUERIES = frozenset({"hand_in_progress", "test_table", "test_state"})

#: A command's refusals the protocol calls final beyond 400, 413 and 422 (docs/game-server.md, "Answers to
#: commands"): a status and the `field` its JSON answer names (a prefix). A 404 naming a field of `data` is the
#: game server saying that table or member does not exist; a 409 naming `data.move` is an `undo_move` whose move
#: is no longer the last. Every other 401, 403, 404, 408, 409, 425 and 429 may heal and is retried.
FINAL_REFUSALS = ((404, "data."), (409, "data.move"))


def final_refusal(status: int, answer: Any) -> bool:
    """Whether a game server's answer `status` with the JSON `answer` is a refusal the protocol calls final."""
    field = answer.get("field") if isinstance(answer, dict) else None
    return isinstance(field, str) and any(status == s and field.startswith(f) for s, f in FINAL_REFUSALS)


_TYPES: dict[str, type | tuple[type, ...]] = {
    "boolean": bool,
    "integer": int,
    "string": str,
    "array": list,
    "object": dict,
}


class ProtocolError(ValueError):
    """A request that breaks the protocol: `status` is the HTTP answer, `field` names what is wrong."""

    def __init__(self, status: int, field: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"ok": False, "error": self.message, "field": self.field, **self.extra}


KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


@dataclass(frozen=True, slots=True)
class Key:
    """One shared secret, with the id a v1.1 signature names it by (None: a v1 key, signed without an id)."""

    secret: bytes
    id: str | None = None

    def __post_init__(self) -> None:
        if self.id is not None and not KEY_ID.fullmatch(self.id):
            raise ValueError(f"a key id is 1 to 64 letters, digits, '.', '_' or '-', not {self.id!r}")


#: What a side checks signatures with: one key, or its keyring (during a rotation, the old key and the new one).
Keys = bytes | Key | Sequence[Key]


@dataclass(frozen=True, slots=True)
class Keyring:
    """One side's keys: `signing` signs what it sends; `accepted` check what it receives (the signing key of the
    other side, and during a rotation the old one as well). A direction may have a secret of its own."""

    signing: Key
    accepted: tuple[Key, ...]

    @classmethod
    def shared(cls, secret: bytes | Key) -> Keyring:
        """One secret for both directions (v1)."""
        key = secret if isinstance(secret, Key) else Key(secret)
        return cls(key, (key,))


def _keyring(keys: Keys | Keyring) -> tuple[Key, ...]:
    if isinstance(keys, Keyring):
        return keys.accepted
    if isinstance(keys, bytes):
        return (Key(keys),)
    if isinstance(keys, Key):
        return (keys,)
    return tuple(keys)


def signature(secret: bytes, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def signature_header(key: bytes | Key, timestamp: str, body: bytes) -> str:
    """The ``X-Sudija-Signature`` value: ``sha256=…``, after ``keyid=ID,`` when the key has an id (v1.1)."""
    key = key if isinstance(key, Key) else Key(key)
    mac = signature(key.secret, timestamp, body)
    return mac if key.id is None else f"keyid={key.id},{mac}"


def signed_headers(key: bytes | Key, body: bytes, now: datetime) -> dict[str, str]:
    stamp = str(int(now.timestamp()))
    return {
        TIMESTAMP_HEADER: stamp,
        SIGNATURE_HEADER: signature_header(key, stamp, body),
        "Content-Type": "application/json",
    }


def _parts(header: str) -> tuple[str | None, str]:
    """(key id, ``sha256=…``) of a signature header; `ProtocolError` when it is neither form."""
    key_id: str | None = None
    mac: str | None = None
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "keyid" and key_id is None and KEY_ID.fullmatch(value):
            key_id = value
        elif name == "sha256" and mac is None:
            mac = f"sha256={value}"
        else:
            raise ProtocolError(
                401, SIGNATURE_HEADER, f"{SIGNATURE_HEADER} must be 'sha256=HEX' or 'keyid=ID,sha256=HEX'"
            )
    if mac is None:
        raise ProtocolError(401, SIGNATURE_HEADER, f"{SIGNATURE_HEADER} has no 'sha256=' part")
    return key_id, mac


def verify(keys: Keys | Keyring, headers: Any, body: bytes, now: datetime, window: int = WINDOW_SECONDS) -> Key:
    """The key the request is signed with, within the window; `ProtocolError` (401, naming the header) otherwise.
    A signature naming its key id is checked with that key; one without, with each key of the ring."""
    stamp = headers.get(TIMESTAMP_HEADER)
    given = headers.get(SIGNATURE_HEADER)
    if not stamp:
        raise ProtocolError(401, TIMESTAMP_HEADER, f"the request has no {TIMESTAMP_HEADER} header")
    if not given:
        raise ProtocolError(401, SIGNATURE_HEADER, f"the request has no {SIGNATURE_HEADER} header")
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise ProtocolError(401, TIMESTAMP_HEADER, f"{TIMESTAMP_HEADER} must be whole Unix seconds")
    if abs(int(stamp) - now.timestamp()) > window:
        raise ProtocolError(
            401, TIMESTAMP_HEADER, f"{TIMESTAMP_HEADER} is more than {window} s away from the receiver's clock"
        )
    key_id, mac = _parts(given)
    ring = _keyring(keys)
    if key_id is not None:
        ring = tuple(k for k in ring if k.id == key_id)
        if not ring:
            raise ProtocolError(401, SIGNATURE_HEADER, f"the key id {key_id!r} is not one the receiver accepts")
    found = None
    for key in ring:  # every key is compared (in constant time), whichever matched
        if hmac.compare_digest(signature(key.secret, stamp, body).encode(), mac.encode("utf-8", "replace")):
            found = found or key
    if found is None:
        raise ProtocolError(401, SIGNATURE_HEADER, "the signature does not match the body and timestamp")
    return found


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    type: str
    game: int | None
    seq: int | None
    at: str | None
    data: dict[str, Any]


def decode(body: bytes) -> Any:
    """The body as JSON, strictly (rules.strict_json): a key twice, or NUL or a line or paragraph separator in a
    string, is refused naming its path."""
    try:
        return strict_loads(body.decode("utf-8"))
    except StrictJsonError as exc:
        raise ProtocolError(400, exc.path, f"the body is not strict JSON: {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(400, "body", f"the body is not JSON: {exc}") from None


def _typed(value: Any, kind: str) -> bool:
    if kind == "string|null":
        return value is None or isinstance(value, str)
    if kind == "integer" and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def check_fields(data: Any, fields: dict[str, str], prefix: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError(422, prefix, f"'{prefix}' must be an object")
    for name, kind in fields.items():
        if name not in data:
            raise ProtocolError(422, f"{prefix}.{name}", f"'{prefix}.{name}' is missing")
        if not _typed(data[name], kind):
            raise ProtocolError(422, f"{prefix}.{name}", f"'{prefix}.{name}' must be {kind.replace('|', ' or ')}")
    return data


def parse_event(doc: Any) -> Event:
    """The envelope and `data` of one event, checked field by field (`ProtocolError` 422 names the field)."""
    if not isinstance(doc, dict):
        raise ProtocolError(422, "body", "an event is a JSON object")
    if doc.get("v") != VERSION:
        raise ProtocolError(422, "v", f"'v' must be {VERSION} (this bot speaks protocol v{VERSION})")
    event_id = doc.get("id")
    if not isinstance(event_id, str) or not 1 <= len(event_id) <= 100:
        raise ProtocolError(422, "id", "'id' must be text of 1 to 100 characters")
    kind = doc.get("type")
    if kind not in EVENTS:
        raise ProtocolError(422, "type", f"'type' must be one of {', '.join(EVENTS)}")
    game = seq = None
    if kind in GAME_EVENTS:
        game, seq = doc.get("game"), doc.get("seq")
        if not _typed(game, "integer") or game is None or game < 1:
            raise ProtocolError(422, "game", "'game' must be the game's number (a whole number ≥ 1)")
        if not _typed(seq, "integer") or seq is None or seq < 1:
            raise ProtocolError(422, "seq", "'seq' must be the game's sequence number (a whole number ≥ 1)")
    at = doc.get("at")
    if at is not None and not isinstance(at, str):
        raise ProtocolError(422, "at", "'at' must be a time like 2026-11-25T21:10:00Z")
    data = check_fields(doc.get("data"), EVENTS[kind], "data")
    return Event(event_id, kind, game, seq, at, data)


def command_doc(kind: str, data: dict[str, Any], key: str) -> dict[str, Any]:
    """The body of one command as posted to the game server."""
    return {"v": VERSION, "id": key, "type": kind, "data": data}


def parse_command(doc: Any) -> tuple[str, str, dict[str, Any]]:
    """(id, type, data) of a command (what a game server checks; the reference server uses it)."""
    if not isinstance(doc, dict):
        raise ProtocolError(422, "body", "a command is a JSON object")
    if doc.get("v") != VERSION:
        raise ProtocolError(422, "v", f"'v' must be {VERSION}")
    key = doc.get("id")
    if not isinstance(key, str) or not key:
        raise ProtocolError(422, "id", "'id' must be the command's idempotency key")
    kind = doc.get("type")
    if kind not in COMMANDS:
        raise ProtocolError(422, "type", f"'type' must be one of {', '.join(COMMANDS)}")
    return key, kind, check_fields(doc.get("data"), COMMANDS[kind], "data")


def encode(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
