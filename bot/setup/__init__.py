"""`sudija check`: is the club's setup on each platform what the bot needs? The findings are values
(`Finding`, `Report` in `findings.py`); each platform adapter looks at its own platform (`bot.discord.check`,
`bot.telegram.check`) and `bot.cli.check` prints the report. `sudija run` runs the same checks once the
platforms are connected and refuses to start on a fatal finding.
"""

from bot.setup.findings import Finding, Report, SetupError

__all__ = ["Finding", "Report", "SetupError"]
