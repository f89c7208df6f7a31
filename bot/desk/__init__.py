"""The referee desk: every use case of the referee system, independent of any chat platform.

Adapters resolve who acted (`actor`: the member an account proves to be and who is still in the club, or the refusal
to show, rendered here from the `Refused` that `bot.desk.links` raises), then call a use case on the part that owns
it (`desk.calls.call`, `desk.trials.take`, …; the registry's commands do the same) or `press` for a button, and show
the returned `Reply` to that member alone. Everything else the desk says goes out through the `Chats` port.
Deadlines live in the database; `run_due` acts on every one that has passed and is safe to call any number of times
(the scheduler calls it at each deadline and once at start).

The use cases live in parts, one per concern (`calls`, `trials`, `penalties`, `catalogue`, `advisor`,
`governance`, `links`, `votes`, `appeals`, `corrections`, `languages`, the web's `archive` and `signin`), each
built with its dependencies (`DeskDeps`) and the other parts it needs; `Desk` builds them, binds the steps they
extend (`bot.desk.steps`), offers the three trial controls the parts extend as one entry each (`draft`, `finish`,
`show_hands`), and owns what spans the parts: start, the deadlines, buttons, membership and presence, and what the
adapters may read.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta

from bot import chat_outbox as chat_effect
from bot import logs, metrics
from bot.config import Config
from bot.desk.advice import AdviceDesk
from bot.desk.appeals import AppealDesk
from bot.desk.archive import ArchiveDesk
from bot.desk.base import DeskBase, member_queue
from bot.desk.calls import CallDesk
from bot.desk.catalogue_rules import RuleCatalogueDesk
from bot.desk.corrections import CorrectionDesk
from bot.desk.deps import DeskDeps, Part, shows_refusals, unwritten_key
from bot.desk.governance import GovernanceDesk
from bot.desk.languages import LanguageDesk
from bot.desk.links import MAX_REF, LinkDesk
from bot.desk.penalties import PenaltyDesk
from bot.desk.refused import Refused
from bot.desk.reported import Reported
from bot.desk.signin import SignInDesk
from bot.desk.steps import DeskSteps
from bot.desk.trials import TrialDesk
from bot.desk.votes import VoteDesk
from bot.i18n.reader import for_the_club
from bot.ports import (
    Action,
    CallPost,
    Channel,
    Chats,
    Clock,
    GameServerPort,
    Reply,
    RolesSeen,
    Timers,
    asserting,
    state_key,
)
from bot.records.signing import club_key
from rules.members import JUDGING_ROLES, Role
from rules.notices import Notice
from storage.clock import store_clock, stored_clock
from storage.corrections import CorrectionStore
from storage.database import Database
from storage.errors import DatabaseBusy
from storage.games import GameSummary
from storage.members import Member
from storage.states import EndReason
from storage.syncs import record_sync, synced_digest
from storage.trials import Trial, TrialMessage

RESYNC_WINDOW = timedelta(days=1)  # trials that ended this recently have their table / offers released again


class Desk(DeskBase):
    """The desk the adapters, the registry and the game-server link hold: it builds every part with its explicit
    dependencies (reached as `desk.calls`, `desk.trials`, …), binds the steps the parts extend (`steps`), and owns
    what spans them: start, the deadlines, buttons, membership and presence."""

    def __init__(
        self, db: Database, chat: Chats, game_server: GameServerPort, clock: Clock, config: Config, timers: Timers
    ) -> None:
        super().__init__(DeskDeps.of(db, chat, game_server, clock, config, timers))
        deps = self.deps
        self.steps = steps = DeskSteps()
        self.calls = CallDesk(deps)
        self.trials = TrialDesk(deps, self.calls, steps)
        self.penalties = PenaltyDesk(deps, self.trials)
        self.catalogue = RuleCatalogueDesk(deps, self.penalties, self.trials)
        self.advisor = AdviceDesk(deps, self.trials, self.catalogue, steps)
        self.governance = GovernanceDesk(deps, self.penalties, steps)
        self.links = LinkDesk(deps, self.governance, self.trials, steps)
        self.votes = VoteDesk(deps, self.governance, self.links, steps)
        self.appeals = AppealDesk(deps, self.calls, self.trials, self.governance, steps)
        self.corrections = CorrectionDesk(deps)
        self.languages = LanguageDesk(deps)
        self.archive = ArchiveDesk(deps, self.penalties, self.corrections)
        self.signin = SignInDesk(deps, self.links)
        self.reported = Reported(
            db, self.presence, self.trials.member_left_club, self.trials.member_joined, club=config.club_id
        )
        steps.bind(self.trials, self.advisor, self.penalties, self.appeals, self.votes)
        # Buttons of parts beyond the desk's own (the game-server link's korekcija), for `Desk.press`.
        self.extra_actions: dict[Action, Callable[[Member, int], Awaitable[Reply]]] = {}
        self.refusals_told: set[tuple[str, str]] = set()  # (platform, problem) the officials were told of

    # The trial's controls as the parts that extend them carry them out: a draft (the advice's, over the club's
    # catalogues and penalties, over the trial's own), finishing (upholding an appeal's hearing), the hands (with
    # the advice's buttons). Every other use case is called on its part: `desk.calls.call(…)`.
    draft = Part("advisor", AdviceDesk.draft)
    finish = Part("appeals", AppealDesk.finish)
    show_hands = Part("advisor", AdviceDesk.show_hands)

    @shows_refusals
    async def actor(self, platform: str, account: str) -> Member | Reply:
        """Who acts, for the adapters, which ask before any use case runs: the member the account proves to be
        and who is still in the club, or the refusal `LinkDesk.actor` raises, rendered here to show him."""
        return await self.links.actor(platform, account)

    @shows_refusals
    async def paper(self, number: int, viewer: Member | None = None) -> Reply:
        return await self.lookups.paper(number, viewer)

    @property
    def corrections_store(self) -> CorrectionStore:
        return self.corrections.corrections_store

    @for_the_club
    async def start(self) -> None:
        """On start: act on what fell due while the bot was down, re-arm every open deadline, and tell the game
        server again what the open trials need (a crash may have come between a record and its effect); first
        of all, the chat effects still pending in the chat outbox are delivered (and its worker started)."""
        await self.delivery.chat_outbox.release_leases()
        await self.delivery.deliver_effects()
        if self.delivery.chat_outbox.background:
            self.delivery.chat_outbox.start()
        await self.links.ensure_owner_links()
        await club_key(self.db, self.now())  # the club's signing key, generated at the first start
        await self.run_due()
        await self.votes.resume_carried(self.now() - RESYNC_WINDOW)
        await self.appeals.end_trials_without_function()
        await self.penalties.resync_plavac()
        await self.resync_open_trials()
        for deadline in await self.open_deadlines():
            self.deps.timers.arm(deadline)

    async def open_deadlines(self) -> list[datetime]:
        deadlines = [c.deadline for c in await self.db.calls.pending()]
        deadlines += [c.deadline for c in await self.db.calls.pending_councilor_calls()]
        deadlines += await self.penalties.penalty_deadlines()
        deadlines += await self.offline_referee_deadlines()
        deadlines += await self.votes.vote_deadlines() + await self.appeals.appeal_deadlines()
        return sorted(deadlines)

    async def offline_referee_deadlines(self) -> list[datetime]:
        """When each judging referee shown offline runs out of his grace period."""
        grace = timedelta(seconds=self.config.referee_offline_grace_seconds)
        out = []
        for trial in await self.db.trials.open_trials():
            referee = await self.db.members.get(trial.referee)
            if referee is not None and not referee.online and referee.presence_changed_at is not None:
                out.append(referee.presence_changed_at + grace)
        return out

    async def resync_open_trials(self) -> None:
        """Assert again to the game server the state the trials need (a crash may have come between recording a
        trial's start or end and telling the game server): open trials keep their table paused (or their caller's
        offers blocked), and trials that ended lately have them released — each command under the key of the
        state it asserts (`state_key`, the key its first assertion had), so the outbox writes it once and a game
        server that honours keys takes a repeat as a duplicate. A game that is over gets nothing."""
        open_trials = await self.db.trials.open_trials()
        busy_games = {t.game for t in open_trials}
        busy_callers = {t.caller for t in open_trials if not t.in_game}
        for trial in open_trials:
            if trial.in_game:
                if await self.trials.game_goes_on(trial.game):
                    with asserting(state_key("pause", trial.game, "trial", trial.id)):
                        await self.deps.game_server.pause_table(trial.game)
            else:
                nick = await self.lookups.nick(trial.caller)
                with asserting(state_key("block", nick.casefold(), "trial", trial.id)):
                    await self.deps.game_server.block_offers(nick)
        for trial in await self.db.trials.closed_since(self.now() - RESYNC_WINDOW):
            if trial.in_game and trial.game not in busy_games:
                if trial.end_reason != EndReason.GAME_CLOSED and await self.trials.game_goes_on(trial.game):
                    with asserting(state_key("resume", trial.game, "trial", trial.id)):
                        await self.deps.game_server.resume_table(trial.game)
            elif not trial.in_game and trial.caller not in busy_callers:
                nick = await self.lookups.nick(trial.caller)
                with asserting(state_key("unblock", nick.casefold(), "trial", trial.id)):
                    await self.deps.game_server.unblock_offers(nick)

    @for_the_club  # a timer's work: notices, the table; each private message in its reader's language
    async def run_due(self) -> None:
        """Act on every deadline that has passed. A desk without platforms (on PostgreSQL, a bot process waiting
        for the club's gateway) acts only on calls and councilor calls expiring, which the cross-process test
        shows any process doing; the rest (a vote's, an appeal's, a penalty's end, a referee offline past his
        grace) stay with the process holding the platforms, though their words are chat outbox rows too."""
        await self.calls.expire_due_calls()
        await self.trials.expire_due_councilor_calls()
        if not self.deps.chat.ports:
            return
        await self.trials.interrupt_offline_referees()
        await self.penalties.run_penalty_due()
        await self.votes.settle_votes()
        await self.appeals.run_appeals_due()

    async def member_for(self, platform: str, account: str) -> Member | None:
        return await self.db.members.by_account(platform, account)

    # Membership as the platforms report it ---------------------------------------------------------------
    async def stored_clock(self) -> datetime | None:
        """The club's own time kept in its database (the console club resumes at it), if any."""
        return await stored_clock(self.db)

    async def store_clock(self, moment: datetime) -> None:
        await store_clock(self.db, moment)

    async def member(self, member_id: int) -> Member | None:
        return await self.db.members.get(member_id)

    async def members(self) -> list[Member]:
        """Every member of the club's records, by nickname."""
        return await self.db.members.all()

    async def judging(self, referee: Member) -> Trial | None:
        """The trial this referee judges now, if any."""
        return await self.db.trials.judging(referee.id)

    async def open_trial_of(self, member: Member) -> Trial | None:
        """The open trial this member takes part in (as a party or an official), if any."""
        return await self.db.trials.open_for_member(member.id)

    async def keep_space(self, trial_id: int, place: Notice) -> None:
        """Where a platform opened a trial's space (Discord: the thread, as its parent channel and its own id), so
        it is found again after a restart however many spaces there are (kept with the calls' notices, subject
        ``space:<trial>``). The space is open already: a busy database holds this (`reported`) rather than fail
        the effect that opened it, which would open it again."""
        subject = f"space:{trial_id}"
        await self.reported.take((subject, place), lambda: self.db.calls.add_notice(subject, place))

    async def spaces_of(self, trial_id: int, platform: str) -> list[Notice]:
        """Where this platform opened the trial's space, oldest first."""
        return [n for n in await self.db.calls.notices(f"space:{trial_id}") if n.platform == platform]

    async def platform_refused(self, platform: str, problem: str) -> None:
        """A platform refused the bot something for a permission it lacks (a 403) while an effect was delivered:
        the effect waits for its retry, and the officials are told meanwhile — once, until the platform says the
        bot's permissions changed (`permissions_mended`)."""
        if (platform, problem) in self.refusals_told:
            return
        self.refusals_told.add((platform, problem))
        with self.voice.club_voice():
            text = self.t("outbox.platform_refused", platform=platform, problem=problem)
        notice = chat_effect.tell_officials(f"{chat_effect.NOTICE_QUEUE}refused:{platform}", text)
        await self.delivery.chat_outbox.store.enqueue([notice], self.now())
        await self.delivery.deliver_effects()

    async def permissions_mended(self, platform: str) -> int:
        """The platform says the bot's permissions changed: every effect it refused with a 403 is tried again now
        (not at its backoff), and a refusal is told again should it come back; how many were due."""
        self.refusals_told = {told for told in self.refusals_told if told[0] != platform}
        due = await self.delivery.chat_outbox.retry_forbidden(platform)
        if due:
            await self.delivery.deliver_effects()
        return due

    async def synced(self, platform: str, what: str) -> str | None:
        """The digest of what the platform was last synced with as `what` (None: never)."""
        return await synced_digest(self.db, platform, what)

    async def record_synced(self, platform: str, what: str, digest: str) -> None:
        await record_sync(self.db, platform, what, digest, self.now())

    async def keep_controls(self, trial_id: int, notice: Notice) -> None:
        """Where a platform showed a trial's controls (buttons), so they can be removed when the trial ends,
        also after a restart (kept with the calls' notices, subject ``controls:<trial>``). They are shown already:
        a busy database holds this (`reported`) rather than fail the effect that showed them, which would show
        them twice."""
        subject = f"controls:{trial_id}"
        await self.reported.take((subject, notice), lambda: self.db.calls.add_notice(subject, notice))

    async def controls_of(self, trial_id: int, platform: str) -> list[Notice]:
        """Every place this platform showed the trial's controls, oldest first."""
        return [n for n in await self.db.calls.notices(f"controls:{trial_id}") if n.platform == platform]

    async def messages_of(self, trial_id: int) -> list[TrialMessage]:
        """Every message typed in the trial's space, in order."""
        return await self.db.trials.messages(trial_id)

    async def recent_games(self, member: Member) -> list[GameSummary]:
        """The member's games in progress, then those that ended within the claim window (newest first)."""
        summaries = list(await self.db.games.in_progress_for(member.nick))
        return summaries + list(await self.db.games.ended_since(member.nick, self.now() - self.lookups.claim_window))

    async def platform_roles(
        self, member: Member, held: Mapping[Role, bool], platform: str, seen: RolesSeen
    ) -> tuple[frozenset[Role], frozenset[Role]]:
        """A platform that shows functions as its roles (Discord's `[discord] roles`) says which of them the
        member's account holds there. The acts are the truth (decisions.md): the roles are never read as
        functions. Returns (to add, to remove) on the platform so that it shows the acts. A difference the
        platform reports as a change (`RolesSeen.CHANGED`), and a role the acts do not give found at a sync, is a
        role changed by hand: reported to the councilors, and put back unless `[discord] role_changes = "leave"`.
        After an act, and at the echo of the bot's own write, the roles are only brought in line with the acts."""
        acts = {role for role in held if role in member.roles}
        shown = {role for role, has in held.items() if has}
        extra, missing = frozenset(shown - acts), frozenset(acts - shown)
        by_hand = seen is RolesSeen.CHANGED
        if not seen.by_the_bot and (extra or (missing and by_hand)):
            await self.report_role_change(member, extra, missing if by_hand else frozenset(), platform, self.undo_roles)
        if not seen.by_the_bot and not self.undo_roles:
            return (frozenset() if by_hand else missing), frozenset()
        return missing, extra

    @property
    def undo_roles(self) -> bool:
        return self.config.discord.role_changes == "undo"

    async def report_role_change(
        self, member: Member, added: frozenset[Role], removed: frozenset[Role], platform: str, undone: bool
    ) -> None:
        """Tell the councilors (their channel only, or each privately) that a role was changed by hand."""
        councilors = tuple(m for m in await self.db.members.with_role(Role.COUNCILOR) if m.in_club)
        with self.voice.club_voice():
            lines = [
                self.t(
                    "roles.by_hand_added" if role in added else "roles.by_hand_removed",
                    platform=platform,
                    nick=member.nick,
                    role=self.t(f"role.{role}"),
                )
                for role in sorted(added | removed)
            ]
            lines.append(self.t("roles.undone" if undone else "roles.left"))
            post = CallPost(
                f"councilor:roles:{member.id}:{self.now().timestamp():.0f}",
                "\n".join(lines),
                (),
                (),
                councilors,
                channel=Channel.COUNCILORS_ONLY,
            )
        await self.delivery.enqueue_effects([chat_effect.post_notice(member_queue(member.id), post)])

    async def members_only_on(self, platform: str, not_on: str) -> list[Member]:
        """Members linked on `platform` and not on `not_on` (Telegram marks these online: it shows no presence)."""
        return [m for m in await self.db.members.all() if m.account(platform) is not None and m.account(not_on) is None]

    async def press(self, member: Member, action: str, ref: int, platform: str = "console") -> Reply:
        """A button: the payload names an action and an id; both are re-checked against the database (an id no
        row can have is refused before any look-up), and the presser must still be in the club. He is answered
        in his language. Each press is one event of the journal and the metrics, with the time from the press
        reaching the desk to its answer on `platform` (bot/logs.py, bot/metrics.py). A press the database could not
        take (it only reads, or another process held its write lock) changed nothing and says so, on every
        platform alike."""
        started = time.perf_counter()
        async with self.voice.reading(member):
            try:
                reply = await self._press(member, action, ref)
            except DatabaseBusy as unwritten:
                reply = self.voice.refuse(unwritten_key(unwritten))
        seconds = time.perf_counter() - started
        outcome = "ok" if reply.ok else "refused"
        metrics.press_done(self.config.club_id, platform, action, outcome, seconds)
        fields = {"use_case": f"press:{action}", "platform": platform, "outcome": outcome, "ref": ref}
        logs.event("press", {**fields, "latency_ms": round(seconds * 1000, 1)})
        return reply

    @shows_refusals  # inside `reading`: a refusal is written in the presser's language
    async def _press(self, member: Member, action: str, ref: int) -> Reply:
        self.links.gate(member)
        chosen = Action.parse(action)
        if chosen is None or not 0 < ref <= MAX_REF:
            raise Refused("button.unknown")
        actions: dict[Action, Callable[[Member, int], Awaitable[Reply]]] = {
            Action.TAKE: self.trials.take,
            Action.WITHDRAW: self.calls.withdraw,
            Action.JOIN: self.trials.join_as_councilor,
            Action.HANDS: self.show_hands,
            Action.HISTORY: self.trials.history,
            Action.COUNCILOR: self.trials.call_councilor,
            Action.FINISH: self.finish,
            Action.LEAVE: self.trials.leave,
        }
        actions.update(self.corrections.correction_actions())
        actions.update(self.links.link_actions())
        actions.update(self.extra_actions)
        actions.update(self.advisor.advice_actions())
        actions.update(self.votes.vote_actions())
        actions.update(self.appeals.appeal_actions())
        handler = actions.get(chosen)
        if handler is None:
            raise Refused("button.unknown")
        return await handler(member, ref)

    async def presence(self, member: Member, online: bool, platform: str | None = None) -> bool:
        """Presence on `platform` (None: the member's own, as the console says); he is online when he is online
        on any platform he is linked on. Whether his presence in the club changed."""
        if platform is not None:
            online = await self.db.members.set_account_presence(member.id, platform, online)
        if not await self.db.members.set_presence(member.id, online, self.now()):
            return False
        if online:
            fresh = await self.db.members.get(member.id)
            if fresh is not None:
                await self.steps.offer_pending_calls(fresh)
        elif await self.db.trials.judging(member.id) is not None:
            self.deps.timers.arm(self.now() + timedelta(seconds=self.config.referee_offline_grace_seconds))
        return True

    @shows_refusals
    async def set_duty(self, member: Member, on_duty: bool) -> Reply:
        if member.roles.isdisjoint(JUDGING_ROLES):
            raise Refused("duty.no_function")
        await self.db.members.set_duty(member.id, on_duty, self.now())
        if on_duty:
            fresh = await self.db.members.get(member.id)
            if fresh is not None:
                await self.steps.offer_pending_calls(fresh)
        return Reply(self.t("duty.on" if on_duty else "duty.off"))

    async def seat(self, member: Member, game: int | None) -> None:
        """The game server (or the console) says where a member sits; standing up returns him to the lobby."""
        await self.db.members.seat(member.id, game, self.now())
        if game is None:
            fresh = await self.db.members.get(member.id)
            if fresh is not None:
                await self.steps.offer_pending_calls(fresh)

    @shows_refusals
    async def verdicts(self, member: Member | None, number: int, trial: int | None = None, page: int = 1) -> Reply:
        """/presude <game> [trial [page]]: every trial of the game with its outcome, verdict and reason, newest
        last; each with its whole conversation to those who may read it (`bot.records.access`: as `/zapisnik`;
        long ones paged: `/presude GAME TRIAL PAGE`)."""
        summary = await self.db.games.summary(number)
        if summary is None:
            raise Refused("call.unknown_game", game=number)
        reading = await self.lookups.trials_reading(member, number, summary.players)
        return await self.steps.verdict_list(
            number, show_referees=reading.names, readable=reading.readable, trial_id=trial, page=page
        )
