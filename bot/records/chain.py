"""The SHA-256 chain over a trial's record: the first link hashes the trial's facts, each next link hashes the
previous link with one message (its time, its author as the record shows him, its text), so changing, adding,
removing or reordering a line changes every link after it. The same trial gives the same chain in the members'
and the officials' views: referees and councilors are named by their function in the chained data."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

GENESIS = "sudija-zapisnik/1"


def canonical(item: Mapping[str, Any]) -> bytes:
    """One item as the bytes that are hashed: JSON with sorted keys, no spaces, UTF-8."""
    return json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def link(previous: str, item: Mapping[str, Any]) -> str:
    return hashlib.sha256(previous.encode("ascii") + b"\n" + canonical(item)).hexdigest()


def chain(facts: Mapping[str, Any], messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The links: one for the facts, then one per message; the last is the record's seal."""
    links = [link(hashlib.sha256(GENESIS.encode("ascii")).hexdigest(), facts)]
    for message in messages:
        links.append(link(links[-1], message))
    return links
