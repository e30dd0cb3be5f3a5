"""The access tests' world (``tests/webapp/support/access_world.py``), made of the people around
a course that every web test shares; and the site running as ``make run`` runs it on this test's
own database, for the journeys that need both (the course's, the phone-width walk)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Browser, sync_playwright

from tests.webapp.support import course_demo
from tests.webapp.support.access_world import ANOTHER_STUDENT, PRACTICE_CANARY, SLUG, World, accepted_work
from tests.webapp.support.browser_steps import CHROMIUM, CHROMIUM_FLAGS
from tests.webapp.support.people import PASSWORD, member
from tests.webapp.support.running_site import RunningSite, this_tests_database
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


@pytest.fixture
def running_site(catalog: None, tmp_path: Path) -> Iterator[RunningSite]:
    """The site on this test's database, with the catalog in it; its emails are written to
    files in ``tmp_path / "mail"`` (the file backend)."""
    running = RunningSite(
        this_tests_database(), setup=False, extra_env={"JAXJUDGE_EMAIL_FILE_PATH": str(tmp_path / "mail")}
    )
    yield running
    running.stop()


@pytest.fixture
def browser(running_site: RunningSite) -> Iterator[Browser]:
    """Started after the database work above and closed before it is emptied: Playwright's
    event loop in this thread would stop Django's database calls (they are not async-safe)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def demo_course(running_site: RunningSite) -> RunningSite:
    """The course ``make screenshots`` shows: twelve students by an assignment of ten problems."""
    course_demo.make()
    return running_site
