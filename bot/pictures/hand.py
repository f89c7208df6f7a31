"""One hand as a picture (Prikaz ruke "sa strelicama"): the three players' cards, the talon and the discards, the
auction, the defenders' answers and the kontra chain, then every trick in order: who led, the cards in the order
played (each under its player's name), who won it (framed, with an arrow to his name).

A trick can be marked (`mark`): the Arbitar's picture draws the decisive trick with the card played framed in red
and the better card beside it (`bot.pictures.arbitar`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.pictures.draw import BLUE, GOLD, GREEN, GREY, INK, LIGHT, RED, WHITE, Canvas, card_size, font, wrap
from bot.pictures.words import words
from rules.cards import Card
from rules.gamelog import Game, Hand
from rules.paper import compute_paper
from rules.paper_hand import hand_facts
from rules.paper_render import bid_text, contract_text, kontra_text, outcome_lines
from rules.play import TrickPlay, replay

WIDTH = 640
MARGIN = 8
NAME_W = 120
CARD = 14  # the cards' font size
CARD_W, CARD_H = card_size(CARD)
GAP = 3
SLOT_W = 76 + CARD_W + 8  # a played card with its player's name
TRICK_H = CARD_H + 8
LINE_H = 18


def _sorted(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (c.suit, -c.rank))


def _cards_row(canvas: Canvas, x: int, y: int, cards: Sequence[Card]) -> int:
    for card in _sorted(cards):
        canvas.card(x, y, card, size=CARD)
        x += CARD_W + GAP
    return x


def hand_height(game: Game, hand: Hand, lang: str = "sr") -> int:
    return _layout(game, hand, lang)[0]


def _outcome(game: Game, hand: Hand, lang: str) -> list[str]:
    """The hand's outcome as the paper writes it (on refe or not), wrapped to the picture's width."""
    if not hand.completed:
        return []
    t = words(lang).catalogue.t
    on_paper = compute_paper(game, ()).hand(hand.n)
    score = on_paper.score if on_paper is not None and on_paper.score is not None else hand_facts(hand).plain
    return [part for line in outcome_lines(game.players, score, t) for part in wrap(line, font(12), WIDTH - 2 * MARGIN)]


def _layout(game: Game, hand: Hand, lang: str) -> tuple[int, list[str], tuple[TrickPlay, ...]]:
    w = words(lang)
    names = game.players
    t = w.catalogue.t
    auction = " · ".join(f"{names[b.seat]} {bid_text(b.call, t)}" for b in hand.bids) or "—"
    lines = wrap(f"{w['bids']}: {auction}", font(12), WIDTH - 2 * MARGIN)
    lines += _outcome(game, hand, lang)
    tricks = replay(hand).tricks
    height = (
        MARGIN
        + 26
        + LINE_H
        + 3 * (CARD_H + 6)
        + CARD_H
        + 10
        + len(lines) * LINE_H
        + LINE_H
        + (LINE_H + len(tricks) * TRICK_H if tricks else LINE_H)
        + MARGIN
    )
    return height, lines, tricks


def render_hand(game: Game, hand: Hand, lang: str = "sr", mark: tuple[int, Card, Card | None] | None = None) -> Canvas:
    """Hand `hand` of `game` on a canvas. `mark` = (trick number, the card played, the better card or None)."""
    w = words(lang)
    names = game.players
    height, auction_lines, tricks = _layout(game, hand, lang)
    canvas = Canvas(WIDTH, height, WHITE)
    right = WIDTH - MARGIN
    small = font(11)
    text = font(12)
    bold = font(12, bold=True)
    title = w["hands_title"].format(game=game.number, n=hand.n)
    if not hand.completed:
        title += f" ({w['in_progress']})"
    canvas.text((MARGIN, MARGIN, right - 160, MARGIN + 26), title, font(16, bold=True))
    canvas.text(
        (right - 160, MARGIN, right, MARGIN + 26),
        w["dealer"].format(name=names[hand.dealer]),
        small,
        GREY,
        align="right",
    )
    y = MARGIN + 26
    declarer = hand.declarer
    if declarer is not None and hand.contract is not None:
        head = w["contract"].format(name=names[declarer], contract=contract_text(hand.contract, w.catalogue.t))
        answers = [f"{names[s]} {w[d.value]}" for s, d in sorted(hand.defense.items())]
        if hand.kontra:
            answers.append(kontra_text(names, hand.kontra, w.catalogue.t))
        canvas.text((MARGIN, y, right, y + LINE_H), " · ".join([head, *answers]), bold)
    else:
        canvas.text((MARGIN, y, right, y + LINE_H), w["all_pass"], bold)
    y += LINE_H + 2
    for seat in range(3):
        box = (MARGIN, y, MARGIN + NAME_W, y + CARD_H)
        if seat == declarer:
            canvas.rect(box, fill=GOLD)
        canvas.text((MARGIN, y, MARGIN + NAME_W, y + CARD_H // 2 + 2), names[seat], bold)
        if seat == declarer:
            canvas.text((MARGIN, y + CARD_H // 2, MARGIN + NAME_W, y + CARD_H), w["declarer"], small, GREY)
        _cards_row(canvas, MARGIN + NAME_W + 6, y, hand.deal[seat])
        y += CARD_H + 6
    # the talon and the discards
    canvas.text((MARGIN, y, MARGIN + NAME_W, y + CARD_H), w["talon"], text, GREY)
    x = _cards_row(canvas, MARGIN + NAME_W + 6, y, hand.talon)
    if hand.discards:
        canvas.text((x + 20, y, x + 120, y + CARD_H), w["discards"], text, GREY, align="right")
        _cards_row(canvas, x + 126, y, hand.discards)
    y += CARD_H + 10
    for line in auction_lines:
        canvas.text((MARGIN, y, right, y + LINE_H), line, text)
        y += LINE_H
    y += LINE_H // 2
    if not tricks:
        no_play = w["no_play"] if declarer is None or hand.completed else w["in_progress"]
        canvas.text((MARGIN, y, right, y + LINE_H), no_play, text, GREY)
        return canvas
    canvas.text((MARGIN, y, right, y + LINE_H), f"{w['tricks']} ({w['led']} → {w['won']})", bold)
    y += LINE_H
    for trick in tricks:
        marked = mark is not None and mark[0] == trick.number
        if marked:
            canvas.rect((MARGIN - 4, y - 2, right + 4, y + TRICK_H - 4), fill=GOLD)
        elif trick.number % 2 == 0:
            canvas.rect((MARGIN - 4, y - 2, right + 4, y + TRICK_H - 4), fill=LIGHT)
        canvas.text((MARGIN - 4, y, MARGIN + 26, y + CARD_H), f"{trick.number}.", bold, align="right")
        x = MARGIN + 30
        for position, card in enumerate(trick.cards):
            seat = trick.seat_of(position)
            who = names[seat] + (" ▸" if position == 0 else "")
            canvas.text((x, y, x + 76, y + CARD_H), who, small, BLUE if position == 0 else INK, align="right")
            frame = GREEN if seat == trick.winner else None
            if marked and mark is not None and card == mark[1]:
                frame = RED
            canvas.card(x + 80, y, card, size=CARD, frame=frame)
            x += SLOT_W
        canvas.text((x, y, x + 26, y + CARD_H), "→", bold, GREEN, align="centre")
        canvas.text((x + 26, y, right - 70, y + CARD_H), names[trick.winner], bold, GREEN)
        if marked and mark is not None and mark[2] is not None:
            canvas.card(right - CARD_W, y, mark[2], size=CARD, frame=GREEN)
            canvas.text((right - 70, y, right - CARD_W - 2, y + CARD_H), "✓", bold, GREEN, align="right")
        y += TRICK_H
    return canvas


def hand_png(game: Game, n: int, lang: str = "sr") -> bytes:
    """Hand number `n` of `game` as a PNG; ValueError when the game has no such hand."""
    hand = next((h for h in game.hands if h.n == n), None)
    if hand is None:
        raise ValueError(f"game {game.number} has no hand {n}")
    return render_hand(game, hand, lang).png()
