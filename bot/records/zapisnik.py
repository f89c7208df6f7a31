"""A trial's record (zapisnik) as one self-contained HTML file, and its verification.

The file has the game, the call, who took it and when, the whole transcript, the verdict and its effect on the
paper, the pictures of the paper and of the game's hands inlined as ``data:`` URIs, and the SHA-256 chain
(`bot.records.chain`) printed beside every message and at the end. Nothing in it reaches the network: no
script runs, every style is inline, and its Content-Security-Policy lets the page load nothing but its own
``data:`` pictures.

Referee anonymity (decisions.md, "Trials"): in the members' view the referee's and councilors' lines and the
"taken by" line say "sudija" / "većnik"; the officials' view names them. The chained data always names the
function, so both views carry the same chain.

Sealed by the club (decisions.md, "Records"): the page is rendered from the record's data, which the file keeps
whole as JSON (every field the page shows, the pictures by their SHA-256: each picture is in the page once), and
the file is signed with the club's Ed25519 key (`bot.records.signing`; the signature and its fingerprint, the
seal, are written in places that are zeroed for signing). `verify_html` re-renders the data and compares the
result with the file line by line (a page changed without its data is named where it differs), recomputes the
chain, checks a SHA-256 digest of the whole file, and checks the signature: with the key it is given (the club's,
published by `sudija zapisnik --public-key`) — without one, only with the key the file shows, which proves
nothing about who signed it (`Verification.trusted` says which). `differences` names what a file's data changes
of the club's own record.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.i18n import LOCALES
from bot.i18n.clock import local_text
from bot.i18n.words import Words, catalogue_words
from bot.records.chain import chain
from bot.records.signing import FINGERPRINT_DIGITS, SIGNATURE_BYTES, BadKey, ClubKey, fingerprint, load_public, verifies
from rules.phrases import Phrase
from rules.strict_json import StrictJsonError, strict_loads
from storage.states import TrialOutcome

FORMAT = "sudija-zapisnik/2"
DIGEST_ZERO = "0" * 64
SIGNATURE_ZERO = base64.b64encode(bytes(SIGNATURE_BYTES)).decode("ascii")
SEAL_ZERO = "0" * FINGERPRINT_DIGITS
_DIGEST = re.compile(r'<meta name="sudija-digest" content="sha256:([0-9a-f]{64})">')
_SIGNATURE = re.compile(r'<meta name="sudija-signature" content="ed25519:([A-Za-z0-9+/=]{88})">')
_SEAL = re.compile(r'<span class="seal" id="seal" data-link="([0-9a-f]{32})">([0-9a-f]{32})</span>')
_DATA = re.compile(r'<script type="application/json" id="zapisnik-data">(.*?)</script>', re.DOTALL)
_PICTURE = re.compile(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]*)">')
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def record_words(lang: str) -> Words:
    """The record's words: the catalogues' ``record.*`` in the record's language."""
    return catalogue_words(lang, "record.")


