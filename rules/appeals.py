"""Appeals as pure rules: the club's appeal kinds and their windows, what an upheld appeal may change, the review
deadline, and the appeal restriction an unfounded or inadmissible appeal may bring.

Club texts: the first club ("Sudijska odluka je konačna. Jedina promena može biti ukidanje kazne … samo u slučaju da
je sudija greškom kaznio nevinog igrača"): one kind, and an upheld appeal may only lift a penalty (`may_change =
"lift"`). The third club (seed 003): 30 days for most appeals, up to 90 for unsportsmanlike conduct or collusion, a
review within 90 days, and an appeal restriction (умиротворитель) of 30–365 days for a rejected or inadmissible
appeal, which blocks further appeals but neither play nor calls. There an "апелляция" is a report of an incident
in a game (`reports = true`): any player of the game files one within its kind's window from the game's end, with
the table's chat attached where the kind needs it. Every figure is configuration (`[appeals]`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from rules.limits import APPEAL_DAYS, APPEAL_REMIND_DAYS, APPEAL_REVIEW_DAYS

ATTACHMENT_MAX_KB = 8 * 1024  # a screenshot of the table's chat, or a short log: well within both platforms' limits
ATTACHMENT_CEILING_KB = 20 * 1024  # a Telegram bot downloads files of at most 20 MB (Discord's uploads: 25 MB)

MAY_CHANGE = ("lift", "any")


class AppealConfigError(ValueError):
    """An `[appeals]` section that cannot be used; the message says which setting and why."""


@dataclass(frozen=True, slots=True)
class AppealKind:
    name: str  # what the appellant types: /zalba SUĐENJE NAME (a report: /prijava PARTIJA NAME)
    days: int  # the window, from the moment the trial's verdict was recorded (a report: from the game's end)
    description: str = ""
    attachment: bool = False  # a report of this kind is heard only with the table's chat attached (a file)


@dataclass(frozen=True, slots=True)
class NotReviewable:
    """What the club never reviews ("Нерассматриваемые апелляции"): shown in /katalog; one with a `name` is
    refused by that name when a member reports it, saying why."""

    description: str
    name: str = ""


@dataclass(frozen=True)
class AppealRules:
    kinds: tuple[AppealKind, ...] = (AppealKind("zalba", APPEAL_DAYS, "žalba na presudu"),)  # the first: default
    review_days: int = APPEAL_REVIEW_DAYS  # the councilors decide within this many days of the filing
    remind_days: int = APPEAL_REMIND_DAYS  # this many days before the review deadline the councilors are reminded
    may_change: str = "lift"  # "lift": an upheld appeal only lifts a penalty (niko); "any": any new verdict
    rejected_restriction_days: int = 0  # an appeal restriction for a rejected (unfounded) appeal; 0: none
    inadmissible_restriction_days: int = 0  # … for an inadmissible one
    restriction_min_days: int = 0  # the range a councilor may choose within (`dana N`)
    restriction_max_days: int = 0
    not_appealable: tuple[NotReviewable, ...] = field(default_factory=tuple)  # what is never reviewed
    reports: bool = False  # appeals are reports of an incident in a game (any player, from the game's end)
    attachment_max_kb: int = ATTACHMENT_MAX_KB  # the largest file a member may attach

    def kind(self, name: str | None) -> AppealKind | None:
        if name is None:
            return self.kinds[0]
        return next((k for k in self.kinds if k.name.casefold() == name.casefold()), None)

    def not_reviewed(self, name: str | None) -> NotReviewable | None:
        """The never-reviewed subject a member named, if he named one."""
        if not name:
            return None
        return next((n for n in self.not_appealable if n.name and n.name.casefold() == name.casefold()), None)


def parse_appeal_rules(raw: Mapping[str, Any]) -> AppealRules:
    data = dict(raw)
    kinds = []
    default = [{"name": k.name, "days": k.days, "description": k.description} for k in AppealRules().kinds]
    for i, item in enumerate(data.pop("kinds", default), start=1):
        try:
            kind = AppealKind(**dict(item))
        except TypeError as exc:
            raise AppealConfigError(f"appeals.kinds entry {i}: {exc}") from None
        if not kind.name or " " in kind.name or kind.days < 1:
            raise AppealConfigError(f"appeals.kinds entry {i}: a one-word name and days ≥ 1 are needed")
        kinds.append(kind)
    if not kinds:
        raise AppealConfigError("appeals.kinds: at least one kind is needed")
    if "not_appealable" in data:
        data["not_appealable"] = tuple(_not_reviewable(i, item) for i, item in enumerate(data["not_appealable"], 1))
    try:
        rules = AppealRules(kinds=tuple(kinds), **data)
    except TypeError as exc:
        raise AppealConfigError(f"appeals: {exc}") from None
    if rules.may_change not in MAY_CHANGE:
        raise AppealConfigError(f"appeals.may_change must be one of {', '.join(MAY_CHANGE)}, not {rules.may_change!r}")
    figures = (
        rules.review_days,
        rules.remind_days,
        rules.rejected_restriction_days,
        rules.inadmissible_restriction_days,
        rules.restriction_min_days,
        rules.restriction_max_days,
    )
    if min(figures) < 0 or rules.review_days < 1:
        raise AppealConfigError("appeals: days must not be negative and review_days must be at least 1")
    if not 1 <= rules.attachment_max_kb <= ATTACHMENT_CEILING_KB:
        raise AppealConfigError(
            f"appeals.attachment_max_kb must be 1 … {ATTACHMENT_CEILING_KB} (what Telegram lets a bot download)"
        )
    for name in ("rejected_restriction_days", "inadmissible_restriction_days"):
        days = getattr(rules, name)
        if days and not rules.restriction_min_days <= days <= max(rules.restriction_max_days, days):
            raise AppealConfigError(f"appeals.{name} = {days} is outside restriction_min_days … restriction_max_days")
    return rules


def _not_reviewable(i: int, item: Any) -> NotReviewable:
    """An entry of `not_appealable`: its text, or a table with a `name` (one word) and a `description`."""
    if isinstance(item, str):
        return NotReviewable(item)
    if isinstance(item, Mapping):
        try:
            entry = NotReviewable(**dict(item))
        except TypeError as exc:
            raise AppealConfigError(f"appeals.not_appealable entry {i}: {exc}") from None
        if " " in entry.name or not entry.description:
            raise AppealConfigError(f"appeals.not_appealable entry {i}: a one-word name and a description")
        return entry
    raise AppealConfigError(f"appeals.not_appealable entry {i}: a text, or a table with name and description")


@dataclass(frozen=True, slots=True)
class WindowCheck:
    allowed: bool
    deadline: datetime


def within_window(kind: AppealKind, recorded_at: datetime, now: datetime) -> WindowCheck:
    """An appeal of `kind` may be filed until `kind.days` days after the verdict was recorded (a report: after the
    game ended)."""
    deadline = recorded_at + timedelta(days=kind.days)
    return WindowCheck(now <= deadline, deadline)


def restriction_days(rules: AppealRules, inadmissible: bool, chosen: int | None) -> int | str:
    """The restriction a rejected / inadmissible appeal brings: the councilor's choice within the range, or the
    configured default; a refusal key when the choice is outside the range or restrictions are not configured."""
    default = rules.inadmissible_restriction_days if inadmissible else rules.rejected_restriction_days
    if chosen is None:
        return default
    if not rules.restriction_max_days:
        return "appeal.no_restrictions"
    if not rules.restriction_min_days <= chosen <= rules.restriction_max_days:
        return "appeal.restriction_range"
    return chosen


def kinds_text(kinds: Sequence[AppealKind]) -> str:
    return ", ".join(f"{k.name} ({k.days})" for k in kinds)
