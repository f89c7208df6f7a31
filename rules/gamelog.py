"""The game log, format v1: the data model of a game and its hands, and reading it from JSON values.

A log is what the club's game server records about one game (partija). This module turns decoded JSON into
frozen dataclasses and reports *every* structural problem (a missing or mistyped field, a bad card, an unknown
player) at once, each a `rules.problems.Problem` (a key, its values, its place). Whether the game is a legal
preferans game is `rules.validation`'s business; the JSON text, files and gzip are `rules.logfile`'s.
The format is documented in ``docs/game-log.md``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import Enum, StrEnum
from typing import Any

from rules.cards import DECK, RANKS, Card, Suit
from rules.limits import MAX_DEPTH, MAX_INT, depth_problem, shown, too_deep
from rules.members import MAX_NICK
from rules.nicknames import NickRefused, check_nick, identity_key, is_clean
from rules.phrases import Phrase, Value
from rules.problems import NOWHERE, Key, Place, Problem, Problems, Word

FORMAT = "sudija-game-log/1"


class GameStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    INTERRUPTED = "interrupted"


class Strain(Enum):
    """What a contract is played in. The value is the auction level that names it."""

    PIK = 2
    KARO = 3
    HERC = 4
    TREF = 5
    BETL = 6
    SANS = 7

    @property
    def trump(self) -> Suit | None:
        return _TRUMPS.get(self)

    @property
    def level(self) -> int:
        return self.value

    @property
    def serbian(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Strain:
        key = text.strip().lower()
        for strain in cls:
            if key in (strain.serbian, str(strain.value)):
                return strain
            trump = strain.trump
            if trump is not None and key in (trump.name.lower(), trump.symbol):
                return strain
        raise ValueError(f"unknown contract {shown(text)}: use pik, karo, herc, tref, betl or sans")


_TRUMPS = {Strain.PIK: Suit.S, Strain.KARO: Suit.D, Strain.HERC: Suit.H, Strain.TREF: Suit.C}


@dataclass(frozen=True, slots=True)
class Contract:
    strain: Strain
    igra: bool = False  # declared without the talon

    @property
    def base_value(self) -> int:
        """`v` of spec/scoring.md: 4 6 8 10 12 14, two more for igra."""
        return self.strain.level * 2 + (2 if self.igra else 0)

    def describe(self) -> str:
        return ("igra " if self.igra else "") + self.strain.serbian

    @property
    def phrase(self) -> Phrase:
        """The contract in the reader's words (the catalogue's ``term.*``): herc, igra herc."""
        strain = Phrase(f"term.{self.strain.serbian}")
        return Phrase.of("term.igra", strain=strain) if self.igra else strain


class Decision(Enum):
    """A defender's answer once the contract is named."""

    FOLLOWS = "follows"  # dođem
    PASSES = "passes"  # ne dođem / dalje
    CALLS = "calls"  # zovem: follows and calls the other defender in


CALLS = ("dalje", "mogu", "igra", "2", "3", "4", "5", "6", "7")


@dataclass(frozen=True, slots=True)
class Bid:
    seat: int
    call: str  # one of CALLS


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    """What the game server wrote for one player after a hand (for the cross-check with the paper)."""

    bule: int = 0
    supe_left: int = 0
    supe_right: int = 0


@dataclass(frozen=True, slots=True)
class Hand:
    n: int
    dealer: int
    deal: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    talon: tuple[Card, ...]
    bids: tuple[Bid, ...]
    declarer: int | None = None
    contract: Contract | None = None
    discards: tuple[Card, ...] = ()
    defense: Mapping[int, Decision] = field(default_factory=dict)
    kontra: tuple[int, ...] = ()  # seats giving kontra, rekontra, subkontra, mortkontra in turn
    tricks: tuple[tuple[Card, ...], ...] = ()
    score: Mapping[int, ScoreEntry] | None = None
    ended_at: datetime | None = None

    @property
    def completed(self) -> bool:
        return self.ended_at is not None

    @property
    def all_pass(self) -> bool:
        return self.declarer is None


