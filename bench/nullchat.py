"""A chat platform for the benchmarks that accepts everything at once, so the figures are the desk's and SQLite's."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ports import Button, CallPost, TrialSpace
from rules.members import Member
from rules.notices import Notice


class NullChat:
    """A platform that accepts everything instantly, so the figures are the desk's and SQLite's."""

    platform = "bench"

    async def post_call(self, post: CallPost) -> list[Notice]:
        return [Notice(self.platform, "#referees", post.subject)]

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        return [Notice(self.platform, member.nick, post.subject)]

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        return None

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        return None

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        return None

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        return None

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        return None

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        return None

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        return None
