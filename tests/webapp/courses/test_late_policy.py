"""Lateness counts from the end of the grace period: a hand-in within it is on time with a note
saying how late it came; after it, any part of a day is a day; each credit says in one sentence
how late the hand-in came and what that cost."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.webapp.support.course_week import DUE, hand_in
from webapp.accounts.clock import duration
from webapp.courses.gradebook import Gradebook
from webapp.courses.late_policy import LatePolicy, late_credit
from webapp.courses.models import Assignment, Extension

GRACE = timedelta(minutes=5)
S = timedelta(seconds=1)
DAY = timedelta(days=1)


@pytest.mark.parametrize(
    ("policy", "grace", "after_due", "fraction", "late", "note"),
    [
        # Exactly at the due time: on time, nothing to say.
        (LatePolicy.PENALTY_PER_DAY, GRACE, timedelta(0), 1.0, False, ""),
        (LatePolicy.HARD_CLOSE, timedelta(0), timedelta(0), 1.0, False, ""),
        # Within the grace: on time, and the page says how close it came.
        (
            LatePolicy.PENALTY_PER_DAY,
            GRACE,
            10 * S,
            1.0,
            False,
            "handed in 10 s after the due time, within the 5-minute grace: full credit",
        ),
        (
            LatePolicy.HARD_CLOSE,
            GRACE,
            GRACE,
            1.0,
            False,
            "handed in 5 min after the due time, within the 5-minute grace: full credit",
        ),
        # A second after the grace: a day late, counted from its end.
        (
            LatePolicy.PENALTY_PER_DAY,
            GRACE,
            GRACE + S,
            0.9,
            True,
            "handed in 5 min 1 s after the due time, 1 day late after the 5-minute grace: 10% off",
        ),
        (
            LatePolicy.PENALTY_PER_DAY,
            GRACE,
            timedelta(hours=2, minutes=5),
            0.9,
            True,
            "handed in 2 h 5 min after the due time, 1 day late after the 5-minute grace: 10% off",
        ),
        # A whole day after the grace is still one day; a second more is two.
        (
            LatePolicy.PENALTY_PER_DAY,
            GRACE,
            GRACE + DAY,
            0.9,
            True,
            "handed in 1 day after the due time, 1 day late after the 5-minute grace: 10% off",
        ),
        (
            LatePolicy.PENALTY_PER_DAY,
            GRACE,
            GRACE + DAY + S,
            0.8,
            True,
            "handed in 1 day after the due time, 2 days late after the 5-minute grace: 20% off",
        ),
        (
            LatePolicy.PENALTY_PER_DAY,
            timedelta(0),
            30 * DAY,
            0.0,
            True,
            "handed in 30 days after the due time, 30 days late: 100% off",
        ),
        # A hard close closes at the end of the grace.
        (
            LatePolicy.HARD_CLOSE,
            GRACE,
            GRACE + S,
            0.0,
            True,
            "handed in 5 min 1 s after the due time, after the 5-minute grace: the assignment had closed, no points",
        ),
        # Without a grace, a second late is late.
        (
            LatePolicy.HARD_CLOSE,
            timedelta(0),
            timedelta(minutes=3),
            0.0,
            True,
            "handed in 3 min after the due time (no grace): the assignment had closed, no points",
        ),
        (
            LatePolicy.PENALTY_PER_DAY,
            timedelta(0),
            S,
            0.9,
            True,
            "handed in 1 s after the due time, 1 day late: 10% off",
        ),
        (
            LatePolicy.NONE,
            timedelta(0),
            DAY + timedelta(hours=2),
            1.0,
            True,
            "handed in 1 day 2 h after the due time: late, no penalty",
        ),
        (
            LatePolicy.NONE,
            GRACE,
            GRACE + S,
            1.0,
            True,
            "handed in 5 min 1 s after the due time, after the 5-minute grace: late, no penalty",
        ),
    ],
)
def test_lateness_counts_from_the_end_of_the_grace(policy, grace, after_due, fraction, late, note):
    credit = late_credit(policy, 10, DUE + after_due, DUE, grace=grace)
    assert (credit.fraction, credit.late, credit.note) == pytest.approx((fraction, late, note))
    assert credit.after_due == after_due
    assert credit.late_by == max(after_due - grace, timedelta(0))


def test_a_hand_in_before_the_due_time_has_no_note():
    credit = late_credit(LatePolicy.HARD_CLOSE, 10, DUE - DAY, DUE, grace=timedelta(0))
    assert (credit.fraction, credit.late, credit.after_due, credit.note) == (1.0, False, timedelta(0), "")


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(microseconds=300), "less than 1 s"),
        (10 * S, "10 s"),
        (timedelta(seconds=59, microseconds=999_999), "59 s"),
        (timedelta(minutes=3), "3 min"),
        (timedelta(minutes=3, seconds=40), "3 min 40 s"),
        (timedelta(hours=2), "2 h"),
        (timedelta(hours=2, minutes=5, seconds=59), "2 h 5 min"),
        (DAY, "1 day"),
        (3 * DAY + timedelta(hours=4, minutes=30), "3 days 4 h"),
    ],
)
def test_a_duration_reads_in_its_largest_unit_and_the_next(span, text):
    assert duration(span) == text


@pytest.mark.django_db
def test_the_assignment_applies_its_own_grace(assignment):
    assignment.late_policy, assignment.grace_minutes = Assignment.LatePolicy.HARD_CLOSE, 5
    assert assignment.credit(DUE + 10 * S, DUE).fraction == 1.0
    assert assignment.credit(DUE + GRACE + S, DUE).fraction == 0.0


@pytest.mark.django_db
def test_a_hand_in_within_the_grace_counts_on_time_and_carries_its_note(
    assignment, course_student, django_assert_num_queries
):
    assignment.late_policy, assignment.grace_minutes = Assignment.LatePolicy.PENALTY_PER_DAY, 5
    assignment.save()
    ada = course_student
    on_the_dot = hand_in(ada, "aot_compiled_sum", DUE, 100.0)
    within = hand_in(ada, "batched_dot", DUE + 10 * S, 100.0)

    with django_assert_num_queries(5):  # as for any hand-ins: the note costs no query
        first, second = assignment.problem_scores(ada)
    assert (first.submission_id, first.earned, first.credit.note) == (on_the_dot.pk, 10.0, "")
    assert (second.submission_id, second.earned, second.credit.late) == (within.pk, 10.0, False)
    assert second.credit.note == "handed in 10 s after the due time, within the 5-minute grace: full credit"
    # The gradebook marks nothing late.
    (row,) = Gradebook.of_course(assignment.course).rows
    assert [cell.late for cell in row.cells] == [False]


@pytest.mark.django_db
def test_the_grace_runs_from_a_student_s_extended_due_time(assignment, course_student):
    assignment.late_policy, assignment.grace_minutes = Assignment.LatePolicy.HARD_CLOSE, 5
    assignment.save()
    extended_to = DUE + DAY
    Extension.objects.create(assignment=assignment, user=course_student, due_at=extended_to, reason="ill")
    hand_in(course_student, "aot_compiled_sum", DUE + timedelta(hours=3), 100.0)  # before the extension: no note
    hand_in(course_student, "batched_dot", extended_to + 2 * timedelta(minutes=3), 100.0)  # 6 min: closed

    first, second = assignment.problem_scores(course_student)
    assert (first.earned, first.credit.note) == (10.0, "")
    assert (second.earned, second.credit.late) == (0.0, True)
    assert second.credit.note == (
        "handed in 6 min after the due time, after the 5-minute grace: the assignment had closed, no points"
    )