@dataclass(frozen=True, slots=True)
class Game:
    number: int
    rated: bool
    ai: bool
    bule: int
    refe_limit: int
    players: tuple[str, str, str]
    status: GameStatus
    started_at: datetime
    ended_at: datetime | None
    abandoned_by: tuple[str, ...]
    hands: tuple[Hand, ...]

    def seat_of(self, nick: str) -> int | None:
        """The seat of the player `nick` names (the same identity key: rules.nicknames.identity_key)."""
        key = identity_key(nick)
        for seat, player in enumerate(self.players):
            if player == nick or identity_key(player) == key:
                return seat
        return None

    @property
    def judgeable(self) -> bool:
        """Rated and without AI: only such games are subject to the referee system."""
        return self.rated and not self.ai


class LogError(Problems):
    """A log that cannot be read or is not a legal game; `problems` lists every reason (`rules.problems`)."""


def parse_time(value: object) -> datetime:
    """An ISO 8601 time with a zone (``2026-11-25T21:10:00Z``), returned in UTC; `TimeRefused` says why not."""
    if not isinstance(value, str):
        raise TimeRefused(f"expected a time like 2026-11-25T21:10:00Z, got {shown(value)}", Key.TIME_NOT_TEXT)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise TimeRefused(f"not a time: {shown(value)} (write it like 2026-11-25T21:10:00Z)", Key.TIME_BAD) from None
    if moment.tzinfo is None:
        raise TimeRefused(f"time {shown(value)} has no zone: add Z for UTC or an offset like +01:00", Key.TIME_NO_ZONE)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # e.g. 9999-12-31T23:59:59-01:00 lies beyond the year 9999 in UTC
        raise TimeRefused(f"time {shown(value)} is out of range (years 1 to 9999 in UTC)", Key.TIME_RANGE) from None


class TimeRefused(ValueError):
    """A text that is no time: the message is the game-server protocol's English (`bot.gameserver`), `key` the
    problem a log reader reports (`rules.problems`)."""

    def __init__(self, message: str, key: Key) -> None:
        super().__init__(message)
        self.key = key


def format_time(moment: datetime) -> str:
    if moment.tzinfo is UTC and moment.year >= 1000:  # the usual case, without strftime's parsing of a format
        return moment.isoformat()[:19] + "Z"
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_KINDS = {int: Word.WHOLE_NUMBER, bool: Word.TRUE_FALSE, str: Word.TEXT, list: Word.LIST, dict: Word.OBJECT}
_STATUS_WORDS = {
    GameStatus.FINISHED: Word.FINISHED,
    GameStatus.INTERRUPTED: Word.INTERRUPTED,
    GameStatus.IN_PROGRESS: Word.IN_PROGRESS,
}


def status_word(status: GameStatus) -> Phrase:
    """A game's status as a word of the reader's language."""
    return Phrase(_STATUS_WORDS[status])


