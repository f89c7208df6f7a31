"""The permission matrix, table-driven: every text command, every button and every web page × every role × forged
payloads.

Run through the desk's own faces — `Commands.handle` for the text commands (what the console and Telegram use),
`Desk.press` for buttons, `Desk.actor` for the account that is no member yet, `LinkDesk.ask_link` for /nadimak — so
it stays fast. Each cell is allowed or refused as the rules say (`ALLOWED` below is the rules, written out); a
refused cell must leave the database file byte-identical, and an allowed one runs on a fresh copy of the
prepared club so the cells stay independent.

The club: a trial T1 (out of game, game 100) called by the player and judged by the trial's referee; a second
trial T2 (game 140) judged by another referee; a pending call C of the player (game 130); a link request R of
an account that is no member yet. Every role but the stranger played a game of his own (`OWN_GAME`).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.commands import Commands
from bot.config import Config, WebConfig
from bot.desk import Desk
from bot.desk.advice import ADVICE_REF
from bot.discord.components import CUSTOM_ID
from bot.ports import Chats, LoggingGameServer, ManualClock, ManualTimers, Reply
from bot.telegram.format import parse_callback
from club import Club
from fakes.chat import RecordingChat
from rules.verdicts import Draft, NoVerdict
from storage.database import open_database
from storage.members import Member

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ROLES = {
    "owner": "vesna",
    "councilor": "vecnik",
    "referee": "sudija",
    "trial_referee": "sudac",
    "moderator": "mod",
    "player": "pera",
    "unproven": "",
    "left": "otisao",
    "denied": "zabranjen",
}
OWN_GAME = {nick: 110 + i for i, nick in enumerate(n for n in ROLES.values() if n)}
STRANGER = ("test", "stranger-account")
PAYLOADS = ("own", "other", "huge", "negative", "non_ascii")
NICK_PAYLOADS = ("own", "unknown", "hostile")
OFFICIALS = {"owner", "councilor", "referee", "trial_referee", "moderator"}
MEMBERS = OFFICIALS | {"player", "denied"}  # proven, in the club


@dataclass(frozen=True)
class Ids:
    t1: int
    t2: int
    call: int
    t2_call: int
    request: int


# The rules, written out: who may, with the right payload. Every other cell is refused.
ALLOWED: dict[str, set[str]] = {
    "sudija": {"owner", "councilor", "referee", "trial_referee", "moderator"},  # the player's call C is pending
    "presude": MEMBERS,
    "papir": MEMBERS,
    "korekcije": MEMBERS,
    "clan": MEMBERS,
    "katalog": MEMBERS,
    "promeni": {"trial_referee"},
    "ruke": {"trial_referee"},
    "sudjenja": {"trial_referee"},
    "analiza": {"trial_referee"},  # hand 1 of T1's game has a defender's fall
    "zavrsi": {"trial_referee"},
    "napusti": {"trial_referee"},
    "presuda": {"trial_referee"},
    "bula": set(),
    "ponisti": set(),
    "arbitar": set(),
    "ispravka": set(),  # no fall in a completed hand of his
    "prihvatam": set(),
    "odbijam": set(),
    "vecnik": set(),  # no request waits; a councilor only in game
    "glasaj": set(),
    "zalba": set(),
    "prijava": set(),  # the first club takes no reports of an incident: its appeals are against verdicts
    "preuzmi": set(),
    "resi": set(),  # no vote, no recorded trial, no appeal
    "zalbe": {"councilor", "owner"},
    "postavi": {"owner", "councilor"},
    "razresi": {"owner", "councilor"},
    "uskrati": {"owner", "councilor"},
    "vrati": {"owner", "councilor"},
    "akti": OFFICIALS,
    "zatvori_ligu": {"owner"},
    "ostavka": {"councilor", "referee", "trial_referee", "moderator"},
    "povuci": {"player"},
    "dezurstvo": {"councilor", "referee", "trial_referee"},
    "povezi": {"owner", "moderator"},
    "povezi_odluka": {"owner", "moderator"},
    "odvezi": {"owner", "moderator"},
    "nadimak": {"unproven"},
    "statistika": {"owner", "councilor"},
    "zapisnik": set(),  # both trials are still open: no record yet
    "web": MEMBERS,  # the club's pages are on ([web]): a one-time link to every member
    "korekcija": set(),  # no game server is linked: a move cannot be undone
    "korekcija_yes": set(),
    "korekcija_no": set(),
    # buttons
    "take": {"referee"},
    "withdraw": {"player"},
    "join": set(),
    "councilor": set(),
    "hands": {"trial_referee"},
    "history": {"trial_referee"},
    "finish": {"trial_referee"},
    "leave": {"trial_referee"},
    "advice": {"trial_referee"},
    "consent": set(),
    "decline": set(),
    "cancel_change": set(),
    "link_approve": {"owner", "moderator"},
    "link_deny": {"owner", "moderator"},
    "vote_yes": set(),
    "vote_no": set(),
    "appeal_take": set(),
}
#: Commands whose "other" payload (another game: T1's) is as allowed as the own one (any member reads verdicts
#: and papers; the player played T1's game, so its corrections are his to see).
OTHER_ALLOWED = {("presude", r) for r in MEMBERS} | {("papir", r) for r in MEMBERS} | {("korekcije", "player")}

ROLE_WORD = {"councilor": "vecnik", "moderator": "moderator"}


def number_of(payload: str, own: int, other: int) -> str:
    return {
        "own": str(own),
        "other": str(other),
        "huge": str(2**63),
        "negative": "-1",
        "non_ascii": "".join(chr(0x0660 + int(d)) for d in str(own)),
    }[payload]  # Arabic-Indic digits


def nick_of(payload: str, own: str) -> str:
    return {"own": own, "unknown": "niko_takav", "hostile": own + "\u202e"}[payload]


def text_cells() -> list[tuple[str, str, str]]:
    """(command, role, payload) of every text command."""
    cells = []
    numbered = (
        "sudija",
        "presude",
        "papir",
        "promeni",
        "korekcije",
        "bula",
        "ponisti",
        "arbitar",
        "ispravka",
        "prihvatam",
        "odbijam",
        "zapisnik",
        "korekcija",
        "analiza",
        "glasaj",
        "zalba",
        "prijava",
        "preuzmi",
        "resi",
    )
    named = ("postavi", "razresi", "uskrati", "vrati", "akti", "clan", "odvezi", "povezi_odluka", "nadimak")
    bare = (
        "povuci",
        "dezurstvo",
        "ruke",
        "sudjenja",
        "vecnik",
        "zavrsi",
        "napusti",
        "katalog",
        "ostavka",
        "zatvori_ligu",
        "povezi",
        "presuda",
        "statistika",
        "zalbe",
        "web",
    )
    for role in ROLES:
        cells += [(c, role, p) for c in numbered for p in PAYLOADS]
        cells += [(c, role, p) for c in named for p in NICK_PAYLOADS]
        cells += [(c, role, "none") for c in bare]
    return cells


def button_cells() -> list[tuple[str, str, str]]:
    return [
        (b, role, p)
        for b in (
            "take",
            "withdraw",
            "join",
            "councilor",
            "hands",
            "history",
            "finish",
            "leave",
            "advice",
            "consent",
            "decline",
            "cancel_change",
            "link_approve",
            "link_deny",
            "korekcija_yes",
            "korekcija_no",
            "vote_yes",
            "vote_no",
            "appeal_take",
        )
        for role in ROLES
        for p in PAYLOADS
    ]


def command_line(command: str, role: str, payload: str) -> str:
    nick = ROLES[role] or "pera"
    own = OWN_GAME.get(nick, 110)
    if command in ("sudija", "presude", "papir", "korekcije"):
        return f"/{command} {number_of(payload, own, 100)}"
    if command == "promeni":
        return f"/promeni {number_of(payload, OWN_GAME['pera'], 100)}"
    if command in ("bula", "ponisti", "arbitar", "ispravka"):
        return f"/{command} 1 {number_of(payload, own, 100)}"
    if command in ("prihvatam", "odbijam", "zapisnik", "korekcija"):
        return f"/{command} {number_of(payload, 1, 2)}"
    if command == "analiza":  # hand 1 of T1's game has a defender's fall, hand 2 none
        return f"/analiza {number_of(payload, 1, 2)}"
    if command == "glasaj":
        return f"/glasaj {number_of(payload, 1, 2)} da"
    if command == "zalba":
        return f"/zalba {number_of(payload, 1, 2)} -- matrica"
    if command == "prijava":
        return f"/prijava {number_of(payload, own, 100)} -- matrica"
    if command == "preuzmi":
        return f"/preuzmi {number_of(payload, 1, 2)}"
    if command == "resi":
        return f"/resi {number_of(payload, 1, 2)} odbijena -- matrica"
    if command == "postavi":
        return f"/postavi {nick_of(payload, 'marko')} sudija"
    if command == "razresi":
        return f"/razresi {nick_of(payload, 'sudija')} sudija osnov teze_krsenje -- matrica"
    if command == "uskrati":
        return f"/uskrati {nick_of(payload, 'marko')} 3 -- matrica"
    if command == "vrati":
        return f"/vrati {nick_of(payload, 'zabranjen')}"
    if command in ("akti", "clan"):
        return f"/{command} {nick_of(payload, 'pera')}"
    if command == "odvezi":
        return f"/odvezi {nick_of(payload, 'marko')}"
    if command == "povezi_odluka":
        return f"/povezi {nick_of(payload, 'novi')} odobri"
    if command == "ostavka":
        return f"/ostavka {ROLE_WORD.get(role, 'sudija')}"
    if command == "zatvori_ligu":
        return "/liga zatvori 2026-10"
    if command == "presuda":
        return "/presuda niko -- matrica"
    return f"/{command}"


def fingerprint(path: Path) -> tuple[bytes, bytes]:
    """The database's bytes: the file and its write-ahead log (compared as they are: cheaper than a hash of them)."""
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes(), wal.read_bytes() if wal.exists() else b""


