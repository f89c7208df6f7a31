"""What the import's worker processes run in tests (tests/test_import_locks.py): module-level, so a worker process
started by spawning can unpickle it."""

from __future__ import annotations

import os
from pathlib import Path

from bot.importer import PieceResult, prepare_piece
from rules.logfile import Piece

WHERE = "SUDIJA_TEST_PIECE_PROCESS"  # the file each prepared piece writes its process's pid and class to


def recording_process(piece: Piece, lang: str = "sr") -> PieceResult:
    """`bot.importer.prepare_piece`, having appended the pid of the process that ran it and that process's
    scheduling class to the file `WHERE` names."""
    with Path(os.environ[WHERE]).open("a", encoding="utf-8") as out:
        out.write(f"{os.getpid()} {os.sched_getscheduler(0)}\n")
    return prepare_piece(piece, lang)
