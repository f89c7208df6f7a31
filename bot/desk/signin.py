"""Signing in to the club's web pages, without passwords: `/web` sends the member a private one-time link (single
use, ten minutes, bound to the account and platform it was sent to) that opens a session; where configured, a
platform's own login (the Telegram Login Widget, Discord's OAuth2) proves the account instead, and the front end
asks for the session with the account it proved.

A session stands while it has not expired or been ended, and is re-checked on every request (`session_member`):
it ends when the member left the club, when the account it was opened with is no longer his (his link ended), or
when he no longer holds an office he held at sign-in (his role ended) — the reason kept with it
(`storage.states.SessionEnd`). Tokens are made here (`secrets`) and only their hashes are stored (storage/web.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from bot.desk.base import DeskBase
from bot.desk.deps import DeskDeps, shows_refusals
from bot.desk.links import LinkDesk
from bot.desk.refused import Refused
from bot.ports import Reply
from rules.members import Member
from storage.states import SessionEnd, SignInVia

LINK_LIFETIME = timedelta(minutes=10)
LINKS_PER_WINDOW = 5  # `/web` sends at most this many links to one member within LINK_LIFETIME
TOKEN_BYTES = 32
SIGN_IN_PATH = "/prijava/"  # the link's path before its token (bot/web routes it)
LOGINS = {"telegram": SignInVia.TELEGRAM, "discord": SignInVia.DISCORD}  # the platforms' own logins


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who a session proves to be: the member, and the platform account that proved it."""

    member: Member
    platform: str
    account: str


@dataclass(frozen=True, slots=True)
class Opened:
    """A session opened: its token (for the browser's cookie only) and whom it signs in."""

    token: str
    signed_in: SignedIn


class SignInDesk(DeskBase):
    """The web's sign-ins (see the module docstring)."""

    def __init__(self, deps: DeskDeps, links: LinkDesk) -> None:
        super().__init__(deps)
        self.links = links

    @shows_refusals
    async def web_link(self, member: Member, platform: str, account: str) -> Reply:
        """/web: a one-time link to the club's pages, sent to this member alone (the reply is private on every
        platform), bound to the account he asked from."""
        web = self.config.web
        if not web.enabled:
            raise Refused("web.off")
        now = self.now()
        if await self.db.web.links_since(member.id, now - LINK_LIFETIME) >= LINKS_PER_WINDOW:
            raise Refused("web.too_many", minutes=LINK_LIFETIME)
        if member.account(platform) != account:
            # A front end that identified the member itself (the console's typed lines): the link is bound to his
            # one linked account; with several, to none of them.
            if len(member.accounts) != 1:
                raise Refused("web.no_account")
            platform, _, account = next(iter(member.accounts)).partition(":")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        await self.db.web.add_link(token, member.id, platform, account, now, now + LINK_LIFETIME)
        return Reply(self.t("web.link", url=f"{web.base_url}{SIGN_IN_PATH}{token}", minutes=LINK_LIFETIME))

    async def open_by_link(self, token: str) -> Opened:
        """The link `token` used once: a session for the member and account it was sent to, who must still be in
        the club and linked so; `Refused` when the link is unknown, used, expired, or no longer his."""
        link = await self.db.web.link(token)
        if link is None:
            raise Refused("web.link_unknown")
        member = await self._fit(link.member, link.platform, link.account)
        session_token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self.now()
        opened = await self.db.web.use_link(token, session_token, self._offices(member), now, now + self._lifetime())
        if opened is None:
            raise Refused("web.link_unknown")
        return Opened(session_token, SignedIn(member, opened.platform, opened.account))

    async def link_usable(self, token: str) -> bool:
        """Whether the link `token` would sign in now (it only reads: opening the link's page uses nothing)."""
        link = await self.db.web.link(token)
        if link is None or link.used_at is not None or link.expires_at <= self.now():
            return False
        try:
            await self._fit(link.member, link.platform, link.account)
        except Refused:
            return False
        return True

    async def open_by_account(self, platform: str, account: str) -> Opened:
        """A platform's login (the Telegram widget, Discord's OAuth2) proved `account` on `platform`: a session for
        the member it is linked to."""
        via = LOGINS.get(platform)
        if via is None:
            raise Refused("link.needed")
        member = await self.db.members.by_account(platform, account)
        if member is None:
            raise Refused("link.needed")
        self.links.gate(member)
        session_token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self.now()
        await self.db.web.open_session(
            session_token, member.id, platform, account, via, self._offices(member), now, now + self._lifetime()
        )
        return Opened(session_token, SignedIn(member, platform, account))

    async def session_member(self, token: str) -> SignedIn | None:
        """Who a session cookie proves to be, if the session still stands; a session whose member left, whose
        account is no longer his, or who lost an office he held at sign-in is ended here, with its reason."""
        session = await self.db.web.session(token)
        now = self.now()
        if session is None or not session.standing(now):
            return None
        member = await self.db.members.get(session.member)
        why: SessionEnd | None = None
        if member is None or not member.in_club:
            why = SessionEnd.LEFT_CLUB
        elif member.account(session.platform) != session.account:
            why = SessionEnd.LINK_ENDED
        elif not session.offices <= self._offices(member):
            why = SessionEnd.OFFICE_ENDED
        if why is not None or member is None:
            await self.db.web.end_session(session.id, why or SessionEnd.LEFT_CLUB, now)
            return None
        return SignedIn(member, session.platform, session.account)

    async def sign_out(self, token: str) -> None:
        session = await self.db.web.session(token)
        if session is not None:
            await self.db.web.end_session(session.id, SessionEnd.SIGNED_OUT, self.now())

    async def _fit(self, member_id: int, platform: str, account: str) -> Member:
        member = await self.db.members.get(member_id)
        if member is None or member.account(platform) != account:
            raise Refused("web.link_unknown")
        self.links.gate(member)
        return member

    def _offices(self, member: Member) -> frozenset[str]:
        return frozenset(office.value for office in self.lookups.roles_of(member))

    def _lifetime(self) -> timedelta:
        return timedelta(days=self.config.web.session_days)
