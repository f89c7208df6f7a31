"""The typed command language (the console club and Telegram), generated from the command registry.

`Commands.handle(member, text)` reads one line: a command (``/sudija 1847258``, ``/presuda bule ruka 3 ana +4
-- vređanje``, ``/zavrsi`` …) is looked up in `bot.registry.REGISTRY` by its name or an alias, its words are read
by the command's declared arguments (`bot.registry.text`), and it runs through `bot.registry.run`; any other text
is a message in the member's trial, if he is in one. A malformed command is answered with what is wrong and the
command's usage line. The verdict draft's grammar is `bot.registry.drafts`.
"""

from __future__ import annotations

from bot import registry
from bot.desk import Desk
from bot.desk.deps import unwritten_key
from bot.desk.refused import Refused
from bot.ports import Reply, Upload
from bot.registry import refusal, run
from bot.registry.drafts import parse_draft
from bot.registry.spec import Caller, Command, Place, Usage, usage_lines
from bot.registry.text import fold, read_args, with_upload
from rules.members import Member
from rules.nicknames import without_invisible
from storage.errors import DatabaseBusy

TEXT_PLATFORM = "text"  # the caller of `handle`: a member the front end has already identified

__all__ = ["Commands", "Usage", "parse_draft"]


class Commands:
    def __init__(self, desk: Desk, commands: tuple[Command, ...] | None = None) -> None:
        self.desk = desk
        self.commands = registry.REGISTRY if commands is None else commands
        self.table: dict[str, Command] = {}
        for command in self.commands:
            for name in (command.name, *command.aliases):
                self.table[fold(name)] = command

    def find(self, line: str) -> tuple[str, Command | None, str]:
        """The typed name, its command (None if there is none) and the rest of the line, for ``/NAME …`` (an
        alias may be two words: ``/liga zatvori``; ``/NAME@bot`` is Telegram's address to one bot)."""
        head, _, rest = line.strip().removeprefix("/").partition(" ")
        name = fold(without_invisible(head.split("@", 1)[0]))
        second, _, after = rest.strip().partition(" ")
        two = f"{name} {fold(second)}"
        if second and two in self.table:
            return two, self.table[two], after
        return name, self.table.get(name), rest

    def help_text(self) -> str:
        return "\n".join(line for c in self.commands for line in usage_lines(self.desk.t(c.usage_key)))

    async def handle(
        self, member: Member, text: str, upload: Upload | None = None, place: Place = Place.PRIVATE
    ) -> Reply | None:
        """A line from a member the front end has identified (with the file he sent with it, if any), typed in
        `place` (privately, unless the front end says it was the club's chat); one who left the club may no longer
        act."""
        try:
            self.desk.links.gate(member)
        except Refused as refused:  # rendered here, at the edge, as before any command runs
            shown = self.desk.voice.refuse(refused.key, **refused.values)
            caller = Caller(TEXT_PLATFORM, str(member.id), None, place, refusal=shown)
            return await self.handle_as(caller, text, upload)
        return await self.handle_as(Caller(TEXT_PLATFORM, str(member.id), member, place), text, upload)

    async def handle_as(self, caller: Caller, text: str, upload: Upload | None = None) -> Reply | None:
        """A typed line, answered in the caller's language (`/jezik`), the club's for an account not linked. Text
        that is no command is a message in his trial when typed privately; in the club's chat it is not the
        bot's. A line the database could not take (it only reads, or another process held its write lock) changed
        nothing and says so."""
        async with self.desk.voice.reading(caller.member):
            try:
                return await self._handle_as(caller, text, upload)
            except DatabaseBusy as unwritten:
                return self.desk.voice.refuse(unwritten_key(unwritten))

    async def _handle_as(self, caller: Caller, text: str, upload: Upload | None = None) -> Reply | None:
        line = text.strip()
        seen = next((n for n, char in enumerate(line) if without_invisible(char)), len(line))
        line = line[seen:].strip()  # a pasted line may begin with a zero-width mark or a byte order mark
        if not line.startswith("/"):
            if caller.place is not Place.PRIVATE or not line:
                return None
            if caller.member is None:
                return caller.refusal
            return await self.desk.trials.say(caller.member, text)
        name, command, rest = self.find(line)
        if command is None:
            return self.desk.voice.refuse("command.unknown", name=name)
        return await self.run(caller, command, rest, upload)

    async def run(self, caller: Caller, command: Command, rest: str, upload: Upload | None = None) -> Reply:
        refused = refusal(self.desk, caller, command)  # before its words are read: who and where first
        if refused is not None:
            return refused
        try:
            args = with_upload(command, read_args(command, rest, self.desk.t), upload, self.desk.t)
        except Usage as problem:
            return self.desk.voice.refuse("command.usage", problem=str(problem), usage=self.desk.t(command.usage_key))
        return await run(self.desk, caller, command, args)
