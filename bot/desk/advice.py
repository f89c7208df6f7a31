"""The referee's second opinion: what he must review before judging, and the Arbitar's analysis as advice.

* **The briefing** (`briefing`): when a trial opens (and when Promeni… moves it to another game), the
  referee — and a councilor when he joins — gets privately (a tell written with the take or the joining in the
  chat outbox, never the trial's space the players see) the game's
  earlier trials with their outcomes, verdicts and reasons, and a warning for every hand that already carries a
  verdict or a players' correction (an ispravka, a player's odlazak u bulu, the Arbitar's transfer) and for every
  verdict on the game as a whole: an incident already judged is not judged again (club rules).
* **Advice on a fall** (`advice`, ``/analiza RUKA`` and the buttons Prikaz ruke carries): for a completed hand in
  which a defender fell, the Arbitar's verdict on each fallen defender's fall (`rules.arbitar.procedure.arbitrate`,
  the public function `sudija arbitar` calls, nothing of its internals), shown as advice to the judging referee
  alone: never recorded, never in the trial's space.
* **The difference in a draft** (`draft`): a draft of odlazak u bulu, or a bula change on a hand, that the Arbitar
  would judge differently gets the Arbitar's line in its confirmation; the draft is saved as the referee made it.

The procedure runs off the event loop, in the bot's Arbitar pool (`bot.arbitar_pool`: worker processes, or a
thread with ``[arbitar] workers = 0``), one analysis at a time (the procedure already uses both cores), each
fall's result kept in memory: a completed hand never changes; a worker that died is answered "unavailable, try
again" and nothing of it is kept. Tests inject a slow analyser (`advice_analyser`) to show the desk answers meanwhile.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot import chat_outbox as effect
from bot.arbitar_pool import ArbitarUnavailable
from bot.desk.advice_text import FallAnalysis, decision_line, render_advice, render_briefing
from bot.desk.base import DeskBase
from bot.desk.catalogue_rules import RuleCatalogueDesk
from bot.desk.deps import DeskDeps, Steps, shows_refusals
from bot.desk.refused import Refused
from bot.desk.trials import TrialDesk
from bot.ports import Action, Button, Reply
from bot.registry.spec import MAX_HAND
from rules.gamelog import Game, Hand
from rules.paper_hand import HandCase, hand_facts
from rules.verdicts import BulaChange, Draft, FallTransfer, verdict_from_json
from storage.chat_outbox import NewEffect
from storage.members import Member
from storage.trials import Trial

if TYPE_CHECKING:
    from rules.arbitar.verdict import ArbitarVerdict

log = logging.getLogger(__name__)

Analyser = Callable[[Game, int, int], "ArbitarVerdict"]
ADVICE_REF = MAX_HAND + 1  # an analysis button's id: trial id * ADVICE_REF + hand
SHOWN_BUTTONS = 5  # the latest hands with a defender's fall get a button beside Prikaz ruke (one Discord row)
CACHED = 256  # analyses kept in memory


def defender_falls(hand: Hand) -> list[int]:
    """The seats of the defenders who fell in a completed, played hand (none otherwise)."""
    if not hand.completed or hand.declarer is None:
        return []
    facts = hand_facts(hand)
    if facts.case is not HandCase.PLAYED:
        return []
    return [seat for seat in facts.plain.fallen if seat != hand.declarer]


def _procedure() -> Analyser | None:
    """The Arbitar's public procedure, imported when first needed (None while it is not installed)."""
    try:
        module = importlib.import_module("rules.arbitar.procedure")
    except ImportError:
        return None
    arbitrate: Analyser = module.arbitrate
    return arbitrate