async def open_club(path: Path) -> Club:
    config = Config(
        owner="vesna", owner_accounts=("test:vesna",), web=WebConfig(port=8780, public_url="https://klub.example")
    )
    db = await open_database(path)
    chat = RecordingChat()
    clock = ManualClock(NOW)
    desk = Desk(db, Chats([chat]), LoggingGameServer(), clock, config, ManualTimers())
    await desk.start()
    return Club(db, desk, chat, clock, ManualTimers(), LoggingGameServer(), config)


async def build(path: Path) -> Ids:
    club = await open_club(path)
    desk = club.desk
    await club.member("vesna")
    await club.member("vecnik", "councilor")
    await club.member("vecnik2", "councilor")  # a councilor's /postavi and /razresi are proposals: two may vote
    await club.member("sudija", "referee")
    await club.member("sudac", "referee")
    await club.member("sudac2", "referee")
    await club.member("mod", "moderator")
    for nick in ("pera", "otisao", "zabranjen", "marko", "ana"):
        await club.member(nick)
    for nick, number in OWN_GAME.items():
        await club.game(number, (nick, "marko", "ana"), hands=2)
    for number, players in (
        (100, ("pera", "marko", "ana")),
        (130, ("pera", "bojan", "zoran")),
        (140, ("ana", "bojan", "zoran")),
    ):
        await club.game(number, players, hands=2)

    async def trial(caller: str, game: int, referee: str) -> tuple[int, int]:
        assert (await desk.calls.call(await club.get(caller), game)).ok
        call = await club.db.calls.pending_for_game(game)
        assert call is not None
        assert (await desk.trials.take(await club.get(referee), call.id)).ok
        opened = await club.db.trials.open_for_game(game)
        assert opened is not None
        # A draft stands (Bez presude, with its reason), so the one who may Završi suđenje records it.
        assert (await desk.draft(await club.get(referee), Draft(NoVerdict(), "matrica"))).ok
        return opened.id, call.id

    await desk.set_duty(await club.get("sudija"), False)  # not in the lobby: no call goes to him by itself
    t1, _ = await trial("pera", 100, "sudac")
    t2, t2_call = await trial("ana", 140, "sudac2")
    await desk.set_duty(await club.get("sudija"), True)
    assert (await desk.calls.call(await club.get("pera"), 130)).ok
    pending = await club.db.calls.pending_for_game(130)
    assert pending is not None
    await club.db.members.set_call_ban((await club.get("zabranjen")).id, None, None, "matrica", NOW)
    await desk.trials.member_left_club(await club.get("otisao"))
    assert (await desk.links.ask_link(*STRANGER, "Stranger", "novi")).ok
    request = await club.db.links.for_account(*STRANGER)
    assert request is not None
    ids = Ids(t1, t2, pending.id, t2_call, request.id)
    await club.db.close()
    return ids


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ids]:
    import asyncio  # noqa: PLC0415 (imported where the test needs it)

    path = tmp_path_factory.mktemp("matrix") / "template.db"
    ids = asyncio.run(build(path))
    return path, ids