class _Reader:
    """Collects problems while reading one game so the admin sees all of them at once."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def fail(self, where: Place, key: Key, /, **values: Value) -> None:
        self.problems.append(Problem.of(key, where, **values))

    def get(
        self, obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: Place, required: bool = True
    ) -> Any:
        if key not in obj:
            if required:
                self.fail(where, Key.FIELD_MISSING, field=key)
            return None
        value = obj[key]
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            expected = _KINDS.get(kind if isinstance(kind, type) else object, Word.OTHER_TYPE)
            self.fail(where, Key.FIELD_TYPE, field=key, kind=Phrase(expected), value=json_repr(value))
            return None
        return value


def _number(value: int) -> Value:
    """A whole number for a problem: itself when short, else its first digits and how many digits it has."""
    text = str(abs(value))
    if len(text) <= 24:
        return str(value)
    return Phrase.of(Word.LONG_NUMBER, start=("-" if value < 0 else "") + text[:12], count=len(text))


def json_repr(value: object) -> str:
    return shown(value)


def parse_game(doc: object) -> Game:
    """Read one game document; raise `LogError` listing every structural problem found.

    A well-formed document in the usual spelling is read by a fast path (dictionary look-ups, no problem
    bookkeeping); anything it does not recognise at once is re-read by the careful reader, which names every
    problem. Both give equal games for the documents the fast path accepts.
    """
    return read_game(doc)[0]


def _careful_game(doc: object) -> Game:
    """The careful reader: collects every structural problem."""
    if not isinstance(doc, dict):
        raise LogError([Problem.of(Key.GAME_NOT_OBJECT, value=json_repr(doc))])
    doc = _nfc_players(doc)
    number = doc.get("game")
    known = isinstance(number, int) and not isinstance(number, bool)
    label = Place(game=number) if known else Place(game_unknown=True)
    deep = too_deep(doc)
    if deep is not None:
        deep_hand, name = depth_problem(deep)
        where = label if deep_hand is None else replace(label, hand=deep_hand)
        raise LogError([Problem.of(Key.NESTED_TOO_DEEP, where, field=shown(name)[1:-1], limit=MAX_DEPTH)])
    r = _Reader()
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        r.fail(label, Key.FORMAT, value=json_repr(fmt), expected=FORMAT)
    number = r.get(doc, "game", int, label)
    if number is not None and number <= 0:
        r.fail(label, Key.GAME_NOT_POSITIVE)
    elif number is not None and number > MAX_INT:
        r.fail(label, Key.GAME_TOO_BIG, value=_number(number))
    rated = r.get(doc, "rated", bool, label)
    ai = r.get(doc, "ai", bool, label)
    size = r.get(doc, "bule", int, label)
    if size is not None and not (2 <= size <= 10_000 and size % 2 == 0):
        r.fail(label, Key.BULE_RANGE, value=_number(size))
    refe_limit = r.get(doc, "refe_limit", int, label)
    if refe_limit is not None and not 0 <= refe_limit <= 100:
        r.fail(label, Key.REFE_LIMIT_RANGE, value=_number(refe_limit))
    players = _players(r, doc, label)
    status_text = r.get(doc, "status", str, label)
    status = None
    if status_text is not None:
        try:
            status = GameStatus(status_text)
        except ValueError:
            r.fail(label, Key.STATUS, value=json_repr(status_text))
    started_at = _time(r, doc, "started_at", label, required=True)
    ended_at = _time(r, doc, "ended_at", label, required=False)
    if status is GameStatus.IN_PROGRESS and ended_at is not None:
        r.fail(label, Key.IN_PROGRESS_ENDED)
    if status in (GameStatus.FINISHED, GameStatus.INTERRUPTED) and ended_at is None and "ended_at" not in doc:
        assert status is not None
        r.fail(label, Key.NEEDS_END, status=status_word(status))
    if started_at and ended_at and ended_at < started_at:
        r.fail(label, Key.ENDS_BEFORE_START)
    abandoned = r.get(doc, "abandoned_by", list, label, required=False) or []
    abandoned_by: list[str] = []
    for nick in abandoned:
        if not isinstance(nick, str) or players is None or nick not in players:
            r.fail(label, Key.ABANDONED_NOT_PLAYER, value=json_repr(nick))
        else:
            abandoned_by.append(nick)
    hands_raw = r.get(doc, "hands", list, label)
    hands: list[Hand] = []
    if hands_raw is not None and players is not None:
        for i, raw in enumerate(hands_raw):
            hand = _hand(r, raw, i + 1, players, label)
            if hand is not None:
                hands.append(hand)
    if r.problems:
        raise LogError(r.problems)
    assert players is not None
    assert status is not None
    assert started_at is not None
    return Game(
        number=number,
        rated=rated,
        ai=ai,
        bule=size,
        refe_limit=refe_limit,
        players=players,
        status=status,
        started_at=started_at,
        ended_at=ended_at,
        abandoned_by=tuple(abandoned_by),
        hands=tuple(hands),
    )


def _nfc_players(doc: dict[str, Any]) -> dict[str, Any]:
    """Nicknames are stored in NFC (rules.nicknames): when a player's nickname is written otherwise, every text
    of the document (the deal's keys, the bids, the score …) is normalised with it, so they still match."""
    raw = doc.get("players")
    if not isinstance(raw, list) or all(not isinstance(p, str) or unicodedata.is_normalized("NFC", p) for p in raw):
        return doc

    def nfc(value: Any) -> Any:
        if isinstance(value, str):
            return unicodedata.normalize("NFC", value)
        if isinstance(value, list):
            return [nfc(v) for v in value]
        if isinstance(value, dict):
            return {nfc(k): nfc(v) for k, v in value.items()}
        return value

    try:
        return dict(nfc(doc))
    except RecursionError:
        return doc  # nested beyond reason: the reader refuses it for what it is


def nick_phrase(refused: NickRefused) -> Phrase:
    """Why a nickname is refused, as the catalogue's ``nick.why.*`` entry; a character by its code point alone
    (``U+200B``: its Unicode name is English, and the nickname is shown escaped beside it)."""
    values: list[tuple[str, Value]] = []
    for name, value in refused.values.items():
        if name == "char":
            value = str(value).split(" ", 1)[0]
        values.append((name, value if isinstance(value, int) else str(value)))
    return Phrase(refused.message_key, tuple(values))


def _players(r: _Reader, doc: Mapping[str, Any], where: Place) -> tuple[str, str, str] | None:
    raw = r.get(doc, "players", list, where)
    if raw is None:
        return None
    if len(raw) != 3 or not all(isinstance(p, str) and p.strip() for p in raw):
        r.fail(where, Key.PLAYERS_THREE, value=json_repr(raw))
        return None
    refused = False
    for seat, nick in enumerate(raw, start=1):
        try:
            check_nick(nick)
        except NickRefused as problem:
            r.fail(where, Key.PLAYER_NICK, seat=seat, nick=ascii(nick)[:60], why=nick_phrase(problem))
            refused = True
    if refused:
        return None
    if len({identity_key(p) for p in raw}) != 3:
        r.fail(where, Key.PLAYERS_SAME, value=json_repr(raw))
        return None
    return (raw[0], raw[1], raw[2])


def _time(r: _Reader, obj: Mapping[str, Any], key: str, where: Place, required: bool) -> datetime | None:
    if key not in obj or (obj[key] is None and not required):
        if required:
            r.fail(where, Key.FIELD_MISSING, field=key)
        return None
    try:
        return parse_time(obj[key])
    except TimeRefused as exc:
        r.fail(where, exc.key, field=key, value=shown(obj[key]))
        return None


def _seat(r: _Reader, value: object, players: tuple[str, str, str], where: Place, what: Phrase) -> int | None:
    if isinstance(value, str) and value in players:
        return players.index(value)
    r.fail(where, Key.NOT_PLAYER, what=what, value=json_repr(value), players=", ".join(players))
    return None


def _cards(r: _Reader, value: object, where: Place, what: Phrase) -> tuple[Card, ...] | None:
    if not isinstance(value, list):
        r.fail(where, Key.CARDS_NOT_LIST, what=what, value=json_repr(value))
        return None
    cards: list[Card] = []
    ok = True
    for item in value:
        try:
            cards.append(Card.parse(item))
        except ValueError:
            r.fail(where, Key.NOT_A_CARD if isinstance(item, str) else Key.CARD_NOT_TEXT, what=what, value=shown(item))
            ok = False
    return tuple(cards) if ok else None


def _hand(r: _Reader, raw: object, index: int, players: tuple[str, str, str], game: Place) -> Hand | None:
    where = replace(game, hand=index)
    if not isinstance(raw, dict):
        r.fail(where, Key.HAND_NOT_OBJECT, value=json_repr(raw))
        return None
    before = len(r.problems)
    n = r.get(raw, "n", int, where)
    if n is not None and n != index:
        r.fail(where, Key.HAND_NUMBER, value=_number(n))
    dealer = _seat(r, raw.get("dealer"), players, where, Phrase(Word.DEALER))
    deal_raw = r.get(raw, "deal", dict, where)
    deal: list[tuple[Card, ...]] = []
    talon: tuple[Card, ...] | None = None
    if deal_raw is not None:
        for nick in players:
            cards = _cards(r, deal_raw.get(nick), where, Phrase.of(Word.DEAL_OF, nick=nick))
            if cards is not None:
                deal.append(cards)
        talon = _cards(r, deal_raw.get("talon"), where, Phrase(Word.TALON))
        extra = set(deal_raw) - set(players) - {"talon"}
        if extra:
            r.fail(where, Key.DEAL_EXTRA, names=", ".join(sorted(extra)))
    bids: list[Bid] = []
    for i, bid in enumerate(r.get(raw, "bids", list, where) or []):
        at_bid = replace(where, bid=i + 1)
        if not isinstance(bid, dict):
            r.fail(at_bid, Key.BID_NOT_OBJECT)
            continue
        seat = _seat(r, bid.get("player"), players, at_bid, Phrase(Word.BID_PLAYER))
        call = bid.get("call")
        if call not in CALLS:
            r.fail(at_bid, Key.CALL_UNKNOWN, value=json_repr(call), calls=", ".join(CALLS))
        elif seat is not None:
            bids.append(Bid(seat, call))
    declarer = None
    if raw.get("declarer") is not None:
        declarer = _seat(r, raw.get("declarer"), players, where, Phrase(Word.DECLARER))
    contract = None
    contract_raw = raw.get("contract")
    if contract_raw is not None:
        if not isinstance(contract_raw, dict):
            r.fail(where, Key.CONTRACT_NOT_OBJECT)
        elif not isinstance(contract_raw.get("igra", False), bool):
            r.fail(where, Key.CONTRACT_IGRA, value=json_repr(contract_raw.get("igra")))
        else:
            strain_text = str(contract_raw.get("strain", ""))
            try:
                contract = Contract(Strain.parse(strain_text), bool(contract_raw.get("igra", False)))
            except ValueError:
                r.fail(where, Key.CONTRACT_STRAIN, value=shown(strain_text))
    discards = _cards(r, raw.get("discards", []), where, Phrase(Word.DISCARDS)) or ()
    defense: dict[int, Decision] = {}
    defense_raw = raw.get("defense", {})
    if not isinstance(defense_raw, dict):
        r.fail(where, Key.DEFENSE_NOT_OBJECT)
    else:
        for nick, value in defense_raw.items():
            seat = _seat(r, nick, players, where, Phrase(Word.DEFENSE))
            try:
                decision = Decision(value)
            except ValueError:
                r.fail(where, Key.DEFENSE_VALUE, nick=str(nick), value=json_repr(value))
                continue
            if seat is not None:
                defense[seat] = decision
    kontra: list[int] = []
    kontra_raw = raw.get("kontra", [])
    if not isinstance(kontra_raw, list):
        r.fail(where, Key.KONTRA_NOT_LIST)
        kontra_raw = []
    for giver in kontra_raw:
        seat = _seat(r, giver, players, where, Phrase(Word.KONTRA))
        if seat is not None:
            kontra.append(seat)
    tricks: list[tuple[Card, ...]] = []
    tricks_raw = raw.get("tricks", [])
    if not isinstance(tricks_raw, list):
        r.fail(where, Key.TRICKS_NOT_LIST)
    else:
        for t, trick in enumerate(tricks_raw):
            cards = _cards(r, trick, replace(where, trick=t + 1), Phrase(Word.TRICK))
            if cards is not None:
                tricks.append(cards)
    score = _score(r, raw.get("score"), players, where)
    ended_at = _time(r, raw, "ended_at", where, required=False)
    if len(r.problems) > before or dealer is None or n is None or talon is None or len(deal) != 3:
        return None
    return Hand(
        n=n,
        dealer=dealer,
        deal=(deal[0], deal[1], deal[2]),
        talon=talon,
        bids=tuple(bids),
        declarer=declarer,
        contract=contract,
        discards=discards,
        defense=defense,
        kontra=tuple(kontra),
        tricks=tuple(tricks),
        score=score,
        ended_at=ended_at,
    )


def _score(r: _Reader, raw: object, players: tuple[str, str, str], where: Place) -> dict[int, ScoreEntry] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        r.fail(where, Key.SCORE_NOT_OBJECT)
        return None
    score: dict[int, ScoreEntry] = {}
    for nick, entry in raw.items():
        seat = _seat(r, nick, players, where, Phrase(Word.SCORE))
        if seat is None:
            continue
        if not isinstance(entry, dict):
            r.fail(where, Key.SCORE_ENTRY, nick=nick)
            continue
        values = {}
        for key in ("bule", "supe_left", "supe_right"):
            value = entry.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int):
                r.fail(where, Key.SCORE_TYPE, nick=nick, field=key, value=json_repr(value))
                value = 0
            elif abs(value) > 1_000_000:
                r.fail(where, Key.SCORE_RANGE, nick=nick, field=key, value=_number(value))
                value = 0
            values[key] = value
        score[seat] = ScoreEntry(**values)
    return score


