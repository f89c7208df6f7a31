"""What `sudija check` found: each `Finding` says where (a platform and the setting or place), what is wrong
and what to change; a fatal one stops `sudija run` (a call would go nowhere, a trial could not open, referees
would be stripped), a warning does not. A `Report` is the findings of every configured platform."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.config import ConfigError


@dataclass(frozen=True)
class Finding:
    platform: str
    where: str  # the setting or the place, e.g. "[discord] trials_channel_id = 123 (#sudjenja)"
    problem: str
    fix: str
    fatal: bool = True

    def line(self) -> str:
        mark = "FATAL" if self.fatal else "warning"
        return f"{mark} {self.platform}: {self.where}: {self.problem}. Fix: {self.fix}"


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # the platforms looked at

    def add(self, platform: str, findings: list[Finding]) -> None:
        self.checked.append(platform)
        self.findings.extend(findings)

    @property
    def fatal(self) -> list[Finding]:
        return [f for f in self.findings if f.fatal]

    def text(self) -> str:
        if not self.checked:
            return "nothing to check: no Discord or Telegram token is set"
        head = f"checked {', '.join(self.checked)}: "
        if not self.findings:
            return head + "everything the bot needs is in place"
        counts = f"{len(self.fatal)} fatal, {len(self.findings) - len(self.fatal)} warning(s)"
        return "\n".join([head + counts, *(f.line() for f in sorted(self.findings, key=lambda f: not f.fatal))])


class SetupError(ConfigError):
    """The setup has fatal problems: `sudija run` refuses to start, saying what to change where."""

    def __init__(self, report: Report) -> None:
        super().__init__("sudija refuses to start; the setup has fatal problems:\n" + report.text())
        self.report = report
