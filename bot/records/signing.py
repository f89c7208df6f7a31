"""The club's signing key: Ed25519 through `cryptography`, one per club, generated at the first start.

Its private part is kept in the club's database (`storage.club_key`, migration 0026: the database is the club's
truth and is kept and backed up as such); its public part is published (`sudija zapisnik --public-key`, every
record shows it) as ``ed25519:<base64 of the 32 raw bytes>``. A record is signed whole (`bot.records.zapisnik`);
what the chat shows of a signature is its fingerprint (`fingerprint`), the first 32 hex digits of its SHA-256,
so a forged file — which cannot carry the club's signature — cannot show the seal the chat showed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from datetime import datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from rules.phrases import Value
from storage.database import Database

PREFIX = "ed25519:"
SIGNATURE_BYTES = 64
FINGERPRINT_DIGITS = 32


class BadKey(ValueError):
    """A public key that is not ``ed25519:`` and the base64 of 32 bytes: `message_key` (a ``verify.key.*`` entry of
    the catalogues) and its `values` say why, for the edge to write in its reader's language; its text is the
    English, for logs."""

    def __init__(self, message_key: str, english: str, **values: Value) -> None:
        super().__init__(english)
        self.message_key = message_key
        self.values = values


@dataclass(frozen=True)
class ClubKey:
    private: Ed25519PrivateKey

    @property
    def public_text(self) -> str:
        return public_text(self.private.public_key())

    def sign(self, data: bytes) -> str:
        """The signature of `data`, base64."""
        return base64.b64encode(self.private.sign(data)).decode("ascii")


def public_text(key: Ed25519PublicKey) -> str:
    return PREFIX + base64.b64encode(key.public_bytes_raw()).decode("ascii")


def load_public(text: str) -> Ed25519PublicKey:
    """A published public key (``ed25519:…``) as a key; `BadKey` when it is not one."""
    body = text.strip()
    if not body.startswith(PREFIX):
        raise BadKey(
            "verify.key.prefix", f"a public key starts with {PREFIX!r} (sudija zapisnik --public-key prints the club's)"
        )
    try:
        raw = base64.b64decode(body.removeprefix(PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raise BadKey("verify.key.base64", "the public key is not base64 after 'ed25519:'") from None
    if len(raw) != 32:
        raise BadKey("verify.key.length", f"an Ed25519 public key is 32 bytes, this one is {len(raw)}", length=len(raw))
    return Ed25519PublicKey.from_public_bytes(raw)


def verifies(public: Ed25519PublicKey, signature: str, data: bytes) -> bool:
    """Whether `signature` (base64) is `public`'s over `data`."""
    try:
        raw = base64.b64decode(signature, validate=True)
        public.verify(raw, data)
    except (binascii.Error, ValueError, InvalidSignature):
        return False
    return True


def fingerprint(signature: str) -> str:
    """What the chat shows of a signature: the first hex digits of its SHA-256."""
    return hashlib.sha256(signature.encode("ascii")).hexdigest()[:FINGERPRINT_DIGITS]


async def club_key(db: Database, now: datetime) -> ClubKey:
    """The club's key; generated and stored when the club has none yet (the first start)."""
    stored = await db.signing_key.get()
    if stored is None:
        fresh = Ed25519PrivateKey.generate()
        stored = await db.signing_key.keep(
            base64.b64encode(fresh.private_bytes_raw()).decode("ascii"), public_text(fresh.public_key()), now
        )
    private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(stored.private_key))
    return ClubKey(private)


async def published_key(db: Database) -> str | None:
    """The club's public key as published, or None before its first start."""
    stored = await db.signing_key.get()
    return stored.public_key if stored is not None else None
