"""How the web's pages are written: the Jinja2 environment over the package's templates (autoescaped), the helpers
the templates call — the reader's catalogue (`t`, moments on the club's clock), cards with their suits, the paper's
words (`rules.paper_render`) — and what is drawn or exported from the council's figures (SVG bars, CSV). Nothing
here decides what a reader sees: each page's value (`bot.desk.archive`) already is what he may see."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from markupsafe import Markup

from bot.messages import Catalogue
from rules.cards import Card, Suit
from rules.paper_render import change_note, entries_text, entry_text, score_text, signed
from rules.statistics import Figures

HTML_LANG = {"sr": "sr-Latn", "sr-Cyrl": "sr-Cyrl", "en": "en", "ru": "ru"}
RED_SUITS = frozenset({Suit.H, Suit.D})


def setup_templates(app: web.Application) -> jinja2.Environment:
    """The templates of bot/web/templates for `app` (aiohttp-jinja2), autoescaped, an undefined name an error (a
    template's mistake is caught by the tests, never shown half-rendered)."""
    env = aiohttp_jinja2.setup(
        app,
        loader=jinja2.PackageLoader("bot.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        default_helpers=False,
    )
    env.globals.update(
        card=card_html,
        cards=cards_html,
        signed=signed,
        score_text=score_text,
        entry_text=entry_text,
        entries_line=entries_text,
        change_note=change_note,
        paper_word=paper_word,
        duration=duration,
    )
    return env


def duration(seconds: float | None) -> str:
    """How long a call waited for its Sudi: minutes and seconds (as `/statistika` writes it)."""
    if seconds is None:
        return "—"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s"


def paper_word(t: Callable[..., str], code: str) -> str:
    """A paper's code (why a hand is not scored) in words, or the code itself where the catalogue has none."""
    try:
        return t(f"paper.{code}")
    except KeyError:
        return code


def card_html(card: Card) -> Markup:
    """A card for people: its rank and suit symbol, the red suits marked (the stylesheet colours them)."""
    colour = "red" if card.suit in RED_SUITS else "black"
    return Markup('<span class="card {}">{}</span>').format(colour, card.display())


def cards_html(cards: Sequence[Card], marked: frozenset[Card] = frozenset()) -> Markup:
    """A holding grouped by suit, highest first; `marked` cards (those played in the trick shown) stand out."""
    if not cards:
        return Markup('<span class="none">—</span>')
    parts = []
    for card in sorted(cards, key=lambda c: (c.suit, -c.rank)):
        html = card_html(card)
        parts.append(Markup('<mark class="played">{}</mark>').format(html) if card in marked else html)
    return Markup(" ").join(parts)


@dataclass(frozen=True, slots=True)
class Words:
    """The reader's words for a template: the catalogue's `t`, a moment on the club's clock, a day."""

    catalogue: Catalogue

    def t(self, key: str, **values: object) -> str:
        return self.catalogue.t(key, **values)

    def when(self, moment: datetime | None) -> str:
        return "—" if moment is None else self.catalogue.param(moment)

    def day(self, value: date | None) -> str:
        return "" if value is None else value.isoformat()

    @property
    def lang(self) -> str:
        return HTML_LANG.get(self.catalogue.language, "sr-Latn")


# The council's figures: SVG bars and CSV -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: int
    part: int  # the part of it drawn in the second colour (the expired calls of the calls)
    x: float
    width: float
    height: float
    part_height: float


@dataclass(frozen=True, slots=True)
class Chart:
    """Bars ready for the template's SVG: positions in the chart's own units (viewBox 0 0 WIDTH HEIGHT)."""

    bars: tuple[Bar, ...]
    highest: int

    WIDTH = 640
    HEIGHT = 160
    BASE = 140  # the bars stand on this line; the labels go under it


def chart(labels: Sequence[str], values: Sequence[int], parts: Sequence[int] | None = None) -> Chart:
    highest = max([1, *values])
    slot = Chart.WIDTH / max(1, len(labels))
    bars = []
    for i, label in enumerate(labels):
        value = values[i]
        part = parts[i] if parts is not None else 0
        height = (Chart.BASE - 16) * value / highest
        bars.append(
            Bar(label, value, part, i * slot + slot * 0.15, slot * 0.7, height, (Chart.BASE - 16) * part / highest)
        )
    return Chart(tuple(bars), highest)


def council_charts(figures: Figures) -> dict[str, Chart]:
    """The charts of the council's desk: calls (the expired part marked) by hour of day and by week, and each
    referee's trials."""
    weeks = sorted(figures.calls_per_week)
    referees = sorted(figures.referees)
    return {
        "by_hour": chart([f"{h}" for h in range(24)], list(figures.calls_by_hour), list(figures.expired_by_hour)),
        "by_week": chart(
            weeks, [figures.calls_per_week[w] for w in weeks], [figures.expired_per_week.get(w, 0) for w in weeks]
        ),
        "referees": chart(referees, [figures.referees[r].trials for r in referees]),
    }


def figures_csv(figures: Figures, t: Callable[..., str], start: date | None, end: date | None) -> str:
    """The council's figures as CSV (one row per figure: section, what, value), for a spreadsheet."""
    out = io.StringIO()
    rows: list[tuple[Any, ...]] = [
        (t("web.csv_section"), t("web.csv_what"), t("web.csv_value")),
        ("period", "from", start.isoformat() if start else ""),
        ("period", "to", end.isoformat() if end else ""),
        ("calls", "total", figures.calls),
        ("calls", "taken", figures.taken),
        ("calls", "withdrawn", figures.withdrawn),
        ("calls", "expired", figures.expired),
        ("calls", "pending", figures.pending),
        ("calls", "to_sudi_p50_seconds", "" if figures.to_sudi_p50 is None else round(figures.to_sudi_p50)),
        ("calls", "to_sudi_p95_seconds", "" if figures.to_sudi_p95 is None else round(figures.to_sudi_p95)),
        ("trials", "total", figures.trials),
        ("trials", "interrupted", figures.interrupted),
        ("appeals", "total", figures.appeals),
    ]
    rows += [("trials_interrupted", reason, n) for reason, n in sorted(figures.interrupted_by_reason.items())]
    rows += [("appeals_by_state", state, n) for state, n in sorted(figures.appeals_by_state.items())]
    rows += [("calls_by_hour", f"{h:02d}", n) for h, n in enumerate(figures.calls_by_hour)]
    rows += [("expired_by_hour", f"{h:02d}", n) for h, n in enumerate(figures.expired_by_hour)]
    rows += [("calls_per_week", week, n) for week, n in sorted(figures.calls_per_week.items())]
    rows += [("expired_per_week", week, n) for week, n in sorted(figures.expired_per_week.items())]
    for nick, ref in sorted(figures.referees.items()):
        rows.append((f"referee:{nick}", "trials", ref.trials))
        rows += [(f"referee:{nick}", kind, n) for kind, n in sorted(ref.by_kind.items())]
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _cell(value: object) -> str:
    """A CSV cell a spreadsheet takes as text: a leading =, +, -, @ would be read as a formula (a nickname is)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not text.lstrip("+-").isdigit() else text
