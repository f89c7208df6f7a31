"""`sudija run` with no platform token starts the console club (what `make run` does on a fresh clone)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_run_without_tokens_is_the_console_club(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    env["PYTHONPATH"] = str(ROOT)
    script = "!who\n@bojan /sudija 999\n"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "konzolni klub" in done.stderr
    assert "Partija 999 ne postoji" in done.stdout
    assert (tmp_path / "sudija-demo.db").exists()
