"""The paper (papir) as a picture: a preferans sheet with, for each player, his left supe, his bule and his right supe,
the running value written in a row whenever it changes, refe marks (△ written, ▲ played and passed, ▼ played and
fell), the changes made after a hand with their trial number (never who made them: the referee's name stays off the
paper), the totals, the refe marks and the results at the foot, and a legend of every short mark the sheet uses.

It draws what `rules.paper.compute_paper` computed; nothing is scored here. The sheet is `WIDTH` pixels wide, the
width Discord previews an image at, so a phone shows it unscaled; every text is cut to its cell and the canvas
records each text's cell, which the tests check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.pictures.draw import BLUE, GOLD, GREY, INK, LIGHT, PAPER, RED, RULE, Box, Canvas, font, wrap
from bot.pictures.words import words
from rules.gamelog import Game
from rules.paper import AppliedChange, ChangeKind, Paper, PaperHand
from rules.paper_hand import Entry, HandCase, HandScore
from rules.paper_render import signed

WIDTH = 550  # Discord's preview width: the sheet is never scaled down there
MARGIN = 4
HAND_W = 26
GAME_W = 72
SUPE_W = 48
BULE_W = 52
PLAYER_W = SUPE_W + BULE_W + SUPE_W
ROW_H = 18
CELL_FONT = 12
SMALL_FONT = 11  # the smallest text on the sheet


def _player_left(seat: int) -> int:
    return MARGIN + HAND_W + GAME_W + seat * PLAYER_W


def _cells(seat: int, top: int, height: int = ROW_H) -> tuple[Box, Box, Box]:
    x = _player_left(seat)
    bottom = top + height
    return (
        (x, top, x + SUPE_W, bottom),
        (x + SUPE_W, top, x + SUPE_W + BULE_W, bottom),
        (x + SUPE_W + BULE_W, top, x + PLAYER_W, bottom),
    )


def _contract(score: HandScore | None, w: Mapping[str, str], used: set[str], unscored: str = "") -> str:
    """A hand's contract in its narrow cell: the suit's symbol (or betl / sans), ``i.`` for igra, ``×2`` … for the
    kontra chain, ``b.k.`` for pik without kontra, the hand still being played said in words; `used` collects
    what the legend must explain."""
    if score is not None and score.case is HandCase.ALL_PASS:
        return w["refe"] if score.refe_written else w["all_pass"]
    if score is None and unscored == "not_finished":
        return w["unfinished"]
    if score is None or score.contract is None:
        used.add("unscored")
        return "—"
    strain = score.contract.strain
    trump = strain.trump
    text = trump.symbol if trump is not None else w[f"short_{strain.serbian}"]
    if trump is None:
        used.add(strain.serbian)
    if score.contract.igra:
        text = w["short_igra"] + text
        used.add("igra")
    if score.case is HandCase.PIK_NO_KONTRA:
        used.add("no_kontra")
        return text + " " + w["short_no_kontra"]
    if score.kontra:
        used.add("kontra")
        text += f" ×{1 << score.kontra}"
    return text


def _refe_mark(score: HandScore) -> str:
    """A hand played under an open refe: ▲ when the declarer passed, ▼ when he fell."""
    return "▲" if score.passed else "▼"


def _legend(used: set[str], w: Mapping[str, str]) -> list[str]:
    """What the sheet's short marks mean, only those it uses: a reader never meets a mark the sheet does not
    explain."""
    order = ("igra", "betl", "sans", "kontra", "no_kontra", "refe", "trial", "ispravka", "otpis", "unscored", "hat")
    return [w[f"legend_{name}"] for name in order if name in used]


def _change_label(applied: AppliedChange, w: Mapping[str, str], short: bool, used: set[str] | None = None) -> str:
    change = applied.change
    if change.trial is not None:
        if used is not None:
            used.add("trial")
        return (w["short_trial"] if short else w["trial"]).format(trial=change.trial)
    if short:
        if used is not None and change.kind in (ChangeKind.ISPRAVKA, ChangeKind.OTPIS):
            used.add(change.kind.value)
        return {ChangeKind.ISPRAVKA: w["short_ispravka"], ChangeKind.OTPIS: w["short_otpis"]}.get(change.kind, "±")
    return w[change.kind.value]


def _own_bule(paper_hand: PaperHand) -> list[int]:
    """The bule after the hand's own score, before the changes attached to it."""
    bule = list(paper_hand.bule_after)
    for applied in paper_hand.changes:
        for seat in range(3):
            bule[seat] -= applied.entries[seat].bule
    return bule


def _entries(names: Sequence[str], entries: Sequence[Entry]) -> str:
    parts = [f"{names[s]} {signed(e.bule)}" for s, e in enumerate(entries) if e.bule]
    return ", ".join(parts) if parts else "0"