class AdviceDesk(DeskBase):
    """The second-opinion part of the desk: it briefs the official of a trial opening, moved by Promeni… and of a
    councilor joining (`briefing`, a step `trials` takes), and extends Prikaz ruke (`trials`) and the draft as the
    catalogues price it (`drafts`)."""

    def __init__(self, deps: DeskDeps, trials: TrialDesk, drafts: RuleCatalogueDesk, steps: Steps) -> None:
        super().__init__(deps)
        self.trials = trials
        self.drafts = drafts
        self.steps = steps
        self.advice_analyser: Analyser | None = None  # a test's analyser in place of the native solver's
        self._advice_gate = asyncio.Semaphore(1)  # one analysis at a time (each takes a core)
        self._advice_cache: OrderedDict[tuple[object, ...], asyncio.Future[FallAnalysis]] = OrderedDict()

    # Plumbing -----------------------------------------------------------------------------------------------
    @property
    def analyser(self) -> Analyser | None:
        injected = self.advice_analyser
        return injected if injected is not None else _procedure()

    def advice_actions(self) -> dict[Action, Callable[[Member, int], Awaitable[Reply]]]:
        """Buttons of the advice, for `Desk.press`: the analysis of one hand of one trial."""
        return {Action.ADVICE: self.advice_button}

    async def _analysis(self, game: Game, hand: int, seat: int, analyser: Analyser) -> FallAnalysis:
        """One fall's analysis, computed once (also when asked twice at once) and kept."""
        cache = self._advice_cache
        key = (game.number, hand, seat, analyser)
        future = cache.get(key)
        if future is None:
            future = asyncio.ensure_future(self._run_analysis(game, hand, seat, analyser))
            cache[key] = future
            while len(cache) > CACHED:
                cache.popitem(last=False)
        try:
            analysis = await asyncio.shield(future)
        except ArbitarUnavailable:
            if cache.get(key) is future:
                del cache[key]  # the worker died: the next ask tries again, in a new pool
            raise Refused("correction.arbitar_unavailable") from None
        if analysis.verdict is None and cache.get(key) is future:
            del cache[key]  # a failure is not kept: the next ask tries again
        return analysis

    async def _run_analysis(self, game: Game, hand: int, seat: int, analyser: Analyser) -> FallAnalysis:
        async with self._advice_gate:
            try:
                verdict = await self.deps.arbitar().run(analyser, game, hand, seat)
            except ArbitarUnavailable:
                raise
            except Exception:
                log.exception("the Arbitar's advice failed on game %s hand %s seat %s", game.number, hand, seat)
                return FallAnalysis(seat, None)
        return FallAnalysis(seat, verdict)

    async def analyses(self, game: Game, hand: Hand) -> list[FallAnalysis] | None:
        """The analysis of every defender's fall in the hand (None when the Arbitar is not installed)."""
        analyser = self.analyser
        if analyser is None:
            return None
        return [await self._analysis(game, hand.n, seat, analyser) for seat in defender_falls(hand)]

    # The briefing -------------------------------------------------------------------------------------------
    async def _briefing_text(self, game: int, official_id: int, trial: int | None) -> tuple[Member, str] | None:
        """What the official is told of the game's trials but `trial`, in his language (None: nothing to tell)."""
        official = await self.db.members.get(official_id)
        facts = await self.lookups.game_facts(game)
        if official is None or facts is None:
            return None
        earlier = [t for t in await self.db.trials.for_game(game) if t.id != trial]
        moves = await self.lookups.fall_moves(game)
        async with self.voice.reading(official):
            text = render_briefing(game, facts.players, earlier, moves, self.voice.messages)
        return None if text is None else (official, text)

    async def briefing(self, game: int, official: int, queue: int, trial: int | None = None) -> list[NewEffect]:
        """The briefing as a row of the chat outbox, written with the decision that makes him the trial's official
        (the take, a councilor's joining) in the trial's queue (`queue`, its call's id): after its space opens."""
        told = await self._briefing_text(game, official, trial)
        return [] if told is None else [effect.tell(queue, told[0].id, told[1])]

    # Advice on a fall ---------------------------------------------------------------------------------------
    @shows_refusals
    async def advice(self, referee: Member, hand: int, trial_id: int | None = None) -> Reply:
        """/analiza RUKA: the Arbitar's analysis of the hand's falls, for the judging referee alone."""
        trial = await self.steps.judged_by(referee, trial_id)
        game = await self.lookups.load_game(trial.game)
        the_hand = next((h for h in game.hands if h.n == hand), None)
        if the_hand is None:
            raise Refused("advice.no_hand", game=game.number, hand=hand)
        if not the_hand.completed:
            raise Refused("advice.not_completed", hand=hand)
        if not defender_falls(the_hand):
            raise Refused("advice.no_fall", hand=hand)
        analyses = await self.analyses(game, the_hand)
        if analyses is None:
            raise Refused("advice.unavailable")
        assert the_hand.declarer is not None
        return Reply(render_advice(game, hand, the_hand.declarer, analyses, self.voice.messages))

    async def advice_button(self, member: Member, ref: int) -> Reply:
        trial_id, hand = divmod(ref, ADVICE_REF)
        if hand == 0 or trial_id == 0:
            raise Refused("button.unknown")
        return await self.advice(member, hand, trial_id)

    @shows_refusals
    async def show_hands(self, referee: Member, trial_id: int | None = None) -> Reply:
        """Prikaz ruke, with a button for the Arbitar's analysis beside it for the latest hands with a fall."""
        reply = await self.trials.show_hands(referee, trial_id)
        trial = await self.db.trials.judging(referee.id) if reply.ok else None
        if trial is None:
            return reply
        game = await self.lookups.load_game(trial.game)
        hands = [h.n for h in game.hands if defender_falls(h)][-SHOWN_BUTTONS:]
        buttons = tuple(
            Button(self.t(Action.ADVICE.label_key, hand=n), Action.ADVICE, trial.id * ADVICE_REF + n, "secondary")
            for n in hands
        )
        return replace(reply, buttons=reply.buttons + buttons)  # its pictures too

    # The difference in a draft ------------------------------------------------------------------------------
    @shows_refusals
    async def draft(self, referee: Member, draft: Draft) -> Reply:
        reply = await self.drafts.draft(referee, draft)
        if not reply.ok:
            return reply
        trial = await self.db.trials.judging(referee.id)
        if trial is None or trial.draft is None:
            return reply
        lines = await self._differences(trial, verdict_from_json(trial.draft))
        if not lines:
            return reply
        return replace(reply, text="\n".join([reply.text, self.t("advice.draft_note"), *lines]))

    async def _differences(self, trial: Trial, draft: Draft) -> list[str]:
        """The Arbitar's line for every fall of the drafted hand he would judge otherwise than the draft does."""
        verdict = draft.verdict
        if not isinstance(verdict, (FallTransfer, BulaChange)) or verdict.hand is None:
            return []
        game = await self.lookups.load_game(trial.game)
        the_hand = next((h for h in game.hands if h.n == verdict.hand), None)
        if the_hand is None or not defender_falls(the_hand):
            return []
        try:
            analyses = await self.analyses(game, the_hand)
        except Refused:
            return []  # the Arbitar's pool lost a worker: the draft is saved without its line
        lines = []
        for analysis in analyses or []:
            advice = analysis.verdict
            if advice is None:
                continue
            arbitar_to = advice.to if advice.transfers else None
            if isinstance(verdict, FallTransfer):
                culprit = game.seat_of(verdict.culprit)
                if culprit == analysis.fallen:
                    continue  # the draft does not move this player's fall
                differs = arbitar_to != culprit
            else:
                amounts = [0, 0, 0]
                for nick, amount in verdict.amounts.items():
                    seat = game.seat_of(nick)
                    if seat is not None:
                        amounts[seat] = amount
                eases = amounts[analysis.fallen] < 0
                differs = eases if arbitar_to is None else not (eases and amounts[arbitar_to] > 0)
            if differs:
                lines.append(decision_line(game, analysis, self.voice.messages))
        return lines
