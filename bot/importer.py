"""The import of game-log files: paths → files → games → storage, with the report (`sudija import`).

A file is the unit of atomicity: when any game in it is unreadable or not a legal game, nothing of that file is
stored and every problem is reported (the file, the place in it, the game, hand and trick, what is wrong): each a
`rules.problems.Problem`, written in the reader's language when the report is shown (`ImportReport.messages`). The
games of a valid file are stored in one transaction by `storage.games.GameStore.store`, which also decides what
is unchanged (the same canonical log again) and what is refused (a changed log of a game the desk refers to).
At import the paper is computed for every game whose log records score entries (`rules.paper.cross_check`);
where they differ, the rendered lines are stored as the game's cross-check report.

Speed: decoding, parsing, validating and preparing the canonical log (`prepare_piece`) run in worker processes
when an executor is given; the main process reads files, cuts them into pieces (`rules.logfile.plan`) and writes
to the database, one file at a time and in file order, while the workers already prepare the next pieces.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.i18n.problems import problem_text
from bot.messages import Catalogue
from bot.workers import background_worker, give_up, warm_up, watched
from rules.gamelog import LogError, nick_phrase, read_game
from rules.logfile import LIMITS, FileProblem, Limits, Piece, Plan, decode_piece, plan, unpack
from rules.nicknames import DEFAULT_SCRIPTS, NickRefused, check_scripts
from rules.paper import cross_check
from rules.paper_render import discrepancy_lines
from rules.phrases import Phrase, Size
from rules.problems import Key, Place, Problem, Word, place_order
from rules.validation import validate_game
from storage.database import Database, open_database
from storage.games import GameRow
from storage.tenancy import DEFAULT_CLUB

LOG_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
PIECE_BYTES = 2 << 20  # JSON Lines are cut into pieces of about this size for the workers
PARALLEL_BYTES = 4 << 20  # below this much input, workers cost more than they save

log = logging.getLogger(__name__)

Progress = Callable[[int, int, int], None]  # (bytes done, bytes in all, hands read so far)


class NoSuchPath(ValueError):
    """A path given to the import does not exist (a usage error); `path` names it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: no such file or directory")
        self.path = path


def is_log_name(name: str) -> bool:
    return name.lower().endswith(LOG_SUFFIXES)