# --- the fast path -------------------------------------------------------------------------------------------
# An import reads hundreds of thousands of hands, so a document in the usual spelling is read with dictionary
# look-ups and exact type checks only. Whatever the fast path does not recognise raises one of `_FAST_MISSES`
# and the careful reader above starts over; the fast path never words a problem and never accepts a document
# the careful reader would refuse. On the way it notes whether the document is already canonical (exactly what
# `game_to_doc` writes: canonical card and time spellings, every key `game_to_doc` writes and no other), so that
# storing it needs no re-writing (`read_game`).


class _Slow(Exception):
    """The fast path does not recognise something: let the careful reader look."""


_FAST_MISSES = (_Slow, KeyError, TypeError, ValueError, AttributeError, IndexError)


def _card_spellings() -> dict[str, Card]:
    """Every exact spelling the fast path reads: rank (``10`` too, any case) then suit letter or symbol."""
    table: dict[str, Card] = {}
    for card in DECK:
        ranks = [RANKS[card.rank], RANKS[card.rank].lower()] + (["10"] if RANKS[card.rank] == "T" else [])
        suits = [card.suit.name, card.suit.name.lower(), card.suit.symbol]
        for rank in ranks:
            for suit in suits:
                text = rank + suit
                if Card.parse(text) != card:  # pragma: no cover - a guard against drifting from Card.parse
                    raise AssertionError(f"fast card spelling {text!r} disagrees with Card.parse")
                table[text] = card
    return table


