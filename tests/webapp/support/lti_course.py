"""The LTI tests' course and people: Alice who teaches it on the platform, Ted her TA, Sam a
student; the course an instructor's first launch makes, with its assignment; who a browser's
session signs in; and the LTI tasks run in place."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import requests
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from grader.problem import load_problem
from tests.webapp.support.course_tasks import run_courses_tasks
from tests.webapp.support.lti_claims import INSTRUCTOR, LEARNER, TEACHING_ASSISTANT, Person
from tests.webapp.support.lti_platform import Platform
from tests.webapp.support.people import submission_of
from webapp.catalog.models import Problem
from webapp.courses.models import Assignment, AssignmentProblem, Course
from webapp.lti.models import CourseLink
from webapp.submissions.models import Submission

ALICE = Person("a1f0c2d4-7e3b-4b8e-9d7a-2f6c1e0b9a11", "Alice", "Teacher", "alice@example.edu", INSTRUCTOR)


TED = Person("b2e1d3c5-8f4c-4c9f-ae8b-3a7d2f1cab22", "Ted", "Assistant", "ted@example.edu", TEACHING_ASSISTANT)


SAM = Person("c3f2e4d6-9a5d-4daf-bf9c-4b8e3a2dbc33", "Sam", "Student", "sam@example.edu", LEARNER)


ASSIGNMENT_SLUG = "week-1"


def browser() -> requests.Session:
    return requests.Session()


def session_user(session: requests.Session) -> User | None:
    """Who the tool's session cookie in ``session`` (a browser) signs in, if anyone."""
    key = session.cookies.get("sessionid")
    if not key:
        return None
    user_id = SessionStore(session_key=key).get("_auth_user_id")
    return User.objects.filter(pk=user_id).first() if user_id else None


def linked_course(platform: Platform) -> Course:
    """The course an instructor's first launch makes, with a two-problem assignment worth 15 points."""
    answer = platform.launch(browser(), ALICE)
    assert answer.status_code == 302, answer.text
    course = CourseLink.objects.get(context__id_on_platform=platform.context_id).course
    now = timezone.now()
    assignment = Assignment.objects.create(
        course=course,
        slug=ASSIGNMENT_SLUG,
        title="Week 1: tracing",
        release_at=now - timedelta(days=1),
        due_at=now + timedelta(days=7),
    )
    Problem.install(load_problem("aot_compiled_sum"))
    Problem.install(load_problem("batched_dot"))
    for position, (slug, points) in enumerate([("aot_compiled_sum", 10), ("batched_dot", 5)]):
        AssignmentProblem.objects.create(
            assignment=assignment, problem=Problem.objects.get(slug=slug), position=position, points=points
        )
    return course


def run_lti_tasks() -> list[DBTaskResult]:
    """Run the queued LTI tasks as the courses worker does (not the rosters' or the gradings')."""
    return run_courses_tasks("webapp.lti.tasks.")


def refused(answer: requests.Response, session: requests.Session, status: int, words: str) -> None:
    assert answer.status_code == status, (answer.status_code, answer.text[:300])
    assert words in answer.text
    assert "Traceback" not in answer.text
    assert session_user(session) is None


def roster_member(person: Person, status: str = "Active") -> dict[str, Any]:
    return {
        "user_id": person.sub,
        "status": status,
        "given_name": person.given_name,
        "family_name": person.family_name,
        "name": f"{person.given_name} {person.family_name}",
        "email": person.email,
        "roles": person.roles,
    }


def launched_student(platform: Platform) -> tuple[Course, User]:
    course = linked_course(platform)
    session = browser()
    assert platform.launch(session, SAM, custom={"jaxjudge_assignment": ASSIGNMENT_SLUG}).status_code == 302
    student = session_user(session)
    assert student is not None
    run_lti_tasks()  # the instructor's roster sync
    return course, student


def hand_in(student: User, slug: str, fraction: float, kind: str = Submission.Kind.SUBMIT) -> Submission:
    """A graded submission of ``student``'s that scored ``fraction`` of the problem's points."""
    return submission_of(student, slug, kind=kind, score=fraction, max_score=1.0)


def as_(person: Person, roles: list[str]) -> Person:
    return Person(person.sub, person.given_name, person.family_name, person.email, roles)
