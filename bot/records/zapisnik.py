"""A trial's record (zapisnik) as one self-contained HTML file, and its verification.

The file has the game, the call, who took it and when, the whole transcript, the verdict and its effect on the
paper, the pictures of the paper and of the game's hands inlined as ``data:`` URIs, and the SHA-256 chain
(`bot.records.chain`) printed beside every message and at the end. Nothing in it reaches the network: no
script runs, every style is inline, and its Content-Security-Policy lets the page load nothing but its own
``data:`` pictures.

Referee anonymity (decisions.md, "Trials"): in the members' view the referee's and councilors' lines and the
"taken by" line say "sudija" / "većnik"; the officials' view names them. The chained data always names the
function, so both views carry the same chain.

`verify_html` checks a file: the chain recomputed from the record's data (kept in the file as JSON) against
the links printed, and a SHA-256 digest of the whole file (written with the digest's own place zeroed), so a
change of any byte is found.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from bot.i18n.words import Words, catalogue_words
from bot.records.chain import chain
from storage.states import TrialOutcome

DIGEST_ZERO = "0" * 64
_DIGEST = re.compile(r'<meta name="sudija-digest" content="sha256:([0-9a-f]{64})">')
_DATA = re.compile(r'<script type="application/json" id="zapisnik-data">(.*?)</script>', re.DOTALL)
_LINKS = re.compile(r'data-link="([0-9a-f]{64})"')
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def record_words(lang: str) -> Words:
    """The record's words: the catalogues' ``record.*`` in the record's language."""
    return catalogue_words(lang, "record.")


@dataclass(frozen=True)
class Line:
    """One message of the transcript: when, who as this view shows him, his function in the trial, the text."""

    at: str
    who: str  # a nickname, or "sudija" / "većnik" in the members' view
    role: str  # caller, player, referee, councilor, bot
    chained_who: str  # the name in the chained data: a player's nickname, or the function's word
    text: str


@dataclass(frozen=True)
class Effect:
    """The verdict's effect on the paper: each change it wrote (its kind, hand and bule per player), and every
    player's bule on the paper without and with the trial's changes."""

    changes: tuple[tuple[str, int, tuple[int, int, int]], ...]
    before: tuple[int, int, int]
    after: tuple[int, int, int]


@dataclass(frozen=True)
class TrialRecord:
    trial: int
    game: int
    players: tuple[str, str, str]
    game_status: str
    kind: str  # in the record's words: tokom partije / van partije
    call_at: str
    caller: str
    taken_by: str  # the referee's name (officials' view) or "sudija"
    taken_at: str
    closed_at: str | None
    outcome: TrialOutcome
    outcome_text: str  # the outcome in words, with the reason of an interruption
    verdict_text: str
    reason: str
    lines: tuple[Line, ...]
    effect: Effect | None
    pictures: tuple[tuple[str, bytes], ...] = ()  # (caption, PNG)
    officials: bool = False
    lang: str = "sr"
    verdict_json: dict[str, Any] | None = field(default=None)

    def facts(self) -> dict[str, Any]:
        """The first link's data: what the trial is, independent of the view."""
        return {
            "trial": self.trial,
            "game": self.game,
            "players": list(self.players),
            "call_at": self.call_at,
            "caller": self.caller,
            "taken_at": self.taken_at,
            "closed_at": self.closed_at,
            "outcome": self.outcome,
            "verdict": self.verdict_json,
            "reason": self.reason,
        }

    def chained_messages(self) -> list[dict[str, Any]]:
        return [{"at": line.at, "who": line.chained_who, "role": line.role, "text": line.text} for line in self.lines]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


_STYLE = """
body{font-family:"DejaVu Sans",Verdana,sans-serif;margin:2em auto;max-width:60em;color:#19192a;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #aab;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:.2em .6em;border:1px solid #ccd;text-align:left;vertical-align:top}
.view{color:#666}.transcript{list-style:none;padding:0}.msg{margin:.3em 0;padding:.3em .5em;background:#f4f4f8}
.msg.referee,.msg.councilor{background:#fbf3d6}.msg time{color:#666;font-size:.85em}.who{font-weight:bold}
.text{white-space:pre-wrap}.link{display:block;color:#889;font-size:.75em;font-family:monospace}
.seal{font-family:monospace;font-size:1.05em;word-break:break-all}figure{margin:1em 0}img{max-width:100%}
"""


