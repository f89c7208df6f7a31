"""The pictures (bot.pictures): golden images per kind and strain, byte-for-byte determinism, the 300 KB limit, a
20-hand game's paper legible at Discord's preview width (every text inside its cell), and the paper's anonymity
(a change shows its trial number, never the referee who made it)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import random
from datetime import UTC, datetime

import pytest
from PIL import Image
from test_arbitar import RUINED_BOTH, build

from bot.pictures import draw
from bot.pictures.arbitar import render_verdict
from bot.pictures.hand import render_hand
from bot.pictures.paper import HAND_W, MARGIN, SMALL_FONT, WIDTH, render_paper
from rules.arbitar.verdict import STAYS, TRANSFER, ArbitarVerdict
from rules.gamelog import Game, Hand
from rules.generator import generate_game, make_game, make_hand
from rules.paper import ChangeKind, PaperChange, compute_paper

DISCORD_PREVIEW_WIDTH = 550
WHEN = datetime(2026, 11, 3, 20, 0, tzinfo=UTC)


def pixels(canvas: draw.Canvas) -> str:
    """The golden value: the size and a hash of the raw pixels (independent of the PNG encoder's version)."""
    image = canvas.image
    return f"{image.width}x{image.height}:" + hashlib.sha256(image.tobytes()).hexdigest()[:16]


def twenty_hands() -> Game:
    return generate_game(random.Random(3), 1847258, hands=20)


def strain_hand(contract: str) -> Hand:
    if contract == "herc":
        return make_hand(rng=random.Random(5), bids="2 3 4 dalje dalje", contract="herc", defense="follows follows")
    return make_hand(rng=random.Random(5), bids="igra dalje dalje", contract=contract, defense="follows follows")


def strain_game(contract: str) -> Game:
    return make_game([strain_hand(contract)], number=4242)


def check_png(canvas: draw.Canvas) -> bytes:
    data = canvas.png()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) < draw.MAX_PNG_BYTES
    assert b"tIME" not in data
    assert b"tEXt" not in data
    assert b"iTXt" not in data
    return data


def test_paper_of_twenty_hands_is_legible_at_discord_preview_width() -> None:
    game = twenty_hands()
    canvas = render_paper(game, compute_paper(game))
    assert canvas.width <= DISCORD_PREVIEW_WIDTH == WIDTH  # shown unscaled in Discord's preview
    assert SMALL_FONT >= 11
    misfits = [p for p in canvas.placed if not p.fits]
    assert misfits == []
    texts = [p.text for p in canvas.placed]
    figures = [p for p in canvas.placed if any(ch.isdigit() for ch in p.text)]
    assert min(p.ink[3] - p.ink[1] for p in figures) >= 8  # every number at least 8 pixels tall, unscaled
    hand_column = [p.text for p in canvas.placed if p.cell[0] == MARGIN and p.cell[2] == MARGIN + HAND_W]
    assert hand_column == ["#", *(str(n) for n in range(1, 21))]
    assert all(name in texts for name in game.players)
    check_png(canvas)


def test_long_nicknames_are_cut_to_their_cells() -> None:
    game = twenty_hands()
    long_names = ("a" * 32, "Ђорђе" * 6, "W" * 32)
    game = dataclasses.replace(game, players=long_names)
    canvas = render_paper(game, compute_paper(game))
    assert all(p.fits for p in canvas.placed)
    assert any(p.text.endswith("…") for p in canvas.placed)


def test_the_paper_shows_the_trial_number_never_the_referee() -> None:
    game = twenty_hands()
    changes = [
        PaperChange(
            ChangeKind.PROMENA_BULA, hand=5, who="sudijaPera", when=WHEN, why="kasnio", trial=17, bule=(4, -4, 0)
        )
    ]
    canvas = render_paper(game, compute_paper(game, changes))
    texts = " ".join(p.text for p in canvas.placed)
    assert "s.17" in texts
    assert "suđenje 17" in texts
    assert "sudijaPera" not in texts
    assert all(p.fits for p in canvas.placed)


def test_paper_golden_and_deterministic() -> None:
    game = twenty_hands()
    paper = compute_paper(game)
    first = check_png(render_paper(game, paper))
    assert render_paper(game, paper).png() == first
    assert pixels(render_paper(game, paper)) == GOLDEN["paper"]
    assert pixels(render_paper(game, paper, "en")) == GOLDEN["paper-en"]


@pytest.mark.parametrize("contract", ["herc", "sans", "betl"])
def test_hand_golden_per_strain(contract: str) -> None:
    game = strain_game(contract)
    canvas = render_hand(game, game.hands[0])
    assert all(p.fits for p in canvas.placed)
    data = check_png(canvas)
    assert render_hand(game, game.hands[0]).png() == data
    assert pixels(canvas) == GOLDEN[f"hand-{contract}"]
    image = Image.open(io.BytesIO(data))
    assert image.size == (canvas.width, canvas.height)
    assert image.mode == "RGB"


