"""The bot's journal (`[log] level`, `[log] format`): one event per line, each with the club it concerns.

``format = "text"`` writes ``TIME LEVEL [club] logger: message key=value …``; ``"json"`` one JSON object per line
with the keys ``at`` (ISO 8601 UTC), ``level``, ``club``, ``logger``, ``event`` (the message) and the event's own
fields — for a use case (`event`): ``use_case``, ``platform``, ``outcome``, ``latency_ms`` and the ids it was
given (``game``, ``call``, ``trial``, ``ref`` …). The club is the one the logging task serves (`SERVING`, set by
`bot.cli.run.serve` for its club, inherited by every task it starts), so the lines of several clubs in one process
say whose they are. What a member typed is never written at ``info``: a use case's event carries its ids and
numbers, and its text arguments only at ``debug``.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Mapping
from datetime import UTC, datetime

SERVING: contextvars.ContextVar[str] = contextvars.ContextVar("serving", default="")  # the club a task serves
TEXT_FORMAT = "%(asctime)s %(levelname)s [%(club)s] %(name)s: %(message)s"
FIELDS = "sudija_fields"  # the record attribute holding an event's own fields
EVENTS = logging.getLogger("sudija.events")


class ClubOfTheTask(logging.Filter):
    """Puts the club the logging task serves into each record (``%(club)s``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.club = SERVING.get() or "-"
        return True


class TextLines(logging.Formatter):
    """``TIME LEVEL [club] logger: message`` and the event's fields as ``key=value``."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields: Mapping[str, object] = getattr(record, FIELDS, {})
        if fields:
            line += " " + " ".join(f"{key}={value}" for key, value in fields.items())
        return line.replace("\n", "\\n")  # one event, one line (a traceback's lines too)


class JsonLines(logging.Formatter):
    """One JSON object per line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        event: dict[str, object] = {
            "at": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "club": getattr(record, "club", None) or SERVING.get() or None,
            "logger": record.name,
            "event": record.getMessage(),
        }
        event.update(getattr(record, FIELDS, {}))
        if record.exc_info:
            event["error"] = self.formatException(record.exc_info)
        return json.dumps(event, ensure_ascii=False, default=str)


def configure(level: str = "info", form: str = "text") -> None:
    """The process's journal on standard error, at `level`, as `form` (``text`` or ``json``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if form == "json" else TextLines())
    handler.addFilter(ClubOfTheTask())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # The libraries' chatter stays at warning unless the operator asks for debug.
    quiet = logging.DEBUG if level == "debug" else logging.WARNING
    for name in ("discord", "telegram", "httpx", "apscheduler", "aiohttp.access", "asyncio"):
        logging.getLogger(name).setLevel(quiet)


def event(message: str, fields: Mapping[str, object], private: Mapping[str, object] | None = None) -> None:
    """One event of the bot's work (a use case, a press): `fields` at info; `private` (what a member typed) added
    only when the journal is at debug."""
    if EVENTS.isEnabledFor(logging.DEBUG) and private:
        EVENTS.debug(message, extra={FIELDS: {**fields, **private}})
    else:
        EVENTS.info(message, extra={FIELDS: dict(fields)})
