"""Club governance: appointing and dismissing referees, councilors and moderators, resigning a function, denying
and restoring the right to call a referee, removing a member from the club and readmitting him, closing a league
month, the list of these acts, and a member's card.

Who may do what (Opšte odredbe): the owner (config `owner`) appoints and dismisses referees and councilors (and
moderators); a councilor's admission or dismissal of a referee or councilor is a proposal the councilors vote on
(`bot.desk.votes`); anyone may resign his own function;
councilors and the owner deny a member the right to call (until a date or until restored) and restore it; the
owner closes a league month, and removes a member from the club (a removal no platform's join undoes) and
readmits him. The acts are the truth about functions: a platform that shows them as its roles
(Discord's `[discord] roles`) is written from them (every act that changes a function writes `shown_roles`), and a
role changed there by hand grants or takes nothing (`Desk.platform_roles`). `actor=None` is the admin at the
server (`sudija clan …`), who may do everything else.
Every act is an event (who, whom, when, why) written with the act itself by `storage.members`/`storage.league`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import datetime

from bot import chat_outbox as chat_effect
from bot.desk.base import DeskBase, member_queue
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.penalties import PenaltyDesk
from bot.desk.refused import Refused
from bot.ports import Reply
from rules.members import ROLES, VOTED_ROLES, Role
from rules.nicknames import is_blank
from rules.penalties import month_of, parse_month, previous_months
from storage.chat_outbox import NewEffect
from storage.events import Event
from storage.members import Member
from storage.states import EndReason, MonthClosing

ROLE_WORDS = {
    "sudija": Role.REFEREE,
    "sudije": Role.REFEREE,
    "referee": Role.REFEREE,
    "vecnik": Role.COUNCILOR,
    "većnik": Role.COUNCILOR,
    "councilor": Role.COUNCILOR,
    "moderator": Role.MODERATOR,
}
GOVERNANCE_EVENTS = (
    "role_granted",
    "role_removed",
    "call_denied",
    "call_restored",
    "league_closed",
    "account_linked",
    "account_unlinked",
    "link_denied",  # these three: bot.desk.links
    "removed_from_club",
    "readmitted",
    "vote_opened",
    "vote_cast",
    "vote_closed",
)  # bot.desk.votes


def role_of(word: str) -> Role | None:
    return ROLE_WORDS.get(word.casefold())


def shown_roles(member: int) -> NewEffect:
    """Written with every act that changes a function: the platforms that show functions as roles write them."""
    return chat_effect.roles(member_queue(member), member)


def refuse_departed(target: Member) -> None:
    """A member who has left the club (on every platform he was on) takes no function."""
    if not target.in_club:
        raise Refused("gov.left_club", nick=target.nick)


class GovernanceDesk(DeskBase):
    """The acts of governance; a member's card and a month's closing are the penalties' (`penalties`)."""

    def __init__(self, deps: DeskDeps, penalties: PenaltyDesk, steps: Steps) -> None:
        super().__init__(deps)
        self.penalties = penalties
        self.steps = steps

    def may_govern(self, actor: Member | None, role: Role) -> bool:
        """Appoint or dismiss `role`: the owner any function; a councilor referees and councilors."""
        if actor is None or self.lookups.is_owner(actor):
            return True
        return role in VOTED_ROLES and Role.COUNCILOR in actor.roles

    def may_deny(self, actor: Member | None) -> bool:
        return actor is None or self.lookups.is_owner(actor) or Role.COUNCILOR in actor.roles

    def sees_officials(self, viewer: Member | None) -> bool:
        """Referees are not marked in the club: only officials (config) and the server admin see who they are."""
        return viewer is None or self.lookups.sees_referee_names(viewer)

    async def _target(self, typed: str) -> Member:
        """The member a command names; a nickname that cannot be one (rules.nicknames) is refused as such."""
        nick = self.lookups.nickname(typed)
        member = await self.db.members.by_nick(nick)
        if member is None:
            raise Refused("gov.unknown_member", nick=nick)
        return member

    async def appoint(self, actor: Member | None, nick: str, role: Role, reason: str = "") -> Reply:
        if role not in ROLES:
            raise Refused("gov.unknown_role", role=role)
        if not self.may_govern(actor, role):
            raise Refused("gov.not_allowed_role", role=self.t(f"role.{role}"))
        target = await self._target(nick)
        if actor is not None and actor.id == target.id and not self.lookups.is_owner(actor):
            raise Refused("gov.not_self")
        refuse_departed(target)
        by = actor.id if actor else None
        async with self.voice.reading(target):
            told = self.t("gov.told_appointed", role=self.t(f"role.{role}"), reason=reason or "—")
        if not await self.db.members.set_role(
            target.id, role, True, by, self.now(), reason, [self.delivery.told(target.id, told), shown_roles(target.id)]
        ):
            raise Refused("gov.already", nick=target.nick, role=self.t(f"role.{role}"))
        await self.delivery.deliver_effects()
        fresh = await self.db.members.get(target.id)
        if fresh is not None:
            await self.steps.offer_pending_calls(fresh)
        return Reply(self.t("gov.appointed", nick=target.nick, role=self.t(f"role.{role}")))

    async def dismiss(
        self,
        actor: Member | None,
        nick: str,
        role: Role,
        reason: str,
        announced: Callable[[Member], Sequence[NewEffect]] | None = None,
    ) -> Reply:
        """Dismiss `nick` from `role`; `announced` gives the effects that announce it (written with the act)."""
        if role not in ROLES:
            raise Refused("gov.unknown_role", role=role)
        if not self.may_govern(actor, role):
            raise Refused("gov.not_allowed_role", role=self.t(f"role.{role}"))
        if is_blank(reason):
            raise Refused("gov.reason_required")
        target = await self._target(nick)
        by = actor.id if actor else None
        async with self.voice.reading(target):
            told = self.t("gov.told_dismissed", role=self.t(f"role.{role}"), reason=reason)
        extra = list(announced(target)) if announced is not None else []
        if not await self.db.members.set_role(
            target.id,
            role,
            False,
            by,
            self.now(),
            reason,
            [self.delivery.told(target.id, told), shown_roles(target.id), *extra],
        ):
            raise Refused("gov.not_holding", nick=target.nick, role=self.t(f"role.{role}"))
        await self.delivery.deliver_effects()
        await self.steps.end_judging_without_function(target, role)
        return Reply(self.t("gov.dismissed", nick=target.nick, role=self.t(f"role.{role}")))

    async def resign(self, member: Member, role: Role, reason: str = "") -> Reply:
        if role not in ROLES:
            raise Refused("gov.unknown_role", role=role)
        if not await self.db.members.set_role(
            member.id, role, False, member.id, self.now(), reason or "ostavka", [shown_roles(member.id)]
        ):
            raise Refused("gov.not_yours", role=self.t(f"role.{role}"))
        await self.delivery.deliver_effects()
        await self.steps.end_judging_without_function(member, role)
        return Reply(self.t("gov.resigned", role=self.t(f"role.{role}")))

    async def end_judging_without_function(self, member: Member, role: Role) -> None:
        """A referee who is no longer a referee stops judging: his open trial ends, its draft dropped."""
        if role != Role.REFEREE:
            return
        trial = await self.db.trials.judging(member.id)
        if trial is not None:
            await self.steps.interrupt(trial, EndReason.REFEREE_DISMISSED)

    async def deny_call(self, actor: Member | None, nick: str, until: datetime | None, reason: str) -> Reply:
        if not self.may_deny(actor):
            raise Refused("gov.not_allowed_call")
        if is_blank(reason):
            raise Refused("gov.reason_required")
        if until is not None and until <= self.now():
            raise Refused("gov.until_past", until=until)
        target = await self._target(nick)
        async with self.voice.reading(target):
            told = (
                self.t("gov.told_denied_forever", reason=reason)
                if until is None
                else self.t("gov.told_denied_until", until=until, reason=reason)
            )
        by = actor.id if actor else None
        await self.db.members.set_call_ban(
            target.id, until, by, reason, self.now(), [self.delivery.told(target.id, told)]
        )
        await self.delivery.deliver_effects()
        if until is None:
            return Reply(self.t("gov.denied_forever", nick=target.nick))
        return Reply(self.t("gov.denied_until", nick=target.nick, until=until))

    @shows_refusals
    async def restore_call(self, actor: Member | None, nick: str, reason: str = "") -> Reply:
        if not self.may_deny(actor):
            raise Refused("gov.not_allowed_call")
        target = await self._target(nick)
        async with self.voice.reading(target):
            told = self.t("gov.told_restored")
        by = actor.id if actor else None
        if not await self.db.members.lift_call_ban(
            target.id, by, reason, self.now(), [self.delivery.told(target.id, told)]
        ):
            raise Refused("gov.not_denied", nick=target.nick)
        await self.delivery.deliver_effects()
        return Reply(self.t("gov.restored", nick=target.nick))

    def may_remove(self, actor: Member | None) -> bool:
        """Remove a member from the club and readmit him: the owner (and the admin at the server)."""
        return actor is None or self.lookups.is_owner(actor)

    @shows_refusals
    async def remove_from_club(self, actor: Member | None, nick: str, reason: str) -> Reply:
        """An officer removes `nick` from the club: out of it now (his call withdrawn, his trials ended, as when he
        leaves every platform) and out of it until an officer readmits him — a platform's join, and the start's
        roll call finding him in the group or on the server, do not bring him back (`TrialDesk.member_joined`)."""
        if not self.may_remove(actor):
            raise Refused("gov.not_allowed_remove")
        if not reason.strip():
            raise Refused("gov.reason_required")
        target = await self._target(nick)
        async with self.voice.reading(target):
            told = self.t("gov.told_removed", reason=reason)
        by = actor.id if actor else None
        if not await self.db.members.remove_from_club(
            target.id, by, reason, self.now(), [self.delivery.told(target.id, told)]
        ):
            raise Refused("gov.already_removed", nick=target.nick)
        fresh = await self.db.members.get(target.id)
        await self.steps.end_trials_of(fresh or target)
        await self.delivery.deliver_effects()
        return Reply(self.t("gov.removed", nick=target.nick))

    @shows_refusals
    async def readmit(self, actor: Member | None, nick: str, reason: str = "") -> Reply:
        """An officer undoes a removal: `nick` is in the club again while one of his accounts is in its group or on
        its server (otherwise with his next join there)."""
        if not self.may_remove(actor):
            raise Refused("gov.not_allowed_remove")
        target = await self._target(nick)
        async with self.voice.reading(target):
            told = self.t("gov.told_readmitted")
        by = actor.id if actor else None
        if not await self.db.members.readmit(target.id, by, reason, self.now(), [self.delivery.told(target.id, told)]):
            raise Refused("gov.not_removed", nick=target.nick)
        await self.delivery.deliver_effects()
        return Reply(self.t("gov.readmitted", nick=target.nick))

    @shows_refusals
    async def close_league(self, actor: Member | None, month: str | None, reason: str = "") -> Reply:
        """An admin closes a league month (by default the previous one); its standings freeze."""
        if actor is not None and not self.lookups.is_owner(actor):
            raise Refused("league.not_allowed")
        try:
            chosen = parse_month(month) if month else previous_months(self.now(), 1)[0]
        except ValueError:
            raise Refused("league.bad_month", month=month) from None
        if chosen > month_of(self.now()):
            raise Refused("league.future", month=chosen)
        if not await self.penalties.close_month(chosen, actor.id if actor else None, MonthClosing.ADMIN, reason):
            raise Refused("league.already_closed", month=chosen)
        return Reply(self.t("league.closed", month=chosen, league=self.voice.league_name()))

    @shows_refusals
    async def acts(self, viewer: Member | None, nick: str | None = None, limit: int = 50) -> Reply:
        """The governance acts, newest first (optionally about one member): who, whom, when, why."""
        if not self.sees_officials(viewer):
            raise Refused("gov.acts_not_allowed")
        subject: str | None = None
        if nick is not None:
            target = await self._target(nick)
            subject = str(target.id)
        events = [
            e
            for e in await self.db.events.listing(GOVERNANCE_EVENTS, limit=1000)
            if subject is None or e.subject == subject
        ][:limit]
        if not events:
            return Reply(self.t("gov.acts_none"))
        names = {m.id: m.nick for m in await self.db.members.all()}
        return Reply("\n".join([self.t("gov.acts_title"), *[self.steps.act_text(e, names) for e in events]]))

    def act_text(self, event: Event, names: dict[int, str]) -> str:
        who = names.get(event.actor, "?") if event.actor is not None else self.t("gov.admin")
        whom = (
            names.get(int(event.subject), "?")
            if event.subject and event.subject.isdigit()
            else (event.subject or "").removeprefix("month:")
        )
        data = event.data
        role = self.t(f"role.{data['role']}") if data.get("role") in ROLES else str(data.get("role", ""))
        if event.kind == "role_removed" and event.actor is not None and str(event.actor) == event.subject:
            key = "act.resigned"
        else:
            key = f"act.{event.kind}"
        until: object = data.get("until")
        if isinstance(until, str):  # stored as an ISO moment: shown on the club's clock
            with contextlib.suppress(ValueError):
                until = datetime.fromisoformat(until.replace("Z", "+00:00"))
        return self.t(
            key, at=event.at, who=who, whom=whom, role=role, until=until or "—", reason=data.get("reason") or "—"
        )

    @shows_refusals
    async def member_status(self, viewer: Member | None, nick: str | None) -> Reply:
        """/clan [NICK]: roles (to himself and officials), plavac, league this month, napustio, right to call."""
        if nick is None:
            if viewer is None:
                raise Refused("gov.unknown_member", nick="—")
            target = viewer
        else:
            target = await self._target(nick)
        full = viewer is None or viewer.id == target.id or self.sees_officials(viewer)
        return Reply(self.penalties.card_text(await self.penalties.member_card(target), full))
