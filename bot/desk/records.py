"""/zapisnik SUĐENJE: a finished trial's record (`bot.records`) as an HTML file for those who may read it
(`bot.records.access`, the one rule `/presude` and the exports follow too: its parties, the game's players and
the club's officials). Members outside `referee_names_visible_to` get the members' view (the referee and the
councilors by function); the others get the officials' view. Each reader's view is a file of its own, rendered
from the trial's chained data and signed with the club's key (`bot.records.signing`); the reply states its seal
(the signature's fingerprint), and a copy is checked with `sudija zapisnik --verify FILE` against the club's
public key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ports import Document, Reply
from bot.records.access import game_players, trial_access
from bot.records.load import load_record
from bot.records.signing import club_key
from bot.records.zapisnik import render_html
from rules.members import Member

if TYPE_CHECKING:
    from bot.desk import Desk


async def trial_record(desk: Desk, member: Member, trial_id: int) -> Reply:
    trial = await desk.db.trials.get(trial_id)
    if trial is None:
        return desk.voice.refuse("zapisnik.unknown", trial=trial_id)
    access = await trial_access(desk.db, desk.config, member, trial, await game_players(desk.db, trial.game))
    if not access.transcript:
        return desk.voice.refuse("zapisnik.not_yours", trial=trial_id)
    if trial.is_open:
        return desk.voice.refuse("zapisnik.open", trial=trial_id)
    lang = desk.voice.messages.language  # the reader's (/jezik), else the club's
    record = await load_record(desk.db, trial_id, officials=access.names, lang=lang, zone=desk.config.timezone)
    assert record is not None
    sealed = render_html(record, await club_key(desk.db, desk.now()))
    title = desk.t("zapisnik.title", trial=trial_id, game=trial.game)
    document = Document(f"zapisnik-{trial_id}.html", sealed.document.encode("utf-8"), "text/html", title)
    return Reply(
        desk.t("zapisnik.ready", trial=trial_id, game=trial.game, messages=record.messages, seal=sealed.seal),
        documents=(document,),
    )
