"""Writing a picture from the command line: the file, and its path printed (on standard error when standard
output must stay pure JSON); a file that cannot be written is a message and exit status 1, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

from bot.cli._common import os_error
from bot.cli._language import current


def write_png(path: str, data: bytes, *, to_stderr: bool = False) -> bool:
    """Write `data` to `path` and print the path; False (after a message) when it cannot be written."""
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        words = current()
        print(f"sudija: {words.t('cli.cannot_write', path=path, error=os_error(exc, words))}", file=sys.stderr)
        return False
    print(f"PNG: {path}", file=sys.stderr if to_stderr else sys.stdout)
    return True
