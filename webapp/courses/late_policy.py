"""What a late hand-in is worth: the policies an assignment may choose, and the rule each applies.

Late work is always graded; its policy decides only the share of the score it keeps. The
assignment holds its choice (``Assignment.late_policy``) and applies it (``Assignment.credit``)
with the rule written here once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import models


class LatePolicy(models.TextChoices):
    NONE = "none", "no penalty (late work is marked late)"
    PENALTY_PER_DAY = "penalty_per_day", "a penalty for each day or part of a day late"
    HARD_CLOSE = "hard_close", "closed at the due time (late work earns nothing)"


@dataclass(frozen=True)
class Credit:
    """What a hand-in earns of its score under an assignment's policy, and why."""

    fraction: float  # of the score, 0.0 to 1.0
    late_by: timedelta  # zero when on time
    note: str  # "" when on time; otherwise what the policy did, in the student's words

    @property
    def late(self) -> bool:
        return self.late_by > timedelta(0)


ON_TIME = Credit(1.0, timedelta(0), "")


def late_credit(policy: str, penalty_percent_per_day: int, handed_in_at: datetime, due_at: datetime) -> Credit:
    """What a hand-in at ``handed_in_at`` earns of its score under ``policy``, against ``due_at``.

    A day late is any part of a day: a minute past the due time costs one day's penalty.
    """
    late_by = max(handed_in_at - due_at, timedelta(0))
    if not late_by:
        return Credit(1.0, late_by, "")
    if policy == LatePolicy.HARD_CLOSE:
        return Credit(0.0, late_by, "handed in after the assignment closed: it earns no points")
    if policy == LatePolicy.PENALTY_PER_DAY:
        days = math.ceil(late_by / timedelta(days=1))
        lost = min(100, days * penalty_percent_per_day)
        return Credit((100 - lost) / 100, late_by, f"{days} day{'s' * (days != 1)} late: {lost}% off")
    return Credit(1.0, late_by, "late (no penalty)")
