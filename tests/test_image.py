"""The image (Dockerfile): built and smoke-tested wherever a container engine and the base image are available —
`sudija --version`, `sudija check` against the example configuration (nothing to check: exit 1, no traceback), a
console club piped through it, and it runs as its own unprivileged user. Elsewhere the test says it skipped and
why (no engine; an engine that cannot run; a base image neither here nor reachable)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASE = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", (ROOT / "Dockerfile").read_text(), re.MULTILINE).group(1)  # type: ignore[union-attr]
BASE = os.environ.get("SUDIJA_IMAGE_BASE") or DEFAULT_BASE  # another base where the registry is out of reach
TAG = "sudija-test-image:latest"


def engine() -> str:
    """A container engine that can run here, or the test is skipped saying why."""
    reasons = []
    for name in ("podman", "docker"):
        if shutil.which(name) is None:
            reasons.append(f"{name}: not installed")
            continue
        try:
            probe = subprocess.run([name, "info"], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            reasons.append(f"{name}: `{name} info` did not answer within 60 s")
            continue
        if probe.returncode == 0:
            return name
        said = (probe.stderr.strip().splitlines() or ["(nothing said)"])[-1]
        reasons.append(f"{name}: cannot run here ({said})")
    pytest.skip("no container engine can build the image: " + "; ".join(reasons))


def base_image(tool: str) -> None:
    """The Dockerfile's base image, here already or pulled, and the engine able to start a container of it; else
    the test is skipped saying why."""
    if subprocess.run([tool, "image", "inspect", BASE], capture_output=True, timeout=60).returncode != 0:
        pulled = subprocess.run([tool, "pull", BASE], capture_output=True, text=True, timeout=600)
        if pulled.returncode != 0:
            said = (pulled.stderr.strip().splitlines() or ["(nothing said)"])[-1]
            pytest.skip(f"the base image {BASE} is not here and cannot be pulled (registry unreachable?): {said}")
    started = subprocess.run([tool, "run", "--rm", BASE, "true"], capture_output=True, text=True, timeout=300)
    if started.returncode != 0:  # a sandbox without the cgroups or rlimits a container needs
        said = (started.stderr.strip().splitlines() or ["(nothing said)"])[-1]
        pytest.skip(f"{tool} cannot start a container here: {said}")


@pytest.fixture(scope="module")
def image() -> tuple[str, str]:
    tool = engine()
    base_image(tool)
    build = [tool, "build", "-t", TAG, "--build-arg", f"PYTHON_IMAGE={BASE}", str(ROOT)]
    built = subprocess.run(build, capture_output=True, text=True, timeout=3600)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    return tool, TAG


def run(image: tuple[str, str], *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    tool, tag = image
    return subprocess.run(
        [tool, "run", "--rm", "-i", tag, *argv], input=stdin, capture_output=True, text=True, timeout=600
    )


def test_the_image_says_its_version(image: tuple[str, str]) -> None:
    done = run(image, "sudija", "--version")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"sudija \S+ \(schema \d{4}, Python 3\.\d+\.\d+\)\n", done.stdout), done.stdout


def test_the_image_runs_as_its_own_user(image: tuple[str, str]) -> None:
    done = run(image, "id", "-u")
    assert done.stdout.strip() == "10001"


def test_check_against_the_example_configuration(image: tuple[str, str]) -> None:
    done = run(image, "sudija", "check", "--config", "/etc/sudija/config.example.toml")
    assert done.returncode == 1
    assert done.stdout.startswith("nothing to check")
    assert "Traceback" not in done.stderr


def test_a_console_club_piped_through_the_image(image: tuple[str, str]) -> None:
    script = (ROOT / "examples" / "scenarios" / "walkthrough.txt").read_text(encoding="utf-8")
    done = run(image, "sudija", "console", "--demo", "--db", "/tmp/demo.db", stdin=script)
    assert done.returncode == 0, done.stderr
    assert "konzolni klub" in done.stdout
    assert "Poziv za partiju 1847320 (marko) je prihvatio sudija ana." in done.stdout
