"""Assignments: who is a course's staff, release and due times, extensions, and what a hand-in
earns under each late policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from tests.webapp.support.course_week import DUE, RELEASE, hand_in
from webapp.courses.models import (
    Assignment,
    Extension,
    Membership,
)
from webapp.submissions.models import Submission

pytestmark = pytest.mark.django_db


def test_roles_say_who_is_staff_and_who_may_change_the_course(course, owner, ta, course_student, outsider):
    people = (owner, ta, course_student, outsider)
    assert [course.is_course_staff(u) for u in people] == [True, True, False, False]
    assert [course.is_instructor(u) for u in people] == [True, False, False, False]
    with pytest.raises(IntegrityError):
        Membership.objects.create(course=course, user=course_student, role=Membership.Role.TA)


def test_a_due_time_before_the_release_is_refused(course):
    assignment = Assignment(course=course, slug="w", title="W", release_at=DUE, due_at=RELEASE)
    with pytest.raises(ValidationError, match="after the release"):
        assignment.full_clean()


@pytest.mark.parametrize(
    ("policy", "late_by", "fraction", "note"),
    [
        ("none", timedelta(0), 1.0, ""),
        ("none", timedelta(days=3), 1.0, "handed in 3 days after the due time: late, no penalty"),
        ("hard_close", timedelta(0), 1.0, ""),
        (
            "hard_close",
            timedelta(seconds=1),
            0.0,
            "handed in 1 s after the due time (no grace): the assignment had closed, no points",
        ),
        ("penalty_per_day", timedelta(minutes=1), 0.9, "handed in 1 min after the due time, 1 day late: 10% off"),
        ("penalty_per_day", timedelta(days=1), 0.9, "handed in 1 day after the due time, 1 day late: 10% off"),
        (
            "penalty_per_day",
            timedelta(days=1, seconds=1),
            0.8,
            "handed in 1 day after the due time, 2 days late: 20% off",
        ),
        ("penalty_per_day", timedelta(days=30), 0.0, "handed in 30 days after the due time, 30 days late: 100% off"),
    ],
)
def test_the_late_policy_decides_what_a_hand_in_earns(course, policy, late_by, fraction, note):
    assignment = Assignment(course=course, release_at=RELEASE, due_at=DUE, late_policy=policy)
    credit = assignment.credit(DUE + late_by, DUE)
    assert (credit.fraction, credit.late, credit.note) == pytest.approx((fraction, late_by > timedelta(0), note))


def test_an_extension_moves_one_student_s_due_time_only(assignment, django_user_model):
    extended, other = django_user_model.objects.create_user("ada"), django_user_model.objects.create_user("bob")
    Extension.objects.create(assignment=assignment, user=extended, due_at=DUE + timedelta(days=2), reason="ill")
    assert assignment.due_for(extended) == DUE + timedelta(days=2)
    assert assignment.due_for(other) == DUE
    too_early = Extension(assignment=assignment, user=other, due_at=DUE - timedelta(hours=1), reason="x")
    with pytest.raises(ValidationError, match="after the assignment's own due time"):
        too_early.full_clean()


def test_each_problem_counts_the_best_hand_in_after_the_release_under_the_policy(assignment, course_student):
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.penalty_percent_per_day = 25
    assignment.save()
    ada = course_student  # a member since before the term
    hand_in(ada, "aot_compiled_sum", RELEASE - timedelta(days=1), 100.0)  # practice before the release
    half_on_time = hand_in(ada, "aot_compiled_sum", DUE - timedelta(hours=1), 50.0)
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=5), 100.0)  # full marks, a day late: 75%
    hand_in(ada, "batched_dot", DUE - timedelta(days=1), 100.0, status=Submission.Status.FAILED)  # never graded
    late_full = hand_in(ada, "batched_dot", DUE + timedelta(days=1, hours=1), 100.0)  # 2 days: 50%

    first, second = assignment.problem_scores(ada)
    assert (first.item.problem.slug, first.earned, first.credit.late) == ("aot_compiled_sum", 7.5, True)
    assert first.submission_id != half_on_time.pk
    assert (second.earned, second.submission_id) == (5.0, late_full.pk)
    assert second.credit.note == "handed in 1 day 1 h after the due time, 2 days late: 50% off"
    assert assignment.total_points == 20.0


def test_an_extension_makes_a_late_hand_in_on_time(assignment, course_student):
    assignment.late_policy = Assignment.LatePolicy.HARD_CLOSE
    assignment.save()
    ada = course_student  # a member since before the term
    hand_in(ada, "batched_dot", DUE + timedelta(hours=3), 100.0)
    assert [score.earned for score in assignment.problem_scores(ada)] == [0.0, 0.0]
    Extension.objects.create(assignment=assignment, user=ada, due_at=DUE + timedelta(days=1), reason="travel")
    scores = assignment.problem_scores(ada)
    assert [score.earned for score in scores] == [0.0, 10.0]
    assert scores[0].submission_id is None and not scores[1].credit.late


def test_a_submission_is_handed_in_when_received_unless_staff_say_otherwise(assignment, django_user_model):
    ada = django_user_model.objects.create_user("ada")
    received = hand_in(ada, "batched_dot", DUE, 100.0)
    received.handed_in_at = None
    assert received.handed_in == received.created_at
    assert hand_in(ada, "batched_dot", DUE, 100.0).handed_in == DUE


def test_staff_grant_an_extension_in_the_admin_and_who_granted_it_is_recorded(assignment, admin_client, admin_user):
    ada = User.objects.create_user("ada")
    response = admin_client.post(
        "/admin/courses/extension/add/",
        {
            "assignment": assignment.pk,
            "user": ada.pk,
            "due_at_0": "2026-09-10",
            "due_at_1": "12:00:00",
            "reason": "a family matter",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    extension = Extension.objects.get()
    assert (extension.user, extension.granted_by) == (ada, admin_user)
    assert assignment.due_for(ada) == datetime(2026, 9, 10, 12, 0, tzinfo=UTC)
    refused = admin_client.post(
        "/admin/courses/extension/add/",
        {
            "assignment": assignment.pk,
            "user": admin_user.pk,
            "due_at_0": "2026-09-01",
            "due_at_1": "00:00:00",
            "reason": "x",
        },
    )
    assert refused.status_code == 200 and "after the assignment" in refused.content.decode()


def test_an_assignment_may_not_take_the_name_of_a_course_page(course):
    assignment = Assignment(course=course, slug="gradebook", title="Gradebook", release_at=RELEASE, due_at=DUE)
    with pytest.raises(ValidationError, match="names one of the course's own pages"):
        assignment.full_clean()
