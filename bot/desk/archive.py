"""The club's records as pages (the web's Partije, a game with its paper and Prikaz ruke, Suđenja, a member's
record, the council's desk): what each shows its reader, as values a front end renders.

Every page is decided by the rules the chat follows, through the same look-ups: who reads a trial's conversation
and who sees the referees' names (`Lookups.trials_reading`, as `/presude` and `/zapisnik`), the paper with the
referees' names only for those who may see them (as `/papir`), the council's figures only for the councilors and
the owner (as `/statistika`), the appeals waiting only for them (as `/zalbe`). What the chat has no command for
is ruled in `rules.members`: who is listed every game (`sees_every_game`), who sees every card of a game's hands
(`sees_hands`), whose whole record a member may read (`sees_member_record`), who sits at the council's desk
(`sits_at_council`). A page its reader may not see is refused (`Refused`), never shown in part.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from bot.desk.base import DeskBase
from bot.desk.corrections import CorrectionDesk
from bot.desk.deps import DeskDeps
from bot.desk.penalties import MemberCard, PenaltyDesk
from bot.desk.refused import Refused
from bot.desk.statistics import club_zone, council_figures
from bot.papers import KeptPaper
from bot.views import TranscriptLine, render_verdict
from rules.arbitar.evidence import evidence_lines
from rules.cards import Card
from rules.gamelog import Contract, Game, GameStatus, Hand
from rules.members import (
    Member,
    PartyRole,
    Role,
    sees_every_game,
    sees_hands,
    sees_member_record,
    sits_at_council,
)
from rules.nicknames import identity_key
from rules.paper import Paper, PaperHand
from rules.paper_render import RefeMark, refe_marks
from rules.play import playing_hands, replay
from rules.problems import Problem
from rules.statistics import Figures
from rules.verdicts import verdict_from_json
from storage.archive import GameMarks
from storage.corrections import CorrectionRequest
from storage.councils import Appeal, Vote
from storage.games import GameSummary
from storage.league import Standing
from storage.members import CallBan
from storage.penalties import PenaltyRow
from storage.states import AppealState, CorrectionKind, EndReason, RequestState, TrialOutcome
from storage.trials import Trial

LIST_LIMIT = 100  # games on one page of Partije
MEMBER_GAMES = 50  # a member's newest games on his page
MEMBER_TRIALS = 50
LEAGUE_MONTHS = 12  # a member's league months shown, newest first

Holdings = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


# Partije ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameQuery:
    """What Partije is searched by: a game's number, a player's nickname, a day (in the club's time zone)."""

    number: int | None = None
    player: str | None = None
    day: date | None = None


@dataclass(frozen=True, slots=True)
class GameLine:
    summary: GameSummary
    marks: GameMarks


@dataclass(frozen=True, slots=True)
class GamesPage:
    lines: tuple[GameLine, ...]
    query: GameQuery
    every_game: bool  # an official's list (every game), else the reader's own games
    more: bool  # the search found more than one page holds


# A game ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TrickView:
    """One trick of Prikaz ruke: its cards in play order with their seats, who took it, and every seat's cards
    before it was played."""

    number: int
    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int
    before: Holdings


@dataclass(frozen=True, slots=True)
class Analysis:
    """The Arbitar's analysis of a fallen defender's fall, as the players were told it, in the reader's words."""

    request: int
    hand: int
    fallen: int
    transfers: bool
    to: int | None
    step: int | None
    reason: str
    trick: int | None  # the decisive trick
    card: str | None  # the card played there
    better: str | None  # the better card
    evidence: tuple[str, ...]  # every fact of it as a sentence, in the reader's words (rules.arbitar.evidence)


@dataclass(frozen=True, slots=True)
class HandView:
    hand: Hand
    on_paper: PaperHand | None
    playing: Holdings  # every seat's cards as play began (the declarer's after the talon and his discards)
    tricks: tuple[TrickView, ...]
    taken: tuple[int, int, int]  # tricks each seat took
    after: Holdings  # the cards left when the recorded play stopped
    problems: tuple[Problem, ...]  # where the recorded play breaks the rules (rules.play.replay)
    analyses: tuple[Analysis, ...]


@dataclass(frozen=True, slots=True)
class HandLine:
    """One hand in the game's list: its contract (None: all passed), and whether the Arbitar analysed it and
    whether its paper was changed."""

    n: int
    declarer: int | None
    contract: Contract | None
    analysed: bool
    changed: bool


@dataclass(frozen=True, slots=True)
class GamePage:
    summary: GameSummary
    game: Game
    paper: Paper
    refe: tuple[tuple[RefeMark, ...], tuple[RefeMark, ...], tuple[RefeMark, ...]]
    marks: GameMarks
    names: bool  # the referees' names on the paper's changes (else their trial numbers only)
    hands: tuple[HandLine, ...] | None  # None: the reader may not see the cards
    hand: HandView | None = None  # the hand asked for (Prikaz ruke), where he may see it
    kept: KeptPaper | None = None  # the kept paper it was read from: what a face makes of it is kept there too


# Suđenja ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AppealLine:
    appeal: Appeal
    appellant: str
    councilor: str | None  # by name (None: by function, or nobody yet)
    judged: bool  # a councilor took it (shown by function when his name is not)


@dataclass(frozen=True, slots=True)
class TrialEntry:
    trial: Trial
    caller: str
    referee: str | None  # None: shown by function
    verdict: str | None  # the recorded verdict in words
    reason: str | None
    ended: str | None  # why an interrupted trial ended, in words
    hands: tuple[int, ...]  # the hands whose paper its verdict changed
    transcript: tuple[TranscriptLine, ...] | None  # None: not his to read
    record: bool  # its signed record may be downloaded (readable and closed)
    appeals: tuple[AppealLine, ...]
    hearing_of: int | None  # the appeal this trial heard


@dataclass(frozen=True, slots=True)
class TrialsPage:
    summary: GameSummary
    names: bool
    entries: tuple[TrialEntry, ...]
    reports: tuple[AppealLine, ...] = ()  # the reports of an incident in the game (appeals of no trial)


# A member --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PenaltyLine:
    row: PenaltyRow
    in_force: bool


@dataclass(frozen=True, slots=True)
class MemberPage:
    card: MemberCard
    himself: bool
    games: tuple[GameSummary, ...]
    trials: tuple[Trial, ...]  # the trials of his games, newest first
    verdicts: dict[int, str]  # trial → its verdict in words
    penalties: tuple[PenaltyLine, ...]
    plavac_since: datetime | None
    league: tuple[Standing, ...]  # his league months, newest first
    napustio: int
    call_ban: CallBan | None
    appeal_ban_until: datetime | None


# The council's desk ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WaitingAppeal:
    appeal: Appeal
    game: int | None
    appellant: str
    councilor: str | None
    overdue: bool  # its review deadline has passed


@dataclass(frozen=True, slots=True)
class OpenVote:
    vote: Vote
    proposer: str
    subject: str
    ballots: tuple[tuple[str, bool | None], ...]  # every councilor who votes (the subject excepted): Da, Ne, not yet


@dataclass(frozen=True, slots=True)
class CouncilPage:
    appeals: tuple[WaitingAppeal, ...]
    votes: tuple[OpenVote, ...]
    figures: Figures
    start: date | None
    end: date | None


def _holdings(held: Sequence[set[Card]]) -> Holdings:
    return tuple(sorted(held[0])), tuple(sorted(held[1])), tuple(sorted(held[2]))


class ArchiveDesk(DeskBase):
    """The club's records as pages, each for one reader (see the module docstring)."""

    def __init__(self, deps: DeskDeps, penalties: PenaltyDesk, corrections: CorrectionDesk) -> None:
        super().__init__(deps)
        self.penalties = penalties
        self.corrections = corrections

    # Partije -----------------------------------------------------------------------------------------------
    async def games_page(self, viewer: Member, query: GameQuery) -> GamesPage:
        """The reader's games (an official's: every game), newest first, searched by `query`."""
        every = sees_every_game(self.lookups.roles_of(viewer))
        played_by = [] if every else [viewer.nick]
        if query.player:
            player = await self.lookups.known_nickname(query.player)
            if identity_key(player) != identity_key(viewer.nick) or every:
                played_by.append(player)
        start = end = None
        if query.day is not None:
            zone = club_zone(self.config.timezone)
            start = datetime.combine(query.day, time(), tzinfo=zone)
            end = start + timedelta(days=1)
        found = await self.db.games.search(played_by, query.number, start, end, LIST_LIMIT + 1)
        shown = found[:LIST_LIMIT]
        marks = await self.db.archive.marks([s.number for s in shown])
        lines = tuple(GameLine(s, marks.get(s.number, GameMarks())) for s in shown)
        return GamesPage(lines, query, every, len(found) > LIST_LIMIT)

    # A game ------------------------------------------------------------------------------------------------
    async def game_page(self, viewer: Member, number: int, hand: int | None = None) -> GamePage:
        """A game as `/papir` shows it (the referees' names only to those who may see them), its marks, and —
        where `rules.members.sees_hands` lets the reader — every hand (or only `hand`) trick by trick with the
        Arbitar's analyses."""
        summary = await self.db.games.summary(number)
        if summary is None:
            raise Refused("call.unknown_game", game=number)
        names = self.lookups.sees_referee_names(viewer)
        kept = await self.lookups.kept_paper(number)  # computed once per change of the game (bot.papers)
        game, paper = kept.game, kept.paper_for(names)
        marks = (await self.db.archive.marks([number])).get(number, GameMarks())
        played = game.seat_of(viewer.nick) is not None
        judging = await self._judges(viewer, number)
        shown = sees_hands(self.lookups.roles_of(viewer), played, judging, summary.status is GameStatus.IN_PROGRESS)
        if hand is not None and not any(h.n == hand for h in game.hands):
            raise Refused("page.not_shown")
        lines: tuple[HandLine, ...] | None = None
        view: HandView | None = None
        if shown:
            analyses = await self._analyses(game)
            lines = tuple(
                HandLine(h.n, h.declarer, h.contract, h.n in analyses, bool(changes.changes))
                for h, changes in zip(game.hands, paper.hands, strict=True)
            )
            if hand is not None:
                chosen = game.hands[[h.n for h in game.hands].index(hand)]
                view = self._hand(chosen, paper.hand(hand), tuple(analyses.get(hand, ())))
        return GamePage(summary, game, paper, refe_marks(paper), marks, names, lines, view, kept)

    async def _judges(self, viewer: Member, number: int) -> bool:
        """Does `viewer` judge the game's open trial now (its referee, or a councilor joined to it)?"""
        trial = await self.db.trials.open_for_game(number)
        if trial is None:
            return False
        return any(
            p.member == viewer.id and p.role in (PartyRole.REFEREE, PartyRole.COUNCILOR)
            for p in await self.db.trials.participants(trial.id)
        )

    async def _analyses(self, game: Game) -> dict[int, list[Analysis]]:
        """The Arbitar's analyses made in the game, by hand."""
        analyses: dict[int, list[Analysis]] = {}
        for request in await self._analyses_made(game.number):
            analysis = self._analysis(game, request.id, request.hand, request.seat, request.verdict or {})
            analyses.setdefault(request.hand, []).append(analysis)
        return analyses

    async def _analyses_made(self, number: int) -> list[CorrectionRequest]:
        """The game's decided Arbitar requests (the analyses made), oldest first."""
        requests = await self.corrections.corrections_store.for_game(number)
        return [
            r
            for r in requests
            if r.kind is CorrectionKind.ARBITAR and r.state is RequestState.DECIDED and r.verdict is not None
        ]

    def _hand(self, hand: Hand, on_paper: PaperHand | None, analyses: tuple[Analysis, ...]) -> HandView:
        playing = playing_hands(hand)
        played = replay(hand)
        held = [set(cards) for cards in playing]
        tricks = []
        taken = [0, 0, 0]
        for trick in played.tricks:
            before = _holdings(held)
            seats = tuple((trick.seat_of(i), card) for i, card in enumerate(trick.cards))
            for seat, card in seats:
                held[seat].discard(card)
            taken[trick.winner] += 1
            tricks.append(TrickView(trick.number, trick.leader, seats, trick.winner, before))
        after = _holdings(held)
        return HandView(
            hand, on_paper, playing, tuple(tricks), (taken[0], taken[1], taken[2]), after, played.problems, analyses
        )

    @staticmethod
    def _other_defender(game: Game, n: int, fallen: int) -> str:
        """The nickname of the defender beside `fallen` in hand `n` (as the Arbitar's picture names him)."""
        hand = next((h for h in game.hands if h.n == n), None)
        declarer = hand.declarer if hand is not None else None
        if declarer is None or declarer == fallen:
            return "?"
        return game.players[3 - declarer - fallen]

    def _analysis(self, game: Game, request: int, n: int, fallen: int, verdict: dict[str, Any]) -> Analysis:
        to_nick = verdict.get("to")
        to = game.seat_of(str(to_nick)) if to_nick else None
        key, values = verdict.get("reason_key"), verdict.get("reason_values")
        reason = str(verdict.get("reason", ""))
        if isinstance(key, str) and key and isinstance(values, dict):
            with contextlib.suppress(KeyError, IndexError):  # an older catalogue's key: the reason as told then
                reason = self.t(key, **values)
        evidence = verdict.get("evidence") if isinstance(verdict.get("evidence"), dict) else {}
        assert isinstance(evidence, dict)
        trick = evidence.get("trick")
        step = verdict.get("step")
        return Analysis(
            request,
            n,
            fallen,
            verdict.get("decision") == "transfer",
            to,
            step if isinstance(step, int) else None,
            reason,
            trick if isinstance(trick, int) else None,
            str(evidence["card"]) if "card" in evidence else None,
            str(evidence["better_card"]) if "better_card" in evidence else None,
            tuple(evidence_lines(evidence, self.t, game.players[fallen], self._other_defender(game, n, fallen))),
        )

    # Suđenja -----------------------------------------------------------------------------------------------
    async def trials_page(self, viewer: Member, number: int) -> TrialsPage:
        """Every trial of the game with its outcome, verdict and reason, and its appeals — as `/presude` lists
        them to the same reader: the conversation of the trials he may read, the referees and councilors by name
        only where he may see names."""
        summary = await self.db.games.summary(number)
        if summary is None:
            raise Refused("call.unknown_game", game=number)
        trials = await self.db.trials.for_game(number)
        parties = await self.db.trials.participants_of_game(number)  # one read for all the game's trials
        reading = await self.lookups.trials_reading(viewer, number, summary.players, trials, parties)
        conversations = await self.db.trials.messages_of_game(number) if reading.readable else {}
        names = {m.id: m.nick for m in await self.db.members.all()}
        appeals = await self.db.appeals.for_trials([t.id for t in trials])
        appeals += await self.db.appeals.reports_of_game(number)  # as /presude lists them, after the appeals
        by_trial: dict[int, list[AppealLine]] = {}
        reports: list[AppealLine] = []
        heard: dict[int, int] = {}
        for appeal in appeals:
            councilor = names.get(appeal.councilor) if appeal.councilor and reading.names else None
            line = AppealLine(appeal, names.get(appeal.appellant, "?"), councilor, appeal.councilor is not None)
            if appeal.trial is None:
                reports.append(line)
            else:
                by_trial.setdefault(appeal.trial, []).append(line)
            if appeal.hearing is not None:
                heard[appeal.hearing] = appeal.id
        changed: dict[int, set[int]] = {}
        for change in await self.db.paper_changes.for_game(number):
            if change.trial is not None:
                changed.setdefault(change.trial, set()).add(change.hand)
        entries = []
        for trial in trials:
            readable = trial.id in reading.readable
            said = (
                self.lookups.transcript_of(
                    conversations.get(trial.id, []), parties.get(trial.id, []), names, reading.names
                )
                if readable
                else None
            )
            entries.append(
                TrialEntry(
                    trial,
                    names.get(trial.caller, "?"),
                    names.get(trial.referee, "?") if reading.names else None,
                    *self._verdict(trial),
                    tuple(sorted(changed.get(trial.id, ()))),
                    tuple(said) if said is not None else None,
                    readable and not trial.is_open,
                    tuple(by_trial.get(trial.id, ())),
                    heard.get(trial.id),
                )
            )
        return TrialsPage(summary, reading.names, tuple(entries), tuple(reports))

    def _verdict(self, trial: Trial) -> tuple[str | None, str | None, str | None]:
        """A trial's verdict and reason in words, or why it ended without one."""
        if trial.outcome is TrialOutcome.INTERRUPTED:
            return None, None, self.t(EndReason.key_of(trial.end_reason))
        if trial.outcome is TrialOutcome.OPEN or trial.verdict is None:
            return None, None, None
        draft = verdict_from_json(trial.verdict)
        return render_verdict(draft, self.voice.messages), draft.reason or None, None

    # A member ----------------------------------------------------------------------------------------------
    async def member_page(self, viewer: Member, nick: str | None) -> MemberPage:
        """A member's record — his games, the trials of his games, his penalties (the plavac with its end),
        his league months, napustio, his right to call and to appeal — to himself and the club's officials."""
        target = viewer
        if nick is not None:
            found = await self.db.members.by_nick(self.lookups.nickname(nick))
            if found is None:
                raise Refused("gov.unknown_member", nick=nick)
            target = found
        himself = target.id == viewer.id
        if not sees_member_record(self.lookups.roles_of(viewer), himself):
            raise Refused("page.not_shown")
        card = await self.penalties.member_card(target)
        games = await self.db.games.listing(target.nick, MEMBER_GAMES)
        trials = await self.db.trials.of_player(target.nick, MEMBER_TRIALS)
        verdicts = {t.id: v for t in trials if (v := self._verdict(t)[0]) is not None}
        rows = await self.db.penalties.for_member(target.id)
        plavac = await self.db.penalties.plavac(target.id)
        months = sorted({card.month, *(row.month for row in rows), *self._months(games)}, reverse=True)
        league = tuple([await self.penalties.standing(target, month) for month in months[:LEAGUE_MONTHS]])
        ban = await self.db.appeals.ban(target.id)
        now = self.now()
        return MemberPage(
            card,
            himself,
            tuple(games),
            tuple(trials),
            verdicts,
            tuple(PenaltyLine(row, row.active) for row in rows),
            plavac.since if plavac is not None and card.plavac_until is not None else None,
            league,
            card.napustio_total,
            card.call_ban if not card.call_allowed else None,
            ban.until if ban is not None and ban.until > now else None,
        )

    def _months(self, games: Sequence[GameSummary]) -> set[str]:
        zone = club_zone(self.config.timezone)
        return {g.ended_at.astimezone(zone).strftime("%Y-%m") for g in games if g.ended_at is not None and g.rated}

    # The council's desk ------------------------------------------------------------------------------------
    async def council_page(self, viewer: Member, start: date | None = None, end: date | None = None) -> CouncilPage:
        """The council's desk (the councilors and the owner): the appeals waiting with their deadlines, the votes
        open with each councilor's vote, and the council's figures for the period (as `/statistika`)."""
        if not sits_at_council(self.lookups.roles_of(viewer)):
            raise Refused("appeal.list_not_allowed")
        if start is not None and end is not None and start > end:
            raise Refused("statistika.bad_period", start=start, end=end)
        names = {m.id: m.nick for m in await self.db.members.all()}
        now = self.now()
        waiting = []
        for appeal in await self.db.appeals.undecided():
            waiting.append(
                WaitingAppeal(
                    appeal,
                    appeal.game or None,
                    names.get(appeal.appellant, "?"),
                    names.get(appeal.councilor) if appeal.councilor else None,
                    appeal.state in (AppealState.FILED, AppealState.TAKEN) and appeal.review_deadline <= now,
                )
            )
        councilors = await self.db.members.with_role(Role.COUNCILOR)
        votes = []
        for vote in await self.db.votes.open_votes():
            ballots = await self.db.votes.ballots(vote.id)
            voters = tuple((c.nick, ballots.get(c.id)) for c in councilors if c.id != vote.subject)
            votes.append(OpenVote(vote, names.get(vote.proposer, "?"), names.get(vote.subject, "?"), voters))
        figures = await council_figures(self.db, start, end, club_zone(self.config.timezone))
        return CouncilPage(tuple(waiting), tuple(votes), figures, start, end)