@pytest.fixture
async def shared(template: tuple[Path, Ids], tmp_path: Path) -> AsyncIterator[Club]:
    path = tmp_path / "shared.db"
    shutil.copyfile(template[0], path)
    club = await open_club(path)
    yield club
    await club.db.close()


async def actor_of(club: Club, role: str) -> Member | Reply:
    if role == "unproven":
        return await club.desk.actor(*STRANGER)
    if role == "left":  # as the console resolves him (member_for): Commands.handle and Desk.press must refuse
        member = await club.desk.member_for("test", ROLES[role])
        assert member is not None
        assert not member.in_club
        return member
    return await club.desk.actor("test", ROLES[role])


def button_ref(button: str, payload: str, ids: Ids) -> int | None:
    own = {
        "take": ids.call,
        "withdraw": ids.call,
        "link_approve": ids.request,
        "link_deny": ids.request,
        "join": 1,
        "consent": 1,
        "decline": 1,
        "cancel_change": 1,
    }.get(button, ids.t1)
    if button == "advice":  # an analysis button: trial id * ADVICE_REF + hand (hand 1 of games 100 and 140)
        own, other = ids.t1 * ADVICE_REF + 1, ids.t2 * ADVICE_REF + 1
        return {"own": own, "other": other, "huge": 2**63, "negative": -1}.get(payload)
    other = {
        "take": ids.t2_call,
        "withdraw": ids.t2_call,
        "link_approve": ids.request + 1000,
        "link_deny": ids.request + 1000,
    }.get(button, ids.t2)
    refs = {"own": own, "other": other, "huge": 2**63, "negative": -1}
    return refs.get(payload)