_CARD_OF = _card_spellings()
_card_of = _CARD_OF.__getitem__
_canonical_card_of = {str(card): card for card in _CARD_OF.values()}.__getitem__
_STATUS_OF = {status.value: status for status in GameStatus}
_DECISION_OF = {decision.value: decision for decision in Decision}
_BID_OF = {(seat, call): Bid(seat, call) for seat in range(3) for call in CALLS}
_CONTRACT_OF = {(strain.serbian, igra): Contract(strain, igra) for strain in Strain for igra in (False, True)}
_NO_LIST: list[Any] = []
_NO_DICT: dict[str, Any] = {}
_SCORE_KEYS = frozenset(("bule", "supe_left", "supe_right"))


def read_game(doc: object) -> tuple[Game, dict[str, Any] | None]:
    """`parse_game`, and the document itself when it is already canonical (equal to ``game_to_doc(game)``).

    An importer that receives the document back can store it as it is instead of writing the game out again.
    """
    if type(doc) is dict:
        canonical = [True]
        try:
            game = _fast_game(doc, canonical)
        except _FAST_MISSES:
            pass
        else:
            if canonical[0]:
                return game, doc
            if too_deep(doc) is None:  # a value nested too deep in a field the game does not read is refused too
                return game, None
    return _careful_game(doc), None


