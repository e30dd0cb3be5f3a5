"""A course with a term's worth of work in it, for ``make screenshots`` to show: an instructor, a
TA, twelve students in two sections, an assignment of ten problems past its due time under a
per-day penalty (graded Submits on time and late, an extension, an override) and one to come.

Run on the site's database: ``python manage.py shell -c "from tests.webapp.support.course_demo import
make; make()"``. The Submits are made as graded records, not graded in a sandbox: the pages
that show them are what is pictured, not the grading.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PASSWORD = "a-long-password-42"
INSTRUCTOR, STUDENT = "prof-noether", "ada"
STUDENTS = [
    STUDENT,
    "alan",
    "barbara",
    "claude",
    "donald",
    "edsger",
    "frances",
    "grace",
    "john",
    "katherine",
    "leslie",
    "margaret",
]
PROBLEMS = [
    "aot_compiled_sum",
    "batched_dot",
    "positive_sum",
    "stable_softplus",
    "relu_jittable",
    "scan_cumsum",
    "compiled_grad",
    "per_example_grads",
    "export_roundtrip",
    "shape_bound_cache",
]


def account(username: str) -> User:
    from django.contrib.auth.models import User

    user = User.objects.create_user(username, email=f"{username}@example.edu", password=PASSWORD)
    user.first_name = username.replace("-", " ").title()
    user.save(update_fields=["first_name"])
    return user


def make() -> None:
    # Imported here: ``make screenshots`` reads this module's names before Django is set up.
    from django.utils import timezone

    from webapp.catalog.models import Problem
    from webapp.courses.models import Assignment, AssignmentProblem, Course, Extension, Membership, Override
    from webapp.submissions.models import Submission

    random.seed(7)
    now = timezone.now()
    course = Course.objects.create(
        slug="jax-in-practice",
        title="JAX in practice",
        description="Tracing, compiling and transforming, one week at a time.",
    )
    Membership.objects.create(course=course, user=account(INSTRUCTOR), role=Membership.Role.INSTRUCTOR)
    Membership.objects.create(course=course, user=account("ta-hopper"), role=Membership.Role.TA)
    students = []
    for number, name in enumerate(STUDENTS):
        student = account(name)
        Membership.objects.create(course=course, user=student, section="Monday" if number % 2 else "Thursday")
        students.append(student)
    # Members since before the term: their hand-ins below are the course's to read.
    course.memberships.update(joined_at=now - timedelta(days=30))
    week = Assignment.objects.create(
        course=course,
        slug="week-1",
        title="Week 1: compiling",
        release_at=now - timedelta(days=10),
        due_at=now - timedelta(days=2),
        late_policy=Assignment.LatePolicy.PENALTY_PER_DAY,
        penalty_percent_per_day=10,
    )
    Assignment.objects.create(
        course=course,
        slug="week-2",
        title="Week 2: transforming",
        release_at=now - timedelta(days=1),
        due_at=now + timedelta(days=6),
        late_policy=Assignment.LatePolicy.HARD_CLOSE,
    )
    items = [
        AssignmentProblem.objects.create(assignment=week, problem=Problem.objects.get(slug=slug), position=n, points=10)
        for n, slug in enumerate(PROBLEMS)
    ]
    for student in students:
        for item in items:
            if random.random() < 0.2:
                continue  # not attempted
            late = random.random() < 0.15
            at = (
                week.due_at + timedelta(hours=random.randint(1, 40))
                if late
                else week.due_at - timedelta(hours=random.randint(1, 150))
            )
            score = random.choice([1.0, 1.0, 1.0, 0.5, 0.75])
            Submission.objects.create(
                user=student,
                problem=item.problem,
                kind=Submission.Kind.SUBMIT,
                code="# a solution\n",
                status=Submission.Status.GRADED,
                verdict="accepted" if score == 1.0 else "wrong_answer",
                score=score,
                max_score=1.0,
                handed_in_at=at,
            )
    Extension.objects.create(
        assignment=week, user=students[3], due_at=week.due_at + timedelta(days=3), reason="illness"
    )
    Override.objects.create(item=items[0], user=students[5], points=8, reason="graded by hand after a platform outage")
