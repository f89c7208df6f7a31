"""What the desk writes in: the texts of whoever reads now (`bot.i18n.reader`: the member answered, in his own
language, else the club's), the club's own voice (its chat, the call notices, the table, a trial's space), and a
refusal rendered. One per part, over the desk's one `DeskDeps`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractContextManager, asynccontextmanager

from bot.desk.deps import DeskDeps
from bot.i18n.reader import reader_language, speaking
from bot.messages import Catalogue
from bot.ports import Reply
from rules.members import Member
from storage.languages import account_language, member_language


class Voice:
    """The parts' words: `t` in the reader's language, `club_voice` for the club, `reading` for one member."""

    def __init__(self, deps: DeskDeps) -> None:
        self.deps = deps

    @property
    def club_messages(self) -> Catalogue:
        """The club's own texts (its chat, the call notices, the table, what is stored), whoever reads now."""
        return self.deps.catalogues[self.deps.config.language]

    @property
    def messages(self) -> Catalogue:
        """The texts of whoever reads now (`bot.i18n.reader`): the member answered, else the club's."""
        return self.deps.catalogues[reader_language() or self.deps.config.language]

    def t(self, key: str, **params: object) -> str:
        return self.messages.t(key, **params)

    def plavac_name(self) -> str:
        """The penalty's name: the club's own (`[penalties] plavac_name`), else the catalogue's, in the reader's."""
        return self.deps.config.penalties.plavac_name or self.t("term.plavac")

    def league_name(self) -> str:
        """The league's name: the club's own (`[penalties] league_name`), else the catalogue's in the reader's words."""
        return self.deps.config.penalties.league_name or self.t("term.league")

    def refuse(self, key: str, **params: object) -> Reply:
        return Reply(self.t(key, **params), ok=False)

    def club_voice(self) -> AbstractContextManager[None]:
        """Write for the club (its chat, the call notices, the table, a trial's space) in the club's language."""
        return speaking(None)

    @asynccontextmanager
    async def reading(self, member: Member | None) -> AsyncIterator[None]:
        """Write for this member (a reply, a private message, its buttons) in his own language (`/jezik`), or in
        the club's when he chose none or is not known."""
        language = None if member is None else await member_language(self.deps.db, member.id)
        with speaking(language):
            yield

    @asynccontextmanager
    async def reading_account(self, platform: str, account: str) -> AsyncIterator[None]:
        """`reading` for whoever a platform account is linked to, known by the account alone: his language in one
        read, before any of the desk's work (an adapter's first answer to a press, which a platform drops when it
        comes late)."""
        with speaking(await account_language(self.deps.db, platform, account)):
            yield

    async def reader_languages(self, members: Iterable[int]) -> dict[int, str | None]:
        """The language each member reads (None: the club's), read before a decision's transaction whose chat
        effects are written in it (`told`) for members known only inside it."""
        return {m: await member_language(self.deps.db, m) for m in set(members)}