def _fast_cards(value: object, canonical: list[bool]) -> tuple[Card, ...]:
    if type(value) is not list:
        raise _Slow
    try:
        return tuple(map(_canonical_card_of, value))
    except KeyError:
        canonical[0] = False
        return tuple(map(_card_of, value))


def _is_canonical_time(text: object, moment: datetime | None) -> bool:
    return moment is not None and text == format_time(moment)


def _fast_game(doc: dict[str, Any], canonical: list[bool]) -> Game:
    if doc.get("format", FORMAT) != FORMAT:
        raise _Slow
    number = doc["game"]
    rated = doc["rated"]
    ai = doc["ai"]
    size = doc["bule"]
    refe_limit = doc["refe_limit"]
    if (
        type(number) is not int
        or number <= 0
        or number > MAX_INT
        or type(rated) is not bool
        or type(ai) is not bool
        or type(size) is not int
        or not 2 <= size <= 10_000
        or size % 2
        or type(refe_limit) is not int
        or not 0 <= refe_limit <= 100
    ):
        raise _Slow
    raw_players = doc["players"]
    if type(raw_players) is not list or len(raw_players) != 3:
        raise _Slow
    p0, p1, p2 = raw_players
    if (
        type(p0) is not str
        or type(p1) is not str
        or type(p2) is not str
        or not p0.strip()
        or not p1.strip()
        or not p2.strip()
        or len({identity_key(p0), identity_key(p1), identity_key(p2)}) != 3
        or len(p0) > MAX_NICK
        or len(p1) > MAX_NICK
        or len(p2) > MAX_NICK
    ):
        raise _Slow
    if not (is_clean(p0) and is_clean(p1) and is_clean(p2)):
        raise _Slow  # the careful reader names the character, or normalises the document to NFC
    players = (p0, p1, p2)
    seats = {p0: 0, p1: 1, p2: 2}
    if "talon" in seats:
        raise _Slow  # the deal's keys would be ambiguous
    status = _STATUS_OF[doc["status"]]
    raw_start = doc["started_at"]
    started_at = parse_time(raw_start)
    raw_end = doc.get("ended_at")
    ended_at = None if raw_end is None else parse_time(raw_end)
    if status is GameStatus.IN_PROGRESS:
        if ended_at is not None:
            raise _Slow
    elif ended_at is None and "ended_at" not in doc:
        raise _Slow
    if ended_at is not None and ended_at < started_at:
        raise _Slow
    abandoned = doc.get("abandoned_by", _NO_LIST)
    if type(abandoned) is not list:
        raise _Slow
    for nick in abandoned:
        if type(nick) is not str or nick not in seats:
            raise _Slow
    hands_raw = doc["hands"]
    if type(hands_raw) is not list:
        raise _Slow
    hands = tuple([_fast_hand(raw, index, players, seats, canonical) for index, raw in enumerate(hands_raw, start=1)])
    if canonical[0] and not (
        "format" in doc
        and "abandoned_by" in doc
        and len(doc) == (11 if ended_at is None else 12)
        and _is_canonical_time(raw_start, started_at)
        and (ended_at is None or raw_end == format_time(ended_at))
    ):
        canonical[0] = False
    return Game(number, rated, ai, size, refe_limit, players, status, started_at, ended_at, tuple(abandoned), hands)


