"""Gathering a trial's record from the database: the trial, its call, its parties and their functions, the
transcript, the verdict in words, the paper with and without the trial's changes, and the pictures."""

from __future__ import annotations

import asyncio
from datetime import datetime

from bot.i18n.clock import DEFAULT_TIMEZONE
from bot.messages import Catalogue
from bot.pictures.words import words as picture_words
from bot.records.zapisnik import Effect, Line, TrialRecord, record_words
from rules.gamelog import Game, format_time
from rules.members import PartyRole
from rules.paper import Paper, compute_paper
from rules.verdicts import verdict_from_json
from storage.database import Database
from storage.states import EndReason, TrialOutcome

#: The club's words for who judged, in every view's chained data.
ANONYMOUS: dict[PartyRole, str] = {PartyRole.REFEREE: "sudija", PartyRole.COUNCILOR: "većnik"}
BOT = "Sudija (bot)"  # the bot's own lines and events in the conversation


def _pictures(game: Game, paper: Paper, lang: str) -> list[tuple[str, bytes]]:
    """The paper's picture and every hand's, with their captions."""
    from bot.pictures.hand import render_hand  # noqa: PLC0415 (Pillow only when drawn)
    from bot.pictures.paper import paper_png  # noqa: PLC0415 (Pillow only when drawn)

    pw = picture_words(lang)
    out = [(pw["paper"].format(game=game.number), paper_png(game, paper, lang))]
    for hand in game.hands:
        out.append((pw["hands_title"].format(game=game.number, n=hand.n), render_hand(game, hand, lang).png()))
    return out


async def load_record(
    db: Database,
    trial_id: int,
    *,
    officials: bool,
    lang: str = "sr",
    pictures: bool = True,
    zone: str | None = DEFAULT_TIMEZONE,
) -> TrialRecord | None:
    """Trial `trial_id`'s record in the members' view (referees and councilors by function, in `lang`'s words) or,
    with `officials`, naming them; None when there is no such trial. Its page shows the moments on the club's clock
    (`zone`) and the game's state in words; the chained data keeps them as stored."""
    from bot.views import render_verdict  # noqa: PLC0415 (Pillow only when drawn)

    trial = await db.trials.get(trial_id)
    if trial is None:
        return None
    words = record_words(lang)
    messages = Catalogue(lang)

    def function_word(role: PartyRole) -> str:
        """A referee or a councilor named by his function in the reader's words (the chained data keeps
        `ANONYMOUS`'s)."""
        return messages.t("role.referee" if role is PartyRole.REFEREE else "role.councilor")

    game = await db.games.get(trial.game)
    call = await db.calls.get(trial.call)
    names = {m.id: m.nick for m in await db.members.all()}
    roles = {p.member: p.role for p in await db.trials.participants(trial_id)}
    roles.setdefault(trial.referee, PartyRole.REFEREE)
    roles.setdefault(trial.caller, PartyRole.CALLER)

    def shown(member: int | None) -> tuple[str, str, str]:
        """(who as this view shows him, his function, who in the chained data)."""
        if member is None:
            return BOT, "bot", "bot"
        role = roles.get(member, PartyRole.PLAYER)
        nick = names.get(member, f"#{member}")
        if role in ANONYMOUS:
            return (nick if officials else function_word(role)), role, ANONYMOUS[role]
        return nick, role, nick

    timed: list[tuple[datetime, int, Line]] = []
    for message in await db.trials.messages(trial_id):
        who, role, chained = shown(message.member)
        timed.append((message.at, 1, Line(format_time(message.at), who, role, chained, message.text)))
    drafted = False
    for event in await db.events.of_trial(trial_id, trial.call):
        name, _, chained_by = shown(event.actor) if event.actor is not None else ("", "", "")
        kind = event.kind
        if kind == "draft":
            kind = "draft_dropped" if not event.data.get("draft") else "draft_replaced" if drafted else "draft_saved"
            drafted = drafted or bool(event.data.get("draft"))
        key = f"event_{kind}"
        if key not in words:
            continue
        text = words[key].format(who=name, game=event.data.get("game", ""))
        line = Line(format_time(event.at), BOT, "bot", "bot", text, kind, f"{kind} {chained_by}".strip())
        timed.append((event.at, 0, line))  # an event before a message of the same moment (the call taken first)
    timed.sort(key=lambda item: (item[0], item[1]))
    lines = [line for _, _, line in timed]
    outcome_text = str(
        words.get("verdict_o" if trial.outcome is TrialOutcome.VERDICT else trial.outcome, trial.outcome)
    )
    if trial.outcome is TrialOutcome.INTERRUPTED:
        outcome_text += " — " + messages.t(EndReason.key_of(trial.end_reason))
    verdict_text = "—"
    if trial.verdict is not None:
        verdict_text = render_verdict(verdict_from_json(trial.verdict), messages)
    effect = None
    captions: list[tuple[str, bytes]] = []
    players: tuple[str, str, str] = ("?", "?", "?")
    status = "?"
    if game is not None:
        players, status = game.players, messages.t(f"record.game_status.{game.status.value}")
        changes = await db.paper_changes.for_game(game.number)
        with_trial = compute_paper(game, changes)
        without = compute_paper(game, [c for c in changes if c.trial != trial_id])
        applied = [a for h in with_trial.hands for a in h.changes if a.change.trial == trial_id]
        kinds = picture_words(lang)
        effect = Effect(
            tuple(
                (
                    kinds.get(a.change.kind.value, a.change.kind.value),
                    a.change.hand,
                    (a.entries[0].bule, a.entries[1].bule, a.entries[2].bule),
                )
                for a in applied
            ),
            (without.players[0].bule, without.players[1].bule, without.players[2].bule),
            (with_trial.players[0].bule, with_trial.players[1].bule, with_trial.players[2].bule),
        )
        if pictures:  # in a worker thread: a long game's hands take a while, the event loop must not wait
            captions = await asyncio.to_thread(_pictures, game, with_trial, lang)
    referee = names.get(trial.referee, "?") if officials else function_word(PartyRole.REFEREE)
    return TrialRecord(
        trial=trial.id,
        game=trial.game,
        players=players,
        game_status=status,
        kind=messages.t("kind.in_game" if trial.in_game else "kind.out_of_game"),
        call_at=format_time(call.created_at) if call else "?",
        caller=names.get(trial.caller, "?"),
        taken_by=referee,
        taken_at=format_time(trial.opened_at),
        closed_at=format_time(trial.closed_at) if trial.closed_at else None,
        outcome=trial.outcome,
        outcome_text=outcome_text,
        verdict_text=verdict_text,
        reason=trial.reason or "",
        lines=tuple(lines),
        effect=effect,
        pictures=tuple(captions),
        officials=officials,
        lang=lang,
        verdict_json=trial.verdict,
        zone=zone,
    )
