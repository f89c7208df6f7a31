"""A problem found in a game log, as a value: what is wrong (a `Key`), its typed values, and where it is (`Place`).

The readers and checks of `rules` (`rules.logfile`, `rules.gamelog`, `rules.validation`, `rules.auction`,
`rules.play`, `rules.live_hand`) decide what is wrong and where; they word nothing. A problem's key is a catalogue
entry (``log.*``), its values are numbers, texts shown as the log has them (nicknames, cards like ``Q♠``, field
names, a cut-down repr of a JSON value, a time as written in the log) and `rules.phrases.Phrase`s — a word the
reader's language gives (a suit, a contract, a call, a kind of JSON value: a key of its own with its values). The
edge writes a problem in its reader's language (`bot.i18n.problems`, whose values `bot.i18n.phrases` writes as it
writes every phrase); `str` of a problem is its key and values, for a log.

`Place` orders problems as an import lists them: those about the whole file first, then by line or item number,
each keeping the order it was found in (`place_order`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import StrEnum

from rules.phrases import Phrase, Value


@dataclass(frozen=True, slots=True)
class Place:
    """Where a problem is: in the file (a line and column of its text, an item of an array, or the file as a
    whole), then in the game (its number, or ``game_unknown`` when it cannot be read), the hand, the bid, the
    trick. Every part is optional; numbers count from 1."""

    line: int | None = None
    column: int | None = None
    item: int | None = None
    whole_file: bool = False
    game: int | None = None
    game_unknown: bool = False
    hand: int | None = None
    bid: int | None = None
    trick: int | None = None

    def within(self, outer: Place) -> Place:
        """This place with every part it leaves open taken from `outer` (a document's place in its file)."""
        changes = {
            f.name: getattr(outer, f.name)
            for f in fields(Place)
            if getattr(self, f.name) in (None, False) and getattr(outer, f.name) not in (None, False)
        }
        return replace(self, **changes) if changes else self

    def __str__(self) -> str:
        parts = [
            f"{f.name} {getattr(self, f.name)}" for f in fields(Place) if getattr(self, f.name) not in (None, False)
        ]
        return ", ".join(part.removesuffix(" True") for part in parts)


NOWHERE = Place()


class Key(StrEnum):
    """Every problem the game-log readers and checks report: the catalogue's ``log.*`` entries."""

    # the file (rules.logfile, bot.importer)
    NOT_GZIP = "log.file.not_gzip"
    FILE_TOO_BIG = "log.file.too_big"
    GZIP_TOO_BIG = "log.file.gzip_too_big"
    GZIP_DAMAGED = "log.file.gzip_damaged"
    GZIP_CUT = "log.file.gzip_cut"
    GZIP_TRAILING = "log.file.gzip_trailing"
    EMPTY = "log.file.empty"
    ARRAY_TOO_BIG = "log.file.array_too_big"
    DOCUMENT_TOO_BIG = "log.file.document_too_big"
    LINE_TOO_LONG = "log.file.line_too_long"
    NOT_UTF8 = "log.file.not_utf8"
    NOT_ARRAY = "log.file.not_array"
    ARRAY_EMPTY = "log.file.array_empty"
    KEY_TWICE = "log.json.key_twice"
    FORBIDDEN_CHARACTER = "log.json.character"
    TOO_DEEP = "log.json.too_deep"
    NUMBER_TOO_LONG = "log.json.number_too_long"
    CUT_SHORT = "log.json.cut_short"
    EXTRA_AFTER_VALUE = "log.json.extra_after_value"
    EXTRA_AFTER_GAME = "log.json.extra_after_game"
    NOT_JSON = "log.json.invalid"
    CANNOT_READ_FILE = "log.file.cannot_read"
    UNEXPECTED = "log.game.unexpected"
    GAME_TWICE = "log.game.twice"
    PLAYER_SCRIPT = "log.game.player_script"
    STORED_KEPT = "log.game.stored_kept"
    NICK_IMITATED = "log.game.nick_imitated"
    # the game's fields (rules.gamelog)
    GAME_NOT_OBJECT = "log.game.not_object"
    NESTED_TOO_DEEP = "log.game.nested"
    FORMAT = "log.game.format"
    FIELD_MISSING = "log.field.missing"
    FIELD_TYPE = "log.field.type"
    GAME_NOT_POSITIVE = "log.game.not_positive"
    GAME_TOO_BIG = "log.game.too_big"
    BULE_RANGE = "log.game.bule"
    REFE_LIMIT_RANGE = "log.game.refe_limit"
    STATUS = "log.game.status"
    IN_PROGRESS_ENDED = "log.game.in_progress_ended"
    NEEDS_END = "log.game.needs_end"
    ENDS_BEFORE_START = "log.game.ends_before_start"
    ABANDONED_NOT_PLAYER = "log.game.abandoned_not_player"
    PLAYERS_THREE = "log.game.players_three"
    PLAYER_NICK = "log.game.player_nick"
    PLAYERS_SAME = "log.game.players_same"
    TIME_NOT_TEXT = "log.time.not_text"
    TIME_BAD = "log.time.bad"
    TIME_NO_ZONE = "log.time.no_zone"
    TIME_RANGE = "log.time.range"
    NOT_PLAYER = "log.field.not_player"
    CARDS_NOT_LIST = "log.cards.not_list"
    CARD_NOT_TEXT = "log.cards.not_text"
    NOT_A_CARD = "log.cards.not_a_card"
    HAND_NOT_OBJECT = "log.hand.not_object"
    HAND_NUMBER = "log.hand.number"
    DEAL_EXTRA = "log.hand.deal_extra"
    BID_NOT_OBJECT = "log.hand.bid_not_object"
    CALL_UNKNOWN = "log.hand.call_unknown"
    CONTRACT_NOT_OBJECT = "log.hand.contract_not_object"
    CONTRACT_IGRA = "log.hand.contract_igra"
    CONTRACT_STRAIN = "log.hand.contract_strain"
    DEFENSE_NOT_OBJECT = "log.hand.defense_not_object"
    DEFENSE_VALUE = "log.hand.defense_value"
    KONTRA_NOT_LIST = "log.hand.kontra_not_list"
    TRICKS_NOT_LIST = "log.hand.tricks_not_list"
    SCORE_NOT_OBJECT = "log.score.not_object"
    SCORE_ENTRY = "log.score.entry"
    SCORE_TYPE = "log.score.type"
    SCORE_RANGE = "log.score.range"
    # the game's legality (rules.validation)
    GAME_ENDS_EARLY = "log.game.ends_early"
    IN_PROGRESS_HAS_END = "log.game.in_progress_end"
    NEEDS_END_TIME = "log.game.needs_end_time"
    ABANDONED_NOT_INTERRUPTED = "log.game.abandoned_not_interrupted"
    ABANDONED_TWICE = "log.game.abandoned_twice"
    NO_HANDS = "log.game.no_hands"
    GAME_FINISHED = "log.game.finished"
    HAND_NUMBERED = "log.hand.numbered"
    DEALER_TURN = "log.hand.dealer_turn"
    HAND_NO_END = "log.hand.no_end"
    HAND_NO_END_FINISHED = "log.hand.no_end_finished"
    HAND_BEFORE_GAME = "log.hand.before_game"
    HAND_BEFORE_PREVIOUS = "log.hand.before_previous"
    HAND_AFTER_GAME = "log.hand.after_game"
    TALON_SIZE = "log.deal.talon_size"
    DEALT_SIZE = "log.deal.dealt_size"
    DEAL_TWICE = "log.deal.twice"
    DEAL_MISSING = "log.deal.missing"
    AUCTION_UNFINISHED = "log.auction.unfinished"
    AUCTION_NOT_OVER = "log.auction.not_over"
    ALL_PASS_RECORDS = "log.auction.all_pass_records"
    NO_DECLARER = "log.declarer.none"
    WRONG_DECLARER = "log.declarer.wrong"
    NO_CONTRACT = "log.contract.none"
    IGRA_DISCARDS = "log.discards.igra"
    NO_DISCARDS = "log.discards.none"
    DISCARD_COUNT = "log.discards.count"
    DISCARD_NOT_HELD = "log.discards.not_held"
    DECLARER_DEFENSE = "log.defense.declarer"
    BETL_FOLLOW = "log.defense.betl"
    DEFENSE_ORDER = "log.defense.order"
    DEFENSE_MISSING = "log.defense.missing"
    ZOVEM = "log.defense.zovem"
    KONTRA_LONG = "log.kontra.long"
    KONTRA_NOT_DECLARER = "log.kontra.not_declarer"
    KONTRA_BY_DECLARER = "log.kontra.by_declarer"
    KONTRA_NOT_PLAYING = "log.kontra.not_playing"
    TRICKS_EARLY = "log.play.early"
    TRICKS_NOBODY_FOLLOWS = "log.play.nobody_follows"
    TRICKS_PIK = "log.play.pik"
    NO_TRICKS = "log.play.none"
    TRICK_SIZE = "log.play.trick_size"
    FOLLOW_SUIT = "log.play.follow_suit"
    PLAY_TRUMP = "log.play.trump"
    STOPS_DECIDED = "log.play.stops_decided"
    STOPS_UNDECIDED = "log.play.stops_undecided"
    LEADS_OUT_OF_TURN = "log.play.leads"
    NOT_YOUR_CARD = "log.play.not_yours"
    PLAYS_DISCARD = "log.play.discarded"
    PLAYS_TALON = "log.play.talon"
    PLAYS_AGAIN = "log.play.again"
    SEAT_NOBODY_HOLDS = "log.play.seat_nobody_holds"
    SEAT_NOT_HELD = "log.play.seat_not_held"
    SEAT_FOLLOW_SUIT = "log.play.seat_follow_suit"
    SEAT_TRUMP = "log.play.seat_trump"
    # the auction (rules.auction)
    BID_AFTER_END = "log.bid.after_end"
    AUCTION_OVER_BEFORE = "log.bid.over_before"
    BID_OUT_OF_TURN = "log.bid.out_of_turn"
    BID_OUT_AFTER_DALJE = "log.bid.out_after_dalje"
    BID_AFTER_IGRA = "log.bid.after_igra"
    IGRA_NOT_FIRST = "log.bid.igra_not_first"
    MOGU_NOTHING = "log.bid.mogu_nothing"
    MOGU_HOLDS = "log.bid.mogu_holds"
    MOGU_NO_PRIORITY = "log.bid.mogu_priority"
    BID_NOT_HIGHER = "log.bid.not_higher"
    NOT_A_CALL = "log.bid.not_a_call"
    CONTRACT_NO_AUCTION = "log.contract.no_auction"
    CONTRACT_MUST_BE_IGRA = "log.contract.must_be_igra"
    CONTRACT_CANNOT_BE_IGRA = "log.contract.cannot_be_igra"
    CONTRACT_BELOW_IGRA = "log.contract.below_igra"
    CONTRACT_BELOW_BID = "log.contract.below_bid"
    # the hand in progress (rules.live_hand)
    LIVE_HAND = "log.live.hand"
    LIVE_TALON_SEEN = "log.live.talon_seen"
    LIVE_NUMBER = "log.live.number"
    LIVE_TRICK_SHAPE = "log.live.trick_shape"
    LIVE_NO_TRICK = "log.live.no_trick"
    LIVE_NOT_HELD = "log.live.not_held"


class Word(StrEnum):
    """The words a problem names as `Phrase`s that are the problems' own (``log.word.*``); the others are the
    catalogue's terms (``term.*``, ``paper.*``, ``nick.why.*``)."""

    WHOLE_NUMBER = "log.word.whole_number"
    TRUE_FALSE = "log.word.true_false"
    TEXT = "log.word.text"
    LIST = "log.word.list"
    OBJECT = "log.word.object"
    OTHER_TYPE = "log.word.other_type"
    FINISHED = "log.word.finished"
    INTERRUPTED = "log.word.interrupted"
    IN_PROGRESS = "log.word.in_progress"
    DEALER = "log.word.dealer"
    BID_PLAYER = "log.word.bid_player"
    DECLARER = "log.word.declarer"
    DEFENSE = "log.word.defense"
    KONTRA = "log.word.kontra"
    SCORE = "log.word.score"
    DEAL_OF = "log.word.deal_of"
    TALON = "log.word.talon"
    DISCARDS = "log.word.discards"
    TRICK = "log.word.trick"
    CURRENT_TRICK = "log.word.current_trick"
    DEAL_FIELD = "log.word.deal_field"
    REC_DECLARER = "log.word.rec_declarer"
    REC_CONTRACT = "log.word.rec_contract"
    REC_DISCARDS = "log.word.rec_discards"
    REC_DEFENSE = "log.word.rec_defense"
    REC_KONTRA = "log.word.rec_kontra"
    REC_TRICKS = "log.word.rec_tricks"
    FIRST_TRICK = "log.word.first_trick"
    WON_TRICK = "log.word.won_trick"
    SANS_LEAD = "log.word.sans_lead"
    BETL_TRICK = "log.word.betl_trick"
    FIFTH_TRICK = "log.word.fifth_trick"
    CALL_NUMBER = "log.word.call_number"
    ALSO_CALLS = "log.word.also_calls"
    FOLLOWS_ANYWAY = "log.word.follows_anyway"
    JSON_EXPECTING_VALUE = "log.word.json_value"
    JSON_EXPECTING_COMMA = "log.word.json_comma"
    JSON_EXPECTING_COLON = "log.word.json_colon"
    JSON_EXPECTING_NAME = "log.word.json_name"
    JSON_UNTERMINATED = "log.word.json_unterminated"
    JSON_CONTROL = "log.word.json_control"
    JSON_ESCAPE = "log.word.json_escape"
    JSON_OTHER = "log.word.json_other"
    START_OF_FILE = "log.game.start_of_file"
    TWO = "log.word.two"
    LONG_NUMBER = "log.word.long_number"
    NUL = "log.word.nul"
    LINE_SEPARATOR = "log.word.line_separator"
    PARAGRAPH_SEPARATOR = "log.word.paragraph_separator"
    REFEREE_CALLED = "log.word.referee_called"
    JUDGED = "log.word.judged"
    PAPER_CHANGED = "log.word.paper_changed"


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong (`key`, with its `values`) and where (`place`)."""

    key: Key
    values: tuple[tuple[str, Value], ...] = ()
    place: Place = NOWHERE

    @classmethod
    def of(cls, key: Key, place: Place = NOWHERE, /, **values: Value) -> Problem:
        return cls(key, tuple(values.items()), place)

    @property
    def params(self) -> dict[str, Value]:
        return dict(self.values)

    def within(self, outer: Place) -> Problem:
        """The problem placed in `outer` too (a document's line or item in its file)."""
        place = self.place.within(outer)
        return self if place == self.place else replace(self, place=place)

    def __str__(self) -> str:
        where = str(self.place)
        return (f"{where}: " if where else "") + str(Phrase(self.key, self.values))


def place_order(problem: Problem) -> tuple[int, int]:
    """A sort key for problems (a stable sort keeps the order they were found in): those about the whole file first,
    then by line or item number."""
    place = problem.place
    number = place.line if place.line is not None else place.item
    return (0, 0) if number is None else (1, number)


class Problems(ValueError):
    """An error that carries problems (`problems`); its text is theirs as keys and values, for a log."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...], separator: str = "\n") -> None:
        super().__init__(separator.join(map(str, problems)))
        self.problems = list(problems)