def _fast_hand(
    raw: object, index: int, players: tuple[str, str, str], seats: dict[str, int], canonical: list[bool]
) -> Hand:
    if type(raw) is not dict:
        raise _Slow
    n = raw["n"]
    if type(n) is not int or n != index:
        raise _Slow
    dealer = seats[raw["dealer"]]
    deal = raw["deal"]
    if type(deal) is not dict or len(deal) != 4:
        raise _Slow
    cards = (
        _fast_cards(deal[players[0]], canonical),
        _fast_cards(deal[players[1]], canonical),
        _fast_cards(deal[players[2]], canonical),
    )
    talon = _fast_cards(deal["talon"], canonical)
    bids_raw = raw["bids"]
    if type(bids_raw) is not list:
        raise _Slow
    bids = tuple([_BID_OF[seats[bid["player"]], bid["call"]] for bid in bids_raw])
    keys = 4  # the keys game_to_doc writes for this hand: n, dealer, deal, bids and those below
    raw_declarer = raw.get("declarer")
    declarer = None
    if raw_declarer is not None:
        declarer = seats[raw_declarer]
        keys += 1
    raw_contract = raw.get("contract")
    contract = None
    if raw_contract is not None:
        if type(raw_contract) is not dict:
            raise _Slow
        igra = raw_contract.get("igra", False)
        if type(igra) is not bool:
            raise _Slow
        contract = _CONTRACT_OF[raw_contract["strain"], igra]
        keys += 1
        if len(raw_contract) != 2 or "igra" not in raw_contract:
            canonical[0] = False
    discards = _fast_cards(raw["discards"], canonical) if "discards" in raw else ()
    raw_defense = raw.get("defense", _NO_DICT)
    if type(raw_defense) is not dict:
        raise _Slow
    defense = {seats[nick]: _DECISION_OF[value] for nick, value in raw_defense.items()}
    raw_kontra = raw.get("kontra", _NO_LIST)
    raw_tricks = raw.get("tricks", _NO_LIST)
    if type(raw_kontra) is not list or type(raw_tricks) is not list:
        raise _Slow
    kontra = tuple([seats[giver] for giver in raw_kontra])
    try:
        tricks = tuple([tuple(map(_canonical_card_of, trick)) for trick in raw_tricks if type(trick) is list])
    except KeyError:
        canonical[0] = False
        tricks = tuple([tuple(map(_card_of, trick)) for trick in raw_tricks if type(trick) is list])
    if len(tricks) != len(raw_tricks):
        raise _Slow
    raw_score = raw.get("score")
    score = None
    if raw_score is not None:
        reader = _Reader()
        score = _score(reader, raw_score, players, NOWHERE)
        if reader.problems:
            raise _Slow
        keys += 1
        if canonical[0] and any(len(entry) != 3 or not _SCORE_KEYS.issuperset(entry) for entry in raw_score.values()):
            canonical[0] = False
    raw_end = raw.get("ended_at")
    ended_at = None if raw_end is None else parse_time(raw_end)
    if canonical[0]:
        keys += (discards != ()) + (defense != {}) + (kontra != ()) + (tricks != ())
        if ended_at is not None:
            keys += 1
            if raw_end != format_time(ended_at):
                canonical[0] = False
        if len(raw) != keys or any(len(bid) != 2 for bid in bids_raw):
            canonical[0] = False
    return Hand(n, dealer, cards, talon, bids, declarer, contract, discards, defense, kontra, tricks, score, ended_at)