@dataclass(frozen=True)
class Line:
    """One message of the transcript: when, who as this view shows him, his function in the trial, the text."""

    at: str
    who: str  # a nickname, or "sudija" / "većnik" in the members' view; the bot's own events: "Sudija (bot)"
    role: str  # caller, player, referee, councilor, bot
    chained_who: str  # the name in the chained data: a player's nickname, or the function's word
    text: str
    event: str = ""  # the bot's own event in the conversation (call_taken, councilor_joined, draft, …): its kind
    chained_text: str = ""  # an event's text in the chained data, the same in every view and language


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
    # The club's time zone the page shows its moments in (`shown_time`); None: a record written before the zone
    # was kept, whose page shows the moments as stored (UTC) and so renders, and verifies, as it always did.
    zone: str | None = None

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
        return [
            {"at": line.at, "who": line.chained_who, "role": line.role, "text": line.chained_text or line.text}
            for line in self.lines
        ]

    @property
    def messages(self) -> int:
        """How many lines the members and officials wrote (the bot's own events not counted)."""
        return sum(1 for line in self.lines if not line.event)

    def data(self) -> dict[str, Any]:
        """Everything the page shows, as JSON values: the page is this rendered (`render_html`), and
        `record_of` reads it back. The pictures by their caption and SHA-256 (their bytes are in the page)."""
        effect = self.effect
        return {
            "trial": self.trial,
            "game": self.game,
            "players": list(self.players),
            "game_status": self.game_status,
            "kind": self.kind,
            "call_at": self.call_at,
            "caller": self.caller,
            "taken_by": self.taken_by,
            "taken_at": self.taken_at,
            "closed_at": self.closed_at,
            "outcome": self.outcome,
            "outcome_text": self.outcome_text,
            "verdict_text": self.verdict_text,
            "reason": self.reason,
            "lines": [
                {
                    "at": line.at,
                    "who": line.who,
                    "role": line.role,
                    "chained_who": line.chained_who,
                    "text": line.text,
                    "event": line.event,
                    "chained_text": line.chained_text,
                }
                for line in self.lines
            ],
            "effect": None
            if effect is None
            else {
                "changes": [[kind, hand, list(bule)] for kind, hand, bule in effect.changes],
                "before": list(effect.before),
                "after": list(effect.after),
            },
            "pictures": [
                {"caption": caption, "sha256": hashlib.sha256(png).hexdigest()} for caption, png in self.pictures
            ],
            "officials": self.officials,
            "lang": self.lang,
            "verdict_json": self.verdict_json,
            **({} if self.zone is None else {"zone": self.zone}),
        }


def record_of(data: dict[str, Any], pictures: list[bytes]) -> TrialRecord:
    """A record's data (`TrialRecord.data`) with its pictures' bytes, as the record (`KeyError`, `TypeError`,
    `ValueError` when the data is not a record's)."""
    lines = tuple(
        Line(
            str(x["at"]),
            str(x["who"]),
            str(x["role"]),
            str(x["chained_who"]),
            str(x["text"]),
            str(x["event"]),
            str(x["chained_text"]),
        )
        for x in data["lines"]
    )
    raw = data["effect"]
    effect = None
    if raw is not None:
        effect = Effect(
            tuple((str(kind), int(hand), _three(bule)) for kind, hand, bule in raw["changes"]),
            _three(raw["before"]),
            _three(raw["after"]),
        )
    captions = [str(p["caption"]) for p in data["pictures"]]
    if len(captions) != len(pictures):
        raise ValueError(f"the data lists {len(captions)} pictures and the page has {len(pictures)}")
    return TrialRecord(
        trial=int(data["trial"]),
        game=int(data["game"]),
        players=(str(data["players"][0]), str(data["players"][1]), str(data["players"][2])),
        game_status=str(data["game_status"]),
        kind=str(data["kind"]),
        call_at=str(data["call_at"]),
        caller=str(data["caller"]),
        taken_by=str(data["taken_by"]),
        taken_at=str(data["taken_at"]),
        closed_at=None if data["closed_at"] is None else str(data["closed_at"]),
        outcome=TrialOutcome(str(data["outcome"])),
        outcome_text=str(data["outcome_text"]),
        verdict_text=str(data["verdict_text"]),
        reason=str(data["reason"]),
        lines=lines,
        effect=effect,
        pictures=tuple(zip(captions, pictures, strict=True)),
        officials=bool(data["officials"]),
        lang=str(data["lang"]),
        verdict_json=data["verdict_json"],
        zone=None if data.get("zone") is None else str(data["zone"]),
    )


def shown_time(record: TrialRecord, at: str) -> str:
    """A stored moment (``2026-12-04T18:50:31Z``) as the page shows it: on the club's clock in the record's
    language (``4.12.2026. 19:50``), or as stored in a record that keeps no zone (or a moment that is no time)."""
    if record.zone is None:
        return at
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return at
    return local_text(moment, record.lang, record.zone, LOCALES[record.lang])


