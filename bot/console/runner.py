"""The console club's runner: builds the app on a manual clock over the console adapter, creates the demo club on
first start, and carries out input lines — interactively on a terminal (readline history), or as a script when
standard input is not a terminal (every line run and its output printed; exit 0 at the end, 1 with
``line N: …`` on standard error at the first line that cannot be read or carried out).

`run_console(config, db_path, demo, stdin, stdout)` is the entry point (`sudija console`, and `sudija run`
without a platform token).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import mimetypes
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from bot.app import BUSY_TIMEOUT_MS, App, DatabaseBusy, build_app
from bot.commands import Commands
from bot.config import Config
from bot.console.adapter import PLATFORM, ConsoleChat
from bot.console.language import (
    CLOCK_CEILING,
    MAX_STEP_DAYS,
    Attach,
    ClockStep,
    Close,
    Help,
    LineError,
    Presence,
    Press,
    Say,
    Sit,
    Who,
    parse_line,
)
from bot.dblock import DatabaseInUse, DatabaseLock, shared
from bot.demo import MEMBERS, OWNER, TABLE, build_demo, is_demo_club, is_empty
from bot.desk.deps import unwritten_key
from bot.i18n.phrases import phrase_text
from bot.messages import MESSAGES, Catalogue
from bot.ports import LoggingGameServer, ManualClock, ManualTimers, Upload
from bot.registry.spec import Place
from rules.members import JUDGING_ROLES, Member
from rules.phrases import Phrase

HISTORY = Path.home() / ".sudija_console_history"
DRAIN_SECONDS = 10.0  # how long a script run waits at its end for the outbox to reach the game server


class ConsoleGameServer(LoggingGameServer):
    """No game server in the console: what the desk asks of it is recorded, logged and shown as a remark."""

    def __init__(self) -> None:
        super().__init__()
        self.chat: ConsoleChat | None = None

    def _show(self, key: str, **params: object) -> None:
        if self.chat is not None:
            m = self.chat.messages
            self.chat.note(m.t("console.server", what=m.t(key, **params)))

    async def pause_table(self, game: int) -> None:
        await super().pause_table(game)
        self._show("console.server_pause", game=game)

    async def resume_table(self, game: int) -> None:
        await super().resume_table(game)
        self._show("console.server_resume", game=game)

    async def block_offers(self, nick: str) -> None:
        await super().block_offers(nick)
        self._show("console.server_block", nick=nick)

    async def unblock_offers(self, nick: str) -> None:
        await super().unblock_offers(nick)
        self._show("console.server_unblock", nick=nick)

    async def close_game(self, game: int) -> None:
        await super().close_game(game)
        self._show("console.server_close", game=game)

    async def set_suspension(self, nick: str, until: datetime | None) -> None:
        await super().set_suspension(nick, until)
        if until is None:
            self._show("console.server_suspension_off", nick=nick)
        else:
            self._show("console.server_suspension", nick=nick, until=until)

    async def set_restriction(self, nick: str, until: datetime) -> None:
        await super().set_restriction(nick, until)
        self._show("console.server_restriction", nick=nick, until=until)

    async def paper_changed(self, game: int, paper: dict[str, Any]) -> None:
        await super().paper_changed(game, paper)
        self._show("console.server_paper", game=game)

    async def set_plavac(self, nick: str, until: datetime | None) -> None:
        await super().set_plavac(nick, until)
        if until is None:
            self._show("console.server_plavac_off", nick=nick)
        else:
            self._show("console.server_plavac", nick=nick, until=until)


class Console:
    """One console session over an app whose clock is a `ManualClock` and whose chat is a `ConsoleChat`."""

    def __init__(self, app: App, chat: ConsoleChat, clock: ManualClock) -> None:
        self.app = app
        self.desk = app.desk
        self.chat = chat
        self.clock = clock
        self.commands = Commands(app.desk)
        self.staged: dict[str, Upload] = {}  # a file `!attach`ed, by nickname: it goes with his next command

    def t(self, key: str, **params: object) -> str:
        return self.desk.t(key, **params)

    def said(self, error: LineError) -> str:
        """What is wrong with a line, in the console's words (a part decided as a `Phrase` written in them too)."""
        params = {k: phrase_text(v, self.t) if isinstance(v, Phrase) else v for k, v in error.params.items()}
        return self.t(error.key, **params)

    async def member(self, nick: str) -> Member:
        """The member whose console account is `nick`, matched without case (``@Marko`` is marko)."""
        member = await self.desk.member_for(PLATFORM, nick)
        if member is None:
            folded = nick.casefold()
            member = next(
                (m for m in await self.desk.members() if (m.account(PLATFORM) or "").casefold() == folded), None
            )
        if member is None:
            raise LineError("console.unknown_nick", nick=nick)
        return member

    async def execute(self, line: str) -> None:
        """Carry out one line; raises `LineError` when it cannot be read or names something that is not there."""
        action = parse_line(line)
        if action is None:
            return
        if isinstance(action, Help):
            self.chat.write(self.t("console.help"))
            self.chat.write(self.t("console.help_down"))
            self.chat.write(self.t("console.help_close"))
            self.chat.write(self.t("console.help_attach"))
            self.chat.write(self.t("console.help_output"))  # what the bot prints, after every action a line may be
            self.chat.write(self.t("console.commands"))
            for usage in self.commands.help_text().split("\n"):
                self.chat.write("  " + usage)
        elif isinstance(action, Who):
            await self.who()
        elif isinstance(action, ClockStep):
            if action.delta is not None:
                if self.clock.now() > CLOCK_CEILING - action.delta:
                    raise LineError(
                        "console.clock_range", days=MAX_STEP_DAYS, year=CLOCK_CEILING.year, step=line.strip()[:40]
                    )
                await self.desk.store_clock(self.clock.now() + action.delta)  # kept first: a restart resumes
                self.clock.advance(action.delta)
            if not action.wake:  # the bot was down: no timer ran, nothing was acted on
                self.chat.note(self.t("console.clock_down", now=self.clock.now()))
                return
            self.chat.note(self.t("console.clock", now=self.clock.now()))
            await self.desk.run_due()
        elif isinstance(action, Say):
            await self.say(action)
        elif isinstance(action, Press):
            member = await self.member(action.nick)
            button = self.chat.find_button(member, member.account(PLATFORM) or action.nick, action.label)
            if button is None:
                raise LineError("console.no_button", nick=action.nick, label=action.label)
            reply = await self.desk.press(member, button.action, button.ref)
            self.chat.show_reply(member.account(PLATFORM) or action.nick, reply)
        elif isinstance(action, Close):
            await self.close(action.game)
        elif isinstance(action, Attach):
            member = await self.member(action.nick)
            self.staged[action.nick.casefold()] = read_upload(action.path)
            self.chat.note(self.t("console.attached", nick=member.nick, name=Path(action.path).name))
        elif isinstance(action, Presence):
            member = await self.member(action.nick)
            self.chat.note(self.t("console.online" if action.online else "console.offline", nick=member.nick))
            await self.desk.presence(member, action.online)
        else:
            assert isinstance(action, Sit)
            member = await self.member(action.nick)
            if action.game is not None and await self.desk.lookups.game_facts(action.game) is None:
                raise LineError("call.unknown_game", game=action.game)
            if action.game is None:
                self.chat.note(self.t("console.stands", nick=member.nick))
            else:
                self.chat.note(self.t("console.sits", nick=member.nick, game=action.game))
            await self.desk.seat(member, action.game)

    async def close(self, game: int) -> None:
        """An administrator closes a game in progress: the desk learns it as from the game server, and everyone
        seated at it stands up."""
        reply = await self.desk.trials.administrator_closed(game)
        if not reply.ok:
            raise LineError("console.refused", problem=reply.text)
        self.chat.note(reply.text)
        for member in await self.desk.members():
            if member.seated_game == game:
                await self.desk.seat(member, None)

    async def say(self, action: Say) -> None:
        member = await self.member(action.nick)
        upload = self.staged.pop(action.nick.casefold(), None) if action.text.startswith("/") else None
        reply = await self.commands.handle(member, action.text, upload, action.place)
        if reply is not None:
            self.chat.show_reply(member.account(PLATFORM) or action.nick, reply)
        elif action.place is Place.CLUB:
            return  # the club's own conversation is not the bot's
        elif not action.text.startswith("/") and await self.desk.open_trial_of(member) is None:
            self.chat.note(self.t("console.unheard", nick=member.nick))

    async def first_steps(self) -> str:
        """The start banner's suggestion: the first commands, for a member who can type them (one seated at a
        table first, so that his /sudija calls a referee at once)."""
        members = [m for m in await self.desk.members() if m.in_club and m.account(PLATFORM) is not None]
        if not members:
            return self.t("console.first_steps_empty")
        chosen = next((m for m in members if m.seated_game is not None), members[0])
        return self.t("console.first_steps", nick=chosen.account(PLATFORM))

    async def who(self) -> None:
        self.chat.write(self.t("console.who_title", now=self.clock.now()))
        for member in await self.desk.members():
            roles = sorted(self.desk.lookups.roles_of(member))
            parts = [", ".join(self.t(f"console.role_{r}") for r in roles)] if roles else []
            if member.account(PLATFORM) is None:
                parts.append(self.t("console.who_no_console"))
            if not member.in_club:
                parts.append(self.t("console.who_left"))
            parts.append(self.t("console.who_online" if member.online else "console.who_offline"))
            if member.on_duty and not JUDGING_ROLES.isdisjoint(member.roles):
                parts.append(self.t("console.who_on_duty"))
            if member.seated_game is not None:
                parts.append(self.t("console.who_seated", game=member.seated_game))
            judging = await self.desk.judging(member)
            if judging is not None:
                parts.append(self.t("console.who_judging", trial=judging.id, game=judging.game))
            else:
                trial = await self.desk.open_trial_of(member)
                if trial is not None:
                    parts.append(self.t("console.who_in_trial", trial=trial.id, game=trial.game))
            self.chat.write(f"  {member.nick:<10} " + " · ".join(parts))

    # Running -------------------------------------------------------------------------------------------
    async def run_script(self, stdin: TextIO, stderr: TextIO) -> int:
        number = 0
        while True:
            # Read off the event loop: a pipe's next line may be a while coming, and meanwhile the bot's timers,
            # sweep, HTTP endpoints (/healthz, /metrics, the game server's events) and outboxes go on. Text held in
            # memory is read at once.
            line = stdin.readline() if isinstance(stdin, io.StringIO) else await asyncio.to_thread(stdin.readline)
            if not line:
                return 0
            number += 1
            text = line.rstrip("\n")
            if not text.strip():
                continue
            self.chat.write(text if text.lstrip().startswith("#") else f"> {text}")
            try:
                await self.execute(text)
            except LineError as error:
                problem = self.said(error)
                stderr.write(self.t("console.line_error", line=number, problem=problem) + "\n")
                stderr.flush()
                return 1
            except DatabaseBusy as busy:  # another process holds the write lock: said, and the script goes on
                self.chat.note(self.t(unwritten_key(busy)))

    async def run_interactive(self) -> int:
        readline = _readline()
        while True:
            try:
                line = await asyncio.to_thread(input, "> ")
            except EOFError:
                self.chat.write("")
                break
            except KeyboardInterrupt:
                self.chat.write("")
                continue
            try:
                await self.execute(line)
            except LineError as error:
                self.chat.write(self.said(error))
            except DatabaseBusy as busy:
                self.chat.note(self.t(unwritten_key(busy)))
        if readline is not None:
            with contextlib.suppress(OSError):
                readline.write_history_file(HISTORY)
        return 0


