"""The console chat adapter: `ChatPort` for the console club, printing every message the bot sends.

Each line is tagged with where it went — ``[#sudije]`` (the referees' and councilors' channel), ``[dm ana]``
(a private message), ``[trial 3]`` (a trial space), ``[table 1847300]`` (a table) — and its buttons follow the
text in brackets, ``[Sudi]``. Like every adapter it only translates: it decides nothing. What it keeps is what
a chat platform keeps: the messages it printed with their buttons (so a member can press a button he sees), who
is in which trial space, and the notices of each call so that an edit is printed as one
(``[#sudije] (izmena) …``). Notices are stored by the desk in the database, so an edit after a restart still
prints; only its button registry starts empty. A message the chat outbox delivers again after a crash (it may
have been printed before the crash: `repeated_delivery`) is printed as an edit of itself, never as a second one.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.desk.advice import ADVICE_REF
from bot.i18n.cyrillic import to_latin
from bot.messages import Catalogue
from bot.ports import Action, Button, CallPost, Reply, TrialSpace, repeated_delivery
from rules.members import JUDGING_ROLES, Member
from rules.notices import Notice

PLATFORM = "console"
LATIN = Catalogue("sr")  # the labels a script types (`typed_label`)

#: Roles that see the referees' channel: those who judge.
CHANNEL_ROLES = JUDGING_ROLES

_FOLD = str.maketrans({"đ": "dj", "š": "s", "č": "c", "ć": "c", "ž": "z"})


def fold_label(label: str) -> str:
    """Button labels compare without case, diacritics, script or extra spaces: ``zavrsi sudjenje`` is Završi suđenje
    and ``Sudi`` is Суди."""
    text = " ".join(to_latin(label).split()).casefold().translate(_FOLD)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def typed_label(button: Button) -> str:
    """The button's label as the club's scripts type it in any language: its Serbian Latin text (a script written
    for one club runs in another's language: ``!press Sudi`` presses [Судить])."""
    action = Action.parse(str(button.action))
    return button.label if action is None else LATIN.t(action.label_key, hand=button.ref % ADVICE_REF)


@dataclass
class Shown:
    """A printed message that carries buttons, and who can see it."""

    id: str
    place: str  # '#channel', 'dm:<member id>', 'trial:<id>'
    buttons: tuple[Button, ...]
    enabled: bool = True


@dataclass
class Screen:
    """What the platform remembers: messages with buttons (oldest first) and the members of each trial space."""

    shown: list[Shown] = field(default_factory=list)
    spaces: dict[int, set[int]] = field(default_factory=dict)  # open trial spaces: trial id -> member ids


class ConsoleChat:
    """The console platform. `write` receives each printed line; a member without a console account is skipped,
    as on any platform."""

    platform = PLATFORM

    def __init__(self, write: Callable[[str], None], messages: Catalogue, picture_dir: Path | None = None) -> None:
        self.write = write
        self.messages = messages
        self.picture_dir = picture_dir  # where a reply's pictures are written (None: not written)
        self.screen = Screen()
        self._session = uuid.uuid4().hex[:8]
        self._count = 0

    @property
    def channel(self) -> str:
        return self.messages.t("console.channel")

    # Printing --------------------------------------------------------------------------------------------
    def _message_id(self) -> str:
        self._count += 1
        return f"{self._session}-{self._count}"

    def emit(self, tag: str, text: str, buttons: Sequence[Button] = ()) -> None:
        """One message: ``[tag] text [Button] [Button]``; continuation lines are indented under the text."""
        body = text
        if buttons:
            body += "  " + " ".join(f"[{b.label}]" for b in buttons)
        head = f"[{tag}] "
        lines = body.split("\n")
        self.write(head + lines[0])
        for line in lines[1:]:
            self.write(" " * len(head) + line if line else "")

    def _again(self, text: str) -> str:
        """A repeated delivery (`repeated_delivery`) shows as an edit of the message it may have printed."""
        return f"{self.messages.t('console.edited')} {text}" if repeated_delivery.get() else text

    def note(self, text: str) -> None:
        """The console's own remarks (presence, clock, the game server): in parentheses, tagged by nobody."""
        for line in text.split("\n"):
            self.write(f"  ({line})")

    def _remember(self, place: str, buttons: Sequence[Button], message_id: str | None = None) -> str:
        mid = message_id or self._message_id()
        if buttons:
            self.screen.shown.append(Shown(mid, place, tuple(buttons)))
        return mid

    @staticmethod
    def _tag(place: str) -> str:
        kind, _, rest = place.partition(":")
        return f"{kind} {rest}" if rest else place

    @staticmethod
    def account_of(member: Member) -> str | None:
        return member.account(PLATFORM)

    def _dm_place(self, member: Member) -> tuple[str, str] | None:
        account = self.account_of(member)
        if account is None:
            return None
        return f"dm:{account}", f"dm {account}"

    # The chat port ---------------------------------------------------------------------------------------
    async def post_call(self, post: CallPost) -> list[Notice]:
        mentions = [f"@{acc}" for acc in [self.account_of(m) for m in post.mention] if acc is not None]
        text = " ".join([*mentions, post.text])
        mid = self._remember(self.channel, post.buttons)
        self.emit(self.channel, self._again(text), post.buttons)
        notices = [Notice(PLATFORM, self.channel, mid)]
        for member in post.direct:
            dm = self._dm_place(member)
            if dm is None:
                continue
            place, tag = dm
            dm_id = self._remember(place, post.buttons)
            self.emit(tag, self._again(post.text), post.buttons)
            notices.append(Notice(PLATFORM, place, dm_id))
        return notices

    async def offer_call(self, member: Member, post: CallPost) -> list[Notice]:
        dm = self._dm_place(member)
        if dm is None:
            return []
        place, tag = dm
        dm_id = self._remember(place, post.buttons)
        self.emit(tag, self._again(post.text), post.buttons)  # an outbox effect: a repeat shows as an edit
        return [Notice(PLATFORM, place, dm_id)]

    async def edit_notices(self, notices: Sequence[Notice], text: str) -> None:
        edited = self.messages.t("console.edited")
        for notice in notices:
            for shown in self.screen.shown:
                if shown.id == notice.message:
                    shown.enabled = False
            self.emit(self._tag(notice.place), f"{edited} {text}")

    async def tell(self, member: Member, text: str, buttons: Sequence[Button] = ()) -> None:
        dm = self._dm_place(member)
        if dm is None:
            return
        place, tag = dm
        self._remember(place, buttons)
        self.emit(tag, self._again(text), buttons)

    def show_reply(self, account: str, reply: Reply) -> None:
        """What the desk answered the member who acted: private to him, so printed as his DM."""
        self._remember(f"dm:{account}", reply.buttons)
        self.emit(f"dm {account}", reply.text, reply.buttons)
        if self.picture_dir is not None and (reply.pictures or reply.documents):
            self.picture_dir.mkdir(parents=True, exist_ok=True)
            for name, data in [(p.name, p.png) for p in reply.pictures] + [(d.name, d.data) for d in reply.documents]:
                path = self.picture_dir / name
                path.write_bytes(data)
                self.note(self.messages.t("console.picture", path=path))

    async def tell_table(self, game: int, players: Sequence[Member], text: str) -> None:
        self.emit(f"table {game}", self._again(text))

    async def open_trial_space(self, space: TrialSpace, text: str, buttons: Sequence[Button]) -> None:
        present: list[str] = []
        seen: set[int] = set()
        for member in space.members:
            account = self.account_of(member)
            if account is not None:
                present.append(account)
                seen.add(member.id)
        self.screen.spaces[space.id] = seen
        self._remember(f"trial:{space.id}", buttons)
        self.emit(f"trial {space.id}", self._again(text), buttons)
        self.emit(f"trial {space.id}", self.messages.t("console.space_members", members=", ".join(present)))

    async def add_to_trial_space(self, space: TrialSpace, member: Member, text: str) -> None:
        if self.account_of(member) is not None:
            self.screen.spaces.setdefault(space.id, set()).add(member.id)
        self.emit(f"trial {space.id}", self._again(text))

    async def say_in_trial(
        self, space: TrialSpace, text: str, sender: Member | None = None, buttons: Sequence[Button] = ()
    ) -> None:
        self._remember(f"trial:{space.id}", buttons)
        if sender is not None:
            text = f"{self.account_of(sender) or sender.nick}: {text}"
        self.emit(f"trial {space.id}", self._again(text), buttons)

    async def close_trial_space(self, space: TrialSpace, text: str) -> None:
        self.screen.spaces.pop(space.id, None)
        for shown in self.screen.shown:
            if shown.place == f"trial:{space.id}":
                shown.enabled = False
        self.emit(f"trial {space.id}", self._again(text))

    # Buttons -------------------------------------------------------------------------------------------
    def sees(self, member: Member, account: str, place: str) -> bool:
        """Whether `member` sees messages in `place`: his DMs, the channel if he is a referee or councilor,
        the trial spaces he is in."""
        if place == f"dm:{account}":
            return True
        if place == self.channel:
            return bool(member.roles & CHANNEL_ROLES)
        kind, _, ref = place.partition(":")
        if kind == "trial" and ref.isdigit():
            return member.id in self.screen.spaces.get(int(ref), set())
        return False

    def find_button(self, member: Member, account: str, label: str) -> Button | None:
        """The button labelled `label` on the newest message that shows it to `member`, if any."""
        wanted = fold_label(label)
        for shown in reversed(self.screen.shown):
            if not shown.enabled or not self.sees(member, account, shown.place):
                continue
            for button in shown.buttons:
                if wanted in (fold_label(button.label), fold_label(typed_label(button))):
                    return button
        return None
