"""The Discord adapter's buttons and modals: every button is a `DynamicItem` whose custom_id carries its action and
id (``sudija:take:42``), so a press on any message ever sent works after a restart with no view kept in memory.

Desk buttons (take, withdraw, join, hands, history, councilor, finish, leave) go to `Desk.press`; the draft
buttons (``sudija:nacrt_kazna:7``) open a modal for one verdict kind (when `bot.registry.open_form` says so) whose
fields are put into the one draft grammar (`bot.registry.drafts.form_args`) and run as ``/presuda`` through
`bot.registry.run`. A submitted form is read from the interaction
itself (`form_values`), so a form opened before a restart is answered after it too.
Nothing in a custom_id is trusted: the desk re-checks the presser and the stored state every time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.ports import Button
from rules.verdicts import REASON_REQUIRED, VerdictKind

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot

CUSTOM_ID = re.compile(r"sudija:(?P<action>[a-z_]+):(?P<ref>[0-9]+)")
DRAFT_FORM = re.compile(r"nacrt:(?P<kind>[a-z_]+):(?P<trial>[0-9]+)")  # a draft modal's custom_id
DRAFT_PREFIX = "nacrt_"
IN_GAME_DRAFTS = (VerdictKind.BULE, VerdictKind.BULA, VerdictKind.BEZ)
OUT_OF_GAME_DRAFTS = (VerdictKind.KAZNA, VerdictKind.SVODJENJE, VerdictKind.NIKO, VerdictKind.BEZ)
DRAFT_KINDS = tuple(VerdictKind)
#: The custom_ids of draft buttons posted before the verdict kinds took the club's words.
LEGACY_DRAFT_KINDS = {
    "bula_change": "bule",
    "fall_transfer": "bula",
    "penalty": "kazna",
    "settlement": "svodjenje",
    "nobody": "niko",
    "no_verdict": "bez",
}
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "danger": discord.ButtonStyle.danger,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
}


def custom_id(action: str, ref: int) -> str:
    return f"sudija:{action}:{ref}"


class DeskButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID.pattern):
    """One desk button: its action and id live in the custom_id; the callback asks the desk."""

    def __init__(self, action: str, ref: int, label: str = "·", style: str = "primary") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80], style=STYLES.get(style, discord.ButtonStyle.primary), custom_id=custom_id(action, ref)
            )
        )
        self.action = action
        self.ref = ref

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DeskButton:
        return cls(match["action"], int(match["ref"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: SudijaBot = interaction.client
        await bot.on_button(interaction, self.action, self.ref)


def view_of(buttons: Sequence[Button], extra: Sequence[DeskButton] = ()) -> discord.ui.View | None:
    """A view of dynamic buttons only (discord.py keeps no per-message state for it): the desk's row first."""
    if not buttons and not extra:
        return None
    view = discord.ui.View(timeout=None)
    for b in buttons:
        item = DeskButton(b.action, b.ref, b.label, b.style)
        item.row = 0
        view.add_item(item)
    for e in extra:
        e.row = 1
        view.add_item(e)
    return view


def draft_buttons(trial_id: int, in_game: bool, t: Callable[..., str]) -> list[DeskButton]:
    kinds = IN_GAME_DRAFTS if in_game else OUT_OF_GAME_DRAFTS
    return [DeskButton(DRAFT_PREFIX + k, trial_id, t(f"choice.vrsta.{k}"), "secondary") for k in kinds]


Field = tuple[str, discord.ui.TextInput[Any]]  # the label (at most 45 characters) and its text input


def _field(
    label: str,
    name: str,
    *,
    required: bool = True,
    long: bool = False,
    max_length: int = 100,
    placeholder: str | None = None,
) -> Field:
    return label[:45], discord.ui.TextInput(
        custom_id=name,
        required=required,
        max_length=max_length,
        placeholder=placeholder,
        style=discord.TextStyle.paragraph if long else discord.TextStyle.short,
    )


def draft_fields(kind: VerdictKind, t: Callable[..., str]) -> list[Field]:
    """The modal's labelled text inputs for one verdict kind (at most five)."""
    reason_required = kind in REASON_REQUIRED
    reason = _field(t("discord.field.reason"), "reason", required=reason_required, long=True, max_length=1000)
    if kind is VerdictKind.BULE:
        return [
            _field(t("discord.field.hand"), "hand", required=False, max_length=3),
            _field(t("discord.field.amounts"), "amounts", max_length=200, placeholder="ana +4, petar -2"),
            _field(t("discord.field.late"), "late", required=False, max_length=12),
            reason,
        ]
    if kind is VerdictKind.BULA:
        return [
            _field(t("discord.field.hand_required"), "hand", max_length=3),
            _field(t("discord.field.culprit"), "culprit", max_length=32),
            _field(t("discord.field.late"), "late", required=False, max_length=12),
            reason,
        ]
    if kind is VerdictKind.KAZNA:
        return [
            _field(
                t("discord.field.culprit"),
                "culprit",
                max_length=64,
                placeholder=t("discord.placeholder.culprit_offence"),
            ),
            _field(t("discord.field.plavac"), "plavac", required=False, max_length=3),
            _field(t("discord.field.league"), "league", required=False, max_length=3),
            _field(t("discord.field.abandoned"), "abandoned", required=False, max_length=12),
            reason,
        ]
    if kind is VerdictKind.SVODJENJE:
        return [_field(t("discord.field.confirm"), "confirm", max_length=20), reason]
    return [reason]


class DraftModal(discord.ui.Modal):
    """The referee fills in one kind of verdict; the submit runs ``/presuda`` (which checks everything)."""

    def __init__(self, kind: VerdictKind, trial_id: int, t: Callable[..., str]) -> None:
        super().__init__(title=t(f"choice.vrsta.{kind}")[:45], custom_id=f"nacrt:{kind}:{trial_id}", timeout=None)
        self.kind = kind
        self.t = t
        fields = draft_fields(kind, t)
        self.inputs = [field for _, field in fields]
        for label, field in fields:
            self.add_item(discord.ui.Label(text=label, component=field))

    def values(self) -> dict[str, str]:
        return {str(i.custom_id): i.value for i in self.inputs}

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Nothing: every submit of a draft form is answered by `SudijaBot.on_interaction` from the interaction's
        own data, the same way whether this object still lives or the bot restarted since the form opened."""


def form_values(components: Any) -> dict[str, str]:
    """The text inputs of a submitted modal (inside action rows or labels), by custom_id."""
    values: dict[str, str] = {}
    stack = list(components) if isinstance(components, list) else []
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if "value" in item and "custom_id" in item:
            values[str(item["custom_id"])] = str(item["value"] or "")
        inner = item.get("components")
        stack += inner if isinstance(inner, list) else []
        if isinstance(item.get("component"), dict):
            stack.append(item["component"])
    return values
