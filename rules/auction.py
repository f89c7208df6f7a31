"""The auction (licitacija) of one hand: whose turn it is, which calls are legal, and who declares.

Rules (format v1, fixed for the whole project; see ``docs/game-log.md``):

* The bidding order is the first hand (the seat after the dealer), the second hand, then the dealer. That is
  also the order of *priority*. The first hand speaks first; turns go in seat order, skipping players who have
  said ``dalje`` (they are out for good).
* A number (2 pik, 3 karo, 4 herc, 5 tref, 6 betl, 7 sans) must be strictly higher than the highest bid so far.
* ``mogu`` holds the current highest bid made by another player; only a player with priority over that bidder
  may say it. The next number must then be higher.
* ``igra`` (a contract without the talon) is allowed only as a player's first call and only when nobody has
  said igra before; after an igra every other player may only say ``dalje``.
* The auction ends when all three said ``dalje`` with no bid (an all-pass hand, refe), or when two are out and
  the third holds the highest bid or said igra: he is the declarer.

`Auction` is a small mutable state machine on plain ints so the validator can run a whole log through it
quickly; `run_auction` replays a recorded call list and reports every problem (`rules.problems`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.gamelog import Contract, Strain
from rules.phrases import Phrase
from rules.problems import Key, Place, Problem, Problems, Word

NUMBERS = ("2", "3", "4", "5", "6", "7")
LEVEL_NAMES = {2: "pik", 3: "karo", 4: "herc", 5: "tref", 6: "betl", 7: "sans"}


def call_phrase(call: str) -> Phrase:
    """A call in the reader's words: ``2 (pik)``, ``dalje``."""
    if call in NUMBERS:
        return Phrase.of(Word.CALL_NUMBER, call=call, strain=Phrase(f"term.{LEVEL_NAMES[int(call)]}"))
    return Phrase(f"term.bid.{call}")


class AuctionError(Problems):
    """A call that is not legal at this point of the auction (`problems`: why)."""