async def run_cell(club: Club, ids: Ids, kind: str, command: str, role: str, payload: str) -> Reply:
    desk = club.desk
    if command == "nadimak":
        account = STRANGER if role == "unproven" else ("test", ROLES[role])
        nick = {"own": "novi2", "unknown": "vesna", "hostile": "novi\u200b"}[payload]
        return await desk.links.ask_link(*account, "x", nick)
    actor = await actor_of(club, role)
    if isinstance(actor, Reply):
        return actor
    if kind == "text":
        reply = await Commands(desk).handle(actor, command_line(command, role, payload))
        assert reply is not None
        return reply
    ref = button_ref(command, payload, ids)
    if ref is None:  # non-ASCII digits never become an id: both adapters' parsers refuse the payload
        digits = "".join(chr(0x0660 + int(d)) for d in str(ids.t1))
        assert parse_callback(f"{command}:{digits}") is None
        assert CUSTOM_ID.fullmatch(f"sudija:{command}:{digits}") is None
        return desk.voice.refuse("button.unknown")
    return await desk.press(actor, command, ref)


def expected(command: str, role: str, payload: str) -> bool:
    if role not in ALLOWED[command]:
        return False
    if payload in ("own", "none"):
        return True
    return payload == "other" and (command, role) in OTHER_ALLOWED