def find_files(paths: Sequence[str | Path]) -> list[Path]:
    """The files to import: each file named, and the log files (``LOG_SUFFIXES``) under each directory, sorted.

    Raises `NoSuchPath` for a path that does not exist. A file named on the command line is read whatever its
    name; in directories only log files are taken. Each file is listed once.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*") if p.is_file() and is_log_name(p.name))
        elif path.exists():
            candidates = [path]
        else:
            raise NoSuchPath(str(raw))
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


# --------------------------------------------------------------------------------------------- the workers


@dataclass(slots=True)
class PieceResult:
    """What a worker made of one piece: rows ready to store (with their places) and the problems."""

    rows: list[GameRow] = field(default_factory=list)
    places: list[Place] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    documents: int = 0
    hands: int = 0


def prepare_piece(piece: Piece, lang: str = "sr") -> PieceResult:
    """Decode, parse, validate and prepare the games of one piece (runs in a worker process)."""
    decoded = decode_piece(piece)
    result = PieceResult(problems=decoded.problems, documents=len(decoded.documents))
    for document in decoded.documents:
        place = document.place
        try:
            game, canonical = read_game(document.value)
            problems = validate_game(game)
        except LogError as exc:
            result.problems.extend(problem.within(place) for problem in exc.problems)
            continue
        except (RecursionError, OverflowError, ValueError, TypeError) as exc:  # a shape no check foresaw yet
            log.exception("a game the reader did not expect at %s", str(place) or "the file")
            result.problems.append(Problem.of(Key.UNEXPECTED, place, kind=type(exc).__name__))
            continue
        if problems:
            result.problems.extend(problem.within(place) for problem in problems)
            continue
        if result.problems:
            continue  # the file will not be imported: do not spend time preparing the rest
        report = None
        if any(hand.score is not None for hand in game.hands):
            found = cross_check(game)
            if found:
                report = discrepancy_lines(found, Catalogue(lang).t)
        result.rows.append(GameRow.of(game, report, canonical))
        result.places.append(document.place)
        result.hands += len(game.hands)
    return result


# --------------------------------------------------------------------------------------------- the report


@dataclass(slots=True)
class FileReport:
    path: str
    games: int = 0  # valid games read from the file
    hands: int = 0  # hands of the games stored (new or replaced)
    imported: int = 0
    unchanged: int = 0
    refused: list[Problem | str] = field(default_factory=list)
    problems: list[Problem | str] = field(default_factory=list)  # a text: from a result file older than Problem
    differing: int = 0  # stored games whose recorded score differs from the paper

    @property
    def ok(self) -> bool:
        return not self.problems and not self.refused


@dataclass(slots=True)
class ImportReport:
    files: list[FileReport] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def imported(self) -> int:
        return sum(f.imported for f in self.files)

    @property
    def hands(self) -> int:
        return sum(f.hands for f in self.files)

    @property
    def unchanged(self) -> int:
        return sum(f.unchanged for f in self.files)

    @property
    def refused(self) -> int:
        return sum(len(f.refused) for f in self.files)

    @property
    def files_with_errors(self) -> int:
        return sum(1 for f in self.files if f.problems)

    @property
    def differing(self) -> int:
        return sum(f.differing for f in self.files)

    @property
    def exit_status(self) -> int:
        """0 when everything was imported (or already there), 1 when anything was refused or invalid."""
        return 0 if all(f.ok for f in self.files) else 1

    def messages(self, t: Callable[..., str] | None = None) -> list[str]:
        """Every problem and refusal, each naming its file, in the words of the catalogue `t` (default English)."""
        t = t or Catalogue("en").t
        lines: list[str] = []
        for report in self.files:
            path = report.path
            lines.extend(t("log.report.problem", path=path, problem=problem_text(p, t)) for p in report.problems)
            if report.problems:
                lines.append(t("log.report.nothing", path=path, count=len(report.problems)))
            lines.extend(t("log.report.refused", path=path, why=problem_text(p, t)) for p in report.refused)
        return lines

    def summary(self, t: Callable[..., str] | None = None) -> list[str]:
        """The totals in the words of the catalogue `t` (default English)."""
        t = t or Catalogue("en").t
        lines = [
            t(
                "cli.import.summary",
                games=t("cli.import.games", n=self.imported),
                hands=t("cli.import.hands", n=self.hands),
                files=t("cli.import.files", n=len(self.files)),
                unchanged=self.unchanged,
                refused=self.refused,
                errors=t("cli.import.files", n=self.files_with_errors),
            )
        ]
        if self.differing:
            lines.append(t("cli.import.crosscheck", n=self.differing))
        return lines


# --------------------------------------------------------------------------------------------- the import


@dataclass(slots=True)
class _FileJob:
    path: Path
    plan: Plan
    futures: list[asyncio.Future[PieceResult]]


def read_limited(path: Path, limits: Limits = LIMITS) -> bytes:
    """A file's bytes, refusing (`FileProblem`) one bigger than the text limit without reading it whole."""
    with path.open("rb") as handle:
        data = handle.read(limits.text_bytes + 1)
        if len(data) > limits.text_bytes:  # its own size, not the part read (one byte past the limit)
            size = max(len(data), os.fstat(handle.fileno()).st_size)
            raise FileProblem([Problem.of(Key.FILE_TOO_BIG, size=Size(size), size_limit=Size(limits.text_bytes))])
    return data


def _plan_file(path: Path, limits: Limits, piece_bytes: int) -> Plan:
    try:
        text = unpack(read_limited(path, limits), path.name, limits)
    except FileProblem as exc:
        return Plan(None, problems=list(exc.problems))
    except OSError as exc:
        return Plan(None, problems=[Problem.of(Key.CANNOT_READ_FILE, error=str(exc.strerror or exc))])
    return plan(text, path.name, limits, piece_bytes)


