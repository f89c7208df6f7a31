"""What the parts read of the club, shared by every part: a member's nickname and offices (the owner's too), a
nickname typed as the club may have it, a game's facts, log, kept paper and fall moves, the referees in the lobby,
a trial's space and conversation, a game's verdicts and paper as a reader may see them, and the calls' windows.
One per part, over the desk's one `DeskDeps`; what it writes is in the reader's words (`Voice`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import timedelta

from bot.config import Config
from bot.desk.deps import DeskDeps
from bot.desk.refused import Refused
from bot.desk.voice import Voice
from bot.papers import KeptPaper, PaperKeeper
from bot.pictures.attach import kept_paper_pictures
from bot.ports import Party, Reply, TrialSpace
from bot.records.access import trial_access
from bot.views import TranscriptLine, author_label, render_transcript_page, render_trials, transcript_pages
from rules.eligibility import GameFacts, RefereeFacts
from rules.fall_moves import FallMove, fall_move
from rules.gamelog import Game
from rules.members import Member, Office, PartyRole, Role, sees_names
from rules.nicknames import NickRefused, check_nick, check_scripts, identity_key
from rules.paper_render import paper_text
from storage.database import Database
from storage.states import SpaceState
from storage.trials import Participant, Trial, TrialMessage


@dataclass(frozen=True, slots=True)
class TrialsReading:
    """What one reader reads of a game's trials: who judged by name (else by function), and the trials whose
    conversation he may read."""

    names: bool
    readable: frozenset[int]


class Lookups:
    """The club's records as the parts read them (`self.lookups.nick(…)`, `self.lookups.trial_space(…)`)."""

    def __init__(self, deps: DeskDeps, voice: Voice) -> None:
        self.deps = deps
        self.voice = voice

    @property
    def db(self) -> Database:
        return self.deps.db

    @property
    def config(self) -> Config:
        return self.deps.config

    @property
    def call_time(self) -> timedelta:
        return timedelta(minutes=self.config.call_minutes)

    @property
    def claim_window(self) -> timedelta:
        return timedelta(days=self.config.claim_days)

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
        return self.voice.t(problem.message_key, **problem.values)

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
            return Reply(render_transcript_page(number, trial, said, page, self.voice.messages))
        said_by = {
            t.id: await self.transcript(t.id, names, show_referees)
            for t in trials
            if readable is None or t.id in readable
        }
        return Reply(render_trials(number, trials, names, show_referees, self.voice.messages, said_by))

    async def transcript(self, trial_id: int, names: dict[int, str], show_names: bool) -> list[TranscriptLine]:
        """A trial's whole conversation, each line labelled by its author (by function for the referee and a
        councilor when the viewer may not see their names)."""
        parties = await self.db.trials.participants(trial_id)
        return self.transcript_of(await self.db.trials.messages(trial_id), parties, names, show_names)

    def transcript_of(
        self,
        said: Sequence[TrialMessage],
        parties: Sequence[Participant],
        names: dict[int, str],
        show_names: bool,
    ) -> list[TranscriptLine]:
        """`transcript` of a conversation and participants already read."""
        roles = {p.member: p.role for p in parties}
        m = self.voice.messages
        return [TranscriptLine(msg.at, author_label(msg.member, roles, names, show_names, m), msg.text) for msg in said]

    async def trials_reading(
        self,
        viewer: Member | None,
        number: int,
        players: Sequence[str],
        trials: Sequence[Trial] | None = None,
        parties: Mapping[int, Sequence[Participant]] | None = None,
    ) -> TrialsReading:
        """What `viewer` reads of game `number`'s trials (the game `players` played), for every face that lists
        them (`/presude`, the web's Suđenja): the referees' names or their functions, and which trials' whole
        conversation (`bot.records.access`: as `/zapisnik`). `trials` and their `parties`, when given, are the
        game's as already read."""
        readable: set[int] = set()
        if viewer is not None:
            for one in trials if trials is not None else await self.db.trials.for_game(number):
                given = parties.get(one.id, []) if parties is not None else None
                if (await trial_access(self.db, self.config, viewer, one, players, given)).transcript:
                    readable.add(one.id)
        return TrialsReading(self.sees_referee_names(viewer), frozenset(readable))

    def sees_referee_names(self, viewer: Member | None) -> bool:
        """Only the offices in `referee_names_visible_to` see who judged (in /presude, /zapisnik, on the paper)."""
        return viewer is not None and sees_names(self.roles_of(viewer), set(self.config.referee_names_visible_to))

    async def paper(self, number: int, viewer: Member | None = None) -> Reply:
        """/papir <game>: the game's paper, computed from its log and the changes attached to its hands; a
        verdict's change shows its trial number, and the referee's name only to those who may see it."""
        kept = await self.kept_paper(number)
        names = self.sees_referee_names(viewer)
        language = self.voice.messages.language
        text = kept.derived(
            ("text", language, self.config.timezone, names),
            lambda: paper_text(kept.game, kept.paper_for(names), self.voice.t),
        )
        return Reply(text, pictures=await kept_paper_pictures(kept, language))