CELLS = [("text", *c) for c in text_cells()] + [("button", *c) for c in button_cells()]


async def test_the_permission_matrix(template: tuple[Path, Ids], shared: Club, tmp_path: Path) -> None:
    path, ids = template
    wrong: list[str] = []
    allowed = 0
    for kind, command, role, payload in CELLS:
        allow = expected(command, role, payload)
        if not allow:
            before = fingerprint(Path(shared.db.path))
            reply = await run_cell(shared, ids, kind, command, role, payload)
            if reply.ok:
                wrong.append(f"{command} × {role} × {payload}: allowed, should be refused: {reply.text[:80]}")
            if fingerprint(Path(shared.db.path)) != before:
                wrong.append(f"{command} × {role} × {payload}: refused but the database changed")
            continue
        allowed += 1
        fresh = tmp_path / f"cell{allowed}.db"
        shutil.copyfile(path, fresh)
        club = await open_club(fresh)
        try:
            reply = await run_cell(club, ids, kind, command, role, payload)
        finally:
            await club.db.close()
        if not reply.ok:
            wrong.append(f"{command} × {role} × {payload}: refused, should be allowed: {reply.text[:100]}")
    assert not wrong, "\n".join(wrong)
    print(f"matrix: {len(CELLS)} cells, {allowed} allowed")
    assert len(CELLS) == 2088, (len(CELLS), allowed)
    assert allowed == 113, (len(CELLS), allowed)


async def test_every_command_and_button_is_in_the_matrix(shared: Club) -> None:
    """A new command or button must be given its row here."""
    aliases = {
        "suđenja",
        "većnik",
        "završi",
        "dežurstvo",
        "povuci_poziv",
        "razreši",
        "član",
        "poništi",
        "poveži",
        "liga zatvori",
        "pomoć",
        "help",
        "žalba",
        "reši",
        "žalbe",
    }
    # /pomoc: anyone, reads nothing; /jezik: every member, his own language only (tests/test_member_language.py)
    covered = {command for _, command, _, _ in CELLS} | {"povezi", "pomoc", "jezik"}
    commands = set(Commands(shared.desk).table) - aliases
    assert commands <= covered, sorted(commands - covered)
    buttons = (
        set(shared.desk.corrections.correction_actions())
        | set(shared.desk.links.link_actions())
        | set(shared.desk.votes.vote_actions())
        | set(shared.desk.appeals.appeal_actions())
        | {"take", "withdraw", "join", "hands", "history", "councilor", "finish", "leave"}
    )
    buttons |= set(shared.desk.extra_actions) | set(shared.desk.advisor.advice_actions())
    assert buttons <= covered, sorted(buttons - covered)
    assert set(ALLOWED) == (covered - {"pomoc", "jezik"}) | {"povezi_odluka"}


# The club's web pages (bot/web) ------------------------------------------------------------------------------
#: The pages' rules, written out as the chat's above: who is shown each page with the right payload (the own
#: game, trial or nickname); every other cell answers exactly as a page that is not there. A page shows what its
#: chat twin answers the same member: Partije and a game's paper as /papir, Suđenja as /presude (any member, any
#: game), a hand's cards as the trial's /ruke, a member's record as /clan, the council's desk as /statistika,
#: the signed record as /zapisnik (no trial recorded yet).
PAGE_ALLOWED: dict[str, set[str]] = {
    "partije": MEMBERS,
    "partija": MEMBERS,
    "ruka": MEMBERS,  # the cards of a game he played, the game over
    "sudjenja": MEMBERS,
    "clan": MEMBERS,
    "vece": {"owner", "councilor"},
    "zapisnik": set(),
}
#: Pages whose "other" payload is shown as the own one: any member reads every game's paper and verdicts; an
#: official reads every member's record and the cards of a game ended (T1's game, which its referee judges).
PAGE_OTHER_ALLOWED = (
    {("partija", r) for r in MEMBERS}
    | {("sudjenja", r) for r in MEMBERS}
    | {("ruka", r) for r in OFFICIALS | {"player"}}  # the player played T1's game
    | {("clan", r) for r in OFFICIALS}
)
PAGE_NICK_PAYLOADS = ("own", "other", "unknown", "hostile")
MISSING_PAGE = "/partije/999999999/sudjenja"


