"""The running bot's inbox (``<database>.inbox/``): the work the writing commands hand a bot that holds an SQLite
database's lock (decisions.md, "one bot per database"), and the game logs it imports from a watched folder
(``[import] watch``).

One process writes a club's SQLite file. While a bot holds it (bot/dblock.py), `sudija import` and `sudija outbox
--retry/--skip` do not write: they place a `Request` — with copies of the game-log files to import — in the inbox,
and the bot performs it with the same code the command runs when it holds the lock itself (`perform`), filing the
result where the command shows it (`sudija import --status`, `sudija outbox --status`).

The inbox is a maildir::

    tmp/ID/      an item being written by a command: never read by the bot
    new/ID/      handed: request.json and, for an import, the copies in files/
    done/ID/     performed: request.json and result.json (the copies removed)
    failed/ID/   performed, and refused or in error: request.json, result.json and the copies

Invariants. An item appears in new/ whole: written and synced in tmp/, then renamed. Only the process holding the
database's lock performs items, one at a time, in id order (an id begins with the UTC moment it was handed). The
result is written into the item before the item is renamed to done/ or failed/, so a process killed at any moment
(kill -9) leaves the item in new/, with or without its result: the next holder moves an item that has a result on,
and performs again one that has none. That is done once: an import is idempotent (a game already stored counts as
unchanged), and an outbox act recognises its own resolution on the row (who, when and why: the request's). The
``started`` mark tells the result that the work was interrupted once and done again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import json
import logging
import os
import secrets
import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from bot.i18n.problems import problem_from_json, problem_json
from bot.importer import FileReport, ImportReport, background_pool, file_size, find_files, import_files
from bot.messages import Catalogue
from bot.tasks import cancelled
from rules.nicknames import DEFAULT_SCRIPTS
from storage.database import Database, is_busy
from storage.outbox_engine import OutboxTable, Resolution
from storage.states import OutboxState

log = logging.getLogger(__name__)

REQUEST = "request.json"
RESULT = "result.json"
STARTED = "started"
FILES = "files"
KEEP_DAYS = 30  # performed items older than this are removed when a bot starts


class Kind(StrEnum):
    """What an item asks: an import of the files it carries, an outbox row sent again or skipped, or (recorded by
    the bot, never handed) an import from the watched folder."""

    IMPORT = "import"
    WATCH = "watch"
    RETRY = "retry"
    SKIP = "skip"


IMPORTS = (Kind.IMPORT, Kind.WATCH)
OUTBOX = (Kind.RETRY, Kind.SKIP)


class ItemState(StrEnum):
    """Where an item is: its folder in the inbox."""

    WAITING = "new"
    DONE = "done"
    FAILED = "failed"


class InboxError(Exception):
    """The inbox cannot be written (a folder that cannot be made, a permission): nothing was handed."""


class BadItem(Exception):
    """An item whose request cannot be read (not written by `Inbox.hand`): it is filed as failed, saying why."""


@dataclass(frozen=True, slots=True)
class Request:
    """What a command asks: `by` whom (a login, or ``watch``), `at` what moment (UTC), read in `lang`."""

    kind: Kind
    by: str
    at: datetime
    lang: str = "sr"
    files: tuple[tuple[str, str], ...] = ()  # an import: (the file as the command named it, its copy under files/)
    row: int | None = None  # an outbox act: the row, in the chat outbox when `chat`
    chat: bool = False
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "by": self.by,
            "at": self.at.astimezone(UTC).isoformat(),
            "lang": self.lang,
            "files": [list(pair) for pair in self.files],
            "row": self.row,
            "chat": self.chat,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Any) -> Request:
        """The request a file holds; `BadItem` saying what is wrong with one `to_json` did not write."""
        try:
            files = tuple((str(name), str(copy)) for name, copy in data.get("files", []))
            if any(Path(copy).is_absolute() or ".." in Path(copy).parts for _, copy in files):
                raise ValueError("a file outside the item")
            row = data.get("row")
            return cls(
                kind=Kind(data["kind"]),
                by=str(data["by"]),
                at=datetime.fromisoformat(data["at"]).astimezone(UTC),
                lang=str(data.get("lang", "sr")),
                files=files,
                row=None if row is None else int(row),
                chat=bool(data.get("chat", False)),
                reason=None if data.get("reason") is None else str(data["reason"]),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise BadItem(f"the request cannot be read ({type(exc).__name__}: {exc})") from None


@dataclass(frozen=True, slots=True)
class Item:
    """One item of the inbox: its request and, once performed, its result (`result_report`, `outbox_outcome`)."""

    id: str
    state: ItemState
    path: Path
    request: Request
    result: dict[str, Any] | None
    started: bool  # a process began performing it

    @property
    def finished(self) -> bool:
        return self.state is not ItemState.WAITING

    @property
    def handed_at(self) -> datetime:
        return self.request.at


@dataclass(frozen=True, slots=True)
class Handed:
    """What `Inbox.hand` did: the item placed (None when no file could be read), and each file it could not read
    with why."""

    item: Item | None
    unreadable: tuple[tuple[str, str], ...] = ()


def new_id() -> str:
    """An item's id: the UTC moment to the millisecond (so ids sort as they were handed) and a random tail."""
    now = datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}.{now.microsecond // 1000:03d}-{secrets.token_hex(2)}"


def _sync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """`data` into `path` whole or not at all (written beside it, synced, renamed)."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)
    _sync_dir(path.parent)


class Inbox:
    """The inbox of the database `database` (``<database>.inbox/``)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.root = Path(f"{database}.inbox")

    def folder(self, state: ItemState | str) -> Path:
        return self.root / str(state)

    def make(self) -> None:
        """The inbox's folders, made where missing (owned, when a root command makes them, by the database file's
        owner: the bot's user)."""
        try:
            for name in ("tmp", *ItemState):
                path = self.folder(name)
                if not path.is_dir():
                    path.mkdir(parents=True, exist_ok=True)
                    self._give(self.root)
                    self._give(path)
        except OSError as exc:
            raise InboxError(f"{exc.filename or self.root}: {exc.strerror or exc}") from None

    def _give(self, path: Path) -> None:
        """A root command's files belong to the bot's user (the database file's owner), so the bot can move them."""
        if os.geteuid() != 0:
            return
        try:
            owner = os.stat(self.database)
        except OSError:
            return
        if owner.st_uid != 0:
            os.chown(path, owner.st_uid, owner.st_gid)

    # The command's side ---------------------------------------------------------------------------------------
    def hand(self, request: Request, files: Sequence[Path] = ()) -> Handed:
        """Place `request` in the inbox with copies of `files` (an import): whole, or not at all. A file that cannot
        be read is left out and named; when none can be, nothing is placed. `InboxError` when the inbox cannot be
        written."""
        self.make()
        item_id = new_id()
        building = self.folder("tmp") / item_id
        try:
            (building / FILES).mkdir(parents=True)
            copies: list[tuple[str, str]] = []
            unreadable: list[tuple[str, str]] = []
            for number, source in enumerate(files, start=1):
                copy = f"{FILES}/{number:04d}-{source.name}"
                try:
                    with source.open("rb") as reading, (building / copy).open("wb") as writing:
                        shutil.copyfileobj(reading, writing, 1 << 20)
                        writing.flush()
                        os.fsync(writing.fileno())
                except IsADirectoryError:
                    continue
                except OSError as exc:
                    (building / copy).unlink(missing_ok=True)
                    unreadable.append((str(source), exc.strerror or str(exc)))
                    continue
                copies.append((str(source), copy))
            if files and not copies:
                shutil.rmtree(building, ignore_errors=True)
                return Handed(None, tuple(unreadable))
            request = dataclasses.replace(request, files=tuple(copies))
            _write_json(building / REQUEST, request.to_json())
            for path in (building, building / FILES, *(building / FILES).iterdir(), building / REQUEST):
                self._give(path)
            _sync_dir(building / FILES)
            os.rename(building, self.folder(ItemState.WAITING) / item_id)
            _sync_dir(self.folder(ItemState.WAITING))
        except OSError as exc:
            shutil.rmtree(building, ignore_errors=True)
            raise InboxError(f"{exc.filename or building}: {exc.strerror or exc}") from None
        item = self.get(item_id)
        assert item is not None
        return Handed(item, tuple(unreadable))

    # Reading --------------------------------------------------------------------------------------------------
    def _ids(self, state: ItemState | str) -> list[str]:
        """The items in `state`'s folder (or tmp/), in id order."""
        try:
            return sorted(entry.name for entry in os.scandir(self.folder(state)) if entry.is_dir())
        except FileNotFoundError:
            return []

    def waiting(self) -> list[str]:
        """The ids of the items handed and not yet performed, in the order they were handed."""
        return self._ids(ItemState.WAITING)

    def load(self, item_id: str, state: ItemState = ItemState.WAITING) -> Item:
        """The item `item_id` in `state`'s folder; `BadItem` when its request cannot be read, `FileNotFoundError`
        when it is not there (it moved on)."""
        path = self.folder(state) / item_id
        try:
            data = json.loads((path / REQUEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            if not path.is_dir():
                raise
            raise BadItem("the item holds no request") from None
        except (OSError, ValueError) as exc:
            raise BadItem(f"the request cannot be read ({exc})") from None
        result: dict[str, Any] | None = None
        with contextlib.suppress(OSError, ValueError):
            result = json.loads((path / RESULT).read_text(encoding="utf-8"))
        return Item(item_id, state, path, Request.from_json(data), result, (path / STARTED).exists())

    def get(self, item_id: str) -> Item | None:
        """The item `item_id` wherever it is (None when there is none, or it cannot be read)."""
        for state in ItemState:
            with contextlib.suppress(FileNotFoundError, BadItem):
                return self.load(item_id, state)
        return None

    def items(self, kinds: Sequence[Kind] = tuple(Kind)) -> list[Item]:
        """Every readable item of those `kinds`, newest first."""
        found: list[Item] = []
        for state in ItemState:
            for item_id in self._ids(state):
                with contextlib.suppress(FileNotFoundError, BadItem):
                    item = self.load(item_id, state)
                    if item.request.kind in kinds:
                        found.append(item)
        return sorted(found, key=lambda item: item.id, reverse=True)

    # The bot's side -------------------------------------------------------------------------------------------
    def mark_started(self, item: Item) -> None:
        (item.path / STARTED).touch()
        _sync_dir(item.path)

    def finish(self, item: Item, ok: bool, result: dict[str, Any]) -> Item:
        """File the result into the item, then the item into done/ (its copies removed) or failed/."""
        _write_json(item.path / RESULT, result)
        return self._move(item, ok)

    def _move(self, item: Item, ok: bool) -> Item:
        state = ItemState.DONE if ok else ItemState.FAILED
        target = self.folder(state) / item.id
        if ok:  # before the move: what reads done/ never finds the copies (the result is filed: never redone)
            shutil.rmtree(item.path / FILES, ignore_errors=True)
        os.rename(item.path, target)
        _sync_dir(self.folder(state))
        return dataclasses.replace(item, state=state, path=target)

    def move_on(self, item: Item) -> Item:
        """An item whose result was filed before its process stopped: into done/ or failed/ as the result says."""
        assert item.result is not None
        return self._move(item, bool(item.result.get("ok")))

    def reject(self, item_id: str, problem: str) -> None:
        """An item whose request cannot be read: into failed/, with the problem as its result."""
        path = self.folder(ItemState.WAITING) / item_id
        _write_json(path / RESULT, {"ok": False, "error": problem})
        os.rename(path, self.folder(ItemState.FAILED) / item_id)

    def record(self, request: Request, result: dict[str, Any]) -> Item:
        """A piece of work the bot did of itself (the watched folder), filed as if it had been handed."""
        self.make()
        item_id = new_id()
        building = self.folder("tmp") / item_id
        building.mkdir()
        _write_json(building / REQUEST, request.to_json())
        _write_json(building / RESULT, result)
        state = ItemState.DONE if result.get("ok") else ItemState.FAILED
        os.rename(building, self.folder(state) / item_id)
        return self.load(item_id, state)

    def prune(self, before: datetime) -> int:
        """Remove the performed items handed before `before`, and what a command left half-written in tmp/ then;
        how many."""
        stamp = f"{before.astimezone(UTC):%Y%m%d-%H%M%S}"
        removed = 0
        for state in ("tmp", ItemState.DONE, ItemState.FAILED):
            for item_id in self._ids(state):
                if item_id < stamp:
                    shutil.rmtree(self.folder(state) / item_id, ignore_errors=True)
                    removed += 1
        return removed


# --------------------------------------------------------------------------------------------- the work


BESIDE_BYTES = 64 << 10  # logs below this size are parsed in a thread: starting a worker costs more than they do


async def import_logs(
    db: Database, files: Sequence[Path], now: datetime, lang: str, scripts: Sequence[str] = DEFAULT_SCRIPTS
) -> ImportReport:
    """`bot.importer.import_files` in a running bot, each file stored in its own transaction: the reading, parsing
    and checking in a worker process of the idle scheduling class (`bot.importer.background_pool`), so the event
    loop and the database's thread keep the interpreter and the processor for the members and the live feed while
    a night's logs are parsed (in a thread of the bot they would hold its interpreter lock by turns); in one
    thread beside the event loop when that process does not start, or for less than `BESIDE_BYTES` of logs."""
    executor: concurrent.futures.Executor | None = None
    if sum(file_size(path) for path in files) >= BESIDE_BYTES:
        executor = await asyncio.to_thread(background_pool, 1, "spawn")
    if executor is None:
        executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="import")
    try:
        return await import_files(db, files, now, executor=executor, in_flight=2, lang=lang, scripts=scripts)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def report_json(report: ImportReport, names: dict[str, str] | None = None) -> dict[str, Any]:
    """An import's report as a result: its files, each named as the command named it (`names`: copy → name), their
    problems and refusals as values (`bot.i18n.problems.problem_json`), written in the reader's language when read."""
    files = []
    for file in report.files:
        data = {f.name: getattr(file, f.name) for f in dataclasses.fields(FileReport)}
        data["path"] = (names or {}).get(file.path, file.path)
        data["problems"] = [p if isinstance(p, str) else problem_json(p) for p in file.problems]
        data["refused"] = [p if isinstance(p, str) else problem_json(p) for p in file.refused]
        files.append(data)
    return {"ok": report.exit_status == 0, "files": files}


def result_report(result: dict[str, Any]) -> ImportReport:
    """The report an import's result holds (what `sudija import` prints of it)."""
    fields = {f.name for f in dataclasses.fields(FileReport)}
    files = []
    for data in result.get("files", []):
        file = FileReport(**{k: v for k, v in data.items() if k in fields})
        file.problems = [problem_from_json(p) for p in file.problems]
        file.refused = [problem_from_json(p) for p in file.refused]
        files.append(file)
    return ImportReport(files)


class Outcome(StrEnum):
    """What an outbox act came to (`sudija outbox --retry/--skip`)."""

    RETRIED = "retried"
    SKIPPED = "skipped"
    NO_ROW = "no_row"
    NOT_RETRIED = "not_retried"
    NOT_SKIPPED = "not_skipped"


def outbox_table(db: Database, chat: bool) -> OutboxTable[Any]:
    from storage.chat_outbox import ChatOutboxStore  # noqa: PLC0415 (the outbox tables only where an act needs them)
    from storage.outbox import OutboxStore  # noqa: PLC0415 (the outbox tables only where an act needs them)

    return ChatOutboxStore(db) if chat else OutboxStore(db)


RETRIABLE = (OutboxState.FAILED, OutboxState.DEAD)  # what `--retry` sends again
SKIPPABLE = (OutboxState.PENDING, OutboxState.FAILED, OutboxState.DEAD)  # what `--skip` gives up


def refusal(request: Request, state: OutboxState | None) -> Outcome | None:
    """Why an outbox act does not apply to a row in `state` (None: no such row); None when it does."""
    if state is None:
        return Outcome.NO_ROW
    if request.kind is Kind.RETRY and state not in RETRIABLE:
        return Outcome.NOT_RETRIED
    if request.kind is Kind.SKIP and state not in SKIPPABLE:
        return Outcome.NOT_SKIPPED
    return None


async def resolve_row(db: Database, request: Request) -> tuple[Outcome, OutboxState | None]:
    """Send an outbox row again (a failed or dead one) or skip it (a waiting, failed or dead one), recorded with the
    request's who, when and why; what came of it, and the state the row was in. A row already resolved by this very
    request (its act done before the process stopped) is not touched again."""
    assert request.row is not None
    table = outbox_table(db, request.chat)
    row = await table.get(request.row)
    done = Outcome.RETRIED if request.kind is Kind.RETRY else Outcome.SKIPPED
    if row is not None and row.resolution == Resolution(request.by, request.at, request.reason):
        return done, row.state
    if request.kind is Kind.RETRY:
        before = await table.retry(request.row, request.by, request.at, request.reason)
    else:
        assert request.reason is not None
        before = await table.skip(request.row, request.by, request.reason, request.at)
    return refusal(request, before) or done, before


async def perform(
    request: Request, db: Database, now: datetime, *, folder: Path, scripts: Sequence[str] = DEFAULT_SCRIPTS
) -> dict[str, Any]:
    """Do what `request` asks (its files under `folder`) and say what came of it: the result filed with the item
    (``ok``: everything done as asked)."""
    if request.kind in OUTBOX:
        outcome, before = await resolve_row(db, request)
        done = outcome in (Outcome.RETRIED, Outcome.SKIPPED)
        return {"ok": done, "outcome": outcome.value, "state": before.value if before is not None else None}
    copies = [folder / copy for _, copy in request.files]
    report = await import_logs(db, copies, now, request.lang, scripts)
    return report_json(report, {str(folder / copy): name for name, copy in request.files})


# --------------------------------------------------------------------------------------------- the bot's worker


Signature = tuple[int, int]  # a file's size and modification time (ns): it changed when either did


class FolderWatch:
    """The game logs that land in a folder (``[import] watch``): a log file is imported once it has stayed the same
    from one look to the next (not while it is still being written), and again whenever it changes. What was
    imported is remembered while the process runs: after a restart each file is read once more, and what the
    database holds already counts as unchanged."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._looked: dict[Path, Signature] = {}
        self._imported: dict[Path, Signature] = {}
        self._missing_said = False

    def settled(self) -> list[tuple[Path, Signature]]:
        """The files to import now, in name order, with the signature each had."""
        if not self.folder.is_dir():
            if not self._missing_said:
                log.warning("the watched folder %s does not exist (or is not a folder): nothing imported", self.folder)
                self._missing_said = True
            return []
        self._missing_said = False
        now: dict[Path, Signature] = {}
        for path in find_files([self.folder]):
            if any(part.startswith(".") for part in path.relative_to(self.folder).parts):
                continue  # a file being copied in under a hidden name (rsync's) or a hidden folder
            with contextlib.suppress(OSError):
                stat = path.stat()
                now[path] = (stat.st_size, stat.st_mtime_ns)
        ready = [(p, s) for p, s in now.items() if self._looked.get(p) == s and self._imported.get(p) != s]
        self._looked = now
        return ready

    def imported(self, path: Path, signature: Signature) -> None:
        self._imported[path] = signature


class InboxWorker:
    """In a running bot: performs what is handed to its inbox and imports what lands in its watched folder, every
    `interval` seconds (at once on `wake`; the first look when it starts). Only a process holding the database's
    lock (SQLite) or the club's gateway (PostgreSQL: no inbox there, the watched folder only) runs one."""

    def __init__(
        self,
        db: Database,
        now: Callable[[], datetime],
        *,
        inbox: Inbox | None,
        watch: FolderWatch | None,
        lang: str = "sr",
        scripts: Sequence[str] = DEFAULT_SCRIPTS,
        woken: Callable[[], None] = lambda: None,
        interval: float = 2.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.db = db
        self.now = now
        self.inbox = inbox
        self.watch = watch
        self.lang = lang
        self.scripts = scripts
        self.woken = woken  # an outbox row sent again: the outboxes' workers look at once
        self.interval = interval
        self.sleep = sleep
        self.performed = 0  # items performed (or moved on) by this process
        self._stuck: set[str] = set()  # items this process cannot write: said once, left for another
        self._task: asyncio.Task[None] | None = None
        self._woken = asyncio.Event()

    def wake(self) -> None:
        self._woken.set()

    async def poll(self) -> int:
        """One look: every item waiting, in order, then the watched folder; how many items and files were done.
        The database busy (another connection's write past the bound) leaves the rest for the next look."""
        done = 0
        if self.inbox is not None:
            for item_id in self.inbox.waiting():
                if item_id in self._stuck:
                    continue
                done += await self.perform(item_id)
        if self.watch is not None:
            done += await self._look(self.watch)
        return done

    async def perform(self, item_id: str) -> int:
        """Perform the waiting item `item_id` (or file the result it already has); 1 when it moved on, else 0."""
        inbox = self.inbox
        assert inbox is not None
        try:
            item = inbox.load(item_id)
        except FileNotFoundError:
            return 0
        except BadItem as bad:
            log.error("inbox item %s: %s; filed as failed", item_id, bad)
            try:
                inbox.reject(item_id, str(bad))
            except OSError:
                self._stuck.add(item_id)
                return 0
            return 1
        try:
            if item.result is not None:  # performed before the process stopped: only its filing was left
                inbox.move_on(item)
                self.performed += 1
                return 1
            inbox.mark_started(item)
            result = await self._work(item)
            inbox.finish(item, bool(result["ok"]), result)
        except OSError as exc:
            log.error("inbox item %s cannot be written (%s): left waiting for another process", item_id, exc)
            self._stuck.add(item_id)
            return 0
        self.performed += 1
        log.info("inbox item %s (%s by %s) done: %s", item_id, item.request.kind, item.request.by, _summary(result))
        if item.request.kind is Kind.RETRY and result["ok"]:
            self.woken()
        return 1

    async def _work(self, item: Item) -> dict[str, Any]:
        """The item's work and its result; the database busy is raised (the item waits for the next look), any
        other failure is its result."""
        try:
            result = await perform(item.request, self.db, self.now(), folder=item.path, scripts=self.scripts)
        except Exception as exc:
            if is_busy(exc):
                raise
            log.exception("inbox item %s (%s) failed", item.id, item.request.kind)
            result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        result["resumed"] = item.started
        return result

    async def _look(self, watch: FolderWatch) -> int:
        settled = watch.settled()
        if not settled:
            return 0
        now = self.now()
        report = await import_logs(self.db, [path for path, _ in settled], now, self.lang, self.scripts)
        for path, signature in settled:
            watch.imported(path, signature)
        for line in report.messages(Catalogue(self.lang).t):
            log.warning("watched folder: %s", line)
        log.info(
            "watched folder: %s file(s) read, %s game(s) imported, %s unchanged",
            len(report.files),
            report.imported,
            report.unchanged,
        )
        if self.inbox is not None and (report.imported or report.exit_status):
            request = Request(Kind.WATCH, "watch", now, self.lang, files=tuple((str(p), "") for p, _ in settled))
            self.inbox.record(request, report_json(report))
        return len(settled)

    async def run(self) -> None:
        """Look at once, then every `interval` (or when woken), until cancelled; a look that fails is logged and
        the next one tries again."""
        while True:
            try:
                await self.poll()
            except Exception as exc:
                if is_busy(exc):
                    log.warning("the inbox found the database busy (%s); the next look tries again", exc)
                else:
                    log.exception("the inbox's look failed; the next one tries again")
            resting = asyncio.ensure_future(self.sleep(self.interval))
            woken = asyncio.ensure_future(self._woken.wait())
            try:
                await asyncio.wait({resting, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                resting.cancel()
                woken.cancel()
            self._woken.clear()

    def start(self) -> None:
        """Start looking (the first look as soon as the event loop runs); performed items older than `KEEP_DAYS`
        are removed first."""
        if self.inbox is not None:  # made by the first command that hands something (`Inbox.hand`)
            try:
                self.inbox.prune(datetime.now(UTC) - timedelta(days=KEEP_DAYS))
            except OSError as exc:
                log.warning("the inbox %s: old items cannot be removed (%s)", self.inbox.root, exc)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="inbox")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)


def _summary(result: dict[str, Any]) -> str:
    if "error" in result:
        return str(result["error"])
    if "outcome" in result:
        return str(result["outcome"])
    report = result_report(result)
    return (
        f"{report.imported} game(s) imported, {report.unchanged} unchanged, {report.files_with_errors} file(s) in error"
    )
