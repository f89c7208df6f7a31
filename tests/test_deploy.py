"""A guide that cannot rot: every `sudija …` command line of README.md, docs/*.md, the Dockerfile and compose.yaml
is parsed by the real argument parser (a documented line the CLI refuses fails here); the systemd units the guide
shows pass `systemd-analyze verify` (where it exists) and carry no trailing comment (systemd has none: the text
after `#` would be part of the value); the monitoring SQL runs against a PostgreSQL database and finds the locks
the bot takes; the PostgreSQL init script makes the bot an ordinary role; every metric the sample alerts name is
one the bot exports."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"`([^`\n]+)`")
# What the guides write for a value to fill in, and a value the parser takes in its place.
PLACEHOLDERS = {
    "GAME": "1847320",
    "TRIAL": "1",
    "N": "1",
    "NUMBER": "1",
    "SECONDS": "1",
    "FILE": "x.db",
    "PATH": "logs",
    "PATH...": "logs",
    "DIR": "logs",
    "NICK": "ana",
    "DATE": "2026-01-01",
    "URL": "http://127.0.0.1:8700",
    "LOG": "game.json",
    "VENV": "/srv/sudija/.venv",
    "CARDS": "AS KS QS JS TS 9S 8S 7S AH KH",
}


def subcommands() -> set[str]:
    action = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    return set(action.choices)


def documented() -> Iterator[tuple[str, str]]:
    """(where, line) for every command line that runs `sudija` in the guides' code blocks and the deployment
    files: each must be one the parser takes whole."""
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        for fence in FENCE.finditer(text):
            start = text[: fence.start()].count("\n") + 2
            for offset, line in enumerate(fence.group(2).splitlines()):
                yield f"{guide.name}:{start + offset}", line
    for name in ("Dockerfile", "compose.yaml"):
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), start=1):
            yield f"{name}:{number}", line


def mentioned() -> Iterator[tuple[str, str]]:
    """(where, span) for every `sudija …` the guides' prose names in backticks: a command and options it takes,
    its arguments often left out (`sudija backup`, `sudija papir --json`)."""
    for guide in GUIDES:
        outside = FENCE.sub("", guide.read_text(encoding="utf-8"))
        for span in SPAN.findall(outside):
            yield f"{guide.name} (`{span}`)", span


def command_of(line: str, commands: set[str]) -> list[str] | None:
    """The arguments after `sudija` in `line` (None when the line runs no `sudija` command), usage notation
    turned into a line the parser can take: `[--json|--csv]` → `--json`, placeholders → example values."""
    text = line.strip()
    text = re.sub(r"^ExecStart=", "", text)
    text = re.sub(r'^CMD \["(.*)"\]$', lambda m: " ".join(m.group(1).split('", "')), text)
    text = re.sub(r'^(command:\s*)?\["(.*)"\]$', lambda m: " ".join(m.group(2).split('", "')), text)
    text = re.sub(r"^command:\s*", "", text)
    text = re.sub(r"\$\([^)]*\)", "X", text)  # $(date …) in a file name
    text = re.sub(r"\s#\s.*$", "", text)  # a shell comment
    text = re.split(r"\s(?:[<>|;]|&&|2>)\s", f"{text} ")[0]  # a redirection, a pipe, the next command
    if " " * 2 in text:  # the README's table: the usage, then what it does
        text = re.split(r"\s{2,}", text)[0]
    text = re.sub(r"\[([^\[\]]*)\]", lambda m: m.group(1).split("|")[0], text)
    text = text.replace("\\", " ")
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    for index, word in enumerate(words):
        if word != "sudija" and not word.endswith("/bin/sudija"):
            continue
        rest = words[index + 1 :]
        first = rest[0] if rest else ""
        at_start = index == 0
        if not (first in commands or first in ("--version", "--config") or (at_start and first.startswith("-"))):
            continue
        if at_start or first in commands or first == "--version":
            args = [PLACEHOLDERS.get(w, PLACEHOLDERS.get(w.rstrip(","), w)) for w in rest]
            args = [a.replace("…", "x") for a in args if a not in ("...", "…")]
            return [a for a in args if a != "x"] if "…" in line or "..." in line else args
    return None


def test_the_guides_document_commands_at_all() -> None:
    commands = subcommands()
    found = [command_of(line, commands) for _, line in documented()]
    lines = [c for c in found if c is not None]
    assert len(lines) > 30
    assert ["run", "--config", "/etc/sudija/config.toml"] in lines  # the service line that once failed
    spans = [command_of(span, commands) for _, span in mentioned()]
    assert ["migrate", "--check", "--config", "/etc/sudija/config.toml"] in spans


def test_every_documented_command_line_is_one_the_cli_takes(capsys: pytest.CaptureFixture[str]) -> None:
    commands = subcommands()
    refused = []
    for where, line in documented():
        args = command_of(line, commands)
        if args is None:
            continue
        try:
            build_parser().parse_args(args)
        except SystemExit as exit_:
            if exit_.code != 0:  # --version and --help exit 0
                refused.append(f"{where}: {line.strip()} → {args}: {capsys.readouterr().err.strip().splitlines()[-1]}")
        capsys.readouterr()
    assert not refused, "\n".join(refused)


def test_every_command_the_prose_names_exists_with_its_options() -> None:
    parser = build_parser()
    action = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
    unknown = []
    for where, span in mentioned():
        args = command_of(span, set(action.choices))
        if not args or args[0] not in action.choices:
            continue
        options = {o for a in action.choices[args[0]]._actions for o in a.option_strings}
        options |= {o for a in parser._actions for o in a.option_strings}
        named = [word for word in args[1:] if word.startswith("--")]
        unknown += [f"{where}: {word}" for word in named if word.split("=")[0] not in options]
    assert not unknown, "\n".join(unknown)


def test_a_refused_line_is_caught() -> None:
    """The check above can fail: the line docs/deploy.md once had (a wrong option) is refused."""
    args = command_of("sudija backup FILE --confg /etc/sudija/config.toml", subcommands())
    assert args == ["backup", "x.db", "--confg", "/etc/sudija/config.toml"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(args)


# The systemd units ---------------------------------------------------------------------------------------------


def units() -> dict[str, str]:
    """Each ```ini block of docs/deploy.md whose first line names /etc/systemd/system/NAME: NAME → its text
    (a name shown twice, as sudija@.service is, must be the same unit... or a variant: each is checked)."""
    found: dict[str, str] = {}
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for fence in FENCE.finditer(text):
        if fence.group(1) != "ini":
            continue
        first = fence.group(2).splitlines()[0]
        match = re.match(r"# /etc/systemd/system/(\S+)$", first)
        assert match, f"an ini block of docs/deploy.md that names no unit: {first}"
        name = match.group(1)
        key = name
        while key in found:
            key = "variant-" + key
        found[key] = fence.group(2)
    return found


def test_the_guide_shows_the_units_a_club_needs() -> None:
    names = {name.removeprefix("variant-").removeprefix("variant-") for name in units()}
    assert names >= {
        "sudija.service",
        "sudija@.service",
        "sudija-backup.service",
        "sudija-backup.timer",
        "sudija-logs.service",  # fetches the game logs into the folder the bot watches ([import] watch)
        "sudija-logs.timer",
    }


def test_no_unit_line_carries_a_trailing_comment() -> None:
    for name, text in units().items():
        for line in text.splitlines():
            if line.startswith(("#", ";")) or not line.strip():
                continue
            assert not re.search(r"\s[#;]", line), f"{name}: systemd reads the comment as part of the value: {line}"


NO_SYSTEMD = "systemd-analyze is not installed (Debian: systemd)"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason=NO_SYSTEMD)
def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    stub = tmp_path / "bin" / "sudija"  # the installed command, where the guide installs it, is not on this machine
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\n", encoding="utf-8")
    stub.chmod(0o755)
    for key, text in units().items():
        name = key.removeprefix("variant-").removeprefix("variant-")
        folder = tmp_path / key
        folder.mkdir()
        unit = folder / name
        for program in ("/srv/sudija/.venv/bin/sudija", "/usr/bin/rsync"):  # what this machine need not have
            text = text.replace(program, str(stub))
        unit.write_text(text, encoding="utf-8")
        target = folder / name.replace("@.", "@beograd.") if "@." in name else unit
        if target != unit:
            shutil.copy(unit, target)
        done = subprocess.run(
            ["systemd-analyze", "verify", str(target)], capture_output=True, text=True, timeout=60, cwd=folder
        )
        assert done.returncode == 0, (key, done.stderr)
        assert done.stderr.strip() == "", (key, done.stderr)  # an unknown key is only a warning: not here


def test_systemd_analyze_catches_a_mistyped_key(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip(NO_SYSTEMD)
    unit = tmp_path / "bad.service"
    unit.write_text("[Service]\nExecStart=/bin/true\nRestartSecs=5\n", encoding="utf-8")
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert "Unknown key 'RestartSecs'" in done.stderr


# The monitoring SQL and the PostgreSQL role --------------------------------------------------------------------


def sql_blocks() -> list[str]:
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = [m.group(2) for m in re.finditer(r"^\s*```(sql)\n(.*?)^\s*```", text, re.MULTILINE | re.DOTALL)]
    return [block.strip().rstrip(";") for block in blocks]


async def test_the_monitoring_queries_run_and_find_the_bots_locks(pg_server: object, pg_url: str) -> None:
    import asyncpg  # noqa: PLC0415 (the PostgreSQL tests' driver)

    from storage.postgres import GATEWAY_LOCK, WRITE_LOCK  # noqa: PLC0415 (the constants the bot takes)

    blocks = sql_blocks()
    assert len(blocks) >= 2
    name = urlsplit(pg_url).path.lstrip("/")
    admin = await asyncpg.connect(pg_server.admin_url(name))  # type: ignore[attr-defined]
    holder = await asyncpg.connect(pg_url)
    try:
        await holder.execute("SELECT pg_advisory_lock($1, 7)", GATEWAY_LOCK)
        await holder.execute("BEGIN")
        await holder.execute("SELECT pg_advisory_xact_lock($1, 7)", WRITE_LOCK)
        [locks, *others] = blocks
        rows = await admin.fetch(locks)
        held = {(row["lock"], row["club_key"]) for row in rows if row["granted"]}
        assert ("53554447", 7) in held  # the gateway, as storage/pg_gateway.py takes it
        assert ("53554449", 7) in held  # a club's write lock, inside a transaction
        for sql in others:
            await admin.fetch(sql)
        await holder.execute("ROLLBACK")
    finally:
        await holder.close()
        await admin.close()


async def test_the_compose_init_script_makes_the_bot_an_ordinary_role(
    pg_server: object, pg_url: str, tmp_path: Path
) -> None:
    import os  # noqa: PLC0415 (imported where the test needs it)

    import asyncpg  # noqa: PLC0415 (the PostgreSQL tests' driver)

    server = pg_server
    name = urlsplit(pg_url).path.lstrip("/")
    role = f"bot_{os.getpid()}"
    secret = tmp_path / "bot-db-password"
    secret.write_text("a password\n", encoding="utf-8")
    psql = server.binaries / "psql"  # type: ignore[attr-defined]
    env = {
        **os.environ,
        "PATH": f"{psql.parent}:{os.environ['PATH']}",
        "PGHOST": str(server.socket),  # type: ignore[attr-defined]
        "POSTGRES_USER": server.user,  # type: ignore[attr-defined]
        "POSTGRES_DB": name,
        "SUDIJA_DB_USER": role,
        "SUDIJA_DB_PASSWORD_FILE": str(secret),
    }
    done = subprocess.run(  # noqa: ASYNC221 (the test waits for the script, as the image's entrypoint does)
        ["sh", str(ROOT / "deploy" / "postgres-init.sh")], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    admin = await asyncpg.connect(server.admin_url(name))  # type: ignore[attr-defined]
    try:
        row = await admin.fetchrow("SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = $1", role)
        assert (row["rolsuper"], row["rolbypassrls"], row["rolcanlogin"]) == (False, False, True)
        owner = await admin.fetchval("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", name)
        assert owner == role
        await admin.execute(f'DROP OWNED BY "{role}" CASCADE')
        await admin.execute(f'ALTER DATABASE "{name}" OWNER TO {server.role}')  # type: ignore[attr-defined]
        await admin.execute(f'DROP ROLE "{role}"')
    finally:
        await admin.close()


def test_compose_never_gives_the_bot_the_superuser() -> None:
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert "POSTGRES_USER: admin" in compose
    assert "postgres-init.sh:/docker-entrypoint-initdb.d/" in compose
    config_line = next(line for line in compose.splitlines() if "postgresql://" in line)
    assert "postgresql://sudija@db/sudija" in config_line  # the bot's own role, which the init script creates


# The alerts ----------------------------------------------------------------------------------------------------


def test_every_metric_the_alerts_name_is_exported() -> None:
    from prometheus_client import generate_latest  # noqa: PLC0415 (imported where the test needs it)
    from prometheus_client.parser import text_string_to_metric_families  # noqa: PLC0415 (as above)

    from bot import metrics  # noqa: PLC0415 (imported where the test needs it)
    from storage.observed import Observed  # noqa: PLC0415 (imported where the test needs it)

    club = "alerts-test"
    metrics.TABLES.refresh(
        club,
        Observed(
            {"in_game": 1}, {"in_game": 1}, {("in_game", "open"): 1}, {"kazna": 1}, {"pending": 1},
            {("discord", "done"): 1}, {"move": 1}, {("pause", "sent"): 1}, 1.0, 1.0,
        ),
    )  # fmt: skip
    metrics.GATEWAY_HELD.labels(club).set(1)
    metrics.PLATFORM_CONNECTED.labels(club, "discord").set(1)
    metrics.REPORTS_HELD.labels(club).set(1)
    try:
        exported = {
            sample.name
            for family in text_string_to_metric_families(generate_latest(metrics.REGISTRY).decode())
            for sample in family.samples
        }
    finally:
        metrics.TABLES.observed.pop(club)
        metrics.GATEWAY_HELD.remove(club)
        metrics.PLATFORM_CONNECTED.remove(club, "discord")
        metrics.REPORTS_HELD.remove(club)
    alerts = (ROOT / "deploy" / "prometheus-alerts.yml").read_text(encoding="utf-8")
    exprs = re.findall(r"^\s*expr: (.*)$", alerts, re.MULTILINE)
    assert len(exprs) >= 4
    named = {name for expr in exprs for name in re.findall(r"\bsudija_[a-z_]+\b", expr)}
    assert named
    assert named <= exported, named - exported
