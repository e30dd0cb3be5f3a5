"""The access tests' world (``tests/webapp/support/access_world.py``), made of the people around
a course that every web test shares."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from tests.webapp.support.access_world import ANOTHER_STUDENT, PRACTICE_CANARY, SLUG, World, accepted_work
from tests.webapp.support.people import PASSWORD, member
from webapp.catalog.models import Problem
from webapp.courses.access import ANONYMOUS, INSTRUCTOR, OTHER_INSTRUCTOR, SITE_STAFF, STUDENT, TA
from webapp.courses.models import Assignment, AssignmentProblem, Course, Membership, Regrade


@pytest.fixture
def world(
    catalog: None,
    course: Course,
    other_course: Course,
    owner: User,
    peer: User,
    ta: User,
    course_student: User,
    outsider: User,
) -> World:
    now = timezone.now()
    week = Assignment.objects.create(
        course=course, slug="week-1", title="Week 1", release_at=now - timedelta(days=7), due_at=now + timedelta(days=7)
    )
    AssignmentProblem.objects.create(assignment=week, problem=Problem.objects.get(slug=SLUG), points=10)
    for instructor in (owner, peer):  # instructors of the site too: they reach the admin
        call_command("instructor", instructor.username, stdout=io.StringIO())
    member(other_course, outsider)
    # Everyone joined ten days ago: ada's practice of twenty days ago is from before.
    Membership.objects.update(joined_at=now - timedelta(days=10))
    people: dict[str, User | None] = {
        ANONYMOUS: None,
        INSTRUCTOR: owner,
        OTHER_INSTRUCTOR: peer,
        TA: ta,
        STUDENT: course_student,
        ANOTHER_STUDENT: outsider,
        SITE_STAFF: User.objects.create_superuser("root", password=PASSWORD),
    }
    practice = accepted_work(course_student, now - timedelta(days=20), f"# {PRACTICE_CANARY}\n")
    work = accepted_work(course_student, now - timedelta(days=1), "# handed in to the course\n")
    regrade = Regrade.objects.create(course=course, scope="Week 1", submission_ids=[work.pk])
    return World(now, course, other_course, week, people, practice, work, regrade)
