"""The club's figures, each defined once: every rule, check, default setting and message takes them from here.

From the club's rules (Presuda tokom partije, Presuda van partije) unless noted; the ones a club may change are
the defaults of `bot.config` (`[penalties]`), which takes them from here too.
"""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

MAX_BULA_CHANGE = 98  # Promena bula: an even number from −98 to 98 per player
MIN_BULE_LEFT = 2  # a change never leaves fewer bule on the paper (it may not end the game)
MAX_PLAVAC_DAYS = 7  # plavac of up to 7 days
MAX_LEAGUE_POINTS = 10  # up to 10 league penalty points
SETTLEMENT_PLAYED_SHARE = Fraction(2, 3)  # ručno svođenje: at least 2/3 of all bule played …
SETTLEMENT_DELAY = timedelta(hours=1)  # … and at least an hour after the interruption
CLAIM_DAYS = 7  # the right to a trial lapses 7 days after the game ended
CALL_MINUTES = 5  # a call lives 5 minutes
VOTE_DAYS = 7  # a councilors' vote runs 7 days (decisions: Trials, governance)
VOTE_MAJORITY = Fraction(1, 2)  # carried by more than half of all councilors
MIN_AYES = 2  # "dogovorom": a single councilor never appoints or dismisses anyone
APPEAL_DAYS = CLAIM_DAYS  # the first club's appeal window (a product decision: as long as the claim)
APPEAL_REVIEW_DAYS = 14  # the councilors decide an appeal within 14 days (a product decision)
APPEAL_REMIND_DAYS = 2  # … and are reminded 2 days before