def _readline() -> ModuleType | None:
    """The readline module with the history loaded, where the platform has one."""
    try:
        import readline  # noqa: PLC0415 (readline is optional)
    except ImportError:
        return None
    with contextlib.suppress(OSError):
        readline.read_history_file(HISTORY)
    readline.set_history_length(1000)
    return readline


def demo_config(config: Config) -> Config:
    """The demo club's configuration: the given one with the demo club's owner, nickname and console account."""
    return replace(config, owner=OWNER, owner_accounts=(f"{PLATFORM}:{OWNER}",))


async def run_console(
    config: Config,
    db_path: str,
    demo: bool,
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO | None = None,
    clock: ManualClock | None = None,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ready: Callable[[App], Awaitable[None]] | None = None,
    read_only: bool = False,
    what: str = "sudija console",
) -> int:
    """Run the console club on `db_path` (creating the demo club there when `demo` and the database is empty):
    interactive when `stdin` is a terminal, a script otherwise. Returns the exit status. The club's clock is
    kept in its database: a club resumes at its own time; a new one starts at the real current time, or at the
    clock given (tests). Another process holding the database is answered with a message, never a traceback.

    One bot per database (bot/dblock.py): on SQLite the console holds the database's lock while it runs, and a
    database another Sudija holds is refused naming its pid, nothing written; on PostgreSQL, where the bot's
    processes share the database, a console is refused unless `read_only` — then it only reads (no deadline acted
    on, no effect delivered, every write answered as refused)."""
    words = Catalogue(config.language, config.timezone)
    err = stderr or sys.stderr
    if read_only and demo:
        err.write(words.t("console.read_only_demo") + "\n")
        return 2
    if shared(db_path) and not read_only:
        err.write(words.t("console.postgres_read_only") + "\n")
        return 2
    lock = None
    if not read_only and db_path != ":memory:" and not shared(db_path):
        lock = DatabaseLock(db_path, what)
        try:
            lock.acquire()
        except DatabaseInUse as held:
            err.write(words.t("db.in_use", holder=held.holder_text(words), lock=str(held.path)) + "\n")
            return 1
    try:
        return await _run_console(config, db_path, demo, stdin, stdout, err, clock, busy_timeout_ms, ready, read_only)
    finally:
        if lock is not None:
            lock.release()


