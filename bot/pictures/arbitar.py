"""The Arbitar's verdict as a picture: the decision (the fall moves or stays) and its step, the reason, the decisive
trick with the card played framed in red and the better card in green, and the evidence that decided it, one
sentence per fact (`rules.arbitar.evidence`: the defence's tricks, the layouts the player could not see and those
consistent with the bidding, where each card was better, the 10% bar, the declarer's tricks after either card, the
rezon and ace counts of step 2) in the reader's language.
"""

from __future__ import annotations

from typing import Any

from bot.pictures.draw import GOLD, GREEN, GREY, INK, LIGHT, RED, WHITE, Canvas, card_size, font, wrap
from bot.pictures.words import words
from rules.arbitar.evidence import evidence_lines
from rules.arbitar.verdict import ArbitarVerdict
from rules.cards import Card
from rules.gamelog import Game
from rules.play import replay

WIDTH = 600
MARGIN = 10
LINE_H = 18
CARD = 16
CARD_W, CARD_H = card_size(CARD)


def _card(text: Any) -> Card | None:
    try:
        return Card.parse(str(text))
    except ValueError:
        return None


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
    declarer = hand.declarer if hand.declarer is not None else (fallen + 1) % 3
    other = names[3 - declarer - fallen] if declarer != fallen else "?"
    facts = evidence_lines(ev, w.catalogue.t, names[fallen], other)
    rows = [part for fact in facts for part in wrap("• " + fact, small, WIDTH - 2 * MARGIN)]
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
    if rows:
        canvas.rect((MARGIN - 4, y, right + 4, y + len(rows) * LINE_H), fill=LIGHT)
    for line in rows:
        canvas.text((MARGIN, y, right, y + LINE_H), line, small, INK)
        y += LINE_H
    return canvas


def verdict_png(game: Game, n: int, fallen: int, verdict: ArbitarVerdict, lang: str = "sr") -> bytes:
    return render_verdict(game, n, fallen, verdict, lang).png()
