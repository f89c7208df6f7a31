"""`make run` shows the club's pages: `sudija run` with no platform token starts the console club and serves the
web pages on 127.0.0.1; `/web` typed in the console sends the member the link, and the link signs him in."""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parent.parent


def line_with(stream: IO[str], pattern: str) -> re.Match[str]:
    """Read `stream` until a line matches `pattern` (the process's own output, which ends with it)."""
    for line in stream:
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matched {pattern!r}")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def test_the_console_club_serves_the_pages_and_web_signs_in(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDIJA_")}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    try:
        address = line_with(process.stderr, r"Stranice Kluba: (http://127\.0\.0\.1:\d+)").group(1)
        process.stdin.write("@marko /web\n")
        process.stdin.flush()
        link = line_with(process.stdout, r"(http://127\.0\.0\.1:\d+/prijava/[\w-]+)").group(1)
        assert link.startswith(address)
        jar = http.cookiejar.CookieJar()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())
        with browser.open(link, timeout=30) as opened:
            assert opened.status == 200
        with pytest.raises(urllib.error.HTTPError) as redirected:  # the 303 to /partije, not followed
            browser.open(urllib.request.Request(link, data=b"", method="POST"), timeout=30)
        assert redirected.value.code == 303
        with browser.open(f"{address}/partije", timeout=30) as page:
            html = page.read().decode("utf-8")
        assert "marko" in html
        assert "1847258" in html  # a demo game marko played
    finally:
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        process.stdout.close()
        process.stderr.close()
