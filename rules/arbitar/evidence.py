"""The Arbitar's evidence for people: one sentence per fact, in the words of the edge's catalogue (``evidence.*``).

`procedure.arbitrate` writes its evidence as keys and values (`ArbitarVerdict.evidence`, the JSON report's
``evidence``); `evidence_lines(evidence, t)` turns every fact it can hold into a sentence — the tricks the defence
took and needed, whose cards another player played, the other defender's cards that could have ruined the pass,
each follower's rezons and aces against the rules, and for each card judged (the decisive one, the other
defender's error, the fallen player's own opening lead, a card checked and cleared by the 10% rule) the card and
the better one, the declarer's tricks after either, the layouts counted and the 10% bar. No key is ever shown:
`FACTS` lists every key the procedure writes, and a test holds the two equal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Translate = Callable[..., str]

#: A judged card's facts, each under one of the `CARD_GROUPS` prefixes.
CARD_FACTS = (
    "player",
    "trick",
    "card",
    "better_card",
    "declarer_tricks_with_card",
    "declarer_tricks_with_better",
    "layouts",
    "consistent_layouts",
    "better_card_better",
    "played_card_better",
    "equal_layouts",
    "compared_layouts",
    "bar",
)
#: The cards the procedure may judge, by prefix: the decisive card, the other defender's ruining error (when the
#: fallen player erred too), the fallen player's own opening lead (left to a referee), a card checked and cleared.
CARD_GROUPS = ("", "other_", "lead_", "checked_")
#: Every key of the evidence.
FACTS = frozenset(
    {
        "defence_tricks",
        "needed",
        "betl",
        "not_own_cards",
        "cards_played_by",
        "ruining_candidates",
        "rezons_fallen",
        "rezons_other",
        "aces_fallen",
        "aces_other",
        "fallen_meets_rules",
        "other_obviously_bad",
        *(prefix + fact for prefix in CARD_GROUPS for fact in CARD_FACTS),
    }
)


def _card_lines(evidence: Mapping[str, Any], prefix: str, t: Translate) -> list[str]:
    e = {fact: evidence[prefix + fact] for fact in CARD_FACTS if prefix + fact in evidence}
    if not {"player", "trick", "card", "better_card"} <= e.keys():
        return []
    head = "evidence.card" + ("_" + prefix.rstrip("_") if prefix else "")
    lines = [t(head, player=e["player"], trick=e["trick"], card=e["card"], better=e["better_card"])]
    if "declarer_tricks_with_card" in e and "declarer_tricks_with_better" in e:
        lines.append(
            t(
                "evidence.declarer_tricks",
                with_card=e["declarer_tricks_with_card"],
                with_better=e["declarer_tricks_with_better"],
            )
        )
    if "layouts" in e and "consistent_layouts" in e:
        compared = e.get("compared_layouts", e["consistent_layouts"])
        lines.append(t("evidence.layouts", layouts=e["layouts"], consistent=e["consistent_layouts"], compared=compared))
    if "better_card_better" in e and "played_card_better" in e:
        lines.append(
            t(
                "evidence.comparison",
                better_count=e["better_card_better"],
                worse_count=e["played_card_better"],
                equal=e.get("equal_layouts", 0),
                bar=e.get("bar", "—"),
            )
        )
    return lines


def _follower_line(evidence: Mapping[str, Any], who: str, name: str, t: Translate) -> str | None:
    """Step 2's count for one follower (``fallen`` or ``other``), with what it means under the rules."""
    rezons, aces = evidence.get(f"rezons_{who}"), evidence.get(f"aces_{who}")
    if rezons is None or aces is None:
        return None
    if who == "fallen":
        verdict = t("evidence.meets_rules" if evidence.get("fallen_meets_rules") else "evidence.below_rules")
    else:
        verdict = t("evidence.obviously_bad" if evidence.get("other_obviously_bad") else "evidence.not_obviously_bad")
    return t("evidence.rezons", player=name, rezons=float(rezons), aces=aces, verdict=verdict)


def evidence_lines(evidence: Mapping[str, Any], t: Translate, fallen: str, other: str) -> list[str]:
    """Every fact of the evidence as a sentence, in the order a referee reads them (`fallen`, `other`: the two
    defenders' nicknames, the one whose fall is judged first)."""
    lines: list[str] = []
    if "defence_tricks" in evidence:
        if evidence.get("betl"):
            lines.append(t("evidence.defence_betl", tricks=evidence["defence_tricks"]))
        elif "needed" in evidence:
            lines.append(t("evidence.defence", tricks=evidence["defence_tricks"], needed=evidence["needed"]))
        else:
            lines.append(t("evidence.defence_only", tricks=evidence["defence_tricks"]))
    if "not_own_cards" in evidence:
        lines.append(
            t("evidence.not_own_cards", player=evidence["not_own_cards"], by=evidence.get("cards_played_by", "?"))
        )
    if "ruining_candidates" in evidence:
        lines.append(t("evidence.ruining_candidates", n=evidence["ruining_candidates"]))
    for prefix in CARD_GROUPS:
        lines += _card_lines(evidence, prefix, t)
    for who, name in (("fallen", fallen), ("other", other)):
        line = _follower_line(evidence, who, name, t)
        if line is not None:
            lines.append(line)
    return lines


def unknown_facts(evidence: Mapping[str, Any]) -> list[str]:
    """The keys of `evidence` no sentence says (none, as long as `FACTS` follows the procedure)."""
    return sorted(set(evidence) - FACTS)
