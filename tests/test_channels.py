"""A notice goes to the channel its post names (`bot.ports.Channel`), never to one read from its subject: the
platforms post a councilor call, an appeal and a vote to the councilors' channel and a call to the referees'
because the decision said so, and a row written before posts named their channel still reaches the one it meant."""

from __future__ import annotations

from datetime import timedelta

from bot import chat_outbox as effect
from bot.ports import CallPost, Channel
from club import Club
from rules.verdicts import Draft, Penalty
from storage.chat_outbox import NewEffect


def posted(club: Club) -> list[tuple[str, str]]:
    return [(s.text, s.channel) for s in club.chat.of("post") if s.where == "#referees"]


async def test_the_post_names_its_channel_whatever_its_subject(club: Club) -> None:
    await club.desk.delivery.enqueue_effects(
        [
            effect.post_notice("test:1", CallPost("call:1", "za većnike", (), (), channel=Channel.COUNCILORS)),
            effect.post_notice("test:1", CallPost("councilor:1", "za sudije", (), (), channel=Channel.REFEREES)),
        ]
    )
    assert posted(club) == [("za većnike", Channel.COUNCILORS), ("za sudije", Channel.REFEREES)]


async def test_a_row_written_before_posts_named_their_channel_reaches_the_one_it_meant(club: Club) -> None:
    old = [
        NewEffect("test:2", "post_call", {"subject": s, "text": s, "mention": [], "direct": [], "buttons": []})
        for s in ("councilor:appeal:3", "call:4", "councilor:vote:5")
    ]
    await club.desk.delivery.enqueue_effects(old)
    assert posted(club) == [
        ("councilor:appeal:3", Channel.COUNCILORS),
        ("call:4", Channel.REFEREES),
        ("councilor:vote:5", Channel.COUNCILORS_ONLY),
    ]


async def test_a_call_goes_to_the_referees_and_an_appeal_to_the_councilors(club: Club) -> None:
    ana, petar = await club.member("ana"), await club.member("petar")
    referee = await club.member("sudija", "referee")
    for nick in ("v1", "v2", "v3"):
        await club.member(nick, "councilor")
    await club.game(100, ("ana", "marko", "petar"))
    assert (await club.desk.calls.call(ana, 100)).ok
    call = next(s for s in club.chat.of("post") if s.buttons and s.buttons[0].action == "take")
    assert call.channel == Channel.REFEREES
    assert (await club.desk.trials.take(referee, (await club.db.calls.pending())[0].id)).ok
    assert (await club.desk.draft(referee, Draft(Penalty("petar", plavac_days=1), "vređanje"))).ok
    assert (await club.desk.finish(referee)).ok
    await club.advance(timedelta(minutes=1))
    trial = (await club.db.trials.for_game(100))[0]
    assert (await club.desk.appeals.file_appeal(petar, trial.id, None, "nisam ja")).ok
    appeal = next(s for s in club.chat.of("post") if s.buttons and s.buttons[0].action == "appeal_take")
    assert appeal.channel == Channel.COUNCILORS
