"""Chat effects through the durable chat outbox (`storage.chat_outbox`): the effect rows a decision writes in its
own transaction (the builders below), and `ChatOutbox`, the outbox engine's worker (`bot.outbox_engine`) that
delivers them through the chat ports.

The desk delivers at once after its commit (`Delivery.deliver_effects`), so members see what they saw before; the
rows make it survive a crash in between: `Desk.start` delivers whatever is still pending, and the worker started
with the bot (`ChatOutbox.start`) retries what failed for a while. Each platform's part of an effect is begun
(in the transaction that leases the effect), then done with what the platform created (a call's message ids, kept
as notices) in one transaction — the last platform's with the effect's end — so a delivery repeated after a crash
skips the platforms that are done, and the one that was begun gets it with `repeated_delivery` set (the console
shows it as an edit of what it may have shown). What may heal (429, a timeout, the network, a 5xx, a 401/403/404
of a misconfigured channel) is retried with backoff up to the configured bound, then the effect is dead; a refusal
for good (a bad request, what it names gone) fails it; either way the officials are told. Effects of one queue (a
call and its trial) are delivered in the order they were written.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from bot.outbox_engine import (
    DELIVERED,
    Attempt,
    Backoff,
    Bounds,
    OutboxEngine,
    Outcome,
    Permanent,
    error_outcome,
)
from bot.ports import (
    Action,
    Button,
    CallPost,
    Channel,
    ChatPort,
    Chats,
    Delivery,
    GameServerPort,
    TrialSpace,
    command_key,
    delivering,
    repeated_delivery,
    state_key,
)
from rules.notices import Notice
from storage.chat_outbox import ChatOutboxStore, Effect, Ending, NewEffect
from storage.database import Database, now_text, parse_stored_time
from storage.states import CouncilorCallState, DeliveryState, OutboxState
from storage.trials import Trial

if TYPE_CHECKING:
    from bot.config import Config

__all__ = ["Backoff", "ChatOutbox", "Permanent", "delivering", "is_transient"]

SERVER = "server"  # the "platform" of an effect that asks the game server (through its own port and outbox)
SERVER_OPS = frozenset(
    {
        "pause_table",
        "resume_table",
        "block_offers",
        "unblock_offers",
        "close_game",
        "set_plavac",  # (nick, until as stored text or None: the plavac ended or was lifted)
        "set_suspension",  # (nick, until as stored text or None): from all the club's tournaments (v1.1)
        "set_restriction",  # (nick, until as stored text): no petitions nor forum posts until then (v1.1)
        "paper_changed",  # (game): the paper as it stands when delivered (the newest paper wins)
        "deliver_link_code",  # (nick, code)
    }
)
IDEMPOTENT = frozenset({"edit_notices", SERVER})  # repeated, the same edit or request: nothing to begin first
LEASE = timedelta(minutes=2)  # how long a process holds an effect it delivers (another takes it after a crash)


# The effects ------------------------------------------------------------------------------------------------
def _buttons(buttons: Sequence[Button]) -> list[list[object]]:
    return [[b.label, b.action, b.ref, b.style] for b in buttons]


def _read_buttons(data: Any) -> tuple[Button, ...]:
    return tuple(Button(str(label), Action(str(action)), int(ref), str(style)) for label, action, ref, style in data)


Queue = int | str  # a call's id (its queue, shared with the trial it became), or a queue's own name


def queue_of(queue: Queue) -> str:
    """A call's effects and those of the trial it became share one queue (``call:N``): they arrive in order.
    Effects of other decisions name their own queue (``appeal:N``, ``member:N``, …): a string is kept as it is."""
    return queue if isinstance(queue, str) else f"call:{queue}"


def post_call(call_id: int, post: CallPost) -> NewEffect:
    """Post a call's notice to the referees (its copies are kept as the notices of `post.subject`)."""
    return NewEffect(
        queue_of(call_id),
        "post_call",
        {
            "call": call_id,
            "subject": post.subject,
            "channel": post.channel.value,
            "text": post.text,
            "mention": [m.id for m in post.mention],
            "direct": [m.id for m in post.direct],
            "buttons": _buttons(post.buttons),
        },
    )


def post_councilor_call(call_id: int, post: CallPost) -> NewEffect:
    """Post a councilor call's notice (in the queue of the trial's call `call_id`); its councilors were recorded
    as pinged with the decision, so its delivery records none."""
    return post_notice(call_id, post)


def edit_notices(call_id: Queue, subject: str, text: str) -> NewEffect:
    """Edit every copy of the notices of `subject` (as stored when the effect is delivered)."""
    return NewEffect(queue_of(call_id), "edit_notices", {"subject": subject, "text": text})


