"""The steps the desk's parts take and others extend (`bot.desk.deps.Steps`), as the composed desk carries them
out: each by the outermost part that takes it. A trial's part opens a trial, and the advice briefs its referee; it
asks who judges, and the appeals' part answers for a councilor's hearing; it interrupts one, and the appeal waits
again; it checks a draft, and the penalties' part prices it. The part that takes a step calls it here
(`self.steps.interrupt(trial, why)`), never on the part it extends, so the extension runs however the step is
reached. `bot.desk.Desk` builds one, gives it to the parts that take steps, and binds the parts to it."""

from __future__ import annotations

from bot.desk.advice import AdviceDesk
from bot.desk.appeals import AppealDesk
from bot.desk.deps import Part
from bot.desk.penalties import PenaltyDesk
from bot.desk.trials import TrialDesk
from bot.desk.votes import VoteDesk


class DeskSteps:
    """`Steps`, each carried out whole. The parts are bound once the desk has built them (`bind`)."""

    trials: TrialDesk
    advisor: AdviceDesk
    penalties: PenaltyDesk
    appeals: AppealDesk
    votes: VoteDesk

    def bind(
        self, trials: TrialDesk, advisor: AdviceDesk, penalties: PenaltyDesk, appeals: AppealDesk, votes: VoteDesk
    ) -> None:
        self.trials, self.advisor, self.penalties, self.appeals, self.votes = trials, advisor, penalties, appeals, votes

    open_trial = Part("trials", TrialDesk.open_trial)
    briefing = Part("advisor", AdviceDesk.briefing)  # the advice's brief to the official joining
    judged_by = Part("appeals", AppealDesk._judged_by)  # a councilor judges his hearing
    interrupt = Part("appeals", AppealDesk.interrupt)  # the appeal of an interrupted hearing waits again
    checked = Part("penalties", PenaltyDesk.checked)  # a draft's penalty checked against the catalogues
    after_verdict = Part("penalties", PenaltyDesk.after_verdict)  # a verdict's effects
    verdict_list = Part("appeals", AppealDesk.verdict_list)  # the game's verdicts with their appeals
    offer_pending_calls = Part("appeals", AppealDesk.offer_pending_calls)  # also the appeals waiting
    end_judging_without_function = Part("appeals", AppealDesk.end_judging_without_function)
    end_trials_of = Part("trials", TrialDesk.end_trials_of)  # a member out of the club: his trials end
    act_text = Part("votes", VoteDesk.act_text)  # votes' acts beside links' and governance's
