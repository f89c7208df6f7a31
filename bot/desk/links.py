"""Proven identity: who an account is, decided here and nowhere else (decisions.md, "Where the game lives").

A chat account becomes a member only by proof. ``/nadimak NICK`` only asks: a pending request is stored. The
proof is either a one-time code the game server delivers to that nickname (when the club has a game-server
link: the port says so with `delivers_link_codes`; the member then types ``/nadimak NICK CODE``; a code is
single-use, expires after `CODE_MINUTES`, is bound to the asking account and stored hashed; `WRONG_CODES` wrong
codes lock the account's tries for `LOCK_TIME`), or a moderator's or the owner's approval (``/povezi`` lists the
requests with Approve / Deny buttons; ``/povezi NICK odobri|odbij``). With the logging stand-in (no game
server) codes are not offered and approval is the proof. Until proven an account can do nothing but ask
(`actor` refuses every other command and button with how to link).

The owner is configuration: `[club] owner` and `owner_accounts`; his accounts are linked at start and his
nickname can be neither asked for nor unlinked. One account per nickname per platform, one nickname per
account: an account linked to a nickname is unlinked by a moderator or the owner (``/odvezi NICK
[platform]``) before it asks for another, with the same proof. Every link, approval, denial and unlink is a
governance act listed by ``/akti``. Adapters pass only what the platform said: the platform, the account id, the
display name and the typed nickname and code.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot import chat_outbox as effect
from bot.desk.base import DeskBase, member_queue
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.governance import GovernanceDesk
from bot.desk.refused import Refused
from bot.desk.trials import TrialDesk
from bot.i18n.reader import speaking
from bot.ports import Action, Button, Reply
from rules.members import Role
from rules.nicknames import identity_key, plain
from storage.chat_outbox import NewEffect
from storage.events import Event
from storage.languages import member_language
from storage.links import LinkConflict, LinkRequest
from storage.members import Member
from storage.states import LinkAttempt

CODE_MINUTES = 10
WRONG_CODES = 5
LOCK_TIME = timedelta(hours=1)
CODE_DIGITS = 6
PLATFORMS = ("discord", "telegram", "console")
LINK_EVENTS = ("account_linked", "account_unlinked", "link_denied")
APPROVE_WORDS = frozenset({"odobri", "odobravam", "approve", "da"})
DENY_WORDS = frozenset({"odbij", "odbijam", "deny", "ne"})
RATE_WINDOW = timedelta(hours=1)  # `[links] requests_per_hour` and `codes_per_hour` count over it
MAX_REF = 2**63 - 1  # a button's id beyond this is no row of ours (SQLite integers are 64-bit)


def code_hash(salt: str, platform: str, account: str, nick: str, code: str) -> str:
    """The stored form of a code: bound to the asking account and the nickname asked for."""
    text = f"{salt}:{platform}:{account}:{nick.casefold()}:{code}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LinkDesk(DeskBase):
    """Linking accounts to members; it names members as governance does (`governance`) and ends the trials of a
    member left without an account (`trials`)."""

    def __init__(self, deps: DeskDeps, governance: GovernanceDesk, trials: TrialDesk, steps: Steps) -> None:
        super().__init__(deps)
        self.governance = governance
        self.trials = trials
        self.steps = steps

    # Who is acting ------------------------------------------------------------------------------------
    @property
    def delivers_link_codes(self) -> bool:
        """Whether the club's game server delivers link codes (the logging stand-in does not)."""
        return bool(getattr(self.deps.game_server, "delivers_link_codes", False))

    async def actor(self, platform: str, account: str) -> Member:
        """The member an account proves to be, fit to act; otherwise `Refused` saying why (how to link, or that
        he left the club)."""
        member = await self.db.members.by_account(platform, account)
        if member is None:
            request = await self.db.links.for_account(platform, account)
            if request is not None:
                raise Refused("link.pending_only", nick=request.nick, how=self.proof_hint())
            raise Refused("link.needed")
        if not member.in_club and await self.db.members.removed(member.id):
            raise Refused("member.removed")  # not a leave: what he can do about it differs
        self.gate(member)
        return member

    def gate(self, member: Member) -> None:
        """What every command and button checks first: a member who left the club may no longer act (`Refused`)."""
        if not member.in_club:
            raise Refused("member.left")

    def proof_hint(self) -> str:
        return self.t("link.how_code" if self.delivers_link_codes else "link.how_approval")

    def may_link(self, actor: Member) -> bool:
        """Approve, deny and unlink: a moderator or the owner."""
        return self.lookups.is_owner(actor) or Role.MODERATOR in actor.roles

    def owns_nick(self, nick: str) -> bool:
        return self.config.owner is not None and identity_key(nick) == identity_key(self.config.owner)

    # Asking and proving --------------------------------------------------------------------------------
    @shows_refusals
    async def ask_link(
        self,
        platform: str,
        account: str,
        display: str,
        typed_nick: str,
        code: str | None = None,
        member: Member | None = None,
    ) -> Reply:
        """/nadimak NICK [CODE]: ask for a nickname, or prove the request with the code the game delivered. `member`:
        the member the front end already knows the caller as (the console's, any `Commands.handle` caller), linked
        whatever account it names, so he is answered as a linked account is, never asking for a second nickname."""
        nick = await self.lookups.known_nickname(typed_nick.strip())
        linked = member if member is not None else await self.db.members.by_account(platform, account)
        if linked is not None:
            if identity_key(linked.nick) == identity_key(nick):
                raise Refused("link.already", nick=linked.nick)
            raise Refused("link.relink", nick=linked.nick)
        if self.owns_nick(nick):
            raise Refused("link.owner_is_configured", nick=nick)
        holder = await self.db.members.by_nick(nick)
        if holder is not None and any(a.startswith(f"{platform}:") for a in holder.accounts):
            raise Refused("link.taken", nick=holder.nick)
        now = self.now()
        lock = await self.db.links.lock(platform, account)
        if lock.locked_until is not None and lock.locked_until > now:
            raise Refused("link.locked", until=lock.locked_until)
        display = plain(display.strip())
        if code is not None:
            return await self._prove_by_code(platform, account, nick, code.strip(), display, holder)
        request = await self.db.links.for_account(platform, account)
        holder_told = await self._holder_told(holder, platform, display)
        if not self.delivers_link_codes:
            if request is not None and identity_key(request.nick) == identity_key(nick):
                return Reply(self.t("link.asked", nick=request.nick))  # asked already: the approvers know
            await self._within_limits(LinkAttempt.REQUEST, platform, account, nick)
            approvers = await self._approvers()
            await self.db.links.ask(
                platform,
                account,
                nick,
                display,
                now,
                None,
                lambda asked: [*self._approver_tells(approvers, asked), *holder_told],
                (LinkAttempt.REQUEST, identity_key(nick)),
            )
            await self.delivery.deliver_effects()
            return Reply(self.t("link.asked", nick=nick))
        if (
            request is not None
            and identity_key(request.nick) == identity_key(nick)
            and request.code_expires is not None
            and request.code_expires > now
        ):
            return Reply(self.t("link.code_already_sent", nick=nick, until=request.code_expires))
        await self._within_limits(LinkAttempt.CODE, platform, account, nick)
        new_code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        salt = secrets.token_hex(16)
        expires = now + timedelta(minutes=CODE_MINUTES)
        approvers = await self._approvers()
        fresh = request is None or identity_key(request.nick) != identity_key(nick)  # a new request: approvers learn it

        def effects(asked: LinkRequest) -> list[NewEffect]:
            # The code goes to the game client with the request that holds its hash (a crash loses neither).
            told = [*self._approver_tells(approvers, asked), *holder_told] if fresh else []
            return [*told, effect.deliver_link_code(f"link:{asked.id}", nick, new_code)]

        await self.db.links.ask(
            platform,
            account,
            nick,
            display,
            now,
            (code_hash(salt, platform, account, nick, new_code), salt, expires),
            effects,
            (LinkAttempt.CODE, identity_key(nick)),
        )
        await self.delivery.deliver_effects()
        return Reply(self.t("link.code_sent", nick=nick, minutes=CODE_MINUTES))

    async def _prove_by_code(
        self, platform: str, account: str, nick: str, code: str, display: str, holder: Member | None
    ) -> Reply:
        """The code the bot had the game server deliver for this account's request, or one the game server issued
        to the nickname itself (`link_code_issued`: the member began in the game client), proves the nickname
        alike: once, within `CODE_MINUTES`; a wrong code counts towards the lock either way."""
        if not self.delivers_link_codes:
            raise Refused("link.no_codes", how=self.proof_hint())
        now = self.now()
        request = await self.db.links.for_account(platform, account)
        matches = (
            request is not None
            and identity_key(request.nick) == identity_key(nick)
            and request.code_hash is not None
            and request.code_salt is not None
            and hmac.compare_digest(request.code_hash, code_hash(request.code_salt, platform, account, nick, code))
        )
        if not matches:
            issued = await self.db.links.issued_code(nick, code)
            if issued is not None:
                if issued <= now - timedelta(minutes=CODE_MINUTES):
                    raise Refused("link.code_expired", nick=nick)
                return await self._prove_issued(platform, account, nick, code, display, holder, request)
        if not matches or request is None:
            lock = await self.db.links.wrong_code(platform, account, now, WRONG_CODES, now + LOCK_TIME)
            if lock.locked_until is not None and lock.locked_until > now:
                raise Refused("link.locked", until=lock.locked_until)
            raise Refused("link.wrong_code", left=WRONG_CODES - lock.failures)
        if request.code_expires is None or request.code_expires <= now:
            raise Refused("link.code_expired", nick=nick)
        return await self._prove(request, "code", None)

    async def _prove_issued(
        self,
        platform: str,
        account: str,
        nick: str,
        code: str,
        display: str,
        holder: Member | None,
        request: LinkRequest | None,
    ) -> Reply:
        """Prove `nick` by a code the game server issued: the account's request for it is stored first when he
        made none (the holder of a linked nickname told, as for any request), then the code is spent with the link
        in one transaction."""
        now = self.now()
        if request is None or identity_key(request.nick) != identity_key(nick):
            told = await self._holder_told(holder, platform, display)
            request = await self.db.links.ask(platform, account, nick, display, now, None, lambda _asked: told)
        issued = (nick, code, now - timedelta(minutes=CODE_MINUTES))
        return await self._prove(request, "code", None, issued)

    async def _prove(
        self, request: LinkRequest, proof: str, by: Member | None, issued: tuple[str, str, datetime] | None = None
    ) -> Reply:
        holder = await self.db.members.by_nick(request.nick)  # None: the proof creates the member
        language = await member_language(self.db, holder.id) if holder is not None else None
        with speaking(language):
            approved = self.t("link.told_approved", nick=holder.nick if holder is not None else request.nick)

        def effects(member_id: int) -> list[NewEffect]:
            # Written with the link: the platform syncs what it owns, then (approved) the member is told.
            rows = [effect.linked(member_queue(member_id), member_id, request.platform)]
            if by is not None:
                rows.append(self.delivery.told(member_id, approved))
            return rows

        try:
            member_id = await self.db.links.prove(request, proof, by.id if by else None, self.now(), effects, issued)
        except LinkConflict as conflict:
            if conflict.what == "request":
                raise Refused("link.request_gone") from None
            if conflict.what == "code":  # spent meanwhile (another account was quicker), or it ran out
                raise Refused("link.code_expired", nick=request.nick) from None
            if conflict.what == "imitates":
                raise Refused("nick.imitates", nick=request.nick, member=conflict.imitates) from None
            raise Refused("link.taken", nick=request.nick) from None
        await self.delivery.deliver_effects()
        fresh = await self.db.members.get(member_id)
        assert fresh is not None
        await self.steps.offer_pending_calls(fresh)
        return Reply(
            self.t("link.ok", nick=fresh.nick)
            if by is None
            else self.t("link.approved", nick=fresh.nick, platform=request.platform)
        )

    async def _within_limits(self, kind: LinkAttempt, platform: str, account: str, nick: str) -> None:
        """`Refused` with the moment he may ask again when this account, or anyone for this nickname, has had the
        configured number of link requests (or codes) in the last hour (`[links]`)."""
        limit = self.config.links.requests_per_hour if kind is LinkAttempt.REQUEST else self.config.links.codes_per_hour
        by_account, by_nick = await self.db.links.recent_attempts(
            kind, platform, account, identity_key(nick), self.now() - RATE_WINDOW
        )
        for moments in (by_account, by_nick):
            if len(moments) >= limit:
                key = "link.too_many_requests" if kind is LinkAttempt.REQUEST else "link.too_many_codes"
                raise Refused(key, until=moments[len(moments) - limit] + RATE_WINDOW)

    async def _holder_told(self, holder: Member | None, platform: str, display: str) -> list[NewEffect]:
        """A member whose nickname another account asks for is told so on every platform he is linked on."""
        if holder is None or not holder.accounts:
            return []
        async with self.voice.reading(holder):
            text = self.t("link.told_holder_asked", nick=holder.nick, platform=platform, display=display or "—")
        return [self.delivery.told(holder.id, text)]

    # Approving, denying, unlinking ---------------------------------------------------------------------
    def request_buttons(self, request: LinkRequest) -> tuple[Button, ...]:
        return (
            Button(self.t(Action.LINK_APPROVE.label_key), Action.LINK_APPROVE, request.id, "primary"),
            Button(self.t(Action.LINK_DENY.label_key), Action.LINK_DENY, request.id, "danger"),
        )

    def request_line(self, request: LinkRequest) -> str:
        return self.t(
            "link.request_line",
            id=request.id,
            nick=request.nick,
            platform=request.platform,
            account=request.account,
            display=plain(request.display) or "—",
            at=request.asked_at,
        )

    async def _approvers(self) -> list[tuple[Member, str | None]]:
        """Who approves requests (the moderators and the owner), each with the language he reads."""
        approvers = list(await self.db.members.with_role(Role.MODERATOR))
        if self.config.owner is not None:
            owner = await self.db.members.by_nick(self.config.owner)
            if owner is not None and owner.id not in {a.id for a in approvers}:
                approvers.append(owner)
        languages = await self.voice.reader_languages(a.id for a in approvers)
        return [(a, languages[a.id]) for a in approvers]

    def _approver_tells(self, approvers: list[tuple[Member, str | None]], request: LinkRequest) -> list[NewEffect]:
        """The request told to each approver with its Approve / Deny buttons, written with the request."""
        rows = []
        for approver, language in approvers:
            with speaking(language):
                text = self.t("link.told_request", line=self.request_line(request))
                rows.append(self.delivery.told(approver.id, text, self.request_buttons(request)))
        return rows

    @shows_refusals
    async def link_requests(self, actor: Member) -> Reply:
        """/povezi: the pending requests, each with its Approve / Deny buttons (moderators and the owner)."""
        if not self.may_link(actor):
            raise Refused("link.not_allowed")
        requests = await self.db.links.pending()
        if not requests:
            return Reply(self.t("link.no_requests"))
        buttons = tuple(b for r in requests[:10] for b in self.request_buttons(r))
        lines = [self.t("link.requests_title"), *[self.request_line(r) for r in requests]]
        return Reply("\n".join(lines), buttons)

    async def decide_link(self, actor: Member, request_id: int, approve: bool, reason: str = "") -> Reply:
        """Approve or deny one request (a button's id or the text form): re-read from the database."""
        if not self.may_link(actor):
            raise Refused("link.not_allowed")
        request = await self.db.links.get(request_id) if 0 < request_id <= MAX_REF else None
        if request is None:
            raise Refused("link.request_gone")
        if approve:
            if self.owns_nick(request.nick):
                raise Refused("link.owner_is_configured", nick=request.nick)
            holder = await self.db.members.by_nick(request.nick)
            if holder is not None and holder.roles and not self.lookups.is_owner(actor):
                raise Refused("link.function_needs_owner", nick=holder.nick)
            return await self._prove(request, "approval", actor)
        if not await self.db.links.deny(request, actor.id, self.now(), reason):
            raise Refused("link.request_gone")
        return Reply(self.t("link.denied", nick=request.nick, platform=request.platform))

    @shows_refusals
    async def decide_link_by_nick(self, actor: Member, typed: str, approve: bool, reason: str = "") -> Reply:
        """/povezi NICK odobri|odbij, or /povezi #ID …, when one nickname has requests from several accounts."""
        if not self.may_link(actor):
            raise Refused("link.not_allowed")
        if typed.startswith("#") and typed[1:].isascii() and typed[1:].isdigit() and len(typed) <= 20:
            return await self.decide_link(actor, int(typed[1:]), approve, reason)
        key = identity_key(self.lookups.nickname(typed))
        nick = typed
        found = [r for r in await self.db.links.pending() if identity_key(r.nick) == key]
        if not found:
            raise Refused("link.no_request_for", nick=nick)
        if len(found) > 1:
            raise Refused("link.several", nick=nick, lines="\n".join(self.request_line(r) for r in found))
        return await self.decide_link(actor, found[0].id, approve, reason)

    @shows_refusals
    async def unlink(self, actor: Member, typed_nick: str, platform: str | None = None, reason: str = "") -> Reply:
        """/odvezi NICK [platform]: a moderator or the owner removes a member's link (every platform by default)."""
        if not self.may_link(actor):
            raise Refused("link.not_allowed")
        if platform is not None and platform.casefold() not in PLATFORMS:
            raise Refused("link.bad_platform", platform=platform[:20], platforms=", ".join(PLATFORMS))
        target = await self.governance._target(typed_nick)
        if self.owns_nick(target.nick):
            raise Refused("link.owner_is_configured", nick=target.nick)
        gone = await self.db.links.unlink(
            target.id,
            platform.casefold() if platform else None,
            actor.id,
            self.now(),
            reason,
            lambda platforms: [effect.unlinked(member_queue(target.id), target.id, p) for p in platforms],
        )
        if not gone:
            raise Refused("link.not_linked", nick=target.nick)
        await self.delivery.deliver_effects()
        fresh = await self.db.members.get(target.id)
        if fresh is not None and not fresh.accounts:
            await self.trials.end_trials_of(fresh)  # no account left to speak for him in a trial
        return Reply(self.t("link.unlinked", nick=target.nick, platforms=", ".join(gone)))

    async def ensure_owner_links(self) -> None:
        """At start: the owner's configured accounts are linked to his nickname (configuration is the proof)."""
        if self.config.owner is None or not self.config.owner_accounts:
            return
        owner = await self.db.members.ensure(self.config.owner, self.now())
        for entry in self.config.owner_accounts:
            platform, _, account = entry.partition(":")
            await self.db.links.link_configured(owner.id, platform, account, self.now())
        fresh = await self.db.members.get(owner.id) or owner
        for entry in sorted(fresh.accounts - set(self.config.owner_accounts)):  # no longer configured: unlinked
            platform, _, account = entry.partition(":")
            await self.db.links.unlink_account(platform, account, self.now(), "configuration")

    def link_actions(self) -> dict[Action, Callable[[Member, int], Awaitable[Reply]]]:
        return {
            Action.LINK_APPROVE: lambda m, ref: self.decide_link(m, ref, True),
            Action.LINK_DENY: lambda m, ref: self.decide_link(m, ref, False),
        }

    # The acts --------------------------------------------------------------------------------------------
    def act_text(self, event: Event, names: dict[int, str]) -> str:
        if event.kind not in LINK_EVENTS:
            return self.governance.act_text(event, names)
        data = event.data
        whom = (
            names.get(int(event.subject), "?")
            if event.subject and event.subject.isdigit()
            else (event.subject or "").removeprefix("nick:")
        )
        proof = str(data.get("proof") or "")
        if event.actor is not None:
            who = names.get(event.actor, "?")
        elif proof == "code":
            who = whom
        elif proof == "configuration" or data.get("reason") == "configuration":
            who = self.t("link.by_configuration")
        else:
            who = self.t("gov.admin")
        how = self.t(f"proof.{proof}") if proof in ("code", "approval", "configuration", "admin") else "—"
        return self.t(
            f"act.{event.kind}",
            at=event.at,
            who=who,
            whom=whom,
            platform=data.get("platform", "?"),
            how=how,
            reason=data.get("reason") or "—",
        )
