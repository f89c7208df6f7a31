"""Legality of a game log: is this a preferans game that could have been played under the club's rules?

`validate_game` returns every problem found in a parsed `Game` (an empty list for a legal game); each problem
names the game, the hand, the trick or bid where it applies and what is wrong, with the players' nicknames, in
words a club admin understands. `check_game` reads a JSON value with `rules.gamelog.parse_game` and validates
it, raising `LogError` with all problems. The rules checked are those of ``docs/game-log.md`` (format v1): the
deal, dealer rotation, the auction (`rules.auction`), the declarer and contract, the discards, the defenders'
decisions, the kontra chain, whether the hand is played, the card play (the rules of `rules.play`, re-done here
on bitmasks because an import validates hundreds of thousands of hands), times and the game's status.

Speed matters (an import validates every hand; what one costs: docs/game-log.md, "For developers"), so the common
path works on int masks and builds no objects per card; the slow, friendly wording is produced only for problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rules.auction import Auction
from rules.cards import Card, cards_of
from rules.gamelog import Decision, Game, GameStatus, Hand, LogError, Strain, format_time, parse_game

_FOLLOWS = Decision.FOLLOWS
_PASSES = Decision.PASSES
_CALLS = Decision.CALLS
_PLAYING = (Decision.FOLLOWS, Decision.CALLS)
_KONTRA_NAMES = ("kontra", "rekontra", "subkontra", "mortkontra")
_SUIT_NAMES = ("pik ♠", "herc ♥", "karo ♦", "tref ♣")
_NEXT = (1, 2, 0)


def check_game(doc: object) -> Game:
    """Parse one game document and validate it; raise `LogError` listing every problem."""
    game = parse_game(doc)
    problems = validate_game(game)
    if problems:
        raise LogError(problems)
    return game


def validate_game(game: Game) -> list[str]:
    """Every legality problem of `game`, in words for people; empty when the game is legal."""
    label = f"game {game.number}"
    names = game.players
    problems: list[str] = []
    status = game.status
    if status is GameStatus.IN_PROGRESS:
        if game.ended_at is not None:
            problems.append(f"{label}: the game is in progress, so it cannot have an end time ('ended_at')")
    elif game.ended_at is None:
        problems.append(f"{label}: a {status.value} game needs its end time ('ended_at')")
    if game.ended_at is not None and game.ended_at < game.started_at:
        problems.append(
            f"{label}: the game ends ({format_time(game.ended_at)}) before it starts ({format_time(game.started_at)})"
        )
    if game.abandoned_by and status is not GameStatus.INTERRUPTED:
        problems.append(
            f"{label}: 'abandoned_by' names {', '.join(game.abandoned_by)}, but only an interrupted "
            f"game has players who abandoned it; this one is {status.value.replace('_', ' ')}"
        )
    seen: set[str] = set()
    for nick in game.abandoned_by:
        if nick in seen:
            problems.append(f"{label}: {nick} is listed twice in 'abandoned_by'")
        seen.add(nick)
    if status is GameStatus.FINISHED and not game.hands:
        problems.append(f"{label}: a finished game must have at least one hand")

    may_be_open = status is not GameStatus.FINISHED
    last_index = len(game.hands) - 1
    previous_end: datetime = game.started_at
    previous_dealer: int | None = None
    for index, hand in enumerate(game.hands):
        where = f"{label}, hand {index + 1}"
        if hand.n != index + 1:
            problems.append(f"{where}: the hand is numbered {hand.n}; hands are numbered 1, 2, 3 … in order")
        if previous_dealer is not None and hand.dealer != (previous_dealer + 1) % 3:
            expected = names[(previous_dealer + 1) % 3]
            problems.append(
                f"{where}: {names[hand.dealer]} deals, but the deal passes in seat order and it is "
                f"{expected}'s turn to deal (after {names[previous_dealer]})"
            )
        previous_dealer = hand.dealer
        ended = hand.ended_at
        if ended is None:
            if index != last_index:
                problems.append(
                    f"{where}: the hand has no end time ('ended_at'); only the last hand of a game may be unfinished"
                )
            elif not may_be_open:
                problems.append(
                    f"{where}: the hand has no end time ('ended_at'), but the game is finished; only "
                    "a game in progress or interrupted may end with an unfinished hand"
                )
        else:
            if ended < game.started_at:
                problems.append(
                    f"{where}: the hand ends at {format_time(ended)}, before the game started "
                    f"({format_time(game.started_at)})"
                )
            elif ended < previous_end:
                problems.append(
                    f"{where}: the hand ends at {format_time(ended)}, before the previous hand "
                    f"ended ({format_time(previous_end)})"
                )
            else:
                previous_end = ended
            if game.ended_at is not None and ended > game.ended_at:
                problems.append(
                    f"{where}: the hand ends at {format_time(ended)}, after the game ended "
                    f"({format_time(game.ended_at)})"
                )
        _check_hand(hand, names, where, ended is not None, problems)
    return problems


def validate_hand(hand: Hand, players: Sequence[str], *, where: str | None = None) -> list[str]:
    """The problems of one hand on its own (no rotation or time checks against other hands).

    A hand without ``ended_at`` is checked as unfinished: what it records must be a legal beginning of a hand.
    """
    problems: list[str] = []
    _check_hand(hand, players, where or f"hand {hand.n}", hand.ended_at is not None, problems)
    return problems


def _names_of(mask: int) -> str:
    return ", ".join(card.display() for card in cards_of(mask))


def _check_hand(hand: Hand, names: Sequence[str], where: str, complete: bool, problems: list[str]) -> None:
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
            problems.append(f"{where}, bid {number}: {auction.problem(seat, call, names)}")
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
            problems.append(
                f"{where}: the auction is unfinished (it is {names[turn]}'s turn to speak), "
                "but the hand is marked as ended"
            )
        later = _recorded(hand)
        if later:
            problems.append(f"{where}: the auction is not over, yet the hand records {later}")
        return
    if auction_ok and auction.declarer is None:
        later = _recorded(hand)
        if later:
            problems.append(f"{where}: all three said dalje (refe), so there is no play, yet the hand records {later}")
        return
    if auction_ok:
        won = auction.declarer
        assert won is not None
        if declarer is None:
            if complete or contract is not None or discards or defense or kontra or tricks:
                problems.append(f"{where}: {names[won]} won the auction but the hand names no declarer")
                return
            return
        if declarer != won:
            problems.append(f"{where}: the hand names {names[declarer]} as declarer, but {names[won]} won the auction")
            return
    elif declarer is None:
        return  # the auction is broken and there is nothing else to check against it
    igra = auction.igra if auction_ok else (contract is not None and contract.igra)

    # --- the contract ----------------------------------------------------------------------------------------
    dname = names[declarer]
    if contract is None:
        if complete or defense or kontra or tricks:
            problems.append(f"{where}: {dname} is the declarer but the hand names no contract")
            return
    elif auction_ok:
        why = auction.contract_problem(contract)
        if why is not None:
            problems.append(f"{where}: {why}")

    # --- the discards ----------------------------------------------------------------------------------------
    discard_mask = 0
    if igra:
        if discards:
            problems.append(
                f"{where}: {dname} plays igra (without the talon), so nothing is discarded, but the "
                f"hand records discards {' '.join(c.display() for c in discards)}"
            )
            deal_ok = False
    elif not discards:
        if complete or defense or kontra or tricks:
            problems.append(
                f"{where}: {dname} took the talon but the hand records no discards; two cards must be discarded"
            )
            deal_ok = False
    else:
        twelve = masks[declarer] | masks[3]
        for card in discards:
            discard_mask |= 1 << (card.suit * 8 + card.rank)
        if len(discards) != 2 or discard_mask.bit_count() != 2:
            problems.append(
                f"{where}: {dname} discards {len(discards)} cards "
                f"({' '.join(c.display() for c in discards)}); the declarer discards exactly "
                "two different cards"
            )
            deal_ok = False
        if deal_ok and discard_mask & ~twelve:
            problems.append(
                f"{where}: {dname} discards {_names_of(discard_mask & ~twelve)}, which is not among "
                "the declarer's ten cards and the talon"
            )
            deal_ok = False

    # --- the defense -----------------------------------------------------------------------------------------
    d1 = (declarer + 1) % 3
    d2 = (declarer + 2) % 3
    dec1 = defense.get(d1)
    dec2 = defense.get(d2)
    betl = contract is not None and contract.strain is Strain.BETL
    if declarer in defense:
        problems.append(f"{where}: the declarer {dname} cannot have a defense decision")
    if betl:
        for s, d in ((d1, dec1), (d2, dec2)):
            if d is not None and d is not _FOLLOWS:
                problems.append(f"{where}: in betl both defenders play, so {names[s]} must follow, not {d.value}")
    if dec1 is None or dec2 is None:
        if dec2 is not None:
            problems.append(
                f"{where}: {names[d2]}'s defense decision is recorded but {names[d1]}, who decides "
                "first (right after the declarer), has none"
            )
        elif complete or kontra or tricks:
            missing = " and ".join(names[s] for s, d in ((d1, dec1), (d2, dec2)) if d is None)
            problems.append(f"{where}: the defense decision of {missing} is missing (follows, passes or calls)")
            return
    elif betl:
        pass  # checked above
    elif (dec1 is _CALLS and dec2 is not _PASSES) or (dec2 is _CALLS and dec1 is not _PASSES):
        caller, other, odec = (d1, d2, dec2) if dec1 is _CALLS else (d2, d1, dec1)
        problems.append(
            f"{where}: {names[caller]} calls the other defender in (zovem), but {names[other]} "
            f"{'also calls' if odec is _CALLS else 'follows anyway'}; one may call only a defender "
            "who passes"
        )

    # --- the kontra chain ------------------------------------------------------------------------------------
    if kontra:
        if len(kontra) > 4:
            problems.append(f"{where}: the kontra chain has {len(kontra)} steps; it ends at mortkontra (4)")
        for step, giver in enumerate(kontra[:4]):
            word = _KONTRA_NAMES[step]
            if step % 2:
                if giver != declarer:
                    problems.append(f"{where}: {names[giver]} gives {word}, but only the declarer {dname} may")
            elif giver == declarer:
                problems.append(f"{where}: the declarer {dname} gives {word}, but only a defender who plays may")
            elif defense.get(giver) not in _PLAYING:
                problems.append(
                    f"{where}: {names[giver]} gives {word}, but does not play (passes); only a "
                    "defender who follows or calls may"
                )

    # --- is the hand played? ---------------------------------------------------------------------------------
    if contract is None or dec1 is None or dec2 is None:
        if tricks:
            problems.append(f"{where}: the hand records tricks before the contract and both defense decisions")
        return
    if dec1 is _PASSES and dec2 is _PASSES:
        if tricks:
            problems.append(
                f"{where}: nobody follows {dname}'s {contract.describe()}, so the hand is not played, "
                "yet it records tricks"
            )
        return
    if contract.strain is Strain.PIK and not contract.igra and not kontra:
        if tricks:
            problems.append(f"{where}: bid pik without kontra is not played, yet the hand records tricks")
        return
    if not tricks:
        if complete:
            problems.append(f"{where}: the hand must be played ({dname}'s {contract.describe()}) but records no tricks")
        return
    if deal_ok:
        _check_play(hand, names, where, complete, masks, discard_mask, igra, problems)


def _check_deal(
    groups: Sequence[Sequence[Card]], names: Sequence[str], where: str, masks: list[int], problems: list[str]
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
                problems.append(f"{where}: the talon has {size} cards; it has exactly 2")
            else:
                problems.append(f"{where}: {names[g]} is dealt {size} cards; each player gets exactly 10")
    if dup:
        ok = False
        problems.append(f"{where}: the deal has {_names_of(dup)} more than once; the 32 cards are all different")
    if ok and seen != 0xFFFFFFFF:
        ok = False
        problems.append(f"{where}: the deal is missing {_names_of(~seen & 0xFFFFFFFF)}")
    return ok


def _recorded(hand: Hand) -> str:
    """What a hand records beyond its auction, for a message; empty when nothing."""
    parts = []
    if hand.declarer is not None:
        parts.append("a declarer")
    if hand.contract is not None:
        parts.append("a contract")
    if hand.discards:
        parts.append("discards")
    if hand.defense:
        parts.append("defense decisions")
    if hand.kontra:
        parts.append("kontra")
    if hand.tricks:
        parts.append("tricks")
    return ", ".join(parts)


def _check_play(
    hand: Hand,
    names: Sequence[str],
    where: str,
    complete: bool,
    masks: list[int],
    discard_mask: int,
    igra: bool,
    problems: list[str],
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
            problems.append(f"{where}, trick {number}: the trick has {size} cards; every trick has three")
            return
        card = cards[0]
        led_suit = card.suit
        best_rank = card.rank
        bit = 1 << (led_suit * 8 + best_rank)
        h = hold[leader]
        if not h & bit:
            problems.append(
                f"{where}, trick {number}: "
                + _wrong_hand(card, bit, leader, 0, number, leader, hold, hand, names, discard_mask, igra)
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
                    f"{where}, trick {number}: "
                    + _wrong_hand(card, bit, seat, position, number, leader, hold, hand, names, discard_mask, igra)
                )
                return
            if not bit & led_mask:
                if h & led_mask:
                    problems.append(
                        f"{where}, trick {number}: {names[seat]} plays {card.display()} but must "
                        f"follow suit in {_SUIT_NAMES[led_suit]}"
                    )
                    return
                if not bit & trump_mask and h & trump_mask:
                    problems.append(
                        f"{where}, trick {number}: {names[seat]} plays {card.display()} but has no "
                        f"{_SUIT_NAMES[led_suit].split()[0]} and must play a trump "
                        f"({_SUIT_NAMES[trump_suit]})"
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
            reason = f"{names[declarer]} took a trick in betl" if betl else "the defence took its fifth trick"
            problems.append(
                f"{where}: play stops after trick {last}, but {reason} at trick {stopped_at}; play "
                "either stops there or goes on to trick 10"
            )
        else:
            problems.append(
                f"{where}: play stops after trick {last}, but the result is not yet decided; play "
                "goes on to trick 10 (or stops when the declarer has fallen)"
            )


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
) -> str:
    """The message for a card played by the wrong player, or one nobody holds."""
    owner = next((s for s in range(3) if hold[s] & bit), None)
    shown = card.display()
    if owner is not None:
        if position == 0:
            why = "the first hand leads the first trick" if number == 1 else f"{names[leader]} won trick {number - 1}"
            if number == 1 and hand.contract is not None and hand.contract.strain is Strain.SANS:
                why = "sans is led by the player before the declarer"
            return f"{names[owner]} leads {shown}, but {names[leader]} must lead ({why})"
        return f"{shown} is {names[owner]}'s card, but it is {names[seat]}'s turn to play"
    if discard_mask & bit:
        return f"{names[seat]} plays {shown}, which the declarer discarded"
    if any(c.suit == card.suit and c.rank == card.rank for c in hand.talon) and igra:
        return f"{names[seat]} plays {shown}, which is in the talon (igra is played without it)"
    return f"{names[seat]} plays {shown}, which was already played"


def validate_next_hand(game: Game, hand: Hand) -> list[str]:
    """The problems of `hand` as the next hand of `game` (a live feed appending one hand to a stored, legal game):
    what `validate_game` reports for the game with the hand added, without checking the earlier hands again."""
    label = f"game {game.number}"
    names = game.players
    index = len(game.hands)
    where = f"{label}, hand {index + 1}"
    problems: list[str] = []
    if game.status is GameStatus.FINISHED:
        problems.append(f"{label}: the game is finished; no hand can be added")
    if hand.n != index + 1:
        problems.append(f"{where}: the hand is numbered {hand.n}; hands are numbered 1, 2, 3 … in order")
    previous_end = game.started_at
    if game.hands:
        last = game.hands[-1]
        if hand.dealer != (last.dealer + 1) % 3:
            expected = names[(last.dealer + 1) % 3]
            problems.append(
                f"{where}: {names[hand.dealer]} deals, but the deal passes in seat order and it is "
                f"{expected}'s turn to deal (after {names[last.dealer]})"
            )
        if last.ended_at is None:
            problems.append(
                f"{label}, hand {index}: the hand has no end time ('ended_at'); only the last hand of "
                "a game may be unfinished"
            )
        ends = [h.ended_at for h in game.hands if h.ended_at is not None]
        if ends:
            previous_end = max(ends)
    ended = hand.ended_at
    if ended is not None:
        if ended < game.started_at:
            problems.append(
                f"{where}: the hand ends at {format_time(ended)}, before the game started "
                f"({format_time(game.started_at)})"
            )
        elif ended < previous_end:
            problems.append(
                f"{where}: the hand ends at {format_time(ended)}, before the previous hand "
                f"ended ({format_time(previous_end)})"
            )
        if game.ended_at is not None and ended > game.ended_at:
            problems.append(
                f"{where}: the hand ends at {format_time(ended)}, after the game ended ({format_time(game.ended_at)})"
            )
    _check_hand(hand, names, where, ended is not None, problems)
    return problems
