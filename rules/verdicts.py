"""Verdicts: the kinds a referee may draft, their limits, and their stored form.

In game (Presuda tokom partije): Promena bula (an even change of −98…98 for one, two or three players, about a
completed hand or the game as a whole), Odlazak u bulu umesto drugog (a defender's fall moves to the player who
caused it), or Bez presude. Out of game (Presuda van partije): manual settlement of an interrupted game, a
penalty (plavac up to 7 days and/or up to 10 league penalty points; or, named by a rule of another club's
catalogue, a sanction in that club's units: `rules.penalty_model.Sanction`), (niko), or Bez presude. A verdict about the
content of a hand may be given only before the next hand ends (refused once it has ended), unless the referee marks
the delay justified (`rules.verdict_place`).
The paper limits (at least 2 bule stay) are `rules.paper`'s; the settlement conditions are `rules.penalties`'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.limits import MAX_BULA_CHANGE, MAX_LEAGUE_POINTS, MAX_PLAVAC_DAYS
from rules.nicknames import is_blank
from rules.penalty_model import Sanction
from rules.verdict_place import is_late

__all__ = ["MAX_BULA_CHANGE", "MAX_LEAGUE_POINTS", "MAX_PLAVAC_DAYS"]  # where the desk and the tests look for them


class VerdictKind(StrEnum):
    """The kinds of verdict, by the club's own words: the same word is typed (``/presuda bule …``), stored (the
    verdict's ``kind``) and shown."""

    BULE = "bule"  # Promena bula
    BULA = "bula"  # Odlazak u bulu umesto drugog
    KAZNA = "kazna"  # a penalty: plavac, league points, napustio, a catalogue entry
    SVODJENJE = "svodjenje"  # Ručno svođenje
    NIKO = "niko"  # (niko): nobody is guilty
    BEZ = "bez"  # Bez presude


class VerdictRefused(ValueError):
    """A draft that breaks a rule; `key` names the catalogue message, `params` fill it."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class BulaChange:
    """Promena bula: `amounts` maps nicknames to an even change; `hand` None = the game as a whole."""

    amounts: Mapping[str, int]
    hand: int | None = None
    late_justified: bool = False
    kind: VerdictKind = field(default=VerdictKind.BULE, init=False)


@dataclass(frozen=True)
class FallTransfer:
    """Odlazak u bulu umesto drugog: in `hand`, the fall of the defender who fell moves to `culprit`."""

    hand: int
    culprit: str
    late_justified: bool = False
    kind: VerdictKind = field(default=VerdictKind.BULA, init=False)


@dataclass(frozen=True)
class NoVerdict:
    """Bez presude."""

    kind: VerdictKind = field(default=VerdictKind.BEZ, init=False)


@dataclass(frozen=True)
class Settlement:
    """Ručno svođenje: write off the bule of an interrupted game; `innocent_confirmed` is the referee's word
    that it is not against the interest of an innocent player."""

    innocent_confirmed: bool = False
    kind: VerdictKind = field(default=VerdictKind.SVODJENJE, init=False)


@dataclass(frozen=True)
class Penalty:
    """A penalty for `culprit`: plavac days and/or league penalty points; `abandoned` moves the napustio count."""

    culprit: str
    plavac_days: int = 0
    league_points: int = 0
    abandoned: bool = False
    offence: str = ""  # the club's catalogue entry it was given by, if any (`rules.catalogue`)
    deny_call_days: int = 0  # the culprit's right to call a referee is denied this long (a catalogue penalty)
    suspension_days: int = 0  # from all the club's tournaments (another club's rule): an effect of its own
    units: int | None = None  # what a per-unit rule counts (the minutes of a delay), as the referee gave it
    amount: int | None = None  # the referee's figure within a rule's range, in the rule's own units (`iznos N`)
    sanction: Sanction | None = None  # the rule's price in the club's units (warning, % of a top, IMP, …)
    kind: VerdictKind = field(default=VerdictKind.KAZNA, init=False)


@dataclass(frozen=True)
class Nobody:
    """(niko): nobody is guilty, nobody is punished; an earlier penalty for the game is lifted."""

    kind: VerdictKind = field(default=VerdictKind.NIKO, init=False)


Verdict = BulaChange | FallTransfer | NoVerdict | Settlement | Penalty | Nobody

IN_GAME_KINDS = (VerdictKind.BULE, VerdictKind.BULA, VerdictKind.BEZ)
OUT_OF_GAME_KINDS = (VerdictKind.SVODJENJE, VerdictKind.KAZNA, VerdictKind.NIKO, VerdictKind.BEZ)
REASON_REQUIRED = (VerdictKind.BULA, VerdictKind.BEZ, VerdictKind.NIKO, VerdictKind.SVODJENJE)


@dataclass(frozen=True)
class Draft:
    verdict: Verdict
    reason: str = ""


def check_draft(
    draft: Draft,
    *,
    in_game: bool,
    players: tuple[str, str, str],
    completed_hands: int,
    plavac_limit: int = MAX_PLAVAC_DAYS,
    league_limit: int = MAX_LEAGUE_POINTS,
) -> None:
    """Raise `VerdictRefused` when the draft breaks a rule that does not need the paper. The penalty limits are
    the club's (7 days, 10 points) unless its configuration sets others."""
    verdict = draft.verdict
    allowed = IN_GAME_KINDS if in_game else OUT_OF_GAME_KINDS
    if verdict.kind not in allowed:
        raise VerdictRefused("verdict.wrong_place_in_game" if in_game else "verdict.wrong_place_out_of_game")
    if verdict.kind in REASON_REQUIRED and is_blank(draft.reason):
        raise VerdictRefused("verdict.reason_required")
    folded = {p.casefold(): p for p in players}
    if isinstance(verdict, BulaChange):
        if not verdict.amounts:
            raise VerdictRefused("verdict.no_amounts")
        named: set[str] = set()
        for nick in verdict.amounts:
            if nick.casefold() in named:
                raise VerdictRefused("verdict.same_player_twice", nick=nick)
            named.add(nick.casefold())
        for nick, amount in verdict.amounts.items():
            if nick.casefold() not in folded:
                raise VerdictRefused("verdict.not_a_player", nick=nick)
            if amount % 2 or amount == 0 or abs(amount) > MAX_BULA_CHANGE:
                raise VerdictRefused("verdict.bad_amount", nick=nick, amount=amount, limit=MAX_BULA_CHANGE)
        if verdict.hand is not None:
            _check_hand(verdict.hand, completed_hands, verdict.late_justified)
        elif completed_hands == 0:
            raise VerdictRefused("verdict.no_completed_hand")
    elif isinstance(verdict, FallTransfer):
        if verdict.culprit.casefold() not in folded:
            raise VerdictRefused("verdict.not_a_player", nick=verdict.culprit)
        _check_hand(verdict.hand, completed_hands, verdict.late_justified)
    elif isinstance(verdict, Penalty):
        if verdict.culprit.casefold() not in folded:
            raise VerdictRefused("verdict.not_a_player", nick=verdict.culprit)
        if not 0 <= verdict.plavac_days <= plavac_limit:
            raise VerdictRefused("verdict.plavac_limit", days=verdict.plavac_days, limit=plavac_limit)
        if not 0 <= verdict.league_points <= league_limit:
            raise VerdictRefused("verdict.league_limit", points=verdict.league_points, limit=league_limit)
        if not (
            verdict.plavac_days
            or verdict.league_points
            or verdict.abandoned
            or verdict.deny_call_days
            or verdict.suspension_days
            or verdict.sanction is not None
        ):
            raise VerdictRefused("verdict.empty_penalty")
    elif isinstance(verdict, Settlement) and not verdict.innocent_confirmed:
        raise VerdictRefused("verdict.settlement_confirm")


