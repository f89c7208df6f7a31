"""The states the database records, as enums whose values are exactly what the SQL CHECK constraints allow
(`tests/test_states.py` reads every CHECK of the migrations, both dialects, and holds each to its enum).
Records carry these; the stores take them; the desk compares with them.

The enums of the rules' own ideas live with the rules and are tied to their columns the same way:
`rules.members.Role` (`roles.role`, `votes.role`), `rules.members.PartyRole` (`trial_participants.role`),
`rules.gamelog.GameStatus` (`games.status`), `rules.verdict_effects.NapustioSource` (`napustio.source`)."""

from __future__ import annotations

from enum import StrEnum


class CallState(StrEnum):
    """A call to the referees (`calls.state`)."""

    PENDING = "pending"
    TAKEN = "taken"  # a referee pressed Sudi first
    WITHDRAWN = "withdrawn"  # the caller took it back (Povuci poziv)
    EXPIRED = "expired"  # nobody took it within its time


class CouncilorCallState(StrEnum):
    """A referee's call for a councilor (`councilor_calls.state`)."""

    PENDING = "pending"
    TAKEN = "taken"
    EXPIRED = "expired"
    CANCELLED = "cancelled"  # the trial ended first


class TrialOutcome(StrEnum):
    """How a trial stands or ended (`trials.outcome`)."""

    OPEN = "open"
    VERDICT = "verdict"  # Završi suđenje recorded a verdict
    NO_VERDICT = "no_verdict"  # Završi suđenje recorded Bez presude
    INTERRUPTED = "interrupted"  # any other end: nothing recorded but the trial


class CorrectionKind(StrEnum):
    """A players' correction that needs the others' consent (`correction_requests.kind`)."""

    ARBITAR = "arbitar"
    ISPRAVKA = "ispravka"


class RequestState(StrEnum):
    """A correction request (`correction_requests.state`)."""

    PENDING = "pending"
    APPLIED = "applied"  # agreed: the change is on the paper
    DECIDED = "decided"  # agreed: the Arbitar decided (the fall moved or stayed)
    REFUSED = "refused"
    REPLACED = "replaced"  # a newer request for the same hand took its place
    WITHDRAWN = "withdrawn"
    LAPSED = "lapsed"  # its window closed unanswered


class CorrectionAnswer(StrEnum):
    """A player's answer to a correction request (`correction_answers.answer`; NULL while unanswered)."""

    YES = "yes"
    NO = "no"


class VoteState(StrEnum):
    """A councilors' vote on a proposal (`votes.state`)."""

    OPEN = "open"
    CARRIED = "carried"  # the configured majority of all councilors voted for it
    FAILED = "failed"  # it can no longer be, or was not, carried by its deadline


class VoteAction(StrEnum):
    """What a vote's proposal does to its subject (`votes.action`)."""

    APPOINT = "appoint"
    DISMISS = "dismiss"
    DENY_CALL = "deny_call"  # the right to call a referee denied (no function: `votes.role` is NULL)


class AppealState(StrEnum):
    """An appeal against a recorded trial (`appeals.state`)."""

    FILED = "filed"  # waiting for a councilor to press Preuzmi
    TAKEN = "taken"  # a councilor hears it
    UPHELD = "upheld"  # a new verdict supersedes the old one
    REJECTED = "rejected"  # unfounded
    INADMISSIBLE = "inadmissible"  # not something an appeal may bring


class MonthClosing(StrEnum):
    """How a league month was closed (`league_months.how`)."""

    ADMIN = "admin"  # an administrator closed it (`/zatvori_mesec`)
    GRACE = "grace"  # it closed itself when the grace after its end ran out


class KorekcijaState(StrEnum):
    """A request to take back the last move of a hand in progress (`korekcije.state`)."""

    PENDING = "pending"
    AGREED = "agreed"  # every other player said yes: the take-back is on its way to the game server
    REFUSED = "refused"
    LAPSED = "lapsed"  # the hand moved on (or the game ended) before it was done
    DONE = "done"  # the game server took the move back


class OutboxState(StrEnum):
    """An outbox row: a command to the game server (`outbox.state`) or a chat effect (`chat_outbox.state`)."""

    PENDING = "pending"
    SENT = "sent"  # delivered (a chat effect: every platform's part done)
    FAILED = "failed"  # refused for good: the other side called it final (a chat effect: some platform did)
    DEAD = "dead"  # kept failing in a way that may heal, past the configured bound: given up, the officials told
    SKIPPED = "skipped"  # an operator gave it up (`sudija outbox --skip`), or a newer row made it moot


class DeliveryState(StrEnum):
    """One platform's part of a chat effect (`chat_deliveries.state`)."""

    STARTED = "started"  # the platform was (or was about to be) asked: a repeat may find it shown
    DONE = "done"
    FAILED = "failed"


class Language(StrEnum):
    """A language the club speaks (`member_languages.language`), in the order the catalogues list them
    (`bot.i18n.LANGUAGES`): Serbian in Latin letters (the default), English, Serbian in Cyrillic, Russian."""

    SR = "sr"
    EN = "en"
    SR_CYRL = "sr-Cyrl"
    RU = "ru"


class LinkAttempt(StrEnum):
    """What a link attempt was (`link_attempts.kind`): a request told to the approvers, or a code delivered."""

    REQUEST = "link_request"
    CODE = "link_code"


class SpaceState(StrEnum):
    """A trial's space on a platform that did not simply open and close (`trial_spaces.state`): `RELAYED` — the
    platform refused to open it, the trial goes on through the bot's private relay there; `OPEN` — opened after
    all; `UNLOCKED` — the platform refused to lock it at the trial's end; `LOCKED` — locked after all."""

    OPEN = "open"
    RELAYED = "relayed"
    UNLOCKED = "unlocked"
    LOCKED = "locked"


class EndReason(StrEnum):
    """Why a trial ended without Završi suđenje (`trials.end_reason`, free text in the schema); each names its
    message (`message_key`), `end.unknown` for a reason this version does not know."""

    REFEREE_LEFT = "referee_left"
    CALLER_LEFT = "caller_left"
    GAME_CLOSED = "game_closed"
    REFEREE_DISCONNECTED = "referee_disconnected"
    REFEREE_DISMISSED = "referee_dismissed"
    SPACE_REFUSED = "space_refused"  # a platform refused to open its space and the club ends such a trial

    @property
    def message_key(self) -> str:
        return f"end.{self.value}"

    @staticmethod
    def key_of(stored: str | None) -> str:
        """The message for a stored end reason, whatever the row holds."""
        known = {e.value for e in EndReason}
        return f"end.{stored}" if stored in known else "end.unknown"


class SignInVia(StrEnum):
    """How a web session was opened (`web_sessions.via`): the one-time link the bot sent, or a platform's login."""

    LINK = "link"  # `/web`: the private one-time link
    TELEGRAM = "telegram_login"  # the Telegram Login Widget
    DISCORD = "discord_oauth"  # Discord's OAuth2


class SessionEnd(StrEnum):
    """Why a web session ended before its time (`web_sessions.end_reason`)."""

    SIGNED_OUT = "signed_out"
    LINK_ENDED = "link_ended"  # the account it was opened with is no longer his
    OFFICE_ENDED = "office_ended"  # he no longer holds an office he held when he signed in
    LEFT_CLUB = "left_club"
