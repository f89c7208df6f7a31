"""A member's own language (`/jezik`): what he chose is stored (`storage.languages`) and every reply, private
message and button addressed to him is written in it (`Voice.reading`); the club's chat, the table and a
trial's space keep the club's language. The platforms' own locales are not consulted: a member reads the club's
language until he chooses another."""

from __future__ import annotations

from bot.desk.base import DeskBase
from bot.desk.deps import shows_refusals
from bot.desk.refused import Refused
from bot.i18n import LANGUAGES
from bot.i18n.reader import speaking
from bot.ports import Reply
from rules.members import Member
from storage.languages import member_language, set_member_language
from storage.states import Language

CLUB = "klub"  # back to the club's language
LANGUAGE_CHOICES: tuple[str, ...] = (*LANGUAGES, CLUB)


class LanguageDesk(DeskBase):
    """`/jezik`: the language a member reads."""

    def language_name(self, language: str) -> str:
        return self.t(f"language.{language}")

    def language_choices(self) -> str:
        """One line per choice, as typed: ``/jezik en — English`` … ``/jezik klub — the club's language: …``."""
        lines = [f"/jezik {code} — {self.language_name(code)}" for code in LANGUAGES]
        club = self.t("jezik.club_choice", language=self.language_name(self.config.language))
        return "\n".join([*lines, f"/jezik {CLUB} — {club}"])

    @shows_refusals
    async def choose_language(self, member: Member, choice: str | None) -> Reply:
        """/jezik: without a choice, the language he reads and the choices; with one, his language from now on
        (`klub`: the club's again), confirmed in it. Anything else is refused and changes nothing."""
        if choice is None:
            own = await member_language(self.db, member.id)
            key = "jezik.current_own" if own is not None else "jezik.current_club"
            return Reply(
                self.t(key, language=self.language_name(own or self.config.language), choices=self.language_choices())
            )
        if choice not in LANGUAGE_CHOICES:
            raise Refused("jezik.unknown", choices=self.language_choices())
        language = None if choice == CLUB else Language(choice)
        await set_member_language(self.db, member.id, language, self.now())
        with speaking(language):
            key = "jezik.chosen_club" if language is None else "jezik.chosen"
            return Reply(self.t(key, language=self.language_name(language or self.config.language)))