async def import_files(
    db: Database,
    files: Sequence[Path],
    now: datetime,
    *,
    executor: concurrent.futures.Executor | None = None,
    in_flight: int = 6,
    lang: str = "sr",
    progress: Progress | None = None,
    limits: Limits = LIMITS,
    piece_bytes: int = PIECE_BYTES,
    scripts: Sequence[str] = DEFAULT_SCRIPTS,
) -> ImportReport:
    """Import `files` into `db`, each file in one transaction; the report of what happened to each.

    With an `executor` (a process pool) the pieces are prepared there, a bounded number at a time, while the
    main process writes; without one they are prepared here, in order, each file before its transaction.
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    sizes = [file_size(path) for path in files]
    total = sum(sizes)
    tally = [0, 0]  # bytes done, hands read
    slots = asyncio.Semaphore(max(1, in_flight))
    queue: asyncio.Queue[_FileJob | None] = asyncio.Queue()

    def advance(share: int, hands: int) -> None:
        tally[0] += share
        tally[1] += hands
        if progress is not None:
            progress(tally[0], total, tally[1])

    def finished(share: int, future: asyncio.Future[PieceResult]) -> None:
        slots.release()
        ok = not future.cancelled() and future.exception() is None
        advance(share, future.result().hands if ok else 0)

    async def produce() -> None:
        try:
            await submit_all()
        finally:
            queue.put_nowait(None)  # the consumer stops even when this fails; awaiting the task raises

    async def submit_all() -> None:
        for path, size in zip(files, sizes, strict=True):
            planned = await asyncio.to_thread(_plan_file, path, limits, piece_bytes)
            length = sum(len(piece.text) for piece in planned.pieces) or 1
            job = _FileJob(path, planned, [])
            for piece in planned.pieces:
                share = size * len(piece.text) // length
                await slots.acquire()
                future = loop.run_in_executor(executor, prepare_piece, piece, lang)
                if isinstance(executor, concurrent.futures.ProcessPoolExecutor):  # a dead worker: no wait for ever
                    future = asyncio.ensure_future(watched(executor, future))
                future.add_done_callback(functools.partial(finished, share))
                job.futures.append(future)
            if not planned.pieces:
                advance(size, 0)
            queue.put_nowait(job)

    report = ImportReport()
    if executor is None:
        # One thing at a time: a file is read, parsed and validated before its transaction begins, and the next
        # file only after it committed, so the write lock is held for the short write alone.
        for path, size in zip(files, sizes, strict=True):
            planned = _plan_file(path, limits, piece_bytes)
            length = sum(len(piece.text) for piece in planned.pieces) or 1
            job = _FileJob(path, planned, [])
            for piece in planned.pieces:
                future = loop.create_future()
                future.set_result(prepare_piece(piece, lang))
                advance(size * len(piece.text) // length, future.result().hands)
                job.futures.append(future)
            if not planned.pieces:
                advance(size, 0)
            report.files.append(await _finish_file(db, job, now, scripts))
        report.seconds = loop.time() - started
        return report
    producer = asyncio.create_task(produce())
    try:
        while (queued := await queue.get()) is not None:
            report.files.append(await _finish_file(db, queued, now, scripts))
        await producer
    finally:
        if not producer.done():
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await producer
    report.seconds = loop.time() - started
    return report


def _foreign(row: GameRow, scripts: Sequence[str], place: Place) -> list[Problem]:
    """Each player of the game whose nickname has a letter outside the club's scripts (`[club] scripts`)."""
    found = []
    where = Place(game=row.number).within(place)
    for seat, nick in enumerate(row.players, start=1):
        try:
            check_scripts(nick, scripts)
        except NickRefused as problem:
            found.append(
                Problem.of(Key.PLAYER_SCRIPT, where, seat=seat, nick=ascii(nick)[:60], why=nick_phrase(problem))
            )
    return found


