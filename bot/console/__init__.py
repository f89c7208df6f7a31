"""The console club: the chat port printed on a terminal, the input language, the demo club and its runner.

`adapter.ConsoleChat` implements `bot.ports.ChatPort`; `language.parse_line` reads one input line;
`demo.build_demo` fills an empty database with the demo club; `runner.run_console` runs a session
(`sudija console`, and `sudija run` when no platform token is configured).
"""

from bot.console.adapter import ConsoleChat
from bot.console.runner import Console, run_console

__all__ = ["Console", "ConsoleChat", "run_console"]
