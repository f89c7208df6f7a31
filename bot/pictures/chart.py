"""The council's chart: calls and expired calls by hour of day and by week, as bars (calls in blue, the expired
part of them in red), with the counts written over the bars; from `rules.statistics.Figures`."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n.clock import week_start
from bot.pictures.draw import BLUE, GREY, INK, LIGHT, RED, RULE, WHITE, Canvas, font
from bot.pictures.words import words
from rules.statistics import Figures

WIDTH = 640
MARGIN = 12
PANEL_H = 150


def _bars(
    canvas: Canvas, top: int, title: str, labels: Sequence[str], calls: Sequence[int], expired: Sequence[int]
) -> int:
    small = font(11)
    canvas.text((MARGIN, top, WIDTH - MARGIN, top + 20), title, font(13, bold=True))
    top += 22
    left, right = MARGIN + 24, WIDTH - MARGIN
    base = top + PANEL_H
    canvas.rect((left, top, right, base), fill=LIGHT)
    highest = max([1, *calls])
    count = max(1, len(labels))
    slot = (right - left) / count
    for i, label in enumerate(labels):
        x0 = int(left + i * slot + slot * 0.15)
        x1 = max(x0 + 1, int(left + (i + 1) * slot - slot * 0.15))
        height = int((PANEL_H - 16) * calls[i] / highest)
        lost = int((PANEL_H - 16) * expired[i] / highest)
        if height:
            canvas.rect((x0, base - height, x1, base), fill=BLUE)
        if lost:
            canvas.rect((x0, base - lost, x1, base), fill=RED)
        if calls[i]:
            canvas.text(
                (int(left + i * slot), base - height - 15, int(left + (i + 1) * slot), base - height - 1),
                str(calls[i]),
                small,
                INK,
                align="centre",
                pad=0,
            )
        if count <= 24 or i % max(1, count // 12) == 0:
            canvas.text(
                (int(left + i * slot) - 6, base + 2, int(left + (i + 1) * slot) + 6, base + 18),
                label,
                small,
                GREY,
                align="centre",
                pad=0,
            )
    canvas.line((left, base), (right, base), RULE)
    return base + 22


def render_chart(figures: Figures, lang: str = "sr", title: str = "") -> Canvas:
    w = words(lang)
    weeks = list(figures.calls_per_week)
    height = MARGIN + 26 + 2 * (22 + PANEL_H + 22) + 24 + MARGIN
    canvas = Canvas(WIDTH, height, WHITE)
    canvas.text((MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + 24), title or w["chart"], font(16, bold=True))
    y = MARGIN + 26
    y = _bars(canvas, y, w["by_hour"], [str(h) for h in range(24)], figures.calls_by_hour, figures.expired_by_hour)
    y = _bars(
        canvas,
        y,
        w["by_week"],
        [week_start(week, lang) for week in weeks],
        [figures.calls_per_week[k] for k in weeks],
        [figures.expired_per_week.get(k, 0) for k in weeks],
    )
    canvas.rect((MARGIN, y + 4, MARGIN + 12, y + 16), fill=BLUE)
    canvas.text((MARGIN + 16, y, MARGIN + 150, y + 20), f"{w['chart_calls']} ({figures.calls})", font(11))
    canvas.rect((MARGIN + 160, y + 4, MARGIN + 172, y + 16), fill=RED)
    canvas.text((MARGIN + 176, y, MARGIN + 320, y + 20), f"{w['expired']} ({figures.expired})", font(11))
    return canvas


def chart_png(figures: Figures, lang: str = "sr", title: str = "") -> bytes:
    return render_chart(figures, lang, title).png()