def _check_hand(hand: int, completed_hands: int, late_justified: bool) -> None:
    if hand < 1 or hand > completed_hands:
        raise VerdictRefused("verdict.hand_not_completed", hand=hand, completed=completed_hands)
    # "Presude koje se odnose na sadržaj određene ruke mogu biti donete samo pre kraja naredne ruke."
    if is_late(hand, completed_hands) and not late_justified:
        raise VerdictRefused("verdict.too_late", hand=hand, completed=completed_hands)


def twice_named(nicks: Iterable[str]) -> str | None:
    """The first nickname named a second time (whatever the letter case), or None: a typed draft is checked
    before its amounts become a mapping, where a repeated name would silently replace the first amount."""
    seen: set[str] = set()
    for nick in nicks:
        if nick.casefold() in seen:
            return nick
        seen.add(nick.casefold())
    return None


def canonical_nick(nick: str, players: tuple[str, str, str]) -> str:
    for p in players:
        if p.casefold() == nick.casefold():
            return p
    return nick


def verdict_to_json(draft: Draft) -> dict[str, Any]:
    v = draft.verdict
    data: dict[str, Any] = {"kind": v.kind.value, "reason": draft.reason}
    if isinstance(v, BulaChange):
        data.update(amounts=dict(v.amounts), hand=v.hand, late_justified=v.late_justified)
    elif isinstance(v, FallTransfer):
        data.update(hand=v.hand, culprit=v.culprit, late_justified=v.late_justified)
    elif isinstance(v, Settlement):
        data.update(innocent_confirmed=v.innocent_confirmed)
    elif isinstance(v, Penalty):
        data.update(
            culprit=v.culprit,
            plavac_days=v.plavac_days,
            league_points=v.league_points,
            abandoned=v.abandoned,
            offence=v.offence,
            deny_call_days=v.deny_call_days,
        )
        if v.suspension_days:
            data["suspension_days"] = v.suspension_days
        if v.sanction is not None:
            data["sanction"] = v.sanction.to_json()
    return data


def verdict_from_json(data: Mapping[str, Any]) -> Draft:
    kind = data["kind"]
    reason = str(data.get("reason", ""))
    verdict: Verdict
    if kind == VerdictKind.BULE:
        verdict = BulaChange(
            {str(k): int(a) for k, a in data["amounts"].items()},
            data.get("hand"),
            bool(data.get("late_justified", False)),
        )
    elif kind == VerdictKind.BULA:
        verdict = FallTransfer(int(data["hand"]), str(data["culprit"]), bool(data.get("late_justified", False)))
    elif kind == VerdictKind.SVODJENJE:
        verdict = Settlement(bool(data.get("innocent_confirmed", False)))
    elif kind == VerdictKind.KAZNA:
        verdict = Penalty(
            str(data["culprit"]),
            int(data.get("plavac_days", 0)),
            int(data.get("league_points", 0)),
            bool(data.get("abandoned", False)),
            str(data.get("offence", "")),
            int(data.get("deny_call_days", 0)),
            suspension_days=int(data.get("suspension_days", 0)),
            sanction=Sanction.from_json(data["sanction"]) if data.get("sanction") else None,
        )
    elif kind == VerdictKind.NIKO:
        verdict = Nobody()
    elif kind == VerdictKind.BEZ:
        verdict = NoVerdict()
    else:
        raise ValueError(f"unknown verdict kind {kind!r}")
    return Draft(verdict, reason)
