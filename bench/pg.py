"""A throwaway PostgreSQL server for the benches that put PostgreSQL beside SQLite (tests/pg_server.py's, from the
installed binaries, on a unix socket only), with fsync and synchronous commits as a real server unless told
otherwise. `bench/run_all.py` starts one and passes its address to each such bench (``--database``); a bench run
alone starts its own with ``--postgres``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.append(str(ROOT / "tests"))

from pg_server import PgServer, find_binaries  # noqa: E402


@contextlib.contextmanager
def throwaway_postgres(durable: bool = True) -> Iterator[str | None]:
    """The address of a new, migrated database on a server started for the run (stopped after it); None when
    PostgreSQL is not installed."""
    binaries = find_binaries()
    if binaries is None:
        yield None
        return
    server = PgServer(binaries)
    server.start(durable=durable)
    try:
        asyncio.run(server.make_template())
        yield asyncio.run(server.new_database())
    finally:
        server.stop()
