"""The drawing kit every picture shares: the shipped fonts, the colours, a canvas that remembers where each text went
(so a test can prove every text fits its cell), small playing cards, and the one deterministic PNG encoder.

Determinism: the same input gives the same bytes. The fonts are the project's own files (`fonts/`, DejaVu, with
their licence), never the system's; the PNG is written with fixed settings and no metadata (no time, no text
chunks), so only the pixels are in it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from rules.cards import Card, Suit

FONTS = Path(__file__).parent / "fonts"
PNG_COMPRESS_LEVEL = 1
MAX_PNG_BYTES = 300 * 1024  # every picture stays under this (Telegram's and Discord's limits are far above it)

WHITE = (255, 255, 255)
PAPER = (252, 250, 240)
INK = (25, 25, 35)
GREY = (120, 120, 130)
RULE = (170, 170, 180)
LIGHT = (232, 232, 238)
RED = (196, 30, 40)
GREEN = (20, 130, 60)
BLUE = (30, 70, 170)
GOLD = (250, 235, 170)
Box = tuple[int, int, int, int]  # left, top, right, bottom
Colour = tuple[int, int, int]


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans (Bold) at `size` pixels."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONTS / name), size)


_BBOXES: dict[tuple[int, str], tuple[int, int, int, int]] = {}


def bbox(text: str, face: ImageFont.FreeTypeFont) -> tuple[int, int, int, int]:
    """The pixels `text` covers when drawn at the origin with `face` (cached: the sheets repeat their words)."""
    key = (id(face), text)
    found = _BBOXES.get(key)
    if found is None:
        x0, y0, x1, y1 = face.getbbox(text)
        found = (int(x0), int(y0), int(x1), int(y1))
        if len(_BBOXES) > 50_000:
            _BBOXES.clear()
        _BBOXES[key] = found
    return found


#: The space `Canvas.text` leaves between a cell's side and its text.
PAD = 3


def text_width(text: str, face: ImageFont.FreeTypeFont) -> int:
    left, _, right, _ = bbox(text, face)
    return right - left


def fit(text: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """`text`, cut with an ellipsis so that it is at most `width` pixels wide (a long nickname in a narrow cell)."""
    if text_width(text, face) <= width:
        return text
    cut = text
    while cut and text_width(cut + "…", face) > width:
        cut = cut[:-1]
    return cut + "…" if cut else ""


def wrap(text: str, face: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """`text` broken into lines that `Canvas.text` draws whole in a cell `width` pixels wide, inside its padding
    (at spaces; only a word wider than the cell is cut)."""
    width -= 2 * PAD
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, face) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = fit(word, face, width)
        lines.append(line)
    return lines


@dataclass(frozen=True, slots=True)
class Placed:
    """One text as drawn: its cell and the pixels its glyphs cover (the test checks `ink` lies inside `cell`)."""

    text: str
    cell: Box
    ink: Box

    @property
    def fits(self) -> bool:
        return (
            self.cell[0] <= self.ink[0]
            and self.cell[1] <= self.ink[1]
            and self.ink[2] <= self.cell[2]
            and self.ink[3] <= self.cell[3]
        )


@dataclass
class Canvas:
    """An RGB image and a record of every text drawn on it."""

    width: int
    height: int
    background: Colour = WHITE
    placed: list[Placed] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.image = Image.new("RGB", (self.width, self.height), self.background)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self,
        cell: Box,
        text: str,
        face: ImageFont.FreeTypeFont,
        colour: Colour = INK,
        align: str = "left",
        pad: int = PAD,
    ) -> None:
        """`text` in `cell`, vertically centred, aligned left / centre / right, cut to fit the cell's width."""
        if not text:
            return
        left, top, right, bottom = cell
        shown = fit(text, face, max(0, right - left - 2 * pad))
        if not shown:
            return
        x0, y0, x1, y1 = bbox(shown, face)
        width = x1 - x0
        if align == "right":
            x = right - pad - width
        elif align == "centre":
            x = left + (right - left - width) // 2
        else:
            x = left + pad
        ascent, descent = face.getmetrics()
        y = top + (bottom - top - (ascent + descent)) // 2
        x_draw = x - x0
        self.image.paste(colour, (x_draw + x0, y + y0), glyphs(shown, face))
        self.placed.append(Placed(shown, cell, (x_draw + x0, y + y0, x_draw + x1, y + y1)))

    def rect(self, box: Box, fill: Colour | None = None, outline: Colour | None = None, width: int = 1) -> None:
        self.draw.rectangle(box, fill=fill, outline=outline, width=width)

    def line(self, start: tuple[int, int], end: tuple[int, int], colour: Colour = RULE, width: int = 1) -> None:
        self.draw.line((start, end), fill=colour, width=width)

    def card(
        self, x: int, y: int, card: Card, *, frame: Colour | None = None, faded: bool = False, size: int = 15
    ) -> Box:
        """A small playing card with its top-left corner at (x, y): rank over suit, red for hearts and diamonds."""
        sprite, texts = card_sprite(card, frame, faded, size)
        self.image.paste(sprite, (x, y))
        for text, cell, ink in texts:
            self.placed.append(Placed(text, _moved(cell, x, y), _moved(ink, x, y)))
        w, h = sprite.size
        return x, y, x + w, y + h

    def png(self) -> bytes:
        return encode(self.image)


_GLYPHS: dict[tuple[int, str], Image.Image] = {}


def glyphs(text: str, face: ImageFont.FreeTypeFont) -> Image.Image:
    """The coverage mask of `text` (cached): pasted in a colour through it, it draws the text where it goes."""
    key = (id(face), text)
    found = _GLYPHS.get(key)
    if found is None:
        x0, y0, x1, y1 = bbox(text, face)
        found = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
        ImageDraw.Draw(found).text((-x0, -y0), text, font=face, fill=255)
        if len(_GLYPHS) > 20_000:
            _GLYPHS.clear()
        _GLYPHS[key] = found
    return found


def _moved(box: Box, dx: int, dy: int) -> Box:
    return box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy


@lru_cache(maxsize=1024)
def card_sprite(
    card: Card, frame: Colour | None, faded: bool, size: int
) -> tuple[Image.Image, tuple[tuple[str, Box, Box], ...]]:
    """A card drawn once (and its texts with their cells, relative to its corner); pictures paste it."""
    w, h = card_size(size)
    canvas = Canvas(w + 1, h + 1, WHITE)
    canvas.rect((0, 0, w, h), fill=LIGHT if faded else WHITE, outline=frame or RULE, width=3 if frame else 1)
    colour = GREY if faded else (RED if card.suit in (Suit.H, Suit.D) else INK)
    rank = "10" if card.rank_char == "T" else card.rank_char
    canvas.text((0, 1, w, h // 2 + 1), rank, font(size, bold=True), colour, align="centre", pad=1)
    canvas.text((0, h // 2 - 1, w, h - 1), card.suit.symbol, font(size), colour, align="centre", pad=1)
    return canvas.image, tuple((p.text, p.cell, p.ink) for p in canvas.placed)


def card_size(size: int = 15) -> tuple[int, int]:
    """Width and height of a card drawn with a `size`-pixel font."""
    return int(size * 1.9), int(size * 2.7)


def encode(image: Image.Image) -> bytes:
    """The PNG of `image` with fixed settings and no metadata: the same pixels always give the same bytes."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL, optimize=False)
    return out.getvalue()