async def _run_console(
    config: Config,
    db_path: str,
    demo: bool,
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
    clock: ManualClock | None,
    busy_timeout_ms: int,
    ready: Callable[[App], Awaitable[None]] | None,
    read_only: bool,
) -> int:
    config = replace(config, database=db_path)
    given = clock
    clock = clock or ManualClock()
    server = ConsoleGameServer()
    linked = config.gameserver.enabled  # a real game server (or `sudija gameserver --demo`) takes the commands
    try:
        app = await build_app(
            config,
            clock=clock,
            timers=ManualTimers(),
            game_server=None if linked else server,
            database=db_path,
            sweep=True,
            busy_timeout_ms=busy_timeout_ms,
            read_only=read_only,
        )
    except DatabaseBusy:
        stderr.write(Catalogue(config.language, config.timezone).t("db.busy") + "\n")
        return 1

    def write(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    try:
        console = Console(app, ConsoleChat(write, app.desk.voice.messages, picture_dir(db_path)), clock)
        server.chat = console.chat
        app.attach(console.chat)
        resumed = await app.desk.stored_clock() if given is None else None
        if resumed is not None:
            clock.set(resumed)
        console.chat.write(console.t("console.banner", db=db_path, now=clock.now()))
        if read_only:
            console.chat.note(console.t("console.read_only"))
        if resumed is not None:
            console.chat.note(console.t("console.clock_resumed", now=resumed))
        elif not read_only:
            try:
                await app.desk.store_clock(clock.now())
            except DatabaseBusy:
                console.chat.note(console.t("db.busy"))
        if demo and await is_empty(app.desk):
            games = await build_demo(app.desk, PLATFORM)
            console.chat.note(console.t("console.demo_created", members=len(MEMBERS), games=len(games), table=TABLE))
        if demo and await is_demo_club(app.desk, PLATFORM):
            # The demo's owner only in the demo club: a real club database keeps the configured owner.
            app.config = app.desk.config = demo_config(app.config)
        console.chat.note(await console.first_steps())
        if not read_only:  # a console that only reads acts on no deadline and delivers nothing
            try:
                await app.desk.start()
            except DatabaseBusy:  # the safety sweep acts on what fell due once the lock is released
                console.chat.note(console.t("db.busy"))
            await app.start_link()
            app.start_inbox()  # what the writing commands hand the club's one writer (bot/inbox.py)
        if ready is not None:  # e.g. the reference game server starts its tables (`sudija gameserver --demo`)
            await ready(app)
        interactive = stdin is sys.stdin and _isatty(stdin)
        if interactive:
            return await console.run_interactive()
        status = await console.run_script(stdin, stderr)
        if app.link is not None:  # a script's commands reach the game server before the console exits
            await app.link.worker.drain(DRAIN_SECONDS)
        return status
    finally:
        await app.close()


def read_upload(path: str) -> Upload:
    """A local file as the platforms hand one over: its name, media type (by its extension) and bytes."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as problem:
        name = f"oserror.{errno.errorcode.get(problem.errno or 0, '').lower()}"
        why = (
            Phrase.of(name) if name in MESSAGES else problem.strerror or str(problem)
        )  # the system's words: a rare one
        raise LineError("console.attach_unreadable", path=path[:200], why=why) from None
    content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return Upload(file.name, content_type, data)


def picture_dir(db_path: str) -> Path:
    """Where the console writes the pictures it is sent: ``<database>-slike/`` beside the database (in the
    temporary directory for a database in memory)."""
    if db_path == ":memory:":
        return Path(tempfile.gettempdir()) / "sudija-slike"
    path = Path(db_path)
    return path.with_name(path.stem + "-slike")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.isatty(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
