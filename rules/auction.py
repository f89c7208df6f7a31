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
quickly; `run_auction` replays a recorded call list and reports every problem in words for people.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.gamelog import Contract, Strain

NUMBERS = ("2", "3", "4", "5", "6", "7")
LEVEL_NAMES = {2: "pik", 3: "karo", 4: "herc", 5: "tref", 6: "betl", 7: "sans"}


def call_text(call: str) -> str:
    """A call for people: ``2 (pik)``, ``mogu``."""
    if call in NUMBERS:
        return f"{call} ({LEVEL_NAMES[int(call)]})"
    return call


class AuctionError(ValueError):
    """A call that is not legal at this point of the auction."""


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

    def problem(self, seat: int, call: str, names: Sequence[str] = ("seat 1", "seat 2", "seat 3")) -> str | None:
        """Why `seat` may not say `call` now, in words for people; None when the call is legal."""
        who = names[seat]
        said = call_text(call)
        if self.turn is None:
            return f"{who} says {said} but the auction is already over"
        if seat != self.turn:
            why = " (already out after dalje)" if self.out[seat] else ""
            return f"{who} says {said} out of turn{why}; it is {names[self.turn]}'s turn"
        if self.igra_by is not None and call != "dalje":
            return f"{who} says {said} but after {names[self.igra_by]}'s igra the others may only say dalje"
        if call == "dalje":
            return None
        if call == "igra":
            if self.spoken[seat]:
                return f"{who} says igra but igra is allowed only as a player's first call"
            return None
        if call == "mogu":
            if self.holder is None:
                return f"{who} says mogu but nobody has bid yet, there is nothing to hold"
            if self.holder == seat:
                return f"{who} says mogu but already holds the bid"
            if self.priority(seat) > self.priority(self.holder):
                return (
                    f"{who} says mogu without priority over {names[self.holder]}, who bid "
                    f"{call_text(str(self.level))}; only a higher bid or dalje is possible"
                )
            return None
        if call in NUMBERS:
            if int(call) <= self.level:
                return f"{who} bids {said} but the bid is already {call_text(str(self.level))}; a bid must be higher"
            return None
        return f"{who} says {call!r}, which is not a call (dalje, mogu, igra, 2 to 7)"

    def call(self, seat: int, call: str) -> None:
        """Make a call; raise `AuctionError` when it is not legal."""
        if not self.is_legal(seat, call):
            raise AuctionError(str(self.problem(seat, call)))
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

    def contract_problem(self, contract: Contract) -> str | None:
        """Why `contract` does not fit this finished auction; None when it fits."""
        if self.declarer is None:
            return "nobody won the auction, so there can be no contract"
        if contract.igra != self.igra:
            if self.igra:
                return "the declarer said igra, so the contract must be marked igra"
            return "the declarer did not say igra in the auction, so the contract cannot be igra"
        if contract.strain.level < self.min_level():
            if self.igra:
                return (
                    f"the contract {contract.describe()} is lower than the highest bid before the igra, "
                    f"{call_text(str(self.level))}"
                )
            return f"the contract {contract.describe()} is lower than the winning bid {call_text(str(self.level))}"
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
    problems: tuple[str, ...]

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
    problems: list[str] = []
    for number, (seat, call) in enumerate(calls, start=1):
        if not auction.is_legal(seat, call):
            problems.append(f"bid {number}: {auction.problem(seat, call, names)}")
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
            raise AuctionError(f"the auction is already over before {call_text(call)}")
        auction.call(seat, call)
        out.append((seat, call))
    return out