async def _finish_file(db: Database, job: _FileJob, now: datetime, scripts: Sequence[str]) -> FileReport:
    report = FileReport(str(job.path))
    problems: list[Problem] = list(job.plan.problems)
    rows: list[GameRow] = []
    first_place: dict[int, Place] = {}
    for future in job.futures:
        part = await future
        problems.extend(part.problems)
        for row, place in zip(part.rows, part.places, strict=True):
            earlier = first_place.get(row.number)
            if earlier is not None:
                problems.append(Problem.of(Key.GAME_TWICE, place, game=row.number, earlier=_place_phrase(earlier)))
            else:
                first_place[row.number] = place
            problems.extend(_foreign(row, scripts, place))
            rows.append(row)
    if problems:
        problems.sort(key=place_order)
        report.problems = list(problems)
        return report
    report.games = len(rows)
    outcome = await db.games.store(rows, now)
    report.imported = outcome.imported
    report.unchanged = outcome.unchanged
    report.refused = list(outcome.refused)
    report.hands = outcome.hands
    report.differing = sum(1 for row in rows if row.cross_check)
    return report


def _place_phrase(place: Place) -> Phrase:
    """Where in its file a game was first met, as words: its line or item, or the file's start."""
    if place.line is not None:
        return Phrase.of("log.at.line", line=place.line)
    if place.item is not None:
        return Phrase.of("log.at.item", item=place.item)
    return Phrase(Word.START_OF_FILE)


def file_size(path: Path) -> int:
    """The file's size in bytes, 0 when it cannot be read (the import then reports why)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def worker_count(files: Sequence[Path], jobs: int | None = None) -> int:
    """How many worker processes to use: none for small imports, else `jobs` or the number of CPUs."""
    if jobs is not None:
        return max(0, jobs)
    if sum(file_size(path) for path in files) < PARALLEL_BYTES:
        return 0
    return max(0, min(os.cpu_count() or 1, 8))


def background_pool(workers: int, start: str) -> concurrent.futures.ProcessPoolExecutor | None:
    """A pool of `workers` processes to prepare an import's pieces, each started (`start`: "fork" before the
    process has threads, "spawn" in a running bot) and dying with this process and of the idle scheduling class
    (`background_worker`); None when they do not all start (the import then goes on here: slower, never stuck).
    Blocks while the workers start."""
    executor = concurrent.futures.ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(start),
        initializer=background_worker,
        initargs=(os.getpid(),),
    )
    try:
        warm_up(executor, workers)
    except BrokenProcessPool as broken:
        log.warning("the import's worker processes did not start (%s): importing without them", broken)
        give_up(executor)
        return None
    return executor


@dataclass(slots=True)
class Importer:
    """The whole use case for the command line and benchmarks: files, worker processes, database, report.

    The worker processes are forked before the database is opened (no database thread is copied into them), and
    each dies with this process and runs in the idle scheduling class (`bot.workers.background_worker`), so a
    killed import leaves no worker behind and a bot's live feed beside it never waits for one. Workers that do not
    all start (one died, or they took past `bot.workers.WARM_UP_SECONDS`) are given up: the import runs here.
    """

    db_path: str
    club: str = DEFAULT_CLUB  # on PostgreSQL, the club whose games these are (`[club] id`, storage/tenancy.py)
    lang: str = "sr"
    jobs: int | None = None
    progress: Progress | None = None
    limits: Limits = LIMITS
    now: Callable[[], datetime] | None = None
    scripts: Sequence[str] = DEFAULT_SCRIPTS  # the club's scripts for nicknames (`[club] scripts`)

    async def run(self, paths: Sequence[str | Path]) -> ImportReport:
        files = find_files(paths)
        workers = worker_count(files, self.jobs)
        executor = background_pool(workers, "fork") if workers > 1 else None
        try:
            db = await open_database(self.db_path, club=self.club)
            try:
                moment = self.now() if self.now is not None else datetime.now(UTC)
                return await import_files(
                    db,
                    files,
                    moment,
                    executor=executor,
                    in_flight=3 * max(1, workers),
                    lang=self.lang,
                    progress=self.progress,
                    limits=self.limits,
                    scripts=self.scripts,
                )
            finally:
                await db.close()
        finally:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
