"""A throwaway PostgreSQL server for the tests: started once per session (per xdist worker) from the installed
binaries (initdb, postgres), listening on a unix socket in a temporary directory only (never a TCP port), with the
schema migrated once into a template database that the tests' databases are copied from (tests/conftest.py).

The clubs connect as `PgServer.role`, an ordinary role that owns their databases (as a deployment's bot does,
docs/deploy.md): not a superuser, so the tables' row-level security binds every test (storage/tenancy.py).
`admin_url` is the superuser's, for creating and dropping databases and for looking past the clubs' policies.

The binaries are looked for in ``SUDIJA_PG_BIN`` (only there when it is set), else on PATH, then in
/usr/lib/postgresql/*/bin (Debian's `postgresql` package). Run as root, the server runs as the ``postgres`` user
(PostgreSQL refuses root).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import asyncpg

from storage.database import open_database

TEMPLATE = "sudija_template"


def find_binaries() -> Path | None:
    """The directory holding initdb, pg_ctl and postgres, or None when PostgreSQL is not installed."""
    candidates: list[Path] = []
    if os.environ.get("SUDIJA_PG_BIN"):  # only there (SUDIJA_PG_BIN=/nowhere: the run without PostgreSQL)
        candidates.append(Path(os.environ["SUDIJA_PG_BIN"]))
        return candidates[0] if all((candidates[0] / n).is_file() for n in ("initdb", "pg_ctl", "postgres")) else None
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    candidates.extend(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True))
    for directory in candidates:
        if all((directory / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return directory
    return None


class PgServer:
    """One server for the session; `url(name)` addresses a database on it."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.dir = Path(tempfile.mkdtemp(prefix="sudija-pg-"))
        self.data = self.dir / "data"
        self.socket = self.dir / "socket"
        self.user = "postgres"  # the superuser: creates the role and the databases
        self.role = "sudija"  # what the clubs connect as (`roles()` creates it)
        self._names = itertools.count(1)
        self._as: list[str] = []
        self._server: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            self._as = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups"]
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.dir.chmod(0o755)

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, cwd=self.dir)

    def start(self, *, durable: bool = False) -> None:
        """initdb and start; `durable`: with fsync and synchronous commits, as a real server (for benchmarks).

        The server is this process's child (not detached as ``pg_ctl start`` would leave it), so `stop` waits for
        it and the CPU it and its backends spent counts in this process's children's time, as a test run's own."""
        self.socket.mkdir()
        if self._as:
            os.chown(self.socket, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
        self._run(str(self.binaries / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8")
        options = ["-k", str(self.socket), "-c", "listen_addresses=", "-c", "max_connections=200"]
        if not durable:  # a test's database need not survive a power cut
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        with (self.dir / "log").open("ab") as log:
            self._server = subprocess.Popen(
                [*self._as, str(self.binaries / "postgres"), "-D", str(self.data), *options],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.dir,
            )  # fmt: skip
        give_up = time.monotonic() + 60
        while not self._ready():
            if self._server.poll() is not None or time.monotonic() > give_up:
                self.stop()
                raise RuntimeError(f"the PostgreSQL server did not start: {self.dir / 'log'}")
            time.sleep(0.02)  # the server's own start: nothing to wait on but its pid file

    def _ready(self) -> bool:
        """Whether the server accepts connections (what ``pg_ctl -w`` reads: the pid file's status line)."""
        try:
            lines = (self.data / "postmaster.pid").read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return False
        return len(lines) >= 8 and lines[7].strip() == "ready"

    def stop(self) -> None:
        """An immediate shutdown (nothing of a test's database need survive), waited for."""
        if self._server is not None and self._server.poll() is None:
            self._server.send_signal(signal.SIGQUIT)
            try:
                self._server.wait(60)
            except subprocess.TimeoutExpired:
                self._server.kill()
                self._server.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database: str) -> str:
        """A club's address: the ordinary role, bound by row-level security."""
        return f"postgresql://{self.role}@/{database}?host={self.socket}"

    def admin_url(self, database: str) -> str:
        """The superuser's address (row-level security does not bind it)."""
        return f"postgresql://{self.user}@/{database}?host={self.socket}"

    def role_statements(self) -> tuple[str, ...]:
        """What the superuser runs once so `role` can own the clubs' databases (and copy their template)."""
        return (f"CREATE ROLE {self.role} LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS",)

    def new_name(self) -> str:
        return f"club_{os.getpid()}_{next(self._names)}"

    async def admin(self, *statements: str) -> None:
        """Statements the superuser runs outside any database of a club (creating and dropping them)."""
        conn = await asyncpg.connect(self.admin_url("postgres"))
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    async def make_template(self) -> None:
        """The clubs' role, and the `TEMPLATE` database migrated by the bot's own code, to copy databases from."""
        await self.admin(*self.role_statements(), f"CREATE DATABASE {TEMPLATE} OWNER {self.role}")
        db = await open_database(self.url(TEMPLATE))
        await db.close()

    async def new_database(self) -> str:
        """The address of a new copy of the template."""
        name = self.new_name()
        await self.admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} OWNER {self.role}")
        return self.url(name)
