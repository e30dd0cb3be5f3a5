"""What a late hand-in is worth: the policies an assignment may choose, and the rule each applies.

Late work is always graded; its policy decides only the share of the score it keeps. The
assignment holds its choice (``Assignment.late_policy``) and its grace period
(``Assignment.grace_minutes``), and applies them (``Assignment.credit``) with the rule written
here once: a hand-in within the grace after the due time is on time; lateness, and what it
costs, counts from the end of the grace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import models

from webapp.accounts.clock import duration


class LatePolicy(models.TextChoices):
    NONE = "none", "no penalty (late work is marked late)"
    PENALTY_PER_DAY = "penalty_per_day", "a penalty for each day or part of a day late"
    HARD_CLOSE = "hard_close", "closed at the due time (late work earns nothing)"


NO_TIME = timedelta(0)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Credit:
    """What a hand-in earns of its score under an assignment's policy, and why (``note``)."""

    fraction: float  # of the score, 0.0 to 1.0
    after_due: timedelta  # how long after the due time it came; zero when by the due time
    late_by: timedelta  # how long after the end of the grace period; zero when not late
    policy: str = LatePolicy.NONE
    grace: timedelta = NO_TIME
    days_late: int = 0  # with the per-day penalty: the days (or parts of days) it cost
    percent_off: int = 0

    @property
    def late(self) -> bool:
        """Counted late: handed in after the grace period (one within it has a note, but is on time)."""
        return self.late_by > NO_TIME

    @property
    def note(self) -> str:
        """One sentence for the student ("" when handed in by the due time): how late the hand-in
        came and what that cost. Written when read: the gradebook reads thousands of credits and
        none of their notes."""
        if not self.after_due:
            return ""
        came = f"handed in {duration(self.after_due)} after the due time"
        named_grace = f"the {int(self.grace.total_seconds() // 60)}-minute grace"
        if not self.late:
            return f"{came}, within {named_grace}: full credit"
        if self.policy == LatePolicy.HARD_CLOSE:
            came += f", after {named_grace}" if self.grace else " (no grace)"
            return f"{came}: the assignment had closed, no points"
        if self.policy == LatePolicy.PENALTY_PER_DAY:
            days = f"{self.days_late} day{'s' * (self.days_late != 1)} late"
            days += f" after {named_grace}" if self.grace else ""
            return f"{came}, {days}: {self.percent_off}% off"
        came += f", after {named_grace}" if self.grace else ""
        return f"{came}: late, no penalty"


ON_TIME = Credit(1.0, NO_TIME, NO_TIME)


def late_credit(
    policy: str, penalty_percent_per_day: int, handed_in_at: datetime, due_at: datetime, *, grace: timedelta
) -> Credit:
    """What a hand-in at ``handed_in_at`` earns of its score under ``policy``, against ``due_at``
    and a ``grace`` period after it (its ``note`` says so in one sentence).

    Within the grace a hand-in is on time. A day late is any part of a day after the grace: a
    second past its end costs one day's penalty.
    """
    after_due = handed_in_at - due_at
    if after_due <= NO_TIME:
        return ON_TIME
    if after_due <= grace:
        return Credit(1.0, after_due, NO_TIME, policy, grace)
    late_by = after_due - grace
    if policy == LatePolicy.HARD_CLOSE:
        return Credit(0.0, after_due, late_by, policy, grace)
    if policy == LatePolicy.PENALTY_PER_DAY:
        days = math.ceil(late_by / DAY)
        lost = min(100, days * penalty_percent_per_day)
        return Credit((100 - lost) / 100, after_due, late_by, policy, grace, days, lost)
    return Credit(1.0, after_due, late_by, policy, grace)
