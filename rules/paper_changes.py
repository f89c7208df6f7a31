"""Checking a change to the paper before the desk records it: which hands can take it, and the limits.

`check_change(game, changes, new)` raises `ChangeRefused` (a message for people, in Serbian or English, plus a
`key` and `params` for a message catalogue) when `new` may not be recorded on top of `changes`; otherwise it
returns the change as the paper would apply it (`AppliedChange`), whose note says, for instance, that an
Ispravka was reduced so that 2 bule stay. The limits, from the club rules and spec/scoring.md:

* every change attaches to a finished hand that the paper scores (not one after the game's end); once the paper
  has ended (the bule reached zero, or a settlement) no bula change and no fall move attaches to any hand;
* one fall move per hand: an Ispravka and an Odlazak u bulu exclude each other in either order;
* Promena bula: an even number from −98 to 98 per player, not all zero; after it at least 2 bule stay on the
  paper (it may never end the game), unless the game had already ended with that hand;
* Odlazak u bulu umesto drugog: `player` is the other defender of a defender who fell; one per hand;
* Ispravka: `player` fell in that hand; one per hand (replace or cancel the old one), not after his fall moved;
* the write-off of a manual settlement: an interrupted game that has not ended, at its last scored hand, once
  at least 2/3 of all bule are played and at least an hour after the interruption;
* no change may move the game's end (a change at an earlier hand can alter later refe, and so later values).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from rules.gamelog import Game, GameStatus
from rules.limits import MAX_BULA_CHANGE, MIN_BULE_LEFT, SETTLEMENT_DELAY, SETTLEMENT_PLAYED_SHARE
from rules.paper import (
    AppliedChange,
    ChangeKind,
    Paper,
    PaperChange,
    compute_paper,
)
from rules.verdict_place import paper_over

SETTLEMENT_PLAYED = (SETTLEMENT_PLAYED_SHARE.numerator, SETTLEMENT_PLAYED_SHARE.denominator)

_MESSAGES: dict[str, dict[str, str]] = {
    "sr": {
        "no_hand": "Ruka {hand} ne postoji: partija {game} ima {count} ruku.",
        "not_finished": "Ruka {hand} nije završena; promena se upisuje samo uz završenu ruku.",
        "after_end": "Partija {game} se završila posle ruke {end}; ruka {hand} se ne računa na papiru.",
        "settled": "Partija {game} je ručno svedena; posle svođenja se papir više ne menja.",
        "paper_over": "Papir partije {game} je završen (bule su stigle do nule posle ruke {end}): nijedna promena "
        "bula ni odlazak u bulu se više ne upisuju uz njene ruke.",
        "fall_moved_twice": "Pad u ruci {hand} je već pomeren (ispravka ili odlazak u bulu); jedna ruka ima "
        "najviše jedno pomeranje pada.",
        "empty": "Promena bula mora promeniti bule bar jednom igraču.",
        "odd": "{player}: promena bula mora biti paran broj, a ne {amount}.",
        "range": "{player}: promena bula je od −{limit} do {limit} bula po igraču, a ne {amount}.",
        "limit": "Posle ove promene bi na papiru ostalo {left} bula, a mora ostati najmanje {min} (presuda ne "
        "može da završi partiju): ukupno se može oduzeti najviše {most} bula.",
        "end_moved": "Ova promena bi pomerila kraj partije ({before} → {after}); promena ne sme da završi "
        "partiju niti da promeni njen kraj.",
        "no_player": "Navedite igrača (jednog od: {players}).",
        "no_declarer": "U ruci {hand} niko nije igrao, pa nema pada.",
        "declarer": "{player} je odigravač u ruci {hand}; u bulu umesto drugog ide samo branilac.",
        "not_fallen_other": "U ruci {hand} {fallen} nije pao, pa {player} ne može otići u bulu umesto njega.",
        "odlazak_twice": "Ruka {hand} već ima odlazak u bulu; najpre ga poništite.",
        "not_fallen": "{player} nije pao u ruci {hand}; ispravka se daje samo igraču koji je pao.",
        "ispravka_twice": "Ruka {hand} već ima ispravku; zamenite je ili je poništite.",
        "moved": "Pad igrača {player} u ruci {hand} je već prebačen na drugog (odlazak u bulu).",
        "not_interrupted": "Ručno se svodi samo prekinuta partija; partija {game} nije prekinuta.",
        "ended": "Partija {game} je već završena; nema šta da se svodi.",
        "otpis_hand": "Svođenje se upisuje uz poslednju završenu ruku partije, ruku {last}.",
        "otpis_early": "Svođenje je moguće tek kad je odigrano najmanje 2/3 bula: na papiru je još {left} od "
        "{total} bula, a sme ostati najviše {most}.",
        "otpis_soon": "Svođenje je moguće tek sat vremena posle prekida (partija je prekinuta u {at} UTC).",
    },
    "en": {
        "no_hand": "There is no hand {hand}: game {game} has {count} hands.",
        "not_finished": "Hand {hand} is not finished; a change attaches only to a finished hand.",
        "after_end": "Game {game} ended after hand {end}; hand {hand} does not count on the paper.",
        "settled": "Game {game} was settled by write-off; the paper no longer changes.",
        "paper_over": "The paper of game {game} has ended (the bule reached zero after hand {end}): no bule change "
        "and no fall move attaches to its hands any more.",
        "fall_moved_twice": "The fall in hand {hand} has already been moved (an ispravka or an odlazak u bulu); a "
        "hand has at most one fall move.",
        "empty": "A bule change must change somebody's bule.",
        "odd": "{player}: a bule change must be an even number, not {amount}.",
        "range": "{player}: a bule change is from −{limit} to {limit} per player, not {amount}.",
        "limit": "After this change {left} bule would stay on the paper, but at least {min} must stay (a verdict "
        "cannot end the game): at most {most} bule in all can be taken away.",
        "end_moved": "This change would move the game's end ({before} → {after}); a change may not end the game "
        "or change its end.",
        "no_player": "Name the player (one of: {players}).",
        "no_declarer": "Nobody played in hand {hand}, so nobody fell.",
        "declarer": "{player} is the declarer in hand {hand}; only a defender goes into the bule for another.",
        "not_fallen_other": "In hand {hand} {fallen} did not fall, so {player} cannot go into the bule for him.",
        "odlazak_twice": "Hand {hand} already has an odlazak u bulu; cancel it first.",
        "not_fallen": "{player} did not fall in hand {hand}; an ispravka is only for a player who fell.",
        "ispravka_twice": "Hand {hand} already has an ispravka; replace or cancel it.",
        "moved": "{player}'s fall in hand {hand} already went to another player (odlazak u bulu).",
        "not_interrupted": "Only an interrupted game is settled by hand; game {game} is not interrupted.",
        "ended": "Game {game} has already ended; there is nothing to settle.",
        "otpis_hand": "A settlement attaches to the game's last finished hand, hand {last}.",
        "otpis_early": "A settlement needs at least 2/3 of the bule played: {left} of {total} bule are still on "
        "the paper, at most {most} may be.",
        "otpis_soon": "A settlement is possible an hour after the interruption at the earliest (the game was "
        "interrupted at {at} UTC).",
    },
}


class ChangeRefused(ValueError):
    """A change that may not be recorded; `str()` is the message for people, `key`/`params` for a catalogue."""

    def __init__(self, message: str, key: str = "", **params: object) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.params = params


def _refuse(lang: str, key: str, **params: object) -> ChangeRefused:
    table = _MESSAGES.get(lang, _MESSAGES["sr"])
    return ChangeRefused(table[key].format(**params), key, **params)


def _end_label(paper: Paper, lang: str) -> str:
    if paper.end_hand is not None:
        return ("ruka " if lang == "sr" else "hand ") + str(paper.end_hand)
    return "nije kraj" if lang == "sr" else "no end"


def check_change(
    game: Game,
    changes: Sequence[PaperChange],
    new: PaperChange,
    lang: str = "sr",
    *,
    settlement_played: tuple[int, int] = SETTLEMENT_PLAYED,
    settlement_delay: timedelta = SETTLEMENT_DELAY,
) -> AppliedChange:
    """Refuse `new` with `ChangeRefused` if it may not be recorded on top of `changes`; else its effect. The
    settlement's conditions are the club's (2/3 of the bule played, an hour after the interruption) unless its
    configuration sets others."""
    before = compute_paper(game, changes)
    n = new.hand
    names = game.players
    if before.settled:
        raise _refuse(lang, "settled", game=game.number)
    if new.kind is not ChangeKind.OTPIS and paper_over(before):
        raise _refuse(lang, "paper_over", game=game.number, end=before.end_hand)
    if not 1 <= n <= len(game.hands):
        raise _refuse(lang, "no_hand", hand=n, game=game.number, count=len(game.hands))
    paper_hand = before.hands[n - 1]
    if paper_hand.score is None:
        if paper_hand.unscored == "after_end":
            raise _refuse(lang, "after_end", game=game.number, end=before.end_hand, hand=n)
        raise _refuse(lang, "not_finished", hand=n)
    score = paper_hand.score
    kind = new.kind
    if kind is ChangeKind.PROMENA_BULA:
        if not any(new.bule):
            raise _refuse(lang, "empty")
        for seat, amount in enumerate(new.bule):
            if amount % 2:
                raise _refuse(lang, "odd", player=names[seat], amount=amount)
            if abs(amount) > MAX_BULA_CHANGE:
                raise _refuse(lang, "range", player=names[seat], amount=amount, limit=MAX_BULA_CHANGE)
    elif kind is ChangeKind.OTPIS:
        if game.status is not GameStatus.INTERRUPTED:
            raise _refuse(lang, "not_interrupted", game=game.number)
        if before.ended:
            raise _refuse(lang, "ended", game=game.number)
        last = max(h.n for h in before.hands if h.score is not None)
        if n != last:
            raise _refuse(lang, "otpis_hand", last=last)
        total = 3 * game.bule
        most = total * (settlement_played[1] - settlement_played[0]) // settlement_played[1]
        if before.bule_sum > most:
            raise _refuse(lang, "otpis_early", left=before.bule_sum, total=total, most=most)
        if game.ended_at is not None and new.when - game.ended_at < settlement_delay:
            raise _refuse(lang, "otpis_soon", at=game.ended_at.strftime("%Y-%m-%d %H:%M"))
    else:
        player = new.player
        if player is None or not 0 <= player < 3:
            raise _refuse(lang, "no_player", players=", ".join(names))
        declarer = score.declarer
        if declarer is None or score.passed is None:
            raise _refuse(lang, "no_declarer", hand=n)
        earlier = [c for c in paper_hand.changes if c.applied]
        # One fall move per hand, either order (rules.fall_moves decides for the desk with the sources named).
        if any(
            c.change.kind in (ChangeKind.ODLAZAK_U_BULU, ChangeKind.ISPRAVKA) and c.change.kind is not kind
            for c in earlier
        ):
            raise _refuse(lang, "fall_moved_twice", hand=n)
        if kind is ChangeKind.ODLAZAK_U_BULU:
            if player == declarer:
                raise _refuse(lang, "declarer", player=names[player], hand=n)
            fallen = 3 - declarer - player
            if fallen not in score.fallen:
                raise _refuse(lang, "not_fallen_other", hand=n, fallen=names[fallen], player=names[player])
            if any(c.change.kind is kind for c in earlier):
                raise _refuse(lang, "odlazak_twice", hand=n)
        else:
            if player not in score.fallen:
                raise _refuse(lang, "not_fallen", player=names[player], hand=n)
            if any(c.change.kind is kind for c in earlier):
                raise _refuse(lang, "ispravka_twice", hand=n)
            if any(c.change.kind is ChangeKind.ODLAZAK_U_BULU and c.entries[player].bule < 0 for c in earlier):
                raise _refuse(lang, "moved", player=names[player], hand=n)
    after = compute_paper(game, [*changes, new])
    applied = next(c for c in after.hands[n - 1].changes if c.change is new)
    if kind is ChangeKind.PROMENA_BULA and before.end_hand != n and applied.bule_sum_after < MIN_BULE_LEFT:
        start = applied.bule_sum_after - sum(new.bule)
        raise _refuse(lang, "limit", left=applied.bule_sum_after, min=MIN_BULE_LEFT, most=start - MIN_BULE_LEFT)
    if kind is not ChangeKind.OTPIS and (after.end_hand != before.end_hand or after.ended != before.ended):
        raise _refuse(lang, "end_moved", before=_end_label(before, lang), after=_end_label(after, lang))
    return applied