def extends(old: Game, new: Game) -> bool:
    """Whether `new` only continues `old`: the same game (number, players, settings, start), `old` not finished,
    and every hand `old` had completed unchanged in `new` — a live feed growing a game in progress or an
    interrupted game taken up again. Such a log may replace the stored one even after a referee was called."""
    if (old.number, old.rated, old.ai, old.bule, old.refe_limit, old.players, old.started_at) != (
        new.number,
        new.rated,
        new.ai,
        new.bule,
        new.refe_limit,
        new.players,
        new.started_at,
    ):
        return False
    if old.status is GameStatus.FINISHED:
        return False
    completed = [hand for hand in old.hands if hand.completed]
    return len(new.hands) >= len(completed) and all(new.hands[i] == hand for i, hand in enumerate(completed))


def game_to_doc(game: Game) -> dict[str, Any]:
    """The canonical JSON value of a game (what `parse_game` reads back to an equal game)."""
    names = game.players
    doc: dict[str, Any] = {
        "format": FORMAT,
        "game": game.number,
        "rated": game.rated,
        "ai": game.ai,
        "bule": game.bule,
        "refe_limit": game.refe_limit,
        "players": list(names),
        "status": game.status.value,
        "started_at": format_time(game.started_at),
    }
    if game.ended_at is not None:
        doc["ended_at"] = format_time(game.ended_at)
    doc["abandoned_by"] = list(game.abandoned_by)
    doc["hands"] = [_hand_to_doc(hand, names) for hand in game.hands]
    return doc


_CARD_TEXT: tuple[str, ...] = tuple(str(Card.from_index(i)) for i in range(32))  # by suit * 8 + rank


def _hand_to_doc(hand: Hand, names: tuple[str, str, str]) -> dict[str, Any]:
    text = _CARD_TEXT
    out: dict[str, Any] = {
        "n": hand.n,
        "dealer": names[hand.dealer],
        "deal": {
            names[0]: [text[c.suit * 8 + c.rank] for c in hand.deal[0]],
            names[1]: [text[c.suit * 8 + c.rank] for c in hand.deal[1]],
            names[2]: [text[c.suit * 8 + c.rank] for c in hand.deal[2]],
            "talon": [text[c.suit * 8 + c.rank] for c in hand.talon],
        },
        "bids": [{"player": names[b.seat], "call": b.call} for b in hand.bids],
    }
    if hand.declarer is not None:
        out["declarer"] = names[hand.declarer]
    if hand.contract is not None:
        out["contract"] = {"strain": hand.contract.strain.serbian, "igra": hand.contract.igra}
    if hand.discards:
        out["discards"] = [text[c.suit * 8 + c.rank] for c in hand.discards]
    if hand.defense:
        out["defense"] = {names[s]: d.value for s, d in sorted(hand.defense.items())}
    if hand.kontra:
        out["kontra"] = [names[s] for s in hand.kontra]
    if hand.tricks:
        out["tricks"] = [[text[c.suit * 8 + c.rank] for c in trick] for trick in hand.tricks]
    if hand.score is not None:
        out["score"] = {
            names[s]: {"bule": e.bule, "supe_left": e.supe_left, "supe_right": e.supe_right}
            for s, e in sorted(hand.score.items())
        }
    if hand.ended_at is not None:
        out["ended_at"] = format_time(hand.ended_at)
    return out
