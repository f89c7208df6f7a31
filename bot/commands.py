"""The text command language members type (the console club and Telegram use it; Discord has slash commands).

`Commands.handle(member, text)` reads one line: a command (``/sudija 1847258``, ``/presuda bule ruka 3 ana +4
-- vređanje``, ``/zavrsi`` …) becomes a desk use case; any other text is a message in the member's trial, if he
is in one. A malformed command is answered with what is wrong and the command's usage. Verdict drafts:

    /presuda bule [ruka N] NICK ±N [NICK ±N …] [kasno] [-- obrazloženje]   Promena bula (no hand: the game)
    /presuda bula RUKA KRIVAC [kasno] -- obrazloženje                       Odlazak u bulu umesto drugog
    /presuda kazna NICK [plavac DANA] [liga POENA] [napustio] [-- obrazloženje]
    /presuda svodjenje potvrdjujem -- obrazloženje                          ručno svođenje
    /presuda niko -- obrazloženje    /presuda bez -- obrazloženje

Governance (`governance_commands`): /postavi NICK ULOGA, /razresi NICK ULOGA -- razlog, /ostavka ULOGA,
/uskrati NICK [DANA | do GGGG-MM-DD] -- razlog, /vrati NICK, /akti [NICK], /clan [NICK], /liga zatvori [GGGG-MM].
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.desk import Desk
from bot.ports import Reply
from rules.verdicts import BulaChange, Draft, FallTransfer, Nobody, NoVerdict, Penalty, Settlement, Verdict
from storage.members import Member


class Usage(ValueError):
    """A command typed wrongly; the message says what is wrong."""


@dataclass(frozen=True)
class Command:
    name: str
    usage_key: str
    run: Callable[[Member, list[str], str], Awaitable[Reply | None]]


MAX_NUMBER = 2**31 - 1  # game numbers, hands, amounts: anything larger is a typing error
MAX_DAYS = 36_500


def _number(text: str, what: str, limit: int = MAX_NUMBER) -> int:
    try:
        value = int(text)
    except ValueError:
        raise Usage(f"{what}: '{text}'") from None
    if abs(value) > limit:
        raise Usage(f"{what}: '{text}' (≤ {limit})")
    return value


class Commands:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        table = [
            Command("sudija", "usage.sudija", self._sudija),
            Command("povuci", "usage.povuci", self._povuci),
            Command("presude", "usage.presude", self._presude),
            Command("papir", "usage.papir", self._papir),
            Command("dezurstvo", "usage.dezurstvo", self._dezurstvo),
            Command("ruke", "usage.ruke", self._ruke),
            Command("sudjenja", "usage.sudjenja", self._sudjenja),
            Command("vecnik", "usage.vecnik", self._vecnik),
            Command("promeni", "usage.promeni", self._promeni),
            Command("presuda", "usage.presuda", self._presuda),
            Command("zavrsi", "usage.zavrsi", self._zavrsi),
            Command("napusti", "usage.napusti", self._napusti),
            Command("katalog", "usage.katalog", self._katalog),
        ]
        self.table = {c.name: c for c in table}
        aliases = {"suđenja": "sudjenja", "većnik": "vecnik", "završi": "zavrsi", "dežurstvo": "dezurstvo",
                   "povuci_poziv": "povuci"}
        for alias, name in aliases.items():
            self.table[alias] = self.table[name]
        for command in governance_commands(self):
            self.add(command)
        for command in correction_commands(self):
            self.add(command)
        for command in korekcija_commands(self):
            self.add(command)

    def add(self, command: Command) -> None:
        """Further commands (governance, corrections) register here."""
        self.table[command.name] = command

    def help_text(self) -> str:
        seen: list[str] = []
        for command in self.table.values():
            text = self.desk.t(command.usage_key)
            if text not in seen:
                seen.append(text)
        return "\n".join(seen)

    async def handle(self, member: Member, text: str) -> Reply | None:
        line = text.strip()
        if not line.startswith("/"):
            return await self.desk.say(member, text) if line else None
        head, _, rest = line[1:].partition(" ")
        name = head.split("@", 1)[0].casefold()
        command = self.table.get(name)
        if command is None:
            return self.desk.refuse("command.unknown", name=name)
        words = rest.split()
        try:
            return await command.run(member, words, rest)
        except Usage as problem:
            return self.desk.refuse("command.usage", problem=str(problem), usage=self.desk.t(command.usage_key))

    # The commands ----------------------------------------------------------------------------------------
    async def _sudija(self, member: Member, words: list[str], rest: str) -> Reply:
        if len(words) > 1:
            raise Usage(self.desk.t("usage.one_game"))
        return await self.desk.call(member, _number(words[0], self.desk.t("usage.game_number")) if words else None)

    async def _povuci(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.withdraw(member, None)

    async def _game(self, words: list[str]) -> int:
        if len(words) != 1:
            raise Usage(self.desk.t("usage.one_game"))
        return _number(words[0], self.desk.t("usage.game_number"))

    async def _presude(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.verdicts(member, await self._game(words))

    async def _papir(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.paper(await self._game(words))

    async def _dezurstvo(self, member: Member, words: list[str], rest: str) -> Reply:
        if words and words[0].casefold() not in ("da", "ne", "on", "off"):
            raise Usage(self.desk.t("usage.yes_no"))
        on = (words[0].casefold() in ("da", "on")) if words else not member.on_duty
        return await self.desk.set_duty(member, on)

    async def _ruke(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.show_hands(member)

    async def _sudjenja(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.history(member)

    async def _vecnik(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.call_councilor(member)

    async def _promeni(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.change_game(member, await self._game(words))

    async def _zavrsi(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.finish(member)

    async def _napusti(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.leave(member)

    async def _katalog(self, member: Member, words: list[str], rest: str) -> Reply:
        return Reply(self.desk.catalogue_text())

    async def _presuda(self, member: Member, words: list[str], rest: str) -> Reply:
        return await self.desk.draft(member, parse_draft(rest, self.desk.t))


def parse_draft(text: str, t: Callable[..., str]) -> Draft:
    """Read a verdict draft (see the module docstring); raise `Usage` saying what is wrong."""
    body, _, reason = text.partition("--")
    words = body.split()
    if not words:
        raise Usage(t("usage.draft_kind"))
    kind, args = words[0].casefold(), words[1:]
    late = "kasno" in [a.casefold() for a in args]
    args = [a for a in args if a.casefold() != "kasno"]
    verdict: Verdict
    if kind == "bule":
        hand = None
        if len(args) >= 2 and args[0].casefold() == "ruka":
            hand = _number(args[1], t("usage.hand_number"))
            args = args[2:]
        if not args or len(args) % 2:
            raise Usage(t("usage.amounts"))
        amounts = {}
        for nick, amount in zip(args[::2], args[1::2], strict=True):
            amounts[nick] = _number(amount, t("usage.amount"))
        verdict = BulaChange(amounts, hand, late)
    elif kind == "bula":
        if len(args) != 2:
            raise Usage(t("usage.bula"))
        verdict = FallTransfer(_number(args[0], t("usage.hand_number")), args[1], late)
    elif kind == "kazna":
        if not args:
            raise Usage(t("usage.kazna"))
        culprit, args = args[0], [a.casefold() for a in args[1:]]
        plavac = liga = 0
        abandoned = False
        offence = ""
        i = 0
        while i < len(args):
            if args[i] == "po" and i + 1 < len(args):
                offence, i = args[i + 1], i + 2
            elif args[i] == "plavac" and i + 1 < len(args):
                plavac, i = _number(args[i + 1], t("usage.days"), MAX_DAYS), i + 2
            elif args[i] == "liga" and i + 1 < len(args):
                liga, i = _number(args[i + 1], t("usage.points")), i + 2
            elif args[i] == "napustio":
                abandoned, i = True, i + 1
            else:
                raise Usage(t("usage.kazna"))
        verdict = Penalty(culprit, plavac, liga, abandoned, offence)
    elif kind in ("svodjenje", "svođenje"):
        verdict = Settlement(innocent_confirmed=bool(args) and args[0].casefold() in ("potvrdjujem", "potvrđujem"))
    elif kind == "niko":
        verdict = Nobody()
    elif kind == "bez":
        verdict = NoVerdict()
    else:
        raise Usage(t("usage.draft_kind"))
    return Draft(verdict, reason.strip())


# Governance (bot.desk.governance) ----------------------------------------------------------------------------
def governance_commands(commands: Commands) -> list[Command]:
    """/postavi, /razresi, /ostavka, /uskrati, /vrati, /akti, /clan, /liga: club governance as text commands."""
    desk = commands.desk

    def split(rest: str) -> tuple[list[str], str]:
        body, _, reason = rest.partition("--")
        return body.split(), reason.strip()

    def role(word: str) -> str:
        from bot.desk.governance import role_of

        found = role_of(word)
        if found is None:
            raise Usage(desk.t("usage.role"))
        return found

    async def postavi(member: Member, words: list[str], rest: str) -> Reply:
        args, reason = split(rest)
        if len(args) != 2:
            raise Usage(desk.t("usage.nick_role"))
        return await desk.appoint(member, args[0], role(args[1]), reason)

    async def razresi(member: Member, words: list[str], rest: str) -> Reply:
        args, reason = split(rest)
        if len(args) != 2:
            raise Usage(desk.t("usage.nick_role"))
        return await desk.dismiss(member, args[0], role(args[1]), reason)

    async def ostavka(member: Member, words: list[str], rest: str) -> Reply:
        args, reason = split(rest)
        if len(args) != 1:
            raise Usage(desk.t("usage.role"))
        return await desk.resign(member, role(args[0]), reason)

    async def uskrati(member: Member, words: list[str], rest: str) -> Reply:
        from datetime import UTC, datetime, timedelta

        args, reason = split(rest)
        if not args or len(args) > 3:
            raise Usage(desk.t("usage.uskrati"))
        until: datetime | None = None
        extra = [a.casefold() for a in args[1:]]
        if len(extra) == 2 and extra[0] == "do":
            try:
                until = datetime.strptime(extra[1], "%Y-%m-%d").replace(tzinfo=UTC)
            except ValueError:
                raise Usage(desk.t("usage.date")) from None
        elif len(extra) == 1:
            until = desk.now() + timedelta(days=_number(extra[0], desk.t("usage.days"), MAX_DAYS))
        elif extra:
            raise Usage(desk.t("usage.uskrati"))
        return await desk.deny_call(member, args[0], until, reason)

    async def vrati(member: Member, words: list[str], rest: str) -> Reply:
        args, reason = split(rest)
        if len(args) != 1:
            raise Usage(desk.t("usage.one_nick"))
        return await desk.restore_call(member, args[0], reason)

    async def akti(member: Member, words: list[str], rest: str) -> Reply:
        if len(words) > 1:
            raise Usage(desk.t("usage.one_nick"))
        return await desk.acts(member, words[0] if words else None)

    async def clan(member: Member, words: list[str], rest: str) -> Reply:
        if len(words) > 1:
            raise Usage(desk.t("usage.one_nick"))
        return await desk.member_status(member, words[0] if words else None)

    async def liga(member: Member, words: list[str], rest: str) -> Reply:
        args, reason = split(rest)
        if not args or args[0].casefold() != "zatvori" or len(args) > 2:
            raise Usage(desk.t("usage.liga"))
        return await desk.close_league(member, args[1] if len(args) == 2 else None, reason)

    return [Command("postavi", "usage.postavi", postavi), Command("razresi", "usage.razresi", razresi),
            Command("razreši", "usage.razresi", razresi), Command("ostavka", "usage.ostavka", ostavka),
            Command("uskrati", "usage.uskrati", uskrati), Command("vrati", "usage.vrati", vrati),
            Command("akti", "usage.akti", akti), Command("clan", "usage.clan", clan),
            Command("član", "usage.clan", clan), Command("liga", "usage.liga", liga)]


# Corrections without a referee (bot.desk.corrections) ------------------------------------------------------
def correction_commands(commands: Commands) -> list[Command]:
    """/bula, /ponisti, /arbitar, /ispravka, /prihvatam, /odbijam: the players' corrections as text commands."""
    desk = commands.desk

    def hand_game(words: list[str]) -> tuple[int, int | None]:
        if not 1 <= len(words) <= 2:
            raise Usage(desk.t("usage.hand_game"))
        hand = _number(words[0], desk.t("usage.hand_number"))
        game = _number(words[1], desk.t("usage.game_number")) if len(words) > 1 else None
        return hand, game

    async def bula(member: Member, words: list[str], rest: str) -> Reply:
        return await desk.go_into_bula(member, *hand_game(words))

    async def ponisti(member: Member, words: list[str], rest: str) -> Reply:
        from bot.desk.corrections import CANCEL_CHOICES

        what = words[-1].casefold() if words and words[-1].casefold() in CANCEL_CHOICES else None
        hand, game = hand_game(words[:-1] if what else words)
        return await desk.cancel(member, hand, game, what)

    async def arbitar(member: Member, words: list[str], rest: str) -> Reply:
        return await desk.offer_arbitar(member, *hand_game(words))

    async def ispravka(member: Member, words: list[str], rest: str) -> Reply:
        body, _, reason = rest.partition("--")
        hand, game = hand_game(body.split())
        return await desk.propose_ispravka(member, hand, game, reason.strip())

    async def korekcije(member: Member, words: list[str], rest: str) -> Reply:
        if len(words) > 1:
            raise Usage(desk.t("usage.one_game"))
        return await desk.corrections_status(member, _number(words[0], desk.t("usage.game_number")) if words else None)

    def answer(yes: bool) -> Callable[[Member, list[str], str], Awaitable[Reply]]:
        async def run(member: Member, words: list[str], rest: str) -> Reply:
            if len(words) > 1:
                raise Usage(desk.t("usage.prihvatam" if yes else "usage.odbijam"))
            request = _number(words[0], desk.t("usage.prihvatam" if yes else "usage.odbijam")) if words else None
            return await desk.answer(member, request, yes)
        return run

    return [Command("bula", "usage.korekcija_bula", bula), Command("ponisti", "usage.ponisti", ponisti),
            Command("poništi", "usage.ponisti", ponisti), Command("arbitar", "usage.arbitar", arbitar),
            Command("ispravka", "usage.ispravka", ispravka), Command("prihvatam", "usage.prihvatam", answer(True)),
            Command("odbijam", "usage.odbijam", answer(False)), Command("korekcije", "usage.korekcije", korekcije)]


# Korekcija of a wrong click over the game-server link (bot.gameserver.korekcija) ---------------------------------
def korekcija_commands(commands: Commands) -> list[Command]:
    """/korekcija [GAME] asks; /korekcija da|ne [REQUEST] consents or refuses."""
    from bot.gameserver.korekcija import korekcija_of

    desk = commands.desk
    korekcija = korekcija_of(desk)

    async def run(member: Member, words: list[str], rest: str) -> Reply:
        if words and words[0].casefold() in ("da", "ne"):
            if len(words) > 2:
                raise Usage(desk.t("usage.yes_no_request"))
            request = _number(words[1], desk.t("usage.yes_no_request")) if len(words) == 2 else None
            return await korekcija.answer(member, request, words[0].casefold() == "da")
        if len(words) > 1:
            raise Usage(desk.t("usage.one_game"))
        return await korekcija.request(member, _number(words[0], desk.t("usage.game_number")) if words else None)

    return [Command("korekcija", "usage.korekcija", run)]
