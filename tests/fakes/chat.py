"""A chat platform that records everything the desk says, for the desk's tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.ports import Button, CallPost, TrialSpace
from rules.members import Member
from rules.notices import Notice


@dataclass
class Sent:
    kind: str  # post, edit, tell, table, open, add, say, close
    where: str  # e.g. '#referees', 'dm:ana', 'trial:3', 'table:1847258'
    text: str
    buttons: tuple[Button, ...] = ()
    mention: tuple[str, ...] = ()
    members: tuple[str, ...] = ()
    channel: str = ""  # a post's: the channel it names (`bot.ports.Channel`)


def by_place(sent: Sequence[Sent]) -> dict[str, list[Sent]]:
    """What each place was shown, in order. The chat outbox keeps the order written within a queue and delivers
    independent queues side by side, so a delivery after a restart is compared place by place."""
    places: dict[str, list[Sent]] = {}
    for one in sent:
        places.setdefault(one.where, []).append(one)
    return places


@dataclass
class RecordingChat:
    platform: str = "test"
    sent: list[Sent] = field(default_factory=list)
    notices: dict[str, str] = field(default_factory=dict)  # message id -> current text
    spaces: dict[int, list[str]] = field(default_factory=dict)  # trial id -> members in the space
    closed: set[int] = field(default_factory=set)

    async def post_call(self, post: CallPost) -> list[Notice]:
        mid = f"m{len(self.notices) + 1}"
        self.notices[mid] = post.text
        mentioned = tuple(m.nick for m in post.mention)
        self.sent.append(Sent("post", "#referees", post.text, post.buttons, mentioned, channel=post.channel))
        out = [Notice(self.platform, "#referees", mid)]
        for member in post.direct:
            dm = f"m{len(self.notices) + 1}"
            self.notices[dm] = post.text
            self.sent.append(Sent("post", f"dm:{member.nick}", post.text, post.buttons))
            out.append(Notice(self.platform, f"dm:{member.nick}", dm))
        return out

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        mid = f"m{len(self.notices) + 1}"
        self.notices[mid] = post.text
        self.sent.append(Sent("tell", f"dm:{member.nick}", post.text, post.buttons))
        return [Notice(self.platform, f"dm:{member.nick}", mid)]

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        for notice in notices:
            self.notices[notice.message] = text
            self.sent.append(Sent("edit", notice.place, text))

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        self.sent.append(Sent("tell", f"dm:{member.nick}", text, tuple(buttons)))

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        self.sent.append(Sent("table", f"table:{game}", text, members=tuple(m.nick for m in players)))

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        members = space.members
        self.spaces[space.id] = sorted(m.nick for m in members)
        self.sent.append(
            Sent("open", f"trial:{space.id}", text, tuple(buttons), members=tuple(sorted(m.nick for m in members)))
        )

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        assert space.role_of(member.id) is not None, "the space lists whoever joins it"
        self.spaces.setdefault(space.id, []).append(member.nick)
        self.sent.append(Sent("add", f"trial:{space.id}", text, members=(member.nick,)))

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        prefix = f"{sender.nick}: " if sender else ""
        self.sent.append(Sent("say", f"trial:{space.id}", prefix + text, tuple(buttons)))

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        self.closed.add(space.id)
        self.sent.append(Sent("close", f"trial:{space.id}", text))

    # Assertions helpers
    def to(self, where: str) -> list[Sent]:
        return [s for s in self.sent if s.where == where]

    def of(self, kind: str) -> list[Sent]:
        return [s for s in self.sent if s.kind == kind]

    def clear(self) -> None:
        self.sent.clear()
