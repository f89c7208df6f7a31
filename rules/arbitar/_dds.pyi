"""Type stub for the native double-dummy solver (rules/arbitar/_dds.c)."""

from array import array
from collections.abc import Sequence

MAX_TT_BITS: int
MAX_TOTAL_TT_BYTES: int
ENTRY_BYTES: int

class Solver:
    def __init__(self, tt_bits: int = 18) -> None: ...
    def solve(
        self,
        hands: tuple[int, int, int],
        trump: int,
        betl: bool,
        declarer: int,
        to_move: int,
        trick: tuple[int, ...] = (),
        trick_leader: int = -1,
    ) -> list[tuple[int, int]]: ...
    def batch(
        self,
        layouts: bytes | bytearray | memoryview | array[int],
        trump: int,
        betl: bool,
        declarer: int,
        to_move: int,
        trick: tuple[int, ...],
        trick_leader: int,
        cards: tuple[int, ...],
        cap: int = -1,
        relative: bool = False,
    ) -> bytes: ...
    def reaches(
        self,
        layouts: bytes | bytearray | memoryview | array[int],
        trump: int,
        betl: bool,
        declarer: int,
        to_move: int,
        trick: tuple[int, ...],
        trick_leader: int,
        target: int,
    ) -> bytes: ...
    def clear(self) -> None: ...
    def stats(self) -> dict[str, int]: ...

def layouts(free_cards: Sequence[int], count_a: int, base: tuple[int, int, int], seat_a: int, seat_b: int) -> bytes: ...
def solve(
    hands: tuple[int, int, int],
    trump: int,
    betl: bool,
    declarer: int,
    to_move: int,
    trick: tuple[int, ...] = (),
    trick_leader: int = -1,
) -> list[tuple[int, int]]: ...
def set_table_limit(limit_bytes: int, /) -> int: ...
def table_memory() -> tuple[int, int]: ...