def page_cells() -> list[tuple[str, str, str]]:
    cells: list[tuple[str, str, str]] = []
    for role in ROLES:
        cells += [(p, role, "none") for p in ("partije", "vece")]
        cells += [(p, role, payload) for p in ("partija", "ruka", "sudjenja", "zapisnik") for payload in PAYLOADS]
        cells += [("clan", role, payload) for payload in PAGE_NICK_PAYLOADS]
    return cells


def page_path(page: str, role: str, payload: str) -> str:
    nick = ROLES[role] or "pera"
    game = number_of(payload, OWN_GAME.get(nick, 110), 100) if payload in PAYLOADS else ""
    if page == "partija":
        return f"/partije/{game}"
    if page == "ruka":
        return f"/partije/{game}/ruke/1"
    if page == "sudjenja":
        return f"/partije/{game}/sudjenja"
    if page == "zapisnik":
        return f"/sudjenja/{number_of(payload, 1, 2)}/zapisnik"
    if page == "clan":
        return "/clan/" + {"own": nick, "other": "marko", "unknown": "niko_takav", "hostile": nick + "\u202e"}[payload]
    return f"/{page}"


def page_expected(page: str, role: str, payload: str) -> bool:
    if role not in PAGE_ALLOWED[page]:
        return False
    if payload in ("own", "none"):
        return True
    return payload == "other" and (page, role) in PAGE_OTHER_ALLOWED


async def test_the_page_matrix(shared: Club) -> None:
    """Every page × every role × forged payloads, over HTTP as a browser asks (each member signed in through the
    link `/web` sent him): shown where the rules show it; anywhere else the very answer of a page that does not
    exist (404, the same bytes: nothing the chat would not tell him, not even that the page is there) and the
    database left byte-identical. An account that is no member, or a member who left, cannot sign in at all."""
    from urllib.parse import quote  # noqa: PLC0415 (imported where the test needs it)

    import aiohttp  # noqa: PLC0415 (imported where the test needs it)
    from web_club import serve, signed_in  # noqa: PLC0415 (the web's test club, only for this test)

    wrong: list[str] = []
    shown = 0
    cells = page_cells()
    async with serve(shared) as base:
        sessions = {}
        try:
            for role, nick in ROLES.items():
                if role in ("unproven", "left"):  # no link is sent him: he browses signed out
                    assert not (await run_cell(shared, Ids(0, 0, 0, 0, 0), "text", "web", role, "none")).ok
                    sessions[role] = aiohttp.ClientSession()
                else:
                    sessions[role] = await signed_in(shared, base, nick)
            for role, session in sessions.items():
                async with session.get(base + MISSING_PAGE, allow_redirects=False) as answer:
                    missing = answer.status, await answer.read()
                for page, cell_role, payload in cells:
                    if cell_role != role:
                        continue
                    path = quote(page_path(page, role, payload), safe="/")
                    before = fingerprint(Path(shared.db.path))
                    async with session.get(base + path, allow_redirects=False) as answer:
                        status, body = answer.status, await answer.read()
                    if role in ("unproven", "left"):
                        if (status, answer.headers.get("Location")) != (303, "/prijava"):
                            wrong.append(f"{page} × {role} × {payload}: {status}, should be sent to sign in")
                    elif page_expected(page, role, payload):
                        shown += 1
                        if status != 200:
                            wrong.append(f"{page} × {role} × {payload}: {status}, should be shown")
                    elif (status, body) != missing or status != 404:
                        wrong.append(f"{page} × {role} × {payload}: {status}, should be as a page not there")
                    elif fingerprint(Path(shared.db.path)) != before:
                        wrong.append(f"{page} × {role} × {payload}: refused but the database changed")
        finally:
            for session in sessions.values():
                await session.close()
    assert not wrong, "\n".join(wrong)
    assert len(cells) == 234, len(cells)
    assert shown == 62, shown