def tell(call_id: Queue, member: int, text: str, buttons: Sequence[Button] = ()) -> NewEffect:
    return NewEffect(queue_of(call_id), "tell", {"member": member, "text": text, "buttons": _buttons(buttons)})


def tell_table(call_id: Queue, game: int, text: str) -> NewEffect:
    return NewEffect(queue_of(call_id), "tell_table", {"game": game, "text": text})


def open_trial_space(call_id: Queue, trial: int, text: str, buttons: Sequence[Button]) -> NewEffect:
    return NewEffect(
        queue_of(call_id), "open_trial_space", {"trial": trial, "text": text, "buttons": _buttons(buttons)}
    )


def add_to_trial_space(call_id: Queue, trial: int, member: int, text: str) -> NewEffect:
    """`member` (a party of the trial already, as stored) joins its space, with a line said there."""
    return NewEffect(queue_of(call_id), "add_to_trial_space", {"trial": trial, "member": member, "text": text})


def say_in_trial(call_id: Queue, trial: int, text: str) -> NewEffect:
    """A line from the bot in the trial's space."""
    return NewEffect(queue_of(call_id), "say_in_trial", {"trial": trial, "text": text})


def close_trial_space(call_id: Queue, trial: int, text: str) -> NewEffect:
    return NewEffect(queue_of(call_id), "close_trial_space", {"trial": trial, "text": text})


def server(call_id: Queue, op: str, arg: int | str, *more: int | str | None, key: str | None = None) -> NewEffect:
    """Ask the game server (`pause_table`, …) in the queue's order: after the space opens, before the table hears.
    Delivered through the desk's game-server port, once: a port that keeps commands keeps it under a key fixed
    by the effect (`bot.ports.command_key`): `key` for a command that asserts a state (`bot.ports.state_key`,
    the key its re-assertion at a restart uses too), else the effect's own."""
    assert op in SERVER_OPS, op
    payload: dict[str, Any] = {"op": op, "arg": arg}
    if more:
        payload["more"] = list(more)
    if key is not None:
        payload["key"] = key
    return NewEffect(queue_of(call_id), SERVER, payload)


def deliver_link_code(queue: Queue, nick: str, code: str) -> NewEffect:
    """Show `nick` his one-time link code in the game client. The code is a secret (only its hash is stored
    otherwise): the row forgets it once the effect ends."""
    posted = server(queue, "deliver_link_code", nick, code)
    return NewEffect(posted.queue, posted.kind, {**posted.payload, "secret": True})


def _kept(effect: Effect) -> dict[str, Any] | None:
    """What an ended effect's row keeps: all of it (None), or without the secret it carried."""
    if not effect.payload.get("secret"):
        return None
    return {k: v for k, v in effect.payload.items() if k not in ("more", "secret")}


def set_plavac(queue: Queue, nick: str, until: datetime | None) -> NewEffect:
    """The game server shows `nick`'s plavac until `until` (None: he has none any more). A running plavac is a
    state the bot re-asserts at start (`plavac_key`); its end is not."""
    if until is None:
        return server(queue, "set_plavac", nick, None)
    return server(queue, "set_plavac", nick, now_text(until), key=plavac_key(nick, until))


def set_suspension(queue: Queue, nick: str, until: datetime | None) -> NewEffect:
    """The game server suspends `nick` from all the club's tournaments until `until` (None: no longer). A running
    suspension is a state the bot re-asserts at start, as a plavac."""
    if until is None:
        return server(queue, "set_suspension", nick, None)
    return server(queue, "set_suspension", nick, now_text(until), key=suspension_key(nick, until))


def suspension_key(nick: str, until: datetime) -> str:
    return state_key("suspension", nick.casefold(), now_text(until))


def plavac_key(nick: str, until: datetime) -> str:
    return state_key("plavac", nick.casefold(), now_text(until))


def linked(queue: Queue, member: int, platform: str) -> NewEffect:
    """A proven link was written: `platform` may sync what it owns for the member (Discord: the mapped roles)."""
    return NewEffect(queue_of(queue), "linked", {"member": member, "platform": platform})


def roles(queue: Queue, member: int) -> NewEffect:
    """An act changed the member's functions: a platform that shows them as its roles (Discord) writes them."""
    return NewEffect(queue_of(queue), "roles", {"member": member})


def unlinked(queue: Queue, member: int, platform: str) -> NewEffect:
    """A link was removed: what `platform` gave the member through that account goes with it."""
    return NewEffect(queue_of(queue), "unlinked", {"member": member, "platform": platform})


