"""The Discord adapter's buttons and modals: every button is a `DynamicItem` whose custom_id carries its action and
id (``sudija:take:42``), so a press on any message ever sent works after a restart with no view kept in memory.

Desk buttons (take, withdraw, join, hands, history, councilor, finish, leave) go to `Desk.press`; the draft
buttons (``sudija:nacrt_penalty:7``) open a modal whose fields become a `rules.verdicts.Draft` for `Desk.draft`.
Nothing in a custom_id is trusted: the desk re-checks the presser and the stored state every time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.ports import Button
from rules.verdicts import BulaChange, Draft, FallTransfer, Nobody, NoVerdict, Penalty, Settlement, Verdict, twice_named

if TYPE_CHECKING:
    from bot.discord.client import SudijaBot

CUSTOM_ID = re.compile(r"sudija:(?P<action>[a-z_]+):(?P<ref>[0-9]+)")
DRAFT_PREFIX = "nacrt_"
IN_GAME_DRAFTS = ("bula_change", "fall_transfer", "no_verdict")
OUT_OF_GAME_DRAFTS = ("penalty", "settlement", "nobody", "no_verdict")
DRAFT_KINDS = ("bula_change", "fall_transfer", "penalty", "settlement", "nobody", "no_verdict")
YES = frozenset({"da", "d", "yes", "y", "true", "1", "potvrđujem", "potvrdjujem"})
STYLES = {"primary": discord.ButtonStyle.primary, "danger": discord.ButtonStyle.danger,
          "secondary": discord.ButtonStyle.secondary, "success": discord.ButtonStyle.success}


def custom_id(action: str, ref: int) -> str:
    return f"sudija:{action}:{ref}"


class DeskButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID.pattern):
    """One desk button: its action and id live in the custom_id; the callback asks the desk."""

    def __init__(self, action: str, ref: int, label: str = "·", style: str = "primary") -> None:
        super().__init__(discord.ui.Button(label=label[:80], style=STYLES.get(style, discord.ButtonStyle.primary),
                                           custom_id=custom_id(action, ref)))
        self.action = action
        self.ref = ref

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str]) -> DeskButton:
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
    return [DeskButton(DRAFT_PREFIX + k, trial_id, t(f"discord.draft.{k}"), "secondary") for k in kinds]


class DraftInvalid(ValueError):
    """A modal field that cannot be read; the message is shown to the referee."""


Field = tuple[str, discord.ui.TextInput[Any]]  # the label (at most 45 characters) and its text input


def _field(label: str, name: str, *, required: bool = True, long: bool = False, max_length: int = 100,
           placeholder: str | None = None) -> Field:
    return label[:45], discord.ui.TextInput(custom_id=name, required=required, max_length=max_length,
                                            placeholder=placeholder,
                                            style=discord.TextStyle.paragraph if long else discord.TextStyle.short)


def draft_fields(kind: str, t: Callable[..., str]) -> list[Field]:
    """The modal's labelled text inputs for one verdict kind (at most five)."""
    reason_required = kind in ("fall_transfer", "no_verdict", "nobody", "settlement")
    reason = _field(t("discord.field.reason"), "reason", required=reason_required, long=True, max_length=1000)
    if kind == "bula_change":
        return [_field(t("discord.field.hand"), "hand", required=False, max_length=3),
                _field(t("discord.field.amounts"), "amounts", max_length=200, placeholder="ana +4, petar -2"),
                _field(t("discord.field.late"), "late", required=False, max_length=12), reason]
    if kind == "fall_transfer":
        return [_field(t("discord.field.hand_required"), "hand", max_length=3),
                _field(t("discord.field.culprit"), "culprit", max_length=32),
                _field(t("discord.field.late"), "late", required=False, max_length=12), reason]
    if kind == "penalty":
        return [_field(t("discord.field.culprit"), "culprit", max_length=64,
                       placeholder=t("discord.placeholder.culprit_offence")),
                _field(t("discord.field.plavac"), "plavac", required=False, max_length=3),
                _field(t("discord.field.league"), "league", required=False, max_length=3),
                _field(t("discord.field.abandoned"), "abandoned", required=False, max_length=12), reason]
    if kind == "settlement":
        return [_field(t("discord.field.confirm"), "confirm", max_length=20), reason]
    return [reason]


def _int(text: str, usage: str) -> int:
    try:
        return int(text.strip().replace("+", "", 1) if text.strip().startswith("+") else text.strip())
    except ValueError:
        raise DraftInvalid(f"{usage}: '{text.strip()}'") from None


def _yes(text: str) -> bool:
    return text.strip().casefold() in YES


def parse_amounts(text: str, t: Callable[..., str]) -> dict[str, int]:
    """``ana +4, petar -2`` (commas optional) into {nick: amount}."""
    words = text.replace(",", " ").replace(";", " ").split()
    if not words or len(words) % 2:
        raise DraftInvalid(t("usage.amounts"))
    twice = twice_named(words[::2])
    if twice is not None:
        raise DraftInvalid(t("verdict.same_player_twice", nick=twice))
    return {nick: _int(amount, t("usage.amount")) for nick, amount in zip(words[::2], words[1::2], strict=True)}


def build_draft(kind: str, values: dict[str, str], t: Callable[..., str]) -> Draft:
    """The modal's fields as a verdict draft; the desk checks every rule of the draft itself."""
    def get(name: str) -> str:
        return values.get(name, "").strip()

    verdict: Verdict
    if kind == "bula_change":
        hand = _int(get("hand"), t("usage.hand_number")) if get("hand") else None
        verdict = BulaChange(parse_amounts(get("amounts"), t), hand, _yes(get("late")))
    elif kind == "fall_transfer":
        verdict = FallTransfer(_int(get("hand"), t("usage.hand_number")), get("culprit"), _yes(get("late")))
    elif kind == "penalty":
        plavac = _int(get("plavac"), t("usage.days")) if get("plavac") else 0
        league = _int(get("league"), t("usage.points")) if get("league") else 0
        # "petar po kasnjenje": the club's catalogue names the penalty (the form holds five fields at most).
        culprit, _, offence = get("culprit").partition(" po ")
        verdict = Penalty(culprit.strip(), plavac, league, _yes(get("abandoned")), offence.strip())
    elif kind == "settlement":
        verdict = Settlement(innocent_confirmed=_yes(get("confirm")))
    elif kind == "nobody":
        verdict = Nobody()
    elif kind == "no_verdict":
        verdict = NoVerdict()
    else:
        raise DraftInvalid(t("usage.draft_kind"))
    return Draft(verdict, get("reason"))


class DraftModal(discord.ui.Modal):
    """The referee fills in one kind of verdict; submitting calls `Desk.draft` (which checks everything)."""

    def __init__(self, kind: str, trial_id: int, t: Callable[..., str]) -> None:
        super().__init__(title=t(f"discord.draft.{kind}")[:45], custom_id=f"nacrt:{kind}:{trial_id}", timeout=None)
        self.kind = kind
        self.t = t
        fields = draft_fields(kind, t)
        self.inputs = [field for _, field in fields]
        for label, field in fields:
            self.add_item(discord.ui.Label(text=label, component=field))

    def values(self) -> dict[str, str]:
        return {str(i.custom_id): i.value for i in self.inputs}

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        bot: SudijaBot = interaction.client
        await bot.on_draft(interaction, self.kind, self.values())
