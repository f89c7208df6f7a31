"""What `sudija check` found: each `Finding` says where (a platform and the setting or place), what is wrong
and what to change; a fatal one stops `sudija run` (a call would go nowhere, a trial could not open, referees
would be stripped), a warning does not. A `Report` is the findings of every configured platform. What a finding
says is decided by the platform's check and written in the reader's language by `Finding.line` and `Report.text`
(``check.*`` entries: a setting is shown as it is written in the configuration, the platform's own menus as the
platform names them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.config import ConfigError
from bot.i18n.phrases import phrase_text
from bot.messages import Catalogue
from rules.phrases import Phrase

NAMES = {"discord": "Discord", "telegram": "Telegram"}


def shown(text: str | Phrase, words: Catalogue) -> str:
    return phrase_text(text, words.t) if isinstance(text, Phrase) else text


@dataclass(frozen=True)
class Finding:
    platform: str
    where: str | Phrase  # the setting as written, e.g. "[discord] trials_channel_id = 123 (#sudjenja)", or a place
    problem: Phrase
    fix: Phrase
    fatal: bool = True

    def line(self, words: Catalogue) -> str:
        return words.t(
            "check.line",
            mark=words.t("check.fatal" if self.fatal else "check.warning"),
            platform=NAMES[self.platform],
            where=shown(self.where, words),
            problem=phrase_text(self.problem, words.t),
            fix=phrase_text(self.fix, words.t),
        )


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

    def text(self, words: Catalogue) -> str:
        if not self.checked:
            return words.t("check.nothing")
        platforms = ", ".join(NAMES[p] for p in self.checked)
        if not self.findings:
            return words.t("check.all_good", platforms=platforms)
        fatal, warnings = len(self.fatal), len(self.findings) - len(self.fatal)
        head = words.t(
            "check.summary",
            platforms=platforms,
            fatal=words.t("check.fatal_count", count=fatal),
            warnings=words.t("check.warning_count", count=warnings),
        )
        return "\n".join([head, *(f.line(words) for f in sorted(self.findings, key=lambda f: not f.fatal))])


class SetupError(ConfigError):
    """The setup has fatal problems: `sudija run` refuses to start, saying what to change where (in `words`'
    language, the club's)."""

    def __init__(self, report: Report, words: Catalogue) -> None:
        super().__init__(words.t("check.refuses") + "\n" + report.text(words))
        self.report = report