# The councilors' business (appeals, votes): their own queues, ``appeal:N`` and ``vote:N``.
def post_notice(queue: Queue, post: CallPost) -> NewEffect:
    """Post a notice that is not a referee call's (an appeal's, a vote's, a reminder): its copies are kept as the
    notices of `post.subject`; whom it pings, if anyone, was recorded with its decision."""
    posted = post_call(0, post)
    return NewEffect(queue_of(queue), posted.kind, {k: v for k, v in posted.payload.items() if k != "call"})


def offer_call(queue: Queue, member: int, post: CallPost) -> NewEffect:
    """A private copy of a pending call (or councilor call) for one member who became eligible; its copies are
    kept as notices of `post.subject`, so the call's later edits reach them. In the queue of the call it copies."""
    return NewEffect(
        queue_of(queue),
        "offer_call",
        {
            "member": member,
            "subject": post.subject,
            "channel": post.channel.value,
            "text": post.text,
            "buttons": _buttons(post.buttons),
        },
    )


# The officials told ------------------------------------------------------------------------------------------
NOTICE_QUEUE = "outbox:"  # the queues of the notices that tell the officials of a row refused or given up
FORBIDDEN = "Forbidden"  # the class of a platform's 403 in an attempt's error ("discord: Forbidden: 403 …")


def tell_officials(subject: str, text: str) -> NewEffect:
    """A notice in the officials' channel (the referees', on every platform) about a row of an outbox that was
    refused for good or given up (`subject`: ``outbox:chat:N`` or ``outbox:gameserver:N``, its own queue), or about a
    trial's space a platform refused (``space:<trial>:<platform>``). A notice about a notice is never written: it
    would only loop."""
    return post_notice(subject, CallPost(subject, text, (), ()))


# Delivery ---------------------------------------------------------------------------------------------------
class Reach(Protocol):
    """What delivery needs of the desk: the database, the ports, a trial's space as platforms show it, the
    club's words and the bounds of its outbox."""

    @property
    def db(self) -> Database: ...

    @property
    def chat(self) -> Chats: ...

    @property
    def game_server(self) -> GameServerPort: ...

    @property
    def config(self) -> Config: ...

    async def trial_space(self, trial: Trial) -> TrialSpace: ...

    async def paper_changed(self, number: int) -> None: ...

    def t(self, key: str, **params: object) -> str: ...

    def club_voice(self) -> AbstractContextManager[None]: ...


def is_transient(exc: BaseException) -> bool:
    """Whether a failure is worth trying again (`bot.outbox_engine.error_outcome` classifies it)."""
    return error_outcome(exc).outcome is Outcome.RETRY