def test_every_hand_of_a_game_fits() -> None:
    game = twenty_hands()
    for hand in game.hands:
        canvas = render_hand(game, hand)
        assert all(p.fits for p in canvas.placed), hand.n
        assert len(canvas.png()) < draw.MAX_PNG_BYTES


def test_arbitar_golden_trump_from_the_procedure() -> None:
    from rules.arbitar.procedure import arbitrate  # noqa: PLC0415 (imported where the test needs it)

    game = build(RUINED_BOTH)
    verdict = arbitrate(game, 1, 1)
    canvas = render_verdict(game, 1, 1, verdict)
    texts = [p.text for p in canvas.placed]
    assert "odlučujući štih 8 · igrač petar" in texts
    assert "odigrana karta: Q♠" in texts
    assert all(p.fits for p in canvas.placed)
    check_png(canvas)
    assert pixels(canvas) == GOLDEN["arbitar-herc"]


@pytest.mark.parametrize("contract", ["sans", "betl"])
def test_arbitar_golden_sans_and_betl(contract: str) -> None:
    game = strain_game(contract)
    hand = game.hands[0]
    last = len(hand.tricks)
    from rules.play import replay  # noqa: PLC0415 (imported where the test needs it)

    trick = replay(hand).tricks[last - 1]
    position = next(i for i in range(3) if trick.seat_of(i) != hand.declarer)
    seat = trick.seat_of(position)
    evidence = {
        "defence_tricks": 3,
        "needed": 1 if contract == "betl" else 4,
        "player": game.players[seat],
        "trick": last,
        "card": trick.cards[position].display(),
        "better_card": trick.cards[(position + 1) % 3].display(),
        "declarer_tricks_with_card": 1,
        "declarer_tricks_with_better": 0,
        "layouts": 5040,
        "consistent_layouts": 2210,
        "better_card_better": 400,
        "played_card_better": 12,
        "compared_layouts": 2210,
        "bar": 221,
    }
    if contract == "betl":
        evidence["betl"] = True  # the procedure's mark: `needed` is then the declarer's tricks that make it fall
    decision = TRANSFER if contract == "betl" else STAYS
    verdict = ArbitarVerdict(decision, seat if decision == TRANSFER else None, 1, "Primer za sliku.", evidence)
    fallen = 3 - (hand.declarer or 0) - seat
    canvas = render_verdict(game, 1, fallen, verdict)
    assert all(p.fits for p in canvas.placed)
    assert [p.text for p in canvas.placed if p.text.endswith("…")] == []  # a wrapped fact is drawn whole
    check_png(canvas)
    assert pixels(canvas) == GOLDEN[f"arbitar-{contract}"]


@pytest.mark.parametrize("width", [120, 301, 550, 552, 553, 554, 555, 556, 600])
def test_a_wrapped_line_is_drawn_whole_in_a_cell_of_the_width_it_was_wrapped_to(width: int) -> None:
    """`Canvas.text` keeps its padding inside the cell: `wrap` leaves room for it, so no line of a wrapped
    sentence is cut with "…" (the Arbitar's "jednakih:…" was, one padding too wide)."""
    face = draw.font(12)
    sentence = (
        "Rasporeda u kojima je bolja karta bolja: 400; u kojima je odigrana karta bolja: 12; jednakih: 0; "
        "prag od 10%: 221. Раскладов, где лучшая карта лучше: 1; где лучше сыгранная: 0; равных: 0."
    )
    lines = draw.wrap(sentence, face, width)
    canvas = draw.Canvas(width + 20, 20 * len(lines), draw.WHITE)
    for row, line in enumerate(lines):
        canvas.text((10, 20 * row, 10 + width, 20 * row + 20), line, face)
    assert [p.text for p in canvas.placed] == lines
    assert " ".join(lines) == sentence


GOLDEN: dict[str, str] = {
    "paper": "550x608:d2e9384c4f579259",
    "paper-en": "550x608:e81e79b458bcfa05",
    "hand-herc": "640x551:6e7380c8c9d42c11",
    "hand-sans": "640x596:bd09bf2b9069d2b7",
    "hand-betl": "640x416:559f9064fa1b7d7e",
    "arbitar-herc": "600x383:de6972256ff134cf",
    "arbitar-sans": "600x329:f8c2594c44227525",
    "arbitar-betl": "600x329:b30ea429b5e3aa06",
}


def test_a_long_games_paper_stays_under_the_limits() -> None:
    game = generate_game(random.Random(7), 5, hands=200)
    canvas = render_paper(game, compute_paper(game))
    data = check_png(canvas)
    assert all(p.fits for p in canvas.placed)
    assert canvas.width + canvas.height <= 10_000  # Telegram still takes it as a photo
    assert len(data) < draw.MAX_PNG_BYTES