def render_paper(game: Game, paper: Paper, lang: str = "sr") -> Canvas:
    """The sheet drawn on a canvas (its `placed` texts are what the legibility test checks)."""
    w = words(lang)
    names = game.players
    cell = font(CELL_FONT)
    small = font(SMALL_FONT)
    bold = font(CELL_FONT + 1, bold=True)
    used: set[str] = set()
    contracts = [_contract(h.score, w, used, h.unscored) for h in paper.hands]
    shorts = [[_change_label(a, w, True, used) for a in h.changes] for h in paper.hands]
    refe_marks: list[str] = ["", "", ""]
    for paper_hand in paper.hands:
        score = paper_hand.score
        if score is not None and score.refe_doubled and score.declarer is not None:
            refe_marks[score.declarer] += _refe_mark(score)
            used.add("refe")
        if score is not None and score.refe_written:
            used.add("refe")
    if any(c.under_hat for c in paper.players) and not paper.ended:
        used.add("hat")
    legend: list[str] = []
    for paper_hand in paper.hands:
        for applied in paper_hand.changes:
            line = (
                f"{_change_label(applied, w, short=False)}, {w['hand']} {paper_hand.n}: "
                f"{w[applied.change.kind.value]} — {_entries(names, applied.entries)}"
            )
            if not applied.applied:
                line += f" ({w['not_applied']})"
            legend.append(line)
    legend_first = set()
    for line in legend:
        legend_first.update(wrap(line, small, WIDTH - 2 * MARGIN - 2))
    legend += _legend(used, w)
    legend_lines = [part for line in legend for part in wrap(line, small, WIDTH - 2 * MARGIN - 2)]
    rows = 1 + sum(1 + len(h.changes) for h in paper.hands)
    status_lines = 2 if paper.ended and paper.write_off is not None and any(paper.write_off) else 1
    height = (
        MARGIN
        + 44
        + 2 * ROW_H
        + rows * ROW_H
        + 3 * ROW_H
        + (ROW_H if paper.ended else 0)
        + status_lines * ROW_H
        + len(legend_lines) * (ROW_H - 2)
        + MARGIN
        + 6
    )
    canvas = Canvas(WIDTH, height, PAPER)
    right = WIDTH - MARGIN
    canvas.text((MARGIN, MARGIN, right, MARGIN + 24), w["paper"].format(game=paper.game), font(16, bold=True))
    canvas.text(
        (MARGIN, MARGIN + 24, right, MARGIN + 44),
        w["size"].format(size=paper.size, rounds=paper.refe_rounds, limit=paper.refe_limit),
        small,
        GREY,
    )
    y = MARGIN + 44
    # the players' names over their three columns, and the columns' names
    canvas.rect((MARGIN, y, right, y + 2 * ROW_H), fill=LIGHT)
    canvas.text((MARGIN, y + ROW_H, MARGIN + HAND_W, y + 2 * ROW_H), "#", small, GREY, align="centre")
    canvas.text((MARGIN + HAND_W, y + ROW_H, MARGIN + HAND_W + GAME_W, y + 2 * ROW_H), w["game"], small, GREY)
    for seat, name in enumerate(names):
        x = _player_left(seat)
        canvas.text((x, y, x + PLAYER_W, y + ROW_H), name, bold, align="centre")
        for box, label in zip(_cells(seat, y + ROW_H), (w["left"], w["bule"], w["right"]), strict=True):
            canvas.text(box, label, small, GREY, align="centre")
    y += 2 * ROW_H
    top_of_rows = y
    for seat in range(3):  # the sheet starts with the game's bule written in every bule column
        canvas.text(_cells(seat, y)[1], str(paper.size), cell, GREY, align="right")
    y += ROW_H
    left_supe = [0, 0, 0]
    right_supe = [0, 0, 0]
    for index, paper_hand in enumerate(paper.hands):
        score = paper_hand.score
        canvas.text((MARGIN, y, MARGIN + HAND_W, y + ROW_H), str(paper_hand.n), small, GREY, align="right")
        canvas.text(
            (MARGIN + HAND_W, y, MARGIN + HAND_W + GAME_W, y + ROW_H),
            contracts[index],
            cell if score else small,
            INK if score else GREY,
        )
        if score is not None:
            own = _own_bule(paper_hand)
            for seat in range(3):
                entry = score.entries[seat]
                left_box, bule_box, right_box = _cells(seat, y)
                if entry.supe_left:
                    left_supe[seat] += entry.supe_left
                    canvas.text(left_box, str(left_supe[seat]), cell, align="right")
                if entry.supe_right:
                    right_supe[seat] += entry.supe_right
                    canvas.text(right_box, str(right_supe[seat]), cell, align="right")
                if score.refe_written:
                    canvas.text(bule_box, "△", cell, BLUE, align="centre")
                elif entry.bule:
                    mark = _refe_mark(score) if score.refe_doubled and seat == score.declarer else ""
                    colour = RED if own[seat] < 0 else INK
                    canvas.text(bule_box, mark + signed(own[seat]).lstrip("+"), cell, colour, align="right")
        y += ROW_H
        for applied, short in zip(paper_hand.changes, shorts[index], strict=True):
            canvas.rect((MARGIN, y, right, y + ROW_H), fill=GOLD)
            canvas.text((MARGIN + HAND_W, y, MARGIN + HAND_W + GAME_W, y + ROW_H), short, small, BLUE)
            for seat in range(3):
                if applied.applied and applied.entries[seat].bule:
                    _, bule_box, _ = _cells(seat, y)
                    canvas.text(bule_box, signed(applied.entries[seat].bule), cell, BLUE, align="right")
            y += ROW_H
    # the columns' rules, drawn over the rows
    for seat in range(3):
        x = _player_left(seat)
        canvas.line((x, top_of_rows - 2 * ROW_H), (x, y), INK, 2)
        canvas.line((x + SUPE_W, top_of_rows - ROW_H), (x + SUPE_W, y), RULE)
        canvas.line((x + SUPE_W + BULE_W, top_of_rows - ROW_H), (x + SUPE_W + BULE_W, y), RULE)
    canvas.line((MARGIN + HAND_W, top_of_rows - ROW_H), (MARGIN + HAND_W, y), RULE)
    canvas.line((right, top_of_rows - 2 * ROW_H), (right, y), INK, 2)
    canvas.line((MARGIN, y), (right, y), INK, 2)
    # the foot: totals, refe marks, results
    canvas.text((MARGIN, y, MARGIN + HAND_W + GAME_W, y + ROW_H), w["total"], font(CELL_FONT, bold=True))
    marks_y = y + ROW_H
    canvas.text((MARGIN, marks_y, MARGIN + HAND_W + GAME_W, marks_y + ROW_H), w["refe"], small, GREY)
    for seat, column in enumerate(paper.players):
        left_box, bule_box, right_box = _cells(seat, y)
        canvas.text(left_box, str(column.supe_left), font(CELL_FONT, bold=True), align="right")
        canvas.text(
            bule_box,
            signed(column.bule).lstrip("+"),
            font(CELL_FONT, bold=True),
            RED if column.bule < 0 else INK,
            align="right",
        )
        canvas.text(right_box, str(column.supe_right), font(CELL_FONT, bold=True), align="right")
        x = _player_left(seat)
        played = refe_marks[seat] + "▲" * max(0, column.refe_played - len(refe_marks[seat]))
        marks = played + "△" * column.refe_open
        if column.under_hat and not paper.ended:
            marks = (marks + " " + w["hat"]).strip()
        canvas.text((x, marks_y, x + PLAYER_W, marks_y + ROW_H), marks or "—", cell, BLUE, align="centre")
    y = marks_y + ROW_H
    if paper.ended:
        canvas.text((MARGIN, y, MARGIN + HAND_W + GAME_W, y + ROW_H), w["result"], font(CELL_FONT, bold=True))
        for seat, column in enumerate(paper.players):
            x = _player_left(seat)
            result = column.result or 0
            canvas.text(
                (x, y, x + PLAYER_W, y + ROW_H),
                signed(result),
                font(CELL_FONT + 1, bold=True),
                RED if result < 0 else INK,
                align="centre",
            )
        y += ROW_H
    y += 4
    if paper.ended:
        status = w["settled"] if paper.settled else w["ended"].format(hand=paper.end_hand)
    else:
        status = w["running"].format(left=paper.bule_sum)
    canvas.text((MARGIN, y, right, y + ROW_H), status, small, GREY)
    y += ROW_H
    if paper.ended and paper.write_off is not None and any(paper.write_off):
        items = ", ".join(f"{names[s]} {signed(paper.write_off[s])}" for s in range(3))
        canvas.text((MARGIN, y, right, y + ROW_H), f"{w['write_off']}: {items}", small, GREY)
        y += ROW_H
    for line in legend_lines:
        canvas.text((MARGIN + 2, y, right, y + ROW_H - 2), line, small, BLUE if line in legend_first else GREY)
        y += ROW_H - 2
    return canvas


def paper_png(game: Game, paper: Paper, lang: str = "sr") -> bytes:
    """The paper of `game` as a PNG (the same paper always gives the same bytes)."""
    return render_paper(game, paper, lang).png()
