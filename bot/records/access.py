"""Who reads what of a trial's record, for every face that shows one: `/presude` and `/zapisnik` (the desk),
`sudija presude --as` and `sudija zapisnik --as` (the exports). The rule is `rules.members` (`sees_transcript`,
`sees_names`); this gathers the facts it needs — the reader's offices, whether he was a party of the trial,
whether he played its game — so that no face decides it on its own."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.config import Config
from rules.members import Member, sees_names, sees_transcript
from rules.nicknames import identity_key
from storage.database import Database
from storage.trials import Participant, Trial


@dataclass(frozen=True, slots=True)
class Access:
    """What one member may read of one trial's record."""

    transcript: bool  # the trial's record at all: its conversation, its zapisnik
    names: bool  # who judged, by name (else the referee and the councilors by function)


async def trial_access(
    db: Database,
    config: Config,
    reader: Member,
    trial: Trial,
    players: Collection[str],
    participants: Sequence[Participant] | None = None,
) -> Access:
    """What `reader` may read of `trial`, a trial of the game `players` played (its `participants` read here unless
    given: a page of the game's trials reads them once for all)."""
    offices = config.offices(reader)
    if participants is None:
        participants = await db.trials.participants(trial.id)
    parties = {p.member for p in participants} | {trial.caller, trial.referee}
    played = identity_key(reader.nick) in {identity_key(nick) for nick in players}
    return Access(
        sees_transcript(offices, reader.id in parties, played),
        sees_names(offices, set(config.referee_names_visible_to)),
    )


async def game_players(db: Database, game: int) -> tuple[str, ...]:
    """The nicknames of the game's players, as its log names them (none for a game not stored)."""
    summary = await db.games.summary(game)
    return tuple(summary.players) if summary is not None else ()
