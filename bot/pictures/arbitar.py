"""The Arbitar's verdict as a picture: the decision (the fall moves or stays) and its step, the reason, the decisive
trick with the card played framed in red and the better card in green, and the counts that decided it (the layouts
the player could not see, those consistent with the bidding, where each card was better, the 10% bar, the
declarer's tricks after either card, the rezon and ace counts of step 2).

It draws `ArbitarVerdict.to_json`'s evidence as the procedure wrote it; keys it does not know are listed as they
are, so a new piece of evidence is shown rather than lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.pictures.draw import GOLD, GREEN, GREY, INK, LIGHT, RED, WHITE, Canvas, card_size, font, wrap
from bot.pictures.words import words
from rules.arbitar.verdict import ArbitarVerdict
from rules.cards import Card
from rules.gamelog import Game
from rules.play import replay

WIDTH = 600
MARGIN = 10
LINE_H = 18
CARD = 16
CARD_W, CARD_H = card_size(CARD)
_COUNTS = (
    ("layouts", "ev_layouts"),
    ("consistent_layouts", "ev_consistent"),
    ("better_card_better", "ev_better"),
    ("played_card_better", "ev_worse"),
    ("compared_layouts", "ev_compared"),
    ("bar", "ev_bar"),
    ("declarer_tricks_with_card", "ev_with_card"),
    ("declarer_tricks_with_better", "ev_with_better"),
)
_SHOWN = {
    "player",
    "trick",
    "card",
    "better_card",
    "rezons_fallen",
    "rezons_other",
    "aces_fallen",
    "aces_other",
    "defence_tricks",
    "needed",
    *(key for key, _ in _COUNTS),
}


def _card(text: Any) -> Card | None:
    try:
        return Card.parse(str(text))
    except ValueError:
        return None


def _rows(verdict: ArbitarVerdict, w: Mapping[str, str]) -> list[tuple[str, str]]:
    ev = verdict.evidence
    rows = [(w[label], str(ev[key])) for key, label in _COUNTS if key in ev]
    if "defence_tricks" in ev:
        rows.append((w["ev_defence"], f"{ev['defence_tricks']} / {ev.get('needed', '—')}"))
    if "rezons_fallen" in ev:
        rows.append((w["ev_rezons"], f"{ev['rezons_fallen']:g} / {ev.get('rezons_other', 0):g}"))
    if "aces_fallen" in ev:
        rows.append((w["ev_aces"], f"{ev['aces_fallen']} / {ev.get('aces_other', 0)}"))
    rows += [(key, str(value)) for key, value in ev.items() if key not in _SHOWN]
    return rows


def render_verdict(game: Game, n: int, fallen: int, verdict: ArbitarVerdict, lang: str = "sr") -> Canvas:
    """The verdict on the fall of seat `fallen` in hand `n` of `game`."""
    w = words(lang)
    names = game.players
    hand = next((h for h in game.hands if h.n == n), None)
    if hand is None:
        raise ValueError(f"game {game.number} has no hand {n}")
    ev = verdict.evidence
    text, small, bold = font(13), font(12), font(13, bold=True)
    reason = wrap(f"{w['reason']}: {verdict.reason_in(w.catalogue.t)}", text, WIDTH - 2 * MARGIN)
    trick_no = ev.get("trick")
    trick = next((t for t in replay(hand).tricks if t.number == trick_no), None)
    rows = _rows(verdict, w)
    height = (
        MARGIN
        + 28
        + LINE_H
        + 6
        + len(reason) * LINE_H
        + 8
        + (LINE_H + CARD_H + 26 if trick else 0)
        + len(rows) * LINE_H
        + MARGIN
    )
    canvas = Canvas(WIDTH, height, WHITE)
    right = WIDTH - MARGIN
    canvas.text((MARGIN, MARGIN, right, MARGIN + 28), w["arbitar"].format(game=game.number, n=n), font(16, bold=True))
    y = MARGIN + 28
    if verdict.transfers and verdict.to is not None:
        decision, colour = w["transfer"].format(name=names[verdict.to]), GREEN
    else:
        decision, colour = w["stays"].format(name=names[fallen]), RED
    step = w["step"].format(step=verdict.step) if verdict.step else "—"
    canvas.text((MARGIN, y, right - 90, y + LINE_H), decision, bold, colour)
    canvas.text((right - 90, y, right, y + LINE_H), step, small, GREY, align="right")
    y += LINE_H + 6
    for line in reason:
        canvas.text((MARGIN, y, right, y + LINE_H), line, text)
        y += LINE_H
    y += 8
    if trick is not None:
        played = _card(ev.get("card"))
        better = _card(ev.get("better_card"))
        canvas.text(
            (MARGIN, y, right, y + LINE_H),
            w["decisive"].format(trick=trick.number) + " · " + w["by"].format(name=str(ev.get("player", "?"))),
            bold,
        )
        y += LINE_H + 2
        canvas.rect((MARGIN - 4, y - 2, right + 4, y + CARD_H + 20), fill=GOLD)
        x = MARGIN
        for position, card in enumerate(trick.cards):
            seat = trick.seat_of(position)
            frame = RED if card == played else (GREEN if seat == trick.winner else None)
            canvas.card(x + 8, y, card, size=CARD, frame=frame)
            canvas.text((x, y + CARD_H, x + CARD_W + 16, y + CARD_H + 18), names[seat], small, INK, align="centre")
            x += CARD_W + 40
        canvas.text((x, y, x + 30, y + CARD_H), "→", bold, GREEN, align="centre")
        canvas.text((x + 30, y, x + 130, y + CARD_H), names[trick.winner], bold, GREEN)
        if better is not None:
            bx = right - CARD_W - 8
            canvas.card(bx, y, better, size=CARD, frame=GREEN)
            canvas.text(
                (bx - 160, y, bx - 6, y + CARD_H // 2),
                w["played_card"] + ": " + (played.display() if played else "?"),
                small,
                RED,
                align="right",
            )
            canvas.text(
                (bx - 160, y + CARD_H // 2, bx - 6, y + CARD_H), w["better_card"] + ":", small, GREEN, align="right"
            )
        y += CARD_H + 26
    for i, (label, value) in enumerate(rows):
        if i % 2 == 0:
            canvas.rect((MARGIN - 4, y, right + 4, y + LINE_H), fill=LIGHT)
        canvas.text((MARGIN, y, right - 110, y + LINE_H), label, small, GREY)
        canvas.text((right - 110, y, right, y + LINE_H), value, bold, align="right")
        y += LINE_H
    return canvas


def verdict_png(game: Game, n: int, fallen: int, verdict: ArbitarVerdict, lang: str = "sr") -> bytes:
    return render_verdict(game, n, fallen, verdict, lang).png()
