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


class LatePolicy(models.TextChoices):
    NONE = "none", "no penalty (late work is marked late)"
    PENALTY_PER_DAY = "penalty_per_day", "a penalty for each day or part of a day late"
    HARD_CLOSE = "hard_close", "closed at the due time (late work earns nothing)"


@dataclass(frozen=True)
class Credit:
    """What a hand-in earns of its score under an assignment's policy, and why."""

    fraction: float  # of the score, 0.0 to 1.0
    after_due: timedelta  # how long after the due time it came; zero when by the due time
    late_by: timedelta  # how long after the end of the grace period; zero when not late
    note: str  # "" when handed in by the due time; otherwise one sentence for the student

    @property
    def late(self) -> bool:
        """Counted late: handed in after the grace period (one within it has a note, but is on time)."""
        return self.late_by > timedelta(0)


ON_TIME = Credit(1.0, timedelta(0), timedelta(0), "")


def duration(span: timedelta) -> str:
    """A span as a student reads it, in its largest unit and the next (left out when zero), cut
    short, not rounded: "10 s", "3 min", "5 min 1 s", "2 h 5 min", "1 day 2 h"."""
    seconds = int(span.total_seconds())
    if seconds < 1:
        return "less than 1 s"
    days = seconds // 86400
    units = [(f"{days} day{'s' * (days != 1)}", days), (f"{seconds // 3600 % 24} h", seconds // 3600 % 24)]
    units += [(f"{seconds // 60 % 60} min", seconds // 60 % 60), (f"{seconds % 60} s", seconds % 60)]
    largest = next(index for index, (_, amount) in enumerate(units) if amount)
    return " ".join(text for text, amount in units[largest : largest + 2] if amount)


def late_credit(
    policy: str, penalty_percent_per_day: int, handed_in_at: datetime, due_at: datetime, *, grace: timedelta
) -> Credit:
    """What a hand-in at ``handed_in_at`` earns of its score under ``policy``, against ``due_at``
    and a ``grace`` period after it, with the one sentence that says so.

    Within the grace a hand-in is on time. A day late is any part of a day after the grace: a
    second past its end costs one day's penalty.
    """
    after_due = max(handed_in_at - due_at, timedelta(0))
    if not after_due:
        return ON_TIME
    came = f"handed in {duration(after_due)} after the due time"
    minutes = int(grace.total_seconds() // 60)
    named_grace = f"the {minutes}-minute grace"
    if after_due <= grace:
        return Credit(1.0, after_due, timedelta(0), f"{came}, within {named_grace}: full credit")
    late_by = after_due - grace
    if policy == LatePolicy.HARD_CLOSE:
        came += f", after {named_grace}" if grace else " (no grace)"
        return Credit(0.0, after_due, late_by, f"{came}: the assignment had closed, no points")
    if policy == LatePolicy.PENALTY_PER_DAY:
        days = math.ceil(late_by / timedelta(days=1))
        lost = min(100, days * penalty_percent_per_day)
        late = f"{days} day{'s' * (days != 1)} late" + (f" after {named_grace}" if grace else "")
        return Credit((100 - lost) / 100, after_due, late_by, f"{came}, {late}: {lost}% off")
    came += f", after {named_grace}" if grace else ""
    return Credit(1.0, after_due, late_by, f"{came}: late, no penalty")
