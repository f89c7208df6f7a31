"""Legality of a game log: is this a preferans game that could have been played under the club's rules?

`validate_game` returns every problem found in a parsed `Game` (an empty list for a legal game); each problem
(`rules.problems.Problem`) names the game, the hand, the trick or bid where it applies and what is wrong, with the
players' nicknames; the edge words it in its reader's language. `check_game` reads a JSON value with
`rules.gamelog.parse_game` and validates it, raising `LogError` with all problems. The rules checked are those of
``docs/game-log.md`` (format v1): the deal, dealer rotation, the auction (`rules.auction`), the declarer and
contract, the discards, the defenders' decisions, the kontra chain, whether the hand is played, the card play (the
rules of `rules.play`, re-done here on bitmasks because an import validates hundreds of thousands of hands), times
and the game's status.

Speed matters (an import validates every hand; what one costs: docs/game-log.md, "For developers"), so the common
path works on int masks and builds no objects per card; the slow, friendly look is taken only for problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from rules.auction import Auction
from rules.cards import Card, cards_of
from rules.gamelog import Decision, Game, GameStatus, Hand, LogError, Strain, format_time, parse_game, status_word
from rules.phrases import Phrase, Value
from rules.problems import Key, Place, Problem, Word

_FOLLOWS = Decision.FOLLOWS
_PASSES = Decision.PASSES
_CALLS = Decision.CALLS
_PLAYING = (Decision.FOLLOWS, Decision.CALLS)
_KONTRA_NAMES = tuple(Phrase(f"paper.{word}") for word in ("kontra", "rekontra", "subkontra", "mortkontra"))
_SUIT_NAMES = tuple(Phrase(f"term.{word}") for word in ("pik", "herc", "karo", "tref"))
_SYMBOLS = ("♠", "♥", "♦", "♣")
_NEXT = (1, 2, 0)


def check_game(doc: object) -> Game:
    """Parse one game document and validate it; raise `LogError` listing every problem."""
    game = parse_game(doc)
    problems = validate_game(game)
    if problems:
        raise LogError(problems)
    return game


class _Found(list[Problem]):
    """The problems found so far."""

    def add(self, where: Place, key: Key, /, **values: Value) -> None:
        self.append(Problem.of(key, where, **values))


def validate_game(game: Game) -> list[Problem]:
    """Every legality problem of `game`; empty when the game is legal."""
    label = Place(game=game.number)
    names = game.players
    problems = _Found()
    status = game.status
    if status is GameStatus.IN_PROGRESS:
        if game.ended_at is not None:
            problems.add(label, Key.IN_PROGRESS_HAS_END)
    elif game.ended_at is None:
        problems.add(label, Key.NEEDS_END_TIME, status=status_word(status))
    if game.ended_at is not None and game.ended_at < game.started_at:
        problems.add(label, Key.GAME_ENDS_EARLY, end=format_time(game.ended_at), start=format_time(game.started_at))
    if game.abandoned_by and status is not GameStatus.INTERRUPTED:
        problems.add(
            label, Key.ABANDONED_NOT_INTERRUPTED, names=", ".join(game.abandoned_by), status=status_word(status)
        )
    seen: set[str] = set()
    for nick in game.abandoned_by:
        if nick in seen:
            problems.add(label, Key.ABANDONED_TWICE, nick=nick)
        seen.add(nick)
    if status is GameStatus.FINISHED and not game.hands:
        problems.add(label, Key.NO_HANDS)

    may_be_open = status is not GameStatus.FINISHED
    last_index = len(game.hands) - 1
    previous_end: datetime = game.started_at
    previous_dealer: int | None = None
    for index, hand in enumerate(game.hands):
        where = replace(label, hand=index + 1)
        if hand.n != index + 1:
            problems.add(where, Key.HAND_NUMBERED, number=hand.n)
        if previous_dealer is not None and hand.dealer != (previous_dealer + 1) % 3:
            expected = names[(previous_dealer + 1) % 3]
            problems.add(
                where, Key.DEALER_TURN, dealer=names[hand.dealer], expected=expected, previous=names[previous_dealer]
            )
        previous_dealer = hand.dealer
        ended = hand.ended_at
        if ended is None:
            if index != last_index:
                problems.add(where, Key.HAND_NO_END)
            elif not may_be_open:
                problems.add(where, Key.HAND_NO_END_FINISHED)
        else:
            if ended < game.started_at:
                problems.add(where, Key.HAND_BEFORE_GAME, end=format_time(ended), start=format_time(game.started_at))
            elif ended < previous_end:
                problems.add(
                    where, Key.HAND_BEFORE_PREVIOUS, end=format_time(ended), previous=format_time(previous_end)
                )
            else:
                previous_end = ended
            if game.ended_at is not None and ended > game.ended_at:
                problems.add(where, Key.HAND_AFTER_GAME, end=format_time(ended), game_end=format_time(game.ended_at))
        _check_hand(hand, names, where, ended is not None, problems)
    return problems


def validate_hand(hand: Hand, players: Sequence[str], *, where: Place | None = None) -> list[Problem]:
    """The problems of one hand on its own (no rotation or time checks against other hands).

    A hand without ``ended_at`` is checked as unfinished: what it records must be a legal beginning of a hand.
    """
    problems = _Found()
    _check_hand(hand, players, where or Place(hand=hand.n), hand.ended_at is not None, problems)
    return problems


def _names_of(mask: int) -> str:
    return ", ".join(card.display() for card in cards_of(mask))


def _shown(cards: Sequence[Card]) -> str:
    return " ".join(c.display() for c in cards)


def _check_hand(hand: Hand, names: Sequence[str], where: Place, complete: bool, problems: _Found) -> None:
    # --- the deal: 32 distinct cards, 10/10/10/2 -------------------------------------------------------------
    deal_ok = True
    groups = (hand.deal[0], hand.deal[1], hand.deal[2], hand.talon)
    # Fast path: 32 cards whose bits add up to all 32 bits are 32 different cards (any repeat would carry).
    masks = [sum([1 << (c.suit * 8 + c.rank) for c in group]) for group in groups]
    if (
        masks[0] + masks[1] + masks[2] + masks[3] != 0xFFFFFFFF
        or len(groups[0]) != 10
        or len(groups[1]) != 10
        or len(groups[2]) != 10
        or len(groups[3]) != 2
    ):
        deal_ok = _check_deal(groups, names, where, masks, problems)

    # --- the auction -----------------------------------------------------------------------------------------
    auction = Auction(hand.dealer)
    auction_ok = True
    for number, bid in enumerate(hand.bids, start=1):
        seat = bid.seat
        call = bid.call
        if not auction.is_legal(seat, call):
            problem = auction.problem(seat, call, names)
            assert problem is not None
            problems.append(problem.within(replace(where, bid=number)))
            auction_ok = False
            break
        auction._apply(seat, call)

    declarer = hand.declarer
    contract = hand.contract
    defense = hand.defense
    kontra = hand.kontra
    tricks = hand.tricks
    discards = hand.discards
    if auction_ok and not auction.over:
        if complete:
            turn = auction.turn
            assert turn is not None
            problems.add(where, Key.AUCTION_UNFINISHED, turn=names[turn])
        later = _recorded(hand)
        if later:
            problems.add(where, Key.AUCTION_NOT_OVER, recorded=later)
        return
    if auction_ok and auction.declarer is None:
        later = _recorded(hand)
        if later:
            problems.add(where, Key.ALL_PASS_RECORDS, recorded=later)
        return
    if auction_ok:
        won = auction.declarer
        assert won is not None
        if declarer is None:
            if complete or contract is not None or discards or defense or kontra or tricks:
                problems.add(where, Key.NO_DECLARER, won=names[won])
                return
            return
        if declarer != won:
            problems.add(where, Key.WRONG_DECLARER, declarer=names[declarer], won=names[won])
            return
    elif declarer is None:
        return  # the auction is broken and there is nothing else to check against it
    igra = auction.igra if auction_ok else (contract is not None and contract.igra)

    # --- the contract ----------------------------------------------------------------------------------------
    dname = names[declarer]
    if contract is None:
        if complete or defense or kontra or tricks:
            problems.add(where, Key.NO_CONTRACT, declarer=dname)
            return
    elif auction_ok:
        why = auction.contract_problem(contract)
        if why is not None:
            problems.append(why.within(where))

    # --- the discards ----------------------------------------------------------------------------------------
    discard_mask = 0
    if igra:
        if discards:
            problems.add(where, Key.IGRA_DISCARDS, declarer=dname, cards=_shown(discards))
            deal_ok = False
    elif not discards:
        if complete or defense or kontra or tricks:
            problems.add(where, Key.NO_DISCARDS, declarer=dname)
            deal_ok = False
    else:
        twelve = masks[declarer] | masks[3]
        for card in discards:
            discard_mask |= 1 << (card.suit * 8 + card.rank)
        if len(discards) != 2 or discard_mask.bit_count() != 2:
            problems.add(where, Key.DISCARD_COUNT, declarer=dname, count=len(discards), cards=_shown(discards))
            deal_ok = False
        if deal_ok and discard_mask & ~twelve:
            problems.add(where, Key.DISCARD_NOT_HELD, declarer=dname, cards=_names_of(discard_mask & ~twelve))
            deal_ok = False

    # --- the defense -----------------------------------------------------------------------------------------
    d1 = (declarer + 1) % 3
    d2 = (declarer + 2) % 3
    dec1 = defense.get(d1)
    dec2 = defense.get(d2)
    betl = contract is not None and contract.strain is Strain.BETL
    if declarer in defense:
        problems.add(where, Key.DECLARER_DEFENSE, declarer=dname)
    if betl:
        for s, d in ((d1, dec1), (d2, dec2)):
            if d is not None and d is not _FOLLOWS:
                problems.add(where, Key.BETL_FOLLOW, player=names[s], value=d.value)
    if dec1 is None or dec2 is None:
        if dec2 is not None:
            problems.add(where, Key.DEFENSE_ORDER, second=names[d2], first=names[d1])
        elif complete or kontra or tricks:
            first, *second = [names[s] for s, d in ((d1, dec1), (d2, dec2)) if d is None]
            missing: Value = Phrase.of(Word.TWO, first=first, second=second[0]) if second else first
            problems.add(where, Key.DEFENSE_MISSING, players=missing)
            return
    elif betl:
        pass  # checked above
    elif (dec1 is _CALLS and dec2 is not _PASSES) or (dec2 is _CALLS and dec1 is not _PASSES):
        caller, other, odec = (d1, d2, dec2) if dec1 is _CALLS else (d2, d1, dec1)
        did = Phrase.of(Word.ALSO_CALLS if odec is _CALLS else Word.FOLLOWS_ANYWAY, player=names[other])
        problems.add(where, Key.ZOVEM, caller=names[caller], other=did)

    # --- the kontra chain ------------------------------------------------------------------------------------
    if kontra:
        if len(kontra) > 4:
            problems.add(where, Key.KONTRA_LONG, count=len(kontra))
        for step, giver in enumerate(kontra[:4]):
            word = _KONTRA_NAMES[step]
            if step % 2:
                if giver != declarer:
                    problems.add(where, Key.KONTRA_NOT_DECLARER, player=names[giver], word=word, declarer=dname)
            elif giver == declarer:
                problems.add(where, Key.KONTRA_BY_DECLARER, declarer=dname, word=word)
            elif defense.get(giver) not in _PLAYING:
                problems.add(where, Key.KONTRA_NOT_PLAYING, player=names[giver], word=word)

    # --- is the hand played? ---------------------------------------------------------------------------------
    if contract is None or dec1 is None or dec2 is None:
        if tricks:
            problems.add(where, Key.TRICKS_EARLY)
        return
    if dec1 is _PASSES and dec2 is _PASSES:
        if tricks:
            problems.add(where, Key.TRICKS_NOBODY_FOLLOWS, declarer=dname, contract=contract.phrase)
        return
    if contract.strain is Strain.PIK and not contract.igra and not kontra:
        if tricks:
            problems.add(where, Key.TRICKS_PIK)
        return
    if not tricks:
        if complete:
            problems.add(where, Key.NO_TRICKS, declarer=dname, contract=contract.phrase)
        return
    if deal_ok:
        _check_play(hand, names, where, complete, masks, discard_mask, igra, problems)


def _check_deal(
    groups: Sequence[Sequence[Card]], names: Sequence[str], where: Place, masks: list[int], problems: _Found
) -> bool:
    """The slow look at a deal that is not 32 different cards dealt 10/10/10/2; fills `masks` with real masks."""
    ok = True
    seen = 0
    dup = 0
    for g in range(4):
        m = 0
        for card in groups[g]:
            bit = 1 << (card.suit * 8 + card.rank)
            if seen & bit:
                dup |= bit
            seen |= bit
            m |= bit
        masks[g] = m
        size = len(groups[g])
        if size != (2 if g == 3 else 10):
            ok = False
            if g == 3:
                problems.add(where, Key.TALON_SIZE, count=size)
            else:
                problems.add(where, Key.DEALT_SIZE, player=names[g], count=size)
    if dup:
        ok = False
        problems.add(where, Key.DEAL_TWICE, cards=_names_of(dup))
    if ok and seen != 0xFFFFFFFF:
        ok = False
        problems.add(where, Key.DEAL_MISSING, cards=_names_of(~seen & 0xFFFFFFFF))
    return ok


def _recorded(hand: Hand) -> tuple[Phrase, ...]:
    """What a hand records beyond its auction, for a problem; empty when nothing."""
    parts = []
    if hand.declarer is not None:
        parts.append(Phrase(Word.REC_DECLARER))
    if hand.contract is not None:
        parts.append(Phrase(Word.REC_CONTRACT))
    if hand.discards:
        parts.append(Phrase(Word.REC_DISCARDS))
    if hand.defense:
        parts.append(Phrase(Word.REC_DEFENSE))
    if hand.kontra:
        parts.append(Phrase(Word.REC_KONTRA))
    if hand.tricks:
        parts.append(Phrase(Word.REC_TRICKS))
    return tuple(parts)


def _check_play(
    hand: Hand,
    names: Sequence[str],
    where: Place,
    complete: bool,
    masks: list[int],
    discard_mask: int,
    igra: bool,
    problems: _Found,
) -> None:
    declarer = hand.declarer
    contract = hand.contract
    assert declarer is not None
    assert contract is not None
    strain = contract.strain
    trump = strain.trump
    trump_suit = -1 if trump is None else int(trump)
    trump_mask = 0 if trump is None else 0xFF << (trump_suit * 8)
    hold = [masks[0], masks[1], masks[2]]
    if not igra:
        hold[declarer] = (hold[declarer] | masks[3]) & ~discard_mask
    leader = (declarer + 2) % 3 if strain is Strain.SANS else (hand.dealer + 1) % 3
    betl = strain is Strain.BETL
    tricks = hand.tricks
    last = len(tricks)
    won_by_declarer = 0
    won_by_defence = 0
    stopped_at = 0
    for number, cards in enumerate(tricks, start=1):
        size = len(cards)
        if size != 3:
            problems.add(replace(where, trick=number), Key.TRICK_SIZE, count=size)
            return
        card = cards[0]
        led_suit = card.suit
        best_rank = card.rank
        bit = 1 << (led_suit * 8 + best_rank)
        h = hold[leader]
        if not h & bit:
            problems.append(
                _wrong_hand(card, bit, leader, 0, number, leader, hold, hand, names, discard_mask, igra).within(
                    replace(where, trick=number)
                )
            )
            return
        hold[leader] = h ^ bit
        led_mask = 0xFF << (led_suit * 8)
        best_suit = led_suit
        winner = seat = leader
        for position in (1, 2):
            seat = _NEXT[seat]
            card = cards[position]
            suit = card.suit
            rank = card.rank
            bit = 1 << (suit * 8 + rank)
            h = hold[seat]
            if not h & bit:
                problems.append(
                    _wrong_hand(
                        card, bit, seat, position, number, leader, hold, hand, names, discard_mask, igra
                    ).within(replace(where, trick=number))
                )
                return
            if not bit & led_mask:
                if h & led_mask:
                    problems.add(
                        replace(where, trick=number),
                        Key.FOLLOW_SUIT,
                        player=names[seat],
                        card=card.display(),
                        suit=_SUIT_NAMES[led_suit],
                        symbol=_SYMBOLS[led_suit],
                    )
                    return
                if not bit & trump_mask and h & trump_mask:
                    problems.add(
                        replace(where, trick=number),
                        Key.PLAY_TRUMP,
                        player=names[seat],
                        card=card.display(),
                        led=_SUIT_NAMES[led_suit],
                        trump=_SUIT_NAMES[trump_suit],
                        symbol=_SYMBOLS[trump_suit],
                    )
                    return
            if suit == best_suit:
                if rank > best_rank:
                    best_rank = rank
                    winner = seat
            elif suit == trump_suit:
                best_suit = suit
                best_rank = rank
                winner = seat
            hold[seat] = h ^ bit
        leader = winner
        if not stopped_at:
            if winner == declarer:
                won_by_declarer += 1
                if betl:
                    stopped_at = number
            else:
                won_by_defence += 1
                if won_by_defence == 5 and not betl:
                    stopped_at = number
    if complete and last != 10 and stopped_at != last:
        if stopped_at:
            reason = Phrase.of(Word.BETL_TRICK, declarer=names[declarer]) if betl else Phrase(Word.FIFTH_TRICK)
            problems.add(where, Key.STOPS_DECIDED, last=last, reason=reason, stopped=stopped_at)
        else:
            problems.add(where, Key.STOPS_UNDECIDED, last=last)


def _wrong_hand(
    card: Card,
    bit: int,
    seat: int,
    position: int,
    number: int,
    leader: int,
    hold: list[int],
    hand: Hand,
    names: Sequence[str],
    discard_mask: int,
    igra: bool,
) -> Problem:
    """The problem of a card played by the wrong player, or one nobody holds."""
    owner = next((s for s in range(3) if hold[s] & bit), None)
    shown = card.display()
    if owner is not None:
        if position == 0:
            why = (
                Phrase(Word.FIRST_TRICK)
                if number == 1
                else Phrase.of(Word.WON_TRICK, player=names[leader], trick=number - 1)
            )
            if number == 1 and hand.contract is not None and hand.contract.strain is Strain.SANS:
                why = Phrase(Word.SANS_LEAD)
            return Problem.of(Key.LEADS_OUT_OF_TURN, player=names[owner], card=shown, leader=names[leader], why=why)
        return Problem.of(Key.NOT_YOUR_CARD, card=shown, owner=names[owner], player=names[seat])
    if discard_mask & bit:
        return Problem.of(Key.PLAYS_DISCARD, player=names[seat], card=shown)
    if any(c.suit == card.suit and c.rank == card.rank for c in hand.talon) and igra:
        return Problem.of(Key.PLAYS_TALON, player=names[seat], card=shown)
    return Problem.of(Key.PLAYS_AGAIN, player=names[seat], card=shown)


def validate_next_hand(game: Game, hand: Hand) -> list[Problem]:
    """The problems of `hand` as the next hand of `game` (a live feed appending one hand to a stored, legal game):
    what `validate_game` reports for the game with the hand added, without checking the earlier hands again."""
    label = Place(game=game.number)
    names = game.players
    index = len(game.hands)
    where = replace(label, hand=index + 1)
    problems = _Found()
    if game.status is GameStatus.FINISHED:
        problems.add(label, Key.GAME_FINISHED)
    if hand.n != index + 1:
        problems.add(where, Key.HAND_NUMBERED, number=hand.n)
    previous_end = game.started_at
    if game.hands:
        last = game.hands[-1]
        if hand.dealer != (last.dealer + 1) % 3:
            expected = names[(last.dealer + 1) % 3]
            problems.add(
                where, Key.DEALER_TURN, dealer=names[hand.dealer], expected=expected, previous=names[last.dealer]
            )
        if last.ended_at is None:
            problems.add(replace(label, hand=index), Key.HAND_NO_END)
        ends = [h.ended_at for h in game.hands if h.ended_at is not None]
        if ends:
            previous_end = max(ends)
    ended = hand.ended_at
    if ended is not None:
        if ended < game.started_at:
            problems.add(where, Key.HAND_BEFORE_GAME, end=format_time(ended), start=format_time(game.started_at))
        elif ended < previous_end:
            problems.add(where, Key.HAND_BEFORE_PREVIOUS, end=format_time(ended), previous=format_time(previous_end))
        if game.ended_at is not None and ended > game.ended_at:
            problems.add(where, Key.HAND_AFTER_GAME, end=format_time(ended), game_end=format_time(game.ended_at))
    _check_hand(hand, names, where, ended is not None, problems)
    return problems