def render_html(record: TrialRecord) -> str:
    """The record as one HTML document whose last link and digest seal it."""
    w = record_words(record.lang)
    messages = record.chained_messages()
    links = chain(record.facts(), messages)
    out: list[str] = [
        "<!DOCTYPE html>",
        f'<html lang="{_e(record.lang)}"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f'<meta name="sudija-digest" content="sha256:{DIGEST_ZERO}">',
        f"<title>{_e(w['title'].format(trial=record.trial))}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(w['title'].format(trial=record.trial))} — {_e(w['game'])} {record.game}</h1>",
        f'<p class="view">{_e(w["view_officials"] if record.officials else w["view_members"])}</p>',
        '<table class="facts">',
        f"<tr><th>{_e(w['game'])}</th><td>{record.game} ({_e(w['status'])}: {_e(record.game_status)})</td></tr>",
        f"<tr><th>{_e(w['players'])}</th><td>{_e(', '.join(record.players))}</td></tr>",
        f"<tr><th>{_e(w['kind'])}</th><td>{_e(record.kind)}</td></tr>",
        f"<tr><th>{_e(w['call'])}</th><td>{_e(w['called_by'].format(who=record.caller, at=record.call_at))}</td></tr>",
        f"<tr><th>{_e(w['taken'])}</th><td>{_e(w['taken_by'].format(who=record.taken_by, at=record.taken_at))}"
        "</td></tr>",
        f"<tr><th>{_e(w['closed'])}</th><td>{_e(record.closed_at or w['open'])}</td></tr>",
        f"<tr><th>{_e(w['outcome'])}</th><td>{_e(record.outcome_text)}</td></tr>",
        "</table>",
        f"<h2>{_e(w['transcript'])}</h2>",
        f'<ol class="transcript" data-link="{links[0]}">',
    ]
    if not record.lines:
        out.append(f"<li>{_e(w['no_messages'])}</li>")
    for i, line in enumerate(record.lines):
        out.append(
            f'<li class="msg {_e(line.role)}" data-link="{links[i + 1]}"><time>{_e(line.at)}</time> '
            f'<span class="who">{_e(line.who)}</span>: <span class="text">{_e(line.text)}</span>'
            f'<span class="link">{links[i + 1]}</span></li>'
        )
    out.append("</ol>")
    out.append(f"<h2>{_e(w['verdict'])}</h2>")
    out.append(f"<p>{_e(record.verdict_text)}</p>")
    if record.reason:
        out.append(f"<p>{_e(w['reason'])}: {_e(record.reason)}</p>")
    out.append(f"<h3>{_e(w['effect'])}</h3>")
    effect = record.effect
    if effect is None or not effect.changes:
        out.append(f"<p>{_e(w['no_effect'])}</p>")
    else:
        out.append(
            '<table class="effect"><tr><th></th>' + "".join(f"<th>{_e(name)}</th>" for name in record.players) + "</tr>"
        )
        for kind, hand, bule in effect.changes:
            out.append(
                f"<tr><td>{_e(kind)}, {_e(w['hand'])} {hand}</td>"
                + "".join(f"<td>{value:+d}</td>" for value in bule)
                + "</tr>"
            )
        out.append(f"<tr><td>{_e(w['before'])}</td>" + "".join(f"<td>{v}</td>" for v in effect.before) + "</tr>")
        out.append(f"<tr><td>{_e(w['after'])}</td>" + "".join(f"<td>{v}</td>" for v in effect.after) + "</tr>")
        out.append("</table>")
    if record.pictures:
        out.append(f"<h2>{_e(w['pictures'])}</h2>")
        for caption, png in record.pictures:
            data = base64.b64encode(png).decode("ascii")
            out.append(
                f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{_e(caption)}</figcaption></figure>"
            )
    out.append(f"<h2>{_e(w['chain'])}</h2>")
    out.append(f"<p>{_e(w['chain_note'])}</p>")
    out.append(f'<p>{_e(w["seal"])}: <span class="seal" id="seal" data-link="{links[-1]}">{links[-1]}</span></p>')
    data = json.dumps({"facts": record.facts(), "messages": messages, "links": links}, ensure_ascii=False)
    safe = data.replace("</", "<\\/")  # the JSON cannot end the script element
    out.append(f'<script type="application/json" id="zapisnik-data">{safe}</script>')
    out.append("</body></html>")
    document = "\n".join(out) + "\n"
    digest = hashlib.sha256(document.encode("utf-8")).hexdigest()
    return document.replace(f"sha256:{DIGEST_ZERO}", f"sha256:{digest}", 1)


@dataclass(frozen=True)
class Verification:
    ok: bool
    problems: tuple[str, ...]
    seal: str | None
    messages: int


def verify_html(raw: bytes) -> Verification:
    """Check a record file: its digest over every byte, and its chain over the facts and every message."""
    problems: list[str] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Verification(False, (f"the file is not UTF-8 text (byte {exc.start})",), None, 0)
    found = _DIGEST.search(text)
    if found is None:
        return Verification(False, ("no sudija-digest in the file: not a record, or its header was changed",), None, 0)
    zeroed = text[: found.start(1)] + DIGEST_ZERO + text[found.end(1) :]
    if hashlib.sha256(zeroed.encode("utf-8")).hexdigest() != found.group(1):
        problems.append("the file's SHA-256 digest does not match: some byte was changed")
    block = _DATA.search(text)
    if block is None:
        return Verification(False, (*problems, "the record's data is missing"), None, 0)
    try:
        data = json.loads(block.group(1))
        facts, messages, links = data["facts"], data["messages"], data["links"]
        recomputed = chain(facts, messages)
    except (ValueError, KeyError, TypeError, AttributeError):
        return Verification(False, (*problems, "the record's data cannot be read"), None, 0)
    if recomputed != links:
        first = next(
            (i for i, (a, b) in enumerate(zip(recomputed, links, strict=False)) if a != b),
            min(len(recomputed), len(links)),
        )
        where = "the trial's facts" if first == 0 else f"message {first}"
        problems.append(f"the chain breaks at {where}")
    shown = _LINKS.findall(text)
    if shown != [*recomputed, recomputed[-1]]:
        problems.append("the links printed in the file differ from the chain of its messages")
    return Verification(not problems, tuple(problems), recomputed[-1], len(messages))