class ChatOutbox(OutboxEngine[Effect]):
    """The chat outbox's worker: each effect's platforms in turn, effects in the order written (one queue after
    another); `deliver` is its `run_once`."""

    name = "chat outbox"
    lease_time = LEASE

    def __init__(
        self,
        desk: Reach,
        clock: Callable[[], datetime] | None = None,
        *,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        max_attempts: int | None = None,
    ) -> None:
        from bot.ports import SystemClock  # noqa: PLC0415 (the default only)

        bounds = Bounds.of(desk.config.outbox)
        if max_attempts is not None:
            bounds = Bounds(max_attempts, bounds.age)
        self.desk = desk
        self.store = ChatOutboxStore(desk.db)
        # Real time: retries wait real seconds, whatever the club's clock.
        super().__init__(self.store, clock or SystemClock().now, backoff=backoff, rng=rng, bounds=bounds)
        self.background = False  # whether `Desk.start` starts the worker: the bot's app does, a bare desk not

    async def deliver(self) -> int:
        """Deliver every effect that is due (see `OutboxEngine.run_once`); how many ended."""
        return await self.run_once()

    def may_attempt(self, row: Effect) -> bool:
        return row.kind == SERVER or bool(self.desk.chat.ports)  # no platform here (a command line's desk)

    async def lease(self, row: Effect, now: datetime, until: datetime) -> bool:
        """The effect leased, and each platform about to be asked a first time marked begun with the lease (one
        transaction), unless asking again repeats nothing (`IDEMPOTENT`): `attempt` follows at once."""
        fresh = [] if row.kind in IDEMPOTENT else [n for n, _ in self._targets(row) if n not in row.deliveries]
        return await self.store.lease(row.id, now, until, fresh)

    def _targets(self, effect: Effect) -> list[tuple[str, ChatPort | None]]:
        """The parts still to do: the game server's, or each platform's not done (nor failed) yet."""
        if effect.kind == SERVER:
            targets: list[tuple[str, ChatPort | None]] = [(SERVER, None)]
        else:
            targets = [(port.platform, port) for port in self.desk.chat.ports]
        over = (DeliveryState.DONE, DeliveryState.FAILED)
        return [(name, port) for name, port in targets if effect.deliveries.get(name) not in over]

    async def attempt(self, row: Effect) -> Attempt:
        """Every part of one effect still to do: delivered when each is done, refused when some platform refused
        it for good (the others still get theirs), to be tried again when some part may heal."""
        effect = row
        targets = self._targets(effect)
        if not targets:  # every part was over before (a crash came before the effect's end)
            failed = tuple(p for p, s in effect.deliveries.items() if s is DeliveryState.FAILED)
            return Attempt(Outcome.REFUSED, effect.last_error or "", where=failed) if failed else DELIVERED
        retry: list[tuple[str, Attempt]] = []
        refused: list[tuple[str, Attempt]] = []
        last: tuple[str, tuple[str, list[Notice]] | None] | None = None
        for platform, port in targets:
            token = repeated_delivery.set(effect.deliveries.get(platform) is DeliveryState.STARTED)
            which = delivering.set(Delivery(effect.id))
            try:
                created = await self._apply(effect, port)
            except Exception as exc:  # noqa: BLE001 (a platform's failure is classified, recorded and logged)
                failure = error_outcome(exc)
                failure = Attempt(failure.outcome, f"{platform}: {failure.error}", failure.retry_after, (platform,))
                if failure.outcome is Outcome.REFUSED:
                    refused.append((platform, failure))
                    await self.store.done(effect.id, platform, self.clock(), None, DeliveryState.FAILED)
                else:
                    retry.append((platform, failure))
                continue
            finally:
                repeated_delivery.reset(token)
                delivering.reset(which)
            if platform == targets[-1][0] and not retry and not refused:
                last = (platform, created)  # the effect is delivered: its part is recorded with its end
            else:
                await self.store.done(effect.id, platform, self.clock(), created)
        if retry:
            waits = [a.retry_after for _, a in retry if a.retry_after is not None]
            return Attempt(Outcome.RETRY, retry[0][1].error, max(waits) if waits else None, tuple(p for p, _ in retry))
        if refused:
            return Attempt(Outcome.REFUSED, refused[0][1].error, where=tuple(p for p, _ in refused))
        return Attempt(Outcome.DELIVERED, with_end=last)

    async def end(
        self, row: Effect, state: OutboxState, attempt: Attempt, now: datetime, told: Sequence[NewEffect]
    ) -> None:
        effect = row
        # A referee call's pings are recorded with its post (a councilor call's were, with its decision).
        call = int(effect.payload["call"]) if effect.kind == "post_call" and "call" in effect.payload else None
        pings = [int(m) for m in effect.payload.get("mention", [])] if call is not None else []
        given_up = attempt.where if state is OutboxState.DEAD else ()
        ending = Ending(state, attempt.error or None, pings, call, _kept(effect), given_up)
        if attempt.with_end is not None:  # delivered: its last platform's part is done in the end's transaction
            platform, created = attempt.with_end
            await self.store.done(effect.id, platform, now, created, end=ending)
        else:
            await self.store.end(effect.id, ending, now, told)

    def notice(self, row: Effect, state: OutboxState, attempt: Attempt) -> Sequence[NewEffect]:
        if row.queue.startswith(NOTICE_QUEUE):
            return ()
        key = "outbox.effect_dead" if state is OutboxState.DEAD else "outbox.effect_refused"
        with self.desk.club_voice():
            text = self.desk.t(
                key, id=row.id, kind=row.kind, platforms=", ".join(attempt.where), error=attempt.error[:300]
            )
        return [tell_officials(f"{NOTICE_QUEUE}chat:{row.id}", text)]

    async def told(self) -> None:
        self._again = True  # delivered by this run's next pass

    async def retry_forbidden(self, platform: str) -> int:
        """The platform says the bot's permissions changed and allow what it refused: every effect waiting after
        its 403 there is tried again now; how many."""
        due = await self.store.due_now(f"{platform}: {FORBIDDEN}%", self.clock())
        if due:
            self.wake()
        return due

    async def _server(self, effect: Effect) -> None:
        """A `server` effect through the game-server port, under the command key its effect fixes."""
        p = effect.payload
        op, args = p["op"], [p["arg"], *p.get("more", [])]
        if op not in SERVER_OPS:
            raise Permanent(f"unknown game-server effect {op}")
        token = command_key.set(p.get("key") or f"sudija-effect-{effect.id}")
        try:
            if op in ("set_plavac", "set_suspension", "set_restriction"):
                until = parse_stored_time(args[1]) if args[1] is not None else None
                await getattr(self.desk.game_server, op)(str(args[0]), until)
            elif op == "paper_changed":
                await self.desk.paper_changed(int(args[0]))
            else:
                await getattr(self.desk.game_server, op)(*args)
        finally:
            command_key.reset(token)

    async def _member(self, member_id: int) -> Any:
        member = await self.desk.db.members.get(member_id)
        if member is None:
            raise Permanent(f"member {member_id} is gone")
        return member

    async def _space(self, trial_id: int, is_open: bool | None = None) -> TrialSpace:
        trial = await self.desk.db.trials.get(trial_id)
        if trial is None:
            raise Permanent(f"trial {trial_id} is gone")
        space = await self.desk.trial_space(trial)
        if is_open is not None:
            space = TrialSpace(space.id, space.game, space.in_game, is_open, space.parties)
        return space

    async def _apply(self, effect: Effect, port: ChatPort | None) -> tuple[str, list[Notice]] | None:
        """Carry out one platform's part; what it created (a call's notices) is returned to be kept."""
        p = effect.payload
        if port is None:
            await self._server(effect)
            return None
        kind = effect.kind
        if kind == "post_call":
            mention = tuple(await self.desk.db.members.many([int(m) for m in p["mention"]]))
            direct = tuple(m for m in mention if m.id in set(p["direct"]))
            post = CallPost(p["subject"], p["text"], mention, _read_buttons(p["buttons"]), direct, channel=_channel(p))
            return p["subject"], list(await port.post_call(post))
        if kind == "edit_notices":
            cancelled = p.get("if_cancelled")  # a councilor call's notice: only if the trial's end cut it short
            if cancelled is not None:
                ccall = await self.desk.db.calls.councilor_call(int(cancelled))
                if ccall is None or ccall.state is not CouncilorCallState.CANCELLED:
                    return None
            notices = [n for n in await self.desk.db.calls.notices(p["subject"]) if n.platform == port.platform]
            if notices:
                await port.edit_notices(notices, p["text"])
        elif kind == "tell":
            await port.tell(await self._member(p["member"]), p["text"], _read_buttons(p["buttons"]))
        elif kind == "tell_table":
            summary = await self.desk.db.games.summary(p["game"])
            nicks = summary.players if summary is not None else ()
            players = [m for m in [await self.desk.db.members.by_nick(n) for n in nicks] if m is not None]
            await port.tell_table(p["game"], players, p["text"])
        elif kind == "open_trial_space":
            await port.open_trial_space(await self._space(p["trial"], True), p["text"], _read_buttons(p["buttons"]))
        elif kind == "add_to_trial_space":
            # Delivered in its queue's order, before any end of the trial: the space was open then.
            space = await self._space(p["trial"], True)
            await port.add_to_trial_space(space, await self._member(p["member"]), p["text"])
        elif kind == "say_in_trial":
            await port.say_in_trial(await self._space(p["trial"], True), p["text"])
        elif kind == "close_trial_space":
            await port.close_trial_space(await self._space(p["trial"]), p["text"])
        elif kind in ("linked", "unlinked"):
            # Only the platform of the link has a hook to run; the member as stored when it is delivered.
            hook = getattr(port, f"member_{kind}", None)
            if port.platform == p["platform"] and hook is not None:
                await hook(await self._member(p["member"]))
        elif kind == "roles":
            hook = getattr(port, "member_roles", None)
            if hook is not None:
                await hook(await self._member(p["member"]))
        elif kind == "offer_call":
            member = await self._member(p["member"])
            post = CallPost(p["subject"], p["text"], (member,), _read_buttons(p["buttons"]), channel=_channel(p))
            return p["subject"], list(await port.offer_call(member, post))
        else:
            raise Permanent(f"unknown chat effect {kind}")
        return None


def _channel(payload: Mapping[str, Any]) -> Channel:
    """A post's channel as its row names it. A row written before posts named their channel (one still pending
    from an older release) has only its subject: ``councilor:vote:…`` and ``councilor:roles:…`` went to the
    councilors alone then, and any other ``councilor:…`` to the councilors."""
    named = payload.get("channel")
    if named is not None:
        return Channel(named)
    subject = str(payload["subject"])
    if subject.startswith(("councilor:vote:", "councilor:roles:")):
        return Channel.COUNCILORS_ONLY
    return Channel.COUNCILORS if subject.startswith("councilor:") else Channel.REFEREES
