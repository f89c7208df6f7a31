"""A throwaway PostgreSQL server for the tests: started once per session from the installed binaries (initdb,
postgres), listening on a unix socket in a temporary directory only (never a TCP port), with the schema migrated
once into a template database so each test gets a fresh database by copying it.

The clubs connect as `PgServer.role`, an ordinary role that owns their databases (as a deployment's bot does,
docs/deploy.md): not a superuser, so the tables' row-level security binds every test (storage/tenancy.py).
`admin_url` is the superuser's, for creating and dropping databases and for looking past the clubs' policies.

The binaries are looked for in ``SUDIJA_PG_BIN`` (only there when it is set), else on PATH, then in
/usr/lib/postgresql/*/bin (Debian's `postgresql` package). Run as root, the server runs as the ``postgres`` user
(PostgreSQL refuses root).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

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
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            self._as = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups"]
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.dir.chmod(0o755)

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, cwd=self.dir)

    def start(self, *, durable: bool = False) -> None:
        """initdb and start; `durable`: with fsync and synchronous commits, as a real server (for benchmarks)."""
        self.socket.mkdir()
        if self._as:
            os.chown(self.socket, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
        self._run(str(self.binaries / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8")
        options = f"-k {self.socket} -c listen_addresses='' -c max_connections=200"
        if not durable:  # a test's database need not survive a power cut
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-o", options, "-w",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, FileNotFoundError):
            self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
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