def _three(values: Any) -> tuple[int, int, int]:
    a, b, c = values
    return (int(a), int(b), int(c))


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


@dataclass(frozen=True)
class Sealed:
    """A record rendered and signed: the file's text, and its seal (the signature's fingerprint)."""

    document: str
    seal: str
    public_key: str


def render_html(record: TrialRecord, key: ClubKey) -> Sealed:
    """The record as one HTML document rendered from its data, with its digest and the club's signature."""
    document = _page(record, key.public_text)
    signature = key.sign(document.encode("utf-8"))
    seal = fingerprint(signature)
    document = document.replace(f"ed25519:{SIGNATURE_ZERO}", f"ed25519:{signature}", 1)
    document = document.replace(_seal_span(SEAL_ZERO), _seal_span(seal), 1)
    digest = hashlib.sha256(document.encode("utf-8")).hexdigest()
    return Sealed(document.replace(f"sha256:{DIGEST_ZERO}", f"sha256:{digest}", 1), seal, key.public_text)


def _seal_span(seal: str) -> str:
    return f'<span class="seal" id="seal" data-link="{seal}">{seal}</span>'


def _page(record: TrialRecord, public_key: str) -> str:
    """The page with its digest, signature and seal zeroed: what is signed, and what verifying re-renders."""
    w = record_words(record.lang)
    messages = record.chained_messages()
    links = chain(record.facts(), messages)
    out: list[str] = [
        "<!DOCTYPE html>",
        f'<html lang="{_e(record.lang)}"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f'<meta name="sudija-digest" content="sha256:{DIGEST_ZERO}">',
        f'<meta name="sudija-signature" content="ed25519:{SIGNATURE_ZERO}">',
        f"<title>{_e(w['title'].format(trial=record.trial))}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(w['title'].format(trial=record.trial))} — {_e(w['game'])} {record.game}</h1>",
        f'<p class="view">{_e(w["view_officials"] if record.officials else w["view_members"])}</p>',
        '<table class="facts">',
        f"<tr><th>{_e(w['game'])}</th><td>{record.game} ({_e(w['status'])}: {_e(record.game_status)})</td></tr>",
        f"<tr><th>{_e(w['players'])}</th><td>{_e(', '.join(record.players))}</td></tr>",
        f"<tr><th>{_e(w['kind'])}</th><td>{_e(record.kind)}</td></tr>",
        f"<tr><th>{_e(w['call'])}</th><td>"
        f"{_e(w['called_by'].format(who=record.caller, at=shown_time(record, record.call_at)))}</td></tr>",
        f"<tr><th>{_e(w['taken'])}</th><td>"
        f"{_e(w['taken_by'].format(who=record.taken_by, at=shown_time(record, record.taken_at)))}</td></tr>",
        f"<tr><th>{_e(w['closed'])}</th><td>"
        f"{_e(shown_time(record, record.closed_at) if record.closed_at else w['open'])}</td></tr>",
        f"<tr><th>{_e(w['outcome'])}</th><td>{_e(record.outcome_text)}</td></tr>",
        "</table>",
        f"<h2>{_e(w['transcript'])}</h2>",
        f'<ol class="transcript" data-link="{links[0]}">',
    ]
    if not record.lines:
        out.append(f"<li>{_e(w['no_messages'])}</li>")
    for i, line in enumerate(record.lines):
        kind = "event" if line.event else "msg"
        at = _e(shown_time(record, line.at))
        out.append(
            f'<li class="{kind} {_e(line.role)}" data-link="{links[i + 1]}"><time>{at}</time> '
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
    out.append(f'<p>{_e(w["last_link"])}: <span class="link" data-link="{links[-1]}">{links[-1]}</span></p>')
    out.append(f"<h2>{_e(w['signature'])}</h2>")
    out.append(f"<p>{_e(w['signature_note'])}</p>")
    out.append(f'<p>{_e(w["public_key"])}: <span class="key" id="public-key">{_e(public_key)}</span></p>')
    out.append(f"<p>{_e(w['seal'])}: {_seal_span(SEAL_ZERO)}</p>")
    block = {"format": FORMAT, "record": record.data(), "links": links, "public_key": public_key}
    text = json.dumps(block, ensure_ascii=False, sort_keys=True)
    safe = text.replace("</", "<\\/")  # the JSON cannot end the script element
    out.append(f'<script type="application/json" id="zapisnik-data">{safe}</script>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Verification:
    ok: bool
    problems: tuple[Phrase, ...]  # each in the reader's language with `Phrase.text` (``verify.*``)
    seal: str | None
    messages: int
    trusted: bool = False  # the signature was checked with a key given (the club's), not the one the file shows
    data: dict[str, Any] | None = None  # the record's data as the file carries it


def _zeroed(text: str, *patterns: tuple[re.Pattern[str], str]) -> str:
    for pattern, zero in patterns:
        found = pattern.search(text)
        if found is not None:
            text = text[: found.start(1)] + zero + text[found.end(1) :]
            if pattern is _SEAL:
                found = pattern.search(text)
                assert found is not None
                text = text[: found.start(2)] + zero + text[found.end(2) :]
    return text


def verify_html(raw: bytes, public_key: str | None = None) -> Verification:
    """Check a record file: its digest over every byte; the page against the page its data renders; the chain
    over the facts and every line; the signature — with `public_key` (the club's) when given, else with the key
    the file shows (`trusted` False: a forger can sign with a key of his own)."""
    problems: list[Phrase] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Verification(False, (Phrase.of("verify.not_utf8", byte=exc.start),), None, 0)
    found = _DIGEST.search(text)
    if found is None:
        return Verification(False, (Phrase.of("verify.no_digest"),), None, 0)
    if hashlib.sha256(_zeroed(text, (_DIGEST, DIGEST_ZERO)).encode("utf-8")).hexdigest() != found.group(1):
        problems.append(Phrase.of("verify.digest"))
    signed = _SIGNATURE.search(text)
    seal = _SEAL.search(text)
    if signed is None or seal is None:
        return Verification(False, (*problems, Phrase.of("verify.no_signature")), None, 0)
    block = _DATA.search(text)
    if block is None:
        return Verification(False, (*problems, Phrase.of("verify.no_data")), None, 0)
    try:
        data = strict_loads(block.group(1))
        fields, links, shown_key = data["record"], data["links"], str(data["public_key"])
        record = record_of(fields, [base64.b64decode(p) for p in _PICTURE.findall(text)])
        recomputed = chain(record.facts(), record.chained_messages())
    except StrictJsonError as exc:
        return Verification(False, (*problems, Phrase.of("verify.not_json", error=str(exc))), None, 0)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        return Verification(False, (*problems, Phrase.of("verify.unreadable", error=str(exc))), None, 0)
    if recomputed != links:
        first = next(
            (i for i, (a, b) in enumerate(zip(recomputed, links, strict=False)) if a != b),
            min(len(recomputed), len(links)),
        )
        broken = Phrase.of("verify.chain_at", line=_line_name(fields["lines"], first - 1))
        problems.append(Phrase.of("verify.chain_facts") if first == 0 else broken)
    for i, (listed, (_, png)) in enumerate(zip(fields["pictures"], record.pictures, strict=True), start=1):
        if listed.get("sha256") != hashlib.sha256(png).hexdigest():
            problems.append(Phrase.of("verify.picture", number=i, caption=listed.get("caption")))
    unsigned = _zeroed(text, (_DIGEST, DIGEST_ZERO), (_SIGNATURE, SIGNATURE_ZERO), (_SEAL, SEAL_ZERO))
    rendered = _page(record, shown_key)
    if rendered != unsigned:
        problems.append(_first_difference(unsigned, rendered))
    if seal.group(1) != seal.group(2) or seal.group(1) != fingerprint(signed.group(1)):
        problems.append(Phrase.of("verify.seal"))
    try:
        key = load_public(public_key if public_key is not None else shown_key)
    except BadKey as exc:
        return Verification(
            False,
            (*problems, Phrase.of("verify.bad_key", error=Phrase.of(exc.message_key, **exc.values))),
            None,
            record.messages,
            data=fields,
        )
    if public_key is not None and public_key.strip() != shown_key:
        problems.append(Phrase.of("verify.other_key", shown=shown_key, club=public_key.strip()))
    if not verifies(key, signed.group(1), unsigned.encode("utf-8")):
        problems.append(Phrase.of("verify.signature_club" if public_key is not None else "verify.signature_shown"))
    return Verification(
        not problems, tuple(problems), fingerprint(signed.group(1)), record.messages, public_key is not None, fields
    )


def _line_name(lines: list[dict[str, Any]], index: int) -> Phrase:
    """A line of the conversation as a reader counts it: "message 2" (members' lines only), or "the bot's event
    3 (`draft_replaced`)"."""
    if index >= len(lines):
        return Phrase.of("verify.line_other", number=index + 1)
    event = lines[index].get("event")
    if event:
        number = sum(1 for line in lines[: index + 1] if line.get("event"))
        return Phrase.of("verify.line_event", number=number, event=event)
    return Phrase.of("verify.line_message", number=sum(1 for line in lines[: index + 1] if not line.get("event")))


def _first_difference(shown: str, rendered: str) -> Phrase:
    """Where the page differs from the page its data renders, with both lines (shortened)."""
    a, b = shown.splitlines(), rendered.splitlines()
    for number, (left, right) in enumerate(zip(a, b, strict=False), start=1):
        if left != right:
            at = next(
                (i for i, (x, y) in enumerate(zip(left, right, strict=False)) if x != y), min(len(left), len(right))
            )
            start = max(0, at - 30)
            return Phrase.of(
                "verify.page_line",
                line=number,
                shown=repr(left[start : start + 90]),
                rendered=repr(right[start : start + 90]),
            )
    return Phrase.of("verify.page_length", shown=len(a), rendered=len(b))


_COMPARED = (
    "trial",
    "game",
    "players",
    "caller",
    "taken_by",
    "taken_at",
    "closed_at",
    "outcome",
    "verdict_text",
    "reason",
    "verdict_json",
    "outcome_text",
    "kind",
    "call_at",
    "game_status",
)


def differences(file_data: dict[str, Any], club_data: dict[str, Any]) -> list[Phrase]:
    """What a record file's data says otherwise than the club's own record of the trial (the same view): each
    field (named by its ``verify.field.*`` entry), and each line of the conversation, named with both values."""
    out = []
    for name in _COMPARED:
        if file_data.get(name) != club_data.get(name):
            what = Phrase.of(f"verify.field.{name}")
            out.append(
                Phrase.of("verify.differs", what=what, file=repr(file_data.get(name)), club=repr(club_data.get(name)))
            )
    theirs, ours = file_data.get("lines") or [], club_data.get("lines") or []
    for index, (a, b) in enumerate(zip(theirs, ours, strict=False)):
        for part in ("at", "who", "text"):
            if a.get(part) != b.get(part):
                out.append(
                    Phrase.of(
                        "verify.line_differs",
                        line=_line_name(ours, index),
                        part=Phrase.of(f"verify.part.{part}"),
                        file=repr(a.get(part)),
                        club=repr(b.get(part)),
                    )
                )
    if len(theirs) != len(ours):
        out.append(Phrase.of("verify.lines_differ", shown=len(theirs), club=len(ours)))
    if file_data.get("effect") != club_data.get("effect"):
        out.append(Phrase.of("verify.effect_differs"))
    return out