class Auction:
    """The state of one hand's auction.

    Seats are 0, 1, 2; ``dealer`` is the dealer's seat. Call `legal_calls` to see what the player whose turn it
    is may say, `problem` to learn why a call would be illegal, and `call` to make one.
    """

    __slots__ = ("dealer", "declarer", "holder", "igra_by", "level", "out", "over", "spoken", "turn")

    def __init__(self, dealer: int) -> None:
        self.dealer = dealer
        self.out = [False, False, False]
        self.spoken = [False, False, False]
        self.level = 0  # the highest number bid so far (0: none)
        self.holder: int | None = None  # who holds `level` (the bidder, or the last to say mogu)
        self.igra_by: int | None = None
        self.turn: int | None = (dealer + 1) % 3  # None once the auction is over
        self.over = False
        self.declarer: int | None = None

    def priority(self, seat: int) -> int:
        """0 for the first hand, 1 for the second, 2 for the dealer."""
        return (seat - self.dealer - 1) % 3

    def legal_calls(self) -> list[str]:
        """What the player whose turn it is may say (empty once the auction is over)."""
        seat = self.turn
        if seat is None:
            return []
        if self.igra_by is not None:
            return ["dalje"]
        calls = ["dalje"]
        if self.holder is not None and self.holder != seat and self.priority(seat) < self.priority(self.holder):
            calls.append("mogu")
        calls.extend(NUMBERS[max(self.level + 1, 2) - 2 :])
        if not self.spoken[seat]:
            calls.append("igra")
        return calls

    def is_legal(self, seat: int, call: str) -> bool:
        """Whether `seat` may say `call` now (the fast check; `problem` says why not)."""
        if seat != self.turn:
            return False
        if call == "dalje":
            return True
        if self.igra_by is not None:
            return False
        if call == "igra":
            return not self.spoken[seat]
        if call == "mogu":
            holder = self.holder
            return holder is not None and holder != seat and self.priority(seat) < self.priority(holder)
        return call in NUMBERS and int(call) > self.level

    def problem(self, seat: int, call: str, names: Sequence[str] = ("seat 1", "seat 2", "seat 3")) -> Problem | None:
        """Why `seat` may not say `call` now (`rules.problems`); None when the call is legal."""
        who = names[seat]
        known = call in NUMBERS or call in ("dalje", "mogu", "igra")
        said: Phrase | str = call_phrase(call) if known else call
        if self.turn is None:
            return Problem.of(Key.BID_AFTER_END, who=who, call=said)
        if seat != self.turn:
            key = Key.BID_OUT_AFTER_DALJE if self.out[seat] else Key.BID_OUT_OF_TURN
            return Problem.of(key, who=who, call=said, turn=names[self.turn])
        if self.igra_by is not None and call != "dalje":
            return Problem.of(Key.BID_AFTER_IGRA, who=who, call=said, bidder=names[self.igra_by])
        if call == "dalje":
            return None
        if call == "igra":
            if self.spoken[seat]:
                return Problem.of(Key.IGRA_NOT_FIRST, who=who)
            return None
        if call == "mogu":
            if self.holder is None:
                return Problem.of(Key.MOGU_NOTHING, who=who)
            if self.holder == seat:
                return Problem.of(Key.MOGU_HOLDS, who=who)
            if self.priority(seat) > self.priority(self.holder):
                return Problem.of(
                    Key.MOGU_NO_PRIORITY, who=who, holder=names[self.holder], bid=call_phrase(str(self.level))
                )
            return None
        if call in NUMBERS:
            if int(call) <= self.level:
                return Problem.of(Key.BID_NOT_HIGHER, who=who, call=said, bid=call_phrase(str(self.level)))
            return None
        return Problem.of(Key.NOT_A_CALL, who=who, value=repr(call))

    def call(self, seat: int, call: str) -> None:
        """Make a call; raise `AuctionError` when it is not legal."""
        if not self.is_legal(seat, call):
            problem = self.problem(seat, call)
            assert problem is not None
            raise AuctionError([problem])
        self._apply(seat, call)

    def _apply(self, seat: int, call: str) -> None:
        if call == "dalje":
            self.out[seat] = True
        elif call == "mogu":
            self.holder = seat
        elif call == "igra":
            self.igra_by = seat
        else:
            self.level = int(call)
            self.holder = seat
        self.spoken[seat] = True
        out = self.out
        active = (not out[0]) + (not out[1]) + (not out[2])
        if active == 0:
            self.turn = None
            self.over = True
            return
        if active == 1:
            last = out.index(False)
            if last == self.igra_by or (self.igra_by is None and last == self.holder):
                self.turn = None
                self.over = True
                self.declarer = last
                return
        nxt = (seat + 1) % 3
        if out[nxt]:
            nxt = (nxt + 1) % 3
        self.turn = nxt

    @property
    def igra(self) -> bool:
        """Whether the declarer (or the player who said igra) plays without the talon."""
        return self.igra_by is not None

    def min_level(self) -> int:
        """The lowest contract level the declarer may name: his held bid, or with igra the highest number bid."""
        return max(self.level, 2)

    def contract_problem(self, contract: Contract) -> Problem | None:
        """Why `contract` does not fit this finished auction; None when it fits."""
        if self.declarer is None:
            return Problem.of(Key.CONTRACT_NO_AUCTION)
        if contract.igra != self.igra:
            return Problem.of(Key.CONTRACT_MUST_BE_IGRA if self.igra else Key.CONTRACT_CANNOT_BE_IGRA)
        if contract.strain.level < self.min_level():
            key = Key.CONTRACT_BELOW_IGRA if self.igra else Key.CONTRACT_BELOW_BID
            return Problem.of(key, contract=contract.phrase, bid=call_phrase(str(self.level)))
        return None

    def allowed_contracts(self) -> list[Contract]:
        """Every contract the declarer may name once the auction is over."""
        if self.declarer is None:
            return []
        return [Contract(s, self.igra) for s in Strain if s.level >= self.min_level()]


@dataclass(frozen=True, slots=True)
class AuctionResult:
    """A recorded auction replayed: where it stopped and every problem found (empty when legal)."""

    auction: Auction
    problems: tuple[Problem, ...]

    @property
    def over(self) -> bool:
        return self.auction.over

    @property
    def declarer(self) -> int | None:
        return self.auction.declarer


def run_auction(
    dealer: int, calls: Iterable[tuple[int, str]], names: Sequence[str] = ("seat 1", "seat 2", "seat 3")
) -> AuctionResult:
    """Replay recorded ``(seat, call)`` pairs; the first illegal call stops the replay and is reported."""
    auction = Auction(dealer)
    problems: list[Problem] = []
    for number, (seat, call) in enumerate(calls, start=1):
        if not auction.is_legal(seat, call):
            problem = auction.problem(seat, call, names)
            assert problem is not None
            problems.append(problem.within(Place(bid=number)))
            break
        auction._apply(seat, call)
    return AuctionResult(auction, tuple(problems))


def seats_for(dealer: int, calls: Iterable[str]) -> list[tuple[int, str]]:
    """Attach to each call the seat whose turn it is; raise `AuctionError` at the first illegal call.

    Handy for tests: ``seats_for(2, ["2", "3", "dalje", "dalje"])`` gives the seats without spelling them out.
    """
    auction = Auction(dealer)
    out: list[tuple[int, str]] = []
    for call in calls:
        seat = auction.turn
        if seat is None:
            raise AuctionError([Problem.of(Key.AUCTION_OVER_BEFORE, call=call_phrase(call))])
        auction.call(seat, call)
        out.append((seat, call))
    return out
