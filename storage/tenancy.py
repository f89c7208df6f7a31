"""Which club a database handle serves: the club id, and what it means on each backend.

One deployment may serve many clubs (a federation). Each club has a short id, its configuration's ``[club] id``
(`DEFAULT_CLUB` when unset, so a deployment of one club needs nothing):

- on **PostgreSQL** several clubs share one database. Every table has a ``club`` column (migration 0020) and
  row-level security, forced on the tables' owner too: a row is seen, changed or written only by a connection
  whose ``sudija.club`` setting is its club, and a new row's ``club`` is that setting by default. The club's
  connection sets it when it connects (`storage.postgres.open_postgres`), so the stores' statements never name
  the club and cannot reach another club's rows, whatever they forget. Every key, unique index and foreign key
  begins with the club, so two clubs may hold the same game numbers and nicknames, and a row can point only at
  rows of its own club. The advisory locks (the gateway, the write lock) are the club's own (`lock_key`).
- on **SQLite** a club is a database file of its own; the id is not stored (one file, one club).
"""

from __future__ import annotations

import re
import zlib

DEFAULT_CLUB = "klub"  # the club of a deployment that names none (and of every row it held before 0020)
SETTING = "sudija.club"  # the PostgreSQL setting each club's connection carries, read by the row policies
_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


class BadClubId(ValueError):
    """A club id that is not a short slug; the message says what one looks like."""


def check_club_id(value: object) -> str:
    """A club id as configured: 1–32 characters, lowercase ASCII letters, digits, ``-`` and ``_``, starting with a
    letter or digit (it is a database setting's value and a word in logs, never shown to members)."""
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise BadClubId(
            f'a club id is a short slug like "beograd" or "klub-2" (1–32 of a-z, 0-9, - and _), not {value!r}'
        )
    return value


def lock_key(club: str) -> int:
    """The club's half of a two-key advisory lock: a stable positive 32-bit number of its id (CRC-32)."""
    return zlib.crc32(club.encode("utf-8")) & 0x7FFFFFFF
