"""The courses' tests' week: JAX 101's Week 1, the other course's final, and a gradebook with
a TA and two students of two sections."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from tests.webapp.support.course_week import DUE, RELEASE, hand_in, week_one
from tests.webapp.support.people import enrol
from webapp.courses.models import Assignment, Course, Extension, Membership


@pytest.fixture
def assignment(course: Course, catalog: None) -> Assignment:
    return week_one(course)


@pytest.fixture
def other_assignment(other_course: Course) -> Assignment:
    return Assignment.objects.create(course=other_course, slug="final", title="Final", release_at=RELEASE, due_at=DUE)


@pytest.fixture
def gradebook(assignment: Assignment, ta: User, course_student: User) -> tuple[User, User, User]:
    """The TA and two students of sections A and B; ada solves one problem late and half of the
    other on time, bob one on time under an extension."""
    assignment.late_policy = Assignment.LatePolicy.PENALTY_PER_DAY
    assignment.save()
    ada, bob = course_student, enrol(assignment.course, "=bob")  # a name a spreadsheet would run
    Membership.objects.filter(user=ada).update(section="A")
    Membership.objects.filter(user=bob).update(section="B")
    hand_in(ada, "aot_compiled_sum", DUE + timedelta(hours=2), 100.0)
    hand_in(ada, "batched_dot", DUE - timedelta(days=1), 30.0)
    hand_in(ada, "batched_dot", DUE - timedelta(hours=1), 50.0)
    Extension.objects.create(assignment=assignment, user=bob, due_at=DUE + timedelta(days=3), reason="ill")
    hand_in(bob, "batched_dot", DUE + timedelta(days=2), 100.0)
    return ta, ada, bob
