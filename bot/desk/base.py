"""What every part of the desk shares: the look-ups they all need (a member, a game's facts, the referees in the
lobby, a trial's space, the game's verdicts and paper) over the dependencies each part is built with (`DeskDeps`:
the database, the ports, the clock, the configuration and the messages). A part inherits only these."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import AsyncIterator, Iterable, Sequence, Set
from contextlib import AbstractContextManager, asynccontextmanager
from datetime import datetime, timedelta

from bot import chat_outbox as chat_effect
from bot.arbitar_pool import ArbitarPool
from bot.chat_outbox import ChatOutbox
from bot.config import Config
from bot.desk.deps import DeskDeps
from bot.desk.refused import Refused
from bot.i18n.reader import reader_language, speaking
from bot.messages import Catalogue
from bot.papers import KeptPaper, PaperKeeper
from bot.pictures.attach import kept_paper_pictures
from bot.ports import Button, Chats, Clock, GameServerPort, Party, Reply, Timers, TrialSpace
from bot.views import TranscriptLine, author_label, render_transcript_page, render_trials, transcript_pages
from rules.eligibility import GameFacts, RefereeFacts
from rules.fall_moves import FallMove, fall_move
from rules.gamelog import Game
from rules.members import Member, Office, PartyRole, Role, sees_names
from rules.nicknames import NickRefused, check_nick, check_scripts, identity_key
from rules.paper_render import paper_json, paper_text
from storage.chat_outbox import NewEffect
from storage.database import Database
from storage.languages import member_language
from storage.states import SpaceState
from storage.trials import Trial

log = logging.getLogger(__name__)


class DeskBase:
    """The look-ups and texts every part needs, over the dependencies it is given (`DeskDeps`). The parts of one
    desk share one `DeskDeps`: `self.db`, `self.chat`, `self.config` … read it (and a desk reconfigured, as the
    tests do, is reconfigured for every part)."""

    def __init__(self, deps: DeskDeps) -> None:
        self.deps = deps

    @property
    def db(self) -> Database:
        return self.deps.db

    @db.setter
    def db(self, value: Database) -> None:
        self.deps.db = value

    @property
    def chat(self) -> Chats:
        return self.deps.chat

    @chat.setter
    def chat(self, value: Chats) -> None:
        self.deps.chat = value

    @property
    def game_server(self) -> GameServerPort:
        return self.deps.game_server

    @game_server.setter
    def game_server(self, value: GameServerPort) -> None:
        self.deps.game_server = value

    @property
    def clock(self) -> Clock:
        return self.deps.clock

    @clock.setter
    def clock(self, value: Clock) -> None:
        self.deps.clock = value

    @property
    def config(self) -> Config:
        return self.deps.config

    @config.setter
    def config(self, value: Config) -> None:
        self.deps.config = value

    @property
    def timers(self) -> Timers:
        return self.deps.timers

    @timers.setter
    def timers(self, value: Timers) -> None:
        self.deps.timers = value

    @property
    def club_messages(self) -> Catalogue:
        """The club's own texts (its chat, the call notices, the table, what is stored), whoever reads now."""
        return self.deps.catalogues[self.config.language]

    @property
    def call_time(self) -> timedelta:
        return timedelta(minutes=self.config.call_minutes)

    @property
    def claim_window(self) -> timedelta:
        return timedelta(days=self.config.claim_days)

    def now(self) -> datetime:
        return self.clock.now()

    @property
    def messages(self) -> Catalogue:
        """The texts of whoever reads now (`bot.i18n.reader`): the member answered, else the club's."""
        return self.deps.catalogues[reader_language() or self.config.language]

    def t(self, key: str, **params: object) -> str:
        return self.messages.t(key, **params)

    def plavac_name(self) -> str:
        """The penalty's name: the club's own (`[penalties] plavac_name`), else the catalogue's, in the reader's."""
        return self.config.penalties.plavac_name or self.t("term.plavac")

    def league_name(self) -> str:
        """The league's name: the club's own (`[penalties] league_name`), else the catalogue's in the reader's words."""
        return self.config.penalties.league_name or self.t("term.league")

    def club_voice(self) -> AbstractContextManager[None]:
        """Write for the club (its chat, the call notices, the table, a trial's space) in the club's language."""
        return speaking(None)

    @asynccontextmanager
    async def reading(self, member: Member | None) -> AsyncIterator[None]:
        """Write for this member (a reply, a private message, its buttons) in his own language (`/jezik`), or in
        the club's when he chose none or is not known."""
        language = None if member is None else await member_language(self.db, member.id)
        with speaking(language):
            yield

    def refuse(self, key: str, **params: object) -> Reply:
        return Reply(self.t(key, **params), ok=False)

    def is_owner(self, member: Member) -> bool:
        """The owner's powers need both: the configured nickname and one of the configured accounts."""
        return self.config.is_owner(member)

    def nickname(self, typed: str) -> str:
        """A nickname a member typed, as the club may have it (`rules.nicknames`: no invisible or look-alike
        character, only the club's scripts, NFC); otherwise `Refused` saying what is wrong and where."""
        try:
            return check_scripts(check_nick(typed), self.config.scripts)
        except NickRefused as problem:
            raise Refused("nick.bad", problem=self.nick_problem(problem)) from None

    def nick_problem(self, problem: NickRefused) -> str:
        """What is wrong with a nickname, in the reader's words."""
        return self.t(problem.message_key, **problem.values)

    async def known_nickname(self, typed: str) -> str:
        """`nickname`, spelled as the club knows it: a nickname whose identity key is a known one's
        (`rules.nicknames.identity_key`) is that one when only its case differs, and is refused naming it when it
        is spelled otherwise (a look-alike: ``rnarko`` for ``marko``). A nickname nobody has yet is as typed."""
        nick = self.nickname(typed)
        known = await self.db.nicknames.spelling(nick)
        if known is None and self.config.owner is not None and identity_key(nick) == identity_key(self.config.owner):
            known = self.config.owner
        if known is None or known == nick:
            return nick
        if unicodedata.normalize("NFKC", known).casefold() == unicodedata.normalize("NFKC", nick).casefold():
            return known
        raise Refused("nick.imitates", nick=nick, member=known)

    def roles_of(self, member: Member) -> frozenset[Office]:
        """His functions, and the owner's office when he is the owner (`Config.offices`)."""
        return self.config.offices(member)

    async def nick(self, member_id: int | None) -> str:
        if member_id is None:
            return "—"
        member = await self.db.members.get(member_id)
        return member.nick if member else f"#{member_id}"

    async def game_facts(self, number: int) -> GameFacts | None:
        summary = await self.db.games.summary(number)
        if summary is None:
            return None
        return GameFacts(summary.number, summary.rated, summary.ai, summary.status, summary.players, summary.ended_at)

    @property
    def papers(self) -> PaperKeeper:
        """The papers kept for this desk's database (`bot.papers`), shared by every part."""
        keeper = self.deps.papers
        if keeper is None or keeper.db is not self.db:  # a desk given another database keeps that one's papers
            keeper = self.deps.papers = PaperKeeper(self.db)
        return keeper

    async def kept_paper(self, number: int) -> KeptPaper:
        """Game `number`'s paper as stored now, computed once per change (`bot.papers`); refused for a game not
        stored. What shows the paper (`/papir`, a web page, the game server's copy) starts here."""
        kept = await self.papers.get(number)
        if kept is None:
            raise Refused("call.unknown_game", game=number)
        return kept

    async def load_game(self, number: int) -> Game:
        """The stored game (the kept paper's: one object per version, whose hands' scoring is reused)."""
        kept = await self.papers.get(number)
        assert kept is not None, f"game {number} vanished from the database"
        return kept.game

    async def paper_of(self, game: Game) -> KeptPaper:
        """The kept paper of `game` as `load_game` loaded it; when the game was written since (it is not the kept
        game), the paper of that `game` with the changes standing now (not kept)."""
        kept = await self.papers.get(game.number)
        if kept is not None and kept.game is game:
            return kept
        changes = tuple(await self.db.paper_changes.for_game(game.number))
        return KeptPaper(game.number, 0 if kept is None else kept.version, game, changes)

    async def fall_moves(self, number: int) -> list[FallMove]:
        """The game's standing fall moves from every source (`rules.fall_moves`), read from the stored changes."""
        moves = []
        for row in await self.db.paper_changes.rows(number):
            move = fall_move(row.kind, row.data, row.trial, row.id, row.hand)
            if move is not None:
                moves.append(move)
        return moves

    async def referee_facts(self, member: Member) -> RefereeFacts:
        judging = await self.db.trials.judging(member.id) is not None
        return RefereeFacts(
            member.id, member.nick, member.online, member.on_duty, member.seated_game is not None, judging
        )

    async def lobby(self, role: Role) -> list[tuple[Member, RefereeFacts]]:
        """Everyone holding `role`, with the facts the notification rules need (one query)."""
        return [
            (m, RefereeFacts(m.id, m.nick, m.online, m.on_duty, m.seated_game is not None, judging))
            for m, judging in await self.db.members.with_role_judging(role)
        ]

    async def trial_members(self, trial: Trial) -> list[Member]:
        return await self.db.members.in_trial(trial.id)

    async def trial_space(self, trial: Trial) -> TrialSpace:
        """The trial as its private space shows it: every party with his role, in the order they joined."""
        members = {m.id: m for m in await self.db.members.in_trial(trial.id)}
        parties = tuple(
            Party(members[p.member], PartyRole(p.role))
            for p in await self.db.trials.participants(trial.id)
            if p.member in members
        )
        states = await self.db.trials.space_states(trial.id)
        relayed = frozenset(p for p, (state, _) in states.items() if state is SpaceState.RELAYED)
        return TrialSpace(trial.id, trial.game, trial.in_game, trial.is_open, parties, relayed)

    async def trial_space_by_id(self, trial_id: int) -> TrialSpace | None:
        trial = await self.db.trials.get(trial_id)
        return None if trial is None else await self.trial_space(trial)

    async def verdict_list(
        self,
        number: int,
        show_referees: bool,
        readable: Set[int] | None = None,
        trial_id: int | None = None,
        page: int = 1,
    ) -> Reply:
        """The game's trials, each with its conversation when it is `readable` (None: every one); with
        `trial_id`, page `page` of that trial's conversation."""
        trials = await self.db.trials.for_game(number)
        names = {m.id: m.nick for m in await self.db.members.all()}
        if trial_id is not None:
            trial = next((t for t in trials if t.id == trial_id), None)
            if trial is None or (readable is not None and trial.id not in readable):
                raise Refused("presude.no_trial", game=number, trial=trial_id)
            said = await self.transcript(trial.id, names, show_referees)
            pages = transcript_pages(len(said))
            if not 1 <= page <= pages:
                raise Refused("presude.no_page", trial=trial.id, pages=pages)
            return Reply(render_transcript_page(number, trial, said, page, self.messages))
        said_by = {
            t.id: await self.transcript(t.id, names, show_referees)
            for t in trials
            if readable is None or t.id in readable
        }
        return Reply(render_trials(number, trials, names, show_referees, self.messages, said_by))

    async def transcript(self, trial_id: int, names: dict[int, str], show_names: bool) -> list[TranscriptLine]:
        """A trial's whole conversation, each line labelled by its author (by function for the referee and a
        councilor when the viewer may not see their names)."""
        roles = {p.member: p.role for p in await self.db.trials.participants(trial_id)}
        return [
            TranscriptLine(msg.at, author_label(msg.member, roles, names, show_names, self.messages), msg.text)
            for msg in await self.db.trials.messages(trial_id)
        ]

    def sees_referee_names(self, viewer: Member | None) -> bool:
        """Only the offices in `referee_names_visible_to` see who judged (in /presude, /zapisnik, on the paper)."""
        return viewer is not None and sees_names(self.roles_of(viewer), set(self.config.referee_names_visible_to))

    async def paper(self, number: int, viewer: Member | None = None) -> Reply:
        """/papir <game>: the game's paper, computed from its log and the changes attached to its hands; a
        verdict's change shows its trial number, and the referee's name only to those who may see it."""
        kept = await self.kept_paper(number)
        names = self.sees_referee_names(viewer)
        language = self.messages.language
        text = kept.derived(
            ("text", language, self.config.timezone, names),
            lambda: paper_text(kept.game, kept.paper_for(names), self.t),
        )
        return Reply(text, pictures=await kept_paper_pictures(kept, language))

    def paper_effect(self, number: int, queue: chat_effect.Queue | None = None) -> NewEffect:
        """The game server is to learn game `number`'s paper: written with the decision that changed it (a
        verdict, a correction), delivered through `paper_changed` with the paper as it then stands; in `queue`
        (a verdict's: its call's, so the paper goes before the table resumes), else the game's own."""
        return chat_effect.server(f"game:{number}" if queue is None else queue, "paper_changed", number)

    async def paper_changed(self, number: int) -> None:
        """Tell the game server the game's paper after a change landed (the delivery of a `paper_effect`)."""
        kept = await self.papers.get(number)
        if kept is not None:
            await self.game_server.paper_changed(number, paper_json(kept.game, kept.anonymous))

    # The chat outbox (bot.chat_outbox) -----------------------------------------------------------------------
    @property
    def chat_outbox(self) -> ChatOutbox:
        """The deliverer of the chat effects a decision writes in its transaction (one per desk)."""
        outbox = self.deps.chat_outbox
        if outbox is None:  # shared by every part through their one DeskDeps
            outbox = self.deps.chat_outbox = ChatOutbox(self)
        return outbox

    @property
    def arbitar_pool(self) -> ArbitarPool:
        """Where the Arbitar's analyses run (`[arbitar] workers` processes sharing `memory_mb`, one pool per desk)."""
        pool = self.deps.arbitar_pool
        if pool is None:  # shared by every part through their one DeskDeps
            arbitar = self.config.arbitar
            pool = self.deps.arbitar_pool = ArbitarPool(arbitar.workers, arbitar.memory_mb, self.config.club_id)
        return pool

    async def enqueue_effects(self, effects: Sequence[NewEffect]) -> None:
        """Effects of a decision whose record another part wrote (a game-server event the feed took): written to
        the chat outbox in a transaction of their own, then delivered like every other. A table's line is one
        (`bot.chat_outbox.tell_table`: the platforms get the table's players who are members when it is
        delivered); a decision of the desk writes its own in its transaction instead."""
        if effects:
            await self.chat_outbox.store.enqueue(effects, self.now())
            await self.deliver_effects()

    async def deliver_effects(self) -> None:
        """Deliver at once what the last decisions wrote to the chat outbox; a failure here loses nothing (the
        rows wait for the worker, or for the next start), so it is logged and the member still gets his answer."""
        try:
            await self.chat_outbox.deliver()
        except Exception:
            log.exception("the chat outbox could not deliver now; the worker will")
            self.chat_outbox.wake()

    async def reader_languages(self, members: Iterable[int]) -> dict[int, str | None]:
        """The language each member reads (None: the club's), read before a decision's transaction whose chat
        effects are written in it (`told`) for members known only inside it."""
        return {m: await member_language(self.db, m) for m in set(members)}

    def told(self, member: int, text: str, buttons: Sequence[Button] = ()) -> NewEffect:
        """A private message to `member`, in his own queue of the chat outbox (`member_queue`)."""
        return chat_effect.tell(member_queue(member), member, text, buttons)


def member_queue(member: int) -> str:
    """The chat outbox's queue of what one member is told of his standing (roles, the right to call, links,
    penalties) and of his links' platform effects: delivered in the order decided (denied, then restored)."""
    return f"member:{member}"
